"""The Datasette plugin through Datasette's own test client (in process): the SQL
functions and sqlite-vec in the SQL editor, the DocQL page, the location view, canned
queries, several databases, `datasette docql`, and hostile input that must change nothing.

Oracles: every page is compared with the `Index` facade's answer to the same question, and
the compiled SQL opened in Datasette's SQL editor must give the page's rows.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import sqlite3
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import docql_sqlite
from docql_sqlite.errors import QueryError

datasette_app = pytest.importorskip(
    "datasette.app", reason="Datasette is not installed: pip install 'docql-sqlite[datasette]'"
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from datasette_corpus import LONG_LINES, SECRET, build, checksum  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DATASETTE = REPO / ".venv" / "bin" / "datasette"


# -- a synchronous Datasette test client ----------------------------------------------
class Client:
    def __init__(self, files: list[Path]) -> None:
        self.ds = datasette_app.Datasette([str(f) for f in files])
        self.loop = asyncio.new_event_loop()

    def get(self, path: str, /, **params: Any) -> Any:
        if params:
            path += ("&" if "?" in path else "?") + urllib.parse.urlencode(params)
        return self.loop.run_until_complete(self.ds.client.get(path))

    def json(self, path: str, /, **params: Any) -> Any:
        response = self.get(path, **params)
        assert response.status_code == 200, response.text[:500]
        return response.json()

    def close(self) -> None:
        for database in self.ds.databases.values():
            database.close()
        self.loop.close()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("datasette"))


@pytest.fixture(scope="module")
def index(corpus: Path) -> Iterator[docql_sqlite.Index]:
    with docql_sqlite.open(corpus) as idx:
        yield idx


@pytest.fixture(scope="module")
def client(corpus: Path) -> Iterator[Client]:
    made = Client([corpus])
    yield made
    made.close()


@pytest.fixture(scope="module")
def multi(corpus: Path) -> Iterator[tuple[Client, Path]]:
    """Two indexes and a plain SQLite file served together."""
    root = corpus.parent
    other = root / "other.db"
    docql_sqlite.index(other, [str(root / "docs" / "src")])
    plain = root / "plain.db"
    with sqlite3.connect(plain) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    made = Client([corpus, other, plain])
    yield made, other
    made.close()


# -- reading the pages -----------------------------------------------------------------
class Page(HTMLParser):
    """The parts of a page the tests read: tables by class, elements by id, links."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[tuple[str, str | None]]]] = {}
        self.ids: dict[str, str] = {}
        self.links: dict[str, str] = {}  # id -> href
        self._table: str | None = None
        self._row: list[tuple[str, str | None]] | None = None
        self._cell: list[str] | None = None
        self._href: str | None = None
        self._open_ids: list[tuple[str, str, list[str]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self._table = next((c for c in (a.get("class") or "").split() if "docql" in c), None)
            if self._table:
                self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self._row = []
        elif tag == "td" and self._row is not None:
            self._cell, self._href = [], None
        elif tag == "a" and self._cell is not None:
            self._href = a.get("href")
        if a.get("id"):
            self._open_ids.append((tag, a["id"] or "", []))
            if tag == "a":
                self.links[a["id"] or ""] = a.get("href") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None and self._row is not None:
            self._row.append(("".join(self._cell), self._href))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table:
            if self._row:
                self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        if self._open_ids and self._open_ids[-1][0] == tag:
            _, name, parts = self._open_ids.pop()
            self.ids[name] = "".join(parts)

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        for _, _, parts in self._open_ids:
            parts.append(data)


def page(client: Client, path: str, status: int = 200, **params: Any) -> Page:
    response = client.get(path, **params)
    assert response.status_code == status, response.text[:2000]
    return Page(response.text)


def results(parsed: Page) -> list[list[tuple[str, str | None]]]:
    return parsed.tables.get("docql-results", [])


def relative(href: str) -> str:
    return html.unescape(href)


# -- plugin, SQL functions, sqlite-vec ---------------------------------------------------
def test_plugin_is_registered_with_its_hooks(client: Client) -> None:
    plugins = {p["name"]: p for p in client.json("/-/plugins.json")}
    assert "docql-sqlite" in plugins, f"the entry point is not installed: {list(plugins)}"
    assert set(plugins["docql-sqlite"]["hooks"]) >= {
        "prepare_connection",
        "register_routes",
        "canned_queries",
        "register_commands",
    }
    assert plugins["docql-sqlite"]["templates"] is True


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("select docql_rrf(1)", 1 / 61),
        ("select docql_rrf(2, 10, 2.0)", 2.0 / 12),
        ("select docql_rrf(null)", 0.0),
        ("select docql_heading('Install guide', 'install')", 2),
        ("select docql_chapter('1.2', '1.2')", 1),
        ("select docql_grep('a TODO b todo', 'TODO')", 2),
        ("select docql_fold('ÉCOLE')", "école"),
        ("select 'abc' regexp 'b.$'", 1),
        ("select regexpi('B', 'abc')", 1),
        ("select vec_distance_cosine('[1, 0]', '[0, 1]')", 1.0),
        ("select vec_length('[1, 2, 3]')", 3),
        ("select count(*) from chunks_vec", None),  # the vec0 table is readable
    ],
)
def test_sql_functions_and_sqlite_vec_in_the_sql_editor(
    client: Client, index: docql_sqlite.Index, sql: str, expected: Any
) -> None:
    rows = client.json("/index.json", sql=sql, _shape="array")
    value = list(rows[0].values())[0]
    if expected is None:
        assert value == list(index.rows("select count(*) AS n from chunks_vec"))[0]["n"] > 0
    elif isinstance(expected, float):
        assert value == pytest.approx(expected)
    else:
        assert value == expected


