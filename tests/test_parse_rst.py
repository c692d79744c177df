"""parse_rst: heading lines, levels, code blocks, tables, terms, Sphinx objects, safety."""

from __future__ import annotations

from pathlib import Path

import pytest
from docutils.core import publish_doctree

from docql_sqlite.ingest import rst as rst_module
from docql_sqlite.ingest.rst import parse_rst

GUIDE = """\
=========
Doc Title
=========

Intro paragraph.

Section A
---------

Text a.

Sub A1
~~~~~~

Some ``code`` here::

    literal line 1
    literal line 2

.. code-block:: python

   print("hi")
   print("bye")

.. _install-guide:

Section B with ``code``
-----------------------

cache
    A store of values.
shard : classifier
    A piece
    of an index.
Note
    Admonition word, not a term.

+------+------------+
| Term | Definition |
+======+============+
| Row  | a line     |
+------+------------+

.. list-table:: Options
   :header-rows: 1

   * - Option
     - Default
   * - size
     - 10

Other Top
---------

.. py:function:: lumen.open(path, mode='r')

   Opens an index.

.. py:class:: Index(path)

.. include:: /etc/passwd

.. raw:: html

   <script>alert(1)</script>
"""


def test_guide_headings() -> None:
    document = parse_rst(GUIDE, "docs/guide.rst")
    assert document.format == "rst"
    assert document.title == "Doc Title"
    assert [(h.level, h.title, h.line, h.anchor) for h in document.headings] == [
        (1, "Doc Title", 2, None),
        (2, "Section A", 7, None),
        (3, "Sub A1", 12, None),
        (2, "Section B with code", 27, "install-guide"),
        (2, "Other Top", 52, None),
    ]
    lines = document.text.split("\n")
    assert [lines[h.line - 1] for h in document.headings] == [
        "Doc Title", "Section A", "Sub A1", "Section B with ``code``", "Other Top",
    ]  # fmt: skip


def test_guide_text_is_the_source() -> None:
    assert parse_rst(GUIDE, "guide.rst").text == GUIDE
    assert parse_rst("\ufeffA\r\n=\r\n", "a.rst").text == "A\n=\n"


def test_guide_codeblocks() -> None:
    document = parse_rst(GUIDE, "guide.rst")
    assert [(c.language, c.code, c.line, c.end_line) for c in document.codeblocks] == [
        (None, "literal line 1\nliteral line 2", 17, 18),
        ("python", 'print("hi")\nprint("bye")', 22, 23),
    ]
    assert document.keep_together == [(17, 18), (22, 23)]


def test_guide_tables() -> None:
    document = parse_rst(GUIDE, "guide.rst")
    assert [(t.headers, t.rows, t.line, t.end_line) for t in document.tables] == [
        (["Term", "Definition"], [["Row", "a line"]], 38, 42),
        (["Option", "Default"], [["size", "10"]], 44, 50),
    ]


def test_guide_entities() -> None:
    document = parse_rst(GUIDE, "guide.rst")
    assert [
        (e.entity_type, e.name, e.line, e.end_line, e.signature, e.definition)
        for e in document.entities
    ] == [
        ("Term", "cache", 30, 31, None, "A store of values."),
        ("Term", "shard", 32, 34, None, "A piece of an index."),
        ("Term", "Row", 41, 41, None, "a line"),
        ("API", "lumen.open", 55, 57, "lumen.open(path, mode='r')", None),
        ("ClassEntity", "Index", 59, 59, "Index(path)", None),
    ]


