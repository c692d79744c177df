"""BibTeX → `Document`: one section and one term per entry, read by lines.

This module owns reading bibliography databases (`.bib`), the other half of a LaTeX
project (design B45). `Document.text` is the file itself. Each entry
(`@article{knuth1984, title = {Literate Programming}, …}`) is a section titled by its key
and title (`knuth1984: Literate Programming`), and a `Term` named by its key whose
definition is "title. authors. year." — so `$.entities[?(@.name=="knuth1984")]` answers
what `\\cite{knuth1984}` cites, and search finds a reference by its words. `@string`,
`@preamble` and `@comment` are no entries; text outside entries is a comment to BibTeX
and stays text. Field values are read as words (`latex.latex_text`: `{\\TeX}book` is
"TeXbook"); an entry whose braces never close ends at the next line opening an entry.
"""

from __future__ import annotations

import re

from docql_sqlite.ingest.latex import latex_text
from docql_sqlite.ingest.read import parse_decoded, plain_lines
from docql_sqlite.model import Document, Entity, Heading, Source, split_lines

# An entry opens anywhere outside another (BibTeX reads the rest as comments: `\@book{…`
# in texlive's prtec sample); its type may hold a dash (`@ABNT-options{…`).
_ENTRY = re.compile(
    r"(?<![\w@])@[ \t]*(?P<type>[A-Za-z][\w-]*)[ \t]*[{(][ \t]*(?P<key>[^,\s{}()]+)[ \t]*,"
)
_NOT_ENTRIES = frozenset({"string", "preamble", "comment"})
_STRING = re.compile(r"(?<![\w@])@[ \t]*string[ \t]*[{(]", re.I)
# BibTeX's predefined macros: the months (`month = jan`)
_MONTHS = dict(
    zip(
        "jan feb mar apr may jun jul aug sep oct nov dec".split(),
        "January February March April May June July August September October November "
        "December".split(),
    )
)
_FIELD = re.compile(r"(?P<name>[A-Za-z][\w-]*)[ \t\n]*=[ \t\n]*")
# the fields a definition shows, and how far an entry's value is read
_SHOWN = ("title", "author", "year")
_VALUE_CHARS = 2_000
_ENTRY_LINES = 500


def parse(source: Source) -> Document:
    """The BibTeX parser (`formats.PARSERS`): decode, then `parse_bibtex`."""
    return parse_decoded(source, parse_bibtex)


def parse_bibtex(text: str, path: str) -> Document:
    """Parse decoded BibTeX; never raises."""
    text = plain_lines(text)
    lines = split_lines(text)
    doc = Document(format="bibtex", text=text)
    starts = [(i, m) for i, line in enumerate(lines) if "@" in line and (m := _ENTRY.search(line))]
    macros = dict(_MONTHS)
    marked = [i for i, line in enumerate(lines) if "@" in line]
    for index, i in enumerate(marked):
        if (string := _STRING.search(lines[i])) is not None:
            # to the next line with an `@` (each line is joined once, whatever the file)
            end = min(
                marked[index + 1] if index + 1 < len(marked) else len(lines), i + _ENTRY_LINES
            )
            body = "\n".join(lines[i : max(end, i + 1)])[string.end() :]
            macros.update(_fields(body, macros, raw=True))
    for index, (i, match) in enumerate(starts):
        if match["type"].lower() in _NOT_ENTRIES:
            continue
        following = starts[index + 1][0] if index + 1 < len(starts) else len(lines)
        end = min(following, i + _ENTRY_LINES, len(lines))
        body = "\n".join(lines[i:end])[match.end() :]
        fields = _fields(body, macros)
        key = match["key"]
        title = fields.get("title", "")
        doc.headings.append(Heading(1, f"{key}: {title}" if title else key, i + 1))
        shown = ". ".join(fields[name] for name in _SHOWN if fields.get(name))
        last = _last_line(lines, i, end)
        doc.entities.append(Entity("Term", key, i + 1, last, definition=shown or None))
    return doc


def _fields(body: str, macros: dict[str, str], raw: bool = False) -> dict[str, str]:
    """The entry's fields (names in lower case) as words (`raw`: as written), from its
    text after the key; a bare word is the macro it names (`jan`, an `@string`)."""
    fields: dict[str, str] = {}
    at, depth = 0, 0
    while at < len(body):
        c = body[at]
        if c in "})" and depth == 0:
            break  # the entry's end
        match = _FIELD.match(body, at) if c.isalpha() and depth == 0 else None
        if match is None:
            at += 1
            if c.isalpha() and depth == 0:
                # a word that names no field: past it whole (what follows any part of it is
                # what follows it); tried at each of its letters it was quadratic, a long
                # word taking seconds
                while at < len(body) and (body[at].isalnum() or body[at] in "_-"):
                    at += 1
            continue
        value, at = _value(body, match.end(), macros)
        fields[match["name"].lower()] = value if raw else latex_text(value)
    return fields


def _value(body: str, at: int, macros: dict[str, str]) -> tuple[str, int]:
    """(a field's value, where it ends): `{…}` balanced, `"…"` (a `"` inside braces does
    not end it), or a bare word or number, joined with `#`. A long value (an abstract) is
    read to its end, once, and kept to its first `_VALUE_CHARS` characters."""
    parts: list[str] = []
    while at < len(body):
        c = body[at]
        if c in '{"':
            close = "}" if c == "{" else '"'
            depth, start = 0, at + 1
            at += 1
            while at < len(body):
                d = body[at]
                if d == close and depth == 0:
                    break
                depth += 1 if d == "{" else -1 if d == "}" else 0
                at += 1
            parts.append(body[start : min(at, start + _VALUE_CHARS)])
            at += 1
        elif c.isalnum():
            start = at
            while at < len(body) and (body[at].isalnum() or body[at] in "_-:."):
                at += 1
            word = body[start:at]
            parts.append(macros.get(word.lower(), word))
        elif c in " \t\n#":
            at += 1
            continue
        else:
            break  # `,` or the entry's end
        # a value continues only after `#` (concatenation)
        rest = body[at : at + 200].lstrip(" \t\n")
        if not rest.startswith("#"):
            break
    return "".join(parts), at


def _last_line(lines: list[str], i: int, end: int) -> int:
    """The line (1-based) that closes the entry opened on line i: the last line before
    `end` that is not blank."""
    last = end - 1
    while last > i and not lines[last].strip():
        last -= 1
    return last + 1
