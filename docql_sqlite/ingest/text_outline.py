"""The outline of a plain text: the headings people type without markup.

A `.txt` manual, a README, an RFC, a NEWS file or a Vim help file has sections all the
same, written in one of three ways this module reads (docs/design.md B44):

- **Adorned titles**: a line underlined (and maybe overlined) with one punctuation
  character repeated, as reST writes them and Sphinx's text builder prints them
  (`Debian Policy Manual` over `****`, `1.1. Scope` over `====`, the kernel's
  `DEVICE OPERATIONS` over `----`). Levels by style, in the order styles first appear
  (docutils' rule); an overlined style is another style than the same underline alone.
- **Numbered titles**: `1.  Introduction`, `4.1 Filter commands`, `Appendix A.  ABNF`
  at the start of a line, with a blank line (or a rule) above and below, whose number
  continues the outline so far (the first is `1`, `1.1` or `0`; then a sibling's next
  number, a first child, or a next number higher up; after a rule, `1` again). A
  numbered list item is followed by its text, ends in a full stop, or breaks that
  sequence: no title.
- **A title under a rule**: a line of twenty or more `=` or `-` and, right under it, one
  line alone (a blank line after it): Vim's help files (`1. Deleting text
  *deleting*`, `*05.1*  The vimrc file`), many READMEs.

A Vim tag (`*deleting*`) at the end of a title is no part of it: the first is the
section's anchor (`chapter("#deleting")`); a tag that opens the title (`*05.1*`) is its
number. A title is at most 100 characters and holds a letter or a digit; a rule is never
one. The numbered level is the number's depth; an unnumbered title under a rule is
level 1. Cost: one pass over the lines, a regular expression for the lines that can
start a title.
"""

from __future__ import annotations

import re
from unicodedata import east_asian_width

from ..model import Heading
from . import vim_help
from .read import repeated_character

MAX_TITLE = 100
# A line longer than this is no title even with Vim's tags after it (read no further).
_MAX_LINE = 400
# The characters an adornment (a title's underline or overline) repeats: reST's but `.`,
# `'`, `:` and `` ` ``, which dotted leaders and ASCII art repeat.
_ADORNMENT_CHARS = '=-~*#^+_"<>'
# A rule that stands above a title: this many `=` or `-` or more (Vim writes 78).
_RULE_WIDTH = 20


def _adornment(line: str) -> str | None:
    """The character `line` repeats, 3 times or more, alone but for spaces around."""
    return repeated_character(line.strip(" \t"), _ADORNMENT_CHARS, 3)


def _is_rule(line: str) -> bool:
    """A line of twenty or more `=` or `-` (trailing spaces allowed)."""
    return repeated_character(line.rstrip(" \t"), "=-", _RULE_WIDTH) is not None


# A printed number opening a line: "1.", "1.2", "3.2.1.", "Appendix A.", "A.1."
_NUMBERED = re.compile(
    r"(?P<number>(?:Appendix|Annex)[ \t]+[A-Z](?:\.\d{1,3})*|\d{1,3}(?:\.\d{1,3}){0,5}"
    r"|[A-Z](?:\.\d{1,3}){1,5})\.?[ \t]+(?P<title>\S.*)"
)
# Vim tags: `*tag*` after a title (one or more), `*05.1*` before it.
_TRAILING_TAGS = re.compile(r"(?:(?:^|[ \t]+)\*[^*\s|]+\*)+[ \t]*$")
_LEADING_TAG = re.compile(r"\*(\d{1,3}(?:\.\d{1,3}){0,5})\*[ \t]+")
_BULLET = re.compile(r"[*+\-\u2022o][ \t]")
_SENTENCE_END = (".", ",", ";", "!")  # (a question is a title: "What is Vim9 script?")


def outline(text: str) -> list[Heading]:
    """The headings of `text` (lines split at newlines), in order. When the adorned
    titles print numbers (Sphinx's text builder: `1.1. Scope` over `====`), the numbers
    on lines alone are a list's ("1. Russ Allbery"): read again without them."""
    lines = text.split("\n")
    headings, adorned_numbers = _outline(lines, True)
    return _outline(lines, False)[0] if adorned_numbers else headings