HEADING_CASES = [
    pytest.param("Title\n=====\n\nText.\n", [(1, "Title", 1)], id="underline-at-line-1"),
    pytest.param("\n\n=====\nTitle\n=====\n\nx\n", [(1, "Title", 4)], id="overline"),
    pytest.param(
        "===========\n  Inset  \n===========\n\nx\n", [(1, "Inset", 2)], id="inset-overline-title"
    ),
    pytest.param("A\n=\n\nA\n-\n\nx\n", [(1, "A", 1), (2, "A", 4)], id="same-title-twice"),
    pytest.param(
        "Heading\n====\n\nText.\n", [(1, "Heading", 1)], id="underline-too-short-still-a-section"
    ),
    pytest.param("Title\n==\n\nText.\n", [], id="very-short-underline-is-text"),
    pytest.param(
        'One\n===\n\nTwo\n---\n\nThree\n^^^^^\n\nFour\n\'\'\'\'\n\nFive\n....\n\nSix\n````\n\nSeven\n"""""\n\nx\n',
        [
            (1, "One", 1),
            (2, "Two", 4),
            (3, "Three", 7),
            (4, "Four", 10),
            (5, "Five", 13),
            (6, "Six", 16),
            (6, "Seven", 19),
        ],
        id="seven-levels-capped-at-6",
    ),
    pytest.param("Just text.\n\n- a list\n", [], id="no-sections"),
    pytest.param(
        "Title *emphasis* and `ref <http://x>`_\n=======================================\n",
        [(1, "Title emphasis and ref", 1)],
        id="inline-markup-in-title",
    ),
    # Sphinx roles, unknown to docutils, read as Sphinx shows them (Django's manual)
    pytest.param(
        "If :setting:`CSRF_USE_SESSIONS` is True\n=======================================\n",
        [(1, "If CSRF_USE_SESSIONS is True", 1)],
        id="sphinx-role-in-title",
    ),
    pytest.param(
        "The :class:`~django.db.models.Field` API\n========================================\n",
        [(1, "The Field API", 1)],
        id="sphinx-role-tilde-keeps-last-part",
    ),
    pytest.param(
        "See :doc:`the models </topics/db/models>` and :py:meth:`!x.y`\n"
        "==============================================================\n",
        [(1, "See the models and x.y()", 1)],
        id="sphinx-role-with-title-and-bang",
    ),
    # As Sphinx prints them (SQLAlchemy's manual, checked against its HTML build): a
    # Python role's leading dot is not shown, functions and methods get `()` unless the
    # role has its own title or already ends in `()`; other domains keep their dots.
    pytest.param(
        "Fixed :meth:`.Session.is_modified` for :class:`.InstrumentationEvents`\n"
        "=================================================================\n",
        [(1, "Fixed Session.is_modified() for InstrumentationEvents", 1)],
        id="sphinx-role-leading-dot-and-parentheses",
    ),
    pytest.param(
        "Use :func:`~.orm.relationship` or :py:func:`f()` or :func:`the call <f>`\n"
        "========================================================================\n",
        [(1, "Use relationship() or f() or the call", 1)],
        id="sphinx-role-parentheses-once-not-with-a-title",
    ),
    pytest.param(
        "The :c:func:`.x` and :c:member:`.y` and :doc:`.z`\n"
        "==================================================\n",
        [(1, "The .x() and .y and .z", 1)],
        id="sphinx-role-dot-kept-outside-python",
    ),
]


@pytest.mark.parametrize("source, expected", HEADING_CASES)
def test_heading_lines(source: str, expected: list[tuple[int, str, int]]) -> None:
    document = parse_rst(source, "x.rst")
    assert [(h.level, h.title, h.line) for h in document.headings] == expected


def test_title_falls_back_to_file_name() -> None:
    assert parse_rst("Just text.\n", "docs/notes.rst").title == "notes.rst"


