"""MCP answers agents can parse (issue 22 §4–6): output schemas and structured content
checked by the SDK's own client (it validates with `jsonschema`) and again here; the
fields of every item type named in the instructions, generated from `query/items.py`;
list answers compact enough that ~50 symbols fit one page; and every client
configuration snippet of docs/mcp.md checked against that client's documented shape,
one of them started as pasted.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp", reason="the MCP tests need the mcp extra (make test installs it)")
jsonschema = pytest.importorskip("jsonschema")

from conftest import TmpIndex  # noqa: E402
from mcp_client import REPO, stdio_session, text  # noqa: E402

from docql_sqlite.agent import guide  # noqa: E402
from docql_sqlite.agent.tools import CHAR_CAP  # noqa: E402
from docql_sqlite.query import items as item_defs  # noqa: E402

DOCS = REPO / "docs" / "mcp.md"


def run(coro: Any) -> Any:
    return anyio.run(lambda: coro)


# -- §4: output schemas and structured content ------------------------------------------
CALLS = [
    ("docql_query", {"query": '$.code.class("DocQLLexer")'}),
    ("docql_query", {"query": "$.toc[?(@.level==1)].title"}),
    ("docql_query", {"query": '$.content.grep("zqxjv-none")'}),
    ("search", {"query": "如何报告安全问题？", "limit": 3}),
    ("search", {"query": "zqxjv wplmk"}),
    ("get", {"path": "datasets/zh/config.md:1-5"}),
    ("get", {"path": "datasets/zh/*.md"}),
    ("toc", {"path": "datasets/en/handbook/03-architecture.md"}),
    ("toc", {}),
    ("context", {"question": "How does a write become searchable?", "budget": 3000}),
    ("status", {}),
    ("repo_map", {"budget": 300}),
    ("repo_map", {"focus": "DocQLLexer", "budget": 200}),
]


def test_every_tool_has_an_output_schema_its_replies_validate_against(corpus_db: Path) -> None:
    async def session() -> None:
        async with stdio_session(corpus_db) as (s, _):
            listed = {t.name: t for t in (await s.list_tools()).tools}
            for tool in listed.values():
                assert tool.title, tool.name
                assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
                jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            seen = set()
            for name, arguments in CALLS:
                # The SDK client validates structuredContent against the listed schema
                # (and raises when it does not conform); checked here again, explicitly.
                reply = await s.call_tool(name, arguments)
                assert not reply.is_error, (name, text(reply)[:300])
                data = reply.structured_content
                assert isinstance(data, dict), name
                jsonschema.validate(data, listed[name].output_schema)
                seen.add(name)
                assert text(reply)  # the text stays for clients that read text
            assert seen == set(listed)
            # The same answer in both: the query's items are the JSON lines of the text.
            reply = await s.call_tool("docql_query", {"query": "$.toc[?(@.level==1)].title"})
            lines = text(reply).split("\n")[1:]
            assert [json.loads(line) for line in lines] == reply.structured_content["items"]
            # An error carries no structured content (nothing to validate), only the text.
            bad = await s.call_tool("docql_query", {"query": "$.toc[?(@.level==1)"})
            assert bad.is_error and bad.structured_content is None

    run(session())


# -- §5: the fields of every item type, and compact lists -------------------------------
def test_instructions_and_the_query_tool_name_every_item_types_fields(corpus_db: Path) -> None:
    declared: dict[str, set[str]] = {}
    for value in vars(item_defs).values():
        if isinstance(value, item_defs.ItemType):
            declared.setdefault(value.name, set()).update(value.field_names)
    assert {"file", "heading", "section", "chunk", "symbol", "entity"} <= set(declared)

    async def session() -> tuple[str, str]:
        async with stdio_session(corpus_db) as (s, init):
            tools = {t.name: t for t in (await s.list_tools()).tools}
            return init.instructions, tools["docql_query"].description

    instructions, description = run(session())
    for where in (instructions, description, guide.GUIDE):
        for name, fields in declared.items():
            line = re.search(rf"^  {name} \(.*?\): (.*)$", where, re.M)
            assert line, f"no field line for {name}"
            assert set(line.group(1).split(", ")) == fields, name
        assert ".signature" in where and "bodies=true" in where
    assert "parent" in description and "signature" in description


def test_a_list_of_fifty_methods_fits_one_page_and_bodies_on_request(tmp_path: Path) -> None:
    """Before: 49 methods with their docstrings took 4 pages of 15."""
    idx = TmpIndex(tmp_path)
    methods = "".join(
        f"    def method_{n:02}(self, value: int, *, flag: bool = False) -> int:\n"
        f'        """Method {n} does a thing.\n\n        {"Long explanation. " * 40}\n'
        f'        """\n        return value + {n}\n\n'
        for n in range(50)
    )
    idx.write("big.py", f"class Big:\n    '''A class with many methods.'''\n\n{methods}")
    assert idx.index().ok
    query = '$.code.methods[?(@.parent=="Big")]'

    async def session() -> None:
        async with stdio_session(idx.db, cwd=tmp_path) as (s, _):
            reply = await s.call_tool("docql_query", {"query": query})
            body = text(reply)
            assert len(body) <= CHAR_CAP
            assert body.split("\n")[0] == "50 results from offset 0; showing 50:"
            items = reply.structured_content["items"]
            assert len(items) == 50 and reply.structured_content["next_offset"] is None
            first = items[0]
            assert first["signature"].startswith("def method_00(self, value: int")
            assert first["parent"] == "Big"
            assert first["docstring"] == "Method 0 does a thing.…"
            # Bodies on request: whole docstrings, paged.
            whole = await s.call_tool("docql_query", {"query": query, "bodies": True})
            assert "Long explanation. " * 40 in whole.structured_content["items"][0]["docstring"]
            assert whole.structured_content["next_offset"] is not None
            assert len(text(whole)) <= CHAR_CAP
            # One result: whole by default.
            one = await s.call_tool("docql_query", {"query": '$.code.method("method_07")'})
            assert "Long explanation." in one.structured_content["items"][0]["docstring"]

    run(session())