def test_vec_version_in_the_sql_editor_and_on_the_page(client: Client) -> None:
    version = client.json("/index.json", sql="select vec_version() as v", _shape="array")[0]["v"]
    assert version.startswith("v0.")
    parsed = page(client, "/-/docql")
    assert "docql-vec-unavailable" not in client.get("/-/docql").text
    assert f"sqlite-vec {version} is loaded" in client.get("/-/docql").text
    assert parsed.ids["docql-q"] == ""


def test_more_like_a_chunk_in_the_sql_editor(client: Client, index: docql_sqlite.Index) -> None:
    """The vector example of docs/datasette.md: a KNN query in Datasette's SQL editor."""
    sql = (
        "SELECT c.id, v.distance FROM chunks_vec v JOIN chunks c ON c.id = v.rowid "
        "WHERE v.embedding MATCH (SELECT embedding FROM chunks_vec WHERE rowid = 1) AND k = 3 "
        "ORDER BY v.distance"
    )
    rows = client.json("/index.json", sql=sql, _shape="array")
    assert [r["id"] for r in rows] == [r["id"] for r in list(index.rows(sql))]
    assert rows[0] == {"id": 1, "distance": pytest.approx(0.0, abs=1e-6)}


# -- the DocQL page ----------------------------------------------------------------------
QUERIES = [
    "$.toc[?(@.level==1)]",
    "$.toc",
    "$.code.classes",
    '$.content.grep("TODO")',
    '$.content.heading("install")',
    "$.toc[?(@.level<=2)].title",
    "$.files",
    "$.content.similar(1)",
    '$.content.search("install client")',
]


