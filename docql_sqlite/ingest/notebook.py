"""Jupyter notebook (.ipynb) → `Document`.

This module owns turning notebook JSON into a Markdown-like text: markdown and raw
cells as written, code cells as fenced blocks in the kernel's language, cells
separated by one blank line. nbformat 4 keeps its cells in `cells`; nbformat 2 and 3
(IPython's) in `worksheets[*].cells`, with a code cell's text in `input`, its language
on the cell, and headings as cells of their own (`heading`, with a `level`), written
here as ATX headings; nbformat 2 lists a cell's lines without their line ends.
Outputs are left out (they are generated, often huge, and not what a reader searches
for). Headings are the ATX headings (`#`..`######`)
of markdown cells outside fences; setext headings are not recognised here.
"""

from __future__ import annotations

import json
import re
from typing import Any

from docql_sqlite.errors import IngestError
from docql_sqlite.ingest.entities import extract_entities
from docql_sqlite.ingest.read import parse_decoded
from docql_sqlite.model import CodeBlock, Document, Heading, Source

_ATX = re.compile(r"^ {0,3}(?P<marks>#{1,6})(?:[ \t]+(?P<title>.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_CODE_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


def parse(source: Source) -> Document:
    """The Jupyter notebook parser (`formats.PARSERS`): decode, then `parse_notebook`."""
    return parse_decoded(source, parse_notebook)


def parse_notebook(text: str, path: str) -> Document:
    """Parse notebook JSON text. Raises `IngestError("corrupt notebook: ...")`."""
    try:
        notebook = json.loads(text)
        if not isinstance(notebook, dict):
            raise TypeError("not a JSON object")
        cells = _cells(notebook)
    except (ValueError, TypeError) as exc:
        raise IngestError(f"corrupt notebook: {exc}") from exc
    found = notebook.get("metadata")
    metadata: dict[str, Any] = found if isinstance(found, dict) else {}
    language = _language(metadata) or _cell_language(cells)
    # nbformat 2 lists a cell's lines without their line ends; 3 and 4 keep them
    version = notebook.get("nbformat")
    joiner = "\n" if isinstance(version, int) and version < 3 else ""

    lines: list[str] = []
    headings: list[Heading] = []
    codeblocks: list[CodeBlock] = []
    spans: list[tuple[int, str]] = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        # nbformat 3 and earlier keep a code cell's text in "input"
        source = (
            cell.get("input", "")
            if kind == "code" and "source" not in cell
            else cell.get("source", "")
        )
        body = joiner.join(map(str, source)) if isinstance(source, list) else str(source)
        body_lines = body.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n").split("\n")
        if not body.strip():
            continue
        if lines:
            lines.append("")
        start = len(lines) + 1
        if kind == "code":
            lang = cell.get("language") if isinstance(cell.get("language"), str) else None
            lang = (lang or "").lower() or language
            lines += [f"```{lang or ''}", *body_lines, "```"]
            codeblocks.append(CodeBlock(lang, "\n".join(body_lines), start, len(lines)))
            continue
        if kind == "heading":  # nbformat 3: a cell of its own, with its level
            level = cell.get("level")
            level = min(max(level, 1), 6) if isinstance(level, int) else 1
            title = " ".join(part.strip() for part in body_lines if part.strip())
            lines.append("#" * level + " " + title)
            headings.append(Heading(level, title, start))
            continue
        lines += body_lines
        if cell.get("cell_type") == "markdown":
            _scan_markdown(body_lines, start, headings, codeblocks, spans)

    document = Document(
        format="notebook",
        text="\n".join(lines) + "\n" if lines else "",
        language=language,
        headings=headings,
        codeblocks=codeblocks,
        keep_together=[(c.line, c.end_line) for c in codeblocks],
    )
    first_h1 = next((h.title for h in headings if h.level == 1), None)
    meta_title = metadata.get("title") if isinstance(metadata.get("title"), str) else None
    document.title = (
        first_h1 or meta_title or path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    )
    document.entities = extract_entities(document, spans)
    return document


def _cells(notebook: dict[str, Any]) -> list[Any]:
    """The cells of nbformat 4 (`cells`), or of nbformat 2-3 (`worksheets[*].cells`)."""
    if "cells" in notebook:
        cells = notebook["cells"]
        if not isinstance(cells, list):
            raise TypeError("'cells' is not a list")
        return cells
    worksheets = notebook.get("worksheets")
    if not isinstance(worksheets, list):
        raise TypeError("neither 'cells' (nbformat 4) nor 'worksheets' (nbformat 2-3)")
    cells = []
    for sheet in worksheets:
        if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list):
            cells += sheet["cells"]
    return cells


def _cell_language(cells: list[Any]) -> str | None:
    """nbformat 3 names the language on each code cell."""
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            language = cell.get("language")
            if isinstance(language, str) and language:
                return language.lower()
    return None


def _language(metadata: dict[str, Any]) -> str | None:
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = metadata.get(key)
        if isinstance(value, dict) and isinstance(value.get(field), str) and value[field]:
            return str(value[field]).lower()
    return None


def _scan_markdown(
    body: list[str],
    start: int,
    headings: list[Heading],
    codeblocks: list[CodeBlock],
    spans: list[tuple[int, str]],
) -> None:
    """Headings, fenced blocks and inline code spans of one markdown cell."""
    fence: tuple[str, int, str] | None = None  # (marker, opening line, info)
    for offset, line in enumerate(body):
        number = start + offset
        match = _FENCE.match(line)
        if fence:
            if (
                match
                and match["fence"][0] == fence[0][0]
                and len(match["fence"]) >= len(fence[0])
                and not match["info"].strip()
            ):
                code = "\n".join(body[fence[1] - start + 1 : offset])
                codeblocks.append(CodeBlock(fence[2] or None, code, fence[1], number))
                fence = None
            continue
        if match:
            fence = (match["fence"], number, match["info"].strip().split(" ")[0])
            continue
        heading = _ATX.match(line)
        if heading and heading["title"]:
            headings.append(Heading(len(heading["marks"]), heading["title"].strip(), number))
        spans += [(number, span.strip()) for span in _CODE_SPAN.findall(line)]
    if fence:  # unclosed: runs to the end of the cell
        code = "\n".join(body[fence[1] - start + 1 :])
        codeblocks.append(CodeBlock(fence[2] or None, code, fence[1], start + len(body) - 1))
