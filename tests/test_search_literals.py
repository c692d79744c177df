"""Symbols a query names as written (`search/literals.py`): "$@ vs $*", "$?", "||",
"2>&1". The full-text index holds words only, so on bash's manual these found nothing
("no results"), were refused ("nothing to search for"), or were ranked by their words
alone ("what does $# mean" → "Bash Builtin Commands", by "mean")."""

from __future__ import annotations

from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.errors import SearchError
from docql_sqlite.search.terms import symbols

MANUAL = """\
# Shell manual

## Special Parameters

($@) Expands to the positional parameters, each a separate word when quoted.

($*) Expands to the positional parameters as one word when quoted.

($#) Expands to the number of positional parameters in decimal.

## Exit Status

($?) Expands to the exit status of the most recently executed foreground pipeline.
A command that succeeds returns zero.

## Lists of Commands

A list joined by || runs the second command only when the first fails; && runs it
only when the first succeeds.

## Redirections

Write both standard output and standard error with 2>&1 after the file.

## Builtins

The mean builtin prints what each word means; every builtin returns a status.
"""

SCRIPT = """\
#!/bin/bash
# a script that uses the parameters everywhere
count_args() {
    echo "$#" "$@" "$*"
    [ "$?" -eq 0 ] || echo "failed $#"
}
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> docql_sqlite.Index:
    root = tmp_path_factory.mktemp("shell")
    (root / "manual.md").write_text(MANUAL)
    for n in range(6):  # code uses the symbols far more often than the manual explains them
        (root / f"script{n}.sh").write_text(SCRIPT.replace("count_args", f"count_args{n}"))
    for n in range(40):  # and most passages hold none of them
        (root / f"note{n}.md").write_text(f"# Note {n}\n\nThe shell reads line {n} of a file.\n")
    db = root / "shell.db"
    docql_sqlite.index(db, [str(root)])
    return docql_sqlite.open(db)


@pytest.mark.parametrize(
    ("query", "section"),
    [
        ("$@ vs $*", "Special Parameters"),  # both symbols: the passage holding both
        ("$?", "Exit Status"),  # prose before code that uses it
        ("||", "Lists of Commands"),
        ("what does $# mean", "Special Parameters"),  # not the "mean" builtin
        ("2>&1", "Redirections"),
    ],
)
def test_a_symbol_finds_the_prose_that_holds_it(
    index: docql_sqlite.Index, query: str, section: str
) -> None:
    (first,) = index.search(query, limit=1, explain=True)
    assert first["section"] == section, (query, first["location"])
    assert "literal" in first["explain"]["lists"]
    held = first["explain"]["lists"]["literal"]["symbols_held"]
    assert held == len(symbols(query))


def test_bm25_says_where_symbols_are_searched(index: docql_sqlite.Index) -> None:
    with pytest.raises(SearchError, match="the default search finds symbols as written"):
        index.search("$?", mode="bm25")


def test_a_common_symbol_beside_words_is_left_out(tmp_path: Path) -> None:
    """`==` in most passages (code) says as little as a common word: with words beside it
    that find passages the query has no literal list; when nothing else finds one, or the
    symbol is all the query has, the list stays."""
    root = tmp_path / "c"
    root.mkdir()
    for n in range(30):
        (root / f"f{n}.py").write_text(f"def check{n}(a, b):\n    return a == b\n")
    (root / "guide.md").write_text("# Guide\n\nEquality compares two wombats.\n")
    db = tmp_path / "c.db"
    docql_sqlite.index(db, [str(root)])
    with docql_sqlite.open(db) as idx:
        (hit,) = idx.search("wombats ==", limit=1, explain=True)
        assert "literal" not in hit["explain"]["plan"]["channels"]
        alone = idx.search("==", limit=3, explain=True)
        assert alone and all("literal" in h["explain"]["lists"] for h in alone)
        (hit,) = idx.search("numbats ==", limit=1, explain=True)  # no passage says "numbats"
        assert "literal" in hit["explain"]["lists"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$@ vs $*", ["$@", "$*"]),
        ("[[ and [", ["[["]),  # one character is no symbol
        ("what does $# mean?", ["$#"]),
        ("redirect 2>&1, then C++", ["2>&1", "C++"]),
        ('"$?" in a script', ["$?"]),
        ("is it? (yes.)", []),  # a sentence's punctuation
        ("show <n> more commits", []),  # a placeholder is a word
        ("<Framework X> does <feature Y> -- why?", []),
        ("fs.watch() caveats --cpu-prof snake_case what's", []),  # words the index reads
        ("x <= y", ["<="]),
        ("returns the number of accumulated bytes; b. () == len(b.String()).", ["=="]),
        # a description of more than eight content words: its symbols are incidental
        ("sets z to the rounded sum x+y of the two operands and returns z rounded", []),
    ],
)
def test_which_tokens_are_symbols(text: str, expected: list[str]) -> None:
    assert symbols(text) == expected


def test_the_query_words_order_the_passages_holding_a_symbol(tmp_path: Path) -> None:
    """Among passages holding `**`, the one with the question's words comes before a
    shorter one without them ("what does ** do in a function call" on Python's docs
    found a traceback example first)."""
    root = tmp_path / "py"
    root.mkdir()
    (root / "power.md").write_text("# Power\n\nWrite 2 ** 8 for 256.\n")
    (root / "calls.md").write_text(
        "# Calls\n\nIn a function call, ** unpacks a mapping into keyword arguments, "
        "one argument for each of its keys.\n"
    )
    for n in range(20):
        (root / f"n{n}.md").write_text(f"# Note {n}\n\nText {n}.\n")
    db = tmp_path / "py.db"
    docql_sqlite.index(db, [str(root)])
    with docql_sqlite.open(db) as idx:
        hits = idx.search("what does ** do in a function call", limit=2, explain=True)
        assert [Path(h["path"]).name for h in hits] == ["calls.md", "power.md"]
        # the literal list's own order, not only the words' lists
        assert [h["explain"]["lists"]["literal"]["rank"] for h in hits] == [1, 2]


def test_the_cli_takes_a_query_that_starts_with_a_dash(index: docql_sqlite.Index) -> None:
    """`search db '->>'` was click's "No such option: ->"; a dash before a character no
    option starts with is text, before or after the options. `-v` stays an option."""
    from click.testing import CliRunner

    from docql_sqlite.cli import cli

    db = str(index.path)
    for args in (["search", db, "||", "--json"], ["search", db, "--json", "-n", "2", "||"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
    for text in ("->>", "-=", "-->"):
        result = CliRunner().invoke(cli, ["search", db, text, "--json"])
        assert result.exit_code == 0 and "No such option" not in result.output, text
    result = CliRunner().invoke(cli, ["search", db, "-v"])
    assert result.exit_code != 0 and "No such option" in result.output


@pytest.mark.parametrize(
    ("text", "about"),
    [
        ("what does $# mean", True),
        ("what do || and && do?", True),
        ("what is := in python", False),  # "python" says where: a word of the topic
        ("what does ** do in a function call", False),
        ("difference between $@ and $*", False),
    ],
)
def test_a_question_about_the_symbols_themselves(text: str, about: bool) -> None:
    """Its other words are the question's frame: "mean" put a builtin whose text says
    "means" before bash's Special Parameters when the words ordered the literal list."""
    from docql_sqlite.search.literals import about_symbols

    assert about_symbols(text, symbols(text)) is about
