"""Which parser handles a file: the `register_formats` hook's table, extensions and sniffing.

A parser is `parse(source: Source) -> Document`, one signature for every format: it
gets the raw bytes (`source.data`) and the path users see (`source.path`), and decodes
text itself (`read.parse_decoded` / `read.decode_text`, the same decoding the built-in
text formats use). The built-ins are each module's `parse`, imported on first use
(`docql_sqlite/default_plugins/formats.py`).

Plugins add formats through the `register_formats(register)` hook (docs/plugins.md), or
through the older `docql_sqlite.parsers` entry-point group: a callable that receives the
same `register(name, parse, extensions)`.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from types import MappingProxyType

from .. import plugins
from ..errors import IngestError
from ..model import Document, Source
from ..path_kinds import BUILD_NAMES, is_manifest
from . import shebang
from .shebang import script_language

ParseFunc = Callable[[Source], Document]
HOOK = "register_formats"


@dataclass(frozen=True, slots=True)
class Format:
    name: str
    target: ParseFunc | str  # a parser, or the module whose `parse` is imported on first use

    @property
    def parse(self) -> ParseFunc:
        if isinstance(self.target, str):
            parse: ParseFunc = importlib.import_module(self.target).parse
            return parse
        return self.target


@dataclass(frozen=True, slots=True)
class Formats:
    """Every registered format by name, and the format each extension implies."""

    parsers: Mapping[str, Format]
    extensions: Mapping[str, str]  # extension without dot, lower case → format name


# Extension-less files worth indexing by name: a project's top-level texts, and
# Debian's (/usr/share/doc holds a `copyright` file for every package: 788 here, the
# answer to "what is the licence of curl"; `NEWS`, `FAQ`, `THANKS`). A file of these
# names whose `#!` line names an interpreter of ours is code all the same (`walk`).
TEXT_NAMES = frozenset(
    {
        "readme",
        "license",
        "licence",
        "copying",
        "copyright",
        "changelog",
        "changes",
        "history",
        "news",
        "authors",
        "contributors",
        "maintainers",
        "credits",
        "thanks",
        "contributing",
        "hacking",
        "install",
        "bugs",
        "faq",
        "notice",
        "todo",
    }
)


# Extensions of the files a code base is made of that no grammar here parses, read as text
# (the built-in formats' table), line by line, without a text outline (`plaintext._outlined`).
CODE_AS_TEXT = (
    # schemas and interface definitions
    "sql", "proto", "graphql", "gql", "tf", "tfvars", "hcl", "properties",
    # build files
    "mk", "cmake", "gradle", "dockerfile", "bazel",
    # templates (an `.html` template is told by its tags: `html.is_template`)
    "j2", "jinja", "jinja2", "twig", "hbs", "handlebars", "mustache", "njk", "liquid",
    "erb", "ejs", "tmpl", "tpl", "gotmpl",
)  # fmt: skip
# (Vue's, Svelte's and Astro's single-file components are code: `grammars.COMPONENT_EXTENSIONS`)


def register(name: str, parse: ParseFunc | str, extensions: Iterable[str] = ()) -> object:
    """Add (or replace) the format `name`, parsed by `parse(source) -> Document`, from a
    script or a test.

    A shortcut for a plugin whose `register_formats` makes this one call; returns that
    plugin (`docql_sqlite.plugins.pm.unregister(it)` takes the format away again).
    """
    if not isinstance(parse, str):
        _check_signature(name, parse)  # refused here, before the table changes
    return plugins.add(HOOK, lambda add: add(name, parse, extensions))


def formats() -> Formats:
    """The table of formats: built-ins, then plugins (a later registration of a name or an
    extension replaces an earlier one, so a plugin may replace a built-in parser)."""
    try:
        return plugins.table(HOOK, _build)
    except plugins.PluginFailed as failed:
        raise IngestError(f"parser {failed.message}") from failed.cause


def load_plugins() -> None:
    """Load the installed plugins now, raising `IngestError` for a broken one (the older
    API's name for building the table: `formats()`)."""
    formats()


def available_formats() -> list[str]:
    """The name of every registered format, built-ins first."""
    return list(formats().parsers)


def _build(registrations: list[plugins.Registration]) -> Formats:
    parsers: dict[str, Format] = {}
    extensions: dict[str, str] = {}
    for reg in registrations:
        try:
            name, parse, exts = _arguments(*reg.args, **reg.kwargs)
            if not isinstance(parse, str):
                _check_signature(name, parse)
        except (IngestError, TypeError) as exc:
            detail = exc.message if isinstance(exc, IngestError) else f"bad arguments ({exc})"
            if reg.entry is None:
                raise IngestError(f"format from {reg.origin}: {detail}") from None
            raise IngestError(f"parser plugin '{reg.plugin}' failed to load: {detail}") from None
        parsers[name] = Format(name, parse)
        for ext in exts:
            extensions[ext.lower().lstrip(".")] = name
    return Formats(MappingProxyType(parsers), MappingProxyType(extensions))


def _arguments(
    name: str, parse: ParseFunc | str, extensions: Iterable[str] = ()
) -> tuple[str, ParseFunc | str, tuple[str, ...]]:
    """What `register(name, parse, extensions)` was called with, or TypeError."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"a format's name must be a non-empty string, got {name!r}")
    if isinstance(extensions, str):  # register("org", parse, "org"): one, not three letters
        extensions = (extensions,)
    return name, parse, tuple(extensions)


def _check_signature(name: str, parse: ParseFunc) -> None:
    """Refuse a parser that cannot be called as parse(source), with a pointer to the fix."""
    try:
        inspect.signature(parse).bind(None)
    except TypeError:
        raise IngestError(
            f"the parser for format '{name}' cannot be called as parse(source) -> Document "
            f"(the old parse(source, text) signature is gone: decode with "
            f"docql_sqlite.ingest.read.parse_decoded(source, parse_text))"
        ) from None
    except ValueError:
        pass  # no signature to inspect (some builtins): trust it


def extension_of(path: str) -> str:
    """What follows the last '.' of the name, lowercased ('' for none): pathlib's `suffix`,
    in string operations (a walk asks for every file it sees; pathlib costs ~5x more)."""
    if "://" in path:  # a URL: its query string is not part of the name (a file may hold '?')
        path = path.split("?")[0]
    name = path.rpartition("/")[2]
    if not name or name == ".":  # a trailing '/' or '.': pathlib's reading of such names
        name = PurePosixPath(path).name
    dot = name.rfind(".")
    return name[dot + 1 :].lower() if 0 < dot < len(name) - 1 else ""


# Compressions a document's name may end with (`README.md.gz`, `changelog.Debian.gz`:
# Debian compresses most of /usr/share/doc): `index --decompress` reads the document
# inside (`read.read_source`), as ripgrep's `--search-zip` does; without it they are
# left out, and counted apart so that the run says so.
COMPRESSIONS = {"gz": "gzip", "bz2": "bz2", "xz": "lzma"}
# A compressed file whose inner name has no format of ours is sniffed after it is
# decompressed (a Debian changelog, NEWS.Debian): this marks the format "read inside".
SNIFF = ""


def compression_of(path: str) -> str | None:
    """The compression suffix of `path` (`gz`, `bz2`, `xz`), or None."""
    ext = extension_of(path)
    return ext if ext in COMPRESSIONS else None


def decompressed_name(path: str) -> str:
    """`path` without its compression suffix (`a/README.md.gz` → `a/README.md`)."""
    ext = compression_of(path)
    return path[: -len(ext) - 1] if ext else path


def format_for_path(path: str, decompress: bool = False) -> str | None:
    """The format a file's name implies, or None when the name says nothing we index.
    With `decompress`, a compressed file's is its inner name's (`README.md.gz`: markdown;
    SNIFF when that says nothing: `changelog.Debian.gz`); code inside is read as text
    (a compressed example is read, not parsed for its symbols)."""
    ext = extension_of(path)
    if ext in COMPRESSIONS:
        if not decompress:
            return None
        # (a compressed `changelog.Debian.gz` is sniffed, as before the by-name rule)
        inner = _named_format(path[: -len(ext) - 1], by_name=False)
        return SNIFF if inner is None else ("text" if inner == "code" else inner)
    return _named_format(path, by_name=True)


def _named_format(path: str, by_name: bool) -> str | None:
    """The format a file's name implies (not compressed); `by_name`: a project text whose
    extension names no format is text (`_text_by_name`)."""
    ext = extension_of(path)
    if ext:
        found = formats().extensions.get(ext)
        if found is None and _MAN_SECTION.fullmatch(ext) and _in_man_folder(path):
            return "man"  # `man1/ls.1`, `man3/SSL_new.3ssl`
        if found is None and _INFO_PART.fullmatch(ext):
            return "info"  # a split Info file's part: `find.info-2`
        if found is None and by_name and _text_by_name(path):
            return "text"  # `README.Debian`, `TODO.Debian`, `README.source`, `INSTALL.unix`
        if found is None and ext == "json" and is_manifest(path):
            return "text"  # `package.json`, `tsconfig.json`: not JSON at large
        return found
    name = PurePosixPath(path).name.lower()
    if name in shebang.NAMED_SCRIPTS:
        return "code"  # `Rakefile`, `Gemfile`: Ruby
    return "text" if name in TEXT_NAMES or name in BUILD_NAMES else None


# JSON files a project writes by hand to say how it is built: its scripts, dependencies and
# compiler settings ("which test command does package.json run"). JSON at large stays out:
# lock files (`package-lock.json`) and data dumps would drown the docs.
def _text_by_name(path: str) -> bool:
    """Whether a file whose extension names no format is one of the project texts of
    `TEXT_NAMES` by what comes before its first dot: Debian's `README.Debian` (86 of this
    machine's packages explain their Debian setup in one), `TODO.Debian`,
    `README.source`, `INSTALL.unix`, `COPYING.LIB`."""
    name = PurePosixPath(path).name.lower()
    first = name.partition(".")[0]
    return (first in TEXT_NAMES or first in BUILD_NAMES) and extension_of(name) not in _NOT_TEXT


# Extensions a file named like a project text may have that are no text (`LICENSE.png`).
_NOT_TEXT = frozenset(
    "png jpg jpeg gif svg ico bmp webp tif tiff zip tar jar whl exe dll so o a bin dat db "
    "sqlite pyc class woff woff2 ttf otf mp3 mp4 wav ogg".split()
)


# A first line naming Emacs's Org mode (`# doc/DETAILS  -*- org -*-`, `-*- mode: org -*-`):
# GnuPG's DETAILS opens with `#` comment lines a Markdown sniff took for headings.
_ORG_MODE_LINE = re.compile(rb"-\*-[^\n]*?\b(?:mode:[ \t]*)?org\b[^\n]*?-\*-", re.I)


# A manual page's name ends with its section (`ls.1`, `SSL_new.3ssl`, `Carp.3perl`); so
# do rotated logs (`syslog.1`), so such a name is a manual page under a `man*` folder only.
_MAN_SECTION = re.compile(r"[1-9n][a-z]{0,10}")
_MAN_FOLDER = re.compile(r"(?:^|/)(?:man|man[1-9n][a-z]*|sman\d*)/")


_INFO_PART = re.compile(r"info-\d+")


def _in_man_folder(path: str) -> bool:
    return _MAN_FOLDER.search(path.replace("\\", "/").lower()) is not None


def looks_like_man(data: bytes) -> bool:
    """Whether a file opens as a manual page: `.TH` (mdoc's `.Dd`/`.Dt`, an alias page's
    `.so`) before any line of text, after comments and requests (`.ds`, `.de`)."""
    for raw in data[:4096].split(b"\n")[:60]:
        line = raw.strip()
        if line.startswith((b".TH ", b".Dd", b".Dt ", b".so ")):
            return True
        if line and not line.startswith((b".", b"'")):
            return False  # text before the page's header (requests such as `.ds` may come)
    return False


def sniff_format(data: bytes) -> str:
    """Guess a format from content, for files named without a known extension and URLs."""
    head = data[:2048].lstrip()
    lowered = head[:512].lower()
    if _ORG_MODE_LINE.search(head.split(b"\n", 1)[0]):
        return "org"
    if head.startswith((b".", b"'")) and looks_like_man(data):
        return "man"
    if head.startswith(b"This is ") and b", produced by makeinfo" in head[:300]:
        return "info"
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"#!") and script_language(data[: shebang.HEAD_BYTES]) is not None:
        return "code"
    if head.startswith(b"PK\x03\x04") and b"word/" in data[:65536]:
        return "docx"
    if lowered.startswith((b"<!doctype html", b"<html")) or b"<html" in lowered:
        return "html"
    if head.startswith(b"---\n") or b"\n# " in head or head.startswith(b"# "):
        return "markdown"
    return "text"


def get_format(name: str) -> Format:
    try:
        return formats().parsers[name]
    except KeyError:
        raise IngestError(f"no parser for format '{name}'") from None
