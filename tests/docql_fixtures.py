"""Reader for the table-driven DocQL fixtures in `tests/fixtures/docql/*.docql`.

A fixture file is a list of cases, markdown-it-py style. Each case is a title line,
optional header lines, then three blocks closed by a line holding a single `.`:

    Level-1 headings of the security chapter
    fields: line,title
    .
    $.toc[?(@.level==1)]
    --path datasets/en/handbook/06-security.md
    .
    {"line": 1, "title": "Security and Authentication"}
    {"line": 54, "title": "Authorization"}
    .

- Query block: the query (several lines are joined with '\\n'; a line starting with
  '"' is a JSON string, for queries with odd whitespace), then options: `--path GLOB`
  (repeatable) and `--limit N`.
- Expected block: one JSON value per result item, in order (an empty block means
  "no results"), or an error: a line `<ErrorClass>: message at line L, column C` and
  the caret lines, i.e. exactly `str(error)`.
- Header lines: `fields: a,b,c` compares only those keys of each item (keys an item
  lacks are left out of the comparison dict, so front matter can say "absent");
  `fields: *` compares whole items. `note: ...` is free text.

File directives (outside cases), each on its own line:

- `@corpus datasets` (default): the index of datasets/ without datasets/bad
  (`corpus_db`). `@corpus inline`: an index built from this file's `@file` blocks.
- `@fields a,b,c`: the default `fields:` of the file's cases.
- `@file PATH` ... `@end`: a document of the inline corpus (PATH relative to the
  index root, e.g. `docs/a.md`), written verbatim (a final newline is kept).
- `@pdf PATH`: the 4-page handbook PDF of datasets/make_binary_samples.py, written at PATH.
- `@sql` ... `@end`: SQL run on the inline index after indexing (to hand-insert rows,
  e.g. symbols of kinds the code parser does not produce).

Lines starting with '#' between cases are comments; blank lines are ignored.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FIXTURE_DIR = Path(__file__).parent / "fixtures" / "docql"
_ERROR_HEAD = re.compile(r"^[A-Z]\w*Error: ")
MISSING = object()


@dataclass
class Case:
    file: str
    title: str
    lineno: int
    query: str
    paths: tuple[str, ...] = ()
    limit: int | None = None
    fields: list[str] | None = None
    expected: list[Any] = field(default_factory=list)
    error: str | None = None

    @property
    def id(self) -> str:
        return f"{self.file}:{self.lineno}:{self.title}"

    def project(self, item: Any) -> Any:
        """The part of a result item this case compares."""
        if self.fields is None or not isinstance(item, dict):
            return normalize(item)
        return {k: normalize(item[k]) for k in self.fields if k in item}

    def cli_args(self) -> list[str]:
        args: list[str] = []
        for glob in self.paths:
            args += ["--path", glob]
        if self.limit is not None:
            args += ["--limit", str(self.limit)]
        return args


@dataclass
class FixtureFile:
    name: str
    corpus: str = "datasets"
    documents: dict[str, str] = field(default_factory=dict)
    sql: list[str] = field(default_factory=list)
    pdfs: list[str] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)


def normalize(value: Any) -> Any:
    """Floats rounded (the shell prints 15 significant digits, Python 17)."""
    if isinstance(value, float):
        rounded = round(value, 9)
        return int(rounded) if rounded.is_integer() else rounded
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    return value


def parse_fixture(path: Path) -> FixtureFile:
    lines = path.read_text(encoding="utf-8").split("\n")
    fx = FixtureFile(path.name)
    default_fields: list[str] | None = None
    i = 0

    def block(start: int, closer: str) -> tuple[list[str], int]:
        out = []
        j = start
        while j < len(lines) and lines[j] != closer:
            out.append(lines[j])
            j += 1
        if j >= len(lines):
            raise ValueError(f"{path.name}:{start}: missing closing {closer!r}")
        return out, j + 1

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        if stripped.startswith("@corpus "):
            fx.corpus = stripped.split(None, 1)[1]
            i += 1
            continue
        if stripped.startswith("@fields "):
            default_fields = _fields(stripped.split(None, 1)[1])
            i += 1
            continue
        if stripped.startswith("@file "):
            body, i = block(i + 1, "@end")
            fx.documents[stripped.split(None, 1)[1]] = "\n".join(body) + "\n"
            continue
        if stripped.startswith("@pdf "):
            fx.pdfs.append(stripped.split(None, 1)[1])
            i += 1
            continue
        if stripped == "@sql":
            body, i = block(i + 1, "@end")
            fx.sql.append("\n".join(body))
            continue
        # a case: title, headers, '.', query, '.', expected, '.'
        case = Case(path.name, stripped, i + 1, "", fields=default_fields)
        i += 1
        while i < len(lines) and lines[i] != ".":
            key, _, value = lines[i].partition(":")
            key, value = key.strip(), value.strip()
            if key == "fields":
                case.fields = _fields(value)
            elif key != "note":
                raise ValueError(f"{path.name}:{i + 1}: unknown case header {lines[i]!r}")
            i += 1
        query_lines, i = block(i + 1, ".")
        expected_lines, i = block(i, ".")
        if expected_lines[:1] == ["."]:
            raise ValueError(f"{path.name}:{i}: malformed case {case.title!r}")
        texts = []
        for q in query_lines:
            if q.startswith("--path "):
                case.paths += (q[len("--path ") :],)
            elif q.startswith("--limit "):
                case.limit = int(q[len("--limit ") :])
            else:
                texts.append(json.loads(q) if q.startswith('"') else q)
        case.query = "\n".join(texts)
        if expected_lines and _ERROR_HEAD.match(expected_lines[0]):
            case.error = "\n".join(expected_lines)
        else:
            case.expected = [normalize(json.loads(e)) for e in expected_lines if e.strip()]
        fx.cases.append(case)
    return fx


def _fields(value: str) -> list[str] | None:
    value = value.strip()
    return None if value == "*" else [f.strip() for f in value.split(",") if f.strip()]


def load_all(directory: Path = FIXTURE_DIR) -> list[FixtureFile]:
    return [parse_fixture(p) for p in sorted(directory.glob("*.docql"))]


def build_inline_corpus(fx: FixtureFile, root: Path) -> Path:
    """Write the file's documents under `root`, index them (paths relative to root),
    run its @sql."""
    import os

    from docql_sqlite.ingest import IngestOptions, index_paths
    from docql_sqlite.store.sqlite import db as dbmod

    root.mkdir(parents=True, exist_ok=True)
    for rel, text in fx.documents.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
    for rel in fx.pdfs:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        _binary_samples().make_handbook_pdf(str(target))
    database = root / "index.db"
    tops = sorted({rel.split("/", 1)[0] for rel in [*fx.documents, *fx.pdfs]})
    old = os.getcwd()
    os.chdir(root)
    try:
        report = index_paths(database, tops, IngestOptions(workers=0))
    finally:
        os.chdir(old)
    if not report.ok:
        raise RuntimeError(f"{fx.name}: indexing failed: {report.failed}")
    if fx.sql:
        conn = dbmod.connect(database)
        try:
            with conn:
                for script in fx.sql:
                    conn.execute(script)
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
    return database


def _binary_samples():  # noqa: ANN202 - datasets/make_binary_samples.py, imported by path
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "datasets" / "make_binary_samples.py"
    spec = importlib.util.spec_from_file_location("make_binary_samples", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def all_cases(directory: Path = FIXTURE_DIR) -> list[tuple[FixtureFile, Case]]:
    return [(fx, case) for fx in load_all(directory) for case in fx.cases]


_BUILT: dict[str, Path] = {}


def database_for(fx: FixtureFile, corpus_db: Path, tmp_path_factory: Any) -> Path:
    """The index a fixture file's cases run on; inline corpora are built once per session."""
    if fx.corpus == "datasets":
        return Path(corpus_db)
    if fx.corpus != "inline":
        raise ValueError(f"{fx.name}: unknown corpus {fx.corpus!r}")
    if fx.name not in _BUILT:
        _BUILT[fx.name] = build_inline_corpus(
            fx, tmp_path_factory.mktemp(fx.name.replace(".", "_"))
        )
    return _BUILT[fx.name]
