"""The only module that imports apsw: open an index, migrate it, register SQL functions.

Schema files live in `sql/` (numbered migrations plus `views.sql`) and are loaded from
there, never repeated in Python. A connection opened for queries is read-only, so no
query text can change the database.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import apsw

from .errors import DatabaseError

SCHEMA_VERSION = 3
APPLICATION = "docql-sqlite"
# Bump when `text.fts_text` changes: contentless FTS rows are deleted by re-supplying the
# exact indexed text, so a different spacing rule means the FTS index must be rebuilt.
FTS_TEXT_VERSION = 1

Connection = apsw.Connection
SQLError = apsw.Error
# Errors about the database as a whole (not about one document's rows): a run stops on
# them instead of recording every later file as failed.
WHOLE_DATABASE_ERRORS: tuple[type[apsw.Error], ...] = (
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


def sql_dir() -> Path:
    """Where the schema files are: inside the installed package, or the source tree's `sql/`."""
    packaged = Path(__file__).resolve().parent / "sql"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "sql"


def migration_files() -> list[tuple[int, Path]]:
    found = []
    for path in sql_dir().glob("[0-9][0-9][0-9]_*.sql"):
        found.append((int(path.name[:3]), path))
    return sorted(found)


def connect(path: str | Path, *, readonly: bool = False, create: bool = True) -> apsw.Connection:
    """Open an index file, migrating it (writable) or checking its version (read-only).
    `create=False` never makes an index of a missing or an empty file."""
    path = str(path)
    if Path(path).is_dir():  # SQLite would say "disk I/O error"
        raise DatabaseError(
            f"'{path}' is a directory; an index is a file, such as {path.rstrip('/')}.db"
        )
    if readonly or not create:
        if path != ":memory:" and not Path(path).exists():
            raise DatabaseError(
                f"no index at '{path}'; create one with: docql-sqlite index {path} PATH..."
            )
    if readonly:
        flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    else:
        flags = apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE | apsw.SQLITE_OPEN_URI
    try:
        conn = apsw.Connection(path, flags=flags)
        conn.set_busy_timeout(10_000)
        if not readonly:
            _refuse_foreign_file(conn, path, create)
        conn.execute("PRAGMA foreign_keys = ON")
        if not readonly:
            # Large pages waste less space around chunk-sized rows; only a new file takes it.
            conn.execute("PRAGMA page_size = 16384")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
    except apsw.Error as exc:
        raise DatabaseError(f"cannot open '{path}': {exc}") from exc
    load_vec(conn)
    register_functions(conn)
    if readonly:
        check_version(conn, path)
    else:
        migrate(conn, path)
    return conn


def _refuse_foreign_file(conn: apsw.Connection, path: str, create: bool) -> None:
    """Before any PRAGMA writes to the file: a file that is not an index (another
    program's database, a text file) is left as it was, and so is an empty one unless
    `create` says to make it an index."""
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


def _table_names(conn: apsw.Connection, path: str = "") -> set[str]:
    try:
        return {
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')")
        }
    except apsw.NotADBError:
        raise DatabaseError(
            f"'{path}' is not a SQLite database (and so not a docql-sqlite index)"
        ) from None
    except apsw.Error as exc:
        raise DatabaseError(f"cannot read '{path}': {exc}") from None


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
    return int(row[0])


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
    with conn:
        for number, file in migration_files():
            if version < number <= SCHEMA_VERSION:  # a file from a newer version waits for its code
                conn.execute(file.read_text(encoding="utf-8"))
                set_meta(conn, "schema_version", str(number))
        if version == 0:
            set_meta(conn, "application", APPLICATION)
            set_meta(conn, "fts_tokenizer", "unicode61 remove_diacritics 2")
            set_meta(conn, "fts_text", f"cjk-spaced v{FTS_TEXT_VERSION}")
        views = sql_dir() / "views.sql"
        if views.exists():
            conn.execute(views.read_text(encoding="utf-8"))


def get_meta(conn: apsw.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def set_meta(conn: apsw.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = "
        "excluded.value",
        (key, value),
    )


Params = Sequence[Any] | Mapping[str, Any]


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
    for row in cursor:
        yield dict(zip(names, row))


def register_functions(conn: apsw.Connection) -> None:
    """Register the Python SQL functions (conveniences; compiled DocQL never needs them)."""
    from . import sqlfunctions

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
    apsw.ext.make_virtual_module(conn, name, cast(Any, func))
