"""The MCP server through the SDK's own client: stdio (a spawned `docql-sqlite mcp DB`) and
Streamable HTTP (a live server on 127.0.0.1).

Expected content comes from the files on disk (the oracle: what a line range of a file
says) and from the hand-written outlines in tests/expected/toc/, never from the server.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp", reason="the MCP tests need the mcp extra (make test installs it)")

from conftest import file_lines, file_text  # noqa: E402
from mcp_client import (  # noqa: E402
    CLI,
    REPO,
    http_get,
    http_post,
    http_server,
    http_server_process,
    http_session,
    stdio_session,
    text,
)

import docql_sqlite  # noqa: E402
from docql_sqlite.agent.tools import CHAR_CAP  # noqa: E402
from docql_sqlite.globs import matcher as path_glob  # noqa: E402

EXPECTED_TOC = REPO / "tests" / "expected" / "toc"
TOOLS = {
    "docql_query": {"query", "limit", "offset", "bodies"},
    "search": {"query", "mode", "limit", "paths", "intent", "offset"},
    "get": {"path", "from", "count", "offset"},
    "toc": {"path", "offset"},
    "context": {"question", "budget"},
    "repo_map": {"paths", "budget", "focus"},
    "status": set(),
}


@pytest.fixture(scope="module")
def corpus_url(corpus_db: Path) -> Any:
    """One live HTTP server over the datasets index for the module (no token): most tests
    connect to it, which costs far less than spawning a stdio server each."""
    with http_server(corpus_db) as base:
        yield base + "/mcp"


def run(coro: Any) -> Any:
    return anyio.run(lambda: coro)


def lines_of(path: str, first: int, last: int) -> str:
    return "\n".join(file_lines(REPO / path)[first - 1 : last])


# -- the agent's session (issue item 6) -----------------------------------------------
def test_agent_session_over_datasets(corpus_db: Path) -> None:
    """outline → chapter by number → a class's full source → a Chinese question → `get` at
    the returned location → a context pack; each step checked against the files."""

    async def session() -> None:
        async with stdio_session(corpus_db) as (s, _):
            doc = "datasets/en/handbook/03-architecture.md"
            # 1. the outline, exactly the hand-written one
            outline = text(await s.call_tool("toc", {"path": doc}))
            expected = json.loads(
                (EXPECTED_TOC / "datasets__en__handbook__03-architecture.md.json").read_text()
            )
            want = [doc] + [
                f"  {'  ' * (h['level'] - 1)}{h['number']} {h['title']}  "
                f"({doc}:{h['line']}-{h['end_line']})"
                for h in expected
            ]
            assert outline.split("\n") == want

            # 2. the chapter numbered 1.2, by number: its lines of the file, whole
            reply = await s.call_tool(
                "docql_query",
                {"query": '$.files[?(@.path~="03-architecture")].content.chapter("1.2")'},
            )
            assert not reply.is_error
            header, item_line = text(reply).split("\n")
            assert header == "1 result from offset 0; showing 1:"
            chapter = json.loads(item_line)
            assert (chapter["title"], chapter["line"], chapter["end_line"]) == (
                "Indexing Pipeline Architecture",
                67,
                130,
            )
            assert chapter["location"] == f"{doc}:67-130"
            assert chapter["content"].rstrip("\n") == lines_of(doc, 67, 130).rstrip("\n")

            # 3. a class's full source
            reply = await s.call_tool("docql_query", {"query": '$.code.class("DocQLLexer")'})
            symbol = json.loads(text(reply).split("\n")[1])
            code = "datasets/code/python/docql_lexer.py"
            assert symbol["location"] == f"{code}:56-143"
            assert symbol["source"].rstrip("\n") == lines_of(code, 56, 143)
            assert symbol["source"].startswith("class DocQLLexer:\n")

            # 4. a Chinese question: the FAQ entry that answers it comes first
            found = text(await s.call_tool("search", {"query": "如何报告安全问题？", "limit": 3}))
            first = found.split("\n\n")[0]
            faq = "datasets/zh/常见问题.md"
            assert first.startswith(f"[1] {faq}:81-89 § 如何报告安全问题？ (score ")
            location = re.match(r"\[1\] (\S+)", first).group(1)  # type: ignore[union-attr]

            # 5. read the lines at the returned location
            got = text(await s.call_tool("get", {"path": location}))
            assert (
                got
                == f"--- {faq}:81-89 (lines 81-89 of {len(file_lines(REPO / faq))}) ---\n"
                + (lines_of(faq, 81, 89))
            )
            assert "请不要在公开频道报告安全问题" in got

            # 6. a context pack for a question, within its budget, labelled by location
            pack = text(
                await s.call_tool(
                    "context", {"question": "How does a write become searchable?", "budget": 3000}
                )
            )
            assert len(pack) <= 3000
            assert f"--- {doc}:69-" in pack  # the section "How a Write Becomes Searchable"
            for label in re.findall(r"^--- (\S+?):(\d+)(?:-(\d+))? ", pack, re.M):
                assert (REPO / label[0]).is_file()

    run(session())


# -- tools, schemas, instructions, errors ---------------------------------------------
def test_tools_schemas_and_instructions(corpus_db: Path, corpus_url: str) -> None:
    async def session() -> None:
        async with http_session(corpus_url) as (s, init):
            listed = {t.name: t for t in (await s.list_tools()).tools}
            assert {n: set(t.input_schema["properties"]) for n, t in listed.items()} == TOOLS
            assert listed["docql_query"].input_schema["required"] == ["query"]
            assert listed["get"].input_schema["required"] == ["path"]
            assert listed["search"].input_schema["properties"]["mode"]["enum"] == [
                "smart",
                "bm25",
                "vector",
                "hybrid",
            ]
            assert all(t.annotations.read_only_hint for t in listed.values())
            with docql_sqlite.open(corpus_db) as idx:
                figures = idx.status()
            rules = init.instructions
            for root in ("$.toc", "$.content", "$.code", "$.entities", "$.files"):
                assert root in rules
            assert f"Index: {figures['documents']} documents (" in rules
            assert f"{figures['by_format']['markdown']} markdown" in rules
            assert "Vectors: no" in rules
            assert "python" in rules and "kotlin" in rules

    run(session())


def test_bad_query_and_empty_search_say_how_to_fix(corpus_db: Path, corpus_url: str) -> None:
    async def session() -> None:
        async with http_session(corpus_url) as (s, _):
            bad = await s.call_tool("docql_query", {"query": "$.toc[?(@.level==1)"})
            assert bad.is_error
            assert text(bad).split("\n")[:3] == [
                "DocQLSyntaxError: expected ']' at line 1, column 20",
                "  $.toc[?(@.level==1)",
                "                     ^",
            ]
            assert "hint: fix the query at the caret" in text(bad)
            typo = await s.call_tool("docql_query", {"query": '$.content.hedaing("x")'})
            assert typo.is_error and "did you mean 'heading'?" in text(typo)
            none = await s.call_tool("search", {"query": "zqxjv wplmk"})
            assert not none.is_error
            assert text(none).startswith("no passages match 'zqxjv wplmk'")
            assert "broader" in text(none)
            missing = await s.call_tool("get", {"path": "datasets/nothing.md"})
            assert missing.is_error and "no document 'datasets/nothing.md'" in text(missing)
            past = await s.call_tool("get", {"path": "datasets/zh/config.md:500"})
            assert past.is_error and "line 500 is past its end" in text(past)

    run(session())


def test_caps_page_with_offset(corpus_db: Path, corpus_url: str) -> None:
    """A reply over the cap says "N more — call again with offset=K"; following the
    offsets gives every heading exactly once, in order."""
    with docql_sqlite.open(corpus_db) as idx:
        headings = idx.toc()

    async def session() -> None:
        seen: list[str] = []
        async with http_session(corpus_url) as (s, _):
            offset, pages = 0, 0
            while True:
                reply = text(await s.call_tool("toc", {"offset": offset}))
                assert len(reply) <= CHAR_CAP + 200
                body = reply.split("\n")
                tail = re.fullmatch(r"(\d+) more headings — call again with offset=(\d+)", body[-1])
                lines = body[:-1] if tail else body
                seen += [ln for ln in lines if ln.startswith("  ")]
                pages += 1
                if not tail:
                    break
                assert int(tail.group(1)) == len(headings) - int(tail.group(2))
                offset = int(tail.group(2))
            assert pages > 1
            # get: a long document is cut on a line boundary and continues with from=K
            doc = "datasets/en/handbook/04-configuration.md"
            whole = file_lines(REPO / doc)
            first = text(await s.call_tool("get", {"path": doc}))
            assert not first.startswith("--- ") or first.split("\n")[1] == whole[0]

        assert [re.search(r"\((\S+)\)$", ln).group(1) for ln in seen] == [  # type: ignore[union-attr]
            f"{h['path']}:{h['line']}-{h['end_line']}" for h in headings
        ]

    run(session())


def test_query_page_cut_by_limit_names_the_next_offset(corpus_db: Path, corpus_url: str) -> None:
    """A `docql_query` page cut by `limit` names the offset to call again with (it ended
    with no "more" line and next_offset None), and the pages cover every result once."""
    with docql_sqlite.open(corpus_db) as idx:
        files = [f["path"] for f in idx.query("$.files")]
    assert len(files) > 3

    async def session() -> None:
        async with http_session(corpus_url) as (s, _):
            seen: list[str] = []
            offset: int | None = 0
            while offset is not None:
                reply = await s.call_tool(
                    "docql_query", {"query": "$.files", "limit": 2, "offset": offset}
                )
                data = reply.structured_content
                assert data is not None
                seen += [i["path"] for i in data["items"]]
                offset = data["next_offset"]
                if offset is not None:
                    assert text(reply).endswith(f"call again with offset={offset}")
                    assert data["more_than_found"] is True
            assert seen == files

    run(session())


def test_query_with_limit_zero_counts_the_results(corpus_db: Path, corpus_url: str) -> None:
    """`limit: 0` answers how many results there are (it said "no results", which sent a
    model to widen a query that matches)."""
    with docql_sqlite.open(corpus_db) as idx:
        files = [f["path"] for f in idx.query("$.files")]

    async def session() -> None:
        async with http_session(corpus_url) as (s, _):
            reply = await s.call_tool("docql_query", {"query": "$.files", "limit": 0})
            data = reply.structured_content
            assert data is not None and not reply.is_error
            assert text(reply).startswith(f"{len(files)} results from offset 0; none shown")
            assert (data["found"], data["items"], data["next_offset"]) == (len(files), [], 0)
            reply = await s.call_tool("docql_query", {"query": "$.files", "limit": 0, "offset": 2})
            assert reply.structured_content["found"] == len(files) - 2  # type: ignore[index]
            reply = await s.call_tool(
                "docql_query", {"query": '$.files[?(@.name == "no-such-file")]', "limit": 0}
            )
            assert text(reply).startswith("0 results from offset 0; none shown")
            assert reply.structured_content["next_offset"] is None  # type: ignore[index]

    run(session())


def test_search_offset_past_its_hits_says_so(corpus_db: Path, corpus_url: str) -> None:
    """A `search` offset past its hits says so instead of "no passages match" (which sent
    a model to rephrase a query that works)."""

    async def session() -> None:
        async with http_session(corpus_url) as (s, _):
            every = await s.call_tool("search", {"query": "configuration", "limit": 100})
            assert every.structured_content is not None
            count = len(every.structured_content["hits"])
            assert 0 < count < 100
            past = await s.call_tool(
                "search", {"query": "configuration", "limit": 5, "offset": count}
            )
            assert not past.is_error
            assert text(past).startswith(f"no more hits: {count} passages match 'configuration'")
            assert f"offset {count} is past them" in text(past)

    run(session())


def test_repo_map_of_no_code_says_why(corpus_db: Path, corpus_url: str) -> None:
    """A map whose paths hold no code answers with its note and an empty map (it reached
    the client as "Error executing tool repo_map": the note had no structured content for
    the tool's output schema)."""

    async def session() -> None:
        async with http_session(corpus_url) as (s, _):
            empty = await s.call_tool("repo_map", {"paths": ["nothing/**"]})
            assert not empty.is_error, text(empty)
            assert text(empty).startswith("no code symbols under nothing/**")
            data = empty.structured_content
            assert data is not None
            assert data["symbols"] == [] and data["note"] == text(empty)

    run(session())


def test_get_a_location_with_count(corpus_db: Path, corpus_url: str) -> None:
    """`get` takes a location as results print it (`path:12`, `path:12-40`) together with
    `count`: that many lines from the location's line (it answered "no document
    'path:12'", the location read as one path)."""
    doc = "datasets/en/handbook/04-configuration.md"

    async def session() -> None:
        async with http_session(corpus_url) as (s, _):
            for path, count, first in [(f"{doc}:5", 3, 5), (f"{doc}:7-40", 2, 7)]:
                reply = await s.call_tool("get", {"path": path, "count": count})
                assert not reply.is_error, text(reply)
                data = reply.structured_content
                assert data is not None
                assert (data["first"], data["last"]) == (first, first + count - 1)
                assert data["text"] == lines_of(doc, first, first + count - 1)
            missing = await s.call_tool("get", {"path": "datasets/nothing.md:5", "count": 2})
            assert missing.is_error and "no document 'datasets/nothing.md'" in text(missing)

    run(session())


def test_toc_offset_past_the_end_says_so(corpus_db: Path, corpus_url: str) -> None:
    """A `toc` offset past the outline says how many headings there are (the reply was
    empty text, which a model cannot act on)."""
    doc = "datasets/en/handbook/03-architecture.md"
    with docql_sqlite.open(corpus_db) as idx:
        count = len(idx.toc(doc))

    async def session() -> None:
        async with http_session(corpus_url) as (s, _):
            past = await s.call_tool("toc", {"path": doc, "offset": count})
            assert not past.is_error
            assert text(past) == (
                f"no headings at offset {count}: {doc} has {count} headings — call again "
                f"with an offset below {count}"
            )
            assert past.structured_content == {"headings": [], "next_offset": None}

    run(session())


def test_search_paths_matching_no_document_say_so(corpus_db: Path, corpus_url: str) -> None:
    """A `paths` filter that matches no indexed document is named as the cause (the reply
    said "no passages match … try fewer or broader words", sending the model to rephrase
    words that match: here `en/**` for paths that start with `datasets/`)."""

    async def session() -> None:
        async with http_session(corpus_url) as (s, _):
            found = await s.call_tool("search", {"query": "configuration", "paths": ["**/en/**"]})
            assert text(found).startswith("[1] datasets/en/")
            rooted = await s.call_tool("search", {"query": "configuration", "paths": ["en/**"]})
            assert not rooted.is_error
            assert text(rooted).startswith(
                "no indexed document matches the paths filter ['en/**'], so nothing was searched"
            )
            assert "'**/name/**' matches at any depth" in text(rooted)
            words = await s.call_tool("search", {"query": "zqxjv wplmk", "paths": ["**/en/**"]})
            assert text(words).startswith("no passages match 'zqxjv wplmk'")

    run(session())


# -- glob get, resources, prompt -------------------------------------------------------
@pytest.mark.parametrize(
    "pattern, path, matches",
    [
        ("docs/**/*.md", "docs/a.md", True),
        ("docs/**/*.md", "docs/x/y/a.md", True),
        ("docs/*.md", "docs/x/a.md", False),
        ("docs/*.md", "docs/a.md", True),
        ("**/*.py", "a/b/c.py", True),
        ("**/*.py", "c.py", True),
        ("doc?/a.md", "docs/a.md", True),
        ("doc?/a.md", "doc/a.md", False),
        ("a[bc].md", "ab.md", True),
        ("a[!b].md", "ab.md", False),
        ("x.md", "y/x.md", True),  # gitignore: a name without "/" matches at any depth
        ("/x.md", "y/x.md", False),
        ("zh/常*.md", "zh/常见问题.md", True),
    ],
)
def test_path_glob(pattern: str, path: str, matches: bool) -> None:
    assert path_glob(pattern)(path) is matches


def test_glob_get_many_documents_under_a_byte_cap(corpus_db: Path, corpus_url: str) -> None:
    zh = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "datasets" / "zh").glob("*.md"))

    async def session() -> None:
        async with http_session(corpus_url) as (s, _):
            reply = text(await s.call_tool("get", {"path": "datasets/zh/*.md"}))
            blocks = re.split(r"(?:^|\n\n)=== (\S+) \((\d+) lines\) ===\n", reply)[1:]
            names = blocks[0::3]
            assert sorted(names) == zh and names == sorted(names, key=lambda p: p.encode())
            for name, count, body in zip(blocks[0::3], blocks[1::3], blocks[2::3]):
                assert body == file_text(REPO / name).rstrip("\n")
                assert int(count) == len(file_lines(REPO / name))
            # more than one reply holds: pages of whole documents, each within the cap,
            # "N more documents match — call again with offset=K" until every one was seen
            all_md = sorted(
                (
                    p.relative_to(REPO).as_posix()
                    for p in (REPO / "datasets").rglob("*.md")
                    if "bad" not in p.parts
                ),
                key=lambda p: p.encode(),
            )
            seen: list[str] = []
            offset, pages = 0, 0
            while True:
                reply = await s.call_tool("get", {"path": "datasets/**/*.md", "offset": offset})
                page = text(reply)
                assert len(page) <= CHAR_CAP
                pages += 1
                for name, body in re.findall(
                    r"^=== (\S+) \(\d+ lines\) ===\n(.*?)(?=\n\n=== |\n\n\d+ more |\Z)",
                    page,
                    re.M | re.S,
                ):
                    assert body == file_text(REPO / name).rstrip("\n")
                seen += re.findall(r"^=== (\S+) \(", page, re.M)
                data = reply.structured_content
                assert [d["path"] for d in data["documents"]] + [
                    d["path"] for d in data["too_long"]
                ] == re.findall(r"^=== (\S+) \(", page, re.M)
                tail = re.search(
                    r"\n\n(\d+) more documents match — call again with offset=(\d+)$", page
                )
                if not tail:
                    assert data["next_offset"] is None
                    break
                assert int(tail.group(1)) == len(all_md) - int(tail.group(2))
                offset = int(tail.group(2))
                assert data["next_offset"] == offset
            assert pages > 1 and seen == all_md
            nothing = await s.call_tool("get", {"path": "nowhere/**/*.md"})
            assert nothing.is_error and "no indexed document matches" in text(nothing)

    run(session())


