"""extract_entities: API / ClassEntity / Term rules, each with positives and negatives."""

from __future__ import annotations

import pytest

from docql_sqlite.ingest.entities import extract_entities, merge_entities, term_entity
from docql_sqlite.model import CodeBlock, Document, Entity, Heading, Table


def markdown_doc(text: str, **kwargs: object) -> Document:
    """A Document whose headings are its `#` lines (enough for these tests)."""
    headings = []
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            headings.append(Heading(level, line[level:].strip(), number))
    return Document(format="markdown", text=text, headings=headings, **kwargs)  # type: ignore[arg-type]


def rows(entities: list[Entity]) -> list[tuple[object, ...]]:
    return [
        (e.entity_type, e.name, e.line, e.end_line, e.signature, e.definition) for e in entities
    ]


HEADING_CASES = [
    # (heading title, expected (entity_type, name, signature) or None)
    ("`fs.readFile(path[, options])`", ("API", "fs.readFile", "fs.readFile(path[, options])")),
    ("lumen.open(path)", ("API", "lumen.open", "lumen.open(path)")),
    (
        "Index.search(query, *, limit=10)",
        ("API", "Index.search", "Index.search(query, *, limit=10)"),
    ),
    (
        "Static method: `Buffer.alloc(size[, fill[, encoding]])`",
        ("API", "Buffer.alloc", "Buffer.alloc(size[, fill[, encoding]])"),
    ),
    ("new URL(input[, base])", ("API", "URL", "new URL(input[, base])")),
    (
        "def connect(dsn: str, timeout: float = 5.0) -> Connection",
        ("API", "connect", "def connect(dsn: str, timeout: float = 5.0) -> Connection"),
    ),
    ("open()", ("API", "open", "open()")),
    # rustdoc's method headings: qualifiers, generics, receivers and `where` clauses
    (
        "pub fn retain<F>(&mut self, f: F) where F: FnMut(&T) -> bool,",
        ("API", "retain", "pub fn retain<F>(&mut self, f: F) where F: FnMut(&T) -> bool,"),
    ),
    (
        "pub const fn new() -> Vec<T, Global>",
        ("API", "new", "pub const fn new() -> Vec<T, Global>"),
    ),
    (
        "pub fn open<P: AsRef<Path>>(path: P) -> Result<File>",
        ("API", "open", "pub fn open<P: AsRef<Path>>(path: P) -> Result<File>"),
    ),
    (
        "pub unsafe fn from_raw_parts(ptr: *mut T, length: usize) -> Vec<T>",
        (
            "API",
            "from_raw_parts",
            "pub unsafe fn from_raw_parts(ptr: *mut T, length: usize) -> Vec<T>",
        ),
    ),
    (
        "pub fn entry(&mut self, key: K) -> Entry<'_, K, V>",
        ("API", "entry", "pub fn entry(&mut self, key: K) -> Entry<'_, K, V>"),
    ),
    (
        "pub fn drain<R>(&mut self, range: R) -> Drain<'_, T, A> where R: RangeBounds<usize>,",
        (
            "API",
            "drain",
            "pub fn drain<R>(&mut self, range: R) -> Drain<'_, T, A> where R: RangeBounds<usize>,",
        ),
    ),
    ("pub(crate) async fn poll(mut self)", ("API", "poll", "pub(crate) async fn poll(mut self)")),
    (
        "pub fn split<'a, P>(&'a self, pat: P) -> Split<'a, P> where P: Pattern<'a>,",
        (
            "API",
            "split",
            "pub fn split<'a, P>(&'a self, pat: P) -> Split<'a, P> where P: Pattern<'a>,",
        ),
    ),
    ("Primitive Type slice", ("ClassEntity", "slice", "Primitive Type slice")),
    ("Where to go (next)", None),
    # rustdoc's title of an item's page: its kind and its whole path
    ("Struct std::sync::Mutex", ("ClassEntity", "Mutex", "Struct std::sync::Mutex")),
    ("Enum std::option::Option", ("ClassEntity", "Option", "Enum std::option::Option")),
    (
        "Function std::fs::read_to_string",
        ("API", "read_to_string", "Function std::fs::read_to_string"),
    ),
    ("Macro std::vec", ("API", "vec", "Macro std::vec")),
    ("Trait objects", None),  # a book's heading: no path
    ("printf(const char *format, ...)", ("API", "printf", "printf(const char *format, ...)")),
    (
        "std::vector::push_back(const T& value)",
        ("API", "std::vector::push_back", "std::vector::push_back(const T& value)"),
    ),
    ("path.join([...paths])", ("API", "path.join", "path.join([...paths])")),
    ("GET /api/users", ("API", "GET /api/users", "GET /api/users")),
    ("POST /v1/index/{id}", ("API", "POST /v1/index/{id}", "POST /v1/index/{id}")),
    (
        "`DELETE https://api.example.com/v1/items/{id}` — remove one",
        (
            "API",
            "DELETE https://api.example.com/v1/items/{id}",
            "DELETE https://api.example.com/v1/items/{id} — remove one",
        ),
    ),
    ("Class: `fs.Dir`", ("ClassEntity", "fs.Dir", "Class: fs.Dir")),
    ("class Lexer(Base)", ("ClassEntity", "Lexer", "class Lexer(Base)")),
    ("class Stack<T>", ("ClassEntity", "Stack", "class Stack<T>")),
    ("类：Indexer", ("ClassEntity", "Indexer", "类：Indexer")),
    # negatives
    ("Getting started (optional)", None),
    ("Why use GET requests?", None),
    ("GET requests", None),
    ("Get /api/users", None),
    ("Overview(see below)", None),
    ("foo(a)(b)", None),
    ("f(x) = x^2", None),
    ("Using fs.readFile() in practice", None),
    ("What is open(path)?", None),
    ("Example: fs.readFile(path)", None),
    ("1.2 Setup (Linux)", None),
    ("Installation", None),
    ("Classes", None),
    ("Class diagrams", None),
    ("Classic setup: Foo", None),
    ("API reference", None),
]


