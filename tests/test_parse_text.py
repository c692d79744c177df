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


@pytest.mark.parametrize("text", ["", "not json", "[]", '{"cells": 3}', '{"metadata": {}}'])
def test_corrupt_notebook(text: str) -> None:
    with pytest.raises(IngestError, match=r"^corrupt notebook: "):
        parse_notebook(text, "bad.ipynb")


def test_configuration_files_are_indexed_as_text_and_json_is_not(tmp_index) -> None:
    """An OpenAPI YAML or a TOML config is searchable (people ask where a route or a port
    is defined); JSON stays out (lock files, data dumps)."""
    tmp_index.write_many(
        {
            "api/swagger.yaml": "paths:\n  /containers/json:\n    get:\n      summary: List containers\n",
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
