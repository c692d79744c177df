"""parse_text: plain text is one headingless document titled by its file name."""

from __future__ import annotations

import pytest

from docql_sqlite.ingest.plaintext import parse_text


@pytest.mark.parametrize(
    "text, expected",
    [
        ("hello\nworld\n", "hello\nworld\n"),
        ("\ufeffwindows\r\nline ends\r\n", "windows\nline ends\n"),
        ("old mac\rline ends", "old mac\nline ends"),
        ("", ""),
    ],
)
def test_text_is_normalised(text: str, expected: str) -> None:
    assert parse_text(text, "a.txt").text == expected


def test_no_headings_title_is_file_name() -> None:
    document = parse_text("# Not a heading\n\n1 Introduction\n=====\n", "notes/todo.txt")
    assert document.format == "text"
    assert document.title == "todo.txt"
    assert document.headings == []
    assert document.body_start_line == 1
    assert document.page_lines is None


def test_terms_are_still_found() -> None:
    text = "Glossary\n\nCache\n: a store of values\n\n**Shard**: a piece\n\n**Note**: none\n"
    document = parse_text(text, "glossary.txt")
    assert [
        (e.entity_type, e.name, e.line, e.end_line, e.definition) for e in document.entities
    ] == [
        ("Term", "Cache", 3, 4, "a store of values"),
        ("Term", "Shard", 6, 6, "a piece"),
    ]


# -- .txt files that are reStructuredText (Django keeps its manual in .txt) ------------

from docql_sqlite.ingest.plaintext import looks_like_rst, parse  # noqa: E402
from docql_sqlite.model import Source  # noqa: E402

DJANGO_LIKE = """\
.. _using-csrf:

===================================
How to use Django's CSRF protection
===================================

To take advantage of CSRF protection in your views, follow these steps:

Using CSRF protection with AJAX
===============================

While the above method can be used for AJAX POST requests, see
:setting:`CSRF_COOKIE_NAME`.

Setting the token on the AJAX request
-------------------------------------

Acquiring the token::

    token = getCookie("csrftoken")
"""

ASCIIDOC = """\
git-show-ref(1)
===============

NAME
----
git-show-ref - List references in a local repository

EXAMPLES
--------

-----------------------------------------------------------------
git show-ref --head --dereference
-----------------------------------------------------------------
"""


@pytest.mark.parametrize(
    "text, expected",
    [
        (DJANGO_LIKE, True),
        # an overlined title at the top is reST's own (a Django release note)
        (
            "==========================\nDjango 1.5.1 release notes\n"
            "==========================\n\n*March 28, 2013*\n",
            True,
        ),
        # one underlined title and a role, a link or a directive
        ("Usage\n=====\n\nSee :class:`Foo`.\n", True),
        ("Usage\n=====\n\nSee `the site <https://example.org>`_.\n", True),
        ("Usage\n=====\n\n.. note::\n\n   Careful.\n", True),
        ("\ufeffUsage\r\n=====\r\n\r\n.. _usage:\r\n", True),
        # AsciiDoc underlines titles and delimits listings with ----: not reST
        (ASCIIDOC, False),
        # underlined words, no reST mark: plain notes
        ("TODO\n====\n\n- buy milk\n\nDONE\n----\n- nothing\n", False),
        # a title whose underline is too short is no title
        ("1 Introduction\n=====\n\n.. note:: x\n", False),
        # a directive with no title at all: stays text
        ("Some notes.\n\n.. note:: x\n", False),
        ("requests==2.0\nDjango>=4\n", False),
        ("", False),
    ],
)
def test_looks_like_rst(text: str, expected: bool) -> None:
    assert looks_like_rst(text) is expected


def _source(path: str, text: str) -> Source:
    return Source(path, "/abs/" + path, text.encode(), "0" * 64)


def test_rst_in_a_txt_file_is_parsed_as_rst() -> None:
    document = parse(_source("docs/howto/csrf.txt", DJANGO_LIKE))
    assert document.format == "rst"
    assert document.title == "How to use Django's CSRF protection"
    assert [(h.level, h.title, h.line) for h in document.headings] == [
        (1, "How to use Django's CSRF protection", 4),
        (2, "Using CSRF protection with AJAX", 9),
        (3, "Setting the token on the AJAX request", 15),
    ]
    assert [(b.line, b.code) for b in document.codeblocks] == [
        (20, 'token = getCookie("csrftoken")')
    ]


@pytest.mark.parametrize(
    "path, format",
    [
        ("notes.TXT", "rst"),
        ("notes.text", "rst"),
        ("notes.log", "text"),  # only .txt/.text may be reST in disguise
        ("conf.ini", "text"),
        ("man/git-show-ref.txt", "asciidoc"),  # git's pages: AsciiDoc (test_parse_asciidoc)
        # Sphinx's copies of the sources of the HTML pages built beside them.
        ("html/_sources/library/os.rst.txt", "text"),
        ("html/_sources/howto/csrf.txt", "text"),
        ("docs/_sources_notes/csrf.txt", "rst"),
    ],
)
def test_which_text_files_are_read_as_rst(path: str, format: str) -> None:
    text = ASCIIDOC if path.startswith("man/") else DJANGO_LIKE
    assert parse(_source(path, text)).format == format


# -- notebooks (docql_sqlite.ingest.notebook): JSON around Markdown-like text ----------

import json  # noqa: E402

from docql_sqlite.errors import IngestError  # noqa: E402
from docql_sqlite.ingest.notebook import parse_notebook  # noqa: E402

