"""A machine-readable Debian copyright file's stanzas as its outline (DEP-5).

Every package in /usr/share/doc has a `copyright` file, and most (604 of this machine's
847) are written in the machine-readable format, `debian/copyright` of the source too:

    Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
    Upstream-Name: zlib

    Files: *
    Copyright: 1995-2022 Jean-loup Gailly and Mark Adler
    License: Zlib

    License: Zlib
     This software is provided 'as-is', without any express or implied warranty. …

Read as plain text such a file had no sections, so a passage found for "license of zlib"
said nothing of the files it covers. Here each stanza is read as the format says
(paragraphs apart by blank lines, a field `Name: value` continued on lines that start
with a space or a tab, `#` comments): a `Files` stanza is a level-1 section titled
`Files: <patterns> (<licence>)` (cut to fit 200 characters); a stand-alone `License`
stanza is a level-1 section titled `License: <short name>` and a `Term` named by the
short name, defined by the licence's first line; the header's `Upstream-Name` is the
document's title. A file is one when its first line that is no comment is a `Format:`
(or `Format-Specification:`) field naming the copyright format or DEP-5
(`is_copyright`). Oracle: python-debian's `debian.copyright` on this machine's 604
machine-readable copyright files: the same 17,612 stanzas
(`tests/test_debian_copyright.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docql_sqlite.model import Entity, Heading

_FORMAT = re.compile(
    r"^Format(?:-Specification)?:[ \t]*\S*(?:copyright-format|dep-?5)", re.IGNORECASE
)
# A field's first line: a name of printable characters but the colon, not starting with
# `#` or `-` (the format's, after Debian's control files).
_FIELD = re.compile(r"^([!-\"$-,.-9;-~][!-9;-~]*):(.*)$")
# Characters of a section's title at most (a `Files` stanza may list a hundred paths).
_TITLE_CHARS = 200
# … of which a `Files` stanza's licence takes this many at most.
_LICENCE_CHARS = 60
_SPACE = re.compile(r"\s+")


def is_copyright(lines: list[str]) -> bool:
    """Whether `lines` are a machine-readable copyright file."""
    for line in lines[:50]:
        if not line.strip() or line.startswith("#"):
            continue
        return _FORMAT.match(line) is not None
    return False


@dataclass
class _Stanza:
    line: int  # 1-based, its first field's
    fields: dict[str, list[str]] = field(default_factory=dict)  # folded name → value lines


def _stanzas(lines: list[str]) -> list[_Stanza]:
    stanzas: list[_Stanza] = []
    current: _Stanza | None = None
    name: str | None = None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            current, name = None, None
            continue
        if line.startswith("#"):
            continue
        if line[0] in " \t":
            if current is not None and name is not None:
                current.fields[name].append(line.strip())
            continue
        found = _FIELD.match(line)
        if found is None:
            name = None
            continue
        if current is None:
            current = _Stanza(number)
            stanzas.append(current)
        name = found.group(1).casefold()
        current.fields.setdefault(name, []).append(found.group(2).strip())
    return stanzas


def read(lines: list[str]) -> tuple[list[Heading], list[Entity], str | None]:
    """(headings, licence terms, the upstream name) of a copyright file (`is_copyright`)."""
    headings: list[Heading] = []
    terms: list[Entity] = []
    title: str | None = None
    stanzas = _stanzas(lines)
    for index, stanza in enumerate(stanzas):
        end = (stanzas[index + 1].line - 1) if index + 1 < len(stanzas) else len(lines)
        while end > stanza.line and not lines[end - 1].strip():
            end -= 1  # its last line with text
        fields = stanza.fields
        if index == 0 and ("format" in fields or "format-specification" in fields):
            upstream = " ".join(fields.get("upstream-name", [])).strip()
            title = upstream or None
            continue
        if "files" in fields:
            files = _SPACE.sub(" ", " ".join(fields["files"])).strip()
            short = (fields.get("license") or [""])[0].strip()
            if len(short) > _LICENCE_CHARS:  # an expression of ten licences (a vendor tree)
                short = short[: _LICENCE_CHARS - 1].rstrip() + "…"
            licence = f" ({short})" if short else ""
            room = _TITLE_CHARS - len(licence) - len("Files: ")
            if len(files) > room:
                files = files[: max(room - 1, 0)].rstrip() + "…"
            headings.append(Heading(level=1, title=f"Files: {files}{licence}", line=stanza.line))
        elif "license" in fields:
            value = fields["license"]
            short = value[0].strip()
            if not short:
                continue
            headings.append(
                Heading(level=1, title=f"License: {short}"[:_TITLE_CHARS], line=stanza.line)
            )
            text = next((v for v in value[1:] if v and v != "."), None)
            terms.append(Entity("Term", short, stanza.line, end, definition=text))
    return headings, terms, title
