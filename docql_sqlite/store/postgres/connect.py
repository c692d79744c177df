"""Open a PostgreSQL index: connect, create or migrate its schema, read and write meta.

Schema files live in `sql/postgres/` (numbered migrations, `views.sql`, `vec.sql`), the
same numbers as the SQLite files in `sql/`, so `meta.schema_version` means the same on
both engines. Migration holds a transaction-level advisory lock: several writers that
start at once create the schema once, without a global table lock.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import psycopg.sql

from ...errors import DatabaseError
from ..sqlite import db

Connection = psycopg.Connection
SQLError = psycopg.Error
# pg_advisory_xact_lock key of schema migration ("docql" in ASCII, as a bigint).
MIGRATE_LOCK = 0x646F63716C


def sql_dir() -> Path:
    return db.sql_dir() / "postgres"


def migration_files() -> list[tuple[int, Path]]:
    return sorted((int(p.name[:3]), p) for p in sql_dir().glob("[0-9][0-9][0-9]_*.sql"))


def connect(url: str, *, readonly: bool = False, create: bool = True) -> psycopg.Connection:
    """Connect to `url`, migrating the schema (writable) or checking its version."""
    try:
        conn = psycopg.connect(url, autocommit=False)
    except psycopg.Error as exc:
        # A writer (index, copy) creates a missing database, as it creates a missing file.
        if readonly or not create or not _create_database(url):
            raise DatabaseError(f"cannot connect to {safe_url(url)}: {first_line(exc)}") from None
        try:
            conn = psycopg.connect(url, autocommit=False)
        except psycopg.Error as again:
            raise DatabaseError(f"cannot connect to {safe_url(url)}: {first_line(again)}") from None
    try:
        if readonly:
            conn.read_only = True
            db_version = stored_version(conn)
            conn.rollback()
            _check(db_version, url)
        elif create:
            _refuse_standby(conn, url)
            migrate(conn)
        else:
            _check(stored_version(conn), url)
            conn.rollback()
    except BaseException:
        conn.close()
        raise
    return conn


def _create_database(url: str) -> bool:
    """Create the database of `url` when the server is reachable and it does not exist
    (through the server's `postgres` database, with the URL's user and password); True when
    it exists now. Writers that start at once may race: the loser finds it created."""
    name = psycopg.conninfo.conninfo_to_dict(url).get("dbname")
    if not name or name == "postgres":
        return False
    try:
        admin = psycopg.conninfo.make_conninfo(url, dbname="postgres")
        with psycopg.connect(admin, autocommit=True) as conn:
            found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
            if found.fetchone() is None:
                conn.execute(
                    psycopg.sql.SQL("CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8'").format(
                        psycopg.sql.Identifier(str(name))
                    )
                )
    except psycopg.errors.DuplicateDatabase:
        return True
    except psycopg.Error:
        return False  # no server, no right to create databases: the first error stands
    return True


def _refuse_standby(conn: psycopg.Connection, url: str) -> None:
    """A hot standby replays its primary's WAL and takes no writes: say so plainly."""
    standby = conn.execute("SELECT pg_is_in_recovery()").fetchone()
    conn.rollback()
    if standby and standby[0]:
        raise DatabaseError(
            f"{safe_url(url)} is a read-only standby (in recovery); write to its primary, "
            f"or read from this one"
        )


def _check(version: int | None, url: str) -> None:
    if version is None:
        raise DatabaseError(
            f"{safe_url(url)} holds no docql-sqlite index; create one with: "
            f"docql-sqlite copy FILE.db {safe_url(url)}"
        )
    if version != db.SCHEMA_VERSION:
        raise DatabaseError(
            f"{safe_url(url)} uses index schema {version}; this docql-sqlite needs schema "
            f"{db.SCHEMA_VERSION}"
        )


def stored_version(conn: psycopg.Connection) -> int | None:
    exists = conn.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return None
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return None if row is None else int(row[0])


def migrate(conn: psycopg.Connection) -> None:
    """Apply the files of `sql/postgres/` newer than the stored version, then the views."""
    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATE_LOCK,))
            version = stored_version(conn) or 0
            if version > db.SCHEMA_VERSION:
                raise DatabaseError(
                    f"the database uses index schema {version}, newer than this "
                    f"docql-sqlite understands (schema {db.SCHEMA_VERSION}); upgrade docql-sqlite"
                )
            for number, file in migration_files():
                if version < number <= db.SCHEMA_VERSION:
                    conn.execute(file.read_text(encoding="utf-8").encode())
                    set_meta(conn, "schema_version", str(number))
            if version == 0:
                set_meta(conn, "application", db.APPLICATION)
                set_meta(conn, "fts_tokenizer", "postgresql simple")
                set_meta(conn, "fts_text", f"cjk-spaced v{db.FTS_TEXT_VERSION}")
            conn.execute((sql_dir() / "views.sql").read_text(encoding="utf-8").encode())
    except psycopg.Error as exc:
        raise DatabaseError(f"cannot create the index schema: {first_line(exc)}") from None


def create_vec_table(conn: psycopg.Connection, dimensions: int) -> None:
    template = (sql_dir() / "vec.sql").read_text(encoding="utf-8")
    conn.execute(template.replace("{dimensions}", str(int(dimensions))).encode())


def get_meta(conn: psycopg.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = %s", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(conn: psycopg.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = "
        "excluded.value",
        (key, value),
    )


def table_exists(conn: psycopg.Connection, name: str) -> bool:
    row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()
    return bool(row and row[0])


def scalar(conn: psycopg.Connection, sql: str, params: Any = ()) -> Any:
    row = conn.execute(sql.encode(), params).fetchone()
    return None if row is None else row[0]


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def safe_url(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error:
        return "the PostgreSQL URL"
    host, port, name = info.get("host", ""), info.get("port", ""), info.get("dbname", "")
    return f"postgresql://{host}{':' + str(port) if port else ''}/{name}"
