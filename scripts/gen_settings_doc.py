"""docs/settings.md from the settings table: every environment variable docql-sqlite reads.

    python scripts/gen_settings_doc.py            # print the page
    python scripts/gen_settings_doc.py --check    # exit 1 when docs/settings.md differs

`settings_markdown(settings)` renders any sequence of objects with the attributes `name`,
`default`, `kind` and `doc` (`docql_sqlite.settings.SETTINGS` in the package); the page's
generator (`scripts/gen_docs.py`) and its test call it, so the page cannot drift from the
code. Rows are sorted by name, so the page does not change when the table's order does.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

PAGE = Path(__file__).resolve().parent.parent / "docs" / "settings.md"

HEADER = """\
# Settings: the environment variables

<!-- Generated from docql_sqlite/settings.py by scripts/gen_docs.py: edit the table in the
code, then regenerate this page; a test fails when the two differ. -->

Every environment variable docql-sqlite reads, with its default and what it changes. The
package reads them in one module, `docql_sqlite/settings.py`; options given in code
(`QueryOptions`, `SearchOptions`, `IngestOptions`) or on the command line win over them.
An unset variable and an empty one both mean the default.
"""

UNSET = "unset"


class SettingLike(Protocol):
    """What the renderer reads of a setting (`docql_sqlite.settings.Setting`)."""

    name: str
    default: Any
    kind: Any
    doc: str


def cell(text: str) -> str:
    """One table cell: a single line, its pipes escaped (GFM splits cells at a bare `|`,
    inside code spans too)."""
    return " ".join(text.split()).replace("|", "\\|")


def code(text: str) -> str:
    """Inline code that survives backticks inside it (CommonMark: a longer fence)."""
    run = 1
    while "`" * run in text:
        run += 1
    fence = "`" * run
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def default_text(value: Any) -> str:
    """How a default reads in the table: None is "unset", numbers without a needless `.0`,
    booleans as 1 or 0, everything else in code font as written."""
    if value is None or value == "":
        return UNSET
    if isinstance(value, bool):
        return code("1" if value else "0")
    if isinstance(value, float) and value.is_integer():
        return code(str(int(value)))
    if isinstance(value, enum.Enum):
        value = value.value
    return cell(code(str(value)))


def kind_text(kind: Any) -> str:
    """A setting's kind: a word ("seconds", "path"), a type (`float`), or an enum member."""
    if isinstance(kind, type):
        return kind.__name__
    if isinstance(kind, enum.Enum):
        return str(kind.value)
    return cell(str(kind))


def settings_markdown(settings: Iterable[SettingLike]) -> str:
    """The whole page for `settings`: the header, then one row per setting, by name."""
    rows = sorted(settings, key=lambda s: s.name)
    names = [s.name for s in rows]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"settings named more than once: {', '.join(twice)}")
    lines = [HEADER, "| variable | default | kind | meaning |", "|---|---|---|---|"]
    for s in rows:
        cells = (code(s.name), default_text(s.default), kind_text(s.kind), cell(s.doc))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    from docql_sqlite.settings import SETTINGS

    page = settings_markdown(SETTINGS)
    if "--check" in argv:
        if PAGE.read_text(encoding="utf-8") != page:
            print(f"{PAGE} is out of date: run python scripts/gen_settings_doc.py > {PAGE}")
            return 1
        return 0
    sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
