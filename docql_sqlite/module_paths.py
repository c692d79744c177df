"""Module paths as code writes them, as path segments: what an import names (`net/http`,
`std::fs`, `json.decoder`, `./types.js`) and the names a file's imports bind (`http`,
`fs`, `decoder`). Shared by the reference extraction (`ingest/code_refs`), the
resolution pass (`ingest/resolve`), the repository map and DocQL's `importers` (outside
the ingest package, whose import loads the parsers)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from functools import lru_cache

# Languages where importing names from a module binds those names only (`from web.app
# import Flask`, `import { x } from "./app"`), not the module's last part; Ruby's `require
# 'rack/utils'` and Bash's `source lib.sh` bind no name at all (their names are `*`: every
# definition of the file).
NAMES_ONLY = frozenset({"python", "javascript", "typescript", "tsx", "ruby", "bash"})


def local_modules(
    imports: Iterable[tuple[str, list[str], str | None]],
    directory: str = "",
    language: str = "",
) -> dict[str, tuple[str, ...]]:
    """The names a file's imports bind → the module path each stands for: a module's last
    part (`http` for `"net/http"`, `json`, `fs` for `use std::fs`; in a `language` of
    NAMES_ONLY only when the import names no names from it) and each name imported
    from one (`decoder` for `from json import decoder` → `json/decoder`, `fs` for `use
    std::{fs, io}`); an import with an alias binds the alias alone (`np` for `import
    numpy as np`, `mr` for Go's `mr "math/rand"`, `u` for `import * as u from './util'`,
    `dec` for `from json import decoder as dec` → `json/decoder`; Go's `_` and `.` bind
    nothing; Python's `import a.b` binds `a` too). The first import of a name wins.
    `http.Get` names the module `http` stands for (code_refs records the qualifier,
    `_Resolver` and the repository map read it).
    `imports`: (module, names, alias) as `Import` holds them."""
    local: dict[str, tuple[str, ...]] = {}
    for module, names, alias in imports:
        segments = module_segments(module, directory)
        if alias is not None:
            if alias not in _NOT_BINDINGS and alias.isidentifier() and segments:
                # `from json import decoder as dec` names one name; `* as u` the module
                one = renamed_name(names, alias)
                local.setdefault(alias, (*segments, one) if one else segments)
            continue
        if segments and (not names or language not in NAMES_ONLY):
            # (In Python and JavaScript `from web.app import Flask` binds `Flask`, not
            # `app`: a module-level `app = Flask()` is then no module; pytest's
            # `pytester: Pytester` parameter no import of `_pytest.pytester`.)
            local.setdefault(segments[-1], segments)
            if language == "python" and not names and len(segments) > 1:
                # `import a.b` binds `a`, the package: `click.echo(…)` after `import
                # click._termui_impl` (click's tests) is the package's `echo`
                local.setdefault(segments[0], segments[:1])
        for name in names:
            if name not in _NOT_BINDINGS:
                local.setdefault(name, (*segments, name))
    return local


def renamed_name(names: list[str], alias: str | None) -> str | None:
    """The one name an import binds under `alias`, if it binds one: `Square` for `from m
    import Square as Sq`, `join` for `import { join as j }`, `File` for `use
    std::fs::File as F`; None for a module bound under another name (`import numpy as
    np`, `* as u`, Go's `mr "math/rand"`) or an import without an alias."""
    if alias is None or "*" in names:
        return None
    bound = [n for n in names if n not in _NOT_BINDINGS]
    return bound[0] if len(bound) == 1 else None


# Names in an import's list that bind no module of their own: a wildcard, Rust's `self`
# (`use std::io::{self, Read}` binds `io`, already the module's last part); as an alias,
# Go's blank and dot imports (`_ "embed"`, `. "fmt"`).
_NOT_BINDINGS = frozenset({"*", "self", "super", "crate", "_", "."})


@lru_cache(maxsize=8192)
def module_segments(module: str, directory: str = "") -> tuple[str, ...]:
    """An imported module as path segments: `a.b` → (a, b), `std::io` → (std, io),
    `./x/y.js` → (x, y) (relative to `directory`), `..pkg` (Python) likewise. Cached:
    the resolution pass asks for every import of every file (the same few modules)."""
    text = module.strip()
    if not text:
        return ()
    if text.startswith("."):
        if "/" in text:  # a relative specifier (JS/TS, C includes)
            joined = posixpath.normpath(posixpath.join(directory, text))
        else:  # Python's `from ..pkg import x`
            level = len(text) - len(text.lstrip("."))
            base = directory
            for _ in range(level - 1):
                base = posixpath.dirname(base)
            rest = text[level:].replace(".", "/")
            joined = posixpath.join(base, rest) if rest else base
        text = joined
    else:
        text = text.replace("::", "/")
        if "/" not in text and text.count(".") and not _has_file_extension(text):
            text = text.replace(".", "/")
    text = posixpath.splitext(text)[0] if _has_file_extension(text) else text
    parts = tuple(
        p for p in text.split("/") if p and p not in (".", "..", "crate", "self", "super")
    )
    return parts


_FILE_EXTENSIONS = frozenset(
    {"h", "hh", "hpp", "hxx", "c", "cc", "cpp", "js", "mjs", "cjs", "ts", "tsx", "jsx"}
)


def _has_file_extension(text: str) -> bool:
    return text.rpartition(".")[2].lower() in _FILE_EXTENSIONS
