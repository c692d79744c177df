"""Read one file into a `Source`, and decode text: the only ingest code that opens files.

Bad input raises `IngestError` with a reason a person can act on; the caller records it
and goes on with the other files. A file that is deliberately not indexed (over the size
limit, empty) raises `Skip`, an `IngestError` the run counts as skipped, not failed.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import Any

from ..errors import IngestError
from ..model import Document, Source
from .formats import SNIFF, compression_of, sniff_format

DEFAULT_MAX_BYTES = 50 * 1024 * 1024
# PEP 263 coding cookie on line 1 or 2 (`# -*- coding: koi8-r -*-`, `# vim: set fileencoding=…`)
_CODING_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")

# Reasons a file could not be *read* (not what it contains): fixing them (chmod, a disk
# coming back) changes neither size nor mtime, so such a failure is retried every run.
UNREADABLE = (
    "permission denied",
    "file disappeared while indexing",
    "is a directory",
    "cannot read: ",
    "not a regular file",
)

# Skip kinds, the keys under which a run counts its skipped files.
SKIP_EMPTY = "empty file"
SKIP_TOO_LARGE = "over --max-bytes"
SKIP_COMPRESSED_BINARY = "compressed, not a document"
SKIP_REDIRECT = "a redirect page"
# The skips that say a file has no document (any more): a stored one is removed.
NO_DOCUMENT = frozenset({SKIP_EMPTY, SKIP_REDIRECT})


class Skip(IngestError):
    """This file is deliberately not indexed; `kind` is one of the SKIP_* names."""

    def __init__(self, kind: str, reason: str, path: str | None = None) -> None:
        super().__init__(reason, path)
        self.kind = kind


# How a file is read: in blocks, at most this many times when it keeps changing under us.
READ_BLOCK = 1 << 20
READ_ATTEMPTS = 3

# A test seam (tests/test_file_changes.py): when set, called as `read_hook(step, path)` at
# each step of reading a file, so that a test can change the file at an exact moment
# instead of racing a sleep: "stat" (after the first stat, before the open), "open" (after
# the open) and "block" (after each block). None in normal runs.
read_hook: Callable[[str, Path], None] | None = None


def read_source(
    path: Path,
    display_path: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    fmt: str | None = None,
    decompress: bool = False,
) -> Source:
    """Read `path` (a regular file) whole, with the size cap checked before reading.
    With `decompress`, a file named as compressed (`README.md.gz`, `formats.COMPRESSIONS`)
    is the document inside it (`_decompressed`: the cap holds for what it expands to).

    The bytes are one version of the file, never a mix: the file's identity, size, mtime
    and ctime must be the same before the open, after it, after the last block and (by
    path) at the end. A file that changed while it was read (modified, truncated, replaced)
    is read again, up to READ_ATTEMPTS times, then recorded as changing; one deleted
    while it was read is recorded as disappeared. Either way its last indexed version
    stays, and the next run, which sees another size or mtime, reads it again.
    """
    try:
        if path.is_symlink():
            problem = link_problem(path)
            if problem is not None:
                raise IngestError(problem, display_path)
        for _ in range(READ_ATTEMPTS):
            stat = path.stat()
            _check_readable(stat, max_bytes, display_path)
            data = _read_one_version(path, stat, max_bytes)
            if data is not None:
                break
        else:
            raise IngestError(
                f"changed while being read ({READ_ATTEMPTS} tries); not indexed this time "
                f"(its last indexed version is kept), the next run reads it again",
                display_path,
            )
    except IngestError:
        raise
    except PermissionError:
        raise IngestError("permission denied", display_path) from None
    except FileNotFoundError:
        raise IngestError("file disappeared while indexing", display_path) from None
    except IsADirectoryError:
        raise IngestError("is a directory", display_path) from None
    except OSError as exc:
        raise IngestError(f"cannot read: {exc.strerror or exc}", display_path) from None
    _within(data, max_bytes, display_path, TOO_LARGE)
    size, kind = None, compression_of(display_path)
    if kind is not None and not decompress and not fmt:
        raise IngestError(
            f"a compressed file (.{kind}): index --decompress reads the document inside",
            display_path,
        )
    if decompress and kind is not None:
        size, data = len(data), _decompressed(data, kind, max_bytes, display_path)
        if fmt == SNIFF:
            if b"\0" in data[:8192]:
                raise Skip(
                    SKIP_COMPRESSED_BINARY, "compressed binary data, not a document", display_path
                )
            # sniffed now, on the data inside; a script (`strace-graph.gz`, by its `#!`
            # line) is text, as code named inside a compressed name is (`formats`)
            fmt = sniff_format(data)
            fmt = "text" if fmt == "code" else fmt
    return Source(
        path=display_path,
        uri=os.path.abspath(path),  # not resolved: two symlinks to one file are two documents
        data=data,
        sha256=hashlib.sha256(data).hexdigest(),
        mtime_ns=stat.st_mtime_ns,
        format=fmt or None,
        size=size,
    )


# The first bytes of the compressed formats `--decompress` reads (`formats.COMPRESSIONS`).
_COMPRESSED_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
)


def _decompressed(data: bytes, kind: str, max_bytes: int, display_path: str) -> bytes:
    """The document inside compressed `data`, read in blocks and stopped past `max_bytes`
    (a small file can expand to gigabytes: never more than the cap is held)."""
    import bz2
    import gzip
    import io

    try:
        import lzma
    except ImportError:  # a Python built without it
        lzma = None  # type: ignore[assignment]
    if kind == "gz":
        stream: Any = gzip.GzipFile(fileobj=io.BytesIO(data))
    elif kind == "bz2":
        stream = bz2.BZ2File(io.BytesIO(data))
    elif lzma is not None:
        stream = lzma.LZMAFile(io.BytesIO(data))
    else:
        raise IngestError("cannot read .xz files: this Python has no lzma module", display_path)
    try:
        with stream:
            data = _read_capped(stream, max_bytes)
    except (OSError, EOFError, ValueError) as exc:
        # gzip.BadGzipFile and lzma.LZMAError are OSErrors; a cut file is an EOFError
        raise IngestError(f"not a valid .{kind} file: {exc}", display_path) from None
    _within(data, max_bytes, display_path, EXPANDS_TOO_LARGE)
    return data


TOO_LARGE = "file too large (over the {limit:,}-byte limit; raise it with --max-bytes)"
EXPANDS_TOO_LARGE = "decompresses to over the {limit:,}-byte limit (raise it with --max-bytes)"


def _within(data: bytes, max_bytes: int, display_path: str, message: str) -> None:
    """Skip the file (SKIP_TOO_LARGE, `message` with the limit) when `data` is over it."""
    if len(data) > max_bytes:
        raise Skip(SKIP_TOO_LARGE, message.format(limit=max_bytes), display_path)


def _read_capped(handle: Any, max_bytes: int, path: Path | None = None) -> bytes:
    """What `handle` reads, in READ_BLOCK blocks, up to `max_bytes` + 1 bytes (one more
    than the cap says it is over it). With `path`, `_hook` hears of each block."""
    blocks, size = [], 0
    while size <= max_bytes:
        block = handle.read(min(READ_BLOCK, max_bytes + 1 - size))
        if not block:
            break
        blocks.append(block)
        size += len(block)
        if path is not None:
            _hook("block", path)
    return b"".join(blocks)


def _check_readable(stat: os.stat_result, max_bytes: int, display_path: str) -> None:
    if not S_ISREG(stat.st_mode) and not S_ISDIR(stat.st_mode):
        # opening a FIFO blocks until someone writes to it; a device may never end
        raise IngestError(
            "not a regular file (a FIFO, socket or device); not indexed", display_path
        )
    if stat.st_size > max_bytes:
        raise Skip(
            SKIP_TOO_LARGE,
            f"file too large ({stat.st_size:,} bytes; the limit is {max_bytes:,}; raise it "
            f"with --max-bytes)",
            display_path,
        )


def _version(stat: os.stat_result) -> tuple[int, ...]:
    """What changes when a file is written, truncated or replaced."""
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def _read_one_version(path: Path, before: os.stat_result, max_bytes: int) -> bytes | None:
    """The file's bytes (at most max_bytes + 1), or None when it changed during the read."""
    _hook("stat", path)
    with open(path, "rb") as handle:
        opened = os.fstat(handle.fileno())
        _hook("open", path)
        data = _read_capped(handle, max_bytes, path)
        size = len(data)
        after = os.fstat(handle.fileno())
    now = path.stat()  # FileNotFoundError: deleted while read (the caller records it)
    versions = {_version(before), _version(opened), _version(after), _version(now)}
    if len(versions) != 1 or (size != after.st_size and size <= max_bytes):
        return None
    return data