@pytest.mark.parametrize("title, expected", HEADING_CASES)
def test_heading_entities(title: str, expected: tuple[str, str, str] | None) -> None:
    document = Document(format="markdown", text=f"## {title}\n", headings=[Heading(2, title, 1)])
    found = [(e.entity_type, e.name, e.signature) for e in extract_entities(document)]
    assert found == ([expected] if expected else [])


def test_heading_entity_spans_its_section() -> None:
    text = (
        "# Reference\n## lumen.open(path)\nOpens.\n### Errors\nRaises.\n## lumen.close()\nCloses.\n"
    )
    assert [(e.name, e.line, e.end_line) for e in extract_entities(markdown_doc(text))] == [
        ("lumen.open", 2, 5),
        ("lumen.close", 6, 7),
    ]


def test_inline_code_spans() -> None:
    text = "# Guide\n## lumen.open(path)\nx\ny\nz\nw\n"
    spans = [
        (3, "lumen.open(path)"),  # already a heading: not repeated
        (4, "lumen.close()"),
        (5, "lumen.close()"),  # one entity per API, at its first mention
        (5, "GET /api/users"),
        (6, "print"),  # a bare name is not a call signature
        (6, "x = f(y)"),
        (6, "Getting started (optional)"),
    ]
    assert rows(extract_entities(markdown_doc(text), spans)) == [
        ("API", "lumen.open", 2, 6, "lumen.open(path)", None),
        ("API", "lumen.close", 4, 4, "lumen.close()", None),
        ("API", "GET /api/users", 5, 5, "GET /api/users", None),
    ]