@pytest.mark.parametrize("query", QUERIES)
def test_docql_page_rows_match_the_index(
    client: Client, index: docql_sqlite.Index, query: str
) -> None:
    parsed = page(client, "/-/docql", q=query)
    expected = list(index.query(query, limit=100))
    rows = results(parsed)
    assert len(rows) == len(expected) > 0
    assert parsed.ids["docql-count"].startswith(f"{len(expected)} row")
    if isinstance(expected[0], dict):
        # The location cell (a file's path) comes first and links to the view of the lines.
        linked = "location" if "location" in expected[0] else "path"
        columns = [linked] + [c for c in expected[0] if c != linked]
        assert result_headers(client.get("/-/docql", q=query).text) == columns
        shown = [dict(zip(columns, (text for text, _ in row))) for row in rows]
        assert [r["path"] for r in shown] == [e["path"] for e in expected]
        assert [r[linked] for r in shown] == [e[linked] for e in expected]
        for row, item in zip(rows, expected):
            assert [href for _, href in row if href] == [row[columns.index(linked)][1]]
            href = row[columns.index(linked)][1] or ""
            assert urllib.parse.parse_qs(urllib.parse.urlparse(href).query) == {
                "location": [item[linked]]
            }
    else:
        assert [row[0][0] for row in rows] == [str(v) for v in expected]
    # The query is a link, and the textarea holds it.
    link = urllib.parse.urlparse(parsed.links["docql-link"])
    assert urllib.parse.parse_qs(link.query)["q"] == [query]
    assert parsed.ids["docql-q"] == query


@pytest.mark.parametrize("query", QUERIES)
def test_compiled_sql_opens_in_the_sql_editor_with_the_same_rows(
    client: Client, index: docql_sqlite.Index, query: str
) -> None:
    parsed = page(client, "/-/docql", q=query)
    editor = urllib.parse.urlparse(parsed.links["docql-open-sql"])
    assert editor.path == "/index"
    sql = urllib.parse.parse_qs(editor.query)["sql"][0]
    assert sql == index.compile(query, limit=100).inline_sql()
    assert parsed.ids["docql-sql"] == sql
    # Datasette's SQL editor page runs it, and its JSON gives the page's rows.
    editor_page = client.get(editor.path + "?" + editor.query)
    assert editor_page.status_code == 200
    rows = client.json("/index.json", sql=sql, _shape="array")
    assert len(rows) == len(results(parsed))
    assert f"{len(rows)} row" in editor_page.text
    linked = "location" if "location" in rows[0] else "path" if "path" in rows[0] else None
    if linked:
        assert [r[linked] for r in rows] == [row_location(r) for r in results(parsed)]


def result_headers(text: str) -> list[str]:
    """The column names of the DocQL results table."""
    table = text[text.index("docql-results") :]
    head = table[: table.index("</thead>")]
    return [html.unescape(h) for h in re.findall(r'<th scope="col">(.*?)</th>', head)]


def row_location(row: list[tuple[str, str | None]]) -> str:
    return next(text for text, href in row if href is not None)


def test_location_links_show_the_lines_from_the_index(
    client: Client, index: docql_sqlite.Index
) -> None:
    parsed = page(client, "/-/docql", q="$.toc")
    hrefs = [row_location_href(row) for row in results(parsed)]
    assert len(hrefs) == len(index.query("$.toc"))
    for href in hrefs:
        location = urllib.parse.parse_qs(urllib.parse.urlparse(href).query)["location"][0]
        view = page(client, relative(href))
        excerpt = index.get(location)
        assert view.ids["docql-location"] == excerpt.location
        assert [(int(n), text) for (n, _), (text, _) in view.tables["docql-lines"]] == (
            excerpt.lines
        )


def row_location_href(row: list[tuple[str, str | None]]) -> str:
    return next(href for _, href in row if href is not None)


@pytest.mark.parametrize(
    "location, first, last",
    [
        ("docs/long.txt:2400-2450", 2400, 2450),
        ("long.txt:10:5", 10, 14),  # a path suffix, FROM:COUNT
        ("docs/long.txt", 1, 2000),  # a long document: one page of lines, then a link
        ("docs/guide.md#L3", None, None),  # not a location form: a clear 404
    ],
)
def test_location_view(client: Client, location: str, first: int | None, last: int | None) -> None:
    if first is None:
        view = page(client, "/-/docql/get", status=404, location=location)
        assert "no document" in view.ids["docql-get-error"]
        return
    view = page(client, "/-/docql/get", location=location)
    numbers = [int(n) for (n, _), _ in view.tables["docql-lines"]]
    assert numbers == list(range(first, last + 1))
    texts = [text for _, (text, _) in view.tables["docql-lines"]]
    assert texts == [f"line {n}" for n in numbers]
    if last == 2000:
        more = page(client, relative(view_more(client, location)))
        numbers = [int(n) for (n, _), _ in more.tables["docql-lines"]]
        assert numbers == list(range(2001, LONG_LINES + 1))