def test_no_file_insertion_or_raw(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT\n")
    source = (
        f".. include:: {secret}\n\n"
        f".. raw:: html\n   :file: {secret}\n\n"
        f".. csv-table::\n   :file: {secret}\n"
    )
    tree = publish_doctree(source, settings_overrides=rst_module._SETTINGS)
    assert "TOP-SECRET-CONTENT" not in tree.astext().replace(str(secret), "")
    document = parse_rst(source, "x.rst")
    assert document.headings == [] and document.entities == []


def test_bad_markup_is_silent(capfd: pytest.CaptureFixture[str]) -> None:
    source = (
        "Title\n====\n\n.. unknown-directive:: x\n\n"
        ":unknown-role:`y` and `unclosed\n\n.. toctree::\n\n   a\n"
    )
    document = parse_rst(source, "x.rst")
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    assert [h.title for h in document.headings] == ["Title"]
    assert document.codeblocks == []  # the echoed source of unknown directives is not code


def test_docutils_crash_falls_back_to_text(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("internal docutils error")

    monkeypatch.setattr(rst_module, "publish_doctree", boom)
    document = parse_rst("Title\n=====\n", "x.rst")
    assert document.text == "Title\n=====\n"
    assert document.headings == []
    assert document.title == "x.rst"
    assert document.warnings == [
        "reST parse failed (internal docutils error); indexed as plain text"
    ]


def test_sphinx_object_directives() -> None:
    source = (
        ".. function:: connect(dsn, timeout=5)\n"  # 1
        "\n"
        "   Connects.\n"  # 3
        "\n"
        ".. method:: Index.search(query, *, limit=10)\n"  # 5
        ".. exception:: IngestError\n"  # 6
        ".. c:function:: int printf(const char *format, ...)\n"  # 7
        ".. py:data:: VERSION\n"  # 8: not an API
    )
    document = parse_rst(source, "api.rst")
    assert [(e.entity_type, e.name, e.line, e.end_line) for e in document.entities] == [
        ("API", "connect", 1, 3),
        ("API", "Index.search", 5, 5),
        ("ClassEntity", "IngestError", 6, 6),
        ("API", "printf", 7, 7),
    ]


def test_codeblock_whose_first_line_repeats() -> None:
    # `.. code-block::` reports the line after the code; the start is matched on every line.
    source = "Intro\n\n.. code-block:: c\n\n   }\n   x;\n   }\n\nafter\n"
    document = parse_rst(source, "a.rst")
    assert [(c.language, c.code, c.line, c.end_line) for c in document.codeblocks] == [
        ("c", "}\nx;\n}", 5, 7)
    ]


def test_sphinx_roles_in_anchors_tables_and_terms() -> None:
    source = (
        ".. _csrf-ajax:\n\n"
        "Using :setting:`CSRF` with AJAX\n===============================\n\n"
        "Plain :func:`title`\n-------------------\n\n"
        ":setting:`DEBUG`\n   Turns on :class:`~a.b.Debug` pages.\n\n"
        "==========  =====\nName        Type\n==========  =====\n"
        ":class:`X`  int\n==========  =====\n"
    )
    document = parse_rst(source, "x.txt")
    # only the explicit target is an anchor, never the title's own name with its markup
    assert [(h.title, h.anchor) for h in document.headings] == [
        ("Using CSRF with AJAX", "csrf-ajax"),
        ("Plain title()", None),  # as Sphinx shows a :func: role
    ]
    assert [(t.headers, t.rows) for t in document.tables] == [(["Name", "Type"], [["X", "int"]])]
    terms = [(e.name, e.definition) for e in document.entities if e.entity_type == "Term"]
    assert ("DEBUG", "Turns on Debug pages.") in terms


@pytest.mark.parametrize(
    "options",
    [
        ["    :caption: ``mysite/urls.py``"],  # Sphinx-only: docutils dropped the block
        ["    :emphasize-lines: 2", "    :linenos:"],
        ["    :name: urls"],  # docutils knows it, but gave the block no line
        ["    :caption: a", "    :name: b", "    :class: c", "    :number-lines: 3"],
    ],
)
def test_code_block_options_keep_the_block_and_its_lines(options: list[str]) -> None:
    head = ["Title", "=====", "", ".. code-block:: python", *options, ""]
    code = ["urlpatterns = [", '    url(r"^polls/", include("polls.urls")),', "]"]
    tail = ["", "Text with ``:caption:`` words::", "", "    :caption: this is code"]
    source = "\n".join(head + ["    " + line for line in code] + tail) + "\n"
    document = parse_rst(source, "releases/1.9.txt")
    first = len(head) + 1
    assert [(b.language, b.code, b.line, b.end_line) for b in document.codeblocks] == [
        ("python", "\n".join(code), first, first + 2),
        (None, ":caption: this is code", first + 6, first + 6),
    ]
    assert document.text == source  # the document is the source as written


NESTED_CODE = """\
Title
=====

* The test client now takes headers. For
  example:

  .. code-block:: python

     self.client.get("/home/", headers={"accept-language": "fr"})

.. note::

   Before:

   .. code-block:: python

       a = 1
       b = 2

.. warning::

   A literal block::

       a = 1

.. unknown-sphinx-directive:: x

   .. code-block:: python

       found = "an unknown directive's body is parsed as a container's"
"""


def test_code_blocks_nested_in_lists_and_admonitions_have_their_lines() -> None:
    """docutils gives a `.. code-block::` inside a list item or a `.. note::` no line:
    such a block is placed where its lines are, after the nodes before it."""
    document = parse_rst(NESTED_CODE, "releases/4.2.txt")
    assert [(b.language, b.line, b.end_line, b.code) for b in document.codeblocks] == [
        ("python", 9, 9, 'self.client.get("/home/", headers={"accept-language": "fr"})'),
        ("python", 17, 18, "a = 1\nb = 2"),
        (None, 24, 24, "a = 1"),  # the same text again: its own place, not the first
        ("python", 30, 30, "found = \"an unknown directive's body is parsed as a container's\""),
    ]


SPHINX_API = """\
QuerySet API
============

.. class:: Client(defaults=None, *, headers=None)

    .. method:: Client.get(path, data=None)
        :noindex:

        Makes a GET request:

        .. code-block:: pycon

            >>> c.get("/customers/")

        .. versionchanged:: 5.1

            ==========  =====
            Argument    Added
            ==========  =====
            ``query``   5.1
            ==========  =====

.. glossary::

    slug
        A short label.

        See :doc:`/topics/http/urls`.

How to write it::

    .. method:: shown.as_an(example)

    .. code-block:: python
        :caption: shown too

        x = 1
"""


def test_sphinx_directive_bodies_are_parsed_not_dropped() -> None:
    """Sphinx's `.. method::`, `.. versionchanged::`, `.. glossary::` (and `.. class::`
    with a signature, which docutils' own `class` refuses) are unknown to docutils, which
    dropped their bodies: their code blocks, tables and terms are found, at their lines,
    and a literal block showing such markup stays as written."""
    document = parse_rst(SPHINX_API, "ref/request.txt")
    assert [(b.language, b.line, b.code) for b in document.codeblocks] == [
        ("pycon", 13, '>>> c.get("/customers/")'),
        (
            None,
            32,
            ".. method:: shown.as_an(example)\n\n.. code-block:: python\n"
            "    :caption: shown too\n\n    x = 1",
        ),
    ]
    assert [(t.headers, t.rows, t.line) for t in document.tables] == [
        (["Argument", "Added"], [["query", "5.1"]], 17)
    ]
    terms = [(e.name, e.definition) for e in document.entities if e.entity_type == "Term"]
    assert ("slug", "A short label. See /topics/http/urls.") in terms
    assert [(e.entity_type, e.name) for e in document.entities if e.entity_type != "Term"] == [
        ("ClassEntity", "Client"),
        ("API", "Client.get"),
    ]


def test_a_simple_table_with_blank_lines_between_rows_ends_at_its_border() -> None:
    source = (
        "Options\n=======\n\n"
        "=================  ==============================\n"
        "Argument           Description\n"
        "=================  ==============================\n"
        "``model``          The geographic model.\n"
        "\n"
        "``data_source``    The path to the data source\n"
        "                   file (e.g., a shapefile).\n"
        "=================  ==============================\n"
        "\nAfter.\n\n"
        "+------+------+\n| a    | b    |\n+------+------+\n\nEnd.\n"
    )
    document = parse_rst(source, "ref/layermapping.txt")
    assert [(t.line, t.end_line, t.rows) for t in document.tables] == [
        (
            4,
            11,
            [
                ["model", "The geographic model."],
                ["data_source", "The path to the data source file (e.g., a shapefile)."],
            ],
        ),
        (15, 17, [["a", "b"]]),
    ]


def test_a_highlight_directive_names_the_language_of_the_literal_blocks_after_it() -> None:
    """Sphinx's `.. highlight:: c` is the language of the `::` blocks that follow (Python's
    C API manual); `none` ends it; a `.. code-block:: x` keeps its own; reST shown in a
    literal block changes nothing."""
    source = (
        "T\n=\n\nBefore::\n\n    a\n\n.. highlight:: c\n\nSome::\n\n    int x;\n\n"
        ".. code-block:: python\n\n    y = 1\n\nExample::\n\n    .. highlight:: rust\n\n"
        "After::\n\n    int y;\n\n.. highlight:: none\n\nMore::\n\n    raw\n"
    )
    document = parse_rst(source, "c-api/intro.rst")
    assert [(b.language, b.code) for b in document.codeblocks] == [
        (None, "a"),
        ("c", "int x;"),
        ("python", "y = 1"),
        ("c", ".. highlight:: rust"),
        ("c", "int y;"),
        (None, "raw"),
    ]


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x1c", "\x1d", "\x1e"])
def test_characters_that_splitlines_breaks_at_keep_the_file_lines(separator: str) -> None:
    """docutils splits its input with `str.splitlines`, which also ends a line at U+2028,
    NEL, and the file/group/record separators: each one in a paragraph put every later
    heading and code block one line low (a line is what `split_lines` says it is)."""
    text = (
        "Intro\n=====\n\n"
        + f"one{separator}two{separator}three{separator}four\n\n"
        + "Second\n======\n\nText.\n\n::\n\n    code line\n\nThird\n-----\n\nEnd.\n"
    )
    document = parse_rst(text, "page.rst")
    lines = text.split("\n")
    assert [(h.title, h.line) for h in document.headings] == [
        ("Intro", 1),
        ("Second", 6),
        ("Third", 15),
    ]
    assert [(c.line, c.end_line) for c in document.codeblocks] == [(13, 13)]
    assert lines[12].strip() == "code line"


SECTNUM = """\
====================
 Generating LaTeX
====================

.. contents::
.. sectnum::
   :depth: 3

LaTeX
=====

Document classes
----------------

Text.
"""

SUBSTITUTION = """\
.. |ver| replace:: 3.11

What's new in |ver|
===================

.. _explicit-one:

New in |ver| too
----------------

.. _skip-xfail-with-parametrize:

Skip/xfail with parametrize
---------------------------
"""


@pytest.mark.parametrize(
    "source, headings",
    [
        # docutils' latex.rst: "1.1 LaTeX" where docutils' own HTML shows "1 LaTeX"
        (
            SECTNUM,
            [
                ("Generating LaTeX", 2, None),
                ("LaTeX", 9, None),
                ("Document classes", 12, None),
            ],
        ),
        # a title's own name is its source's ("what's new in |ver|"), not an explicit
        # target: it was the anchor `what-s-new-in-ver`; a target named like its title
        # (pytest's skipping.rst) is the anchor Sphinx gives it
        (
            SUBSTITUTION,
            [
                ("What's new in 3.11", 3, None),
                ("New in 3.11 too", 8, "explicit-one"),
                ("Skip/xfail with parametrize", 13, "skip-xfail-with-parametrize"),
            ],
        ),
    ],
    ids=["sectnum", "substitution"],
)
def test_titles_and_anchors_are_the_sources(source: str, headings: list) -> None:
    document = parse_rst(source, "page.rst")
    assert [(h.title, h.line, h.anchor) for h in document.headings] == headings


DOCTESTS = """\
Title
=====

Some text.

>>> 1 + 1
2

* An item.

  >>> print("in a list")
  in a list

.. doctest::
   :hide:

   >>> import json
   >>> json.dumps([1, 2])
   '[1, 2]'

.. testcode::

   def f(x):
       return x + 1

.. testoutput::

   2

.. testsetup:: *

   import os

Shown as an example::

   .. doctest::

      >>> example
"""


def test_doctest_blocks_and_sphinx_doctest_directives_are_code_blocks() -> None:
    """docutils' doctest blocks (`>>>` after a paragraph: 851 in Python's reST sources)
    were no code blocks, and sphinx.ext.doctest's directives' bodies were paragraphs:
    python3.11's sources had 4,372 code blocks, 5,246 after, 759 of them pycon."""
    document = parse_rst(DOCTESTS, "page.rst")
    assert [(c.language, c.line, c.end_line) for c in document.codeblocks] == [
        ("pycon", 6, 7),
        ("pycon", 11, 12),
        ("pycon", 17, 19),
        ("python", 23, 24),
        (None, 28, 28),
        ("python", 32, 32),
        (None, 36, 38),
    ]
    assert document.codeblocks[2].code == ">>> import json\n>>> json.dumps([1, 2])\n'[1, 2]'"
    assert document.codeblocks[-1].code == ".. doctest::\n\n   >>> example"
    assert (6, 7) in document.keep_together