def _outline(lines: list[str], bare_numbers: bool) -> tuple[list[Heading], bool]:
    """(headings, whether an adorned title printed a number); `bare_numbers`: whether a
    numbered line neither adorned nor under a rule may be a title."""
    headings: list[Heading] = []
    adorned_numbers = False
    styles: list[tuple[str, bool]] = []  # adornment styles in order of first use
    numbers = _Numbers()
    taken = -1  # index of the last line used by a title (its underline included)
    for i, line in enumerate(lines):
        if i <= taken or not line.strip():
            continue
        above = lines[i - 1] if i else ""
        below = lines[i + 1] if i + 1 < len(lines) else ""
        after = lines[i + 2] if i + 2 < len(lines) else ""
        if _adornment(line) is not None:
            if _rule_above(lines, i):
                numbers.restart()  # bash's CHANGES: each release numbers its parts anew
            continue
        adorned = _adorned(line, above, below, after, lines[i - 2] if i >= 2 else "")
        if adorned is not None:
            style = (adorned, _adornment(above) is not None)
            if style not in styles:
                styles.append(style)
            heading = _heading(line, styles.index(style) + 1, i + 1, numbers, True, True)
            if heading is not None:
                headings.append(heading)
                adorned_numbers |= _NUMBERED.fullmatch(heading.title) is not None
                taken = i + 1
            continue
        # a rule right above, or above one blank line (Vim's `vim9.txt`)
        ruled = _rule_above(lines, i - 1) or (not above.strip() and _rule_above(lines, i - 2))
        if not (ruled or not above.strip()) or not _blank(below):
            continue
        if not ruled and (line[:1].isspace() or not bare_numbers):
            continue
        heading = _heading(line, 1, i + 1, numbers, ruled, False)
        if heading is not None:
            headings.append(heading)
    return headings, adorned_numbers


def _columns(text: str) -> int:
    """The columns `text` takes on a terminal: two for a wide (CJK) character."""
    if text.isascii():
        return len(text)
    return sum(2 if east_asian_width(c) in ("W", "F") else 1 for c in text)


def _rule_above(lines: list[str], k: int) -> bool:
    """Whether line k is a rule that can stand above a title: twenty or more `=` or `-`
    alone, with a blank line (or nothing) above it — not a title's underline (the first
    paragraph of git's release notes under `Git v2.11.3 Release Notes`)."""
    return (
        k >= 0
        and _is_rule(lines[k])
        and (k == 0 or lines[k - 1].strip() in ("", "<"))  # (Vim's `<` ends an example)
    )


def _blank(line: str) -> bool:
    """A blank line, one of Vim tags alone (`*:s* *:su*` under `4.2 Substitute`), or Vim's
    `>` that opens an example."""
    return (
        not line.strip()
        or line.strip() == ">"
        or (len(line) <= _MAX_LINE and _TRAILING_TAGS.fullmatch(line) is not None)
    )


def _adorned(line: str, above: str, below: str, after: str, over_above: str) -> str | None:
    """The adornment character when `line` is a title underlined by `below` (and maybe
    overlined by `above`), else None."""
    under = _adornment(below)
    if under is None:
        return None
    if len(line) > _MAX_LINE:
        return None
    title = _TRAILING_TAGS.sub("", line.strip())  # `1.1 Matchit  *sql-matchit*` over `----`
    width = len(below.strip())
    over = _adornment(above)
    if over is not None and above.strip() == below.strip():
        # an overlined title: the same rule above and below, the title no longer, a
        # blank (or nothing) around (a table's header row between two borders is not)
        if _columns(title) <= width + 1 and not after.strip() and not over_above.strip():
            return under
        return None
    if above.strip() or line[:1].isspace():
        return None  # a paragraph's last line over a rule, or an indented line
    # about as long as the title (in columns: a CJK character takes two); shorter, when at
    # least half as long (GnuPG's NEWS: `Noteworthy changes in version 1.6.3 (…) [C22/A14/R3]`
    # over 48 dashes); longer, when the title is no sentence and a blank line follows
    # (`Pistachio Reset Controller` over 77 `=`)
    columns = _columns(title)
    if width < 3 or width < columns // 2:
        return None
    if width > max(columns + 3, columns * 5 // 4) and (
        after.strip() or title.endswith(_SENTENCE_END)
    ):
        return None
    return under


