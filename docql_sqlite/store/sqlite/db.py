"""The only module that imports apsw: open an index, migrate it, register SQL functions.

Schema files live in `sql/` (numbered migrations plus `views.sql`) and are loaded from
there, never repeated in Python. A connection opened for queries is read-only, so no
query text can change the database.
"""

from __future__ import annotations

import importlib.util
import os
import re
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from itertools import chain

import apsw

from ... import deadline, settings
from ...errors import (
    DatabaseBusy,
    DatabaseCorrupt,
    DatabaseError,
    DatabaseFull,
    DatabaseIOError,
    DatabaseReadOnly,
    DocQLError,
    DocQLNote,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:  # pathlib is imported where a schema file is read (the writer)
    from pathlib import Path
    from typing import Any

    Params = Sequence[Any] | Mapping[str, Any]

SCHEMA_VERSION = 16
APPLICATION = "docql-sqlite"
# Bump when `text.fts_text` changes: contentless FTS rows are deleted by re-supplying the
# exact indexed text, so a different spacing rule means the FTS index must be rebuilt.
FTS_TEXT_VERSION = 1

SQLError = apsw.Error
# Errors about the database as a whole (not about one document's rows): a run stops on
# them instead of recording every later file as failed. Both forms: apsw's, and the
# `DatabaseError` our cursors translate them into (leaving that out once let a transient
# I/O error pass as one file's problem, after SQLite had rolled the whole batch back).
WHOLE_DATABASE_ERRORS: tuple[type[Exception], ...] = (
    DatabaseError,
    apsw.FullError,
    apsw.IOError,
    apsw.CorruptError,
    apsw.NotADBError,
    apsw.ReadOnlyError,
    apsw.BusyError,
    apsw.LockedError,
    apsw.CantOpenError,
)
DiskFullError = apsw.FullError
# Tries of a first read that meets SQLITE_PROTOCOL (50, 100, 150 ms apart: 0.3 s).
PROTOCOL_RETRIES = 3
READER_MMAP_BYTES = 1 << 30  # address space, not memory: pages are the OS's file cache
# Before its first write a writer checks the file's structure (`PRAGMA quick_check`): SQLite
# notices damage only on the pages a statement happens to read, and an `index` run on a
# damaged file wrote to it and exited 0 (issue 20). Bounded in wall time: past the bound
# the run goes on with what SQLite's own reads catch (docs/reliability.md §9 has the cost):
# $DOCQL_CHECK_SECONDS, read by `settings.check_seconds` when a writer opens the file.

# A test seam: the name of the SQLite VFS that `connect` opens files with for writing
# (None: SQLite's default; readers always use the default). tests/faulty_vfs.py registers
# a VFS that fails the Nth write and sets this, so that the I/O-error tests reach apsw
# through this module (docs/reliability.md).
VFS: str | None = None


# -- SQLite's complaints about the file, as DatabaseError messages ----------------------
def translate(exc: BaseException, path: str = "", readonly: bool = False) -> DocQLError | None:
    """The `DatabaseError` for an apsw error about the file itself (damaged, disk full,
    read-only, I/O, busy), naming the file and what to do; None for any other error (a
    statement's own error stays an apsw error for the caller to judge, and so does a write
    on a connection opened read-only on purpose)."""
    if not isinstance(exc, apsw.Error) or (readonly and isinstance(exc, apsw.ReadOnlyError)):
        return None
    name = f"'{path}'" if path else "the index"
    quoted = f"'{path}'" if path else "INDEX.db"
    folder = f"'{os.path.dirname(os.path.abspath(path)) or '/'}'" if path else "its folder"
    said = (str(exc).splitlines() or [type(exc).__name__])[0]
    if isinstance(exc, apsw.NotADBError):  # not an index (exit 2), rather than a failure
        return DatabaseError(
            f"{name} is not a SQLite database (and so not a docql-sqlite index), or its first "
            f"page is damaged; give the path of an index, or a new file name to create one"
        )
    if isinstance(exc, apsw.CorruptError):
        return DatabaseCorrupt(
            f"{name} is damaged (SQLite: {said}); see what is wrong with: sqlite3 {quoted} "
            f"'PRAGMA integrity_check', then delete it and index again, or restore a copy"
        )
    if isinstance(exc, apsw.FullError) or (isinstance(exc, apsw.IOError) and _disk_full(path)):
        return DatabaseFull(
            f"no space left to write {name} (SQLite: {said}); free some space in {folder} "
            f"and run the command again (nothing was half-written: the transaction was rolled back)"
        )
    if isinstance(exc, apsw.ReadOnlyError):
        return DatabaseReadOnly(
            f"{name} cannot be written (SQLite: {said}); check the permissions of the file and "
            f"of {folder} (SQLite writes -wal and -shm files next to it), or index into a copy"
        )
    if isinstance(exc, (apsw.IOError, apsw.CantOpenError, apsw.PermissionsError)):
        return DatabaseIOError(
            f"cannot read or write {name} (SQLite: {said}); check that the file and {folder} "
            f"exist, are readable, and that the disk works"
        )
    # SQLITE_PROTOCOL: a reader could not get a stable view of the WAL index while
    # another process changed it (SQLite retries ~100 times first): transient, like busy.
    if isinstance(exc, (apsw.BusyError, apsw.LockedError, apsw.ProtocolError)):
        return DatabaseBusy(
            f"{name} is busy: another process (an index or embed run) holds its write lock; "
            f"try again when it has finished"
        )
    return None


def damaged_text(exc: UnicodeDecodeError, path: str = "") -> DatabaseCorrupt:
    """The error for a text value in the file that is not valid UTF-8: SQLite stores what
    it is given, so only a damaged page (or another program's writes) holds such a value."""
    name = f"'{path}'" if path else "the index"
    quoted = f"'{path}'" if path else "INDEX.db"
    return DatabaseCorrupt(
        f"{name} is damaged (a text value read from it is not valid UTF-8: {exc.reason} at "
        f"byte {exc.start}); see what is wrong with: sqlite3 {quoted} 'PRAGMA integrity_check', "
        f"then delete it and index again, or restore a copy"
    )


def check_damage(
    conn: apsw.Connection, path: str, seconds: float, *, interrupted_by_caller: bool = False
) -> bool | None:
    """Run `PRAGMA quick_check` for at most `seconds` of wall time: raise `DatabaseCorrupt`
    when it finds damage, return True when the whole file checked out, None when it ran
    out of time (or `seconds` <= 0). quick_check reads every page and verifies each
    b-tree's structure, not the indexes' agreement with their tables (integrity_check).

    `interrupted_by_caller`: no progress handler; the caller stops the check with
    `conn.interrupt()` (a check on a thread of its own: a Python callback every few
    thousand steps would wait each time for the GIL of the thread doing other work)."""
    if seconds <= 0:
        return None
    if interrupted_by_caller:
        return _quick_check(conn, path)
    import time  # only where a check runs

    end = time.monotonic() + seconds
    conn.set_progress_handler(lambda: time.monotonic() > end, 10_000)
    try:
        return _quick_check(conn, path)
    finally:
        conn.set_progress_handler(deadline.progress, deadline.PROGRESS_STEPS)


def _quick_check(conn: apsw.Connection, path: str) -> bool | None:
    try:
        found = [row[0] for row in conn.execute("PRAGMA quick_check(3)").fetchall()]
    except apsw.InterruptError:
        return None
    except UnicodeDecodeError as exc:
        raise damaged_text(exc, path) from None
    except DatabaseError:
        raise
    except apsw.Error as exc:
        raise translate(exc, path) or DatabaseCorrupt(f"'{path}' is damaged ({exc})") from exc
    if found == ["ok"]:
        return True
    lines = [part for line in found for part in str(line).splitlines()]
    said = "; ".join(part for part in lines if not part.startswith("***"))[:300]
    raise DatabaseCorrupt(
        f"'{path}' is damaged (SQLite's quick_check: {said}); nothing was written to it; see "
        f"everything that is wrong with: sqlite3 '{path}' 'PRAGMA integrity_check', then delete "
        f"it and index again, or restore a copy"
    )


def integrity(conn: apsw.Connection, path: str, seconds: float) -> str:
    """What `status` shows: "ok" when quick_check passed within `seconds`, else why the
    file was not checked; a damaged file raises `DatabaseCorrupt`."""
    if check_damage(conn, path, seconds):
        return "ok (quick_check)"
    return (
        f"not checked (quick_check needs more than {seconds:g} s here; run: "
        f"sqlite3 '{path}' 'PRAGMA quick_check')"
    )


class BackgroundCheck:
    """The structure check a writer runs before its first write (`check_damage`), started
    early on a read-only connection and a thread of its own: an index run checks the file
    while it walks the files to index (quick_check is SQLite's C code, which apsw runs
    without the GIL), and the writer's open then takes the verdict instead of checking
    again. 279 MB: the check ~0.9 s and the walk ~0.9 s, each a re-index's largest part.

    The verdict is about the file as it was when the check read it; a writer that opens it
    later finds only what writers wrote since, which is not damage."""

    def __init__(self, path: str, seconds: float) -> None:
        import threading

        self.path = path
        self.stopped = False
        self.conn: apsw.Connection | None = None
        self.outcome: bool | None | BaseException = None
        self.thread = threading.Thread(
            target=self._run, args=(seconds,), name="docql-quick-check", daemon=True
        )
        self.thread.start()

    def _run(self, seconds: float) -> None:
        import threading

        try:
            conn = apsw.Connection(
                self.path, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
            )
        except BaseException as exc:  # noqa: BLE001 - the writer's open checks itself
            self.outcome = exc
            return
        self.conn = conn
        timer = threading.Timer(seconds, conn.interrupt)  # the check's time, as a writer's
        timer.daemon = True
        timer.start()
        try:
            conn.set_busy_timeout(10_000)
            if not self.stopped:
                self.outcome = check_damage(conn, self.path, seconds, interrupted_by_caller=True)
        except BaseException as exc:  # noqa: BLE001 - the writer's open decides what it means
            self.outcome = exc
        finally:
            timer.cancel()
            self.conn = None
            conn.close()

    def stop(self) -> None:
        """No writer will come (the run failed before opening the file): stop reading."""
        self.stopped = True
        conn = self.conn
        if conn is not None:
            try:
                conn.interrupt()
            except apsw.Error:
                pass  # closed in the meantime

    def settled(self) -> bool:
        """Wait for the verdict: True when the file was checked (or ran out of the check's
        time, as the writer's own check would), False when this check could not run (the
        writer then checks itself); raises `DatabaseCorrupt` for a damaged file."""
        self.thread.join()
        if isinstance(self.outcome, DatabaseCorrupt):
            raise self.outcome
        return not isinstance(self.outcome, BaseException) and not self.stopped


def start_check(path: str) -> BackgroundCheck | None:
    """A `BackgroundCheck` of the index file at `path`, or None when there is nothing to
    check yet (no such file, an in-memory or URI database) or checks are off."""
    seconds = settings.check_seconds() or 0.0
    if seconds <= 0 or not _is_plain_path(path) or not os.path.isfile(path):
        return None
    if os.path.getsize(path) == 0:
        return None
    return BackgroundCheck(path, seconds)


def _disk_full(path: str) -> bool:
    """No room left next to `path` (an I/O error there is then a full disk)."""
    try:
        stats = os.statvfs(os.path.dirname(os.path.abspath(path)) if path else ".")
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < 64 * 1024


# Rows per statement of `Cursor._insert_rows` (at most 32,766 values per statement: a
# row of 12 columns, `refs`', is 768 of them at 64).
ROWS_PER_INSERT = 64
# A one-row insert whose rows can be given several to a statement: its `VALUES (…)`
# (placeholders, literals, blanks) ends the text.
_ONE_ROW_INSERT = re.compile(r"\s*INSERT\b.*\bVALUES\s*(\((?:[^()']|'[^']*')*\))\s*$", re.I | re.S)


@lru_cache(maxsize=128)
def _multi_row(sql: str) -> str | None:
    """`sql` (a one-row INSERT) taking ROWS_PER_INSERT rows; None for any other statement."""
    found = _ONE_ROW_INSERT.match(sql)
    if found is None or ";" in sql:
        return None
    values = found.group(1)
    return sql[: found.end(1)] + ("," + values) * (ROWS_PER_INSERT - 1)


class Cursor(apsw.Cursor):
    """An apsw cursor whose errors about the file become `DatabaseError`s (`translate`).

    Statement steps run in execute() (the first row) and fetchone()/fetchall(); rows
    stepped by plain iteration are translated by `rows()` (a Python `__next__` here would
    cost a microsecond per row).
    """

    def _translated(self, exc: apsw.Error) -> BaseException:
        conn = self.connection
        path, readonly = getattr(conn, "docql_path", ""), getattr(conn, "docql_readonly", False)
        translated = translate(exc, path, readonly)
        if translated is not None and isinstance(conn, Connection):
            conn.docql_failed = True
        return translated or exc

    def _damaged(self, exc: UnicodeDecodeError) -> DatabaseCorrupt:
        conn = self.connection
        if isinstance(conn, Connection):
            conn.docql_failed = True
        return damaged_text(exc, getattr(conn, "docql_path", ""))

    def execute(self, *args: Any, **kwargs: Any) -> apsw.Cursor:
        try:
            return super().execute(*args, **kwargs)
        except apsw.Error as exc:
            raise self._translated(exc) from exc
        except UnicodeDecodeError as exc:  # a damaged text value in the first row
            raise self._damaged(exc) from exc

    def executemany(self, *args: Any, **kwargs: Any) -> apsw.Cursor:
        try:
            return super().executemany(*args, **kwargs)
        except apsw.Error as exc:
            raise self._translated(exc) from exc
        except UnicodeDecodeError as exc:
            raise self._damaged(exc) from exc

    def insert_rows(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """`executemany` of a one-row `INSERT … VALUES (…)` over a list of tuples, as
        statements of ROWS_PER_INSERT rows each and one for the rest: the same rows in the
        same order. apsw looks its statement up again by its text for every row of an
        `executemany` (hashing the text: ~1.7 k instructions a row at 150 characters);
        the resolution pass writes millions of rows of `refs` (on the Go sources'
        references the lookups were 0.08 of the 4.4 G instructions they add; a 12-column
        insert of 300 k rows took 0.37 s instead of 0.52–0.59). Not for the writer's
        per-batch inserts: on the Markdown mix their many-row statements, evicted from
        apsw's cache of 100 and prepared again, cost 1.4 G instructions more (5.23 G
        against 3.83 G for the store's writes, `benchmarks/row_cost.py store`)."""
        many = _multi_row(sql) if len(rows) >= 2 * ROWS_PER_INSERT else None
        if many is None:
            self.executemany(sql, rows)
            return
        full = len(rows) - len(rows) % ROWS_PER_INSERT
        self.executemany(
            many,
            [
                tuple(chain.from_iterable(rows[i : i + ROWS_PER_INSERT]))
                for i in range(0, full, ROWS_PER_INSERT)
            ],
        )
        if full < len(rows):
            self.executemany(sql, rows[full:])

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except apsw.Error as exc:
            raise self._translated(exc) from exc
        except UnicodeDecodeError as exc:
            raise self._damaged(exc) from exc

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except apsw.Error as exc:
            raise self._translated(exc) from exc
        except UnicodeDecodeError as exc:
            raise self._damaged(exc) from exc


class Connection(apsw.Connection):
    """An apsw connection that knows its file's name and translates errors about it."""

    docql_path: str = ""
    docql_readonly: bool = False
    docql_failed: bool = False  # an error about the file was raised: close() stays quiet
    docql_chunk_trigrams: bool | None = None  # `chunks_trigram` exists (writer's cache)

    def __exit__(self, etype: Any, evalue: Any, tb: Any) -> bool:
        try:
            return super().__exit__(etype, evalue, tb)
        except apsw.Error as exc:
            if evalue is not None:
                # SQLite already rolled back (disk full, I/O error): the rollback's own
                # "no transaction is active" would hide the error that matters.
                return False
            self.docql_failed = True
            raise translate(exc, self.docql_path, self.docql_readonly) or exc from exc

    def close(self, force: bool = False) -> None:
        """Close; a failure (the checkpoint on close cannot write) is a `DatabaseError` too,
        unless this connection has reported an error about the file already: then that
        error is the one that matters, and it is on its way up (`finally: conn.close()`)."""
        try:
            super().close(force)
        except apsw.Error as exc:
            if self.docql_failed:
                return
            raise translate(exc, self.docql_path, self.docql_readonly) or exc from exc


def sql_dir() -> Path:
    """Where the schema files are: inside the installed package, or the source tree's `sql/`."""
    from pathlib import Path  # the writer's path only (a reader opens no schema file)

    package = Path(__file__).resolve().parents[2]  # docql_sqlite/
    packaged = package / "sql"
    if packaged.is_dir():
        return packaged
    return package.parent / "sql"


def migration_files() -> list[tuple[int, Path]]:
    found = []
    for path in sql_dir().glob("[0-9][0-9][0-9]_*.sql"):
        found.append((int(path.name[:3]), path))
    return sorted(found)


def connect(
    path: str | Path,
    *,
    readonly: bool = False,
    create: bool = True,
    checked: BackgroundCheck | None = None,
) -> Connection:
    """Open an index file, migrating it (writable) or checking its version (read-only).

    A reader that cannot write the file or its folder (a read-only mount, a 444 file, a
    555 folder, a full disk) opens it immutable: SQLite then reads the file alone and
    creates no -wal/-shm files, which it could not create there, or would create with the
    reader's owner and modes. A `DocQLNote` warning says so.
    """
    path = str(path)
    if os.path.isdir(path):  # SQLite would say "disk I/O error"
        raise DatabaseError(
            f"'{path}' is a directory; an index is a file, such as {path.rstrip('/')}.db"
        )
    if readonly or not create:
        if path != ":memory:" and not os.path.exists(path):
            if _being_created(path):
                raise DatabaseError(
                    f"no index at '{path}' yet: an index run is creating it; try again in a moment"
                )
            raise DatabaseError(
                f"no index at '{path}'; create one with: docql-sqlite index {path} PATH..."
            )
    if _is_plain_path(path) and not readonly:
        # SQLite would open it read-only anyway and fail later, as "unable to open
        # database file" (no -wal/-shm can be made) or at the first write.
        reason = _unwritable(path) if os.path.exists(path) else _uncreatable(path)
        if reason is not None:
            raise DatabaseReadOnly(
                f"'{path}' cannot be written: {reason}; check the permissions of the file and "
                f"of its folder (SQLite writes -wal and -shm files next to it), or index into "
                f"a copy"
            )
    if not readonly and create and _is_plain_path(path) and not os.path.exists(path):
        _create_whole(path)
    if not readonly or path == ":memory:":
        return _open(path, readonly, create=create, checked=checked)
    reason = _unwritable(path)
    if reason is not None:
        return _open_immutable(path, reason)
    before = {s: os.path.exists(path + s) for s in _SIDE_FILES}
    try:
        return _open(path, readonly=True)
    except (DatabaseIOError, DatabaseReadOnly, DatabaseFull) as exc:
        # Shared reading needs the -shm file: e.g. no space left to make it.
        for suffix, existed in before.items():
            _remove_if_empty(path + suffix, existed)
        said = exc.__cause__ or exc
        return _open_immutable(path, f"SQLite could not set up shared reading ({said})")


_SIDE_FILES = ("-wal", "-shm")
_CREATING = ".creating"


def _is_plain_path(path: str) -> bool:
    return path != ":memory:" and not path.startswith("file:")


def _creating_name(path: str) -> str:
    """A hidden name next to `path` for the index being built (walkers skip hidden files)."""
    import secrets

    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(folder, f".{name}.{secrets.token_hex(4)}{_CREATING}")


def _being_created(path: str) -> bool:
    folder, name = os.path.split(os.path.abspath(path))
    try:
        return any(
            entry.startswith(f".{name}.") and entry.endswith(_CREATING)
            for entry in os.listdir(folder)
        )
    except OSError:
        return False


def _create_whole(path: str) -> None:
    """Make a new index at `path` in one step: its schema is built in a hidden file next to
    it, which is then linked to `path`. A reader racing an index run that creates the file
    used to find it empty, or without its tables, until the first commit ("is empty");
    now `path` is absent (and a reader says it is being created) or a whole, empty index.
    When another process made `path` first, its file is the one used."""
    temp = _creating_name(path)
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
    except OSError:
        return  # no room or no right to make it here: opening `path` says why
    os.close(fd)
    try:
        try:
            _open(temp, readonly=False, shown=path, building=True).close()
        except DatabaseError:
            return  # e.g. no room for the schema: opening `path` itself reports it
        wal = temp + "-wal"
        if os.path.exists(wal) and os.path.getsize(wal) > 0:
            return  # not all in the file itself: never link a part of an index
        try:
            os.link(temp, path)
        except FileExistsError:
            pass  # another writer created it first: use that one
        except OSError:  # no hard links on this file system (FAT, some FUSE mounts)
            if not os.path.exists(path):
                os.replace(temp, path)
    finally:
        for suffix in ("", *_SIDE_FILES, "-journal"):
            try:
                os.unlink(temp + suffix)
            except OSError:
                pass


def _unwritable(path: str) -> str | None:
    """Why a reader cannot use the -wal/-shm files next to `path` (and a writer cannot
    write it), or None when it can."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return f"it is on a read-only file system ('{folder}')"
    except OSError:
        pass
    if not os.access(path, os.W_OK):
        return "the file is read-only for this user"
    if not os.access(folder, os.W_OK) and not os.path.exists(path + "-shm"):
        return f"its folder '{folder}' is read-only for this user"
    return None


def _uncreatable(path: str) -> str | None:
    """Why a new index cannot be made at `path`, or None when it can (or may: SQLite says)."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return f"it would be on a read-only file system ('{folder}')"
    except OSError:
        return None  # no such folder: SQLite's own error says so
    if not os.access(folder, os.W_OK):
        return f"its folder '{folder}' is read-only for this user"
    return None


def _remove_if_empty(path: str, existed: bool) -> None:
    """Remove a side file this process just created in vain (only if empty)."""
    try:
        if not existed and os.path.getsize(path) == 0:
            os.remove(path)
    except OSError:
        pass


def _open_immutable(path: str, reason: str) -> Connection:
    wal = path + "-wal"
    if os.path.exists(wal) and os.path.getsize(wal) > 0:
        try:  # an existing readable -shm may still allow a normal read-only open
            return _open(path, readonly=True)
        except DatabaseError:
            raise DatabaseReadOnly(
                f"'{path}' cannot be read from here: its -wal file holds changes not yet in "
                f"the file, and {reason}; run any docql-sqlite command on it once where it can "
                f"be written, or copy it (with its -wal file) somewhere writable"
            ) from None
    import urllib.parse

    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?immutable=1"
    conn = _open(uri, readonly=True, shown=path)
    warnings.warn(
        f"reading '{path}' as an immutable file: {reason}, so no -wal/-shm files are made "
        f"(changes written while it is open are not seen)",
        DocQLNote,
        stacklevel=3,
    )
    return conn


def _open(
    path: str,
    readonly: bool,
    shown: str | None = None,
    create: bool = True,
    building: bool = False,
    checked: BackgroundCheck | None = None,
) -> Connection:
    shown = shown or path
    if readonly:
        flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    else:
        flags = apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE | apsw.SQLITE_OPEN_URI
    try:
        conn = Connection(path, flags=flags, vfs=None if readonly else VFS)
        conn.docql_path, conn.docql_readonly = shown, readonly
        conn.cursor_factory = Cursor
        conn.set_busy_timeout(10_000)
        # Every statement stops once the query running it is out of time (`deadline`).
        conn.set_progress_handler(deadline.progress, deadline.PROGRESS_STEPS)
        if not readonly:
            if _refuse_foreign_file(conn, shown, create) is not None:
                _check_before_writing(conn, shown, checked)
        # Extra checks of each b-tree page as it is read: more damage is caught by the
        # reads themselves (SQLite: "a small performance penalty").
        conn.execute("PRAGMA cell_size_check = ON")
        conn.execute("PRAGMA foreign_keys = ON")
        if readonly:
            # Readers scan the vec0 and FTS pages of every search: mapped, SQLite reads
            # them in place instead of copying each page into its cache (smart search
            # ~12% less CPU on the 10 MB mix). The writer shrinks the file only through
            # WAL checkpoints (an index run's incremental_vacuum): a checkpoint neither
            # backfills nor truncates past the snapshot of any open read transaction,
            # and a reader touches only pages of its own snapshot, so no mapped page it
            # reads is ever past the end of the file (tests/test_ingest_shrink.py).
            conn.execute(f"PRAGMA mmap_size = {READER_MMAP_BYTES}")
        else:
            # Large pages waste less space around chunk-sized rows; only a new file takes it.
            conn.execute("PRAGMA page_size = 16384")
            # Also only on a new file: the pages FTS5 frees when it merges segments (up
            # to ~1 MB on the 10 MB Markdown mix, at random) are handed back at the end of
            # an index run (`PRAGMA incremental_vacuum` in ingest/run.py).
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            # A new file being built (`_create_whole`) gets its schema under a rollback
            # journal, which holds next to nothing for a new file: a WAL would hold a second
            # copy of every page until the checkpoint on close, which a nearly full disk
            # cannot take (and a file linked before its WAL was checkpointed is damaged).
            conn.execute(f"PRAGMA journal_mode = {'DELETE' if building else 'WAL'}")
            conn.execute("PRAGMA synchronous = NORMAL")
    except apsw.Error as exc:
        raise translate(exc, shown) or DatabaseError(f"cannot open '{shown}': {exc}") from exc
    try:
        load_vec(conn)
        register_functions(conn)
        if readonly:
            check_version(conn, shown)
        else:
            migrate(conn, shown)
            if building:
                conn.execute("PRAGMA journal_mode = WAL")  # its readers and writers use WAL
    except BaseException:
        conn.close()
        raise
    return conn


def _refuse_foreign_file(conn: apsw.Connection, path: str, create: bool) -> int | None:
    """Before any PRAGMA writes to the file: a file that is not an index (another
    program's database, a text file) is left as it was, and so is an empty one unless
    `create` says to make it an index. Returns the stored schema version (None: empty)."""
    try:
        version = stored_version(conn, path)
        if version is None and not create:
            raise DatabaseError(
                f"'{path}' is empty, not a docql-sqlite index; create one with: "
                f"docql-sqlite index {path} PATH..."
            )
    except DatabaseError:
        conn.close()
        raise
    return version


def _check_before_writing(
    conn: apsw.Connection, path: str, checked: BackgroundCheck | None = None
) -> None:
    """A damaged index is reported, and its bytes left as they are, before the first write
    (the verdict of a check started earlier, when there is one)."""
    try:
        if checked is None or not checked.settled():
            check_damage(conn, path, settings.check_seconds() or 0.0)
    except DatabaseError:
        conn.close()
        raise


def vec_extension_path() -> str | None:
    """sqlite-vec's loadable library (without suffix), found without importing the package:
    `import sqlite_vec` imports numpy.typing, ~75 ms of every command's start-up."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], "vec0")


def load_vec(conn: apsw.Connection) -> bool:
    """Load sqlite-vec if it is installed; vector features report its absence themselves."""
    path = vec_extension_path()
    if path is None:
        return False
    try:
        conn.enable_load_extension(True)
        conn.load_extension(path)
        return True
    except apsw.Error:  # a platform without the binary: stay usable without vectors
        return False
    finally:
        conn.enable_load_extension(False)


def has_vec(conn: apsw.Connection) -> bool:
    try:
        conn.execute("SELECT vec_version()").fetchall()
        return True
    except apsw.Error:
        return False


# The optional trigram index over the chunks' text (`index --trigram`, docs/design.md B35).
CHUNK_TRIGRAMS = "chunks_trigram"


def has_chunk_trigrams(conn: apsw.Connection) -> bool:
    """Whether the file has the optional trigram index over the chunks' text."""
    return (
        conn.execute(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", (CHUNK_TRIGRAMS,)
        ).fetchone()
        is not None
    )


def writes_chunk_trigrams(conn: Connection) -> bool:
    """`has_chunk_trigrams`, asked once per writer connection (the writer asks per file)."""
    if conn.docql_chunk_trigrams is None:
        conn.docql_chunk_trigrams = has_chunk_trigrams(conn)
    return conn.docql_chunk_trigrams


def create_chunk_trigrams(conn: Connection) -> bool:
    """Add the trigram index over the chunks' text, filled from the stored chunks, unless
    the file has it; True when it was created. In the caller's transaction.

    Contentless (the text is in `chunks`), rowids only, no per-row sizes: 0.65x the
    corpus on the Markdown mix (docs/design.md B35). It indexes what grep() compares,
    `coalesce(fold, content)`; the writer deletes a row by re-supplying that text."""
    if has_chunk_trigrams(conn):
        conn.docql_chunk_trigrams = True
        return False
    conn.execute(
        f"CREATE VIRTUAL TABLE {CHUNK_TRIGRAMS} USING fts5(text, content = '', "
        "detail = none, columnsize = 0, tokenize = 'trigram')"
    )
    conn.execute(
        f"INSERT INTO {CHUNK_TRIGRAMS}(rowid, text) "
        "SELECT id, coalesce(fold, content) FROM chunks ORDER BY id"
    )
    conn.docql_chunk_trigrams = True
    return True


def _table_names(conn: apsw.Connection, path: str = "") -> set[str]:
    for attempt in range(PROTOCOL_RETRIES + 1):
        try:
            return _read_table_names(conn, path)
        except apsw.ProtocolError:
            # The first read of a file another process is creating or recovering can
            # meet its WAL index mid-change (seen once in tests/test_index_creation.py
            # at load 3): SQLite's answer to SQLITE_PROTOCOL is to try again.
            if attempt == PROTOCOL_RETRIES:
                busy = translate(apsw.ProtocolError("locking protocol"), path)
                raise busy or DatabaseError(f"cannot read '{path}'") from None
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


def _read_table_names(conn: apsw.Connection, path: str) -> set[str]:
    try:
        return {
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')")
        }
    except apsw.NotADBError:
        raise DatabaseError(
            f"'{path}' is not a SQLite database (and so not a docql-sqlite index)"
        ) from None
    except apsw.ProtocolError:
        raise
    except apsw.Error as exc:
        raise translate(exc, path) or DatabaseError(f"cannot read '{path}': {exc}") from None
    except UnicodeDecodeError as exc:
        raise damaged_text(exc, path) from None


def stored_version(conn: apsw.Connection, path: str) -> int | None:
    tables = _table_names(conn, path)
    if "meta" not in tables:
        if tables:
            raise DatabaseError(f"'{path}' is a SQLite file but not a docql-sqlite index")
        return None
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        raise DatabaseError(
            f"'{path}' has a meta table but no schema_version; not a docql-sqlite index"
        )
    try:
        return int(row[0])
    except (TypeError, ValueError):
        raise DatabaseCorrupt(
            f"'{path}' has schema_version {row[0]!r} in its meta table, not a number: the file "
            f"is damaged or not a docql-sqlite index; delete it and index again"
        ) from None


def check_version(conn: apsw.Connection, path: str) -> None:
    version = stored_version(conn, path)
    if version is None:
        raise DatabaseError(
            f"'{path}' is empty, not a docql-sqlite index; create one with: docql-sqlite index "
            f"{path} PATH..."
        )
    if version > SCHEMA_VERSION:
        raise DatabaseError(
            f"'{path}' uses index schema {version}, newer than this docql-sqlite understands "
            f"(schema {SCHEMA_VERSION}); upgrade docql-sqlite"
        )
    if version < SCHEMA_VERSION:
        raise DatabaseError(
            f"'{path}' uses index schema {version}; this docql-sqlite needs schema "
            f"{SCHEMA_VERSION}. "
            f"Re-run 'docql-sqlite index {path} PATH...' to upgrade it"
        )


def migrate(conn: apsw.Connection, path: str = "") -> None:
    """Apply the numbered files in `sql/` newer than the stored version, then the views."""
    version = stored_version(conn, path) or 0
    if version > SCHEMA_VERSION:
        check_version(conn, path)
    views = sql_dir() / "views.sql"
    views_sql = views.read_text(encoding="utf-8") if views.exists() else ""
    import hashlib  # the writer's path only

    views_sha = hashlib.sha256(views_sql.encode()).hexdigest()
    if version == SCHEMA_VERSION and get_meta(conn, "views_sha256") == views_sha:
        # Up to date: write nothing, so a run that fails at once (a damaged file, a full
        # disk) leaves the file exactly as it was.
        return
    # Take the write lock first, then read the version again: two writers opening one new
    # (or old) file at once must not both apply the same migration.
    with write_locked(conn):
        _apply_migrations(conn, path, views_sql, views_sha)


@contextmanager
def write_locked(conn: apsw.Connection) -> Iterator[None]:
    """A transaction that takes the write lock before its first statement (`BEGIN
    IMMEDIATE`, waiting the busy timeout for another writer), for work that reads before
    it writes: a deferred transaction whose snapshot another run's commit made stale
    fails at its first write at once (FTS5's special inserts read their table's
    configuration first)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already (a full disk)
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _apply_migrations(conn: apsw.Connection, path: str, views_sql: str, views_sha: str) -> None:
    version = stored_version(conn, path) or 0
    if version == SCHEMA_VERSION and get_meta(conn, "views_sha256") == views_sha:
        return  # another writer migrated it while this one waited for the lock
    for number, file in migration_files():
        if version < number <= SCHEMA_VERSION:  # a file from a newer version waits for its code
            conn.execute(file.read_text(encoding="utf-8"))
            set_meta(conn, "schema_version", str(number))
    if version == 0:
        set_meta(conn, "application", APPLICATION)
        set_meta(conn, "fts_tokenizer", "unicode61 remove_diacritics 2")
        set_meta(conn, "fts_text", f"cjk-spaced v{FTS_TEXT_VERSION}")
    if views_sql:
        conn.execute(views_sql)
    set_meta(conn, "views_sha256", views_sha)


def get_meta(conn: apsw.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def set_meta(conn: apsw.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = "
        "excluded.value",
        (key, value),
    )


def one(conn: apsw.Connection, sql: str, params: Params = ()) -> tuple[Any, ...] | None:
    """The first row of `sql`, or None."""
    row = conn.execute(sql, params).fetchone()
    return tuple(row) if row is not None else None


def scalar(conn: apsw.Connection, sql: str, params: Params = ()) -> Any:
    """The first value of the first row of `sql` (None when there is no row)."""
    row = conn.execute(sql, params).fetchone()
    return row[0] if row is not None else None


def rows(conn: apsw.Connection, sql: str, params: Params = ()) -> Iterator[dict[str, Any]]:
    """Run `sql` and yield each row as a dict keyed by column name."""
    cursor = conn.cursor()
    cursor.execute(sql, params)
    try:
        names = [d[0] for d in cursor.getdescription()]
    except apsw.ExecutionCompleteError:
        return
    try:
        for row in cursor:
            yield dict(zip(names, row))
    except apsw.Error as exc:
        path, readonly = getattr(conn, "docql_path", ""), getattr(conn, "docql_readonly", False)
        raise translate(exc, path, readonly) or exc from exc
    except UnicodeDecodeError as exc:
        raise damaged_text(exc, getattr(conn, "docql_path", "")) from exc


def register_functions(conn: apsw.Connection) -> None:
    """Register the Python SQL functions (conveniences; compiled DocQL never needs them)."""
    from ... import sqlfunctions

    for name, (func, nargs) in sqlfunctions.SCALARS.items():
        conn.create_scalar_function(name, func, nargs, deterministic=True)
    if not _has_regexp(conn):
        regexp: Any = sqlfunctions.regexp  # apsw's stubs want *args of any SQLite value
        conn.create_scalar_function("regexp", regexp, 2, deterministic=True)


def _has_regexp(conn: apsw.Connection) -> bool:
    try:
        conn.execute("SELECT 'a' REGEXP 'a'").fetchall()
        return True
    except apsw.Error:
        return False


def register_table_function(
    conn: apsw.Connection, name: str, columns: list[str], func: Callable[..., Iterable[Any]]
) -> None:
    """Expose a Python generator as a table-valued function (apsw only)."""
    import apsw.ext

    func.columns = tuple(columns)  # type: ignore[attr-defined]
    func.column_access = apsw.ext.VTColumnAccess.By_Name  # type: ignore[attr-defined]
    module: Any = func
    apsw.ext.make_virtual_module(conn, name, module)
