"""The one error tree of docql-sqlite, and the caret renderer for query errors.

Every error raised on purpose is a `DocQLError`. Query errors carry the query text and
a 1-based line/column pointing at the first character of the bad token; `str(err)`
renders the message, the offending line and a plain-text caret (no ANSI, because errors
also travel as JSON to agents).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any


class DocQLError(Exception):
    """Base of every error docql-sqlite raises on purpose.

    `exit_code` is the CLI's exit code for it (one table, README "Exit codes" and
    docs/reliability.md §9): 1 a failure of the work itself, 2 a request that cannot run
    as given (usage, query, no index there), 3 a damaged index, 4 an index its storage
    cannot serve (read-only, disk full, I/O error), 5 an index busy with another writer.
    """

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, Any]:
        return {"type": type(self).__name__, "message": self.message}


class QueryError(DocQLError):
    """An error located in a DocQL query (syntax, names, types, regexes)."""

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        offset: int | None = None,
        suggestion: str | None = None,
    ) -> None:
        super().__init__(message)
        self.source = source
        self.offset = offset
        self.suggestion = suggestion
        self.line, self.column = _line_column(source, offset)

    def __str__(self) -> str:
        if self.source is None or self.offset is None:
            return f"{type(self).__name__}: {self.message}"
        head = f"{type(self).__name__}: {self.message} at line {self.line}, column {self.column}"
        return head + "\n" + caret_lines(self.source, self.offset)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data.update(line=self.line, column=self.column, suggestion=self.suggestion)
        if self.source is not None and self.offset is not None:
            data["caret"] = caret_lines(self.source, self.offset)
        return data


class DocQLSyntaxError(QueryError):
    """The query text does not follow the grammar."""


class DocQLNameError(QueryError):
    """An unknown root, function or field."""


class DocQLTypeError(QueryError):
    """An operator used with a value or field of the wrong type."""


class DocQLRegexError(QueryError):
    """An invalid regular expression, or one too costly to run."""


class QueryTimeout(QueryError):
    """A query ran past its time limit (`deadline.py`): a costly regex, or too much work.
    `regex` is the user's regex that was running, if one was."""

    regex: str | None = None


class RegexTimeout(QueryTimeout, DocQLRegexError):
    """A query ran out of time inside a user's regex (catastrophic backtracking)."""


class DatabaseError(DocQLError):
    """The index file is missing, from another schema version, or not an index."""

    exit_code = 2


# What SQLite reports about the file itself (not about a statement), translated by `db.py`
# into messages that name the file and say what to do.
class DatabaseFailure(DatabaseError):
    """An index that is there but cannot be used now: damaged, disk full, read-only, busy,
    an I/O error (the CLI exits 3, 4 or 5; a missing file or one that is not an index 2)."""


class DatabaseCorrupt(DatabaseFailure):
    """The file is damaged (SQLITE_CORRUPT, quick_check, text that is not UTF-8)."""

    exit_code = 3


class DatabaseFull(DatabaseFailure):
    """No space left on the disk holding the index (SQLITE_FULL)."""

    exit_code = 4


class DatabaseReadOnly(DatabaseFailure):
    """The index cannot be written: permissions, a read-only mount (SQLITE_READONLY)."""

    exit_code = 4


class DatabaseIOError(DatabaseFailure):
    """The file cannot be opened, read or written (SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_PERM)."""

    exit_code = 4


class DatabaseBusy(DatabaseFailure):
    """Another process holds the write lock for longer than the busy timeout (SQLITE_BUSY)."""

    exit_code = 5


class DocQLNote(UserWarning):
    """Something a user should know that is not an error (issued with `warnings.warn`; the
    CLI prints it as one `note:` line on stderr)."""


class IngestError(DocQLError):
    """A file could not be read or parsed; recorded in `ingest_errors`, never fatal to a run."""

    def __init__(self, reason: str, path: str | None = None) -> None:
        super().__init__(reason)
        self.path = path


class EmbeddingError(DocQLError):
    """Unknown embedding model, a model/index mismatch, or a failing embedding backend."""


class UsageError(DocQLError):
    """A request that cannot run as given (the CLI exits 2): bad options, bad locations."""

    exit_code = 2


class OptionError(UsageError):
    """An option value out of range or unknown (a search mode, a weight, a limit)."""


class LocationError(DocQLError):
    """A location that names no lines of an indexed document (past its end, a bad range)."""


class SearchError(UsageError):
    """A search request that cannot be run (e.g. an invalid typed query document)."""


def _line_column(source: str | None, offset: int | None) -> tuple[int | None, int | None]:
    if source is None or offset is None:
        return None, None
    offset = max(0, min(offset, len(source)))
    before = source[:offset]
    line = before.count("\n") + 1
    column = offset - (before.rfind("\n") + 1) + 1
    return line, column


def display_width(text: str) -> int:
    """Terminal cells taken by `text`: wide (CJK) characters count 2, combining marks 0."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def caret_lines(source: str, offset: int) -> str:
    """The line of `source` holding `offset`, and a caret under that character."""
    offset = max(0, min(offset, len(source)))
    start = source.rfind("\n", 0, offset) + 1
    end = source.find("\n", offset)
    line = source[start : end if end != -1 else len(source)]
    pad = display_width(source[start:offset])
    return f"  {line}\n  {' ' * pad}^"


def did_you_mean(name: str, choices: Iterable[str]) -> str | None:
    """The closest known name to `name`, for "did you mean" hints."""
    import difflib  # only when a name is wrong

    choices = list(choices)
    lowered = {c.lower(): c for c in choices}
    if name.lower() in lowered:
        return lowered[name.lower()]
    match = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[match[0]] if match else None
