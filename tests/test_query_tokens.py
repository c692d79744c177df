"""Lexer tests: token tables (type, text, value) and exact lexer errors."""

from __future__ import annotations

import pytest

from docql_sqlite.errors import DocQLSyntaxError
from docql_sqlite.query.tokens import RegexLiteral, Token, TokenType, iter_tokens, tokenize

T = TokenType


def lex(text: str) -> list[tuple[str, str, object]]:
    """(type name, text, value) of each token, EOF excluded."""
    tokens = tokenize(text)
    assert tokens[-1].type is T.EOF
    return [(t.type.name, t.text, t.value) for t in tokens[:-1]]


TABLE: list[tuple[str, list[tuple[str, str, object]]]] = [
    ("$", [("DOLLAR", "$", None)]),
    (
        "$.toc[*]",
        [
            ("DOLLAR", "$", None),
            ("DOT", ".", None),
            ("NAME", "toc", "toc"),
            ("LBRACKET", "[", None),
            ("STAR", "*", None),
            ("RBRACKET", "]", None),
        ],
    ),
    (
        "[?(@.a)]",
        [
            ("LBRACKET", "[", None),
            ("QUESTION", "?", None),
            ("LPAREN", "(", None),
            ("AT", "@", None),
            ("DOT", ".", None),
            ("NAME", "a", "a"),
            ("RPAREN", ")", None),
            ("RBRACKET", "]", None),
        ],
    ),
    (
        "[1:-2]",
        [
            ("LBRACKET", "[", None),
            ("NUMBER", "1", 1),
            ("COLON", ":", None),
            ("NUMBER", "-2", -2),
            ("RBRACKET", "]", None),
        ],
    ),
    (
        "f(1, 2)",
        [
            ("NAME", "f", "f"),
            ("LPAREN", "(", None),
            ("NUMBER", "1", 1),
            ("COMMA", ",", None),
            ("NUMBER", "2", 2),
            ("RPAREN", ")", None),
        ],
    ),
    # operators, normalised in `value`
    (
        "== = != ~= =~ > >= < <=",
        [
            ("OP", "==", "=="),
            ("OP", "=", "=="),
            ("OP", "!=", "!="),
            ("OP", "~=", "contains"),
            ("OP", "=~", "=~"),
            ("OP", ">", ">"),
            ("OP", ">=", ">="),
            ("OP", "<", "<"),
            ("OP", "<=", "<="),
        ],
    ),
    (
        "contains CONTAINS startsWith STARTSWITH endsWith",
        [
            ("OP", "contains", "contains"),
            ("OP", "CONTAINS", "contains"),
            ("OP", "startsWith", "startswith"),
            ("OP", "STARTSWITH", "startswith"),
            ("OP", "endsWith", "endswith"),
        ],
    ),
    (
        "starts with  Ends\tWith",
        [("OP", "starts with", "startswith"), ("OP", "Ends\tWith", "endswith")],
    ),
    ("starts within", [("NAME", "starts", "starts"), ("NAME", "within", "within")]),
    ("starts", [("NAME", "starts", "starts")]),
    ("startswith_x", [("NAME", "startswith_x", "startswith_x")]),
    (
        "! && || !=",
        [("BANG", "!", None), ("AND", "&&", None), ("OR", "||", None), ("OP", "!=", "!=")],
    ),
    ("!@", [("BANG", "!", None), ("AT", "@", None)]),
    # keywords are case-insensitive ...
    (
        "true False NULL",
        [("TRUE", "true", True), ("FALSE", "False", False), ("NULL", "NULL", None)],
    ),
    # ... except right after '.', where a word is always a name
    (
        ".contains .true .null .starts with",
        [
            ("DOT", ".", None),
            ("NAME", "contains", "contains"),
            ("DOT", ".", None),
            ("NAME", "true", "true"),
            ("DOT", ".", None),
            ("NAME", "null", "null"),
            ("DOT", ".", None),
            ("NAME", "starts", "starts"),
            ("NAME", "with", "with"),
        ],
    ),
    (
        "h2 end_line x9_",
        [("NAME", "h2", "h2"), ("NAME", "end_line", "end_line"), ("NAME", "x9_", "x9_")],
    ),
    # numbers
    (
        "0 42 -7 007 1.5 -0.25 12.0",
        [
            ("NUMBER", "0", 0),
            ("NUMBER", "42", 42),
            ("NUMBER", "-7", -7),
            ("NUMBER", "007", 7),
            ("NUMBER", "1.5", 1.5),
            ("NUMBER", "-0.25", -0.25),
            ("NUMBER", "12.0", 12.0),
        ],
    ),
    ("1.x", [("NUMBER", "1", 1), ("DOT", ".", None), ("NAME", "x", "x")]),
    (
        "[0].title",
        [
            ("LBRACKET", "[", None),
            ("NUMBER", "0", 0),
            ("RBRACKET", "]", None),
            ("DOT", ".", None),
            ("NAME", "title", "title"),
        ],
    ),
    # strings: both quotes, every escape, unknown escapes kept, CJK
    ("\"plain\" 'single'", [("STRING", '"plain"', "plain"), ("STRING", "'single'", "single")]),
    (r'"q\"q \' \\ \n \t"', [("STRING", r'"q\"q \' \\ \n \t"', "q\"q ' \\ \n \t")]),
    (r'"\u00e9\u4E2D"', [("STRING", r'"\u00e9\u4E2D"', "é中")]),
    (r'"\ud83d\ude00"', [("STRING", r'"\ud83d\ude00"', "😀")]),
    (r'"\d+\w"', [("STRING", r'"\d+\w"', r"\d+\w")]),
    ('"架构"', [("STRING", '"架构"', "架构")]),
    ("'say \"hi\"'", [("STRING", "'say \"hi\"'", 'say "hi"')]),
    ('"multi\nline"', [("STRING", '"multi\nline"', "multi\nline")]),
    ('""', [("STRING", '""', "")]),
    # regexes: only where a value is expected; flags canonicalised to "ims" order
    ("=~ /MCP/i", [("OP", "=~", "=~"), ("REGEX", "/MCP/i", RegexLiteral("MCP", "i"))]),
    ("(/a/sm", [("LPAREN", "(", None), ("REGEX", "/a/sm", RegexLiteral("a", "ms"))]),
    (",/a/ii", [("COMMA", ",", None), ("REGEX", "/a/ii", RegexLiteral("a", "i"))]),
    (r"== /a\/b/", [("OP", "==", "=="), ("REGEX", r"/a\/b/", RegexLiteral(r"a\/b", ""))]),
    ("== /[/]x/", [("OP", "==", "=="), ("REGEX", "/[/]x/", RegexLiteral("[/]x", ""))]),
    ("== /[]/]/", [("OP", "==", "=="), ("REGEX", "/[]/]/", RegexLiteral("[]/]", ""))]),
    ("== /[^]/]/", [("OP", "==", "=="), ("REGEX", "/[^]/]/", RegexLiteral("[^]/]", ""))]),
    ("== //", [("OP", "==", "=="), ("REGEX", "//", RegexLiteral("", ""))]),
    (
        "== /a/ )",
        [("OP", "==", "=="), ("REGEX", "/a/", RegexLiteral("a", "")), ("RPAREN", ")", None)],
    ),
    # whitespace of any kind is ignored
    ("\t$\n.\u3000toc\r\n", [("DOLLAR", "$", None), ("DOT", ".", None), ("NAME", "toc", "toc")]),
    ("", []),
]


