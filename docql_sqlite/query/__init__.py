"""DocQL front end: tokens → nodes → parser (re-exports only, loaded on first use)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any

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


# The re-exports are loaded when first asked for (PEP 562): `from docql_sqlite.query
# import catalog` (what `get`, `toc` and `status` need) must not import the parser.
_HOMES = {
    **dict.fromkeys(
        (
            "And",
            "Call",
            "Compare",
            "Expr",
            "Filter",
            "Literal",
            "Node",
            "Not",
            "Or",
            "Position",
            "Property",
            "Query",
            "Regex",
            "Slice",
            "Step",
            "Wildcard",
            "render",
            "walk",
        ),
        "nodes",
    ),
    "parse": "parser",
    **dict.fromkeys(("RegexLiteral", "Token", "TokenType", "iter_tokens", "tokenize"), "tokens"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home == "nodes":
        from docql_sqlite.query import nodes

        return getattr(nodes, name)
    if home == "parser":
        from docql_sqlite.query import parser

        return getattr(parser, name)
    if home == "tokens":
        from docql_sqlite.query import tokens

        return getattr(tokens, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
