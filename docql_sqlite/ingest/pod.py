"""Perl's POD (`.pod`: perlfunc, perlre, a CPAN distribution's manual) → `Document`, as
`perldoc` shows it.

The document's text is the file line for line with the markup resolved: a command's
line shows its text (`=head2 Regexp Quote-Like Operators` → the title), the formatting
codes their text (`C<open>` → `open`, `L<perlre/Modifiers>` → `"Modifiers" in perlre`,
`L<the manual|perlre>` → `the manual`, `E<gt>` → `>`), and the lines of commands that
only shape the page (`=over`, `=back`, `=cut`, `=encoding`) are blank. So search reads
words, not `C<`, and every line is where the file has it.

- **Sections**: `=head1` … `=head6`; the title is the NAME paragraph's first line
  (`perlfunc - Perl builtin functions`), else the first heading.
- **Items** (`=item -n`, `=item open FILEHANDLE,EXPR`, `=item B<--verbose>`): `Term`s
  whose definition is the paragraph after them (a bullet's or a number's none).
- **Verbatim paragraphs** (indented lines) are code blocks.
- `=begin`/`=end` and `=for` blocks for other formatters (`html`, `man`) are blanked.
"""

from __future__ import annotations

import re

from docql_sqlite.ingest.entities import (
    extract_entities,
    merge_entities,
    option_term,
    term_entity,
)
from docql_sqlite.ingest.read import parse_decoded, plain_lines
from docql_sqlite.model import CodeBlock, Document, Heading, Source, split_lines

# (the text up to its last non-blank, greedy: `.*?` before `[ \t]*$` is quadratic on a
# line of blanks)
_COMMAND = re.compile(r"=(?P<name>[a-zA-Z]\w*)(?:[ \t]+(?P<text>(?:.*[^ \t])?))?[ \t]*$")
_ENTITIES = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/", "quot": '"', "amp": "&",
             "apos": "'", "nbsp": " ", "copy": "©", "eacute": "é", "mdash": "—"}  # fmt: skip
# A formatting code with single brackets (`C<$x>`); doubled ones (`C<< $a <=> $b >>`)
# have their own pattern, innermost codes first.
_CODE = re.compile(r"([BICLEFSXZ])<([^<>]*)>")
_LT, _GT = "\ue000", "\ue001"  # (private-use characters: `_render`)
_URL = re.compile(r"[A-Za-z][\w+.-]*:[^:\s]")  # `L<https://…>`, not `L<Mojo::DOM>`
_DOUBLED = re.compile(r"([BICLEFSXZ])<{2,}\s(.*?)\s>{2,}", re.S)


def parse(source: Source) -> Document:
    """The POD parser (`formats.PARSERS`): decode, then `parse_pod`."""
    return parse_decoded(source, parse_pod)


def parse_pod(text: str, path: str) -> Document:
    """Render POD line for line and read its structure; never raises."""
    text = plain_lines(text)
    lines = split_lines(text)
    rendered_lines = _rendered_paragraphs(lines)
    out: list[str] = []
    doc = Document(format="pod", text="")
    name_next = False
    title: str | None = None
    item: tuple[str, int] | None = None  # the open `=item` and its line
    body: list[str] = []
    skip_until: str | None = None  # `=end x` of a `=begin x` block
    verbatim_start: int | None = None

    def end_item(line: int) -> None:
        nonlocal item, body
        if item is not None:
            term, definition = item[0], " ".join(body) or None
            end = max(item[1], line)
            if term.startswith("-"):  # `-d N`: the option `-d`, as it is typed
                entity = option_term(term.split()[0], definition, item[1], end)
            else:
                entity = term_entity(term, definition, item[1], end)
            if entity is not None:
                doc.entities.append(entity)
        item, body = None, []

    def end_verbatim(line: int) -> None:
        nonlocal verbatim_start
        if verbatim_start is not None:
            code = "\n".join(out[verbatim_start - 1 : line - 1]).rstrip("\n")
            last = verbatim_start + code.count("\n")
            doc.codeblocks.append(CodeBlock(None, code, verbatim_start, last))
        verbatim_start = None

    for number, line in enumerate(lines, start=1):
        if skip_until is not None:
            out.append("")
            if line.startswith(skip_until):
                skip_until = None
            continue
        command = _COMMAND.match(line) if _is_command(lines, number - 1) else None
        if command is not None:
            end_verbatim(number)
            name, arg = command["name"], _render(command["text"] or "")
            level = _head_level(name)
            if level is not None:
                end_item(number)
                out.append(arg)
                if arg:
                    doc.headings.append(Heading(level, arg, number))
                name_next = arg.upper() == "NAME"
            elif name == "item":
                end_item(number)
                out.append(arg)
                if arg not in ("*", "") and not re.fullmatch(r"\d+\.?", arg):
                    item = (arg, number)
            elif name == "begin":
                out.append("")
                skip_until = (
                    f"=end {(command['text'] or '').split()[0]}" if command["text"] else "=end"
                )
            elif name == "for":
                out.append("")
            else:  # =over, =back, =pod, =cut, =encoding
                if name in ("back", "cut"):
                    end_item(number)
                out.append("")
            continue
        if line[:1] in (" ", "\t") and line.strip():
            if verbatim_start is None and (number == 1 or not out[-1].strip()):
                verbatim_start = number
            out.append(line)
            continue
        if line.strip():
            end_verbatim(number)
        rendered = rendered_lines[number - 1]
        out.append(rendered)
        if name_next and rendered.strip():
            title, name_next = rendered.strip(), False
        if item is not None and rendered.strip():
            body.append(rendered.strip())
        elif item is not None and body and not rendered.strip():
            end_item(number)
    end_verbatim(len(lines) + 1)
    end_item(len(lines))
    doc.text = "\n".join(out) + ("\n" if out else "")
    doc.entities = merge_entities(extract_entities(doc), doc.entities)
    base = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    doc.title = title or (doc.headings[0].title if doc.headings else (base or None))
    return doc


