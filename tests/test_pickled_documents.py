"""What a parser process sends the writer survives the pipe whole, and cheaply.

Every parsed file crosses from a worker to the writer as a pickle (`ingest/workers.py`).
The dataclasses it is made of pickle as their class and field values
(`model.pickled_by_fields`): a slots dataclass's own `__setstate__` cost the Markdown mix
0.09 CPU s more. The oracle is the object before the trip: equal field for field.
"""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path
from typing import Any

import pytest

from docql_sqlite.ingest.formats import format_for_path
from docql_sqlite.ingest.parse import ParseTask, parse_for_writer

REPO = Path(__file__).resolve().parents[1]
# One file of each kind the datasets hold: Markdown with code blocks and tables, code
# with symbols, imports and references.
FILES = sorted(
    p
    for p in (REPO / "datasets").rglob("*")
    if p.is_file()
    and p.suffix in {".md", ".py", ".rs", ".go", ".ts", ".java", ".rst", ".html"}
    and "bad" not in p.relative_to(REPO / "datasets").parts  # broken on purpose
)


def _dataclasses_in(value: Any, seen: set[int] | None = None) -> list[Any]:
    """Every dataclass instance reachable from `value` (lists, tuples, dicts, fields)."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return []
    seen.add(id(value))
    found: list[Any] = []
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        found.append(value)
        for f in dataclasses.fields(value):
            found += _dataclasses_in(getattr(value, f.name), seen)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            found += _dataclasses_in(item, seen)
    elif isinstance(value, dict):
        for item in value.values():
            found += _dataclasses_in(item, seen)
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO / "datasets")))
def test_a_parsed_file_crosses_the_pipe_whole(path: Path) -> None:
    task = ParseTask(str(path), str(path), format_for_path(str(path)), file_stat=(1, 2))
    assert pickle.loads(pickle.dumps(task, pickle.HIGHEST_PROTOCOL)) == task
    parsed = parse_for_writer(task)
    sent = pickle.loads(pickle.dumps(parsed, pickle.HIGHEST_PROTOCOL))
    assert sent == parsed
    assert type(sent) is type(parsed)
    # Every dataclass on the way pickles by its fields: one added without it would be
    # pickled by the slow path, silently.
    slow = {
        type(obj).__name__
        for obj in _dataclasses_in(parsed)
        if "pickled_by_fields" not in type(obj).__reduce__.__qualname__
    }
    assert not slow, slow


def test_the_files_cover_what_crosses() -> None:
    """The parametrized files hold what a document can carry to the writer."""
    kinds: dict[str, int] = {}
    for path in FILES:
        # as a worker sends it
        parsed = parse_for_writer(ParseTask(str(path), str(path), format_for_path(str(path))))
        doc = getattr(parsed, "doc", None)
        if doc is None:
            continue
        for name in ("codeblocks", "tables", "entities", "symbols", "imports"):
            kinds[name] = kinds.get(name, 0) + len(getattr(doc, name))
    assert all(
        kinds.get(n, 0) > 0 for n in ("codeblocks", "tables", "entities", "symbols", "imports")
    ), kinds