def _hook(step: str, path: Path) -> None:
    if read_hook is not None:
        read_hook(step, path)


def link_problem(path: Path | str) -> str | None:
    """Why the symlink `path` cannot be followed (a loop, a missing target), or None."""
    try:
        os.stat(path)
    except OSError as exc:
        try:
            points_to = os.readlink(path)
        except OSError:
            points_to = "?"
        if exc.errno == errno.ELOOP:
            return f"symlink loop (points to '{points_to}', which leads back to itself)"
        if isinstance(exc, FileNotFoundError | NotADirectoryError):
            return f"broken symlink (points to '{points_to}')"
        return f"cannot follow symlink to '{points_to}': {exc.strerror or exc}"
    return None


def plain_lines(text: str) -> str:
    """`text` without a BOM and with `\n` line ends (CRLF and CR made `\n`): what every
    line-based reader reads, so its line numbers are the file's."""
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def repeated_character(text: str, characters: str, least: int = 1) -> str | None:
    """The character `text` is made of, repeated `least` times or more, when it is one of
    `characters`; else None. The underlines and rules of the line-based readers; not a
    regular expression, whose `([=-])\\1+` keeps a backtracking frame per repeat: 4 GB
    and seconds for a 50 MB line of `=`."""
    if len(text) < least or not text or text[0] not in characters:
        return None
    return text[0] if text.count(text[0]) == len(text) else None


