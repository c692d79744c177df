"""Print a few example queries over the demo index (run by `make demo`)."""

from __future__ import annotations

import json
import os
import sys

import docql_sqlite
from docql_sqlite import output

EXAMPLES = [
    (
        "Outline of every level-1 heading",
        "$.toc[?(@.level==1)]",
        ["path", "number", "title", "location"],
    ),
    (
        "Chapter 1.2 of each document (titles)",
        '$.content.chapter("1.2")',
        ["path", "title", "location"],
    ),
    (
        "Sections about 架构 (architecture)",
        '$.content.heading("架构")',
        ["title", "score", "location"],
    ),
    (
        "Where does the text mention 'authentication'?",
        '$.content.grep("authentication")[0:5]',
        ["location", "hit_line", "snippet"],
    ),
    (
        "API entities found in the docs",
        '$.entities[?(@.type=="API")][0:6]',
        ["name", "signature", "location"],
    ),
    (
        "Classes in the code samples",
        "$.code.classes[0:8]",
        ["name", "kind", "language", "location"],
    ),
    ("Markdown files under zh/", '$.files[?(@.path~="zh/")].path', None),
]


def main(db_path: str) -> None:
    with docql_sqlite.open(db_path) as index:
        status = index.status()
        print(
            f"\n{db_path}: {status['documents']} documents, {status['sections']} sections, "
            f"{status['chunks']} chunks, {status['symbols']} code symbols\n"
        )
        for title, query, fields in EXAMPLES:
            print(f"## {title}\n$ docql-sqlite query {db_path} '{query}'")
            items = index.query(query)
            if fields:
                items = [{k: item.get(k) for k in fields} for item in items]
            if not items:
                print("(no results)")
            output.write(items, "table", sys.stdout)
            print()
        for text in ("where is authentication explained?", "关键词"):
            print(f"## Search: {text}\n$ docql-sqlite search {db_path} '{text}' -n 3")
            hits = [
                {k: h.get(k) for k in ("location", "section", "snippet")}
                for h in index.search(text, limit=3)
            ]
            output.write(hits, "table", sys.stdout)
            print()
        print("Try your own: .venv/bin/docql-sqlite query demo.db '$.toc[?(@.title~=\"install\")]'")
    print()
    print(integrations(db_path))


MCP_HTTP_PORT = 8765  # any free port; the URL below follows it


def integrations(db_path: str) -> str:
    """How to open the index in Datasette and give it to an agent over MCP. The client
    configuration holds absolute paths: an MCP client starts the server from anywhere."""
    bin_dir = os.path.dirname(os.path.abspath(sys.executable))
    cli = os.path.join(bin_dir, "docql-sqlite")
    database = os.path.abspath(db_path)
    stdio = {"mcpServers": {"docql-sqlite": {"command": cli, "args": ["mcp", database]}}}
    url = f"http://127.0.0.1:{MCP_HTTP_PORT}/mcp"
    http = {"mcpServers": {"docql-sqlite": {"type": "http", "url": url}}}
    return "\n".join(
        [
            "## Browse it in Datasette (the DocQL page is /-/docql)",
            "$ .venv/bin/pip install -e '.[datasette]'    # once",
            f"$ .venv/bin/docql-sqlite serve {db_path}    # http://127.0.0.1:8001/-/docql",
            "",
            "## Give it to an agent over MCP",
            "$ .venv/bin/pip install -e '.[mcp]'    # once",
            "stdio (the client starts the server): add to the client's MCP configuration",
            json.dumps(stdio, indent=2),
            "",
            "HTTP (one long-lived server that clients share; the model loads once):",
            f"$ .venv/bin/docql-sqlite mcp {db_path} --http {MCP_HTTP_PORT}",
            json.dumps(http, indent=2),
        ]
    )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "demo.db")
