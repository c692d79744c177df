"""A small corpus for the Datasette tests, built in a temporary directory: Markdown with
hostile HTML in its headings and text, Python classes, a long text file, files that fail to
index, and a secret file beside it that is never indexed (nothing may ever show it).
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

import docql_sqlite

SECRET = "SECRET-MARKER-9c1e77"
XSS_HEADING = '<script>alert("xss-heading")</script> Guide'
XSS_TEXT = '<img src=x onerror=alert("xss-text")>'
LONG_LINES = 2500

GUIDE = f"""# {XSS_HEADING}

Intro text. {XSS_TEXT}

## Install

Run `pip install lumen` to install the client. TODO: document Windows.

## Usage

### Queries

Write queries with the lumen client.

# Reference

## Configuration

Settings live in `lumen.toml`.
"""

SHAPES = '''"""Shapes."""


class Shape:
    """A shape."""

    def area(self) -> float:
        return 0.0


class Circle(Shape):
    def __init__(self, r: float) -> None:
        self.r = r


def helper() -> int:
    return 1
'''


def build(root: Path) -> Path:
    """Write the corpus under `root/docs`, index it (and embed it with the lexical `hash`
    test model, so vectors exist) into `root/index.db`; return the database path."""
    docs = root / "docs"
    (docs / "src").mkdir(parents=True)
    (docs / "guide.md").write_text(GUIDE, encoding="utf-8")
    (docs / "src" / "shapes.py").write_text(SHAPES, encoding="utf-8")
    (docs / "long.txt").write_text(
        "".join(f"line {n}\n" for n in range(1, LONG_LINES + 1)), encoding="utf-8"
    )
    (docs / "binary.md").write_bytes(b"a\x00b")  # an ingest error
    (root / "secret.txt").write_text(f"{SECRET}\n", encoding="utf-8")
    db = root / "index.db"
    with contextlib.chdir(root):  # stored paths: docs/guide.md, docs/src/shapes.py, ...
        docql_sqlite.index(db, ["docs"])
    docql_sqlite.embed(db, "hash")
    return db


def checksum(db: Path) -> str:
    """sha256 of the database file and its WAL (if any): what a write would change."""
    digest = hashlib.sha256(db.read_bytes())
    wal = db.with_name(db.name + "-wal")
    if wal.exists():
        digest.update(wal.read_bytes())
    return digest.hexdigest()
