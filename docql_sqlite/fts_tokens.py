"""FTS5's `unicode61 remove_diacritics 2` tokenizer, in Python, for engines without it.

PostgreSQL's parser splits text its own way ('foo.bar' and 'x@y.com' stay one token,
'Wörld' keeps its accent), so the PostgreSQL engine does not let it tokenize: the writer
turns the same CJK-spaced text as the FTS5 columns (`text.fts_text`) into these tokens
and stores them as a `tsvector` literal, and queries tokenize their terms the same way.
A word then matches on both engines alike (docs/scale-out.md lists the known edges).

unicode61: a token is a run of letters, numbers and private-use characters (categories
L*, N*, Co; combining marks stay inside the word); everything else separates. Tokens are
lower-cased and their diacritics removed.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# tsvector limits: a lexeme is at most 2047 bytes, a position at most 16383.
MAX_LEXEME_BYTES = 2046
MAX_POSITION = 16383


# Runs that may hold tokens: ASCII letters and digits (the ASCII token characters) and
# every non-ASCII character, which `_is_token_char` then decides one by one. Most text is
# ASCII, so most runs are whole tokens found by the regex engine, not by a Python loop.
_CANDIDATES = re.compile("[A-Za-z0-9\x80-\U0010ffff]+")


@lru_cache(maxsize=65536)
def _is_token_char(ch: str) -> bool:
    if ch.isascii():
        return ch.isalnum()
    category = unicodedata.category(ch)
    return category[0] in "LN" or category in ("Co", "Mn", "Mc")


def tokens(text: str) -> list[str]:
    """The normalised tokens of `text`, in order, as unicode61 indexes them."""
    found: list[str] = []
    for run in _CANDIDATES.findall(text):
        if run.isascii():
            found.append(normalise(run))
        else:
            found.extend(normalise(token) for token in _split(run))
    return [t for t in found if t]


def _split(run: str) -> list[str]:
    """The tokens of a run holding non-ASCII characters (separators among them split)."""
    parts: list[str] = []
    start = -1
    for i, ch in enumerate(run):
        if _is_token_char(ch):
            if start < 0:
                start = i
        elif start >= 0:
            parts.append(run[start:i])
            start = -1
    if start >= 0:
        parts.append(run[start:])
    return parts


@lru_cache(maxsize=65536)
def normalise(token: str) -> str:
    """Lower case without diacritics ('Wörld' → 'world', 'İ' → 'i')."""
    if token.isascii():
        return token.lower()
    decomposed = unicodedata.normalize("NFD", token.lower())
    return "".join(ch for ch in decomposed if unicodedata.category(ch) not in ("Mn", "Me"))


def quote_lexeme(token: str) -> str:
    """`token` as a quoted lexeme of a tsvector or tsquery literal (cut to the byte limit)."""
    return _lexeme(token)


def _lexeme(token: str) -> str:
    data = token.encode("utf-8", "surrogatepass")
    if len(data) > MAX_LEXEME_BYTES:
        token = data[:MAX_LEXEME_BYTES].decode("utf-8", "ignore")
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector_literal(title: str, body: str) -> str:
    """A `tsvector` text for one chunk: title tokens weighted A, body tokens B.

    The body's positions start two after the title's last, so a phrase never runs from
    the title into the body (they are separate columns in FTS5).
    """
    positions: dict[str, list[str]] = {}
    position = 0
    for weight, text in (("A", title), ("B", body)):
        for token in tokens(text):
            position = min(position + 1, MAX_POSITION)
            positions.setdefault(token, []).append(f"{position}{weight}")
        position += 1
    return " ".join(f"{_lexeme(tok)}:{','.join(pos)}" for tok, pos in positions.items())
