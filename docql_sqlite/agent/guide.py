"""What the server tells a model: the DocQL cheat sheet (its `instructions`, with live
figures of the index) and the longer guide served as the `docql_guide` prompt."""

from __future__ import annotations

from typing import Any

from .. import item_fields

# Where each item type comes from; the fields themselves are read from the compiler's
# item definitions (`docql_sqlite.item_fields`), so the guide cannot drift from what a
# filter takes.
ITEM_SOURCES = {
    "file": "$.files",
    "heading": "$.toc",
    "section": "$.content.heading(), .chapter()",
    "chunk": "$.content.grep(), .search(), .chunks()",
    "codeblock": "$.content.codeblock",
    "table": "$.content.table",
    "page": "$.content.page(N)",
    "symbol": "$.code.* (source: class(), function(), method() only)",
    "entity": "$.entities",
    "frontmatter": "$.frontmatter (any key of a document's front matter)",
    "structure": "$.structure",
}


def fields_sheet() -> str:
    """The fields of every item type and the projection syntax, for the model."""
    lines = ["Fields by item type (filter with [?(@.field...)], keep one with .field):"]
    for name, fields in item_fields().items():
        where = ITEM_SOURCES.get(name, "")
        lines.append(f"  {name} ({where}): {', '.join(fields)}")
    lines.append(
        "Projection keeps one field per result: "
        '$.code.methods[?(@.parent=="Vec")].signature, $.toc[?(@.level==1)].title, '
        "$.files.path. List answers show long fields (content, source, docstring, "
        "definition, snippet, code) as their first line; bodies=true gives them whole, "
        "and get reads any result's location."
    )
    return "\n".join(lines)


def query_tool_description() -> str:
    """The `docql_query` tool's description: what it does and the fields it can name."""
    return (
        "Run a DocQL query (JSONPath-like; see the server instructions) and get its "
        "results as JSON lines, each with a location that `get` reads. Roots: $.toc, "
        "$.content (heading, chapter, grep, search, chunks, codeblock, table, page), $.code "
        "(class, function, method, query, classes, functions, methods, symbols), "
        "$.entities, $.files.\n" + fields_sheet()
    )


CHEAT_SHEET = """\
DocQL (JSONPath-like, compiled to SQL) — roots and their functions:
  $.toc                      headings: $.toc[?(@.level<=2)], $.toc[?(@.title~="install")]
  $.content.heading("kw")    sections whose title contains kw (ranked), with their text
  $.content.chapter("1.2")   the section numbered 1.2 of each document ("#anchor" works too)
  $.content.grep("text")     every chunk containing text (or a regex: grep(/Lex[a-z]+/i))
  $.content.search("words")  full-text (BM25) passages; .similar("...") by meaning
  $.content.codeblock  $.content.table  $.content.page(3)   (page: PDFs)
  $.code.class("Name")       a class with its full source; also function(), method()
                             (a qualified name too: method("QuerySet.filter")), query("kw"),
                             and the lists classes, functions, methods, symbols; a class's
                             methods: $.code.methods[?(@.parent=="Name")]
  $.code.callers("f")        every call site of f with its caller and the caller's source
                             (qualified as its language writes it: "Utils.escape",
                             "Rack::Utils#escape", "GuzzleHttp\\\\Psr7\\\\Utils::streamFor");
                             callees("f") what f calls, references("T") every use of T,
                             imports, importers("os"); each says how its target was resolved
                             and which import named it: [?(@.qualifier=="http")] is http.Get
  $.entities[?(@.type=="API")]   terms, APIs, class entities found in documents
  $.files[?(@.extension=="md")]  documents; scope any root: $.files[?(@.path~="zh/")].toc
Filters: == != < <= > >= ~= (contains) =~ /regex/i startsWith endsWith contains, && || !
Slices: [0], [-1], [0:10]; projection: $.toc[?(@.level==1)].title
Tools: docql_query (DocQL), search (plain words or a typed document: lines lex:/vec:/hyde:/
intent:), get (any location a result prints, e.g. path:12-40; a glob docs/**/*.md gives
several documents), toc, context (a context pack for a question), repo_map (the central
files and symbols of the code, within a token budget; focus="Name" centres it), status.
Every result carries a location (path:line-end_line) that `get` reads back."""


def instructions(status: dict[str, Any], has_vectors: bool) -> str:
    """The server's `instructions`: the cheat sheet and what this index holds."""
    formats = ", ".join(f"{n} {fmt}" for fmt, n in status.get("by_format", {}).items()) or "none"
    languages = ", ".join(status.get("code_languages", {})) or "none"
    vectors = (
        f"yes ({status.get('embedding_model')}): search modes smart, bm25, vector, hybrid"
        if has_vectors
        else "no: search modes smart and bm25 (vector/hybrid need `docql-sqlite embed`)"
    )
    return (
        "This server answers questions about an indexed set of documents and code, read "
        "only.\n"
        f"Index: {status.get('documents', 0)} documents ({formats}); "
        f"{status.get('sections', 0)} sections, {status.get('symbols', 0)} code symbols.\n"
        f"Code languages: {languages}.\nVectors: {vectors}.\n\n"
        + CHEAT_SHEET
        + "\n\n"
        + fields_sheet()
    )


GUIDE = (
    """\
# Answering questions with DocQL

Work from the outline down, and cite locations:

1. `toc` (or `docql_query` with `$.toc[?(@.level<=2)]`) to see how a document is organised.
2. Open a part: `$.content.chapter("2.1")` by its number, `$.content.heading("install")` by
   its title, `$.code.class("IndexWriter")` for a class's full source.
3. Find what the outline does not show: `search` with plain words or a question as you
   would ask it ("where is retry explained?", "which page describes X?": it searches
   for X and prefers the docs to code; any language, Chinese works), or a typed document:
       lex: "exact phrase" -unwanted
       vec: a question in your own words
4. Read around a hit with `get` at the location it printed (`path:120-160`, or `path` with
   `from`/`count`).
5. Code: start an unknown repository with `repo_map`; "who calls X and how" is one query,
   `$.code.callers("X")` with `bodies=true` (each call site, its `caller` and the
   caller's whole `source`; without it, a list shows first lines); then
   `$.code.callees("X")`, `$.code.references("Type")[?(@.kind=="inherit")]`,
   `$.code.importers("pkg.mod")`. `resolution` says how sure a link is: local, import,
   unique, or ambiguous/unresolved (then `target` is null).
6. For a whole answer at once, `context` with the question builds a pack of the best
   passages within a character budget, each labelled with its location.

DocQL errors come back with a caret under the problem and a hint; fix the query and call
again. Long results end with "N more — call again with offset=K".

"""
    + CHEAT_SHEET
    + "\n\n"
    + fields_sheet()
)
