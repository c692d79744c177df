"""docs/settings.md is rendered from the settings table (scripts/gen_settings_doc.py).

The renderer is tested on a small fake table, its output read back by a real Markdown
parser (markdown-it-py with GFM tables): what a reader's viewer shows is what the table
says. The page in the repository must name every `DOCQL_*` variable the package reads.
"""

from __future__ import annotations

import enum
import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from markdown_it import MarkdownIt

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "settings.md"


def load_renderer() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_settings_doc", REPO / "scripts" / "gen_settings_doc.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = load_renderer()


class Fake:
    """A setting as `docql_sqlite.settings.Setting` has it: four attributes."""

    def __init__(self, name: str, default: Any, kind: Any, doc: str) -> None:
        self.name, self.default, self.kind, self.doc = name, default, kind, doc


class Unit(enum.Enum):
    SECONDS = "seconds"


FAKES = [
    Fake("DOCQL_ZETA", None, "path", "Where the zeta files go."),
    Fake("DOCQL_ALPHA", 5.0, Unit.SECONDS, "A limit.\n  0 or `none`: no limit."),
    Fake("DOCQL_PIPE", "a|b", str, "Either `x|y` or z | w."),
    Fake("DOCQL_ON", True, "switch", "On unless `0`."),
    Fake("DOCQL_TICK", "`q`", "text", "A default with backticks."),
    Fake("DOCQL_URL", "http://127.0.0.1:8080/v1", "URL", "Base URL."),
    Fake("DOCQL_EMPTY", "", int, "Empty means unset."),
]


def table_cells(markdown: str) -> list[list[str]]:
    """The table's rows as a GFM viewer reads them: inline text of every cell, header first."""
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    rows: list[list[str]] = []
    for token in tokens:
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and rows and token.level > 0:
            rows[-1].append(token.content)
    return rows


def test_every_setting_is_one_row_sorted_by_name_with_four_cells() -> None:
    page = gen.settings_markdown(FAKES)
    rows = table_cells(page)
    assert rows[0] == ["variable", "default", "kind", "meaning"]
    assert [r[0] for r in rows[1:]] == [f"`{n}`" for n in sorted(f.name for f in FAKES)]
    assert all(len(r) == 4 for r in rows)
    assert page.startswith(gen.HEADER) and page.endswith("|\n")


def test_cells_read_back_as_written() -> None:
    rows = {r[0].strip("`"): r[1:] for r in table_cells(gen.settings_markdown(FAKES))[1:]}
    assert rows["DOCQL_ZETA"] == ["unset", "path", "Where the zeta files go."]
    # a float that is a whole number loses its ".0"; an enum shows its value; lines join
    assert rows["DOCQL_ALPHA"] == ["`5`", "seconds", "A limit. 0 or `none`: no limit."]
    # a pipe, in code or not, stays inside its cell
    assert rows["DOCQL_PIPE"] == ["`a|b`", "str", "Either `x|y` or z | w."]
    assert rows["DOCQL_ON"][0] == "`1`"
    assert rows["DOCQL_TICK"][0] == "`` `q` ``"  # a longer fence around backticks
    assert rows["DOCQL_URL"][0] == "`http://127.0.0.1:8080/v1`"
    assert rows["DOCQL_EMPTY"][:2] == ["unset", "int"]


def test_a_secret_default_is_never_printed() -> None:
    secret = [
        Fake("DOCQL_KEY", "sk-123", "secret", "A key."),
        Fake("DOCQL_NONE", None, "secret", ""),
    ]
    page = gen.settings_markdown(secret)
    assert "sk-123" not in page
    rows = {r[0].strip("`"): r[1] for r in table_cells(page)[1:]}
    assert rows == {"DOCQL_KEY": "set (not shown)", "DOCQL_NONE": "unset"}


def test_the_order_of_the_table_does_not_change_the_page() -> None:
    assert gen.settings_markdown(reversed(FAKES)) == gen.settings_markdown(FAKES)


def test_a_name_given_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="DOCQL_ZETA"):
        gen.settings_markdown([*FAKES, Fake("DOCQL_ZETA", 1, "integer", "again")])


def test_the_page_is_in_the_renderers_format() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert page.startswith(gen.HEADER)
    rows = table_cells(page)
    assert rows[0] == ["variable", "default", "kind", "meaning"]
    names = [r[0].strip("`") for r in rows[1:]]
    assert names == sorted(names) and len(set(names)) == len(names)
    assert all(len(r) == 4 and r[3] for r in rows[1:])


def test_the_page_names_every_variable_the_package_reads() -> None:
    """An oracle independent of the settings module: every DOCQL_ name in the package."""
    read = set()
    for source in (REPO / "docql_sqlite").rglob("*.py"):
        read |= set(re.findall(r"\bDOCQL_[A-Z][A-Z_]*[A-Z]\b", source.read_text("utf-8")))
    documented = {r[0].strip("`") for r in table_cells(PAGE.read_text(encoding="utf-8"))[1:]}
    assert read and read <= documented, sorted(read - documented)


def test_the_page_equals_the_settings_table_when_the_package_has_one() -> None:
    settings = pytest.importorskip("docql_sqlite.settings")
    page = PAGE.read_text(encoding="utf-8")
    assert page == gen.settings_markdown(settings.SETTINGS), (
        "docs/settings.md is out of date: python scripts/gen_settings_doc.py > docs/settings.md"
    )