DECLARATION_CASES = [
    # (code block's language, its code, the declared (name, signature) expected)
    (
        None,  # SQLite's C reference: a <pre> of prototypes, each over lines
        "int sqlite3_prepare_v2(\n  sqlite3 *db,            /* Database handle */\n"
        "  const char **pzTail     /* OUT: unused portion */\n);\n"
        "SQLITE_API const char *sqlite3_errmsg(sqlite3*);\n",
        [
            ("sqlite3_prepare_v2", "int sqlite3_prepare_v2(sqlite3 *db, const char **pzTail);"),
            ("sqlite3_errmsg", "SQLITE_API const char *sqlite3_errmsg(sqlite3*);"),
        ],
    ),
    (
        "c",
        "napi_status napi_throw(napi_env env, napi_value error);",
        [
            ("napi_throw", "napi_status napi_throw(napi_env env, napi_value error);"),
        ],
    ),
    ("c", "void rust_function();", [("rust_function", "void rust_function();")]),
    (  # a function pointer's parameters are one parameter
        None,
        "int sqlite3_exec(\n  sqlite3*,\n  int (*callback)(void*,int,char**), /* cb */\n"
        "  char **errmsg\n);",
        [
            (
                "sqlite3_exec",
                "int sqlite3_exec(sqlite3*, int (*callback)(void*,int,char**), char **errmsg);",
            )
        ],
    ),
    ("c", "unsigned int f_x(void) ;", [("f_x", "unsigned int f_x(void);")]),
    # a definition (an example's), a call, a return, an assignment: no declaration
    ("c", "int main(int argc, char **argv) {\n  return run(argc);\n}\n", []),
    (None, "rc = sqlite3_exec(db, sql, 0, 0, 0);\nreturn foo(x);\nawait load(page);\n", []),
    ("cpp", "HandleScope scope(isolate);\nLocal<Object> obj = Object::New(isolate);\n", []),
    # SQL reads like declarations
    (None, "CREATE TABLE t1(a INT, b TEXT);\nINSERT INTO t1 VALUES('a b', 'c d');\n", []),
    (None, "CALL clean_emp();\n", []),
    ("python", "int f(int x);\n", []),  # a block in another language: its own
]


@pytest.mark.parametrize("language, code, expected", DECLARATION_CASES)
def test_declarations_in_code_blocks(
    language: str | None, code: str, expected: list[tuple[str, str]]
) -> None:
    """An API reference shows its C functions' prototypes in a code block above their
    description (SQLite's C reference, libpq's, N-API's), where no heading names them."""
    lines = code.count("\n") + 1
    text = (
        "# Compiling An SQL Statement\n" + code + ("" if code.endswith("\n") else "\n") + "Prose.\n"
    )
    doc = markdown_doc(text, codeblocks=[CodeBlock(language, code.rstrip("\n"), 2, 1 + lines)])
    found = [(e.name, e.signature) for e in extract_entities(doc) if e.entity_type == "API"]
    assert found == expected


def test_a_declaration_spans_its_lines() -> None:
    code = "int f(\n  int a, /* one\n  and two */\n  int b\n);\nvoid g(void);"
    text = "# API\n\n```c\n" + code + "\n```\n"
    doc = markdown_doc(text, codeblocks=[CodeBlock("c", code, 3, 10)])
    assert [(e.name, e.line, e.end_line) for e in extract_entities(doc)] == [
        ("f", 4, 8),  # a comment's line break counts
        ("g", 9, 9),
    ]


@pytest.mark.parametrize(
    "code",
    [
        "int f(int a);\n" * 100_000,  # a header's whole listing: none kept, work bounded
        "int f(\n" * 100_000,  # unclosed parameter lists
        "int " + "a " * 500_000,  # one line of words
    ],
)
def test_declarations_cost_no_more_than_the_blocks_length(code: str) -> None:
    """Each was quadratic at first (a line count from the start for each declaration, a
    parameter list scanned a character at a time to the end): 100,000 lines took 20–39 s
    of CPU."""
    import time

    text = "# API\n\n```c\n" + code + "\n```\n"
    doc = markdown_doc(text, codeblocks=[CodeBlock("c", code, 3, code.count("\n") + 4)])
    started = time.process_time()
    assert [e for e in extract_entities(doc) if e.entity_type == "API"] == []
    assert time.process_time() - started < 2.0


