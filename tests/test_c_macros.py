"""Macros a preprocessor expands away, blanked before tree-sitter reads C and C++
(`ingest/c_macros.py`).

Found on googletest 1.12, Qt 5.15's headers, sentencepiece 0.2 (with protobuf-lite),
fmt 9 and nlohmann/json 3.11: `class GTEST_API_ FilePath` was a *function* named
`FilePath` whose members were errors, Qt lost 829 of its 2,083 classes so (Universal
Ctags found them), Abseil-style annotations named methods (`Cache.ABSL_LOCKS_EXCLUDED`),
and `Q_OBJECT`, `Q_PROPERTY(…)`, `signals:`, `Q_DISABLE_COPY(X)` were errors in every
Qt class. The fixtures in `tests/fixtures/c_macros/` are written in those projects'
idioms, with the C styles the rules must leave alone (`api.h`).

Oracle: Universal Ctags (installed by `.ci/run`), which reads such macro words as the
attributes they are: every class, struct and function definition it finds is one of
ours at the same line, and our classes are its classes.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docql_sqlite.ingest.c_macros import blank_macros
from docql_sqlite.ingest.code import parse_code_text

FIXTURES = Path(__file__).parent / "fixtures" / "c_macros"
_LANGUAGE = {
    ".h": "cpp",
    ".hpp": "cpp",
    ".cc": "cpp",
    ".cpp": "cpp",
}  # (api.h is C: its test says so)
_MACRO_NAME = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*")


def _parsed(name: str, language: str | None = None):
    path = FIXTURES / name
    language = language or _LANGUAGE[path.suffix]
    return parse_code_text(path.read_text(), str(path), language)


def _symbols(document) -> set[tuple[str, str, int]]:
    return {(s.qualified_name, s.kind, s.line) for s in document.symbols}


# (fixture, language, symbols that must be there: qualified name, kind, line)
EXPECTED = [
    ("widgets.h", "cpp", [
        ("Frame", "class", 12), ("Frame.Frame", "constructor", 26),
        ("Frame.setFrameShape", "method", 32), ("Frame.redraw", "method", 35),
        ("Frame.shapeChanged", "method", 38), ("Frame.paint", "method", 41),
        ("Frame.Shape.Panel", "enum_member", 22), ("Label", "class", 48),
        ("Label.setText", "method", 56), ("Label.linkActivated", "method", 60),
        ("FileDialog", "class", 66), ("FileDialog.FileMode.DirectoryOnly", "enum_member", 71),
        ("FileDialog.Option.DontUseSheet", "enum_member", 74),
        ("FileDialog.Option.ReadOnly", "enum_member", 75),
        ("FileDialog.fileMode", "method", 77),
    ]),
    ("locks.h", "cpp", [
        ("cache.Mutex", "class", 7), ("cache.Mutex.Lock", "method", 9),
        ("cache.LruCache", "class", 13), ("cache.LruCache.Put", "method", 16),
        ("cache.LruCache.Get", "method", 17), ("cache.LruCache.Size", "method", 18),
        ("cache.LruCache.EvictLocked", "method", 21), ("cache.Stats", "struct", 27),
    ]),
    ("locks.cc", "cpp", [
        ("cache.LruCache.Put", "method", 7), ("cache.LruCache.EvictLocked", "method", 18),
        ("cache.Probe", "function", 24), ("CacheMain", "function", 30),
    ]),
    ("json_value.hpp", "cpp", [
        ("json.basic_value", "class", 11), ("json.basic_value.assert_invariant", "method", 18),
        ("json.format_float", "function", 24),
    ]),
    ("continued.h", "cpp", [("cont.Widget", "class", 10), ("cont.Widget.Draw", "method", 12)]),
    ("api.h", "c", [
        ("api_open", "function", 15), ("api_close", "function", 18),
        ("api_mode.API_MODE_READ", "enum_member", 22),
        ("api_level.API_LEVEL_ONLY", "enum_member", 29), ("count_colors", "function", 32),
        ("api_abort", "function", 41), ("api_flags", "function", 42),
        ("api_reset", "function", 43),
    ]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "language", "expected"), EXPECTED)
def test_symbols_read_past_the_macros(name: str, language: str, expected: list) -> None:
    document = _parsed(name, language)
    assert set(expected) <= _symbols(document)
    # no class, function or method is named by a macro (`Cache.ABSL_LOCKS_EXCLUDED`,
    # `Q_PROPERTY`), and no class reads as a function
    named_by_macro = [
        s.qualified_name
        for s in document.symbols
        if s.kind != "macro" and s.kind != "enum_member" and _MACRO_NAME.fullmatch(s.name)
    ]
    assert named_by_macro == []


@pytest.mark.parametrize(
    "name",
    ["widgets.h", "locks.h", "locks.cc", "json_value.hpp", "path_test.cc", "continued.h"]
    + ["catch_test.cpp"],
)
def test_the_idioms_parse_without_errors(name: str) -> None:
    assert _parsed(name).warnings == []


def test_the_stored_text_is_the_files_own() -> None:
    document = _parsed("locks.h")
    assert document.text == (FIXTURES / "locks.h").read_text()
    assert "LOCKS_EXCLUDED(mu_)" in document.text


def test_what_a_statement_holds_stays_a_reference() -> None:
    """A macro's use in a function's body is a statement tree-sitter reads; its arguments
    are references (Brotli's `FOR_ALL_HASHERS(CASE_)`), so only uses among declarations
    are blanked."""
    text = (
        "#define CASE_(N) case N: return N;\n"
        "#define FOR_ALL(X) X(1) X(2)\n"
        "static int pick(int n) {\n"
        "  switch (n) {\n"
        "    FOR_ALL(CASE_)\n"
        "  }\n"
        "  if (n < 0) REPORT_ERROR(n);\n"
        "  return 0;\n"
        "}\n"
    )
    document = parse_code_text(text, "pick.c", "c")
    # a reference row is (name, kind, caller, line, …)
    names = {(row[0], row[3]) for row in document.reference_rows}
    assert ("CASE_", 5) in names and ("REPORT_ERROR", 7) in names


def test_a_function_a_macro_defines_is_named_by_its_words() -> None:
    """googletest's 2,700 test functions were all `TEST`: an agent asking who calls
    `RemoveTrailingPathSeparator` got six callers named `testing.internal.TEST`."""
    document = _parsed("path_test.cc")
    symbols = _symbols(document)
    assert {
        ("paths.StripSlashTest.RemovesTrailingSlash", "function", 17),
        ("paths.PathTest.KeepsRoot", "function", 21),
        ("paths.PathParamTest.Stable", "function", 25),
        ("paths.StripSlash", "function", 6),
    } <= symbols
    signatures = {s.name: s.signature for s in document.symbols}
    assert signatures["PathTest.KeepsRoot"] == "TEST_F(PathTest, KeepsRoot)"
    # gmock's actions and matchers are named by their first word, their parameters after
    assert ("Twice", "function", 31) in symbols
    # a declaration by macro is no definition: `FRIEND_TEST(PathTest, KeepsRoot);`
    assert not any(s.name == "PathTest.KeepsRoot" and s.line == 14 for s in document.symbols)
    assert document.warnings == []


def test_a_test_a_string_names_is_a_function_of_that_name(tmp_path: Path) -> None:
    """Catch2's and doctest's `TEST_CASE("…", "[tag]") { … }` was a call and a block to
    tree-sitter: no symbol, and the calls in it had no caller (on Catch2's and doctest's
    own examples 1,049 calls at the top level; 132 after, symbols 275 → 395)."""
    document = _parsed("catch_test.cpp")
    assert {
        ("Factorials are computed", "function", 6),
        ("a fixture's numbers", "function", 13),
        ("vectors can be sized and resized", "function", 17),
    } <= _symbols(document)
    # gmock's `MATCHER(IsEven, "is even") {` is named by its word, never its description
    assert ("IsEven", "function", 21) in _symbols(document)
    assert not any(s.name == "is even" for s in document.symbols)
    signatures = {s.name: s.signature for s in document.symbols}
    assert signatures["Factorials are computed"] == (
        'TEST_CASE("Factorials are computed", "[factorial]")'
    )
    assert document.warnings == []
    import docql_sqlite

    (tmp_path / "src").mkdir()
    shutil.copy(FIXTURES / "catch_test.cpp", tmp_path / "src" / "catch_test.cpp")
    docql_sqlite.index(tmp_path / "t.db", [str(tmp_path / "src")])
    with docql_sqlite.open(tmp_path / "t.db") as index:
        callers = sorted(r["caller"] for r in index.query('$.code.callers("Factorial")'))
    assert callers == [
        "Factorial",
        "Factorials are computed",
        "Factorials are computed",
        "a fixture's numbers",
        "vectors can be sized and resized",
    ]


def test_callers_of_a_function_are_its_tests(tmp_path: Path) -> None:
    import docql_sqlite

    (tmp_path / "src").mkdir()
    shutil.copy(FIXTURES / "path_test.cc", tmp_path / "src" / "path_test.cc")
    docql_sqlite.index(tmp_path / "t.db", [str(tmp_path / "src")])
    with docql_sqlite.open(tmp_path / "t.db") as index:
        rows = index.query('$.code.callers("StripSlash")')
    callers = sorted(row["caller"] for row in rows)
    assert callers == [
        "paths.PathParamTest.Stable",
        "paths.PathTest.KeepsRoot",
        "paths.StripSlashTest.RemovesTrailingSlash",
    ]


# the rules' input pieces, in any order: each keeps every offset and every line
PIECES = [
    "class GTEST_API_ Foo : public Bar {", "struct API Baz final {", "};", "{", "}",
    "  Q_OBJECT", "  Q_PROPERTY(int x READ x", "      WRITE setX)", "signals:",
    "public slots:", "private Q_SLOTS:", "JSON_PRIVATE_UNLESS_TESTED:", "  PRIVATE:",
    "  void f(int a) const LOCKS_EXCLUDED(mu_);", "  int n_ GUARDED_BY(mu_);",
    "void g()", "    EXCLUSIVE_LOCKS_REQUIRED(mu_) {", "if (x) FOO_BAR(y);",
    "return FOO(x);", "#define X(a) \\", "  FOO_BAR(a)", "// ATTR_ONE ATTR_TWO",
    "/* NOT_CODE", "*/", "ATTR_ONE ATTR_TWO", "XAPI(int)", "api_open(int f);",
    "template <typename T>", "NON_NULL(1)", "enum E {", "  LAST_ONE", "\"}\"", "'{'",
    "namespace n {", "extern \"C\" {", "", "   ", "enum class Mode : int {",
    'TEST_CASE("a name", "[tag]") {', 'SECTION("inner") {', 'f("x") {',
    "  Old Q_DECL_DEPRECATED = 8,", "  Gone DEPRECATED_X(\"use New\")}", "my_enum {",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("\n".join), st.sampled_from(["c", "cpp"]))
def test_blanking_keeps_every_offset_and_line(text: str, language: str) -> None:
    src = text.encode()
    blanked = blank_macros(src, language)
    assert len(blanked) == len(src)
    assert [i for i, c in enumerate(blanked) if c == 10] == [
        i for i, c in enumerate(src) if c == 10
    ]
    # only macro words, their arguments and moc's words change, into spaces or an
    # access keyword
    for before, after in zip(src.split(b"\n"), blanked.split(b"\n"), strict=True):
        if before != after:
            kept = re.sub(rb"(public|private|protected):", b"", after).strip()
            assert all(c == 32 or before[i] == c for i, c in enumerate(after) if kept), before


def test_ctags_oracle() -> None:
    ctags = shutil.which("ctags")
    if (
        ctags is None
        or b"Universal Ctags"
        not in subprocess.run([ctags, "--version"], capture_output=True).stdout
    ):
        pytest.skip("Universal Ctags is not installed (.ci/run installs universal-ctags)")
    out = subprocess.run(
        [ctags, "--output-format=json", "--fields=+nK", "--languages=C,C++",
         "--langmap=C++:+.h", "--kinds-C++=csf", "-R", "-f", "-", str(FIXTURES)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    theirs: dict[str, set[tuple[str, str, int]]] = {}
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") == "tag" and Path(tag["path"]).name != "api.h":
            kind = "function" if tag["kind"] == "function" else "class"
            theirs.setdefault(Path(tag["path"]).name, set()).add((tag["name"], kind, tag["line"]))
    assert sum(len(tags) for tags in theirs.values()) >= 12
    for name, tags in theirs.items():
        ours = set()
        for s in _parsed(name).symbols:
            kind = {"struct": "class", "method": "function", "constructor": "function"}.get(
                s.kind, s.kind
            )
            ours.add((s.name, kind, s.line))
        # ctags names a function a macro defines by the macro (`TEST_F`), we by its
        # words (`PathTest.KeepsRoot`): those are compared by kind and line
        by_macro = {t for t in tags if _MACRO_NAME.fullmatch(t[0]) or t[0].isupper()}
        assert tags - by_macro <= ours, name
        assert {(k, n) for _, k, n in by_macro} <= {(k, n) for _, k, n in ours}, name
        assert {t for t in ours if t[1] == "class"} == {t for t in tags if t[1] == "class"}