def _head_level(name: str) -> int | None:
    """The level of a `=headN` command's name (`head2` → 2; `=head7`, none in POD, is 6),
    None for any other command."""
    if name.startswith("head") and name[4:].isdigit():
        return min(max(int(name[4:]), 1), 6)
    return None


def _is_command(lines: list[str], k: int) -> bool:
    """Whether line `k` is a command: `=name` opening a paragraph (a line of text that
    starts with `=` inside one is text: Maketext's `=E<gt> "Tu as gagné!"`)."""
    line = lines[k]
    return (
        line[:1] == "="
        and line[1:2].isalpha()
        and (k == 0 or not lines[k - 1].strip() or lines[k - 1][:1] == "=")
    )


def _rendered_paragraphs(lines: list[str]) -> list[str]:
    """Each line of ordinary text rendered within its paragraph (a formatting code may
    run over a line's end: `C<("You won!"` … `)>`), one line for each line."""
    rendered = list(lines)
    start = None
    for k in range(len(lines) + 1):
        ordinary = (
            k < len(lines)
            and lines[k].strip() != ""
            and lines[k][:1] not in (" ", "\t")
            and not _is_command(lines, k)
        )
        if ordinary and start is None:
            start = k
        elif not ordinary and start is not None:
            paragraph = _render("\n".join(lines[start:k])).split("\n")
            if len(paragraph) == k - start:  # (always: codes keep their line ends)
                rendered[start:k] = paragraph
            start = None
    return rendered


def _render(text: str) -> str:
    """Text with its formatting codes resolved (innermost first)."""
    if "<" not in text:
        return text
    # `E<lt>`/`E<gt>` inside another code (`C<$a =E<gt> 1>`) become brackets only at the
    # end: as `<`, `>` they would end the code around them
    text = text.replace("E<lt>", _LT).replace("E<gt>", _GT)
    for _ in range(8):  # nesting depth: `B<C<x>>`
        before = text
        text = _DOUBLED.sub(lambda m: _code(m[1], m[2]), text)
        text = _CODE.sub(lambda m: _code(m[1], m[2]), text)
        if text == before:
            break
    return text.replace(_LT, "<").replace(_GT, ">")


def _code(kind: str, body: str) -> str:
    if kind == "E":
        if body.isdigit():
            return chr(int(body)) if int(body) < 0x110000 else ""
        if body.startswith("0x"):
            try:
                return chr(int(body, 16))
            except ValueError:
                return ""
        return _ENTITIES.get(body, "")
    if kind in ("X", "Z"):
        return "\n" * body.count("\n")  # index entries, zero-width (line ends kept)
    if kind == "L":
        shown, bar, target = body.partition("|")
        if bar:
            return shown + "\n" * target.count("\n")
        if _URL.match(body):
            return body
        # as perldoc shows a link to a section: `L<perlre/Modifiers>` is "Modifiers" in
        # perlre, `L</"root">` "root" (of this page)
        page, slash, section = body.partition("/")
        if slash:
            section = f'"{section.strip().strip(chr(34))}"'
            return f"{section} in {page.strip()}" if page.strip() else section
        return body.strip('"')
    return body


def embedded_headings(lines: list[str], first: int, last: int) -> list[Heading]:
    """The `=head1` … `=head6` of the POD block on lines `first`..`last` (1-based) of a
    Perl file, as `perldoc` reads a module's manual out of its `.pm`: each with its
    extent, up to its next heading of the same or a higher level inside the block, else
    the block's end (its `=cut`, or the file's). Levels as written: the caller sets them
    below the code's own sections."""
    block = lines[first - 1 : last]
    found: list[Heading] = []
    for k, line in enumerate(block):
        if line[:5] != "=head" or not _is_command(block, k):
            continue
        command = _COMMAND.match(line)
        level = _head_level(command["name"]) if command is not None else None
        title = _render(command["text"] or "").strip() if command is not None else ""
        if level is not None and title:
            found.append(Heading(level, title, first + k))
    for index, heading in enumerate(found):
        later = (h for h in found[index + 1 :] if h.level <= heading.level)
        heading.end_line = next((h.line - 1 for h in later), last)
    return found


# A POD heading that names a method, as modules title them: `find`, `find($selector)`,
# `$dom->find('p')`, `Mojo::DOM->new`, `new(%args)`.
_MEMBER_TITLE = re.compile(r"(?:[$\w:]+\s*->\s*)?([A-Za-z_]\w*)\s*(?:\(.*\))?")


def named_member(title: str) -> str | None:
    """The method a POD heading's title names (`named_member("$ua->get(...)")` is `get`),
    or None for a title of words ("ATTRIBUTES", "Getting started")."""
    found = _MEMBER_TITLE.fullmatch(title.strip())
    return found[1] if found is not None else None


def first_paragraph(lines: list[str], first: int, last: int) -> str | None:
    """The first ordinary paragraph of lines `first`..`last` (1-based) of POD, rendered
    and joined into one line: a section's description (verbatim examples and commands
    skipped)."""
    paragraph: list[str] = []
    for line in lines[first - 1 : last]:
        if not line.strip():
            if paragraph:
                break
            continue
        if line[:1] in (" ", "\t") or (line[:1] == "=" and line[1:2].isalpha()):
            if paragraph:
                break
            continue
        paragraph.append(line.strip())
    return " ".join(_render("\n".join(paragraph)).split()) or None
