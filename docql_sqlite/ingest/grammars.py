"""Where tree-sitter grammars come from: the one module that imports grammar packages.

Grammars are the per-language wheels (`tree-sitter-python`, …), imported lazily so a
missing wheel only fails the languages that need it. `tree-sitter-language-pack` is
deliberately not used: from 1.0 on it downloads grammars at run time, which fails
offline (DESIGN.md, D5). Switching the source of grammars is a change to `LANGUAGES`
and `get_language` only.

Languages and parsers are cached per process. A `Parser` is not safe to share between
threads; ingest parses in worker *processes* (D7), so one parser per language per
process is enough.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache

from tree_sitter import Language, Parser

from docql_sqlite.errors import IngestError


@dataclass(frozen=True, slots=True)
class Grammar:
    """How to load one language's grammar, and which file extensions use it."""

    module: str  # importable package, e.g. "tree_sitter_python"
    function: str  # function of `module` returning the language pointer
    extensions: tuple[str, ...]  # lower-case, with the dot
    package: str  # the distribution to install, for error messages


LANGUAGES: dict[str, Grammar] = {
    "python": Grammar("tree_sitter_python", "language", (".py", ".pyi"), "tree-sitter-python"),
    "javascript": Grammar(
        "tree_sitter_javascript",
        "language",
        (".js", ".mjs", ".cjs", ".jsx"),
        "tree-sitter-javascript",
    ),
    "typescript": Grammar(
        "tree_sitter_typescript",
        "language_typescript",
        (".ts", ".mts", ".cts"),
        "tree-sitter-typescript",
    ),
    "tsx": Grammar("tree_sitter_typescript", "language_tsx", (".tsx",), "tree-sitter-typescript"),
    "go": Grammar("tree_sitter_go", "language", (".go",), "tree-sitter-go"),
    "rust": Grammar("tree_sitter_rust", "language", (".rs",), "tree-sitter-rust"),
    "java": Grammar("tree_sitter_java", "language", (".java",), "tree-sitter-java"),
    "kotlin": Grammar("tree_sitter_kotlin", "language", (".kt", ".kts"), "tree-sitter-kotlin"),
    "c_sharp": Grammar("tree_sitter_c_sharp", "language", (".cs",), "tree-sitter-c-sharp"),
    "c": Grammar("tree_sitter_c", "language", (".c", ".h"), "tree-sitter-c"),
    "cpp": Grammar(
        "tree_sitter_cpp",
        "language",
        (".cpp", ".cc", ".cxx", ".hpp", ".hh", ".hxx"),
        "tree-sitter-cpp",
    ),
}

# Built once from LANGUAGES so an extension can never map to two languages silently.
_BY_EXTENSION: dict[str, str] = {}
for _name, _grammar in LANGUAGES.items():
    for _ext in _grammar.extensions:
        assert _ext not in _BY_EXTENSION, f"extension {_ext} claimed twice"
        _BY_EXTENSION[_ext] = _name


def language_for_extension(ext: str) -> str | None:
    """The language name for a file extension (`".py"`, `"py"`, `".PY"`), or None."""
    ext = ext.lower()
    if ext and not ext.startswith("."):
        ext = "." + ext
    return _BY_EXTENSION.get(ext)


def supported_languages() -> list[str]:
    """Every language name `get_language` accepts, sorted."""
    return sorted(LANGUAGES)


@cache
def get_language(name: str) -> Language:
    """The tree-sitter `Language` for `name`; raises IngestError if it cannot be loaded."""
    grammar = LANGUAGES.get(name)
    if grammar is None:
        known = ", ".join(supported_languages())
        raise IngestError(f"no grammar for language {name!r}; supported: {known}")
    try:
        module = importlib.import_module(grammar.module)
    except ImportError as exc:
        raise IngestError(
            f"the {name} grammar is not installed: pip install {grammar.package} ({exc})"
        ) from exc
    try:
        return Language(getattr(module, grammar.function)())
    except Exception as exc:  # an ABI mismatch between the wheel and tree-sitter shows up here
        raise IngestError(
            f"the {name} grammar ({grammar.package}) cannot be loaded by this tree-sitter: {exc}"
        ) from exc


@cache
def get_parser(name: str) -> Parser:
    """A `Parser` for `name`, one per language per process."""
    return Parser(get_language(name))
