"""Read one file into a `Source`, and decode text: the only ingest code that opens files.

Bad input raises `IngestError` with a reason a person can act on; the caller records it
and goes on with the other files.
"""

from __future__ import annotations

import codecs
import hashlib
import os
from pathlib import Path
from stat import S_ISDIR, S_ISREG

from ..errors import IngestError
from ..model import Source

DEFAULT_MAX_BYTES = 50 * 1024 * 1024


def read_source(
    path: Path, display_path: str, *, max_bytes: int = DEFAULT_MAX_BYTES, fmt: str | None = None
) -> Source:
    """Read `path` (a regular file) whole, with the size cap checked before reading."""
    try:
        if path.is_symlink() and not path.exists():
            raise IngestError(f"broken symlink (points to '{os.readlink(path)}')", display_path)
        stat = path.stat()
        if not S_ISREG(stat.st_mode) and not S_ISDIR(stat.st_mode):
            # opening a FIFO blocks until someone writes to it; a device may never end
            raise IngestError(
                "not a regular file (a FIFO, socket or device); not indexed", display_path
            )
        if stat.st_size > max_bytes:
            raise IngestError(
                f"file too large ({stat.st_size:,} bytes; the limit is {max_bytes:,}; raise it "
                f"with --max-bytes)",
                display_path,
            )
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
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
    if len(data) > max_bytes:
        raise IngestError(
            f"file too large (over the {max_bytes:,}-byte limit; raise it with --max-bytes)",
            display_path,
        )
    return Source(
        path=display_path,
        uri=os.path.abspath(path),  # not resolved: two symlinks to one file are two documents
        data=data,
        sha256=hashlib.sha256(data).hexdigest(),
        mtime_ns=stat.st_mtime_ns,
        format=fmt,
    )


def decode_text(data: bytes, path: str = "") -> tuple[str, list[str]]:
    """Decode bytes to text with '\\n' line ends; returns (text, warnings).

    UTF-8 (with or without BOM) and UTF-16/32 with a BOM are decoded exactly. Other text
    falls back to cp1252/Latin-1 with a warning. Empty and binary data (any NUL) are errors.
    """
    if not data:
        raise IngestError("empty file (0 bytes)", path)
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
        raise IngestError(
            f"binary file (contains NUL bytes, the first at byte {nul:,}); not indexed", path
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = _decode_legacy(data, path, exc)
        warnings.append(f"not valid UTF-8 (byte {exc.start}); decoded as cp1252/Latin-1")
    return normalize_newlines(text), warnings


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
