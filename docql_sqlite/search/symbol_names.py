"""Every code symbol of an index in memory: its name, its context (casefolded qualified
name and file name) and where it is, for substring search over names.

FTS5's `unicode61` keeps `getSystemId` and `b64decode` as single tokens, so a word
inside a name is found by scanning the names: the code-words channel (`names.py`) and
the symbols name list (`name_lists.py`, its "contains" matches) read this table. It is
read once per version of the index file (`stats.cached`), as columns (`stats.columns`:
239k symbols in ~0.4 s of CPU at 279 MB, where a dict per row took ~1.1 s), about 50
bytes a symbol.
"""

from __future__ import annotations

import bisect
from itertools import accumulate
from typing import TYPE_CHECKING

from ..records import Record
from ..text import fold
from . import stats

if TYPE_CHECKING:
    from ..store import Store


class NamedSymbol(Record, frozen=True):
    id: int
    doc_id: int
    path: str
    line: int
    name: str  # casefolded


class SymbolNames(Record):
    """Every symbol of the index as columns, and its names / contexts (casefolded
    qualified name and file name) joined into one string each, for fast search."""

    # As the engine wrote them (decimal text): converted only for the symbols a search
    # ranks, not for the 239k of a large index.
    ids: list[str]
    docs: list[str]
    lines: list[str]
    paths: dict[str, str]  # document id → path
    names: str
    contexts: str
    name_starts: list[int]
    context_starts: list[int]

    def __len__(self) -> int:
        return len(self.ids)

    def name(self, i: int) -> str:
        return self.names[self.name_starts[i] : self.name_starts[i + 1] - 1]

    def path(self, i: int) -> str:
        return self.paths[self.docs[i]]

    def symbol(self, i: int) -> NamedSymbol:
        return NamedSymbol(
            int(self.ids[i]), int(self.docs[i]), self.path(i), int(self.lines[i]), self.name(i)
        )

    def containing(self, words: tuple[str, ...], context: bool = False) -> set[int]:
        """Indexes of the symbols whose name (or context) contains any of `words`."""
        blob, starts = (
            (self.contexts, self.context_starts) if context else (self.names, self.name_starts)
        )
        found: set[int] = set()
        for word in words:
            at = blob.find(word)
            while at != -1:
                i = bisect.bisect_right(starts, at) - 1
                found.add(i)
                at = blob.find(word, starts[i + 1])
        return found


def _starts(values: list[str]) -> list[int]:
    """Where each value begins in `"\\n".join(values)`, and one past the end."""
    # C-level calls only (no Python frame per value): 239k names in ~20 ms.
    return list(accumulate(map((1).__add__, map(len, values)), initial=0))


def _one_line_each(values: list[str]) -> str:
    """`values` joined by newlines, a newline inside a value read as a space (a name
    split over lines is searched as one line; its length, and so `_starts`, is kept)."""
    joined = "\n".join(values)
    if joined.count("\n") != max(len(values) - 1, 0):
        joined = "\n".join(value.replace("\n", " ") for value in values)
    return joined


# A-Z only, as SQL's lower() in SQLite (and `Dialect.ascii_lower`): UTF-8's multi-byte
# sequences hold no byte below 0x80, so the table leaves every other character alone.
_ASCII_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")


def _ascii_lower(text: str) -> str:
    if text.isascii():
        return text.lower()
    return (
        text.encode("utf-8", "surrogatepass")
        .translate(_ASCII_LOWER)
        .decode("utf-8", "surrogatepass")
    )


def table(store: Store) -> SymbolNames:
    """Every symbol of the index (cached per version of the index file)."""

    def load() -> SymbolNames:
        # The raw columns, in any order the engine reads fastest; newlines and the case
        # of the qualified names are dealt with here, on whole strings (C-level calls),
        # not per row in SQL (half of the statement's time at 279 MB).
        ids, docs, lines, names, qualified = stats.columns(
            store,
            ["y.id", "y.doc_id", "y.line", "y.name_fold", "y.qualified_name"],
            "FROM symbols y",
            "y.id",
            any_order=True,
        )
        with_symbols, paths_in, file_names = stats.columns(
            store,
            ["d.id", "d.path", "d.name"],
            "FROM documents d WHERE d.id IN (SELECT DISTINCT doc_id FROM symbols)",
            "d.id",
            any_order=True,
        )
        paths = dict(zip(with_symbols, paths_in))
        stems = {
            d: fold(n.rsplit(".", 1)[0]).replace("\n", " ")
            for d, n in zip(with_symbols, file_names)
        }
        names_text = _one_line_each(names)
        qualified = _ascii_lower(_one_line_each(qualified)).split("\n")
        contexts = [f"{q} {stems[d]}" for q, d in zip(qualified, docs)]
        return SymbolNames(
            ids,
            docs,
            lines,
            paths,
            names_text,
            "\n".join(contexts),
            _starts(names),
            _starts(contexts),
        )

    return stats.cached(store, ("symbols",), load)
