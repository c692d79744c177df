"""DocQL parsing: query text → `Query` tree (spec §2), by recursive descent.

This module owns the grammar: one `_parse_<rule>` method per rule of spec §2, operator
precedence (`!` > `&&` > `||`), and the syntax-level checks the spec assigns to
compilation but that need no index: a regex literal used with an operator other than
`=~` (DocQLTypeError) and regexes Python's `re` cannot compile (DocQLRegexError).

It does not know which roots, functions or fields exist; the compiler checks names,
using the offsets kept on the nodes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from docql_sqlite.errors import DocQLRegexError, DocQLSyntaxError, DocQLTypeError, QueryError
from docql_sqlite.query.nodes import (
    And,
    Call,
    Compare,
    Expr,
    Filter,
    Literal,
    Not,
    Or,
    Position,
    Property,
    Query,
    Regex,
    Slice,
    Step,
    Wildcard,
)
from docql_sqlite.query.tokens import RegexLiteral, Token, TokenType, iter_tokens

# Parentheses and '!' nest by recursion; a bound keeps hostile input from reaching
# Python's recursion limit (and keeps render/to_dict, also recursive, safe).
MAX_DEPTH = 64

_REGEX_FLAG_BITS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}
_VALUE_TOKENS = {
    TokenType.STRING: "string",
    TokenType.NUMBER: "number",
    TokenType.TRUE: "bool",
    TokenType.FALSE: "bool",
    TokenType.NULL: "null",
}
_ARG_TOKENS = {TokenType.STRING: "string", TokenType.NUMBER: "number"}
_WORD_OPERATORS = {"and": "&&", "or": "||", "not": "!"}
_OPERATOR_LIST = "==, !=, ~=, contains, =~, startsWith, endsWith, >, >=, <, <="


def parse(text: str) -> Query:
    """Parse DocQL `text` into a `Query`.

    Raises DocQLSyntaxError for text outside the grammar (including text that does not
    start with '$'), DocQLTypeError for a regex literal used without '=~', and
    DocQLRegexError for a regex Python cannot compile.
    """
    return Parser(text).parse()


def clip(text: str, limit: int = 40) -> str:
    """User text as quoted in a message: long text is shortened so the message stays readable."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_regex(pattern: str, flags: str, shown: str, source: str, offset: int) -> None:
    """Raise DocQLRegexError unless `pattern` compiles with Python's `re` and `flags`."""
    bits = 0
    for flag in flags:
        bits |= _REGEX_FLAG_BITS[flag]
    try:
        re.compile(pattern, bits)
    except re.error as exc:
        reason = str(exc)
    except (
        OverflowError,
        RecursionError,
        ValueError,
    ) as exc:  # sre raises these on some extreme patterns
        reason = str(exc) or type(exc).__name__
    else:
        return
    raise DocQLRegexError(f"invalid regex {clip(shown)}: {reason}", source=source, offset=offset)


