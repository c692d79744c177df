"""What an agent found by probing the MCP server on a repository nobody here wrote
(starlette and FastAPI's sources): replies that were unbounded, empty or said nothing.
Each through the SDK's own client against a live `docql-sqlite mcp --http` server on
127.0.0.1; the expected text comes from the files on disk.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp", reason="the MCP tests need the mcp extra (make test installs it)")

from mcp_client import (  # noqa: E402
    http_get,
    http_server,
    http_server_process,
    http_session,
    text,
)

import docql_sqlite  # noqa: E402
from docql_sqlite.agent.limits import CHAR_CAP, RESOURCE_CHAR_CAP  # noqa: E402

BIG_LINES = 14_000  # 14,000 lines of 100 characters: 1.4 MB, over the resource cap


def big_line(n: int) -> str:
    return f"line {n:06} " + "y" * 88


@pytest.fixture(scope="module")
def probe_url(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("probes")
    docs = root / "docs"
    docs.mkdir()
    (docs / "big.txt").write_text("".join(big_line(n) + "\n" for n in range(1, BIG_LINES + 1)))
    (docs / "a.md").write_text("# Alpha\n\nThe first document.\n\n## Beta\n\nMore text.\n")
    (docs / "b.md").write_text("# Gamma\n\nThe second document.\n")
    deep = docs / "a1" / "b2" / "c3" / "d4" / "e5"  # paths with slashes, as a real tree's
    deep.mkdir(parents=True)
    (deep / ("a" * 60 + ".md")).write_text("# Deep\n\nA deep document! " + "a" * 800 + "\n")
    db = root / "index.db"
    # Stored paths are relative to the directory the index is built from.
    here = os.getcwd()
    os.chdir(root)
    try:
        docql_sqlite.index(db, ["docs"], workers=0)
    finally:
        os.chdir(here)
    with http_server(db, cwd=root) as base:
        yield base + "/mcp", root


def run(coro: Any) -> Any:
    return anyio.run(lambda: coro)


def test_a_resource_over_the_cap_is_cut_on_a_line_and_names_the_rest(probe_url: Any) -> None:
    """Before: `docql://docs/big.txt` came back whole, however large (a 20 MB document:
    20 MB a read; six clients reading it held `status` for ~1 s)."""
    url, root = probe_url
    lines = (root / "docs" / "big.txt").read_text().split("\n")[:-1]

    async def session() -> None:
        async with http_session(url) as (s, _):
            read = await s.read_resource("docql://docs/big.txt")
            body = read.contents[0].text
            assert len(body) <= RESOURCE_CHAR_CAP + 300
            shown, note = body.rstrip("\n").rsplit("\n", 1)
            kept = shown.split("\n")
            assert kept == lines[: len(kept)]  # whole lines, as in the file
            assert len("\n".join(kept)) + 1 <= RESOURCE_CHAR_CAP < len("\n".join(kept)) + 103
            rest = f"docs/big.txt:{len(kept) + 1}-{BIG_LINES}"
            assert note == (
                f"…[cut at {RESOURCE_CHAR_CAP:,} characters: lines 1-{len(kept)} of "
                f"{BIG_LINES}; the rest is the resource docql://{rest}, or the get tool "
                f"with path {rest}]"
            )
            # Following the note gives the rest of the document, exactly.
            more = (await s.read_resource(f"docql://{rest}")).contents[0].text
            assert more.split("\n")[:-1] == lines[len(kept) :]
            got = await s.call_tool("get", {"path": rest, "count": 2})
            assert text(got).split("\n")[1:] == lines[len(kept) : len(kept) + 2]
            # A document under the cap is still whole.
            small = (await s.read_resource("docql://docs/a.md")).contents[0].text
            assert small == (root / "docs" / "a.md").read_text()
            # And a missing one is a clear error, as before.
            with pytest.raises(Exception, match="no document 'docs/nothing.md' in the index"):
                await s.read_resource("docql://docs/nothing.md")

    run(session())


def test_a_failure_inside_a_tool_is_named(probe_url: Any) -> None:
    """Before: a page number past SQLite's integers raised OverflowError in the store and
    the model read only "Error executing tool get"."""
    url, _ = probe_url

    async def session() -> None:
        async with http_session(url) as (s, _):
            reply = await s.call_tool("get", {"path": "docs/a.md:page 99999999999999999999999"})
            said = text(reply)
            assert reply.is_error
            assert "Error executing tool" not in said
            assert said.startswith("error: ") and len(said) > 40, said
            # The server goes on serving.
            assert not (await s.call_tool("status", {})).is_error

    run(session())


def test_a_glob_get_past_the_end_says_how_many_match(probe_url: Any) -> None:
    """Before: an offset past the matching documents gave an empty text, not an error."""
    url, _ = probe_url

    async def session() -> None:
        async with http_session(url) as (s, _):
            reply = await s.call_tool("get", {"path": "docs/*.md", "offset": 5})
            assert text(reply) == (
                "no documents at offset 5: 'docs/*.md' matches 2 documents — call again "
                "with an offset below 2"
            )
            data = reply.structured_content
            assert data["matched"] == 2 and data["documents"] == [] and data["next_offset"] is None
            last = await s.call_tool("get", {"path": "docs/*.md", "offset": 1})
            assert re.match(r"=== docs/b\.md \(3 lines\) ===\n# Gamma", text(last))

    run(session())


@pytest.mark.parametrize("question", ["", "   \n"])
def test_context_without_a_question_is_an_error(probe_url: Any, question: str) -> None:
    """Before: a pack of the first documents' openings, up to the budget, for nothing."""
    url, _ = probe_url

    async def session() -> None:
        async with http_session(url) as (s, _):
            reply = await s.call_tool("context", {"question": question})
            assert reply.is_error and "empty question" in text(reply)
            assert len(text(reply)) < CHAR_CAP

    run(session())


