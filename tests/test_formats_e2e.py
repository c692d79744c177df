"""Formats end to end: what the index answers for code, PDF and DOCX equals ground truth
taken from the files themselves (Python's ast, pypdf's outline, python-docx)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pypdf
import pytest
from conftest import DATASETS, REPO, file_lines

import docql_sqlite
from docql_sqlite.ingest import IngestOptions, index_paths

sys.path.insert(0, str(DATASETS))
import make_binary_samples  # noqa: E402  (the committed generator of datasets/)

# Every function whose name starts with "test" (any case) in datasets/code, found by
# reading the files: 7 languages.
TEST_FUNCTIONS = {
    ("c/bloom.c", "test_no_false_negatives"),
    ("cpp/tokenizer.cpp", "test_bigrams"),
    ("go/index_test.go", "TestClosedIndex"),
    ("go/index_test.go", "TestSearchRequiresAllTerms"),
    ("go/index_test.go", "testHelperBuildIndex"),
    ("javascript/server.js", "testRouterMatchesPathParams"),
    ("kotlin/QueryPlanner.kt", "testPlannerOrdersBySelectivity"),
    ("python/docql_lexer_tests.py", "test_comparison_operators"),
    ("python/docql_lexer_tests.py", "test_function_call_with_chinese_string"),
    ("python/docql_lexer_tests.py", "test_negative_number"),
    ("python/docql_lexer_tests.py", "test_property_chain"),
    ("python/docql_lexer_tests.py", "test_root_only"),
    ("python/docql_lexer_tests.py", "test_unexpected_character_raises"),
    ("python/docql_lexer_tests.py", "test_unterminated_string_is_reported"),
    ("python/docql_lexer_tests.py", "testing_helper_is_not_a_test_case"),
    ("rust/segment.rs", "test_bad_magic_is_rejected"),
    ("rust/segment.rs", "test_header_roundtrip"),
}


def test_class_source_is_the_whole_class(corpus_db: Path) -> None:
    path = "datasets/code/python/docql_lexer.py"
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "DocQLLexer")
    lines = file_lines(REPO / path)
    expected = "".join(line + "\n" for line in lines[node.lineno - 1 : node.end_lineno])
    with docql_sqlite.open(corpus_db) as index:
        items = index.query('$.code.class("docqllexer")')
    assert len(items) == 1
    item = items[0]
    assert (item["path"], item["kind"], item["line"], item["end_line"]) == (
        path,
        "class",
        node.lineno,
        node.end_lineno,
    )
    assert item["source"] == expected
    methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    with docql_sqlite.open(corpus_db) as index:
        found = index.query('$.code.methods[?(@.parent=="DocQLLexer")].name')
    assert set(found) == methods


def test_functions_starting_with_test_across_languages(corpus_db: Path) -> None:
    with docql_sqlite.open(corpus_db) as index:
        items = index.query('$.code.functions[?(@.name startsWith "test")]')
    found = {(i["path"].removeprefix("datasets/code/"), i["name"]) for i in items}
    assert found == TEST_FUNCTIONS
    assert len({i["language"] for i in items}) == 7


@pytest.fixture(scope="module")
def binary_index(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("binary")
    docs = root / "docs"
    docs.mkdir()
    make_binary_samples.generate_all(str(docs))
    db = root / "b.db"
    report = index_paths(db, [str(docs)], IngestOptions(workers=2))
    failed = {Path(p).name for p, _ in report.failed}
    assert failed == {"encrypted.pdf", "corrupt.pdf", "broken.docx"}, report.failed
    return db, docs


def test_pdf_toc_equals_its_outline(binary_index: tuple[Path, Path]) -> None:
    db, docs = binary_index
    reader = pypdf.PdfReader(docs / "handbook.pdf")
    expected: list[tuple[int, str, int]] = []

    def walk(entries: list, depth: int) -> None:  # type: ignore[type-arg]
        for entry in entries:
            if isinstance(entry, list):
                walk(entry, depth + 1)
            else:
                expected.append((depth, entry.title, reader.get_destination_page_number(entry) + 1))

    walk(reader.outline, 1)
    with docql_sqlite.open(db) as index:
        toc = index.query('$.files[?(@.name=="handbook.pdf")].toc')
        pages = {
            p: index.query(f"$.content.page({p})", path="*handbook.pdf")
            for p in range(1, len(reader.pages) + 1)
        }
    assert [(h["level"], h["title"], h["page"]) for h in toc] == expected
    assert all(h["location"].endswith(f":page {h['page']}") for h in toc)
    for number, items in pages.items():
        assert len(items) == 1
        want = reader.pages[number - 1].extract_text()
        assert items[0]["content"].split() == want.split(), number


def test_broken_binaries_are_recorded_with_reasons(binary_index: tuple[Path, Path]) -> None:
    db, _ = binary_index
    with docql_sqlite.open(db) as index:
        errors = {
            Path(e["path"]).name: e["reason"] for e in index.errors() if e["severity"] == "error"
        }
    assert errors["encrypted.pdf"].startswith("encrypted PDF")
    assert errors["corrupt.pdf"].startswith("corrupt PDF")
    assert errors["broken.docx"].startswith("corrupt DOCX")


def test_docx_headings_become_the_toc(binary_index: tuple[Path, Path]) -> None:
    import docx

    db, docs = binary_index
    document = docx.Document(str(docs / "handbook.docx"))
    expected = [
        (int(p.style.name.split()[-1]), p.text)
        for p in document.paragraphs
        if p.style.name.startswith("Heading")
    ]
    with docql_sqlite.open(db) as index:
        toc = index.query("$.toc", path="*handbook.docx")
    assert [(h["level"], h["title"]) for h in toc] == expected
