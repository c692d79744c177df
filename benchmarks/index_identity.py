"""Are two indexes the same? Per-table digests of everything an index run stores.

A CPU optimisation of the parse side must not change one stored byte: build the same
corpus with the old and the new code, then

    python benchmarks/index_identity.py OLD.db NEW.db         # exit 1 and the tables that differ
    python benchmarks/index_identity.py --build REV CORPUS... # index CORPUS with `git archive REV`
                                                              # and with this tree, then compare

`--build` runs `docql-sqlite index --workers 0` (files in walk order, so rowids agree)
with each tree's code in its own subprocess; extra index options go after `--`.
Compared: every ordinary table and the FTS5 tables' visible rows, all columns except
the run's clock (`documents.indexed_at`, `ingest_errors.at`, `meta`); rows in rowid
order (ids are part of what is stored: chunks point at sections by id). `--smoke` is
`--build HEAD` on a tiny tree from datasets/ (identical unless this tree's changes
alter what is stored).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The clock of the run, not its content.
_SKIPPED_COLUMNS = {"documents": {"indexed_at"}, "ingest_errors": {"at"}}
_SKIPPED_TABLES = {"meta", "sqlite_sequence", "sqlite_stat1", "sqlite_stat4"}


def _tables(conn: sqlite3.Connection) -> list[str]:
    """Ordinary tables and FTS5 tables (their shadow tables hold the same rows encoded)."""
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"
    ).fetchall()
    fts = {name for name, sql in rows if sql and "USING fts5" in sql.replace("using", "USING")}
    shadows = {
        name
        for name, _ in rows
        for base in fts
        if name.startswith(base + "_") and name[len(base) + 1 :] in _FTS_SHADOWS
    }
    vectors = {name for name, sql in rows if sql and "VIRTUAL" in sql.upper() and name not in fts}
    return [
        name
        for name, _ in rows
        if name not in _SKIPPED_TABLES and name not in shadows and name not in vectors
    ]


_FTS_SHADOWS = {"data", "idx", "content", "docsize", "config"}


def digests(path: Path) -> dict[str, tuple[int, str]]:
    """table → (row count, sha256 of its rows in rowid order)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        out: dict[str, tuple[int, str]] = {}
        for table in _tables(conn):
            columns = [
                row[1]
                for row in conn.execute(f'PRAGMA table_xinfo("{table}")')
                # row[6]: a hidden column of a virtual table (FTS5's rank): not data
                if row[1] not in _SKIPPED_COLUMNS.get(table, set()) and row[6] == 0
            ]
            quoted = ", ".join(f'"{c}"' for c in columns)
            order = "rowid" if _has_rowid(conn, table) else quoted
            digest = hashlib.sha256()
            count = 0
            for row in conn.execute(f'SELECT {quoted} FROM "{table}" ORDER BY {order}'):
                digest.update(repr(row).encode("utf-8", "surrogatepass"))
                count += 1
            out[table] = (count, digest.hexdigest()[:16])
        return out
    finally:
        conn.close()


def _has_rowid(conn: sqlite3.Connection, table: str) -> bool:
    try:
        conn.execute(f'SELECT rowid FROM "{table}" LIMIT 0')
    except sqlite3.OperationalError:
        return False
    return True


def compare(old: Path, new: Path) -> list[str]:
    """The tables whose rows differ (or exist in one index only), with their counts."""
    a, b = digests(old), digests(new)
    return [
        f"{table}: {a.get(table, ('-', ''))[0]} rows vs {b.get(table, ('-', ''))[0]}"
        for table in sorted(set(a) | set(b))
        if a.get(table) != b.get(table)
    ]


def index_with(code: Path, db: Path, paths: list[str], extra: list[str]) -> None:
    """`docql-sqlite index` with the package found in `code` (a source tree), run from
    `db`'s folder: stored paths are relative to the working directory, so both runs
    share one."""
    subprocess.run(
        [sys.executable, "-m", "docql_sqlite", "index", "--workers", "0", *extra, str(db), *paths],
        cwd=db.parent,
        env={"PYTHONPATH": str(code), "PATH": "/usr/bin:/bin", "HOME": str(Path.home())},
        check=True,
        stdout=subprocess.DEVNULL,
    )


def export_tree(rev: str, into: Path) -> Path:
    """The package as committed at `rev` (`git archive`), unpacked under `into`."""
    data = subprocess.run(
        ["git", "-C", str(REPO), "archive", rev, "docql_sqlite", "sql"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("inputs", nargs="*", help="OLD.db NEW.db, or with --build the corpus")
    parser.add_argument("--build", metavar="REV", help="index the inputs with REV and this tree")
    parser.add_argument(
        "--smoke", action="store_true", help="--build HEAD on datasets/en and datasets/code"
    )
    parser.add_argument("--json", dest="json_out", help="write the digests and differences")
    args, extra = parser.parse_known_args()
    extra = [e for e in extra if e != "--"]
    with tempfile.TemporaryDirectory(prefix="docql-identity-") as tmp:
        work = Path(tmp)
        if args.smoke:  # HEAD's code against this tree's, on a tiny tree
            args.build = "HEAD"
            args.inputs = [str(REPO / "datasets" / part) for part in ("en", "code")]
        if args.build:
            args.inputs = [str(Path(p).resolve()) for p in args.inputs]
            old, new = work / "old.db", work / "new.db"
            index_with(export_tree(args.build, work / "old"), old, args.inputs, extra)
            index_with(REPO, new, args.inputs, extra)
        else:
            if len(args.inputs) != 2:
                parser.error("give OLD.db NEW.db, or --build REV CORPUS...")
            old, new = Path(args.inputs[0]), Path(args.inputs[1])
        differ = compare(old, new)
        result = {"tables": digests(new), "differ": differ}
        if args.json_out:
            Path(args.json_out).write_text(json.dumps(result, indent=1))
    for table, (count, digest) in sorted(result["tables"].items()):
        print(f"{table:24} {count:>9} {digest}")
    if differ:
        print("DIFFERENT:\n  " + "\n  ".join(differ))
        return 1
    print("identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