def view_more(client: Client, location: str) -> str:
    text = client.get("/-/docql/get?" + urllib.parse.urlencode({"location": location})).text
    start = text.index('">next lines</a>')
    return text[text.rindex('href="', 0, start) + 6 : start]


@pytest.mark.parametrize(
    "location, message",
    [
        ("docs/long.txt:9999", "docs/long.txt has 2500 lines; line 9999 is past its end"),
        ("docs/nothing.md", "no document 'docs/nothing.md' in the index"),
        ("", "give a location"),
    ],
)
def test_location_view_errors(client: Client, location: str, message: str) -> None:
    status = 400 if not location else 404
    view = page(client, "/-/docql/get", status=status, location=location)
    assert message in view.ids["docql-get-error"]


@pytest.mark.parametrize(
    "query",
    [
        "$.toc[?(@.level==]",
        "$.tco",
        "$.content.grep(/(/)",
        "$.toc[?(@.title =~ /[/)]",
        '$.toc[?(@.level=="a")]',
        "$.toc[?(@.nosuch==1)]",
    ],
)
def test_bad_query_shows_the_caret_message(client: Client, query: str) -> None:
    with pytest.raises(QueryError) as raised:
        docql_sqlite.open(client.ds.databases["index"].path).query(query)
    response = client.get("/-/docql", q=query)
    assert response.status_code == 400
    parsed = Page(response.text)
    assert parsed.ids["docql-query-error"] == str(raised.value)
    assert "^" in parsed.ids["docql-query-error"]
    assert 'class="docql-error"' in response.text  # monospace, pre-formatted
    assert "rows-and-columns docql-results" not in response.text


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_search_box(client: Client, index: docql_sqlite.Index, mode: str) -> None:
    parsed = page(client, "/-/docql", search="install client", mode=mode)
    expected = index.search("install client", mode=mode, limit=10, content=False)
    hits = parsed.tables["docql-hits"]
    assert [row[0][0] for row in hits] == [hit["location"] for hit in expected]
    assert parsed.ids["docql-hit-count"].startswith(f"{len(expected)} passage")
    body = client.get("/-/docql", search="install client", mode=mode).text
    assert "<mark>install</mark>" in body
    assert "no vectors" not in body  # this index has them: hybrid really fused


def test_search_box_defaults_to_smart_as_the_cli_and_mcp_do(
    client: Client, index: docql_sqlite.Index
) -> None:
    from docql_sqlite.options import SearchOptions

    assert SearchOptions().mode == "smart"  # the library's (so MCP's and the CLI's) default
    body = client.get("/-/docql").text
    assert '<option value="smart" selected>' in body
    parsed = page(client, "/-/docql", search="install client")  # no mode given
    expected = index.search("install client", mode="smart", limit=10, content=False)
    assert [row[0][0] for row in parsed.tables["docql-hits"]] == [h["location"] for h in expected]
    assert parsed.ids["docql-hit-count"].endswith("(smart)")


def test_search_with_no_hits_says_so(client: Client) -> None:
    parsed = page(client, "/-/docql", search="zzyzx qqq", mode="bm25")
    assert parsed.ids["docql-hit-count"].startswith("0 passage")
    assert "No passage matched" in client.get("/-/docql", search="zzyzx qqq", mode="bm25").text


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({"q": "$.toc", "limit": "abc"}, 400, "the limit must be a whole number"),
        ({"q": "$.toc", "limit": "0"}, 400, "the limit must be at least 1"),
        ({"q": "$.toc", "limit": str(10**30)}, 200, "at most 1000 rows are shown"),
        ({"search": "install", "mode": "grep"}, 400, "unknown search mode 'grep'"),
        ({"search": "install", "search_limit": "-5"}, 400, "the limit must be at least 1"),
    ],
)
def test_bad_form_values_are_explained(
    client: Client, params: dict[str, str], status: int, message: str
) -> None:
    response = client.get("/-/docql", **params)
    assert response.status_code == status
    assert message in html.unescape(response.text)


