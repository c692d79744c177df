"""Turn a document's headings into sections: numbers, anchors, parents and line extents.

The rules are the spec's (docql-spec §1.1-1.2): numbers count per level relative to the
shallowest heading level in the document (a skipped level counts as 1); a section runs
to the line before the next heading of the same or a higher level, so it includes its
sub-sections. Parsers that know exact extents (code) set `Heading.end_line` themselves.

Printed numbering wins (docs/design.md B23): when at least two headings of a document
carry a printed number ("1.2 Related software", "Appendix B Invoking R", a PDF outline
entry whose page line shows one), a numbered heading keeps its printed number, an
unnumbered heading under a numbered one continues its parent's numbering, and unnumbered
front or back matter ("Preface", "Concept index") gets no number ('') instead of
shifting every chapter after it — as does an unnumbered heading whose number would be
one the document prints (a "Note" between "8.1.2." and "8.1.3.": not 8.1.3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Document, Heading
from ..text import plain_number

_SLUG_DROP = re.compile(r"[^\w\- ]", re.UNICODE)
# "1.2 Related software", "3. Setup", "Chapter 4: Usage", "Appendix B Invoking R", "B.1 …":
# 1-3 digit parts, at most 6; a letter only as the first part.
PRINTED_NUMBER = re.compile(
    r"^(?:(?P<word>(?i:chapter|appendix|part|section))\s+)?"
    r"(?P<number>(?:\d{1,3}|[A-Z])(?:\.\d{1,3}){0,5})\.?:?\s+(?=\S)"
)
# A heading can be one 50 MB line; its title is repeated in every chunk's FTS row and in
# results, so it is cut (the heading's full text stays in the chunks).
MAX_TITLE_CHARS = 500


@dataclass(slots=True)
class SectionInfo:
    ord: int
    level: int
    depth: int
    title: str
    number: str
    anchor: str
    parent: int | None  # ord of the parent section
    line: int
    end_line: int
    own_end_line: int
    page: int | None


def bounded_title(title: str) -> str:
    """`title`, cut to MAX_TITLE_CHARS characters with an ellipsis when longer."""
    return title if len(title) <= MAX_TITLE_CHARS else title[: MAX_TITLE_CHARS - 1] + "…"


def slugify(title: str) -> str:
    """GitHub-style anchor: casefolded, punctuation dropped, spaces to hyphens; CJK kept."""
    slug = _SLUG_DROP.sub("", title.strip().casefold()).replace(" ", "-")
    return slug or "section"


def printed_number(title: str) -> tuple[str, bool] | None:
    """(number, bare letter) printed at the start of `title`, or None.

    A bare letter ("A A sample session") counts only at the top level of a document whose
    top-level bare letters run A, B, … without a gap (`_printed_numbers`): "A Short Tour"
    or "R and statistics" is a sentence, not appendix A or R.
    """
    match = PRINTED_NUMBER.match(title.strip())
    if match is None:
        return None
    number = plain_number(match["number"])
    return number, number.isalpha() and not match["word"]


def _printed_numbers(doc: Document, headings: list[Heading]) -> list[str | None] | None:
    """Each heading's printed number, or None when the document does not print numbers."""
    if doc.format == "code":
        return None
    top = min(h.level for h in headings)
    found: list[tuple[str, bool] | None] = [
        (h.number, False) if h.number else None if h.number == "" else printed_number(h.title)
        for h in headings
    ]
    letters = sorted(f[0] for f, h in zip(found, headings) if f and f[1] and h.level == top)
    keep_letters = len(letters) >= 2 and letters == [chr(65 + i) for i in range(len(letters))]
    numbers = [
        f[0] if f is not None and (not f[1] or (keep_letters and h.level == top)) else None
        for f, h in zip(found, headings)
    ]
    return numbers if sum(n is not None for n in numbers) >= 2 else None


