"""Where tree-sitter grammars come from: the one module that imports grammar packages.

Two sources, consulted in this order:

1. The per-language wheels (`tree-sitter-python`, …; `LANGUAGES`), dependencies of the
   package and the offline default. Imported lazily, so a missing wheel only fails the
   languages that need it.
2. `tree-sitter-language-pack` (the optional `languages` extra), only for the languages
   the wheels lack (`PACK_LANGUAGES`). Its releases from 1.0 on download a grammar on
   first use (DESIGN.md, D5), so offline, or without the package, such a grammar is
   *unavailable*: `GrammarUnavailable`, which the code parser turns into plain-text
   chunking, and the run into one note per language. Never a failed file.

Languages and parsers are cached per process. A `Parser` is not safe to share between
threads; ingest parses in worker *processes* (D7), so one parser per language per
process is enough.
"""

from __future__ import annotations

import ctypes
import importlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tree_sitter import Language, Parser

from docql_sqlite.errors import IngestError

PACK_MODULE = "tree_sitter_language_pack"
PACK_PACKAGE = "tree-sitter-language-pack"


class GrammarUnavailable(IngestError):
    """An optional grammar (from tree-sitter-language-pack) cannot be had here."""


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
    "swift": Grammar("tree_sitter_swift", "language", (".swift",), "tree-sitter-swift"),
    # `.h` is C's; a header that is Objective-C is told by its text (`code.parse`); a `.m`
    # that is not (MATLAB's) and Objective-C++'s `.mm` are chunked as plain text
    "objc": Grammar("tree_sitter_objc", "language", (".m", ".mm"), "tree-sitter-objc"),
    "ruby": Grammar(
        "tree_sitter_ruby", "language", (".rb", ".rake", ".gemspec", ".ru"), "tree-sitter-ruby"
    ),
    # (`language_php` reads a file with its HTML around `<?php … ?>`; `language_php_only`
    # would take the HTML for code)
    "php": Grammar("tree_sitter_php", "language_php", (".php",), "tree-sitter-php"),
    "bash": Grammar("tree_sitter_bash", "language", (".sh", ".bash"), "tree-sitter-bash"),
    "lua": Grammar("tree_sitter_lua", "language", (".lua",), "tree-sitter-lua"),
    "perl": Grammar("tree_sitter_perl", "language", (".pl", ".pm", ".t"), "tree-sitter-perl"),
    "c": Grammar("tree_sitter_c", "language", (".c", ".h"), "tree-sitter-c"),
    "cpp": Grammar(
        "tree_sitter_cpp",
        "language",
        (".cpp", ".cc", ".cxx", ".hpp", ".hh", ".hxx"),
        "tree-sitter-cpp",
    ),
}

# Languages no wheel above covers, by their tree-sitter-language-pack name. Files with
# these extensions are indexed as code either way: parsed when the pack provides the
# grammar, chunked as plain text when it does not. Symbols need a query file
# (`queries/<language>.scm`; Starlark shares Python's); without one a file gets
# tree-sitter's syntax check and plain chunking.
PACK_LANGUAGES: dict[str, tuple[str, ...]] = {
    "dart": (".dart",),
    "elixir": (".ex", ".exs"),
    "haskell": (".hs",),
    "julia": (".jl",),
    "ocaml": (".ml", ".mli"),
    "r": (".r",),
    "scala": (".scala",),
    "starlark": (".bzl", ".star"),
    "zig": (".zig",),
}

# Built once from both tables so an extension can never map to two languages silently.
_BY_EXTENSION: dict[str, str] = {}
for _name, _extensions in [(n, g.extensions) for n, g in LANGUAGES.items()] + list(
    PACK_LANGUAGES.items()
):
    for _ext in _extensions:
        assert _ext not in _BY_EXTENSION, f"extension {_ext} claimed twice"
        _BY_EXTENSION[_ext] = _name


# Single-file components (Vue's, Svelte's, Astro's): code whose <script> blocks (and an
# Astro component's front matter) are JavaScript, or
# TypeScript by their `lang` (`components.py`); the rest of the file (its
# template, its style) is text of the document around them.
COMPONENT_EXTENSIONS = (".vue", ".svelte", ".astro")
for _ext in COMPONENT_EXTENSIONS:
    _BY_EXTENSION[_ext] = "javascript"