def test_examples_are_links_that_run(client: Client) -> None:
    text = client.get("/-/docql").text
    hrefs = [html.unescape(h) for h in _hrefs(text) if "/-/docql?q=" in h]
    assert len(hrefs) >= 5
    for href in hrefs:
        assert client.get(href).status_code == 200, href


def _hrefs(text: str) -> list[str]:
    return [part.split('"', 1)[0] for part in text.split('href="')[1:]]


XSS = [
    "<script>alert('q')</script>",
    "$.toc[?(@.title==\"<script>alert('q2')</script>\")]",
    '$.content.grep("<script>alert(")',
]


@pytest.mark.parametrize("payload", XSS)
def test_user_text_is_escaped(client: Client, payload: str) -> None:
    for params in (
        {"q": payload},
        {"search": payload, "mode": "bm25"},
        {"q": "$.toc", "limit": payload},
        {"search": "x", "mode": payload},
    ):
        body = client.get("/-/docql", **params).text
        assert "<script>alert(" not in body, params
        assert "&lt;script&gt;alert(" in body, params
    body = client.get("/-/docql/get", location=payload).text
    assert "<script>alert(" not in body
    assert "&lt;script&gt;alert(" in body


def test_document_text_is_escaped(client: Client) -> None:
    """The corpus itself carries HTML: a heading with a script, an img with onerror."""
    for body in (
        client.get("/-/docql", q='$.content.grep("xss-text")').text,
        client.get("/-/docql", q='$.content.grep("xss-heading")').text,
        client.get("/-/docql/get", location="docs/guide.md:1-3").text,
        client.get("/-/docql", search="alert", mode="bm25").text,
    ):
        assert "<img src=x" not in body
        assert '<script>alert("xss' not in body
    body = client.get("/-/docql/get", location="docs/guide.md:1-3").text
    assert "&lt;script&gt;alert(&#34;xss-heading&#34;)&lt;/script&gt;" in body
    assert "&lt;img src=x onerror=alert(&#34;xss-text&#34;)&gt;" in body


# -- canned queries, menus, the command ------------------------------------------------
def test_canned_queries(client: Client, index: docql_sqlite.Index) -> None:
    queries = {q["name"]: q for q in client.json("/index.json")["queries"]}
    assert set(queries) >= {"docql_outline", "docql_classes", "docql_errors"}
    assert queries["docql_outline"]["title"] == "Outline of a document"
    outline = client.json("/index/docql_outline.json", path="guide.md", _shape="array")
    assert [(r["level"], r["number"], r["title"], r["line"]) for r in outline] == [
        (t["level"], t["number"], t["title"], t["line"]) for t in index.toc("docs/guide.md")
    ]
    assert client.json("/index/docql_outline.json", path="g_ide.md", _shape="array") == []
    classes = client.json("/index/docql_classes.json", glob="*.py", _shape="array")
    expected = index.query("$.code.classes[?(@.path=~/\\.py$/)]")
    assert [(c["name"], c["line"]) for c in classes] == [(e["name"], e["line"]) for e in expected]
    assert [c["name"] for c in classes] == ["Shape", "Circle"]
    errors = client.json("/index/docql_errors.json", _shape="array")
    assert [(e["path"], e["severity"]) for e in errors] == [
        (e["path"], e["severity"]) for e in index.errors()
    ]
    assert [e["path"] for e in errors] == ["docs/binary.md"]
    # The canned query pages render (forms for :path / :glob).
    assert client.get("/index/docql_outline").status_code == 200


def test_links_to_the_docql_page(client: Client) -> None:
    assert 'href="/-/docql"' in client.get("/").text  # the navigation menu
    assert 'href="/index/-/docql"' in client.get("/index").text  # the database actions


