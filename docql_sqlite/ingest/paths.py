"""File names that are not valid UTF-8: shown escaped, kept losslessly.

POSIX file names are bytes. Python hands undecodable bytes over as lone surrogates
(`surrogateescape`), which SQLite text cannot hold. The index stores such a name in its
text columns (`documents.path`, `documents.uri`, `ingest_errors`) with each undecodable
byte written as `\\xNN` (as `ls -b` and Python's `backslashreplace` do), and the exact
bytes of the absolute path in `documents.uri_bytes` (NULL for the usual, valid names), so
the file can always be re-opened: `os.fsdecode(uri_bytes)`.
"""

from __future__ import annotations

import os
import re

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+://")


def is_url(text: str) -> bool:
    """True when `text` looks like `scheme://...`. Any scheme counts, so that `ftp://h/x` gets
    fetch_url's clear "unsupported URL scheme" error instead of being taken for a local path.
    (Here, not in `fetch.py`: a run over local files need not import urllib, http and ssl.)"""
    return bool(_URL.match(text.strip()))


def shown(path: str) -> str:
    """`path` as stored and printed: undecodable bytes as `\\xNN`; valid text unchanged."""
    if path.isascii():
        return path
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that is not an escaped byte (not from the OS)
        return path.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def raw_bytes(path: str) -> bytes | None:
    """The bytes of `path` when its text form is lossy (see `shown`), else None."""
    if path.isascii() or shown(path) == path:
        return None
    return os.fsencode(path)
