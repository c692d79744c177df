"""The SQLite writer (step 0 of the store redesign: filled in by the writer work)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..writer import Writer

if TYPE_CHECKING:
    from .engine import SqliteStore


class SqliteWriter(Writer):
    """(Step 0 of the store redesign: filled in by the writer work.)"""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
