"""Plain text → `Document`: the text itself, no structure.

This module owns the simplest format: a plain-text file has no headings (the whole
file is preamble, searchable and chunked but in no section), its title is the file
name, and line ends are normalised to `\\n`. Term patterns (`Term` / `: definition`,
`**Term**: definition`) are still picked up, since README-style .txt files use them.
"""

from __future__ import annotations

from docql_sqlite.ingest.entities import extract_entities
from docql_sqlite.ingest.read import parse_decoded
from docql_sqlite.model import Document, Source


def parse(source: Source) -> Document:
    """The plain-text parser (`formats.PARSERS`): decode, then `parse_text`."""
    return parse_decoded(source, parse_text)


def parse_text(text: str, path: str) -> Document:
    """Parse decoded plain text; never raises."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    title = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or None
    document = Document(format="text", text=text, title=title)
    document.entities = extract_entities(document)
    return document