def parse_decoded(
    source: Source,
    parse_text: Callable[[str, str], Document],
    *,
    coding_cookie: bool = False,
) -> Document:
    """Decode `source` and hand the text to `parse_text(text, path)`; the decoding
    warnings (a legacy codec guessed) come first in the document's warnings. This is the
    whole `parse(source)` of a text format (plugins may use it too)."""
    text, warnings = decode_text(source.data, source.path, coding_cookie=coding_cookie)
    document = parse_text(text, source.path)
    document.warnings[:0] = warnings
    return document


def decode_text(
    data: bytes, path: str = "", *, coding_cookie: bool = False
) -> tuple[str, list[str]]:
    """Decode bytes to text with '\\n' line ends; returns (text, warnings).

    UTF-8 (with or without BOM) and UTF-16/32 with a BOM are decoded exactly. With
    `coding_cookie` (source code), a PEP 263 declaration on line 1 or 2 names the codec,
    as Python itself reads the file. Other text falls back to cp1252/Latin-1 with a
    warning. Empty and binary data (any NUL) are errors.
    """
    if not data:
        raise Skip(SKIP_EMPTY, "empty file (0 bytes)", path)
    warnings: list[str] = []
    for bom, encoding in (
        (codecs.BOM_UTF32_LE, "utf-32-le"),
        (codecs.BOM_UTF32_BE, "utf-32-be"),
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                raise IngestError(
                    f"invalid {encoding.upper()} after its byte-order mark: {exc.reason} at byte "
                    f"{exc.start}",
                    path,
                ) from None
            if "\x00" in text:  # the same rule for UTF-16/32: a NUL character is binary
                raise IngestError(
                    f"binary file (contains NUL characters, the first at character "
                    f"{text.index(chr(0)):,}); not indexed",
                    path,
                )
            return normalize_newlines(text), warnings
    # A NUL byte anywhere (not only in the first 8 KB, git's probe) makes a file binary:
    # one rule for the whole file, so no NUL ever reaches the index from a text file.
    nul = data.find(b"\x00")
    if nul >= 0:
        packed = next((name for magic, name in _COMPRESSED_MAGIC if data.startswith(magic)), None)
        if packed is not None:  # a `.html` that is gzip data (a server's cached page)
            raise IngestError(
                f"{packed}-compressed data under a name without its extension; not indexed "
                f"(named with it, index --decompress reads the document inside)",
                path,
            )
        raise IngestError(
            f"binary file (contains NUL bytes, the first at byte {nul:,}); not indexed", path
        )
    declared = declared_coding(data) if coding_cookie else None
    if declared is not None:
        try:
            return normalize_newlines(data.decode(declared)), warnings
        except UnicodeDecodeError as exc:
            warnings.append(
                f"not valid {declared} as its coding declaration says (byte {exc.start}); "
                f"decoded as UTF-8 or cp1252/Latin-1"
            )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = _decode_legacy(data, path, exc)
        warnings.append(f"not valid UTF-8 (byte {exc.start}); decoded as cp1252/Latin-1")
    return normalize_newlines(text), warnings


def declared_coding(data: bytes) -> str | None:
    """The codec a PEP 263 cookie in the first two lines names, if Python knows it."""
    for line in data.split(b"\n", 2)[:2]:
        match = _CODING_COOKIE.match(line)
        if match:
            name = match.group(1).decode("ascii", "replace")
            try:
                return codecs.lookup(name).name
            except LookupError:
                return None
        if line.strip() and not line.lstrip().startswith(b"#"):
            return None  # PEP 263: line 2 counts only when line 1 is a comment or blank
    return None


def _decode_legacy(data: bytes, path: str, exc: UnicodeDecodeError) -> str:
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    # Latin-1 decodes anything; refuse what is clearly not text (many control characters).
    controls = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\n\r\f\v")
    if controls > max(8, len(text) // 100):
        raise IngestError(
            f"not text: invalid UTF-8 at byte {exc.start} and {controls} control characters", path
        )
    return text


def normalize_newlines(text: str) -> str:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text
