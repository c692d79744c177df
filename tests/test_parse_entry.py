"""One parser signature, `parse(source) -> Document`, for every format (issue 8 items 5, 7).

- Every built-in format is its module's `parse`: the code the tests call is the code
  production runs (no adapters). A PEP 263 coding cookie is honoured in production: a
  koi8-r Python file indexed through the CLI has the right symbols and text.
- Optional grammars (tree-sitter-language-pack) for languages the wheels lack: with the
  package absent, or present but unable to give a grammar (offline), the files are
  indexed as plain text with one note per language and exit 0; with a stand-in package
  that returns a real grammar (Python's, for Starlark) they get symbols.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import indexed_text

import docql_sqlite
from docql_sqlite.errors import IngestError
from docql_sqlite.ingest import formats
from docql_sqlite.model import Source

KOI8_SOURCE = '''# -*- coding: koi8-r -*-
"""Модуль приветствий."""


def привет(имя):
    """Возвращает приветствие для имени."""
    return "Привет, " + имя


class Счётчик:
    """Считает вызовы."""

    def увеличить(self):
        return 1
'''


def cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docql_sqlite", *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=cwd,
        env=env,
    )


def test_every_builtin_format_is_a_module_parse() -> None:
    """The registry holds each parser module's own `parse(source)`: nothing in between."""
    modules = {
        "markdown": "markdown",
        "rst": "rst",
        "asciidoc": "asciidoc",
        "html": "html",
        "pdf": "pdf",
        "docx": "docx",
        "text": "plaintext",
        "notebook": "notebook",
        "code": "code",
    }
    for name, module in modules.items():
        parse = formats.get_format(name).parse
        assert parse is importlib.import_module(f"docql_sqlite.ingest.{module}").parse, name


def test_production_parse_decodes_like_the_text_parsers() -> None:
    data = "# Café\n\nrésumé\n".encode("cp1252")
    source = Source(path="a.md", uri="/a.md", data=data, sha256=hashlib.sha256(data).hexdigest())
    document = formats.get_format(formats.format_for_path("a.md") or "").parse(source)
    assert document.text == "# Café\n\nrésumé\n"
    assert document.headings[0].title == "Café"
    assert document.warnings == ["not valid UTF-8 (byte 5); decoded as cp1252/Latin-1"]


def test_old_two_argument_parsers_are_refused_with_the_fix() -> None:
    with pytest.raises(IngestError, match=r"cannot be called as parse\(source\)"):
        formats.register("old", lambda source, text: None, ("old",))
    assert "old" not in formats.available_formats()
    assert formats.format_for_path("x.old") is None


def test_koi8r_python_file_with_a_coding_cookie(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "greet.py").write_bytes(KOI8_SOURCE.encode("koi8-r"))
    with pytest.raises(UnicodeDecodeError):
        KOI8_SOURCE.encode("koi8-r").decode("utf-8")  # the cookie, not UTF-8, must decide
    run = cli("index", "x.db", "src", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "warning" not in run.stderr  # a declared codec is not a guess
    with docql_sqlite.open(tmp_path / "x.db") as index:
        symbols = list(
            index.rows("SELECT qualified_name, kind, docstring FROM symbols ORDER BY ord")
        )
    assert [(s["qualified_name"], s["kind"]) for s in symbols] == [
        ("привет", "function"),
        ("Счётчик", "class"),
        ("Счётчик.увеличить", "method"),
    ]
    assert symbols[0]["docstring"] == "Возвращает приветствие для имени."
    got = cli("get", "--text", "x.db", "src/greet.py", cwd=tmp_path)  # piped: JSON unless --text
    assert got.returncode == 0 and got.stdout == KOI8_SOURCE
    found = cli("search", "--json", "x.db", "приветствие", cwd=tmp_path)
    assert found.returncode == 0 and json.loads(found.stdout), found.stderr


# -- optional grammars ------------------------------------------------------------------------
STARLARK = '''def my_rule(ctx):
    """Builds the thing."""
    return ctx


def _impl(ctx):
    pass
'''
# (Zig: a language only the pack has; Ruby, PHP, Bash, Lua and Perl have their wheels)
ZIG = 'pub fn hi() []const u8 {\n    return "hi";\n}\n'

STAND_IN = '''
"""A stand-in for tree-sitter-language-pack: Starlark from the Python wheel; the rest
fails as an offline download would. Each call is logged, to count the attempts."""
import os

import tree_sitter
import tree_sitter_python


def get_language(name):
    with open(os.environ["PACK_LOG"], "a") as log:
        log.write(name + "\\n")
    if name == "starlark":
        return tree_sitter.Language(tree_sitter_python.language())
    raise RuntimeError(f"failed to download the {name} parser: network unreachable")
'''
ABSENT = "raise ImportError(\"No module named 'tree_sitter_language_pack'\")\n"


def pack_env(tmp_path: Path, module_text: str) -> dict[str, str]:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "tree_sitter_language_pack.py").write_text(module_text)
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["PACK_LOG"] = str(tmp_path / "pack.log")
    return env