def test_resources_prompt_and_long_get_over_stdio(tmp_index: Any) -> None:
    """Documents as resources (listed in pages of 100, read back whole), the prompt, and a
    document longer than the cap read in parts with from=K."""
    long_lines = [f"line {n} " + "x" * 90 for n in range(1, 601)]  # ~60,000 characters
    tmp_index.write("long.md", "\n".join(long_lines) + "\n")
    for n in range(129):
        tmp_index.write(f"d{n:03}.md", f"# Doc {n}\n\nbody {n}\n")
    tmp_index.write("zh/常见问题.md", "# 常见问题\n\n文档在哪里？\n")
    docql_sqlite.index(tmp_index.db, ["docs"], workers=0)

    async def session() -> None:
        async with stdio_session(tmp_index.db, cwd=tmp_index.root) as (s, _):
            first = await s.list_resources()
            assert len(first.resources) == 100 and first.next_cursor
            second = await s.list_resources(params={"cursor": first.next_cursor})  # type: ignore[arg-type]
            assert len(second.resources) == 31 and second.next_cursor is None
            listed = [r.name for r in first.resources + second.resources]
            assert listed == sorted(
                [f"docs/d{n:03}.md" for n in range(129)] + ["docs/long.md", "docs/zh/常见问题.md"],
                key=lambda p: p.encode(),
            )
            templates = (await s.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["docql://{+path}"]
            for resource in (first.resources[7], second.resources[-1]):
                read = await s.read_resource(resource.uri)
                assert read.contents[0].text == file_text(tmp_index.root / resource.name)
            prompts = (await s.list_prompts()).prompts
            assert [p.name for p in prompts] == ["docql_guide"]
            guide = await s.get_prompt("docql_guide", {"question": "Where is the FAQ?"})
            body = guide.messages[0].content.text  # type: ignore[union-attr]
            assert body.startswith("# Answering questions with DocQL")
            assert "$.content.chapter(" in body and body.endswith("The question: Where is the FAQ?")

            got: list[str] = []
            args: dict[str, Any] = {"path": "docs/long.md"}
            while True:
                reply = text(await s.call_tool("get", args))
                assert len(reply) <= CHAR_CAP + 200
                body_lines = reply.split("\n")
                assert body_lines[0].startswith(f"--- docs/long.md:{len(got) + 1}-")
                tail = re.fullmatch(
                    r"(\d+) more lines — call again with from=(\d+)", body_lines[-1]
                )
                got += body_lines[1:-1] if tail else body_lines[1:]
                if not tail:
                    break
                assert int(tail.group(1)) == 600 - int(tail.group(2)) + 1
                args = {"path": "docs/long.md", "from": int(tail.group(2))}
            assert got == long_lines

    run(session())


def test_get_many_facade(tmp_index: Any) -> None:
    tmp_index.write("a.md", "# A\n" + "a" * 100 + "\n")
    tmp_index.write("sub/b.md", "# B\n" + "b" * 100 + "\n")
    tmp_index.write("sub/c.md", "# C\n" + "c" * 100 + "\n")
    tmp_index.write("sub/d.txt", "d\n")
    docql_sqlite.index(tmp_index.db, ["docs"], workers=0)
    with docql_sqlite.open(tmp_index.db) as idx:
        every = idx.get_many("docs/**/*.md", max_bytes=10_000)
        assert [e.path for e in every.excerpts] == ["docs/a.md", "docs/sub/b.md", "docs/sub/c.md"]
        assert every.excerpts[1].text == "# B\n" + "b" * 100 + "\n"
        assert every.skipped == []
        tight = idx.get_many("docs/**/*.md", max_bytes=220)
        assert [e.path for e in tight.excerpts] == ["docs/a.md", "docs/sub/b.md"]
        assert tight.skipped == [("docs/sub/c.md", 105)]
        assert [e.path for e in idx.get_many("docs/*.md").excerpts] == ["docs/a.md"]


# -- Streamable HTTP: the session, Origin/Host, the bearer token, /health -------------
def test_http_transport_guards_and_serves(corpus_db: Path) -> None:
    with http_server(corpus_db, "--token", "s3cret") as base:
        url = base + "/mcp"
        assert http_get(base + "/health")[0] == 200
        assert json.loads(http_get(base + "/health")[1])["status"] == "ok"
        init = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "0"},
                },
            }
        ).encode()
        plain = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        bearer = {**plain, "Authorization": "Bearer s3cret"}
        # refused: no token, a wrong token, a foreign Origin (even with the token), a foreign Host
        assert http_post(url, init, plain)[0] == 401
        assert http_post(url, init, {**plain, "Authorization": "Bearer nope"})[0] == 401
        status, body = http_post(url, init, {**bearer, "Origin": "http://evil.example"})
        assert status == 403 and b"other origins" in body
        assert http_get(base + "/health", {"Origin": "http://evil.example"})[0] == 403
        assert http_post(url, init, {**bearer, "Host": "evil.example:80"})[0] == 421
        assert http_get(base + "/health", {"Host": "attacker.test"})[0] == 421
        # accepted: the token, also from a local page
        assert http_post(url, init, {**bearer, "Origin": "http://localhost:5173"})[0] == 200

        async def session(headers: dict[str, str]) -> str:
            async with http_session(url, headers) as (s, init_result):
                assert "$.code" in init_result.instructions
                reply = await s.call_tool("docql_query", {"query": '$.code.class("IndexWriter")'})
                return text(reply)

        reply = run(session({"Authorization": "Bearer s3cret"}))
        assert '"name": "IndexWriter"' in reply
        with pytest.raises(BaseException):  # the SDK client fails on the 401
            run(session({"Authorization": "Bearer wrong"}))


