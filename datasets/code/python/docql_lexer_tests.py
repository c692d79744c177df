"""Unit tests for the DocQL lexer of the Lumen console."""

import pytest

from docql_lexer import DocQLLexer, LexerError, TokenKind, tokenize


def kinds(source):
    return [t.kind for t in tokenize(source)]


class TestSimpleQueries:
    """Queries without filters."""

    def test_root_only(self):
        assert kinds("$") == [TokenKind.ROOT, TokenKind.EOF]

    def test_property_chain(self):
        assert kinds("$.toc.title") == [
            TokenKind.ROOT, TokenKind.DOT, TokenKind.NAME,
            TokenKind.DOT, TokenKind.NAME, TokenKind.EOF,
        ]

    def test_function_call_with_chinese_string(self):
        tokens = tokenize('$.content.heading("架构")')
        assert tokens[-3].kind is TokenKind.STRING
        assert tokens[-3].text == "架构"


class TestFilters:
    def test_comparison_operators(self):
        ops = [t.text for t in tokenize("[?(@.level<=2 && @.title~='Design')]")
               if t.kind is TokenKind.OPERATOR]
        assert ops == ["<=", "&&", "~="]

    def test_negative_number(self):
        tokens = tokenize("$.toc[-1]")
        assert tokens[4].text == "-1"


def test_unterminated_string_is_reported():
    lexer = DocQLLexer('$.content.grep("oops')
    lexer.tokenize()
    assert lexer.errors and "unterminated" in str(lexer.errors[0])


def test_unexpected_character_raises():
    with pytest.raises(LexerError) as info:
        tokenize("$.toc#")
    assert info.value.offset == 5


def testing_helper_is_not_a_test_case():
    """Starts with 'test' but pytest would still collect it; kept on purpose."""
    return kinds("$.files")