def optional_tree(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "rules.bzl").write_text(STARLARK)
    for name in ("a", "b", "c"):
        (src / f"{name}.zig").write_text(ZIG)
    (src / "main.py").write_text("def main():\n    pass\n")


def indexed_code(tmp_path: Path) -> dict[str, tuple[str, list[str], str]]:
    """path -> (language, symbol names, stored text)."""
    out = {}
    with docql_sqlite.open(tmp_path / "x.db") as index:
        for doc in index.rows("SELECT id, path, language FROM documents ORDER BY path"):
            names = [
                r["qualified_name"]
                for r in index.rows(
                    "SELECT qualified_name FROM symbols WHERE doc_id = ? ORDER BY ord", (doc["id"],)
                )
            ]
            out[doc["path"]] = (doc["language"], names, indexed_text(tmp_path / "x.db", doc["id"]))
    return out


def test_without_the_language_pack_files_are_plain_text(tmp_path: Path) -> None:
    optional_tree(tmp_path)
    run = cli("index", "x.db", "src", cwd=tmp_path, env=pack_env(tmp_path, ABSENT))
    assert run.returncode == 0, run.stderr
    notes = [line for line in run.stderr.splitlines() if line.startswith("note: ")]
    assert notes == [
        "note: no starlark grammar: tree-sitter-language-pack is not installed (pip install "
        "'docql-sqlite[languages]'); starlark files are chunked as plain text",
        "note: no zig grammar: tree-sitter-language-pack is not installed (pip install "
        "'docql-sqlite[languages]'); zig files are chunked as plain text",
    ]
    assert "0 failed" in run.stderr and "warning" not in run.stderr
    docs = indexed_code(tmp_path)
    assert docs["src/rules.bzl"] == ("starlark", [], STARLARK)
    assert docs["src/a.zig"] == ("zig", [], ZIG)
    assert docs["src/main.py"][:2] == ("python", ["main"])  # the wheels still do their part


def test_a_language_pack_grammar_is_used_and_an_offline_one_is_a_note(tmp_path: Path) -> None:
    optional_tree(tmp_path)
    env = pack_env(tmp_path, STAND_IN)
    run = cli("index", "--workers", "0", "x.db", "src", cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    notes = [line for line in run.stderr.splitlines() if line.startswith("note: ")]
    assert notes == [
        "note: the zig grammar of tree-sitter-language-pack is not available here (failed to "
        "download the zig parser: network unreachable); zig files are chunked as plain text"
    ]
    docs = indexed_code(tmp_path)
    assert docs["src/rules.bzl"] == ("starlark", ["my_rule", "_impl"], STARLARK)
    assert docs["src/b.zig"] == ("zig", [], ZIG)
    # one attempt per language and process, not one per file
    assert sorted((tmp_path / "pack.log").read_text().split()) == ["starlark", "zig"]
    with docql_sqlite.open(tmp_path / "x.db") as index:
        (doc,) = index.rows("SELECT docstring FROM symbols WHERE name = 'my_rule'")
    assert doc["docstring"] == "Builds the thing."