def test_http_without_token_and_bad_arguments(
    corpus_db: Path, corpus_url: str, tmp_path: Path
) -> None:
    async def session() -> str:
        async with http_session(corpus_url) as (s, _):
            return text(await s.call_tool("status", {}))

    assert json.loads(run(session()))["documents"] > 20

    for args, message in [
        (["--http", "nope"], "is not [HOST:]PORT"),
        (["--http", "127.0.0.1:0"], "a port is a number from 1 to 65535"),
        (["--token", "x"], "--token applies to --http only"),
    ]:
        done = subprocess.run(
            [str(CLI), "mcp", str(corpus_db), *args], capture_output=True, text=True, timeout=30
        )
        assert done.returncode == 2 and message in done.stderr, done.stderr
    done = subprocess.run(
        [str(CLI), "mcp", str(tmp_path / "none.db")], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2 and "no index at" in done.stderr


def test_settings_from_the_environment(corpus_db: Path) -> None:
    """DOCQL_MCP_TOKEN guards `--http` as `--token` does (and stdio ignores it); a bad
    DOCQL_MCP_WORKERS stops the server at start with one line (docs/settings.md)."""
    init = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        }
    ).encode()
    plain = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with http_server_process(corpus_db, env={"DOCQL_MCP_TOKEN": "from-env"}) as (base, _):
        assert http_post(base + "/mcp", init, plain)[0] == 401
        bearer = {**plain, "Authorization": "Bearer from-env"}
        assert http_post(base + "/mcp", init, bearer)[0] == 200
    environment = {**os.environ, "DOCQL_MCP_WORKERS": "0"}
    done = subprocess.run(
        [str(CLI), "mcp", str(corpus_db)],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert done.stderr == "error: DOCQL_MCP_WORKERS='0' is not a whole number from 1 to 64\n"
    # stdio with the token variable set: served, not refused as `--token` without --http is
    done = subprocess.run(
        [str(CLI), "mcp", str(corpus_db)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "DOCQL_MCP_TOKEN": "from-env"},
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr


# -- --watch: the index follows edits and deletions -------------------------------------
def wait_until(check: Any, nudge: Any, seconds: float = 40.0) -> Any:
    """Poll `check()` until it returns something truthy (bounded); `nudge()` re-writes the
    change every 2 s, in case it landed before the watcher started."""
    import time

    deadline = time.monotonic() + seconds
    last_nudge = time.monotonic()
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        if time.monotonic() - last_nudge > 2:
            nudge()
            last_nudge = time.monotonic()
        time.sleep(0.2)
    raise AssertionError(f"not seen within {seconds} s")


def test_server_watch_picks_up_an_edit_and_a_deletion(tmp_index: Any) -> None:
    tmp_index.write("a.md", "# Alpha\n\nold words\n")
    tmp_index.write("b.md", "# Beta\n\nsoon gone\n")
    tmp_index.write("skip/hidden.md", "# Hidden\n")
    a, b = tmp_index.docs / "a.md", tmp_index.docs / "b.md"
    extra = ("--watch", "docs", "--exclude", "skip")

    async def session() -> None:
        # No index yet: --watch builds it first (with the filters), then follows the files.
        async with stdio_session(tmp_index.db, *extra, cwd=tmp_index.root) as (s, _):
            files = text(await s.call_tool("docql_query", {"query": "$.files.path"}))
            assert files.split("\n")[1:] == ['"docs/a.md"', '"docs/b.md"']

            async def grep(word: str) -> str:
                query = f'$.content.grep("{word}")'
                return text(await s.call_tool("docql_query", {"query": query}))

            assert '"path": "docs/a.md"' in await grep("old words")
            a.write_text("# Alpha\n\nfresh zebra words\n")
            deadline = anyio.current_time() + 40
            while '"path": "docs/a.md"' not in await grep("fresh zebra"):
                assert anyio.current_time() < deadline, "the edit was not indexed in 40 s"
                if int(anyio.current_time()) % 3 == 0:
                    a.write_text("# Alpha\n\nfresh zebra words\n")
                await anyio.sleep(0.2)
            assert (await grep("old words")).startswith("no results")
            got = text(await s.call_tool("get", {"path": "docs/a.md"}))
            assert got.endswith("# Alpha\n\nfresh zebra words")

            b.unlink()
            deadline = anyio.current_time() + 40
            while "docs/b.md" in text(await s.call_tool("docql_query", {"query": "$.files"})):
                assert anyio.current_time() < deadline, "the deletion was not seen in 40 s"
                await anyio.sleep(0.2)
            gone = await s.call_tool("get", {"path": "docs/b.md"})
            assert gone.is_error and "no document 'docs/b.md'" in text(gone)

    run(session())


def _server_pid(db: Path) -> int:
    """The pid of the `docql-sqlite mcp DB` process this test started."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"mcp" in argv and str(db).encode() in argv:
                return int(entry.name)
    raise AssertionError("no server process found")


def _cpu(pid: int) -> tuple[float, float]:
    """(the process's own CPU seconds, its reaped children's), from /proc."""
    fields = (Path("/proc") / str(pid) / "stat").read_bytes().rsplit(b")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    own = (int(fields[11]) + int(fields[12])) / ticks
    return own, (int(fields[13]) + int(fields[14])) / ticks


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_server_watch_parses_outside_the_server_process(tmp_index: Any) -> None:
    """`mcp --watch` indexes each change in a child process (`ingest/child.py`): a large
    file's parse is that process's CPU, not the server's, whose request threads it held up
    to 0.67 s at a time when it parsed in a thread of its own (SQLite's `sqlite3.c`)."""
    tmp_index.write("a.md", "# Alpha\n\nwords\n")
    big = "".join(f"def f{n}(x):\n    return g{n}(x) + {n}\n\n\n" for n in range(20_000))

    async def session() -> None:
        async with stdio_session(tmp_index.db, "--watch", "docs", cwd=tmp_index.root) as (s, _):
            pid = _server_pid(tmp_index.db)
            own, children = _cpu(pid)
            (tmp_index.docs / "big.py").write_text(big)
            query = {"query": '$.code.functions[?(@.name=="f19999")].name'}
            deadline = anyio.current_time() + 60
            while "f19999" not in text(await s.call_tool("docql_query", query)):
                assert anyio.current_time() < deadline, "the new file was not indexed in 60 s"
                await anyio.sleep(0.2)
            # (the document is readable once committed; the run, then the child, ends after)
            while _cpu(pid)[1] - children < 0.5 and anyio.current_time() < deadline:
                await anyio.sleep(0.2)
            own_after, children_after = _cpu(pid)
            parse = children_after - children
            assert parse > 0.5 and parse > 2 * (own_after - own), (own_after - own, parse)

    run(session())


def test_index_watch_without_a_server(tmp_index: Any) -> None:
    tmp_index.write("a.md", "# Alpha\n\nold words\n")
    tmp_index.write("b.md", "# Beta\n\nsoon gone\n")
    a, b = tmp_index.docs / "a.md", tmp_index.docs / "b.md"
    proc = subprocess.Popen(
        [str(CLI), "index", str(tmp_index.db), "docs", "--watch"],
        cwd=tmp_index.root,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = ""
        while not line.startswith("watching docs"):
            line = proc.stderr.readline()  # type: ignore[union-attr]
            assert line, "index --watch exited before watching"

        def texts() -> list[str]:
            with docql_sqlite.open(tmp_index.db) as idx:
                return [c["content"] for c in idx.query("$.content.chunks()")]

        assert any("old words" in t for t in texts())
        a.write_text("# Alpha\n\nfresh zebra words\n")
        wait_until(
            lambda: any("fresh zebra" in t for t in texts()),
            lambda: a.write_text("# Alpha\n\nfresh zebra words\n"),
        )
        assert not any("old words" in t for t in texts())
        b.unlink()

        def b_gone() -> bool:
            with docql_sqlite.open(tmp_index.db) as idx:
                return [d["path"] for d in idx.documents()] == ["docs/a.md"]

        wait_until(b_gone, lambda: None)
        assert proc.poll() is None  # still watching
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# -- hostile input: nothing written, nothing outside the indexed documents read ---------
SQL_FRAGMENTS = [
    "'; DROP TABLE documents; --",
    '" OR 1=1 --',
    "x'); DELETE FROM chunks; --",
    "1; ATTACH DATABASE '/tmp/evil.db' AS evil; CREATE TABLE evil.t(x); --",
    "%' UNION SELECT readfile('../outside/secret.md') --",
    "\x00",
]
HOSTILE_PATHS = [
    "../outside/secret.md",
    "docs/../../outside/secret.md",
    "docs/../outside/secret.md",
    "/etc/passwd",
    "{secret}",
    "file://{secret}",
    "docs/later.md",  # a symlink out, made after indexing
    "docs/outdir/secret.md",  # through a symlinked directory
    "docs/*/../../outside/*",
    "../**",
    "/**",
    "%",
    "_",
]


def sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_hostile_input_reads_nothing_else_and_writes_nothing(tmp_index: Any) -> None:
    outside = tmp_index.root / "outside"
    outside.mkdir()
    secret = outside / "secret.md"
    secret.write_text("# Secret\n\nTOPSECRET-MARKER\n")
    tmp_index.write("a.md", "# Alpha\n\nhello world\n\n## Beta\n\nmore text\n")
    tmp_index.write("code.py", "class Thing:\n    def run(self):\n        return 1\n")
    docql_sqlite.index(tmp_index.db, ["docs"], workers=0)
    (tmp_index.docs / "later.md").symlink_to(secret)
    (tmp_index.docs / "outdir").symlink_to(outside, target_is_directory=True)
    files = [tmp_index.db] + [p for p in tmp_index.root.glob("index.db-*")]
    before = {p.name: sha256(p) for p in files}
    paths = [p.replace("{secret}", str(secret)) for p in HOSTILE_PATHS]
    huge = 10**12

    calls: list[tuple[str, dict[str, Any]]] = []
    for bad in SQL_FRAGMENTS + paths:
        quoted = json.dumps(bad)
        calls += [
            ("docql_query", {"query": bad}),
            ("docql_query", {"query": f"$.toc[?(@.title=={quoted})]"}),
            ("docql_query", {"query": f"$.content.grep({quoted})"}),
            ("docql_query", {"query": f"$.code.class({quoted})"}),
            ("docql_query", {"query": f"$.files[?(@.path~={quoted})].toc"}),
            ("search", {"query": bad, "paths": [bad], "intent": bad}),
            ("search", {"query": f"lex: {bad}\nvec: {bad}", "mode": "bm25"}),
            ("search", {"query": "hello", "mode": bad}),
            ("get", {"path": bad}),
            ("get", {"path": bad, "from": 1, "count": 5}),
            ("toc", {"path": bad}),
            ("context", {"question": bad, "budget": 500}),
        ]
    calls += [
        ("docql_query", {"query": "$.content.chunks()", "limit": huge, "offset": huge}),
        ("docql_query", {"query": "$.content.chunks()", "limit": -1}),
        ("search", {"query": "hello", "limit": huge, "offset": huge}),
        ("get", {"path": "docs/a.md", "from": huge, "count": huge}),
        ("get", {"path": "docs/a.md:1:1000000000000"}),
        ("context", {"question": "hello", "budget": huge}),
        ("toc", {"offset": huge}),
    ]

    async def session() -> list[str]:
        replies = []
        async with stdio_session(tmp_index.db, cwd=tmp_index.root) as (s, _):
            for name, arguments in calls:
                replies.append(text(await s.call_tool(name, arguments)))
            for uri in (
                "docql://../outside/secret.md",
                "docql:///etc/passwd",
                f"docql://{secret}",
                "docql://docs/later.md",
                "docql://docs/outdir/secret.md",
                "docql://docs/%2e%2e/%2e%2e/outside/secret.md",
            ):
                try:
                    read = await s.read_resource(uri)
                    replies.append("".join(getattr(c, "text", "") for c in read.contents))
                except Exception as exc:  # refused: an MCP error, never the file
                    replies.append(str(exc))
            # still serving, and the index is what it was
            replies.append(text(await s.call_tool("status", {})))
            listed = text(await s.call_tool("docql_query", {"query": "$.files.path"}))
            assert listed.split("\n")[1:] == ['"docs/a.md"', '"docs/code.py"']
        return replies

    replies = run(session())
    assert len(replies) == len(calls) + 7
    for reply in replies:
        assert "TOPSECRET" not in reply
        assert "root:x:0:0" not in reply  # /etc/passwd
    assert {p.name: sha256(p) for p in files} == before
    # A reader may add a shared-memory file, never a journal with something in it.
    for extra in {p.name for p in tmp_index.root.glob("index.db*")} - set(before):
        assert extra == "index.db-shm" or (tmp_index.root / extra).stat().st_size == 0, extra
    assert not Path("/tmp/evil.db").exists()


def test_latency_benchmark_smoke() -> None:
    """benchmarks/mcp_latency.py --smoke: the real benchmark's path end to end on datasets/
    (index + hash vectors, a live HTTP server, every timed tool) in a few seconds."""
    import sys

    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "mcp_latency.py"),
            "--smoke",
            "--n",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert rows[0]["what"] == "corpus" and rows[0]["vectors"] is True
    assert rows[0]["documents"] == 7  # datasets/zh + datasets/code/python
    assert rows[1]["what"] == "load average"
    timed = {r["what"]: r for r in rows[2:]}
    labels = ("status (the transport's floor)", "search smart", "search hybrid", "docql_query")
    assert set(timed) == {
        f"MCP {label} over HTTP{client}"
        for label in labels
        for client in ("", ", plain JSON-RPC client")
    }
    for row in timed.values():
        assert row["calls"] == 2 and row["errors"] == 0 and row["p50 ms"] > 0
        assert row["mean chars"] > 100
        # The server process was found (NaN otherwise); 10 ms clock ticks can read 0.
        assert row["server CPU ms/call"] >= 0
