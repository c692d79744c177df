"""DocQL conformance: every case of tests/fixtures/docql/*.docql, run through the Python API.

Each case is a query and the items it must return (in order) or the exact error it must
raise; see `docql_fixtures.py` for the format. `datasets` cases run on the session's
index of datasets/ (conftest `corpus_db`); `inline` cases on an index built from the
documents written in the fixture file itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from docql_fixtures import Case, FixtureFile, all_cases, database_for

import docql_sqlite
from docql_sqlite.errors import DocQLError

CASES = all_cases()


@pytest.fixture(scope="session")
def fixture_db(corpus_db: Path, tmp_path_factory: pytest.TempPathFactory):
    """A function: fixture file → index path (inline corpora built once per session)."""
    return lambda fx: database_for(fx, corpus_db, tmp_path_factory)


@pytest.fixture(scope="session")
def open_index(fixture_db):
    opened: dict[Path, docql_sqlite.Index] = {}

    def get(fx: FixtureFile) -> docql_sqlite.Index:
        path = fixture_db(fx)
        if path not in opened:
            opened[path] = docql_sqlite.open(path)
        return opened[path]

    yield get
    for index in opened.values():
        index.close()


def run_case(index: docql_sqlite.Index, case: Case) -> list:
    return index.query(case.query, path=list(case.paths) or None, limit=case.limit)


def test_fixture_files_parse() -> None:
    assert len(CASES) >= 150, "the conformance suite lost cases"
    titles = [(fx.name, c.title) for fx, c in CASES]
    duplicates = {t for t in titles if titles.count(t) > 1}
    assert not duplicates, f"duplicate case titles: {duplicates}"


@pytest.mark.parametrize(("fx", "case"), CASES, ids=[c.id for _, c in CASES])
def test_docql_case(fx: FixtureFile, case: Case, open_index) -> None:
    index = open_index(fx)
    if case.error is not None:
        with pytest.raises(DocQLError) as info:
            run_case(index, case)
        assert str(info.value) == case.error
        return
    got = [case.project(item) for item in run_case(index, case)]
    assert got == case.expected
