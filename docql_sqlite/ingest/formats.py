"""Which parser handles a file: the PARSERS registry, extension table and content sniffing.

A parser is `parse(source: Source) -> Document`, one signature for every format: it
gets the raw bytes (`source.data`) and the path users see (`source.path`), and decodes
text itself (`read.parse_decoded` / `read.decode_text`, the same decoding the built-in
text formats use). The built-ins are each module's `parse`, imported on first use.

Plugins add formats through the `docql_sqlite.parsers` entry-point group: each entry
point is a callable that receives `register(name, parse, extensions)` (docs/design.md).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import PurePosixPath

from ..errors import IngestError
from ..model import Document, Source

ParseFunc = Callable[[Source], Document]


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
    name: str, parse: ParseFunc | str, extensions: tuple[str, ...] | list[str] = ()
) -> None:
    """Add (or replace) the format `name`, parsed by `parse(source) -> Document`."""
    _register_builtins()  # built-ins first, so a plugin registering the same name overrides them
    if not isinstance(parse, str):
        _check_signature(name, parse)
    PARSERS[name] = Format(name, parse)
    for ext in extensions:
        EXTENSIONS[ext.lower().lstrip(".")] = name


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


def _register_builtins() -> None:
    global _builtins_registered
    if _builtins_registered:
        return
    _builtins_registered = True
    from .grammars import code_extensions

    package = __name__.rsplit(".", 1)[0]
    register("markdown", f"{package}.markdown", ("md", "markdown", "mdown", "mkd", "mdx"))
    register("rst", f"{package}.rst", ("rst", "rest"))
    register("html", f"{package}.html", ("html", "htm", "xhtml"))
    register("pdf", f"{package}.pdf", ("pdf",))
    register("docx", f"{package}.docx", ("docx",))
    # Configuration and API-description files are read as text: people ask where a port
    # or a route is defined. JSON is not (lock files and data dumps would drown the docs).
    register(
        "text",
        f"{package}.plaintext",
        ("txt", "text", "log", "yaml", "yml", "toml", "ini", "cfg", "conf"),
    )
    register("notebook", f"{package}.notebook", ("ipynb",))
    register("code", f"{package}.code", code_extensions())


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
