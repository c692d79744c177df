"""sqlite-vec in apsw and in pysqlite3 in one process (what Datasette with our plugin does):
before `dbapi` loaded its own copy of the library, bound to itself, the second load
re-pointed the first SQLite's vec0 calls at the other SQLite and the next vector query on
the apsw connection crashed the interpreter (SIGSEGV). Run in a subprocess, both orders.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import docql_sqlite

pytest.importorskip("pysqlite3", reason="pysqlite3-binary is not installed (the datasette extra)")

SCRIPT = textwrap.dedent(
    """
    import sys
    import pysqlite3
    import docql_sqlite
    from docql_sqlite import dbapi

    db, order = sys.argv[1], sys.argv[2]
    KNN = ("SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH "
           "(SELECT embedding FROM chunks_vec WHERE rowid = 1) AND k = 3")

    def dbapi_connection():
        conn = pysqlite3.connect(f"file:{db}?mode=ro", uri=True)
        status = dbapi.prepare_connection(conn)
        assert status.loaded, status.reason
        return conn

    if order == "apsw-first":
        index = docql_sqlite.open(db)
        first = [r["rowid"] for r in index.rows(KNN)]
        conn = dbapi_connection()
    else:
        conn = dbapi_connection()
        index = docql_sqlite.open(db)
        first = [r["rowid"] for r in index.rows(KNN)]
    for _ in range(3):  # alternate: each side must still use its own SQLite
        assert [row[0] for row in conn.execute(KNN)] == first
        assert [r["rowid"] for r in index.rows(KNN)] == first
        assert len(index.query("$.content.similar(1)")) > 0
    print(first)
    """
)


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("two_sqlites")
    (root / "a.md").write_text(
        "# One\n\nalpha beta\n\n# Two\n\ngamma delta\n\n# Three\n\nalpha gamma\n"
    )
    db = root / "a.db"
    docql_sqlite.index(db, [str(root / "a.md")])
    docql_sqlite.embed(db, "hash")
    return db


@pytest.mark.parametrize("order", ["apsw-first", "dbapi-first"])
def test_vec_in_apsw_and_pysqlite3_in_one_process(embedded: Path, order: str) -> None:
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(embedded), order],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, f"exit {run.returncode}: {run.stderr[-2000:]}"
    assert run.stdout.strip().startswith("[1, ")
