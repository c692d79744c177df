"""Our SQL functions on a DB-API connection (`sqlite3`, `pysqlite3`): what the Datasette
and sqlite-utils plugins register in their `prepare_connection` hooks.

`db.register_functions` does the same for apsw. sqlite-vec is loaded when the driver can
load extensions; when it cannot (the default Python here is built without
`enable_load_extension`), everything else still works and `VecStatus.reason` says why
vectors are unavailable — a plugin must never make every page fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import sqlfunctions
from .db import vec_extension_path


@dataclass(frozen=True, slots=True)
class VecStatus:
    loaded: bool
    reason: str | None = None  # why sqlite-vec is not available, when it is not


def register_functions(conn: Any) -> None:
    """docql_heading, docql_chapter, docql_grep, docql_rrf, docql_fold, regexpi (and
    regexp when the SQLite build has none) on a DB-API connection."""
    for name, (func, nargs) in sqlfunctions.SCALARS.items():
        conn.create_function(name, nargs, func, deterministic=True)
    if not _has_regexp(conn):
        conn.create_function("regexp", 2, sqlfunctions.regexp, deterministic=True)


def load_vec(conn: Any) -> VecStatus:
    """Load sqlite-vec into `conn` if the driver allows it."""
    path = vec_extension_path()
    if path is None:
        return VecStatus(False, "the sqlite-vec package is not installed (pip install sqlite-vec)")
    enable = getattr(conn, "enable_load_extension", None)
    if enable is None:
        return VecStatus(
            False,
            "this Python's sqlite3 module cannot load extensions; install pysqlite3-binary "
            "(pip install 'docql-sqlite[datasette]'), which Datasette and sqlite-utils then use",
        )
    try:
        enable(True)
        conn.load_extension(path)
    except Exception as exc:  # the driver's own error class: sqlite3.OperationalError & co
        return VecStatus(False, f"sqlite-vec failed to load: {exc}")
    finally:
        try:
            enable(False)
        except Exception:  # a closed or broken connection: nothing left to protect
            pass
    return VecStatus(True)


def prepare_connection(conn: Any) -> VecStatus:
    """Register the SQL functions and load sqlite-vec; returns whether vectors work."""
    register_functions(conn)
    return load_vec(conn)


def _has_regexp(conn: Any) -> bool:
    try:
        conn.execute("SELECT 'a' REGEXP 'a'").fetchall()
        return True
    except Exception:  # "no such function: REGEXP"
        return False