NOTEBOOK = {
    "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
    "nbformat": 4,
    "cells": [
        {
            "cell_type": "markdown",
            "source": ["# Tutorial\n", "\n", "Use `lumen.open(path)` first."],
        },
        {
            "cell_type": "code",
            "source": ["import lumen\n", "db = lumen.open('x.db')\n"],
            "outputs": [{"text": "big output"}],
        },
        {
            "cell_type": "markdown",
            "source": "## Setup\n```bash\n# not a heading\n```\n**Shard**: a piece",
        },
        {"cell_type": "code", "source": []},
        {"cell_type": "raw", "source": "raw text"},
    ],
}

NOTEBOOK_LINES = [
    "# Tutorial",  # 1
    "",
    "Use `lumen.open(path)` first.",  # 3
    "",
    "```python",  # 5
    "import lumen",
    "db = lumen.open('x.db')",
    "```",  # 8
    "",
    "## Setup",  # 10
    "```bash",  # 11
    "# not a heading",
    "```",  # 13
    "**Shard**: a piece",  # 14
    "",
    "raw text",  # 16
]


def test_notebook() -> None:
    document = parse_notebook(json.dumps(NOTEBOOK), "nb/tutorial.ipynb")
    assert document.format == "notebook"
    assert document.text == "\n".join(NOTEBOOK_LINES) + "\n"
    assert document.title == "Tutorial"
    assert document.language == "python"
    assert [(h.level, h.title, h.line) for h in document.headings] == [
        (1, "Tutorial", 1),
        (2, "Setup", 10),
    ]
    assert [(c.language, c.code, c.line, c.end_line) for c in document.codeblocks] == [
        ("python", "import lumen\ndb = lumen.open('x.db')", 5, 8),
        ("bash", "# not a heading", 11, 13),
    ]
    assert [(e.entity_type, e.name, e.line) for e in document.entities] == [
        ("API", "lumen.open", 3),
        ("Term", "Shard", 14),
    ]
    assert "big output" not in document.text


# nbformat 3 (IPython 1-2; nbformat's own tests/test3.ipynb): cells in worksheets, a
# code cell's text in "input" and its language on the cell, headings as cells of their own.
NOTEBOOK_V3 = {
    "metadata": {"name": ""},
    "nbformat": 3,
    "nbformat_minor": 0,
    "worksheets": [
        {
            "cells": [
                {"cell_type": "heading", "level": 1, "source": ["nbconvert latex test"]},
                {"cell_type": "markdown", "source": ["**Lorem ipsum** dolor."]},
                {"cell_type": "heading", "level": 2, "source": ["Printed Using Python"]},
                {
                    "cell_type": "code",
                    "input": ['print("hello")'],
                    "language": "python",
                    "outputs": [{"text": "hello"}],
                    "prompt_number": 1,
                },
            ]
        },
        {"cells": [{"cell_type": "markdown", "source": "The second worksheet."}]},
    ],
}


def test_notebook_v3_worksheets() -> None:
    document = parse_notebook(json.dumps(NOTEBOOK_V3), "nb/old.ipynb")
    assert document.text.split("\n") == [
        "# nbconvert latex test",
        "",
        "**Lorem ipsum** dolor.",
        "",
        "## Printed Using Python",
        "",
        "```python",
        'print("hello")',
        "```",
        "",
        "The second worksheet.",
        "",
    ]
    assert document.title == "nbconvert latex test"
    assert document.language == "python"
    assert [(h.level, h.title, h.line) for h in document.headings] == [
        (1, "nbconvert latex test", 1),
        (2, "Printed Using Python", 5),
    ]
    assert [(c.language, c.code, c.line) for c in document.codeblocks] == [
        ("python", 'print("hello")', 7)
    ]


def test_notebook_v2_lines_without_line_ends() -> None:
    notebook = {
        "nbformat": 2,
        "metadata": {"name": "intro"},
        "worksheets": [
            {
                "cells": [
                    {"cell_type": "markdown", "source": ["# An introduction", "", "Cells."]},
                    {"cell_type": "code", "language": "python", "input": ["a = 1", "b = 2"]},
                ]
            }
        ],
    }
    document = parse_notebook(json.dumps(notebook), "nb/intro.ipynb")
    assert document.text.split("\n")[:3] == ["# An introduction", "", "Cells."]
    assert [(h.title, h.line) for h in document.headings] == [("An introduction", 1)]
    assert [c.code for c in document.codeblocks] == ["a = 1\nb = 2"]


@pytest.mark.parametrize(
    "text", ["", "not json", "[]", '{"cells": 3}', '{"metadata": {}}', '{"worksheets": 3}']
)
def test_corrupt_notebook(text: str) -> None:
    with pytest.raises(IngestError, match=r"^corrupt notebook: "):
        parse_notebook(text, "bad.ipynb")


def test_configuration_files_are_indexed_as_text_and_json_is_not(tmp_index) -> None:
    """An OpenAPI YAML or a TOML config is searchable (people ask where a route or a port
    is defined); JSON stays out (lock files, data dumps)."""
    tmp_index.write_many(
        {
            "api/swagger.yaml": (
                "paths:\n  /containers/json:\n    get:\n      summary: List containers\n"
            ),
            "compose.yml": "services:\n  web:\n    ports: ['8080:80']\n",
            "pyproject.toml": "[tool.ruff]\nline-length = 100\n",
            "setup.cfg": "[metadata]\nname = demo\n",
            "package-lock.json": '{"lockfileVersion": 3}\n',
        }
    )
    report = tmp_index.index()
    names = ("api/swagger.yaml", "compose.yml", "pyproject.toml", "setup.cfg")
    assert sorted(tmp_index.paths()) == [f"docs/{n}" for n in names]
    assert report.summary()["failed"] == 0
    import docql_sqlite

    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("List containers", mode="bm25", limit=3)
        assert hits and hits[0]["path"] == "docs/api/swagger.yaml"
        assert {d["format"] for d in idx.documents()} == {"text"}