# -- §6: client configuration snippets ---------------------------------------------------
def snippets() -> dict[str, str]:
    """The snippets of docs/mcp.md, each under a `<!-- client: NAME -->` marker."""
    found = re.findall(r"<!-- client: (\S+) -->\s*```(?:json|sh)\n(.*?)```", DOCS.read_text(), re.S)
    return dict(found)


def check_command(command: str, args: list[str]) -> None:
    """A command line that starts the server: docql-sqlite mcp ABS_DB [options], directly
    or through `uvx --from 'docql-sqlite[mcp]'`; its options parsed by the real command."""
    from docql_sqlite.cli.commands.mcp import mcp_command

    if command == "uvx":
        assert args[:3] == ["--from", "docql-sqlite[mcp]", "docql-sqlite"], args
        args = args[3:]
    else:
        assert command == "docql-sqlite", command
    assert args[0] == "mcp" and args[1].startswith("/"), args  # an absolute path
    mcp_command.make_context("mcp", list(args[1:]), resilient_parsing=False)


def check_http(entry: dict[str, Any], key: str) -> None:
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/mcp", entry[key]), entry
    assert set(entry.get("headers", {})) <= {"Authorization"}


def stdio_or_http(entry: dict[str, Any], url_key: str = "url", typed: bool = False) -> None:
    if url_key in entry:
        if typed:
            assert entry["type"] == "http", entry
        check_http(entry, url_key)
        return
    if typed:
        assert entry["type"] == "stdio", entry
    assert set(entry) <= {"type", "command", "args", "env"}, entry
    check_command(entry["command"], entry["args"])


# Each client's documented shape: the top-level key and what a server entry holds.
SHAPES = {
    # claude_desktop_config.json: "mcpServers", command/args/env (local servers only)
    "claude-desktop": ("mcpServers", lambda e: stdio_or_http(e, url_key="-")),
    # Claude Code's project file .mcp.json: "mcpServers" with "type" stdio | http
    "claude-code-json": ("mcpServers", lambda e: stdio_or_http(e, typed=True)),
    # ~/.cursor/mcp.json or .cursor/mcp.json: "mcpServers", command/args or url
    "cursor": ("mcpServers", stdio_or_http),
    # .vscode/mcp.json: "servers", each with "type" stdio | http
    "vscode": ("servers", lambda e: stdio_or_http(e, typed=True)),
    # ~/.codeium/windsurf/mcp_config.json: "mcpServers", command/args or serverUrl
    "windsurf": ("mcpServers", lambda e: stdio_or_http(e, url_key="serverUrl")),
}


def test_each_client_snippet_has_its_clients_shape() -> None:
    found = snippets()
    assert set(SHAPES) | {"claude-code"} <= set(found), sorted(found)
    for client, (top, check_entry) in SHAPES.items():
        config = json.loads(found[client])
        assert set(config) == {top}, (client, set(config))
        assert config[top], client
        for entry in config[top].values():
            check_entry(entry)
    # `claude mcp add [options] NAME -- COMMAND ARGS...` (stdio), `--transport http NAME URL`
    lines = [ln for ln in found["claude-code"].splitlines() if ln.startswith("claude ")]
    assert len(lines) >= 2
    for line in lines:
        words = shlex.split(line)
        assert words[:3] == ["claude", "mcp", "add"], words
        if "--" in words:
            cut = words.index("--")
            check_command(words[cut + 1], words[cut + 2 :])
        else:
            assert words[words.index("--transport") + 1] == "http"
            assert any(re.fullmatch(r"http://127\.0\.0\.1:\d+/mcp", w) for w in words)


def test_the_vscode_snippet_starts_the_server_as_pasted(corpus_db: Path) -> None:
    """The stdio entry of the VS Code snippet, with the path replaced, spawned by the SDK
    client: initialize and list the tools."""
    entry = next(
        e for e in json.loads(snippets()["vscode"])["servers"].values() if e["type"] == "stdio"
    )
    args = [str(corpus_db) if a.endswith(".db") else a for a in entry["args"]]
    assert entry["command"] == "docql-sqlite"

    async def session() -> list[str]:
        async with stdio_session(corpus_db) as (s, _):  # the same command line
            return [t.name for t in (await s.list_tools()).tools]

    assert args[0] == "mcp"
    assert "docql_query" in run(session())


def test_the_python_client_example_runs_against_a_live_server(corpus_db: Path) -> None:
    """The docs' Python example, written for the pinned SDK (streamable_http_client,
    is_error, structured_content), run as written against a live server."""
    from mcp_client import http_server

    example = re.search(
        r"<!-- example: python-http -->\s*```python\n(.*?)```", DOCS.read_text(), re.S
    )
    assert example, "no Python example in docs/mcp.md"
    source = example.group(1)
    with http_server(corpus_db, "--token", "TOKEN") as base:
        source = source.replace("http://127.0.0.1:8765", base)
        namespace: dict[str, Any] = {"__name__": "example"}
        exec(compile(source, "docs/mcp.md example", "exec"), namespace)  # noqa: S102
        printed = namespace["main_result"] = anyio.run(namespace["main"])
    assert printed and all(isinstance(p, str) for p in printed)
