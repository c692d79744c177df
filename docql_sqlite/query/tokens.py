"""DocQL lexing: `TokenType`, `Token`, `RegexLiteral` and `tokenize`.

This module owns the character level of the language (spec §2): what a name, a
string, a number, a regex and an operator look like, and how literals are decoded.
It knows only two bits of grammar context, both needed to lex correctly:

- a `/` starts a regex literal only where a value or argument is expected (right
  after an operator, or after `(` or `,`) — elsewhere `/` is not part of DocQL;
- a word right after `.` is always a NAME, so fields and functions may be called
  `contains`, `null` or `true` (`@.contains`) without clashing with keywords.

Tokens are produced lazily by `iter_tokens`, so a parser pulling from it reports
errors in source order (a grammar error before a bad character is reported first).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator

from docql_sqlite.errors import DocQLSyntaxError
from docql_sqlite.records import Record


class TokenType(enum.Enum):
    DOLLAR = "'$'"
    AT = "'@'"
    DOT = "'.'"
    LBRACKET = "'['"
    RBRACKET = "']'"
    LPAREN = "'('"
    RPAREN = "')'"
    COMMA = "','"
    COLON = "':'"
    STAR = "'*'"
    QUESTION = "'?'"
    BANG = "'!'"
    AND = "'&&'"
    OR = "'||'"
    OP = "an operator"  # value: the normalised operator, see OPERATORS
    NAME = "a name"  # value: the name as written
    STRING = "a string"  # value: decoded str
    NUMBER = "a number"  # value: int, or float when written with a '.'
    REGEX = "a regex"  # value: RegexLiteral
    TRUE = "'true'"  # value: True
    FALSE = "'false'"  # value: False
    NULL = "'null'"  # value: None
    EOF = "the end of the query"


class RegexLiteral(Record, frozen=True):
    """The value of a `/pattern/flags` token.

    `pattern` is the source text between the slashes, verbatim (`\\/` stays `\\/`,
    which Python's `re` reads as `/`); `flags` is the set of flags, deduplicated and
    in the canonical order `ims`.
    """

    pattern: str
    flags: str


TokenValue = str | int | float | bool | None | RegexLiteral


class Token(Record, frozen=True):
    """One lexeme. `text` is the source spelling; `offset` is 0-based into the source.

    The EOF token has empty text and points one past the last non-whitespace character,
    so "expected ']'" at the end of input lands right after what the user typed.
    """

    type: TokenType
    text: str
    value: TokenValue
    offset: int


# Operator spellings (symbols and case-insensitive words) → normalised operator.
OPERATORS: dict[str, str] = {
    "==": "==",
    "=": "==",
    "!=": "!=",
    "~=": "contains",
    "contains": "contains",
    "=~": "=~",
    ">": ">",
    ">=": ">=",
    "<": "<",
    "<=": "<=",
    "startswith": "startswith",
    "starts with": "startswith",
    "endswith": "endswith",
    "ends with": "endswith",
}

REGEX_FLAGS = "ims"

_PUNCTUATION = {
    "$": TokenType.DOLLAR,
    "@": TokenType.AT,
    ".": TokenType.DOT,
    "[": TokenType.LBRACKET,
    "]": TokenType.RBRACKET,
    "(": TokenType.LPAREN,
    ")": TokenType.RPAREN,
    ",": TokenType.COMMA,
    ":": TokenType.COLON,
    "*": TokenType.STAR,
    "?": TokenType.QUESTION,
}
_TWO_CHAR = {"==", "!=", "~=", "=~", ">=", "<=", "&&", "||"}
_LITERAL_WORDS = {
    "true": (TokenType.TRUE, True),
    "false": (TokenType.FALSE, False),
    "null": (TokenType.NULL, None),
}
_VALUE_CONTEXT = {TokenType.OP, TokenType.LPAREN, TokenType.COMMA}
_SIMPLE_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "n": "\n", "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")
# Lone characters that are half of an operator: say what the user probably meant.
_HALF_OPERATORS = {"&": "'&&'", "|": "'||'", "~": "'~=' or '=~'"}
_SMART_QUOTES = "\u201c\u201d\u2018\u2019\u300c\u300d"


def _is_digit(ch: str) -> bool:
    # ASCII only: str.isdigit() accepts '²' and '٣', which int() then rejects.
    return "0" <= ch <= "9"


def _is_name_start(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


def _is_name_char(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


def _shown(ch: str) -> str:
    """A character as an error message quotes it (escapes for invisible ones)."""
    return ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")


def tokenize(text: str) -> list[Token]:
    """All tokens of `text`, ending with one EOF token. Raises DocQLSyntaxError."""
    return list(iter_tokens(text))


def iter_tokens(text: str) -> Iterator[Token]:
    """The tokens of `text`, lazily, ending with one EOF token."""
    return _Lexer(text).tokens()


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.prev: TokenType | None = None

    def error(self, message: str, offset: int) -> DocQLSyntaxError:
        return DocQLSyntaxError(message, source=self.text, offset=offset)

    def tokens(self) -> Iterator[Token]:
        text = self.text
        while True:
            while self.pos < len(text) and text[self.pos].isspace():
                self.pos += 1
            if self.pos >= len(text):
                yield Token(TokenType.EOF, "", None, len(text.rstrip()))
                return
            token = self.next_token()
            self.prev = token.type
            yield token

    def next_token(self) -> Token:
        text, start = self.text, self.pos
        ch = text[start]
        if ch in _PUNCTUATION:
            self.pos += 1
            return Token(_PUNCTUATION[ch], ch, None, start)
        if ch in "\"'":
            return self.string()
        if ch == "/" and self.prev in _VALUE_CONTEXT:
            return self.regex()
        if _is_digit(ch) or (ch == "-" and _is_digit(text[start + 1 : start + 2])):
            return self.number()
        if _is_name_start(ch):
            return self.word()
        if ch in "=!~<>&|":
            return self.operator()
        message = f"unexpected character '{_shown(ch)}'"
        if ch in _SMART_QUOTES:
            message += "; use straight quotes \" or '"
        elif ch.isalpha():
            message += "; strings need quotes"
        raise self.error(message, start)

    def operator(self) -> Token:
        text, start = self.text, self.pos
        two = text[start : start + 2]
        if two in _TWO_CHAR:
            self.pos += 2
            if two == "&&":
                return Token(TokenType.AND, two, None, start)
            if two == "||":
                return Token(TokenType.OR, two, None, start)
            return Token(TokenType.OP, two, OPERATORS[two], start)
        ch = text[start]
        if ch == "!":
            self.pos += 1
            return Token(TokenType.BANG, ch, None, start)
        if ch in "=<>":
            self.pos += 1
            return Token(TokenType.OP, ch, OPERATORS[ch], start)
        raise self.error(f"unexpected character '{ch}'; did you mean {_HALF_OPERATORS[ch]}?", start)

    def word(self) -> Token:
        text, start = self.text, self.pos
        end = start
        while end < len(text) and _is_name_char(text[end]):
            end += 1
        self.pos = end
        word = text[start:end]
        if self.prev is TokenType.DOT:
            return Token(TokenType.NAME, word, word, start)
        lower = word.lower()
        if lower in ("starts", "ends"):
            # `starts with` / `ends with`: two words, any whitespace between them.
            after = end
            while after < len(text) and text[after].isspace():
                after += 1
            tail = after + 4
            if (
                after > end
                and text[after:tail].lower() == "with"
                and not (tail < len(text) and _is_name_char(text[tail]))
            ):
                self.pos = tail
                return Token(TokenType.OP, text[start:tail], OPERATORS[lower + " with"], start)
        if lower in OPERATORS:
            return Token(TokenType.OP, word, OPERATORS[lower], start)
        if lower in _LITERAL_WORDS:
            kind, value = _LITERAL_WORDS[lower]
            return Token(kind, word, value, start)
        return Token(TokenType.NAME, word, word, start)

    def number(self) -> Token:
        text, start = self.text, self.pos
        end = start + 1
        while end < len(text) and _is_digit(text[end]):
            end += 1
        is_float = text[end : end + 1] == "." and _is_digit(text[end + 1 : end + 2])
        if is_float:
            end += 2
            while end < len(text) and _is_digit(text[end]):
                end += 1
        self.pos = end
        spelled = text[start:end]
        try:
            value: int | float = float(spelled) if is_float else int(spelled)
        except ValueError:  # int() refuses more than sys.get_int_max_str_digits() digits
            raise self.error("number too long", start) from None
        if is_float and value in (float("inf"), float("-inf")):
            raise self.error("number out of range", start)
        return Token(TokenType.NUMBER, spelled, value, start)

    def string(self) -> Token:
        text, start = self.text, self.pos
        quote = text[start]
        pos = start + 1
        out: list[str] = []
        while True:
            if pos >= len(text):
                raise self.error("unterminated string", start)
            ch = text[pos]
            if ch == quote:
                break
            if ch != "\\":
                out.append(ch)
                pos += 1
                continue
            escaped = text[pos + 1 : pos + 2]
            if not escaped:
                raise self.error("unterminated string", start)
            if escaped in _SIMPLE_ESCAPES:
                out.append(_SIMPLE_ESCAPES[escaped])
                pos += 2
            elif escaped == "u":
                char, pos = self.unicode_escape(pos)
                out.append(char)
            else:
                # Kept as written: `=~ "\d+"` should mean the regex the user typed.
                out.append("\\" + escaped)
                pos += 2
        self.pos = pos + 1
        value = "".join(out)
        lone = next((c for c in value if "\ud800" <= c <= "\udfff"), None)
        if lone is not None:
            # written as itself (a Python string can hold one): as its `\uD800` escape, no
            # UTF-8 encodes it (and the canonical form would write it as that escape)
            raise self.error(f"lone surrogate '\\u{ord(lone):04x}' in string", start)
        return Token(TokenType.STRING, text[start : self.pos], value, start)

    def unicode_escape(self, pos: int) -> tuple[str, int]:
        """Decode `\\uXXXX` at `pos` (a surrogate pair counts as one character)."""
        code = self.hex4(pos)
        if 0xD800 <= code <= 0xDBFF and self.text[pos + 6 : pos + 8] == "\\u":
            low = self.hex4(pos + 6)
            if 0xDC00 <= low <= 0xDFFF:
                return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), pos + 12
        if 0xD800 <= code <= 0xDFFF:
            # A lone surrogate cannot be encoded as UTF-8, so SQLite could never match it.
            raise self.error(f"lone surrogate '{self.text[pos : pos + 6]}' in string", pos)
        return chr(code), pos + 6

    def hex4(self, pos: int) -> int:
        digits = self.text[pos + 2 : pos + 6]
        if len(digits) != 4 or not set(digits) <= _HEX:
            raise self.error("invalid \\u escape; expected 4 hex digits (\\u00e9)", pos)
        return int(digits, 16)

    def regex(self) -> Token:
        text, start = self.text, self.pos
        pos = start + 1
        in_class = False
        while True:
            if pos >= len(text):
                raise self.error("unterminated regex", start)
            ch = text[pos]
            if ch == "\\":
                if pos + 1 >= len(text):
                    raise self.error("unterminated regex", start)
                pos += 2
                continue
            if in_class:
                in_class = ch != "]"
            elif ch == "[":
                # A '/' inside [...] does not end the regex (as in JavaScript). Like
                # Python's re, a ']' first in the class (after an optional '^') is literal.
                in_class = True
                if text[pos + 1 : pos + 2] == "^":
                    pos += 1
                if text[pos + 1 : pos + 2] == "]":
                    pos += 1
            elif ch == "/":
                break
            pos += 1
        pattern = text[start + 1 : pos]
        pos += 1
        seen: set[str] = set()
        while pos < len(text) and _is_name_start(text[pos]):
            flag = text[pos]
            if flag not in REGEX_FLAGS:
                raise self.error(f"unknown regex flag '{flag}'; use i, m or s", pos)
            seen.add(flag)
            pos += 1
        self.pos = pos
        flags = "".join(f for f in REGEX_FLAGS if f in seen)
        return Token(TokenType.REGEX, text[start:pos], RegexLiteral(pattern, flags), start)
