"""Which parser handles a file: the PARSERS registry, extension table and content sniffing.

A parser is `parse(source, text) -> Document`: `text` is the decoded text for text
formats and None for binary ones (PDF, DOCX). Plugins add formats through the
`docql_sqlite.parsers` entry-point group: each entry point is a callable that receives
`register(name, parse, extensions, binary=False)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import PurePosixPath

from ..errors import IngestError
from ..model import Document, Source

ParseFunc = Callable[[Source, "str | None"], Document]


@dataclass(frozen=True, slots=True)
class Format:
    name: str
    parse: ParseFunc
    binary: bool = False


PARSERS: dict[str, Format] = {}
EXTENSIONS: dict[str, str] = {}  # extension without dot, lower case → format name
# Extension-less files worth indexing by name.
TEXT_NAMES = {
    "readme",
    "license",
    "licence",
    "copying",
    "changelog",
    "authors",
    "contributing",
    "notice",
    "todo",
}
_plugins_loaded = False
_builtins_registered = False


def register(
    name: str, parse: ParseFunc, extensions: tuple[str, ...] | list[str] = (), binary: bool = False
) -> None:
    _register_builtins()  # built-ins first, so a plugin registering the same name overrides them
    PARSERS[name] = Format(name, parse, binary)
    for ext in extensions:
        EXTENSIONS[ext.lower().lstrip(".")] = name


def _markdown(source: Source, text: str | None) -> Document:
    from .markdown import parse_markdown

    return parse_markdown(text or "", source.path)


def _code(source: Source, text: str | None) -> Document:
    from .code import parse_code_text
    from .grammars import language_for_extension

    language = language_for_extension(extension_of(source.path)) or "text"
    return parse_code_text(text or "", source.path, language)


def _pdf(source: Source, text: str | None) -> Document:
    from .pdf import parse_pdf

    return parse_pdf(source.data, source.path)


def _docx(source: Source, text: str | None) -> Document:
    from .docx import parse_docx

    return parse_docx(source.data, source.path)


def _rst(source: Source, text: str | None) -> Document:
    from .rst import parse_rst

    return parse_rst(text or "", source.path)


def _html(source: Source, text: str | None) -> Document:
    from .html import parse_html

    return parse_html(text or "", source.path)


def _text(source: Source, text: str | None) -> Document:
    from .plaintext import parse_text

    return parse_text(text or "", source.path)


def _notebook(source: Source, text: str | None) -> Document:
    from .notebook import parse_notebook

    return parse_notebook(text or "", source.path)


def _register_builtins() -> None:
    global _builtins_registered
    if _builtins_registered:
        return
    _builtins_registered = True
    from .grammars import LANGUAGES

    register("markdown", _markdown, ("md", "markdown", "mdown", "mkd", "mdx"))
    register("rst", _rst, ("rst", "rest"))
    register("html", _html, ("html", "htm", "xhtml"))
    register("pdf", _pdf, ("pdf",), binary=True)
    register("docx", _docx, ("docx",), binary=True)
    register("text", _text, ("txt", "text", "log"))
    register("notebook", _notebook, ("ipynb",))
    code_exts = [ext for spec in LANGUAGES.values() for ext in spec.extensions]
    register("code", _code, code_exts)


def load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for ep in entry_points(group="docql_sqlite.parsers"):
        try:
            ep.load()(register)
        except Exception as exc:  # a broken plugin must not break indexing
            raise IngestError(f"parser plugin '{ep.name}' failed to load: {exc}") from exc


def extension_of(path: str) -> str:
    if "://" in path:  # a URL: its query string is not part of the name (a file may hold '?')
        path = path.split("?")[0]
    suffix = PurePosixPath(path).suffix
    return suffix[1:].lower() if suffix else ""


def _ensure_registered() -> None:
    _register_builtins()
    load_plugins()


def format_for_path(path: str) -> str | None:
    """The format a file's name implies, or None when the name says nothing we index."""
    _ensure_registered()
    ext = extension_of(path)
    if ext:
        return EXTENSIONS.get(ext)
    name = PurePosixPath(path).name.lower()
    return "text" if name in TEXT_NAMES else None


def sniff_format(data: bytes) -> str:
    """Guess a format from content, for files named without a known extension and URLs."""
    head = data[:2048].lstrip()
    lowered = head[:512].lower()
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"PK\x03\x04") and b"word/" in data[:65536]:
        return "docx"
    if lowered.startswith((b"<!doctype html", b"<html")) or b"<html" in lowered:
        return "html"
    if head.startswith(b"---\n") or b"\n# " in head or head.startswith(b"# "):
        return "markdown"
    return "text"


def get_format(name: str) -> Format:
    _ensure_registered()
    try:
        return PARSERS[name]
    except KeyError:
        raise IngestError(f"no parser for format '{name}'") from None
