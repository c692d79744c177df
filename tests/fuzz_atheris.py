"""Coverage-guided fuzzing of the DocQL front end with atheris (optional; `pip install atheris`).

    .venv/bin/python tests/fuzz_atheris.py INDEX.db -atheris_runs=100000 -timeout=10

Each input becomes a query (and a `--path` glob) run through a read-only `Index` with a
2 s limit: anything but results or a `DocQLError` is a crash that atheris reports (with
the input saved as crash-*), and libFuzzer's `-timeout` catches a hang. The slow test
`test_atheris_fuzzing` in tests/test_docql_property.py runs this script and checks that the
file did not change. Not named test_*: pytest does not collect it.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    import docql_sqlite
    from docql_sqlite.errors import DocQLError

INDEX = docql_sqlite.open(sys.argv.pop(1))
PREFIXES = ["$", "$.", "$.toc", "$.content.", "$.files[?(@.", "$.code.", ""]


def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    prefix = PREFIXES[fdp.ConsumeIntInRange(0, len(PREFIXES) - 1)]
    glob = fdp.ConsumeUnicodeNoSurrogates(8) if fdp.ConsumeBool() else None
    query = prefix + fdp.ConsumeUnicodeNoSurrogates(120)
    try:
        INDEX.query(query, path=glob, limit=20, timeout=2.0)
    except DocQLError as exc:
        if exc.message.startswith("query failed in SQLite"):
            raise AssertionError(f"{query!r} compiled to invalid SQL: {exc}") from exc


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
