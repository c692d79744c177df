"""DocQL front end: tokens → nodes → parser (re-exports only)."""

from __future__ import annotations

from docql_sqlite.query.nodes import (
    And,
    Call,
    Compare,
    Expr,
    Filter,
    Literal,
    Node,
    Not,
    Or,
    Position,
    Property,
    Query,
    Regex,
    Slice,
    Step,
    Wildcard,
    render,
    walk,
)
from docql_sqlite.query.parser import parse
from docql_sqlite.query.tokens import RegexLiteral, Token, TokenType, iter_tokens, tokenize

__all__ = [
    "And",
    "Call",
    "Compare",
    "Expr",
    "Filter",
    "Position",
    "Literal",
    "Node",
    "Not",
    "Or",
    "Property",
    "Query",
    "Regex",
    "RegexLiteral",
    "Slice",
    "Step",
    "Token",
    "TokenType",
    "Wildcard",
    "iter_tokens",
    "parse",
    "render",
    "tokenize",
    "walk",
]
