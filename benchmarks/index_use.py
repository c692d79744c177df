"""Which index of the file each query plan uses (issue 24 item 3: an index is dropped only
when no plan of the queries that need it reads it). Runs a set of test files with every
SQL statement that any connection prepares recorded (apsw's, and Python's sqlite3, which
Datasette uses; subprocesses too), then asks `EXPLAIN QUERY PLAN` of each distinct
statement on INDEX and counts, per index of INDEX, the statements whose plan reads it.

    python benchmarks/index_use.py INDEX.db                      # the default test set
    python benchmarks/index_use.py INDEX.db --tests tests/test_mcp.py --show chunks_doc
    python benchmarks/index_use.py --smoke --json OUT            # datasets/, one test file

Plans of SQLite without `ANALYZE` (as every index is) do not depend on the table sizes,
so plans traced on the tests' small indexes are the plans on a large one. What a plan
does not show: the lookups of foreign-key actions (a deleted parent row looks up its
children through an index on the child key); docs/schema.md says which index is there
for that. Statements that name a temporary table of their own session cannot be planned
here and are counted as such.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TESTS = [
    "tests/test_docql_conformance.py",
    "tests/test_docql_oracle.py",
    "tests/test_mcp.py",
    "tests/test_datasette_plugin.py",
    "tests/test_cli_basic.py",
    "tests/test_api.py",
    "tests/test_search_regression.py",
    "tests/test_search_smart.py",
    "tests/test_search_documents.py",
    "tests/test_code_agent.py",
    "tests/test_cli_toc_summary.py",
    "tests/test_sqlite_utils_plugin.py",
]
# Loaded through PYTHONPATH by every Python process the tests start.
SITECUSTOMIZE = """
import os
_log = os.environ.get("DOCQL_SQL_TRACE")
def _write(sql):
    try:
        with open(_log, "a", encoding="utf-8") as f:
            f.write(sql.replace("\\0", " ") + "\\0")
    except Exception:
        pass
if _log:
    try:
        import apsw
        def _hook(conn):
            conn.exec_trace = lambda cursor, sql, bindings: _write(sql) or True
        apsw.connection_hooks.append(_hook)
    except Exception:
        pass
    try:
        import sqlite3
        _connect = sqlite3.connect
        def _traced(*args, **kwargs):
            conn = _connect(*args, **kwargs)
            try:
                conn.set_trace_callback(_write)
            except Exception:
                pass
            return conn
        sqlite3.connect = _traced
    except Exception:
        pass
"""


def trace(tests: list[str], log: Path, work: Path) -> int:
    """Run `tests` with every statement appended to `log`; pytest's exit code."""
    (work / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    env = dict(os.environ, DOCQL_SQL_TRACE=str(log))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(work), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests]
    return subprocess.run(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL).returncode


def plan(conn: Any, sql: str) -> list[str] | str:
    """The plan's lines, or why there is none. Parameters are bound to NULL (a plan does
    not depend on them without ANALYZE)."""
    binds: Any = ()
    for _ in range(3):
        try:
            return [str(row[3]) for row in conn.execute("EXPLAIN QUERY PLAN " + sql, binds)]
        except Exception as exc:  # noqa: BLE001 - any statement this file cannot plan
            said = str(exc)
            count = re.search(r"(?:uses|has) (\d+)", said)
            if "binding" not in said.lower():
                return said.splitlines()[0][:80]
            if count and binds == ():
                binds = (None,) * int(count.group(1))
            else:
                binds = {name: None for name in re.findall(r"[:@$](\w+)", sql)}
    return "parameters"


def index_use(db: Path, log: Path) -> dict[str, Any]:
    from docql_sqlite.store.sqlite import db as dbmod

    statements = [s.strip() for s in log.read_text(encoding="utf-8").split("\0") if s.strip()]
    distinct = list(dict.fromkeys(statements))
    conn = dbmod.connect(db, readonly=True)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")]
        uses: dict[str, list[tuple[str, str]]] = collections.defaultdict(list)
        unplanned: collections.Counter[str] = collections.Counter()
        for sql in distinct:
            lines = plan(conn, sql)
            if isinstance(lines, str):
                unplanned[lines] += 1
                continue
            for line in lines:
                for name in set(re.findall(r"INDEX (\w+)", line)):
                    uses[name].append((line, sql))
    finally:
        conn.close()
    return {
        "statements": len(statements),
        "distinct": len(distinct),
        "unplanned": dict(unplanned.most_common()),
        "indexes": {name: len(uses.get(name, [])) for name in sorted(names)},
        "examples": {name: uses[name][:3] for name in sorted(uses)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("db", nargs="?", type=Path, help="the index whose indexes are counted")
    parser.add_argument("--tests", nargs="+", default=DEFAULT_TESTS, help="test files to trace")
    parser.add_argument("--show", nargs="*", default=[], help="print the plans using these")
    parser.add_argument("--smoke", action="store_true", help="datasets/ and one test file")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        db, tests = args.db, args.tests
        if args.smoke:
            import docql_sqlite

            db = work / "smoke.db"
            docql_sqlite.index(db, [str(REPO / "datasets" / "en"), str(REPO / "datasets" / "code")])
            tests = ["tests/test_docql_errors.py"]
        if db is None:
            parser.error("give INDEX.db (or --smoke)")
        log = work / "sql.log"
        log.touch()
        code = trace(tests, log, work)
        result = index_use(db, log)
    result["pytest_exit"] = code
    print(
        f"{result['statements']} statements traced, {result['distinct']} distinct, "
        f"{sum(result['unplanned'].values())} not plannable on this file (pytest exit {code})"
    )
    for name, count in result["indexes"].items():
        print(f"  {name:32s} {count:5d} statement(s)")
    for name in args.show:
        for line, sql in result["examples"].get(name, []):
            print(f"--- {name}: {line}\n    {' '.join(sql.split())[:300]}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
