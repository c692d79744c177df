"""`docql-sqlite query` without click (cli/fastpath.py) reads a line exactly as click does.

The oracle is click itself: for every line the fast path accepts, the keyword arguments it
builds must equal the parameters click's own parse of that line gives the `query` command;
every line click refuses (or answers with help) the fast path must leave to click. Lines
are written out (the flags one by one, their spellings, the values click refuses) and
generated (hypothesis: any mix of the flags, values and arguments, in any order). End to
end, a line run by the console script (the fast path) and by click's CliRunner (click
parses it) prints the same bytes and exits with the same code, errors included.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from docql_sqlite.cli import cli, fastpath, flags
from docql_sqlite.cli.commands.docql import query as query_command


def click_parse(args: list[str]) -> dict[str, Any] | None:
    """The parameters click gives `query` for `args`, None where click refuses or exits."""
    try:
        with query_command.make_context("query", list(args)) as ctx:
            return dict(ctx.params)
    except (click.exceptions.ClickException, click.exceptions.Exit):
        return None


def check(args: list[str]) -> dict[str, Any] | None:
    fast = fastpath.parse(args)
    if fast is not None:
        expected = click_parse(args)
        assert expected is not None, f"click refuses {args}, the fast path took it"
        if not expected["query"].lstrip().startswith("$"):
            pytest.fail(f"the fast path took a non-DocQL query: {args}")
        assert fast == expected, args
    return fast


ACCEPTED = [
    ["db", "$.toc"],
    ["db", "$.toc", "--json"],
    ["--json", "db", "$.toc"],
    ["db", "--nl", "$.toc[0:2]"],
    ["db", "$.toc", "--csv", "--fields", "title,line"],
    ["db", "$.toc", "--fields=title, ,line,title"],
    ["db", "$.toc", "-t"],
    ["db", "$.toc", "--table"],
    ["db", "$.toc", "--md", "--json"],  # the last format wins
    ["db", "$.toc", "--limit", "3"],
    ["db", "$.toc", "--limit=0"],
    ["db", "$.toc", "--limit", "007"],
    ["db", "$.toc", "--path", "docs/*", "--path=*.md"],
    ["db", "$.toc", "--path", "--json"],  # --path takes the next word whatever it is
    ["db", "$.toc", "--sql"],
    ["db", "$.toc", "--inline", "--sql"],
    ["-", "  $.toc"],
    ["db", "$.content.grep('x')", "--limit", "1", "--nl", "--path", "a"],
]
DECLINED = [
    [],
    ["db"],
    ["db", "$.toc", "extra"],
    ["db", "toc"],  # not DocQL: click's usage error
    ["db", "$.toc", "--help"],
    ["db", "$.toc", "-h"],
    ["--", "db", "$.toc"],
    ["db", "$.toc", "--lim", "3"],  # click does not expand abbreviations
    ["db", "$.toc", "--limit"],
    ["db", "$.toc", "--limit", "-1"],
    ["db", "$.toc", "--limit", "x"],
    ["db", "$.toc", "--limit", " 3"],  # click takes it; the fast path leaves it to click
    ["db", "$.toc", "--json=yes"],
    ["db", "$.toc", "--fields", " , "],
    ["db", "$.toc", "-x"],
    ["db", "$.toc", "-tj"],
]


@pytest.mark.parametrize("args", ACCEPTED, ids=" ".join)
def test_the_fast_path_reads_a_line_as_click_does(args: list[str]) -> None:
    assert check(args) is not None


@pytest.mark.parametrize("args", DECLINED, ids=" ".join)
def test_what_the_fast_path_leaves_to_click(args: list[str]) -> None:
    assert fastpath.parse(args) is None


def test_shell_completion_is_left_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_DOCQL_SQLITE_COMPLETE", "bash_complete")
    assert fastpath.parse(["db", "$.toc"]) is None


def test_the_flag_table_is_the_click_command() -> None:
    # click builds `query` from cli/flags.py: the same switches, names and kinds.
    options = [p for p in query_command.params if isinstance(p, click.Option)]
    arguments = [p.name for p in query_command.params if isinstance(p, click.Argument)]
    assert tuple(arguments) == flags.QUERY_ARGUMENTS
    assert [(o.opts, o.name, o.multiple) for o in options] == [
        (list(f.switches), f.dest, f.multiple) for f in flags.QUERY_FLAGS
    ]
    assert [o.help for o in options] == [f.help for f in flags.QUERY_FLAGS]


def test_the_flag_table_is_what_run_query_takes() -> None:
    # The table is the one list of the command's parameters: both parsers hand their
    # values to `run_query` by name, so a row without a parameter there (or the reverse)
    # must fail here, not at a user's first use of the flag.
    import inspect

    taken = list(inspect.signature(fastpath.run_query).parameters)
    # (the output flags share one parameter, `fmt`: one value, the last format given)
    assert taken == [*flags.QUERY_ARGUMENTS, *dict.fromkeys(f.dest for f in flags.QUERY_FLAGS)]
    assert set(fastpath.parse(["db", "$.toc"]) or {}) == set(taken)


WORD_LIST = [
    "--json", "--nl", "--csv", "-t", "--table", "--md", "--sql", "--inline", "--limit",
    "--path", "--fields", "--limit=2", "--path=x", "--fields=a,b", "--json=1", "3", "-1",
    "x", "a,b", "", "-", "--", "-h", "--help", "--lim", "db", "$.toc", "$.files", "toc",
]  # fmt: skip
WORDS = st.sampled_from(WORD_LIST)


@settings(max_examples=400, deadline=None)
@given(st.lists(WORDS, max_size=7))
def test_any_mix_of_flags_is_read_as_click_reads_it(args: list[str]) -> None:
    check(args)


@settings(max_examples=400, deadline=None)
@given(st.lists(WORDS, max_size=6), st.integers(0, 6), st.integers(0, 7))
def test_lines_with_both_arguments_are_read_as_click_reads_them(
    words: list[str], at_db: int, at_query: int
) -> None:
    # The two arguments somewhere among the flags: most of these lines are valid ones.
    args = [w for w in words if w not in ("db", "$.toc", "$.files", "toc")]
    args.insert(min(at_db, len(args)), "db")
    args.insert(min(at_query, len(args)), "$.toc")
    check(args)


def test_the_generated_lines_do_reach_the_fast_path() -> None:
    # Not vacuous: a good share of the lines of the test above are valid and accepted.
    import random

    rng = random.Random(12)
    words = [w for w in WORD_LIST if w not in ("db", "$.toc")]
    accepted = 0
    for _ in range(300):
        args = rng.sample(words, rng.randint(0, 3))
        args.insert(rng.randint(0, len(args)), "db")
        args.insert(rng.randint(0, len(args)), "$.toc")
        accepted += check(args) is not None
    assert accepted > 30


# -- end to end: the console script (fast path) against CliRunner (click) ------------------
def console(*args: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [str(Path(sys.executable).parent / "docql-sqlite"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "COLUMNS"},
    )
    return done.returncode, done.stdout, done.stderr


def runner(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["{db}", "$.toc[?(@.level==1)][0:3]", "--json"],
        ["{db}", "$.toc[0:4]", "--csv", "--fields", "title,line"],
        ["{db}", "$.toc[0:4]", "--md"],
        ["{db}", "$.toc[0:4]", "--nl", "--limit", "2"],
        ["{db}", '$.content.grep("install")', "--json", "--path", "*.md"],
        ["{db}", "$.toc[?(@.title=='nothing like it')]", "--csv"],  # "no results"
        ["{db}", '$.files[?(@.name=="install.md")].toc', "--sql"],
        ["{db}", '$.files[?(@.name=="install.md")].toc', "--inline"],
        ["{db}", "$.toc[", "--json"],  # a DocQL syntax error
        ["{db}", "$.tocs", "--json"],  # an unknown root
        ["{db}", "$.toc", "--fields", "nope", "--json"],  # an unknown field
        ["{missing}", "$.toc", "--json"],  # no such database
    ],
)
def test_the_fast_path_prints_what_click_prints(
    corpus_db: Path, tmp_path: Path, args: list[str]
) -> None:
    line = [a.format(db=corpus_db, missing=tmp_path / "missing.db") for a in args]
    assert fastpath.parse(line) is not None  # this line does take the fast path
    assert console("query", *line) == runner("query", *line)
