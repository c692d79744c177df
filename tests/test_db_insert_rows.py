"""`db.Cursor.insert_rows`: the resolution pass's many-row inserts store exactly the rows a
plain `executemany` stores, in the same order, for any count (the oracle: the same rows
through `executemany` into a twin table); any other statement runs as `executemany`."""

from __future__ import annotations

import pytest

from docql_sqlite.store.sqlite import db

COLUMNS = "a, b, c"


def _connection() -> db.Connection:
    conn = db.Connection(":memory:")
    conn.cursor_factory = db.Cursor
    for table in ("many", "plain"):
        conn.execute(f"CREATE TABLE {table}(id INTEGER PRIMARY KEY, {COLUMNS})")
    return conn


def _rows(count: int) -> list[tuple[object, ...]]:
    return [(i, f"name {i}" if i % 3 else None, i * 0.5) for i in range(count)]


@pytest.mark.parametrize("count", [0, 1, 63, 64, 127, 128, 129, 200, 1000, 20_001])
def test_many_rows_to_a_statement_store_what_executemany_stores(count: int) -> None:
    conn = _connection()
    rows = _rows(count)
    conn.cursor().insert_rows(f"INSERT INTO many({COLUMNS}) VALUES (?, ?, ?)", rows)
    conn.cursor().executemany(f"INSERT INTO plain({COLUMNS}) VALUES (?, ?, ?)", rows)
    many = conn.execute(f"SELECT id, {COLUMNS} FROM many ORDER BY id").fetchall()
    assert many == conn.execute(f"SELECT id, {COLUMNS} FROM plain ORDER BY id").fetchall()
    assert [r[1:] for r in many] == rows  # in order: the row ids follow the list


@pytest.mark.parametrize(
    "sql, many",
    [
        ("INSERT INTO t(a, b) VALUES (?, ?)", True),
        ("INSERT INTO f(f, rowid, x) VALUES('delete', ?, ?)", True),
        ("INSERT INTO t(a) VALUES (?) ON CONFLICT DO NOTHING", False),
        ("INSERT INTO t(a) VALUES (?) RETURNING id", False),
        ("INSERT INTO t(a) VALUES (json(?))", False),
        ("INSERT OR IGNORE INTO t(a) SELECT ?", False),
        ("UPDATE t SET a = ? WHERE b = ?", False),
        ("INSERT INTO t(a) VALUES (?); DELETE FROM t", False),
    ],
)
def test_only_a_one_row_insert_is_given_many_rows(sql: str, many: bool) -> None:
    rewritten = db._multi_row(sql)
    assert (rewritten is not None) is many
    if rewritten is not None:
        values = sql[sql.index("VALUES") + len("VALUES") :].strip()
        assert rewritten == sql + ("," + values) * (db.ROWS_PER_INSERT - 1)


def test_another_statement_runs_as_executemany() -> None:
    conn = _connection()
    rows = _rows(300)
    conn.cursor().executemany(f"INSERT INTO plain({COLUMNS}) VALUES (?, ?, ?)", rows)
    conn.cursor().insert_rows(
        "UPDATE plain SET a = a + 1000 WHERE id = ?", [(i,) for i in range(1, 301)]
    )
    assert conn.execute("SELECT min(a), max(a) FROM plain").fetchone() == (1000, 1299)
