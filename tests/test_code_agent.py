"""Code intelligence over MCP (issue 23): `repo_map` and the reference queries through
`docql_query`, with the MCP SDK's own client against a real stdio server."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp", reason="MCP tests need the 'mcp' extra")
sys.path.insert(0, str(Path(__file__).parent))

from mcp_client import stdio_session, text  # noqa: E402

import docql_sqlite  # noqa: E402
from docql_sqlite.repomap import count_tokens  # noqa: E402

SHAPES = """class Shape:
    def area(self):
        return 0


def make(kind):
    return Shape()
"""
APP = """from shapes import make


def main():
    return [make("a"), make("b")]


def other():
    return make("c")
"""


@pytest.fixture(scope="module")
def code_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("code")
    (root / "src").mkdir()
    (root / "src" / "shapes.py").write_text(SHAPES)
    (root / "src" / "app.py").write_text(APP)
    db = root / "code.db"
    docql_sqlite.index(db, [str(root / "src")])
    return db


def test_every_caller_and_its_code_in_one_call(code_db: Path) -> None:
    async def session() -> str:
        async with stdio_session(code_db) as (s, _):
            return text(
                await s.call_tool(
                    "docql_query", {"query": '$.code.callers("make")', "bodies": True}
                )
            )

    reply = anyio.run(session)
    assert reply.count('"kind": "call"') == 3
    assert 'def main():\\n    return [make(\\"a\\"), make(\\"b\\")]' in reply
    assert 'def other():\\n    return make(\\"c\\")' in reply
    assert '"resolution": "import"' in reply and '"caller": "other"' in reply


def test_repo_map_tool_fits_its_budget(code_db: Path) -> None:
    async def session() -> tuple[str, str, Any]:
        async with stdio_session(code_db) as (s, _):
            small = text(await s.call_tool("repo_map", {"budget": 12}))
            focused = text(await s.call_tool("repo_map", {"budget": 200, "focus": "main"}))
            bad = await s.call_tool("repo_map", {"focus": "nothing_like_this"})
            return small, focused, bad

    small, focused, bad = anyio.run(session)
    body, tail = small.rsplit("(", 1)
    used = int(re.match(r"(\d+) of 12 tokens", tail).group(1))  # type: ignore[union-attr]
    assert count_tokens(body) == used <= 12
    assert "src/app.py:" in focused and "def main()" in focused
    assert bad.is_error and "names no symbol and no file" in text(bad)


def test_the_instructions_teach_the_reference_queries(code_db: Path) -> None:
    async def session() -> str:
        async with stdio_session(code_db) as (_, init):
            return str(init.instructions)

    instructions = anyio.run(session)
    assert '$.code.callers("f")' in instructions and "repo_map" in instructions
