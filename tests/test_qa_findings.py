"""Regressions for defects a fresh-eyes user test found on real corpora: an unspaced
Chinese question that returned nothing, and MCP resources of documents indexed by
absolute path that could not be read back."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

import docql_sqlite

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def zh_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("qa") / "zh.db"
    docql_sqlite.index(str(db), [str(REPO / "datasets" / "zh")])
    return db


def test_chinese_question_finds_passages_with_its_words(zh_db: Path) -> None:
    with docql_sqlite.open(str(zh_db)) as index:
        # both words occur in datasets/zh (config.md: 关键词 in the glossary, 配置 everywhere)
        assert index.search("关键词", mode="bm25", limit=3)
        assert index.search("配置", mode="bm25", limit=3)
        hits = index.search("如何配置关键词", mode="bm25", limit=3)
    assert hits, "a question made of indexed words came back empty"


def test_mcp_reads_the_resources_it_lists_for_absolute_paths(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    doc = tmp_path / "guide.md"
    doc.write_text("# Guide\n\nHello.\n", encoding="utf-8")
    db = tmp_path / "abs.db"
    docql_sqlite.index(str(db), [str(doc)])  # absolute path, as a user types it

    async def read_first() -> str:
        exe = str(Path(sys.executable).with_name("docql-sqlite"))
        params = StdioServerParameters(command=exe, args=["mcp", str(db)], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_resources()
                result = await session.read_resource(listed.resources[0].uri)
                return result.contents[0].text

    assert asyncio.run(read_first()).startswith("# Guide")
