"""Lexer for the DocQL query language used by the Lumen console.

The lexer turns a query such as ``$.toc[?(@.level==1)].title`` into a flat list of
tokens. It never raises on the first bad character: it records a ``LexerError``
with the offset and keeps going, so the console can underline every problem at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, auto
from typing import Iterator


class TokenKind(Enum):
    """Kinds of tokens produced by :class:`DocQLLexer`."""

    ROOT = auto()
    DOT = auto()
    NAME = auto()
    STRING = auto()
    NUMBER = auto()
    LBRACKET = auto()
    RBRACKET = auto()
    LPAREN = auto()
    RPAREN = auto()
    OPERATOR = auto()
    AT = auto()
    QUESTION = auto()
    EOF = auto()


@dataclass(frozen=True)
class Token:
    kind: TokenKind
    text: str
    offset: int


class LexerError(Exception):
    """A character or literal the lexer could not understand."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} at offset {offset}")
        self.offset = offset


OPERATORS = ("==", "!=", "<=", ">=", "~=", "&&", "||", "<", ">", "!")
SINGLE = {
    "$": TokenKind.ROOT, ".": TokenKind.DOT, "[": TokenKind.LBRACKET,
    "]": TokenKind.RBRACKET, "(": TokenKind.LPAREN, ")": TokenKind.RPAREN,
    "@": TokenKind.AT, "?": TokenKind.QUESTION,
}


class DocQLLexer:
    """Turns DocQL source text into tokens.

    Usage::

        tokens = DocQLLexer('$.content.heading("架构")').tokenize()
    """

    class Cursor:
        """Position bookkeeping, kept separate so it can be snapshotted."""

        def __init__(self, text: str) -> None:
            self.text = text
            self.pos = 0

        def peek(self, ahead: int = 0) -> str:
            i = self.pos + ahead
            return self.text[i] if i < len(self.text) else ""

        def advance(self, n: int = 1) -> str:
            chunk = self.text[self.pos:self.pos + n]
            self.pos += n
            return chunk

    def __init__(self, source: str) -> None:
        self.source = source
        self.cursor = DocQLLexer.Cursor(source)
        self.errors: list[LexerError] = []

    def tokenize(self) -> list[Token]:
        """Return all tokens, ending with an EOF token."""
        return list(self.iter_tokens())

    def iter_tokens(self) -> Iterator[Token]:
        c = self.cursor
        while c.pos < len(self.source):
            ch = c.peek()
            if ch.isspace():
                c.advance()
            elif ch in "\"'":
                yield self.read_string(ch)
            elif ch.isdigit() or (ch == "-" and c.peek(1).isdigit()):
                yield self.read_number()
            elif ch.isalpha() or ch == "_":
                yield self.read_name()
            elif op := self.match_operator():
                yield Token(TokenKind.OPERATOR, op, c.pos - len(op))
            elif ch in SINGLE:
                yield Token(SINGLE[ch], c.advance(), c.pos - 1)
            else:
                self.errors.append(LexerError(f"unexpected character {ch!r}", c.pos))
                c.advance()
        yield Token(TokenKind.EOF, "", c.pos)

    def read_string(self, quote: str) -> Token:
        start = self.cursor.pos
        self.cursor.advance()
        out = []
        while (ch := self.cursor.peek()) and ch != quote:
            if ch == "\\":
                self.cursor.advance()
                ch = self.cursor.peek()
            out.append(self.cursor.advance())
        if not self.cursor.peek():
            self.errors.append(LexerError("unterminated string", start))
        else:
            self.cursor.advance()
        return Token(TokenKind.STRING, "".join(out), start)

    def read_number(self) -> Token:
        start = self.cursor.pos
        self.cursor.advance()
        while self.cursor.peek().isdigit() or self.cursor.peek() == ".":
            self.cursor.advance()
        return Token(TokenKind.NUMBER, self.source[start:self.cursor.pos], start)

    def read_name(self) -> Token:
        start = self.cursor.pos
        while self.cursor.peek().isalnum() or self.cursor.peek() == "_":
            self.cursor.advance()
        return Token(TokenKind.NAME, self.source[start:self.cursor.pos], start)

    def match_operator(self) -> str | None:
        for op in OPERATORS:
            if self.source.startswith(op, self.cursor.pos):
                self.cursor.advance(len(op))
                return op
        return None


def tokenize(source: str) -> list[Token]:
    """Convenience wrapper: tokenize and raise the first error, if any."""
    lexer = DocQLLexer(source)
    tokens = lexer.tokenize()
    if lexer.errors:
        raise lexer.errors[0]
    return tokens