class Parser:
    """One parse of one text: a token stream with one token of lookahead."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._tokens: Iterator[Token] | None = None
        self.tok: Token = Token(TokenType.EOF, "", None, 0)
        self.prev: Token | None = None
        self.depth = 0

    def parse(self) -> Query:
        return self._parse_query()

    # ---- token helpers -----------------------------------------------------

    def _advance(self) -> Token:
        token = self.tok
        if token.type is not TokenType.EOF:
            assert self._tokens is not None
            self.tok = next(self._tokens)
        self.prev = token
        return token

    def _error(
        self, message: str, token: Token | None = None, cls: type[QueryError] = DocQLSyntaxError
    ) -> QueryError:
        offset = (token or self.tok).offset
        return cls(message, source=self.text, offset=offset)

    def _expect_close(self, closer: TokenType) -> Token:
        """Consume `)` or `]`, or explain what is missing before the current token."""
        if self.tok.type is closer:
            return self._advance()
        if self.tok.type is TokenType.AT:  # a second condition with no connective
            raise self._error("expected '&&' or '||' between conditions")
        raise self._error(f"expected {closer.value}")

    # ---- query := '$' step* ------------------------------------------------

    def _parse_query(self) -> Query:
        text = self.text
        start = len(text) - len(text.lstrip())
        if start == len(text):
            raise DocQLSyntaxError(
                "empty query; a DocQL query starts with '$'", source=text, offset=start
            )
        if text[start] != "$":
            # Checked on the raw text so free text ("架构 design") gets this message,
            # not a lexer complaint about its first odd character.
            from docql_sqlite.query.functions import as_docql  # (the error path only)

            meant = as_docql(text)
            hint = f": did you mean {meant}?" if meant else ""
            raise DocQLSyntaxError(f"query must start with '$'{hint}", source=text, offset=start)
        self._tokens = iter_tokens(text)
        self.tok = next(self._tokens)
        dollar = self._advance()
        steps: list[Step] = []
        while self.tok.type in (TokenType.DOT, TokenType.LBRACKET):
            steps.append(self._parse_step())
        token = self.tok
        if token.type is TokenType.NAME:
            raise self._error(f"expected '.' before '{clip(token.text)}'")
        if token.type is not TokenType.EOF:
            raise self._error(f"unexpected '{clip(token.text)}' after end of query")
        return Query(tuple(steps), offset=dollar.offset, source=text)

    # ---- step := '.' NAME | '.' NAME '(' args ')' | '[' selector ']' --------

    def _parse_step(self) -> Step:
        if self._advance().type is TokenType.LBRACKET:
            bracket = self.prev
            assert bracket is not None
            step = self._parse_selector(bracket)
            self._expect_close(TokenType.RBRACKET)
            return step
        if self.tok.type is not TokenType.NAME:
            raise self._error("expected a name after '.'")
        name = self._advance()
        if self.tok.type is TokenType.LPAREN:
            return Call(name.text, self._parse_args(), offset=name.offset)
        return Property(name.text, offset=name.offset)

    def _parse_args(self) -> tuple[Literal, ...]:
        """`'(' [ arg (',' arg)* ] ')'` of a function call."""
        self._advance()  # '('
        args: list[Literal] = []
        if self.tok.type in (TokenType.RPAREN, TokenType.EOF):
            self._expect_close(TokenType.RPAREN)
            return ()
        while True:
            args.append(self._parse_arg())
            if self.tok.type is TokenType.COMMA:
                self._advance()
                if self.tok.type is TokenType.RPAREN:
                    raise self._error("expected an argument after ','")
                continue
            if self.tok.type in (TokenType.STRING, TokenType.NUMBER, TokenType.REGEX):
                raise self._error("expected ',' between arguments")
            self._expect_close(TokenType.RPAREN)
            return tuple(args)

    def _parse_arg(self) -> Literal:
        """arg := STRING | NUMBER | REGEX"""
        token = self.tok
        if token.type in _ARG_TOKENS:
            self._advance()
            assert not isinstance(token.value, RegexLiteral)  # REGEX tokens are handled below
            return Literal(
                token.value, _ARG_TOKENS[token.type], offset=token.offset, text=token.text
            )
        if token.type is TokenType.REGEX:
            return self._parse_regex()
        if token.type is TokenType.COMMA:
            raise self._error("expected an argument before ','")
        if token.type is TokenType.NAME:
            raise self._error(
                f"expected an argument, got '{clip(token.text)}'; strings need quotes: "
                f'"{clip(token.text)}"'
            )
        got = "" if token.type is TokenType.EOF else f", got '{clip(token.text)}'"
        raise self._error(f"expected a string, number or regex argument{got}")

    # ---- selector := '*' | INT | slice | '?' filter -------------------------

    def _parse_selector(self, bracket: Token) -> Step:
        token = self.tok
        if token.type is TokenType.STAR:
            self._advance()
            return Wildcard(offset=bracket.offset)
        if token.type is TokenType.QUESTION:
            self._advance()
            return Filter(self._parse_filter(), offset=bracket.offset)
        if token.type in (TokenType.NUMBER, TokenType.COLON):
            return self._parse_slice(bracket)
        if token.type is TokenType.RBRACKET:
            raise self._error("empty selector; use [*], [n], [a:b] or [?(...)]")
        if token.type in (TokenType.LPAREN, TokenType.AT, TokenType.BANG):
            raise self._error("expected '?' before a filter: [?(...)]")
        raise self._error("expected '*', an index, a slice or '?' after '['")

    def _parse_slice(self, bracket: Token) -> Position | Slice:
        """`INT` (an index) or `slice := [INT] ':' [INT]`."""
        start = self._parse_int() if self.tok.type is TokenType.NUMBER else None
        if self.tok.type is not TokenType.COLON:
            assert start is not None
            return Position(start, offset=bracket.offset)
        self._advance()
        stop = self._parse_int() if self.tok.type is TokenType.NUMBER else None
        if self.tok.type is TokenType.COLON:
            raise self._error("slice steps are not supported; use [start:stop]")
        return Slice(start, stop, offset=bracket.offset)

    def _parse_int(self) -> int:
        token = self._advance()
        if not isinstance(token.value, int):
            raise self._error(f"index must be an integer, got {clip(token.text)}", token)
        return token.value

    # ---- filter := '(' expr ')' | expr --------------------------------------

    def _parse_filter(self) -> Expr:
        # The '(' expr ')' form is unary's parenthesised group, so expr covers both.
        if self.tok.type in (TokenType.RBRACKET, TokenType.EOF):
            raise self._error("empty filter")
        return self._parse_expr()

    # ---- expr := and ('||' and)* ;  and := unary ('&&' unary)* --------------

    def _parse_expr(self) -> Expr:
        items = [self._parse_and()]
        while self.tok.type is TokenType.OR:
            self._advance()
            items.append(self._parse_and())
        return items[0] if len(items) == 1 else Or(tuple(items), offset=items[0].offset)

    def _parse_and(self) -> Expr:
        items = [self._parse_unary()]
        while self.tok.type is TokenType.AND:
            self._advance()
            items.append(self._parse_unary())
        return items[0] if len(items) == 1 else And(tuple(items), offset=items[0].offset)

    # ---- unary := '!' unary | '(' expr ')' | cond ---------------------------

    def _parse_unary(self) -> Expr:
        token = self.tok
        if token.type not in (TokenType.BANG, TokenType.LPAREN):
            return self._parse_cond()
        if self.depth >= MAX_DEPTH:
            raise self._error(f"filter nests too deeply (more than {MAX_DEPTH} levels)")
        self.depth += 1
        try:
            opens_filter = self.prev is not None and self.prev.type is TokenType.QUESTION
            self._advance()
            if token.type is TokenType.BANG:
                return Not(self._parse_unary(), offset=token.offset)
            if self.tok.type is TokenType.RPAREN:
                raise self._error("empty filter" if opens_filter else "empty parentheses")
            expr = self._parse_expr()
            self._expect_close(TokenType.RPAREN)
            return expr
        finally:
            self.depth -= 1

    # ---- cond := '@.' NAME [ op value ] -------------------------------------

    def _parse_cond(self) -> Compare:
        token = self.tok
        if token.type is not TokenType.AT:
            after = self.prev
            if after is not None and after.type in (TokenType.AND, TokenType.OR, TokenType.BANG):
                if token.type in (TokenType.RPAREN, TokenType.RBRACKET, TokenType.EOF):
                    raise self._error(f"expected a condition after '{after.text}'")
            raise self._error("expected '@.' field in filter")
        at = self._advance()
        if self.tok.type is not TokenType.DOT:
            raise self._error("expected '@.' field in filter", at)
        self._advance()
        if self.tok.type is not TokenType.NAME:
            raise self._error("expected a name after '@.'")
        name = self._advance()
        following = self.tok
        if following.type is TokenType.OP:
            op = self._parse_op()
            value = self._parse_value(op)
            return Compare(
                name.text,
                str(op.value),
                value,
                offset=at.offset,
                field_offset=name.offset,
                op_offset=op.offset,
            )
        if following.type is TokenType.NAME:
            word = following.text.lower()
            if word in _WORD_OPERATORS:
                raise self._error(f"use '{_WORD_OPERATORS[word]}' instead of '{following.text}'")
            raise self._error(
                f"unknown operator '{clip(following.text)}'; use one of {_OPERATOR_LIST}"
            )
        if following.type in _VALUE_TOKENS or following.type is TokenType.REGEX:
            raise self._error(f"expected an operator after '@.{clip(name.text)}'")
        return Compare(name.text, "exists", None, offset=at.offset, field_offset=name.offset)

    def _parse_op(self) -> Token:
        """op: the lexer has already normalised every spelling into one OP token."""
        return self._advance()

    def _parse_value(self, op: Token) -> Literal:
        """value := STRING | NUMBER | REGEX | 'true' | 'false' | 'null'"""
        shown_op = " ".join(op.text.split())  # `starts   with` → `starts with`
        token = self.tok
        if token.type is TokenType.REGEX:
            if op.value != "=~":
                raise self._error("regex literal needs '=~'", cls=DocQLTypeError)
            return self._parse_regex()
        if token.type in _VALUE_TOKENS:
            self._advance()
            if op.value == "=~" and token.type is TokenType.STRING:
                assert isinstance(token.value, str)
                check_regex(token.value, "", token.text, self.text, token.offset)
            assert not isinstance(token.value, RegexLiteral)
            return Literal(
                token.value, _VALUE_TOKENS[token.type], offset=token.offset, text=token.text
            )
        if token.type is TokenType.NAME:
            raise self._error(
                f"expected a value after '{shown_op}', got '{clip(token.text)}'; strings need "
                f'quotes: "{clip(token.text)}"'
            )
        raise self._error(f"expected a value after '{shown_op}'")

    def _parse_regex(self) -> Literal:
        token = self._advance()
        pattern, flags = token.value.pattern, token.value.flags  # type: ignore[union-attr]
        check_regex(pattern, flags, token.text, self.text, token.offset)
        regex = Regex(pattern, flags, offset=token.offset)
        return Literal(regex, "regex", offset=token.offset, text=token.text)
