"""The index file works in Debian's `/usr/bin/sqlite3` shell (DESIGN D2): tables, counts,
FTS5 MATCH (English and a CJK phrase), the shell views and integrity checks.

Counts are compared three ways where possible: the shell, apsw, and a brute-force scan
of the chunk texts in Python (so an FTS table that is readable but wrong also fails).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import connect_ro, query, scalar

SHELL = "/usr/bin/sqlite3"
pytestmark = pytest.mark.skipif(
    not Path(SHELL).exists(), reason=f"{SHELL} is not installed (apt-get install sqlite3)"
)

OUR_TABLES = {
    "meta",
    "documents",
    "sections",
    "chunks",
    "chunks_fts",
    "codeblocks",
    "tables",
    "frontmatter",
    "entities",
    "symbols",
    "ingest_errors",
}
OUR_VIEWS = {"toc", "passages", "code", "errors"}


def shell(db: Path, sql: str, *, readonly: bool = True) -> str:
    args = [SHELL, "-batch", "-bail"] + (["-readonly"] if readonly else []) + [str(db)]
    run = subprocess.run(args, input=sql, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, f"sqlite3 failed on {sql!r}: {run.stderr}"
    return run.stdout


def shell_int(db: Path, sql: str) -> int:
    return int(shell(db, sql).strip())


def test_shell_version_is_the_one_we_promise() -> None:
    out = subprocess.run([SHELL, "--version"], capture_output=True, text=True).stdout
    major, minor = (int(x) for x in out.split()[0].split(".")[:2])
    assert (major, minor) >= (3, 40)


def test_tables_are_listed(corpus_db: Path) -> None:
    listed = set(shell(corpus_db, ".tables\n").split())
    assert OUR_TABLES | OUR_VIEWS <= listed, sorted((OUR_TABLES | OUR_VIEWS) - listed)


@pytest.mark.parametrize(
    "table",
    [
        "documents",
        "sections",
        "chunks",
        "chunks_fts",
        "codeblocks",
        "tables",
        "entities",
        "symbols",
        "frontmatter",
        "ingest_errors",
        "meta",
    ],
)
def test_counts_match_apsw(corpus_db: Path, table: str) -> None:
    assert shell_int(corpus_db, f"SELECT count(*) FROM {table};") == scalar(
        corpus_db, f"SELECT count(*) FROM {table}"
    )


def test_corpus_is_not_trivial(corpus_db: Path) -> None:
    for table, least in (("documents", 10), ("sections", 50), ("chunks", 50)):
        assert shell_int(corpus_db, f"SELECT count(*) FROM {table};") >= least


def _fold_tokens(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text.casefold()))


@pytest.mark.parametrize("word", ["lumen", "segment", "replication"])
def test_fts_english_word(corpus_db: Path, word: str) -> None:
    sql = f"SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'body:{word}';"
    in_shell = shell_int(corpus_db, sql)
    brute = sum(word in _fold_tokens(c) for (c,) in query(corpus_db, "SELECT content FROM chunks"))
    assert in_shell == scalar(corpus_db, sql.rstrip(";")) == brute
    assert brute > 0, f"the corpus no longer mentions {word!r}; pick another word"


@pytest.mark.parametrize(
    "phrase, chars", [("架 构", ("架", "构")), ("索 引", ("索", "引")), ("复 制", ("复", "制"))]
)
def test_fts_cjk_phrase(corpus_db: Path, phrase: str, chars: tuple[str, str]) -> None:
    sql = f"SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH '\"{phrase}\" ';"
    in_shell = shell_int(corpus_db, sql)
    adjacent = re.compile(re.escape(chars[0]) + r"[\W_]*" + re.escape(chars[1]))
    brute = sum(bool(adjacent.search(c)) for (c,) in query(corpus_db, "SELECT content FROM chunks"))
    assert in_shell == scalar(corpus_db, sql.rstrip(";")) == brute
    assert brute > 0


def test_fts_match_returns_chunk_rows(corpus_db: Path) -> None:
    out = shell(
        corpus_db,
        ".mode list\n.separator |\n"
        "SELECT c.id, d.path, c.line FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
        "JOIN documents d ON d.id = c.doc_id WHERE chunks_fts MATCH '\"架 构\"' "
        "ORDER BY bm25(chunks_fts), c.id LIMIT 5;\n",
    )
    rows = [line.split("|") for line in out.splitlines()]
    assert rows and all(len(r) == 3 for r in rows)
    for chunk_id, path, line in rows:
        content = scalar(corpus_db, "SELECT content FROM chunks WHERE id = ?", (int(chunk_id),))
        assert "架" in content and "构" in content
        assert int(line) >= 1 and path.startswith("datasets/")


@pytest.mark.parametrize(
    "view, table",
    [("toc", "sections"), ("passages", "chunks"), ("code", "symbols"), ("errors", "ingest_errors")],
)
def test_views_work_in_the_shell(corpus_db: Path, view: str, table: str) -> None:
    assert shell_int(corpus_db, f"SELECT count(*) FROM {view};") == scalar(
        corpus_db, f"SELECT count(*) FROM {table}"
    )


def test_toc_view_rows(corpus_db: Path) -> None:
    path = "datasets/zh/architecture.md"
    out = shell(
        corpus_db,
        ".mode list\n.separator |\n"
        f"SELECT level, number, title, line, end_line FROM toc WHERE path = '{path}';\n",
    )
    got = [tuple(line.split("|")) for line in out.splitlines()]
    want = [
        tuple(str(v) for v in r)
        for r in query(
            corpus_db,
            "SELECT s.level, s.number, s.title, s.line, s.end_line FROM sections s JOIN documents "
            "d "
            "ON d.id = s.doc_id WHERE d.path = ? ORDER BY s.ord",
            (path,),
        )
    ]
    assert got == want and len(got) > 3


def test_passages_view_reconstructs_a_document(corpus_db: Path) -> None:
    path = "datasets/en/handbook/01-introduction.md"
    out = shell(
        corpus_db,
        ".mode list\n"
        f"SELECT group_concat(content, '') FROM (SELECT content FROM passages WHERE path = "
        f"'{path}' "
        "ORDER BY chunk_index);\n",
    )
    header = scalar(corpus_db, "SELECT header_text FROM documents WHERE path = ?", (path,))
    from conftest import REPO, file_text

    assert header + out[:-1] == file_text(REPO / path)  # the shell adds one '\n' after the value


def test_code_view_has_symbols(corpus_db: Path) -> None:
    if scalar(corpus_db, "SELECT count(*) FROM symbols") == 0:
        pytest.skip("no code symbols in the corpus yet")
    out = shell(
        corpus_db, ".mode list\n.separator |\nSELECT path, kind, name, line FROM code LIMIT 3;\n"
    )
    assert all(len(line.split("|")) == 4 for line in out.splitlines())


def test_errors_view_in_a_db_with_errors(tmp_path: Path) -> None:
    from docql_sqlite.ingest import IngestOptions, index_paths

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "binary.md").write_bytes(b"\x00binary")
    (tmp_path / "docs" / "ok.md").write_text("# OK\n")
    db = tmp_path / "e.db"
    index_paths(db, [str(tmp_path / "docs")], IngestOptions(workers=1))
    out = shell(db, ".mode list\n.separator |\nSELECT path, severity, reason FROM errors;\n")
    ((path, severity, reason),) = [line.split("|") for line in out.splitlines()]
    assert path.endswith("docs/binary.md") and severity == "error" and "binary file" in reason


def test_integrity_checks_in_the_shell(corpus_db: Path, tmp_path: Path) -> None:
    assert shell(corpus_db, "PRAGMA integrity_check;").strip() == "ok"
    copy = tmp_path / "copy.db"
    conn = connect_ro(corpus_db)  # the FTS5 check is a write statement: run it on a copy
    try:
        conn.execute("VACUUM INTO ?", (str(copy),))
    finally:
        conn.close()
    shell(copy, "INSERT INTO chunks_fts(chunks_fts) VALUES('integrity-check');", readonly=False)
    assert shell(copy, "PRAGMA quick_check;").strip() == "ok"


def test_schema_has_nothing_a_plain_shell_cannot_read(corpus_db: Path) -> None:
    """No Python-only tokenizer, no contentless_delete, no JSONB (DESIGN D2)."""
    ddl = " ".join(r[0] or "" for r in query(corpus_db, "SELECT sql FROM sqlite_master"))
    assert "contentless_delete" not in ddl
    tokenizers = re.findall(r"tokenize\s*=\s*'([^']*)'", ddl)
    assert tokenizers and all(
        t.split()[0] in ("unicode61", "ascii", "porter", "trigram") for t in tokenizers
    )
    assert scalar(corpus_db, "SELECT count(*) FROM frontmatter WHERE typeof(data) <> 'text'") == 0