def language_for_extension(ext: str) -> str | None:
    """The language name for a file extension (`".py"`, `"py"`, `".PY"`), or None."""
    ext = ext.lower()
    if ext and not ext.startswith("."):
        ext = "." + ext
    return _BY_EXTENSION.get(ext)


def code_extensions() -> list[str]:
    """Every extension indexed as code (lower case, with the dot)."""
    return list(_BY_EXTENSION)


def supported_languages() -> list[str]:
    """Every language name `get_language` accepts, sorted."""
    return sorted([*LANGUAGES, *PACK_LANGUAGES])


def is_optional(name: str) -> bool:
    """True for a language whose grammar comes from tree-sitter-language-pack."""
    return name in PACK_LANGUAGES and name not in LANGUAGES


# Outcomes of loading optional grammars, failures included: offline, a failed download
# must not be retried (and waited for) once per file.


def unavailable_reason(name: str) -> str | None:
    """One line saying why the optional grammar `name` cannot be used, or None if it can."""
    if not is_optional(name):
        return None
    try:
        get_language(name)
    except GrammarUnavailable as exc:
        return exc.message
    return None


def _pack_language(name: str) -> Language:
    result = _load_from_pack(name)
    if isinstance(result, GrammarUnavailable):
        raise result
    return result


@lru_cache(maxsize=128)  # failures too: an offline download is tried once
def _load_from_pack(name: str) -> Language | GrammarUnavailable:
    try:
        pack = importlib.import_module(PACK_MODULE)
    except ImportError:
        return GrammarUnavailable(
            f"no {name} grammar: {PACK_PACKAGE} is not installed (pip install "
            f"'docql-sqlite[languages]'); {name} files are chunked as plain text"
        )
    try:
        loaded: Any = pack.get_language(name)
        return loaded if isinstance(loaded, Language) else Language(loaded)
    except Exception as exc:  # offline download failure, unknown name, ABI mismatch
        detail = " ".join(str(exc).split())[:160] or type(exc).__name__
        return GrammarUnavailable(
            f"the {name} grammar of {PACK_PACKAGE} is not available here ({detail}); "
            f"{name} files are chunked as plain text"
        )


def _as_capsule(pointer: Any) -> Any:
    """A grammar wheel's language pointer as py-tree-sitter wants it: a PyCapsule named
    `tree_sitter.Language`. Most wheels return one; tree-sitter-perl 2.0 returns the
    address as an int, which `Language` takes with a DeprecationWarning (and a future
    py-tree-sitter will refuse)."""
    if not isinstance(pointer, int):
        return pointer
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype = ctypes.py_object
    new_capsule.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
    return new_capsule(pointer, b"tree_sitter.Language", None)


@lru_cache(maxsize=128)  # per language and process: more than every grammar (~40)
def get_language(name: str) -> Language:
    """The tree-sitter `Language` for `name`; raises IngestError if it cannot be loaded
    (`GrammarUnavailable` for an optional grammar)."""
    grammar = LANGUAGES.get(name)
    if grammar is None:
        if name in PACK_LANGUAGES:
            return _pack_language(name)
        known = ", ".join(supported_languages())
        raise IngestError(f"no grammar for language {name!r}; supported: {known}")
    try:
        module = importlib.import_module(grammar.module)
    except ImportError as exc:
        raise IngestError(
            f"the {name} grammar is not installed: pip install {grammar.package} ({exc})"
        ) from exc
    try:
        return Language(_as_capsule(getattr(module, grammar.function)()))
    except Exception as exc:  # an ABI mismatch between the wheel and tree-sitter shows up here
        raise IngestError(
            f"the {name} grammar ({grammar.package}) cannot be loaded by this tree-sitter: {exc}"
        ) from exc


@lru_cache(maxsize=128)
def get_parser(name: str) -> Parser:
    """A `Parser` for `name`, one per language per process."""
    return Parser(get_language(name))