@pytest.mark.parametrize(
    "tool, arguments",
    [
        ("search", {"query": "document", "paths": ["**/" * 300 + "x"]}),
        ("search", {"query": "document", "paths": ["*a" * 30 + "!"]}),
    ],
    ids=["**/ x 300", "*a x 30"],
)
def test_a_pathological_glob_ends_at_the_deadline_and_holds_no_one(
    probe_url: Any, tool: str, arguments: dict[str, Any]
) -> None:
    """Before: a `paths` glob such as `**/` x 300 was matched by Python's `re` without a
    limit and with the GIL held (`globs.matcher`, from the search's scope): the call never
    ended, and every other client, `/health` included, waited for ever. Now the match runs
    in the `regex` engine under the call's deadline, releasing the GIL. Its own server
    (a 2 s deadline), so that a server stuck before the fix holds no other test."""
    _, root = probe_url
    replies: dict[str, Any] = {}

    def slow(url: str) -> None:
        async def call() -> None:
            async with http_session(url) as (s, _):
                started = time.monotonic()
                with anyio.fail_after(40):
                    replies["slow"] = await s.call_tool(tool, arguments)
                replies["seconds"] = time.monotonic() - started

        with contextlib.suppress(Exception):
            run(call())

    env = {"DOCQL_QUERY_TIMEOUT": "2"}
    with http_server_process(root / "index.db", cwd=root, env=env) as (base, _):
        worker = threading.Thread(target=slow, args=(base + "/mcp",), daemon=True)
        worker.start()
        time.sleep(1.0)  # the slow call is running
        started = time.monotonic()
        status, body = http_get(base + "/health")
        health = time.monotonic() - started
        assert status == 200 and health < 3.0, health
        worker.join(30)
    assert "slow" in replies, "the call did not end"
    said = text(replies["slow"])
    # The `regex` engine decides these quickly (no path matches), or the deadline ends it.
    assert said.startswith("no indexed document matches the paths filter") or (
        replies["slow"].is_error and "took too long" in said
    ), said[:300]
    assert replies["seconds"] < 2 + 5, replies["seconds"]  # the deadline, and a margin


MATCH_OUT_OF_TIME = """
from docql_sqlite import deadline, globs
from docql_sqlite.errors import QueryTimeout

matches = globs.matcher("*a" * 40 + "!")
try:
    with deadline.limit(0.2):
        while True:  # until the limit ends it (one match may finish within it)
            matches("a" * 80 + ".md")
except QueryTimeout as exc:
    print(type(exc).__name__, exc)
"""


def test_a_glob_match_out_of_time_raises_the_query_timeout() -> None:
    """The timed path itself: the `regex` engine's TimeoutError becomes the limit's own
    QueryTimeout (what every caller already handles). In a subprocess: before, `re`
    ignored the limit and held the GIL, so only a process can be stopped from outside."""
    done = subprocess.run(
        [sys.executable, "-c", MATCH_OUT_OF_TIME],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(Path(docql_sqlite.__file__).parents[1])},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("QueryTimeout QueryTimeout: query took too long"), done.stdout


def test_a_call_out_of_time_says_what_the_model_can_do(probe_url: Any) -> None:
    """Before: "RegexTimeout: query took too long (over 0.9999 s) … or raise the limit
    with DOCQL_QUERY_TIMEOUT=SECONDS (Python: index.query(q, timeout=SECONDS))" and then
    "hint: fix the query at the caret": the time left when the work started, a setting
    only the server's owner can change, and a caret that a time-out does not have."""
    _, root = probe_url

    async def session(url: str) -> str:
        async with http_session(url) as (s, _):
            reply = await s.call_tool("docql_query", {"query": "$.content.grep(/(.*a){12}!/)"})
            assert reply.is_error
            return text(reply)

    env = {"DOCQL_QUERY_TIMEOUT": "1"}
    with http_server_process(root / "index.db", cwd=root, env=env) as (base, _):
        said = run(session(base + "/mcp"))
    assert said == (
        "RegexTimeout: query took too long (over 1 s, this server's limit per call) in the "
        "regex /(.*a){12}!/ (catastrophic backtracking? nested repeats such as (a|aa)+ or "
        "(\\w+\\s?)*); simplify the regex, or run it on fewer rows (a filter or a path "
        "before it)"
    )


def test_toc_of_a_glob_outlines_the_matching_documents(probe_url: Any) -> None:
    """Before: toc('docs/*.md') answered "no document 'docs/*.md' in the index", though
    `get` takes the same glob; the outline of a directory needed DocQL."""
    url, _ = probe_url

    async def session() -> None:
        async with http_session(url) as (s, _):
            reply = await s.call_tool("toc", {"path": "docs/*.md"})
            assert not reply.is_error, text(reply)
            assert text(reply) == (
                "docs/a.md\n"
                "  1 Alpha  (docs/a.md:1-7)\n"
                "    1.1 Beta  (docs/a.md:5-7)\n"
                "docs/b.md\n"
                "  1 Gamma  (docs/b.md:1-3)"
            )
            rows = reply.structured_content["headings"]
            assert [(r["path"], r["title"]) for r in rows] == [
                ("docs/a.md", "Alpha"),
                ("docs/a.md", "Beta"),
                ("docs/b.md", "Gamma"),
            ]
            nothing = await s.call_tool("toc", {"path": "nowhere/*.md"})
            assert nothing.is_error and "no indexed document matches" in text(nothing)

    run(session())