@pytest.mark.parametrize("text,expected", TABLE, ids=[t for t, _ in TABLE])
def test_tokens(text: str, expected: list[tuple[str, str, object]]) -> None:
    assert lex(text) == expected


def test_offsets_and_eof() -> None:
    tokens = tokenize('$.toc[?(@.t == "架构")]  \n ')
    assert [t.offset for t in tokens] == [0, 1, 2, 5, 6, 7, 8, 9, 10, 12, 15, 19, 20, 21]
    # EOF points one past the last non-whitespace character.
    assert tokens[-1] == Token(TokenType.EOF, "", None, 21)
    assert tokenize("")[-1].offset == 0


def test_int_and_float_values() -> None:
    one, one_point_o = tokenize("1 1.0")[:2]
    assert type(one.value) is int and type(one_point_o.value) is float


def test_iter_tokens_is_lazy() -> None:
    # Tokens before a bad character come out before the error is raised.
    stream = iter_tokens("$.toc %")
    assert [next(stream).type for _ in range(3)] == [T.DOLLAR, T.DOT, T.NAME]
    with pytest.raises(DocQLSyntaxError, match="unexpected character '%'"):
        next(stream)


ERRORS = [
    ("%", "unexpected character '%'", 0),
    ("a ^ b", "unexpected character '^'", 2),
    ("/x/", "unexpected character '/'", 0),
    ("a /x/", "unexpected character '/'", 2),
    ("_a", "unexpected character '_'", 0),
    ("-", "unexpected character '-'", 0),
    ("- 1", "unexpected character '-'", 0),
    ("\x00", "unexpected character '\\x00'", 0),
    ("\u200b", "unexpected character '\\u200b'", 0),
    ("é", "unexpected character 'é'; strings need quotes", 0),
    ("“x”", "unexpected character '“'; use straight quotes \" or '", 0),
    ("a & b", "unexpected character '&'; did you mean '&&'?", 2),
    ("a | b", "unexpected character '|'; did you mean '||'?", 2),
    ("a ~ b", "unexpected character '~'; did you mean '~=' or '=~'?", 2),
    ('x "abc', "unterminated string", 2),
    ("x 'abc\"", "unterminated string", 2),
    ('"abc\\', "unterminated string", 0),
    ('"abc\\"', "unterminated string", 0),
    ('"\\u12"', "invalid \\u escape; expected 4 hex digits (\\u00e9)", 1),
    ('"\\uzzzz"', "invalid \\u escape; expected 4 hex digits (\\u00e9)", 1),
    ('"\\u"', "invalid \\u escape; expected 4 hex digits (\\u00e9)", 1),
    ('"ok \\udc00"', "lone surrogate '\\udc00' in string", 4),
    ('"\\ud800x"', "lone surrogate '\\ud800' in string", 1),
    ('"\\ud800\\u0041"', "lone surrogate '\\ud800' in string", 1),
    ("== /abc", "unterminated regex", 3),
    ("== /abc\\/", "unterminated regex", 3),
    ("== /[/", "unterminated regex", 3),
    ("== /a/g", "unknown regex flag 'g'; use i, m or s", 6),
    ("== /a/iX", "unknown regex flag 'X'; use i, m or s", 7),
    ("1" * 5000, "number too long", 0),
    ("9" * 400 + ".5", "number out of range", 0),
]


@pytest.mark.parametrize("text,message,offset", ERRORS, ids=[e[0][:20] for e in ERRORS])
def test_lexer_errors(text: str, message: str, offset: int) -> None:
    with pytest.raises(DocQLSyntaxError) as info:
        tokenize(text)
    assert info.value.message == message
    assert info.value.offset == offset
    assert info.value.source == text