DEFINITION_LIST_CASES = [
    pytest.param(
        "Cache\n: A store of values.\n",
        [("Term", "Cache", 1, 2, None, "A store of values.")],
        id="simple",
    ),
    pytest.param(
        "Intro.\n\nCache\n: A store\n  continued here.\n: Second sense.\n\nShard\n\n: A piece.\n",
        [
            ("Term", "Cache", 3, 6, None, "A store continued here. Second sense."),
            ("Term", "Shard", 8, 10, None, "A piece."),
        ],
        id="continuation-two-definitions-blank-before-definition",
    ),
    pytest.param(
        "`max_size`\n: Largest size.\n",
        [("Term", "max_size", 1, 2, None, "Largest size.")],
        id="code-term",
    ),
    pytest.param(": orphan definition\n", [], id="no-term"),
    pytest.param("- item\n: not a term\n", [], id="list-item-is-not-a-term"),
    pytest.param("| a |\n: no\n", [], id="table-row-is-not-a-term"),
    pytest.param("Note\n: admonition word\n", [], id="admonition"),
    pytest.param("This is a sentence that ends.\n: x\n", [], id="sentence"),
    pytest.param("key:value\nother: thing\n", [], id="colon-not-at-line-start"),
]


@pytest.mark.parametrize("text, expected", DEFINITION_LIST_CASES)
def test_definition_lists(text: str, expected: list[tuple[object, ...]]) -> None:
    assert rows(extract_entities(markdown_doc(text))) == expected


BOLD_CASES = [
    pytest.param(
        "**Shard**: a piece of an index\nspanning two lines.\n\nNext.\n",
        [("Term", "Shard", 1, 2, None, "a piece of an index spanning two lines.")],
        id="paragraph-colon",
    ),
    pytest.param(
        "**Chunk** — a slice of a section.\n",
        [("Term", "Chunk", 1, 1, None, "a slice of a section.")],
        id="em-dash",
    ),
    pytest.param(
        "**Index:** the database file.\n",
        [("Term", "Index", 1, 1, None, "the database file.")],
        id="colon-inside-bold",
    ),
    pytest.param(
        "**术语**：定义内容\n", [("Term", "术语", 1, 1, None, "定义内容")], id="fullwidth-colon"
    ),
    pytest.param(
        "- **max_size**: largest size\n  in bytes\n- **min_size** - smallest size\n",
        [
            ("Term", "max_size", 1, 2, None, "largest size in bytes"),
            ("Term", "min_size", 3, 3, None, "smallest size"),
        ],
        id="list-items",
    ),
    pytest.param("**Note**: not a term.\n", [], id="note"),
    pytest.param("**Warning:** careful.\n", [], id="warning"),
    pytest.param("**注意**：小心。\n", [], id="zh-admonition"),
    pytest.param("**提示**：小心。\n", [], id="zh-tip"),
    pytest.param("Some text\n**Shard**: mid-paragraph.\n", [], id="not-a-paragraph-start"),
    pytest.param("**Bold sentence.** More text.\n", [], id="no-separator"),
    pytest.param("**Shard**:\n", [], id="no-definition"),
    pytest.param(
        "**This whole bold phrase is far too long to be a term**: x\n", [], id="too-many-words"
    ),
]


@pytest.mark.parametrize("text, expected", BOLD_CASES)
def test_bold_terms(text: str, expected: list[tuple[object, ...]]) -> None:
    assert rows(extract_entities(markdown_doc(text))) == expected


def markdown_table(headers: list[str], body: list[list[str]], line: int = 1) -> tuple[str, Table]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines) + "\n", Table(headers, body, line, line + len(lines) - 1)


GLOSSARY_CASES = [
    pytest.param(["Term", "Definition"], True, id="term-definition"),
    pytest.param(["**Name**", "Description", "Since"], True, id="name-description-extra-column"),
    pytest.param(["Glossary", "Meaning"], True, id="glossary-meaning"),
    pytest.param(["术语", "定义"], True, id="zh-term"),
    pytest.param(["名词", "含义"], True, id="zh-noun"),
    pytest.param(["Option", "Default"], False, id="option-default"),
    pytest.param(["Name", "Type", "Description"], False, id="parameter-table"),
    pytest.param(["Term"], False, id="one-column"),
]