def _heading(
    line: str, level: int, number_line: int, numbers: _Numbers, marked: bool, adorned: bool
) -> Heading | None:
    """The heading a title line makes, or None. `marked`: adorned or under a rule, so an
    unnumbered title is one (under a rule, not a sentence); otherwise only a numbered one
    in sequence is."""
    title = line.strip()
    if len(title) > _MAX_LINE:
        return None  # (and no regular expression runs over a 50 MB line)
    anchor = None
    tags = _TRAILING_TAGS.search(title)
    if tags is not None:
        first = vim_help.TAG.search(tags.group(0).strip())  # the term it names too
        anchor = first.group(1) if first is not None else None
        title = title[: tags.start()].rstrip()
    leading = _LEADING_TAG.match(title)
    if leading is not None:
        title = f"{leading.group(1)} {title[leading.end() :].strip()}"
    # Vim's header mark (`GENERIC ~`) and HTML's pilcrow are no part of a title
    title = re.sub(r"[ \t]+", " ", title.removesuffix(" ~").rstrip("¶ \t"))
    if not title or len(title) > MAX_TITLE or not any(c.isalnum() for c in title):
        return None
    numbered = _NUMBERED.fullmatch(title) if not line[:1].isspace() or marked else None
    if not adorned and marked and (title.endswith(_SENTENCE_END) or _BULLET.match(title)):
        return None  # (a sentence or a list item alone under a rule is a paragraph)
    if numbered is not None:
        number = numbered.group("number")
        depth = min(len(_parts(number)), 6)
        if marked:  # adorned or under a rule: a title, its number the outline's from here
            numbers.take(number)
            return Heading(level=depth, title=title, line=number_line, anchor=anchor)
        words = numbered.group("title")
        if (
            numbers.follows(number, number_line)
            and not title.endswith(_SENTENCE_END)
            and (words[0].isalpha() or words[0] in "\"'(`[")  # not `1 0.25 0.50` (data)
        ):
            numbers.take(number)
            return Heading(level=depth, title=title, line=number_line, anchor=anchor)
        numbers.reject(number, number_line)
        return None
    if not marked:
        return None
    return Heading(level=min(level, 6), title=title, line=number_line, anchor=anchor)


class _Numbers:
    """The printed numbers taken so far: which number may come next."""

    # A numbered line this close after one that was no title, and numbered next to it,
    # is the same list's next item ("2. second item" under "1.1.  Terminology").
    LIST_LINES = 10

    def __init__(self) -> None:
        self.last: list[str] | None = None
        self.item: tuple[list[str], int] | None = None  # the last list item: parts, line
        self.restarted = False  # a rule since the last number taken: `1` may start anew

    def follows(self, number: str, line: int) -> bool:
        parts = _parts(number)
        if self.item is not None and line - self.item[1] <= self.LIST_LINES:
            item = self.item[0]
            if len(parts) == len(item) and parts[:-1] == item[:-1]:
                if parts[-1] == _next(item[-1]):
                    return False
        if self.last is None or (self.restarted and parts in (["0"], ["1"])):
            return parts[-1] in ("0", "1", "A") or number.startswith(("Appendix", "Annex"))
        last = self.last
        if parts[0] != last[0] and parts[0].isalpha() and len(parts) == 1:
            return _next(last[0]) == parts[0] or last[0].isdigit() and parts[0] == "A"
        if len(parts) == len(last) + 1:  # a first child
            return parts[:-1] == last and parts[-1] in ("0", "1")
        if len(parts) <= len(last):  # a sibling's next, or a next number higher up
            return parts[:-1] == last[: len(parts) - 1] and parts[-1] == _next(last[len(parts) - 1])
        return False

    def take(self, number: str) -> None:
        self.last = _parts(number)
        self.restarted = False

    def restart(self) -> None:
        self.restarted = True

    def reject(self, number: str, line: int) -> None:
        self.item = (_parts(number), line)


def _parts(number: str) -> list[str]:
    number = re.sub(r"^(?:Appendix|Annex)[ \t]+", "", number)
    return [str(int(p)) if p.isdigit() else p for p in number.split(".")]  # 05.1: 5.1


def _next(part: str) -> str:
    if part.isdigit():
        return str(int(part) + 1)
    return chr(ord(part) + 1) if part.isalpha() and len(part) == 1 else ""