def build_sections(doc: Document) -> list[SectionInfo]:
    headings = sorted(doc.headings, key=lambda h: h.line)
    if not headings:
        return []
    last_line = max(doc.line_count, headings[-1].line)
    base = min(h.level for h in headings)
    counters = [0] * 6
    printed = _printed_numbers(doc, headings)
    # A number the document prints is never given to an unnumbered heading too: a "Note"
    # between "8.1.2." and "8.1.3." in PostgreSQL's manual took 8.1.3, and
    # `chapter("8.1.3")` answered twice; it gets none.
    printed_numbers = {number for number in printed or () if number}
    path: list[str] = []  # printed numbering: the parts of the last number given
    used_anchors: dict[str, int] = {}
    sections: list[SectionInfo] = []
    stack: list[SectionInfo] = []  # open ancestors
    markdown_ends = _markdown_ends(headings, last_line)
    for ord_, heading in enumerate(headings):
        end_line = heading.end_line if heading.end_line is not None else markdown_ends[ord_]
        while stack and not (
            stack[-1].level < heading.level and stack[-1].end_line >= heading.line
        ):
            stack.pop()
        parent = stack[-1] if stack else None
        if printed is None:
            number = _next_number(counters, heading.level - base)
        else:
            number, taken = _printed_next(printed[ord_], parent.number if parent else "", path)
            if heading.number == "":
                number = ""  # it prints none (LaTeX's `\section*`), nor continues one
            elif printed[ord_] is None and number in printed_numbers:
                number = ""  # (and the numbering goes on as if it had none)
            else:
                path = taken
        info = SectionInfo(
            ord=ord_,
            level=heading.level,
            depth=(parent.depth + 1) if parent else 1,
            title=bounded_title(heading.title),
            number=number,
            anchor=_unique_anchor(heading, used_anchors),
            parent=parent.ord if parent else None,
            line=heading.line,
            end_line=max(end_line, heading.line),
            own_end_line=max(end_line, heading.line),
            page=heading.page if heading.page is not None else doc.page_of(heading.line),
        )
        if parent is not None and parent.own_end_line >= info.line:
            # the parent's own text stops where its first sub-section starts
            parent.own_end_line = info.line - 1
        sections.append(info)
        stack.append(info)
    return sections


def _printed_next(printed: str | None, parent: str, path: list[str]) -> tuple[str, list[str]]:
    """(number, path) for the next heading of a document with printed numbers.

    A printed number is kept as printed. An unnumbered heading under a numbered parent is
    the parent's next child (after the last number given under it); one with no numbered
    parent is front or back matter and gets no number.
    """
    if printed is not None:
        return printed, printed.split(".")
    if not parent:
        return "", path
    prefix = parent.split(".")
    if path[: len(prefix)] == prefix and len(path) > len(prefix):
        child = path[len(prefix)]
        following = str(int(child) + 1) if child.isdigit() else chr(ord(child[0]) + 1)
    else:
        following = "1"
    parts = prefix + [following]
    return ".".join(parts), parts


def _markdown_ends(headings: list[Heading], last_line: int) -> list[int]:
    """For each heading, the line before the next heading of the same or a higher level.

    One pass from the end with a stack of candidates (levels strictly increasing from the
    top), so it is linear in the number of headings whatever their levels.
    """
    ends = [last_line] * len(headings)
    candidates: list[Heading] = []  # later headings not hidden by a shallower-or-equal one
    for index in range(len(headings) - 1, -1, -1):
        level = headings[index].level
        while candidates and candidates[-1].level > level:
            candidates.pop()
        if candidates:
            ends[index] = candidates[-1].line - 1
        candidates.append(headings[index])
    return ends


def _next_number(counters: list[int], depth: int) -> str:
    depth = max(0, min(depth, 5))
    counters[depth] += 1
    for deeper in range(depth + 1, 6):
        counters[deeper] = 0
    for shallower in range(depth):
        if counters[shallower] == 0:
            counters[shallower] = 1
    return ".".join(str(c) for c in counters[: depth + 1])


def _unique_anchor(heading: Heading, used: dict[str, int]) -> str:
    base = heading.anchor.strip() if heading.anchor else slugify(bounded_title(heading.title))
    if base not in used:
        used[base] = 0
        return base
    while True:
        used[base] += 1
        candidate = f"{base}-{used[base]}"
        if candidate not in used:
            used[candidate] = 0
            return candidate


def innermost_sections(sections: list[SectionInfo], lines: list[int]) -> list[SectionInfo | None]:
    """The deepest section whose extent holds each of `lines` (ascending; None: the
    preamble), in one pass over both lists.

    A stack holds the sections opened so far that may still hold a later line; the top is
    the last-opened holder, which is the innermost one because extents nest. Each section
    is pushed and popped once, so the cost is linear (a search per line was quadratic in
    the number of headings: 100k headings took minutes).
    """
    result: list[SectionInfo | None] = []
    stack: list[SectionInfo] = []
    next_section = 0
    for line in lines:
        while next_section < len(sections) and sections[next_section].line <= line:
            stack.append(sections[next_section])
            next_section += 1
        while stack and stack[-1].end_line < line:
            stack.pop()
        result.append(stack[-1] if stack else None)
    return result
