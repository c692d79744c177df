"""Our SQL functions on a DB-API connection (`sqlite3`, `pysqlite3`): what the Datasette
and sqlite-utils plugins register in their `prepare_connection` hooks.

`db.register_functions` does the same for apsw. sqlite-vec is loaded when the driver can
load extensions; when it cannot (the default Python here is built without
`enable_load_extension`), everything else still works and `VecStatus.reason` says why
vectors are unavailable — a plugin must never make every page fail.

A DB-API driver loads its own copy of the sqlite-vec library, never the file apsw loads.
apsw and pysqlite3 each carry their own SQLite, and a loadable extension keeps the SQLite
API it was loaded with in one global variable: loaded into both from the same file (one
mapping in the process), the second load re-points the first library's vec0 calls at the
other SQLite, and the next vector query on an apsw connection crashes the process (seen in
Datasette, which serves pysqlite3 connections while the plugin's `Index` uses apsw). So
each driver gets a copy under another path, a separate mapping with its own global; and
since SQLite opens extensions with RTLD_GLOBAL, whose first definition of a symbol wins
for every later library, both files are first opened here with RTLD_DEEPBIND (Linux), which
binds each library's references to its own symbols for good.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import settings, sqlfunctions
from .store.sqlite.db import vec_extension_path

# What a client runs to see whether sqlite-vec works on a connection it does not hold.
VEC_VERSION = "SELECT vec_version()"


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
    found = vec_extension_path()
    library = next(iter(sorted(Path(found).parent.glob("vec0.*"))), None) if found else None
    if library is None:
        return VecStatus(False, "the sqlite-vec package is not installed (pip install sqlite-vec)")
    enable = getattr(conn, "enable_load_extension", None)
    if enable is None:
        return VecStatus(
            False,
            "this Python's sqlite3 module cannot load extensions; install pysqlite3-binary "
            "(pip install 'docql-sqlite[datasette]'), which Datasette and sqlite-utils then use",
        )
    try:
        path = private_copy(library, type(conn).__module__.split(".")[0])
        enable(True)
        conn.load_extension(str(path.with_suffix("")))
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


@functools.lru_cache(maxsize=8)  # once per (library, driver) and process
def private_copy(library: Path, driver: str) -> Path:
    """A copy of the sqlite-vec library for `driver`'s SQLite (see the module docstring):
    `vec0-DRIVER-HASH/vec0.so` in the user's cache, made once; the file keeps its name so
    SQLite finds its entry point, `sqlite3_vec_init`."""
    data = library.read_bytes()
    folder = f"vec0-{driver}-{hashlib.sha256(data).hexdigest()[:16]}"
    cache = settings.cache_dir()
    try:
        if cache is None:
            raise OSError("no home directory for a cache")
        target = _write_once(Path(cache) / folder, library.name, data)
    except OSError:  # no writable cache: a private folder for this process
        target = _write_once(
            Path(tempfile.mkdtemp(prefix="docql-sqlite-")) / folder, library.name, data
        )
    _bind_to_itself(library)
    _bind_to_itself(target)
    return target


def _bind_to_itself(library: Path) -> None:
    """Open `library` (if not yet open) so that its symbols resolve within itself; SQLite's
    own dlopen of the same path later reuses this mapping. Only glibc needs this: macOS
    (two-level namespaces) and Windows bind a library's references to itself anyway."""
    deepbind = getattr(os, "RTLD_DEEPBIND", None)
    if deepbind is not None:
        ctypes.CDLL(str(library), mode=os.RTLD_NOW | os.RTLD_LOCAL | deepbind)


def _write_once(folder: Path, name: str, data: bytes) -> Path:
    target = folder / name
    if target.is_file() and target.read_bytes() == data:
        return target
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    partial = folder / f".{name}.{os.getpid()}"
    partial.write_bytes(data)
    os.replace(partial, target)  # atomic: a concurrent loader never sees half a library
    return target


def _has_regexp(conn: Any) -> bool:
    try:
        conn.execute("SELECT 'a' REGEXP 'a'").fetchall()
        return True
    except Exception:  # "no such function: REGEXP"
        return False
