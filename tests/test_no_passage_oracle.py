"""`passage_text.no_passage` answers without rewriting the text when a letter or digit comes
before the first `[`, `<` or `!` (the MCP search path asks ~150 times a search). The
oracle is the rewrite alone, kept here verbatim: the same answer for every chunk of
`datasets/`, for the Node-shaped cases, and for random texts made of the constructs."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import query

from docql_sqlite.passage_text import (
    _MARKERS,
    _REMOVED,
    _WORD,
    LONG_LINE_CHARS,
    long_line,
    no_passage,
    pointer_page,
)


def reference(content: str) -> bool:
    """no_passage before the shortcut."""
    if _WORD.search(content) is None:  # no word at all
        return True
    if pointer_page(content) or long_line(content):  # rules of their own, tested below
        return True
    if not any(m in content for m in _MARKERS):
        return False
    return _WORD.search(_REMOVED.sub(" ", content)) is None


PIECES = [
    "[a]: #x",
    "[`fs.watch()`]: #fswatch",
    "  [b]: b.md 'title'",
    "[Guide](guide.md)",
    "[![ci](https://ci/badge.svg)](https://ci)",
    "![img](i.png)",
    '<a id="x"></a>',
    "<img src=x>",
    "<!-- note -->",
    "[foo][]",
    "[API][api]",
    "[ref]",
    "word",
    "é",
    "7",
    "_",
    "!",
    "<",
    "[",
    "]",
    "(",
    ")",
    "-",
    "#",
    " ",
    "\n",
    "\n\n",
    "    ",
    "## Heading",
    "x = a[1]: b",
]


def random_texts(n: int, seed: int = 19) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12))) for _ in range(n)]


def test_the_shortcut_gives_the_rewrites_answer_on_random_texts() -> None:
    texts = random_texts(20_000)
    answers = [no_passage(t) for t in texts]
    assert answers == [reference(t) for t in texts]
    # Both answers occur, and many texts take each branch of the shortcut.
    assert 1_000 < sum(answers) < 19_000


def test_the_shortcut_gives_the_rewrites_answer_on_every_chunk(corpus_db: Path) -> None:
    contents = [row[0] for row in query(corpus_db, "SELECT content FROM chunks")]
    assert len(contents) > 100
    assert [no_passage(c) for c in contents] == [reference(c) for c in contents]


@pytest.mark.parametrize(
    "content",
    [
        "Returns an [`fs.Stats`][] object.\n",  # a word first: answered by the shortcut
        "[x](y) and then words\n",  # a link first: the rewrite decides
        "<!-- comment -->\n[a]: #a\n",
        "   \n[a]: #a\n",
    ],
)
def test_both_paths_on_node_shaped_texts(content: str) -> None:
    assert no_passage(content) is reference(content)


INDEX_PAGE = (
    "evaluation, argument. . . . . . . . . . . . . . . . . . 27\n"
    "evaluation, lazy . . . . . . . . . . . . . . . . . 2, 38, 39\n"
    "F\n"
    "frame . . . . . . . . . . . . . . . . . . . . . . . . . 22\n"
)


@pytest.mark.parametrize(
    "content, expected",
    [
        (INDEX_PAGE, True),  # R-lang.pdf's concept index: letters between the entries
        ("Contents\n1 Introduction ........ 1\n2 Usage ........ 7\n3 Index ........ ix\n", True),
        ("See the index.\n" + "term . . . . . . . 3\n" * 2 + "More prose here.\n", False),
        ("A sentence that trails off . . . .\nAnd another....\nAnd one more....\n", False),
        ("Wait.... 10 seconds.\nThen 20.... 30\nOK\n", False),  # two leader lines only
        # R-lang.html's Texinfo concept index, as the page renders its table rows
        (
            " | environment: |  | Stacks\n | environment: |  | Search path\n"
            " | evaluation, lazy: |  | Arguments\nF\n | frame: |  | Scope\n",
            True,
        ),
        # a table of options with a colon in a cell is a table, not an index
        ("| Option | Meaning |\n| -q: | quiet |\nSee the table above for more.\n", False),
        (" | a: |  | b\n | c: |  | d\nProse that follows the two rows.\nAnd more.\n", False),
        # a manifest (click's egg-info SOURCES.txt), after a title too: it lists files
        ("CHANGES.rst\nLICENSE.rst\nsrc/click/core.py\ntests/test_basic.py\n", True),
        ("# Files\n\nsrc/a.py\nsrc/b.py\nsrc/c.py\n", True),
        # paths among prose, and code, are passages
        ("Edit src/a.py.\nsrc/a.py\nThen run the tests, then read the log.\nDone.\n", False),
        ("src/a.py\nsrc/b.py\nBoth files define the parser and its tests.\nSee both.\n", False),
        ("import os\nimport sys\n\n\ndef main():\n    os.exit(0)\n", False),
        # SQLite's cross-reference pages: an entry and the pages it points to, one a line
        (
            "-DSQLITE_DEFAULT_LOCKING_MODE - compile.html#default_locking_mode\n"
            "-DSQLITE_DEFAULT_LOOKASIDE - compile.html#default_lookaside\n"
            "-DSQLITE_OMIT_JSON → changes.html#version_3_38_0 compile.html#enable_json1\n",
            True,
        ),
        (
            "c3ref/blob_close.html → sqlite3_blob_close\nc3ref/blob_open.html → sqlite3_blob_open"
            "\nc3ref/busy_handler.html → {busy handler} {busy-handler callback} sqlite3_busy\n",
            True,
        ),
        # a back-of-book index's entry with several pages, and a directory's last two
        # lines (cut off by a chunk's size), as `ingest/html.py` renders them
        (
            "TLS, Secure TCP/IP Connections with SSL → ssl-tcp.html, SSL Support → "
            "libpq-ssl.html\nGUID, UUID Type → datatype-uuid.html\n",
            True,
        ),
        ("with libpq, Parameter Key Words → libpq-connect.html#LIBPQ-PARAMKEYWORDS\n", True),
        # an arrow in prose points nowhere
        ("Click File → Save to keep the page.\nThen close it → done.\n", False),
        # pages named in prose, and HTML's own links, are passages
        (
            "WAL is described in wal.html, and its file format in fileformat.html, which a "
            "reader should study.\nSee pragma.html#pragma_journal_mode for the pragma that "
            "turns it on and off and reports the mode.\nMore prose.\n",
            False,
        ),
        (
            '<a href="wal.html">WAL</a>\n<a href="lock.html">Locks</a>\n<a href="x.html">X</a>\n',
            False,
        ),
        # a Markdown directory of the docs: items opening with a link to a page, their
        # descriptions continued (Fastify's Index.md), after a heading and a sentence
        (
            '## Core Documents\n<a id="core"></a>\n\nThe core APIs, most important first:\n\n'
            "+ [Server](./Server.md): Documents the core Fastify API. Includes documentation\n"
            "  for the factory function.\n"
            "+ [Lifecycle](./Lifecycle.md): Explains the Fastify request lifecycle and\n"
            "  illustrates where [Hooks](./Hooks.md) are available.\n"
            "+ [Routes](./Routes.md): Details how to register routes.\n"
            "+ [Request](./Request.md): Details Fastify's request object.\n"
            "+ [Reply](./Reply.md): Details Fastify's response object.\n"
            "+ [Plugins](./Plugins.md): Explains Fastify's plugin architecture and API.\n"
            "+ [Hooks](./Hooks.md): Details the API by which plugins can inject themselves.\n",
            True,
        ),
        # ... not when what precedes the list is a passage of its own (Rust by Example's
        # two paragraphs on the book before its chapters), nor when a link's sub-items
        # say things of their own (rustc-dev-guide's test headers)
        (
            "# Rust by Example\n\nRust is a modern systems programming language focusing\n"
            "on safety, speed and concurrency.\n\nRust by Example is a collection of "
            "runnable\nexamples that illustrate various Rust concepts.\n\n"
            "- [Hello World](hello.md) - Start with a Hello World program.\n"
            "- [Primitives](primitives.md) - Learn about integers.\n"
            "- [Types](types.md) - Learn about changing and defining types.\n",
            False,
        ),
        (
            "* [Controlling pass/fail expectations](ui.md#controlling)\n"
            "    * `check-pass` — building (no codegen) should pass\n"
            "    * `build-pass` — building should pass\n"
            "    * `run-pass` — running the test should pass\n"
            "* [Revisions](compiletest.md#revisions)\n* [Ignoring tests](ui.md#ignore)\n",
            False,
        ),
        ("1. [Install](install.md)\n2. [Usage](usage.md) - how to\n3. [API](api/)\n", True),
        # two items are no directory; links to other sites, or to the page's own anchors,
        # point nowhere in the index; a list of points with a link or two is prose
        ("# Docs\n\n- [Install](install.md): how to install\n- [Usage](usage.md): use\n", False),
        (
            "- [Install](https://x.org/install): how\n- [Usage](https://x.org/u): use\n"
            "- [API](https://x.org/api): the API\n",
            False,
        ),
        ("- [A](#a): first\n- [B](#b): second\n- [C](#c): third\n", False),
        (
            "Some prose.\n\n- [Install](install.md): how to install\n- A point of our own\n"
            "- another point\n- [API](api.md)\n",
            False,
        ),
        (
            "The three pages below explain the parser at length, each from its own side.\n"
            "Read them in order: the first two explain the grammar, the last its errors,\n"
            "which is where most users begin, and what this paragraph describes.\n"
            "Each has examples.\n\n- [A](a.md)\n- [B](b.md)\n- [C](c.md)\n",
            False,
        ),
        # keys and qualified names one a line are no files: git-config's, a Go interface's
        ("user.name\nuser.email\nauthor.name\nauthor.email\n", False),
        ("type File interface {\n\tio.Closer\n\tio.Reader\n\tio.Seeker\n}\n", False),
    ],
)
def test_an_index_or_contents_page_is_no_passage(content: str, expected: bool) -> None:
    assert pointer_page(content) is expected
    assert no_passage(content) is expected


@pytest.mark.parametrize(
    "content, expected",
    [
        # a minified file's line, or a piece of a longer one (no line end: `chunk.py`)
        ("a=1;" * (LONG_LINE_CHARS // 4), True),
        ('Search.setIndex({"docnames": ["about", ' * 300 + "\n", True),
        # prose: many lines of that length together, or one line a little shorter
        ("A sentence of a paragraph.\n" * 400, False),
        ("word " * (LONG_LINE_CHARS // 5 - 1) + "\n", False),
        ("short line\n" + "x" * LONG_LINE_CHARS, False),
    ],
)
def test_a_line_of_data_is_no_passage(content: str, expected: bool) -> None:
    assert long_line(content) is expected
    assert no_passage(content) is expected


@pytest.mark.parametrize(
    "content, expected",
    [
        # a Rust module's guide, a function's doc comment over a short body
        ("//! Asynchronous tasks.\n//!\n" * 4 + "//! Use `task::spawn`.\n", True),
        (
            "/// Spawns a new asynchronous task.\n///\n/// The task may run on the current\n"
            "/// thread or another one.\n///\n/// # Examples\n///\n/// ```\n/// spawn(f);\n"
            "/// ```\npub fn spawn<T>(f: T) -> JoinHandle<T> {\n    inner(f)\n}\n",
            True,
        ),
        # a Python docstring, a block comment, Lua's and shell's comments
        ('def f():\n    """Read the file.\n\n' + "    More.\n" * 6 + '    """\n', True),
        ("/*\n" + " * The parser.\n" * 7 + " */\nint x;\n", True),
        ("-- Configure the plugin.\n" * 8 + "local M = {}\n", True),
        # a Perl module's POD (its manual) and Ruby's block comment
        (
            "=head2 request_timeout\n\n  my $t = $ua->request_timeout;\n\nMaximum amount of\n"
            "time in seconds, defaults to\nC<0>.\n\n=head2 server\n\nThe server, which\nlistens.\n",
            True,
        ),
        ("=begin\n" + "The parser.\n" * 7 + "=end\nx = 1\n", True),
        ("x = 1\ny = 2\n" * 4 + "=begin\nA note.\n=end\n", False),
        # a method with a short docstring is code (Django's `get_search_fields`)
        (
            'def get_search_fields(self, request):\n    """\n    Return the fields to be '
            'searched.\n    """\n    return self.search_fields\n',
            False,
        ),
        # code, with a comment or two, and what opens with `#` in C and Rust
        ("fn main() {\n    // go\n    let x = 1;\n    run(x);\n}\n", False),
        ("#include <stdio.h>\n#define N 3\n#if N\nint n = N;\n#endif\n", False),
        ("#[derive(Debug)]\n#[cfg(test)]\nstruct A;\n", False),
        ("int *p = q;\n*p = 5;\n*q = 6;\n", False),  # a pointer's stores: no comment
        ("# Title\n", False),  # too short to tell
    ],
)
def test_a_code_passage_that_is_its_documentation(content: str, expected: bool) -> None:
    from docql_sqlite.passage_text import documentation

    assert documentation(content) is expected
