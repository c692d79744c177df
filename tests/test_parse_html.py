"""parse_html: visible text line by line, headings at their lines, code, tables, terms."""

from __future__ import annotations

import pytest

from docql_sqlite.ingest.html import parse_html

PAGE = """<!DOCTYPE html>
<html><head><title> My   Guide </title>
<style>h1 { color: red }</style>
<script>var s = "<h2>not a heading</h2>";</script>
</head>
<body>
<nav>Home | Docs</nav>
<h1 id="top">Guide<a class="headerlink" href="#top">¶</a></h1>
<p>Intro   text
spanning <b>two</b> source lines.<br>After a break.</p>
<div hidden>hidden text</div>
<div style="display: none">also hidden</div>
<h2>Install <code>lumen</code></h2>
<pre><code class="language-python">
import lumen

lumen.open("x.db")
</code></pre>
<table><caption>Glossary</caption>
<thead><tr><th>Term</th><th>Definition</th></tr></thead>
<tbody><tr><td>Shard</td><td>a piece</td></tr>
<tr><td>Chunk</td><td>a slice <i>of</i> text</td></tr></tbody></table>
<dl><dt>Cache</dt><dd>A store.</dd><dt>A</dt><dt>B</dt><dd>Letters.</dd></dl>
<p><strong>Note</strong>: not a term.</p>
<p><strong>Index:</strong> the database file.</p>
<ul><li>one</li><li><b>Two</b> — the second</li></ul>
<h3><a name="users"></a>GET /api/users</h3>
<noscript>enable js</noscript><template><p>template text</p></template>
<!-- a comment -->



<p>End.</p>
</body></html>
"""

EXPECTED_LINES = [
    "Home | Docs",  # 1
    "",
    "Guide",  # 3
    "",
    "Intro text spanning two source lines.",  # 5
    "After a break.",
    "",
    "Install lumen",  # 8
    "",
    "import lumen",  # 10
    "",
    'lumen.open("x.db")',  # 12
    "",
    "Glossary",  # 14
    "Term | Definition",  # 15
    "Shard | a piece",
    "Chunk | a slice of text",  # 17
    "",
    "Cache",  # 19
    "A store.",
    "A",
    "B",
    "Letters.",  # 23
    "",
    "Note: not a term.",  # 25
    "",
    "Index: the database file.",  # 27
    "",
    "one",  # 29
    "Two — the second",
    "",
    "GET /api/users",  # 32
    "",
    "End.",  # 34
]


def test_rendered_text() -> None:
    document = parse_html(PAGE, "site/guide.html")
    assert document.format == "html"
    assert document.text == "\n".join(EXPECTED_LINES) + "\n"
    assert document.title == "My Guide"


def test_headings_point_at_their_lines() -> None:
    document = parse_html(PAGE, "guide.html")
    assert [(h.level, h.title, h.line, h.anchor) for h in document.headings] == [
        (1, "Guide", 3, "top"),
        (2, "Install lumen", 8, None),
        (3, "GET /api/users", 32, "users"),
    ]
    lines = document.text.split("\n")
    assert all(lines[h.line - 1] == h.title for h in document.headings)


def test_codeblocks_and_tables() -> None:
    document = parse_html(PAGE, "guide.html")
    assert [(c.language, c.code, c.line, c.end_line) for c in document.codeblocks] == [
        ("python", 'import lumen\n\nlumen.open("x.db")', 10, 12),
    ]
    assert [(t.headers, t.rows, t.line, t.end_line) for t in document.tables] == [
        (["Term", "Definition"], [["Shard", "a piece"], ["Chunk", "a slice of text"]], 15, 17),
    ]
    assert document.keep_together == [(10, 12), (15, 17)]


def test_entities() -> None:
    document = parse_html(PAGE, "guide.html")
    assert [
        (e.entity_type, e.name, e.line, e.end_line, e.definition) for e in document.entities
    ] == [
        ("Term", "Shard", 16, 16, "a piece"),
        ("Term", "Chunk", 17, 17, "a slice of text"),
        ("Term", "Cache", 19, 20, "A store."),
        ("Term", "A", 21, 23, "Letters."),
        ("Term", "B", 22, 23, "Letters."),
        ("Term", "Index", 27, 27, "the database file."),
        ("Term", "Two", 30, 30, "the second"),
        ("API", "GET /api/users", 32, 34, None),
    ]


@pytest.mark.parametrize(
    "html, path, title",
    [
        ("<title>T</title><h1>H</h1>", "a.html", "T"),
        ("<title>  </title><h2>Sub</h2><h1>First <em>h1</em></h1>", "a.html", "First h1"),
        ("<p>no title</p>", "site/docs/page.html", "page.html"),
    ],
)
def test_title(html: str, path: str, title: str) -> None:
    assert parse_html(html, path).title == title


LANGUAGE_CASES = [
    ('<pre><code class="language-rust">fn x</code></pre>', "rust"),
    ('<pre class="lang-go">x</pre>', "go"),
    (
        '<div class="highlight-python notranslate"><div class="highlight"><pre>x</pre></div></div>',
        "python",
    ),
    ('<pre data-lang="sql">x</pre>', "sql"),
    ('<pre><code class="language-text">x</code></pre>', None),
    ("<pre>x</pre>", None),
]


@pytest.mark.parametrize("html, language", LANGUAGE_CASES)
def test_code_language(html: str, language: str | None) -> None:
    assert [c.language for c in parse_html(html, "a.html").codeblocks] == [language]


def test_blank_runs_collapse_and_blocks_break_lines() -> None:
    html = (
        "<div><div>a</div>\n\n\n<div>b <span>c</span></div></div>"
        "<p></p><p></p><section><p>d</p></section>x"
    )
    assert parse_html(html, "a.html").text == "a\nb c\n\nd\n\nx\n"


def test_table_without_thead_and_nested_table() -> None:
    html = (
        "<table><tr><td>a</td><td>b</td></tr>"
        "<tr><td>c</td><td><table><tr><td>inner</td></tr></table></td></tr></table>"
    )
    document = parse_html(html, "a.html")
    assert document.text == "a | b\nc | inner\n"
    assert [(t.headers, t.rows) for t in document.tables] == [([], [["a", "b"], ["c", "inner"]])]


def test_heading_with_markup_and_permalink() -> None:
    html = '<h2 id="x">The <code>fs.readFile(path)</code> call <a href="#x">#</a></h2><p>t</p>'
    document = parse_html(html, "a.html")
    assert [(h.title, h.line, h.anchor) for h in document.headings] == [
        ("The fs.readFile(path) call", 1, "x")
    ]


def test_api_heading() -> None:
    document = parse_html(
        "<h2><code>fs.readFile(path[, options])</code></h2><p>Reads.</p>", "a.html"
    )
    assert [(e.entity_type, e.name, e.line, e.end_line) for e in document.entities] == [
        ("API", "fs.readFile", 1, 3)
    ]


def test_empty_and_broken_html() -> None:
    assert parse_html("", "a.html").text == ""
    # html.parser nests the unclosed <p> inside the <h1>: the block still breaks the line.
    document = parse_html("<h1>Unclosed <p>para <b>bold", "a.html")
    assert document.text == "Unclosed\n\npara bold\n"
    assert [(h.level, h.title, h.line) for h in document.headings] == [(1, "Unclosed para bold", 1)]


def test_very_deep_nesting_keeps_words() -> None:
    html = "<div>" * 3000 + "deep words" + "</div>" * 3000
    document = parse_html(html, "a.html")
    assert "deep words" in document.text
    assert document.warnings == ["HTML nested too deeply; structure ignored"]