@pytest.mark.parametrize("headers, is_glossary", GLOSSARY_CASES)
def test_glossary_tables(headers: list[str], is_glossary: bool) -> None:
    body = [
        ["Shard", "a piece", "1.0"][: len(headers)],
        ["`Chunk`", "a slice", "1.1"][: len(headers)],
    ]
    text, table = markdown_table(headers, body, line=3)
    document = markdown_doc("# Glossary\n\n" + text, tables=[table])
    terms = [
        (e.name, e.line, e.definition)
        for e in extract_entities(document)
        if e.entity_type == "Term"
    ]
    if is_glossary and len(headers) > 1:
        assert terms == [("Shard", 5, "a piece"), ("Chunk", 6, "a slice")]
    else:
        assert terms == []


def test_glossary_row_lines_found_in_rendered_text() -> None:
    # HTML/DOCX render tables without a delimiter row; rows are found by their text.
    text = "Term | Definition\nShard | a piece\nNote | skipped as an admonition\nChunk | a slice\n"
    table = Table(
        ["Term", "Definition"], [["Shard", "a piece"], ["Note", "x"], ["Chunk", "a slice"]], 1, 4
    )
    document = Document(format="html", text=text, tables=[table])
    assert [(e.name, e.line) for e in extract_entities(document)] == [("Shard", 2), ("Chunk", 4)]


def test_code_blocks_and_front_matter_are_not_prose() -> None:
    text = (
        "---\nCache\n: front matter\n---\n"  # 1-4: front matter
        "```\n**Shard**: in code\nTerm\n: in code\n```\n"  # 5-9: fenced code
        "\n**Chunk**: real\n"
    )
    document = markdown_doc(text, codeblocks=[CodeBlock(None, "", 5, 9)], body_start_line=5)
    assert [(e.name, e.line) for e in extract_entities(document)] == [("Chunk", 11)]


def test_mixed_document_in_line_order() -> None:
    text = (
        "# Reference\n"  # 1
        "\n"
        "**Shard**: a piece.\n"  # 3
        "\n"
        "## Class: Index\n"  # 5
        "### Index.search(query)\n"  # 6
        "Cache\n"  # 7
        ": A store.\n"  # 8
    )
    assert [
        (e.entity_type, e.name, e.line, e.end_line) for e in extract_entities(markdown_doc(text))
    ] == [
        ("Term", "Shard", 3, 3),
        ("ClassEntity", "Index", 5, 8),
        ("API", "Index.search", 6, 8),
        ("Term", "Cache", 7, 8),
    ]


@pytest.mark.parametrize(
    "name, expected",
    [
        ("  `Shard`: ", "Shard"),
        ("multi   word\nterm", "multi word term"),
        ("Note", None),
        ("See also", None),
        ("备注", None),
        ("Done.", None),
        ("---", None),
        ("", None),
        ("x" * 81, None),
    ],
)
def test_term_entity_filter(name: str, expected: str | None) -> None:
    entity = term_entity(name, " a  definition ", 3, 2)
    assert (entity.name if entity else None) == expected
    if entity:
        assert (entity.line, entity.end_line, entity.definition) == (3, 3, "a definition")


def test_merge_entities_dedupes_and_sorts() -> None:
    a = Entity("Term", "Shard", 5, 5)
    b = Entity("Term", "shard", 5, 6)
    c = Entity("API", "open", 1, 1)
    assert merge_entities([a], [b, c]) == [c, a]


@pytest.mark.parametrize(
    "text, opener, closer, at, limit, expected",
    [
        ("f(a, (b), c); x", "(", ")", 2, 100, 12),  # after the `)` that closes `f(`
        ("f(a, (b", "(", ")", 2, 100, None),  # never closed
        ("f(" + "a" * 50 + ")", "(", ")", 2, 10, None),  # closed past the limit
        (b"{a {b} c} d", b"{", b"}", 1, 100, 9),  # bytes: a Svelte tag's braces
    ],
)
def test_the_closing_bracket(text, opener, closer, at, limit, expected) -> None:  # type: ignore[no-untyped-def]
    from docql_sqlite.text import closing

    assert closing(text, opener, closer, at, limit) == expected