def test_datasette_docql_command(corpus: Path, index: docql_sqlite.Index) -> None:
    query = "$.toc[?(@.level==1)]"
    run = subprocess.run(
        [str(DATASETTE), "docql", str(corpus), query, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == json.loads(json.dumps(list(index.query(query))))
    bad = subprocess.run(
        [str(DATASETTE), "docql", str(corpus), "$.toc[?(@.level==]"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2
    assert "expected a value after '=='" in bad.stderr and "^" in bad.stderr


# -- several databases -----------------------------------------------------------------
def test_several_databases(multi: tuple[Client, Path]) -> None:
    client, other = multi
    chooser = client.get("/-/docql", q="$.code.classes")
    assert chooser.status_code == 200
    links = [html.unescape(h) for h in _hrefs(chooser.text) if "/-/docql" in h]
    assert "/index/-/docql?q=%24.code.classes" in links
    assert "/other/-/docql?q=%24.code.classes" in links
    assert not any(link.startswith("/plain/") for link in links)
    with docql_sqlite.open(other) as idx:
        expected = [c["location"] for c in idx.query("$.code.classes", limit=100)]
    parsed = page(client, "/other/-/docql", q="$.code.classes")
    assert [row_location(r) for r in results(parsed)] == expected
    # Locations link to the view of the same database.
    view = page(client, relative(row_location_href(results(parsed)[0])))
    assert view.ids["docql-location"] == expected[0]
    assert urllib.parse.urlparse(parsed.links["docql-open-sql"]).path == "/other"
    # A plain SQLite file and an unknown name get a clear page, never a 500.
    plain = page(client, "/plain/-/docql", status=404)
    assert "not a docql-sqlite index" in plain.ids["docql-message"]
    assert "no database 'nope'" in page(client, "/nope/-/docql", status=404).ids["docql-message"]
    assert "docql_outline" not in client.get("/plain").text
    assert "docql_outline" in client.get("/other").text


# -- hostile input: nothing written, nothing outside the index read ----------------------
HOSTILE = [
    "'; DROP TABLE documents; --",
    '") UNION SELECT key, value FROM meta --',
    "1; ATTACH DATABASE '/tmp/evil.db' AS evil; --",
    "../secret.txt",
    "docs/../../secret.txt",
    "%2e%2e/secret.txt",
    "/etc/passwd",
    "99999999999999999999999999",
    "-1",
    "1e309",
    "$.files[?(@.path=='../secret.txt')]",
    "\x00",
]

HOSTILE_SQL = [
    "select load_extension('/tmp/evil')",
    "attach database '/tmp/evil.db' as evil",
    "select * from documents; drop table documents",
    "pragma writable_schema = 1",
    "delete from documents",
    "select readfile('../secret.txt')",
    "select docql_grep(content, '(((') from chunks",
    "select * from chunks_vec where embedding match '[1,2]' and k = 99999999999",
]


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _hostile_requests(secret: Path) -> Iterator[tuple[str, dict[str, str], bool]]:
    """(path, params, whether the page is ours) for every page of ours and of Datasette's
    own that takes user text, with hostile values."""
    for h in [*HOSTILE, str(secret)]:
        for path, params in (
            ("/-/docql", {"q": h}),
            ("/-/docql", {"q": f'$.content.grep("{h}")'}),
            ("/-/docql", {"q": f"$.toc[?(@.title=={json.dumps(h)})]", "limit": h}),
            ("/-/docql", {"q": f"$.toc[{h}]"}),
            ("/-/docql", {"search": h, "mode": "bm25", "search_limit": h}),
            ("/-/docql", {"search": h, "mode": "hybrid"}),
            ("/-/docql", {"search": "install", "mode": h}),
            ("/-/docql/get", {"location": h}),
            ("/-/docql/get", {"location": f"{h}:1:{h}"}),
            ("/index/-/docql", {"q": h, "limit": "99999999999"}),
            (f"/{urllib.parse.quote(h, safe='')}/-/docql", {"q": "$.toc"}),
        ):
            yield path, params, True
        yield "/index/docql_outline.json", {"path": h}, False
        yield "/index/docql_classes.json", {"glob": h}, False
        yield (
            "/index.json",
            {"sql": f"select docql_grep(content, {_sql_text(h)}) from chunks"},
            False,
        )
    for sql in HOSTILE_SQL:
        yield "/index.json", {"sql": sql}, False
        yield "/index", {"sql": sql}, False


def test_hostile_input_changes_nothing_and_reads_nothing_else(
    client: Client, corpus: Path, index: docql_sqlite.Index
) -> None:
    root = corpus.parent
    secret = root / "secret.txt"
    before = checksum(corpus)
    opened: list[str] = []
    recording = True

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if recording and event in ("open", "sqlite3.connect", "os.listdir", "os.scandir"):
            if args and isinstance(args[0], (str, bytes, Path)):
                opened.append(str(args[0]))

    sys.addaudithook(audit)
    # The hook sees a document being read (then the record starts afresh).
    (root / "docs" / "guide.md").read_text(encoding="utf-8")
    assert str(root / "docs" / "guide.md") in opened
    opened.clear()
    try:
        statuses = []
        for path, params, ours in _hostile_requests(secret):
            response = client.get(path, **params)
            statuses.append(response.status_code)
            # Datasette's own SQL editor answers 500 to several statements at once or to a
            # NUL character (its choice); every page of ours answers a clear 4xx.
            assert response.status_code < 500 or not ours, (path, params, response.text[:999])
            assert SECRET not in response.text, (path, params)
            assert "root:x:0:0" not in response.text, (path, params)
    finally:
        recording = False
    assert len(statuses) == (len(HOSTILE) + 1) * 14 + len(HOSTILE_SQL) * 2
    assert checksum(corpus) == before
    assert not (Path("/tmp/evil.db")).exists()
    # Nothing under the corpus directory was opened but the database file itself: not the
    # indexed documents (their lines come from the index), not the secret beside them.
    touched = {p for p in opened if p.startswith(str(root)) or p.startswith("/etc/passwd")}
    assert all(Path(p).name.startswith("index.db") for p in touched), sorted(touched)
    # And the index still answers as before.
    assert len(index.query("$.toc")) == len(
        client.json("/index.json", sql="select * from toc")["rows"]
    )


def test_no_index_served(multi: tuple[Client, Path], corpus: Path) -> None:
    only_plain = Client([corpus.parent / "plain.db"])
    try:
        parsed = page(only_plain, "/-/docql", status=404)
        assert "No docql-sqlite index is served" in parsed.ids["docql-message"]
        assert 'href="/-/docql"' not in only_plain.get("/").text  # no menu link
    finally:
        only_plain.close()


def test_an_index_embedded_while_served_gets_its_vectors(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Install\n\ninstall the client\n\n# Use\n\nuse it\n")
    db = tmp_path / "late.db"
    docql_sqlite.index(db, [str(tmp_path / "a.md")])
    served = Client([db])
    try:
        body = served.get("/-/docql", search="install", mode="hybrid").text
        assert "Vectors: none in this index" in body
        assert "hybrid search ranked by BM25 alone" in body
        docql_sqlite.embed(db, "hash")
        body = served.get("/-/docql", search="install", mode="hybrid").text
        assert "Vectors: yes (hash:256)" in body
        assert "ranked by BM25 alone" not in body
        assert results(page(served, "/-/docql", q="$.content.similar(1)"))
    finally:
        served.close()


def test_sql_too_long_for_a_link_is_shown_not_linked(
    client: Client, index: docql_sqlite.Index
) -> None:
    query = f'$.toc[?(@.title=="{"a" * 15000}")]'
    response = client.get("/-/docql", q=query)
    assert response.status_code == 200
    parsed = Page(response.text)
    assert "docql-open-sql" not in parsed.links
    assert parsed.ids["docql-sql"] == index.compile(query, limit=100).inline_sql()
    assert "too long for a link to the SQL editor" in response.text
