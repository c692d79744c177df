"""Print a few example queries over the demo index (run by `make demo`)."""

from __future__ import annotations

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


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "demo.db")
