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

# The <nav> is chrome (DESIGN D13): it is not rendered, so the page starts at its <h1>.
EXPECTED_LINES = [
    "Guide",  # 1
    "",
    "Intro text spanning two source lines.",  # 3
    "After a break.",
    "",
    "Install lumen",  # 6
    "",
    "import lumen",  # 8
    "",
    'lumen.open("x.db")',  # 10
    "",
    "Glossary",  # 12
    "Term | Definition",  # 13
    "Shard | a piece",
    "Chunk | a slice of text",  # 15
    "",
    "Cache",  # 17
    "A store.",
    "A",
    "B",
    "Letters.",  # 21
    "",
    "Note: not a term.",  # 23
    "",
    "Index: the database file.",  # 25
    "",
    "one",  # 27
    "Two — the second",
    "",
    "GET /api/users",  # 30
    "",
    "End.",  # 32
]


def test_rendered_text() -> None:
    document = parse_html(PAGE, "site/guide.html")
    assert document.format == "html"
    assert document.text == "\n".join(EXPECTED_LINES) + "\n"
    assert document.title == "My Guide"


def test_headings_point_at_their_lines() -> None:
    document = parse_html(PAGE, "guide.html")
    assert [(h.level, h.title, h.line, h.anchor) for h in document.headings] == [
        (1, "Guide", 1, "top"),
        (2, "Install lumen", 6, None),
        (3, "GET /api/users", 30, "users"),
    ]
    lines = document.text.split("\n")
    assert all(lines[h.line - 1] == h.title for h in document.headings)


def test_codeblocks_and_tables() -> None:
    document = parse_html(PAGE, "guide.html")
    assert [(c.language, c.code, c.line, c.end_line) for c in document.codeblocks] == [
        ("python", 'import lumen\n\nlumen.open("x.db")', 8, 10),
    ]
    assert [(t.headers, t.rows, t.line, t.end_line) for t in document.tables] == [
        (["Term", "Definition"], [["Shard", "a piece"], ["Chunk", "a slice of text"]], 13, 15),
    ]
    assert document.keep_together == [(8, 10), (13, 15)]


def test_entities() -> None:
    document = parse_html(PAGE, "guide.html")
    assert [
        (e.entity_type, e.name, e.line, e.end_line, e.definition) for e in document.entities
    ] == [
        ("Term", "Shard", 14, 14, "a piece"),
        ("Term", "Chunk", 15, 15, "a slice of text"),
        ("Term", "Cache", 17, 18, "A store."),
        ("Term", "A", 19, 21, "Letters."),
        ("Term", "B", 20, 21, "Letters."),
        ("Term", "Index", 25, 25, "the database file."),
        ("Term", "Two", 28, 28, "the second"),
        ("API", "GET /api/users", 30, 32, None),
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


@pytest.mark.parametrize(
    "html, headings",
    [
        # SQLite's keyword index page: `<h2 align=center>Keyword Index</h1>`, then links
        # (libxml2 kept the h2 open to the end of the page: one title of every link).
        (
            '<h2 align=center>Keyword Index</h1>\n<div><a href="a.html">abs()</a>\n'
            '<a href="b.html">ACID</a></div>\n<h2>Next</h2><div>more</div>',
            [(2, "Keyword Index", 1), (2, "Next", 5)],
        ),
        ("<h3>Three</h2><div>body</div>", [(3, "Three", 1)]),
        ("<H1>Upper</H4><div>body</div>", [(1, "Upper", 1)]),
        # <hr>, <head>, <header> are no headings; matched tags are left alone.
        (
            "<html><head><title>t</title></head><body><header>top</header><hr>"
            "<h1>Title</h1><div>x</div></body></html>",
            [(1, "Title", 3)],
        ),
    ],
)
def test_a_heading_ends_at_any_heading_end_tag(html: str, headings: list) -> None:
    document = parse_html(html, "a.html")
    assert [(h.level, h.title, h.line) for h in document.headings] == headings
    lines = document.text.split("\n")
    for level, title, line in headings:
        assert lines[line - 1] == title


def test_sqlites_hidden_section_markers_are_headings_below_the_last_visible_one() -> None:
    """pragma.html: one visible "List Of PRAGMAs", then each PRAGMA's part starts with a
    hidden `<h _id=…>` (SQLite's search index's sections). Each is a heading one level
    below the last visible heading, siblings of each other, with its `_id` as anchor;
    other hidden elements stay out of the text."""
    html = (
        "<h1>PRAGMA Statements</h1><p>intro</p>"
        "<h2>List Of PRAGMAs</h2><p>the list</p>"
        '<a name="pragma_analysis_limit"></a>'
        '<h _id=pragma_analysis_limit style="display:none"> PRAGMA analysis_limit</h><hr>'
        "<p><b>PRAGMA analysis_limit;</b></p><p>limits ANALYZE.</p>"
        '<h _id=pragma_journal_mode style="display:none"> PRAGMA journal_mode</h><hr>'
        "<p><b>PRAGMA journal_mode;</b></p>"
        '<div style="display:none">not shown</div>'
        "<h2>After</h2><p>end</p>"
        '<h _id=late style="display:none">Late part</h><p>x</p>'
    )
    document = parse_html(html, "pragma.html")
    got = [(h.level, h.title, h.anchor) for h in document.headings]
    assert got == [
        (1, "PRAGMA Statements", None),
        (2, "List Of PRAGMAs", None),
        (3, "PRAGMA analysis_limit", "pragma_analysis_limit"),
        (3, "PRAGMA journal_mode", "pragma_journal_mode"),
        (2, "After", None),
        (3, "Late part", "late"),
    ]
    lines = document.text.split("\n")
    for heading in document.headings:
        assert lines[heading.line - 1] == heading.title
    assert "not shown" not in document.text
    # A hidden h1-h6 is no heading: its text is not on the page.
    assert [h.title for h in parse_html('<h2 style="display:none">x</h2>', "a.html").headings] == []


def test_empty_and_broken_html() -> None:
    assert parse_html("", "a.html").text == ""
    # libxml2 closes the unclosed <h1> where the <p> starts: the block breaks the line.
    document = parse_html("<h1>Unclosed <p>para <b>bold", "a.html")
    assert document.text == "Unclosed\n\npara bold\n"
    assert [(h.level, h.title, h.line) for h in document.headings] == [(1, "Unclosed", 1)]
    # A page of comments only, or only a doctype, is an empty page, not an error.
    assert parse_html("<!DOCTYPE html><!-- nothing -->", "a.html").text == ""


def test_very_deep_nesting_keeps_words() -> None:
    html = "<div>" * 3000 + "deep words" + "</div>" * 3000
    document = parse_html(html, "a.html")
    assert "deep words" in document.text
    assert document.warnings == ["HTML nested too deeply; structure ignored"]


# -- main content: generator-shaped pages (saved shapes of Sphinx, MkDocs, Docusaurus, Node) --
FILLER = "<p>" + "Words of the page body that readers come for. " * 30 + "</p>"
SPHINX = f"""<html><head><title>json — JSON encoder and decoder — Python docs</title></head><body>
<div class="related" role="navigation" aria-label="related navigation"><h3>Navigation</h3>
<ul><li><a href="genindex.html">index</a></li><li><a href="marshal.html">next</a></li></ul></div>
<div class="document"><div class="documentwrapper"><div class="bodywrapper">
<div class="body" role="main"><section id="module-json">
<h1>json — JSON encoder and decoder<a class="headerlink" href="#module-json">¶</a></h1>
{FILLER}
<section id="basic-usage"><h2>Basic Usage<a class="headerlink" href="#basic-usage">¶</a></h2>
<dl class="py function"><dt class="sig sig-object py" id="json.dump">
<span class="sig-prename descclassname">json.</span><span class="sig-name descname">dump</span>(
<em class="sig-param">obj</em>, <em class="sig-param">fp</em>)<a class="headerlink"
href="#json.dump">¶</a></dt><dd><p>Serialize <em>obj</em> to <em>fp</em>.</p></dd></dl>
<dl class="py class"><dt class="sig sig-object py" id="json.JSONDecoder">
<em class="property">class </em><span class="sig-prename descclassname">json.</span>
<span class="sig-name descname">JSONDecoder</span>(<em class="sig-param">*</em>)</dt>
<dd><p>Simple JSON decoder.</p>
<dl class="py method"><dt class="sig sig-object py" id="json.JSONDecoder.decode">
<span class="sig-name descname">decode</span>(<em class="sig-param">s</em>)</dt>
<dd><p>Return the Python object.</p></dd></dl></dd></dl>
</section></section></div></div></div>
<div class="sphinxsidebar" role="navigation" aria-label="main navigation">
<h3>Previous topic</h3><p><a href="email.html">email</a></p>
<div role="note"><h3>This Page</h3><ul><li><a href="_sources/json.rst.txt">Show Source</a>
</li></ul></div></div></div>
<div class="footer">© Copyright 2001-2023, Python Software Foundation.</div>
</body></html>"""

MKDOCS = f"""<html><head><title>Setup - My Project</title></head><body>
<header class="md-header"><nav class="md-header__inner"><div class="md-header__title">
My Project</div></nav></header>
<div class="md-container"><main class="md-main"><div class="md-main__inner md-grid">
<div class="md-sidebar md-sidebar--primary"><nav class="md-nav"><label>Navigation</label>
<ul><li>Home</li><li>Setup</li><li>Reference</li></ul></nav></div>
<div class="md-content"><article class="md-content__inner md-typeset">
<h1 id="setup">Setup<a class="headerlink" href="#setup" title="Permanent link">¶</a></h1>
{FILLER}
<h2 id="install">Install<a class="headerlink" href="#install">¶</a></h2><p>Run pip.</p>
</article></div></div></main>
<footer class="md-footer"><nav class="md-footer__inner"><a href="/">Previous Home</a></nav>
</footer></div></body></html>"""

DOCUSAURUS = f"""<html><head><title>Intro | Site</title></head><body>
<nav class="navbar"><a class="navbar__brand"><b>Site</b></a><a>Docs</a><a>Blog</a></nav>
<div class="main-wrapper"><aside class="theme-doc-sidebar-container"><nav><ul>
<li>Intro</li><li>Tutorial</li></ul></nav></aside>
<main class="docMainContainer"><div class="container"><div class="row"><div class="col">
<nav class="theme-doc-breadcrumbs" aria-label="Breadcrumbs"><ul><li>Home</li><li>Intro</li>
</ul></nav>
<article><div class="theme-doc-markdown markdown"><header><h1>Intro</h1></header>
{FILLER}
<h2 id="getting-started">Getting started<a class="hash-link" href="#getting-started">#</a></h2>
<p>Start here.</p></div></article>
<nav class="pagination-nav"><a>Previous</a><a>Next: Tutorial</a></nav></div>
<div class="col col--3"><div class="tableOfContents theme-doc-toc-desktop"><ul>
<li>Getting started</li></ul></div></div></div></div></main></div>
<footer class="footer">Copyright © Site.</footer></body></html>"""

NODE_SHAPED = f"""<html><head><title>File system | Node.js v18 Documentation</title>
<script>function setupTheme() {{ document.title = "<h1>setupTheme</h1>"; }}</script></head>
<body><div id="content"><div id="column2" class="interior"><ul>
<li><a href="a.html">Assertion testing</a></li><li><a href="b.html">Buffer</a></li></ul></div>
<div id="column1" class="interior"><header class="header"><h1>Node.js v18 documentation</h1>
<details id="toc"><summary>Table of contents</summary><ul><li>File system</li></ul></details>
</header><div id="apicontent"><h2>File system<span><a class="mark" href="#fs">#</a></span></h2>
{FILLER}{FILLER}<h3>fs.open(path)</h3><p>Opens a file.</p></div></div></div></body></html>"""

CHROME_WORDS = ("Navigation", "Previous topic", "This Page", "¶", "Copyright", "Breadcrumbs")


@pytest.mark.parametrize(
    "html, headings",
    [
        (SPHINX, [(1, "json — JSON encoder and decoder"), (2, "Basic Usage")]),
        (MKDOCS, [(1, "Setup"), (2, "Install")]),
        (DOCUSAURUS, [(1, "Intro"), (2, "Getting started")]),
        (NODE_SHAPED, [(2, "File system"), (3, "fs.open(path)")]),
    ],
    ids=["sphinx", "mkdocs", "docusaurus", "node"],
)
def test_main_content_only(html: str, headings: list[tuple[int, str]]) -> None:
    document = parse_html(html, "page.html")
    assert [(h.level, h.title) for h in document.headings] == headings
    for word in CHROME_WORDS + ("Show Source", "Next: Tutorial", "Buffer", "setupTheme"):
        assert word not in document.text, word
    assert "Words of the page body" in document.text
    assert not [e for e in document.entities if any(w in e.name for w in CHROME_WORDS)]


def test_sphinx_object_descriptions_are_api_and_class_entities() -> None:
    document = parse_html(SPHINX, "json.html")
    objects = [
        (e.entity_type, e.name, e.signature)
        for e in document.entities
        if e.entity_type in ("API", "ClassEntity")
    ]
    assert objects == [
        ("API", "json.dump", "json.dump(obj, fp)"),
        ("ClassEntity", "json.JSONDecoder", "class json.JSONDecoder(*)"),
        ("API", "json.JSONDecoder.decode", "decode(s)"),
    ]
    lines = document.text.split("\n")
    dump = next(e for e in document.entities if e.name == "json.dump")
    assert lines[dump.line - 1].startswith("json.dump(")
    assert "Serialize obj to fp." in lines[dump.line : dump.end_line]
    # no Term named by a whole signature
    assert not [e for e in document.entities if e.entity_type == "Term" and "(" in e.name]
    # a passage starts at each description and after it (Jinja's `get_template` began
    # four lines before the end of the passage of the methods above it)
    objects_at = {e.line for e in document.entities if e.entity_type in ("API", "ClassEntity")}
    assert objects_at <= document.chunk_breaks
    after = max(e.end_line for e in document.entities if e.name == "json.JSONDecoder")
    assert any(after < line <= after + 2 for line in document.chunk_breaks)


def test_sphinx_std_opcodes_and_describe_blocks_are_api_entities() -> None:
    """dis.html's `std opcode` and contextvars.html's `describe` blocks (python3.11-doc):
    named NOP and iter, not by their anchor or their whole signature."""
    html = """<html><body><div class="body" role="main"><h1>dis</h1>
<dl class="std opcode">
<dt class="sig sig-object std" id="opcode-NOP">
<span class="sig-name descname"><span class="pre">NOP</span></span><a class="headerlink"
 href="#opcode-NOP" title="Permalink to this definition">¶</a></dt>
<dd><p>Do nothing code.</p></dd></dl>
<dl class="describe">
<dt class="sig sig-object">
<span class="sig-name descname"><span class="pre">iter(context)</span></span></dt>
<dd><p>Return an iterator over the variables stored in the context object.</p></dd></dl>
</div></body></html>"""
    document = parse_html(html, "dis.html")
    assert [(e.entity_type, e.name, e.signature) for e in document.entities] == [
        ("API", "NOP", "NOP"),
        ("API", "iter", "iter(context)"),
    ]
    assert "¶" not in document.text


# -- main content: a page whose sections are sibling <div>s (DocBook, AsciiDoc) ----------------
# The longest section holds most (DOMINANT_SHARE) of the page's text; its sibling sections
# are the page too. Shapes saved from postgresql-doc-15 and git-doc (Debian 12).
LONG = "<p>" + "Long words of the one big section that readers come for. " * 40 + "</p>"
DOCBOOK_REFENTRY = f"""<html><head><title>clusterdb</title></head><body>
<div class="navheader"><table><tr><th>clusterdb</th></tr><tr><td><a href="p.html">Prev</a></td>
<td><a href="index.html">Home</a></td></tr></table><hr /></div>
<div class="refentry" id="APP-CLUSTERDB"><div class="titlepage"></div>
<div class="refnamediv"><h2>clusterdb</h2><p>clusterdb — cluster a database</p></div>
<div class="refsynopsisdiv"><h2>Synopsis</h2><div class="cmdsynopsis"><p>clusterdb
[connection-option...] [--verbose] [dbname]</p></div></div>
<div class="refsect1"><h2>Description</h2><p>clusterdb is a utility for reclustering
tables in a PostgreSQL database.</p></div>
<div class="refsect1"><h2>Options</h2>{LONG}</div>
<div class="refsect1"><h2>Environment</h2><p>PGDATABASE: default connection
parameters.</p></div></div>
<div class="navfooter"><hr /><table><tr><td><a href="p.html">Prev</a></td></tr></table></div>
</body></html>"""

ASCIIDOC_MANPAGE = f"""<html><head><title>git-am(1)</title></head><body class="manpage">
<div id="header"><h1>git-am(1) Manual Page</h1><h2>NAME</h2><div class="sectionbody">
<p>git-am - Apply a series of patches from a mailbox</p></div></div>
<div id="content"><div class="sect1"><h2 id="_synopsis">SYNOPSIS</h2>
<div class="sectionbody"><pre>git am [--signoff] [--keep]</pre></div></div>
<div class="sect1"><h2 id="_options">OPTIONS</h2><div class="sectionbody">{LONG}</div></div>
<div class="sect1"><h2 id="_hooks">HOOKS</h2><div class="sectionbody"><p>This command can
run applypatch-msg, pre-applypatch, and post-applypatch hooks.</p></div></div></div>
<div id="footnotes"><hr></div><div id="footer"><div id="footer-text">Last updated
2024-05-31 00:35:55 UTC</div></div></body></html>"""

DOCBOOK_SECT1 = f"""<html><head><title>19.10. GSSAPI</title></head><body>
<div class="navheader"><table><tr><th>19.10. GSSAPI</th></tr></table><hr /></div>
<div class="sect1" id="GSSAPI-ENC"><div class="titlepage"><div><div>
<h2 class="title">19.10. Secure TCP/IP Connections with GSSAPI Encryption</h2></div></div></div>
<div class="toc"><dl class="toc"><dt><span class="sect2"><a href="#GSSAPI-SETUP">19.10.1.
Basic Setup</a></span></dt></dl></div>
<p>PostgreSQL also has native support for using GSSAPI to encrypt connections.</p>
<div class="sect2" id="GSSAPI-SETUP"><div class="titlepage"><div><div>
<h3 class="title">19.10.1. Basic Setup</h3></div></div></div>{LONG}</div></div>
</body></html>"""

DOCBOOK_APPENDIX = f"""<html><head><title>Appendix L. Acronyms</title></head><body>
<div class="navheader"><table><tr><th>Appendix L. Acronyms</th></tr></table><hr /></div>
<div class="appendix" id="ACRONYMS"><div class="titlepage"><div><div>
<h2 class="title">Appendix L. Acronyms</h2></div></div></div>
<p>This is a list of acronyms commonly used in the PostgreSQL documentation.</p>
<div class="variablelist"><dl class="variablelist">
{"<dt>ANSI</dt><dd>American National Standards Institute, a standards body.</dd>" * 30}
</dl></div></div></body></html>"""

# Not content: a site's name as a linked <h1> in a <div> header, a navigation column whose
# title is a link; the article beside them is the page.
SITE_HEADER = f"""<html><head><title>Setup</title></head><body>
<div id="top"><h1><a href="/">Example Site</a></h1></div>
<div id="side"><h3><a href="/topics">Topics</a></h3><ul><li><a href="/a">Alpha</a></li>
<li><a href="/b">Beta</a></li></ul></div>
<div id="page"><h1>Setup</h1>{LONG}<h2>Install</h2><p>Run the installer.</p></div>
</body></html>"""


@pytest.mark.parametrize(
    "html, headings, words, chrome",
    [
        (
            DOCBOOK_REFENTRY,
            [
                (2, "clusterdb"),
                (2, "Synopsis"),
                (2, "Description"),
                (2, "Options"),
                (2, "Environment"),
            ],
            ["cluster a database", "reclustering", "PGDATABASE", "Long words"],
            ["Prev", "Home"],
        ),
        (
            ASCIIDOC_MANPAGE,
            [
                (1, "git-am(1) Manual Page"),
                (2, "NAME"),
                (2, "SYNOPSIS"),
                (2, "OPTIONS"),
                (2, "HOOKS"),
            ],
            ["Apply a series of patches", "git am [--signoff]", "applypatch-msg", "Long words"],
            ["Last updated"],
        ),
        (
            DOCBOOK_SECT1,
            [
                (2, "19.10. Secure TCP/IP Connections with GSSAPI Encryption"),
                (3, "19.10.1. Basic Setup"),
            ],
            ["native support for using GSSAPI", "Long words"],
            [],
        ),
        (
            DOCBOOK_APPENDIX,
            [(2, "Appendix L. Acronyms")],
            ["list of acronyms commonly used", "American National Standards"],
            [],
        ),
        (SITE_HEADER, [(1, "Setup"), (2, "Install")], ["Long words"], ["Example Site", "Alpha"]),
    ],
    ids=[
        "docbook-refentry",
        "asciidoc-manpage",
        "docbook-sect1",
        "docbook-appendix",
        "site-header",
    ],
)
def test_sibling_sections_of_the_longest_one_are_content(
    html: str, headings: list[tuple[int, str]], words: list[str], chrome: list[str]
) -> None:
    """postgresql-doc-15 and git-doc: the page's longest section held over 60% of its
    text, and the page was cut down to it (clusterdb.html kept "Options" alone of its
    8 sections, git-am.html "OPTIONS" alone of 10)."""
    document = parse_html(html, "page.html")
    assert [(h.level, h.title) for h in document.headings] == headings
    for word in words:
        assert word in document.text, word
    for word in chrome:
        assert word not in document.text, word


@pytest.mark.parametrize(
    "html, anchors",
    [
        (
            SPHINX,
            [("json — JSON encoder and decoder", "module-json"), ("Basic Usage", "basic-usage")],
        ),
        (
            # python3.11-doc's license.html: the id is not the title's slug
            """<div class="body" role="main"><section id="beopen-com-license-agreement">
<span id="a-target"></span><h2>BEOPEN.COM LICENSE AGREEMENT<a class="headerlink"
href="#beopen">¶</a></h2>
<p>Text.</p></section></div>""",
            [("BEOPEN.COM LICENSE AGREEMENT", "beopen-com-license-agreement")],
        ),
        (
            DOCBOOK_SECT1,
            [
                ("19.10. Secure TCP/IP Connections with GSSAPI Encryption", "GSSAPI-ENC"),
                ("19.10.1. Basic Setup", "GSSAPI-SETUP"),
            ],
        ),
        (
            # generated ids (Sphinx's repeated title, DocBook's refsect1) and a layout box's
            # are no names; a section's id is not its second heading's
            """<section id="id1"><h2>Options</h2><p>a</p></section>
<div class="refsect1" id="id-1.9.3.74.5"><h2>Description</h2><p>b</p></div>
<div id="header"><h1>git-am(1) Manual Page</h1></div>
<section id="setup"><p>Intro.</p><h3>Later</h3></section>
<h4 id="own">Own id</h4><h5><a name="named"></a>Named</h5>""",
            [
                ("Options", None),
                ("Description", None),
                ("git-am(1) Manual Page", None),
                ("Later", None),
                ("Own id", "own"),
                ("Named", "named"),
            ],
        ),
        (
            # Texinfo (R's manuals): an empty target right before the heading, after a
            # navigation line inside the chapter's <div id>
            """<div class="chapter" id="Introduction"><div class="header"><p>Next:
<a href="#Objects">Objects</a></p></div>
<span id="Introduction-1"></span><!-- x --><h2 class="chapter">1 Introduction</h2>
<p>Text.</p><span id="x"></span>Words<h3>After words</h3></div>""",
            [("1 Introduction", "Introduction-1"), ("After words", None)],
        ),
    ],
    ids=["sphinx", "sphinx-license", "docbook", "not-names", "texinfo"],
)
def test_a_heading_takes_the_id_of_the_section_it_opens(html: str, anchors: list) -> None:
    """Links point at `<section id>` (Sphinx) and `<div class="sect1" id>` (DocBook), not at
    the heading: 470 of python3.11-doc's 2,658 such headings had an anchor other than the
    page's own id (`module-json`, `beopen-com-license-agreement-for-python-2-0`); of R's
    manuals' 1,157 headings (Texinfo), 825."""
    document = parse_html(html, "page.html")
    assert [(h.title, h.anchor) for h in document.headings] == anchors


@pytest.mark.parametrize(
    "cell, text",
    [
        # postgresql-doc-15's functions-string.html: "NFD, NFKC, or NFKD." read "NFD , NFKC ,"
        ("<code>NFD</code>, <code>NFKC</code>, or <code>NFKD</code>.", "NFD, NFKC, or NFKD."),
        # R's manuals' index: "<a><code>.Device</code></a>:" read ".Device :"
        ('<a href="#i"><code>.Device</code></a>:', ".Device:"),
        ("pg_<b>stat</b>_activity", "pg_stat_activity"),
        # blocks inside a cell still part words
        ("<p>one</p><p>two</p>three<br>four", "one two three four"),
        ("a<table><tr><td>in1</td><td>in2</td></tr></table>b", "a in1 in2 b"),
        ("<ul><li>x</li><li>y</li></ul>", "x y"),
        # comments, hidden and invisible parts
        ("a<!-- c -->b<span hidden>no<b>x</b></span>c<script>no</script>d", "abcd"),
    ],
    ids=["code-comma", "link-colon", "inline-bold", "paragraphs", "nested-table", "list", "hidden"],
)
def test_table_cells_join_inline_markup_as_written(cell: str, text: str) -> None:
    """A cell's text was its strings joined by spaces: 1,432 of postgresql-doc-15's 20,194
    cells and 1,718 of R's 8,661 had a space before a comma, a dot or a colon."""
    html = f"<table><caption><i>Table</i>, 1</caption><tr><td>{cell}</td><td>z</td></tr></table>"
    document = parse_html(html, "page.html")
    assert document.tables[0].rows == [[text, "z"]]
    assert document.text.split("\n")[:2] == ["Table, 1", f"{text} | z"]


@pytest.mark.parametrize(
    "html, text",
    [
        # postgresql-doc-15's DocBook pages break long identifiers with a literal U+200B
        (
            "<h2>37.11. collation_character_set_\u200bapplicability</h2>",
            "37.11. collation_character_set_applicability",
        ),
        (
            "<p>hy&shy;phen&#173;ated, x&#8203;y, z&ZeroWidthSpace;w, q&#x200B;r</p>",
            "hyphenated, xy, zw, qr",
        ),
        ("<pre>pg_stat_\u2060activity\u00ad</pre>", "pg_stat_activity"),
        # shown as written: an escaped reference, the joiners some scripts need
        (
            "<p>&amp;#8203; &amp;shy; \u0645\u200c\u0627 \U0001f468\u200d\U0001f4bb</p>",
            "&#8203; &shy; \u0645\u200c\u0627 \U0001f468\u200d\U0001f4bb",
        ),
    ],
    ids=["docbook-zwsp", "references", "pre", "kept"],
)
def test_zero_width_spaces_and_soft_hyphens_are_not_text(html: str, text: str) -> None:
    """A word with an invisible break inside was not found by its spelling: grep and
    heading("collation_character_set_applicability") missed 179 places in PostgreSQL's
    manual."""
    document = parse_html(html, "page.html")
    assert document.text == text + "\n"


def test_nodes_source_links_are_not_part_of_a_title() -> None:
    """Node's API pages end 4 class headings with a link to the source on GitHub:
    "Class: assert.AssertionError[src]"."""
    html = """<div id="apicontent"><h3>Class: <code>assert.AssertionError</code><a
class="srclink" href="https://github.com/nodejs/node/blob/master/lib/assert.js#L178">[src]</a><span><a
class="mark" href="#class-assertassertionerror" id="class-assertassertionerror">#</a></span><a
aria-hidden="true" class="legacy" id="assert_class_assert_assertionerror"></a></h3>
<p>Indicates the failure of an assertion.</p></div>"""
    document = parse_html(html, "assert.html")
    assert [(h.title, h.anchor) for h in document.headings] == [
        ("Class: assert.AssertionError", "assert_class_assert_assertionerror")
    ]
    assert "[src]" not in document.text


LAYOUT = """<html><body><table width="100%"><tr><td class="nav"><a href="a.html">Home</a><br>
<a href="b.html">Docs</a></td><td><h1>Manual</h1><p>Intro para.</p><h2>Install</h2>
<p>Run make.</p><pre>make install</pre><table border="1"><tr><th>Opt</th><th>Meaning</th></tr>
<tr><td>-v</td><td>verbose</td></tr></table></td></tr></table></body></html>"""


def test_a_table_that_lays_out_a_page_keeps_its_structure() -> None:
    """A page laid out in a table (a navigation cell beside the content) was one table
    row: 'Home Docs | Manual Intro para. Install Run make. make install Opt Meaning -v
    verbose', no heading, code block or inner table."""
    document = parse_html(LAYOUT, "manual.html")
    lines = document.text.split("\n")
    assert [(h.level, h.title) for h in document.headings] == [(1, "Manual"), (2, "Install")]
    assert all(lines[h.line - 1] == h.title for h in document.headings)
    assert [(c.code, lines[c.line - 1]) for c in document.codeblocks] == [
        ("make install", "make install")
    ]
    assert [(t.headers, t.rows) for t in document.tables] == [
        (["Opt", "Meaning"], [["-v", "verbose"]])
    ]
    assert lines[document.tables[0].line - 1] == "Opt | Meaning"


def _directory_page(items: int, extra: str = "") -> str:
    links = "".join(f'<li><a href="c3ref/f{i}.html#x">sqlite3_f{i}</a></li>' for i in range(items))
    toc = (
        '<ul><li><a href="#intro">1. Introduction</a><ul>'
        + "".join(f'<li><a href="#s{i}">1.{i}. Part {i}</a></li>' for i in range(items))
        + "</ul></li></ul>"
    )
    return (
        "<html><body><h1>Keyword Index</h1><ul>" + links + "</ul>"
        "<h2>Contents</h2>" + toc + "<h2>Prose</h2><p>See <a href='wal.html'>WAL</a> "
        "for the details of the log.</p>" + extra + "</body></html>"
    )


def test_a_directory_of_links_shows_where_each_points() -> None:
    """A keyword index, a site map, a table of contents (SQLite's `keyword_index.html`,
    Python's `contents.html`): each link's target after an arrow, so that search knows
    the lines for pointers (`passage_text.pointer_page`); a link in prose, and a short
    list or one of mixed items, render as before."""
    from docql_sqlite.passage_text import no_passage

    mixed = "<ul>" + "".join(
        f"<li><a href='p{i}.html'>p{i}</a> explains part {i}</li>" for i in range(30)
    )
    outside = "<ul>" + "".join(
        f"<li><a href='https://x.org/{i}'>site {i}</a></li>" for i in range(30)
    )
    doc = parse_html(_directory_page(25, mixed + "</ul>" + outside + "</ul>"), "k.html")
    lines = doc.text.split("\n")
    assert "sqlite3_f0 → c3ref/f0.html#x" in lines and "sqlite3_f24 → c3ref/f24.html#x" in lines
    assert "1. Introduction → #intro" in lines and "1.3. Part 3 → #s3" in lines
    assert "See WAL for the details of the log." in lines
    assert "p3 explains part 3" in lines and "site 3" in lines  # not directories
    start = lines.index("Keyword Index")
    assert no_passage("\n".join(lines[start : start + 27]) + "\n")  # the index's chunk
    contents = lines.index("Contents")
    assert no_passage("\n".join(lines[contents : contents + 28]) + "\n")
    assert not no_passage("\n".join(lines[lines.index("Prose") :]) + "\n")
    # under DIRECTORY_ITEMS items: a list of links like any other
    small = parse_html(_directory_page(5), "k.html").text.split("\n")
    assert "sqlite3_f0" in small and not any("→" in line for line in small)


def test_a_docbook_table_of_contents_is_a_directory() -> None:
    """DocBook writes a table of contents as a `<dl>` of `<dt><span><a>` entries, nested
    in `<dd>`s (the Debian Administrator's Handbook's `index.html`, PostgreSQL's chapter
    pages): its lines were plain titles, so the book's front page held every section's
    words and ranked first for "how to set up a DNS server with bind". A definition list
    of terms, and a short `<dl>` of links, render as before."""
    from docql_sqlite.passage_text import no_passage

    def entry(n: int, href: str, inner: str = "") -> str:
        return f'<dt><span class="section"><a href="{href}">{n}. Part {n}</a></span></dt>' + (
            f"<dd><dl>{inner}</dl></dd>" if inner else ""
        )

    sub = "".join(entry(i, f"ch1.html#s{i}") for i in range(1, 12))
    toc = entry(1, "ch1.html", sub) + "".join(entry(i, f"ch{i}.html") for i in range(2, 14))
    glossary = "".join(f"<dt>Term {i}</dt><dd>Meaning {i}.</dd>" for i in range(25))
    page = (
        f'<html><body><h1>Handbook</h1><div class="toc"><dl class="toc">{toc}</dl></div>'
        f"<h2>Glossary</h2><dl>{glossary}</dl></body></html>"
    )
    doc = parse_html(page, "index.html")
    lines = doc.text.split("\n")
    assert "1. Part 1 → ch1.html" in lines and "11. Part 11 → ch1.html#s11" in lines
    assert "13. Part 13 → ch13.html" in lines
    first, last = lines.index("1. Part 1 → ch1.html"), lines.index("13. Part 13 → ch13.html")
    assert no_passage("\n".join(lines[first : last + 1]) + "\n")
    assert "Term 3" in lines and not any("Term" in line and "→" in line for line in lines)
    assert {e.name for e in doc.entities} >= {"Term 3"}  # terms stay terms
    short = parse_html(f"<html><body><dl>{sub[:300]}</dl></body></html>", "x.html")
    assert not any("→" in line for line in short.text.split("\n"))


def test_a_back_of_book_index_is_a_directory() -> None:
    """DocBook's `bookindex.html` lists each term and the sections about it as a `<dl>`
    of "term, <a>section</a>" entries (3,056 on PostgreSQL's): its lines held every
    term's words, and the page came second for "PQgetvalue", "PQexec", "lo_import"."""
    from docql_sqlite.passage_text import no_passage

    entries = "".join(
        f'<dt>PQfunc{i}, <a class="indexterm" href="libpq-exec.html#F{i}">Retrieving '
        f"Results</a></dt>"
        for i in range(24)
    )
    entries += (
        "<dt>SSL</dt><dd><dl><dt>with libpq, "
        '<a class="indexterm" href="libpq-connect.html">Parameter Key Words</a>, '
        '<a class="indexterm" href="libpq-ssl.html">SSL Support</a></dt></dl></dd>'
    )
    page = f'<html><body><h2>P</h2><div class="indexdiv"><dl>{entries}</dl></div></body></html>'
    lines = parse_html(page, "bookindex.html").text.split("\n")
    assert "PQfunc3, Retrieving Results → libpq-exec.html#F3" in lines
    assert (
        "with libpq, Parameter Key Words → libpq-connect.html, SSL Support → libpq-ssl.html"
        in lines
    )
    assert no_passage("\n".join(lines[2:]) + "\n")
    # a glossary whose definitions name a page stays a glossary
    glossary = "".join(
        f'<dt>Term {i}, see <a href="t{i}.html">the page</a> for more</dt>' for i in range(24)
    )
    kept = parse_html(f"<html><body><dl>{glossary}</dl></body></html>", "g.html")
    assert not any("→" in line for line in kept.text.split("\n"))


def test_an_admonitions_title_opens_no_section() -> None:
    """DocBook labels its boxes with headings (`<div class="warning"><h3
    class="title">Warning</h3>`): PostgreSQL's libpq-connect.html put `PQconnectdb`'s
    description, after a warning box, under a section "Warning"."""
    page = (
        '<html><body><div class="sect1"><h2 class="title">34.1. Connection Control</h2>'
        "<p>PQconnectdbParams makes a new connection.</p>"
        '<div class="warning"><h3 class="title">Warning</h3><p>Mind the search path.</p></div>'
        "<p>PQconnectdb makes a new connection from a string.</p></div></body></html>"
    )
    doc = parse_html(page, "libpq-connect.html")
    assert [h.title for h in doc.headings] == ["34.1. Connection Control"]
    assert "Warning" in doc.text.split("\n")  # the label stays text of the box


def test_doxygen_member_titles_lose_their_permalink_mark() -> None:
    """Doxygen opens each member's title with a permalink `◆` (lmdb-doc: "◆ mdb_txn_begin()"
    matched no query for `mdb_txn_begin` as equal, and `MDB_TXN_BEGIN_FLAGS` ranked first)."""
    page = (
        '<html><body><h2 class="memtitle"><span class="permalink"><a href="#ga1">&#9670;&nbsp;'
        "</a></span>mdb_txn_begin()</h2><p>Create a transaction.</p></body></html>"
    )
    doc = parse_html(page, "group__mdb.html")
    assert [h.title for h in doc.headings] == ["mdb_txn_begin()"]
    assert "◆" not in doc.text


JAVADOC_PAGE = """<html><body><main role="main">
<div class="header"><h1 title="Class StringUtils" class="title">Class StringUtils</h1></div>
<section class="class-description" id="class-description">
<div class="type-signature"><span class="modifiers">public class </span><span
class="element-name type-name-label">StringUtils</span>
<span class="extends-implements">extends <a href="x.html">Object</a></span></div>
<div class="block"><p>Operations on String that are null safe.</p></div>
</section>
<section class="details"><ul class="member-list"><li>
<section class="detail" id="isBlank(java.lang.CharSequence)">
<h3>isBlank</h3>
<div class="member-signature"><span class="modifiers">public static</span>&nbsp;<span
class="return-type">boolean</span>&nbsp;<span class="element-name"><a href="src.html">isBlank
</a></span><wbr><span class="parameters">(<a href="cs.html">CharSequence</a>&nbsp;cs)</span></div>
<div class="block"><p>Checks if a CharSequence is empty, null or whitespace only.</p></div>
</section></li></ul></section>
</main></body></html>"""

DOXYGEN_PAGE = """<html><body><div class="contents">
<h2 class="memtitle"><span class="permalink"><a href="#ga1">&#9670;&nbsp;</a></span>mdb_txn_begin()
</h2>
<div class="memitem"><div class="memproto"><table class="memname"><tr>
<td class="memname">int mdb_txn_begin </td><td>(</td>
<td class="paramtype"><a class="el" href="s.html">MDB_env</a> *&#160;</td>
<td class="paramname"><em>env</em>, </td></tr><tr><td class="paramkey"></td><td></td>
<td class="paramtype">unsigned int&#160;</td><td class="paramname"><em>flags</em>&#160;</td>
</tr><tr><td></td><td>)</td><td></td><td></td></tr></table></div>
<div class="memdoc"><p>Create a transaction for use with the environment.</p></div></div>
</div></body></html>"""


@pytest.mark.parametrize(
    "page, expected",
    [
        (
            JAVADOC_PAGE,
            [
                ("ClassEntity", "StringUtils", "public class StringUtils extends Object"),
                ("API", "StringUtils.isBlank", "public static boolean isBlank(CharSequence cs)"),
            ],
        ),
        (
            DOXYGEN_PAGE,
            [("API", "mdb_txn_begin", "int mdb_txn_begin(MDB_env * env, unsigned int flags)")],
        ),
        (DOXYGEN_PAGE.replace("memitem", "other"), [("API", "mdb_txn_begin", "mdb_txn_begin()")]),
    ],
    ids=["javadoc", "doxygen", "a heading alone"],
)
def test_javadoc_and_doxygen_members_are_api_entities(page: str, expected: list) -> None:
    """Javadoc's `section.detail` and Doxygen's `div.memitem` hold a member's declaration:
    an API entity named as its page's class writes it (`$.entities[?(@.name ==
    "StringUtils.isBlank")]` found nothing in commons-lang's Javadoc), the title's own
    entity (Doxygen's `mdb_txn_begin()`) giving way to it; the lines span the title."""
    doc = parse_html(page, "page.html")
    found = [(e.entity_type, e.name, e.signature) for e in doc.entities if e.entity_type != "Term"]
    assert found == expected
    member = next(e for e in doc.entities if e.name.endswith(("isBlank", "mdb_txn_begin")))
    title = next(h for h in doc.headings if h.title.startswith(("isBlank", "mdb_txn_begin")))
    assert member.line == title.line and member.end_line > member.line


@pytest.mark.parametrize("depth", [500, 1_500])
def test_lists_nested_too_deeply_keep_their_words(depth: int) -> None:
    """Past the renderer's depth the page keeps its words without structure; from ~500
    nested lists the fallback's own recursion failed too, and the page was lost."""
    page = "<html><body>" + "<ul><li>item text " * depth + "</li></ul>" * depth
    doc = parse_html(page + "<p>after the lists</p></body></html>", "deep.html")
    assert doc.warnings == ["HTML nested too deeply; structure ignored"]
    assert doc.text.count("item text") == depth and doc.text.endswith("after the lists\n")


def test_a_latex2html_navigation_panel_is_chrome() -> None:
    """LaTeX2HTML (gnuplot's 652 pages) opens every page with "Next: Macros Up: Set-show
    Previous: Locale Index": the neighbours' titles were words of every page."""
    page = (
        '<html><body><div class="navigation"><!--Navigation Panel--><a href="n336.html">'
        '<img alt="next" src="next.png"></a><br><b> Next:</b> <a href="n336.html">Macros</a>'
        ' <b> Up:</b> <a href="n263.html">Set-show</a></div><!--End of Navigation Panel-->'
        "<h2>Logscale</h2><p>Syntax: set logscale</p></body></html>"
    )
    doc = parse_html(page, "node335.html")
    assert doc.text == "Logscale\n\nSyntax: set logscale\n"


SQLITE_PAGE = """<!DOCTYPE html>
<html><head><title>Compiling An SQL Statement</title></head>
<body>
<div class=nosearch>
<a href="../index.html"><img class="logo" src="../images/sqlite370_banner.gif" alt="SQLite"></a>
<div class="tagline desktoponly">
Small. Fast. Reliable.<br>Choose any three.
</div>
<div class="menu mainmenu">
<ul>
<li><a href="../index.html">Home</a>
<li class='desktoponly'><a href="../support.html">Support</a>
<li class='desktoponly'><a href="../prosupport.html">Purchase</a>
</ul>
</div>
<div class="searchmenu" id="searchmenu">
<form method="GET" action="../search">
<select name="s" id="searchtype">
<option value="d">Search Documentation</option>
</select>
</form>
</div>
</div>
<div class=nosearch>
<a href="intro.html"><h2>SQLite C Interface</h2></a>
<h2>Compiling An SQL Statement</h2>
</div>
<p>To execute an SQL statement, it must first be compiled into a byte-code program.</p>
</body></html>
"""


def test_a_nosearch_header_is_chrome(tmp_index) -> None:
    """SQLite's site puts its header (logo, tagline, menu, search form) in a
    `<div class=nosearch>`: on each of its 766 pages that was a first passage, and
    "purchase support" found only it — its 632 copies filled every candidate list.
    Its C reference pages put their titles in one too: a `nosearch` with a heading stays."""
    doc = parse_html(SQLITE_PAGE, "c3ref/prepare.html")
    assert [h.title for h in doc.headings] == ["SQLite C Interface", "Compiling An SQL Statement"]
    assert doc.text == (
        "SQLite C Interface\n\nCompiling An SQL Statement\n\n"
        "To execute an SQL statement, it must first be compiled into a byte-code program.\n"
    )
    import docql_sqlite

    for n in range(12):
        tmp_index.write(f"c3ref/page{n}.html", SQLITE_PAGE)
    tmp_index.write(
        "prosupport.html",
        "<html><body><h1>SQLite Professional Support</h1><p>You can purchase "
        "support from the developers.</p></body></html>",
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        assert [h["path"] for h in idx.search("purchase support")] == ["docs/prosupport.html"]


def test_a_directory_is_a_chunk_of_its_own(tmp_index) -> None:
    """The intro before a page's "Contents" box and the text after it stay search passages:
    the directory's lines are a chunk of their own (else a 30-entry table of contents made
    the chunk it shared with the intro a pointer page, the intro unsearchable)."""
    import docql_sqlite

    toc = "".join(f'<li><a href="#s{i}">{i}. Part {i}</a></li>' for i in range(30))
    tmp_index.write(
        "page.html",
        "<html><body><h1>Guide</h1><p>The okapi is a forest giraffe.</p><ul>"
        + toc
        + "</ul><p>The zebra has stripes.</p></body></html>",
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        assert [h["path"] for h in idx.search("okapi forest giraffe", mode="bm25")] == [
            "docs/page.html"
        ]
        assert idx.search("zebra stripes", mode="bm25")
        assert idx.search("Part 7", mode="bm25") == []  # the directory: pointers only
    chunks = [c for (c,) in tmp_index.query("SELECT content FROM chunks ORDER BY chunk_index")]
    assert any(c.startswith("0. Part 0 → #s0") for c in chunks)


# -- templates: an HTML file that is a template's source is read as its text --------------
FLASK_BASE = """<!doctype html>
<title>{% block title %}{% endblock %} - Flaskr</title>
<nav>
  <h1><a href="{{ url_for('index') }}">Flaskr</a></h1>
  <ul>
    {% if g.user %}
      <li><a href="{{ url_for('auth.logout') }}">Log Out</a>
    {% endif %}
  </ul>
</nav>
<section class="content">
  <header>{% block header %}{% endblock %}</header>
  {% for message in get_flashed_messages() %}
    <div class="flash">{{ message }}</div>
  {% endfor %}
  {% block content %}{% endblock %}
</section>
"""


@pytest.mark.parametrize(
    ("page", "template"),
    [
        (FLASK_BASE, True),  # Jinja: blocks, a navigation and a header only
        ("{% extends 'base.html' %}\n{% block content %}<p>Hi</p>{% endblock %}", True),
        ('<a href="{% url \'admin:index\' %}">{% translate "Home" %}</a>', True),  # Django
        ("<ul><% @posts.each do |post| %><li><%= post.title %></li><% end %></ul>", True),  # ERB
        ('<a href="{{url}}">{{title}}</a>', True),  # Handlebars / Mustache: two expressions
        ("{%- if page.title -%}<h1>{{ page.title }}</h1>{%- endif -%}", True),  # Liquid
        # a manual that shows template code shows it as code: no tag of its own
        (
            "<p>Use the <code>{% url %}</code> tag:</p><pre>{% extends 'base.html' %}\n"
            "{{ user.name }} {{ user.email }}</pre>",
            False,
        ),
        ("<p>One {{ value|upper }} in the text.</p>", False),  # one expression: a page
        ("<p>\\({{n}\\choose{k}}\\) and \\({{a}\\over{b}}\\)</p>", False),  # TeX
        ("<!-- {% block x %} --><p>A page.</p><script>x = '{{a}} {{b}}'</script>", False),
        ("<p>Plain page: 50% off {in braces} and <b>% signs</b>.</p>", False),
        ("<pre>" + "{% a %}" * 3, False),  # an unclosed <pre> hides the rest
    ],
)
def test_a_template_is_told_from_a_page(page: str, template: bool) -> None:
    from docql_sqlite.ingest.html import is_template

    assert is_template(page) is template


def test_unclosed_code_elements_cost_a_linear_time() -> None:
    """`<pre` a thousand times without an end: each is looked for once, not scanned to the
    end of the text again (a lazy regex did: quadratic)."""
    import time

    from docql_sqlite.ingest.html import is_template

    page = "<p>{{ a }}</p>" + "<code>x</code><pre " * 20_000
    started = time.process_time()
    assert is_template(page) is False
    assert time.process_time() - started < 1.0


def test_a_template_is_indexed_as_its_source(tmp_index) -> None:
    """Flask's tutorial `base.html` — `{% block %}` tags inside a `<nav>` and a `<header>`,
    which a page's chrome drops — was skipped as "no text content"; a child template lost
    its `{% extends %}` and its links' `url_for(…)`. Now each is its source's lines."""
    import docql_sqlite

    child = (
        "{% extends 'base.html' %}\n{% block content %}\n"
        '  <a class="action" href="{{ url_for(\'blog.create\') }}">New</a>\n{% endblock %}\n'
    )
    tmp_index.write_many({"templates/base.html": FLASK_BASE, "templates/index.html": child})
    report = tmp_index.index()
    assert not report.skipped and not report.failed
    rows = tmp_index.query(
        "SELECT d.path, d.format, c.line, c.end_line, c.content FROM chunks c "
        "JOIN documents d ON d.id = c.doc_id ORDER BY d.path"
    )
    assert [(path, fmt) for path, fmt, *_ in rows] == [
        ("docs/templates/base.html", "text"),
        ("docs/templates/index.html", "text"),
    ]
    assert rows[0][2:] == (1, 17, FLASK_BASE)
    assert rows[1][4] == child
    # a template's source is code: a line under a rule is no title
    ruled = "{% block x %}\n\nSection\n-------\n\nText.\n\n{% endblock %}\n"
    tmp_index.write("templates/ruled.html", ruled)
    tmp_index.index()
    assert tmp_index.query("SELECT count(*) FROM sections") == [(0,)]
    with docql_sqlite.open(tmp_index.db) as idx:
        [hit] = idx.search("get_flashed_messages", mode="bm25")
        assert (hit["path"], hit["line"]) == ("docs/templates/base.html", 1)
        assert [h["path"] for h in idx.search("blog.create", mode="bm25")] == [
            "docs/templates/index.html"
        ]


REDIRECT = (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n    <meta http-equiv="refresh" '
    'content="0;URL=../../../../std/collections/hash_map/struct.HashMap.html">\n'
    "    <title>Redirection</title>\n</head>\n<body>\n    <p>Redirecting to <a href="
    '"../../../../std/collections/hash_map/struct.HashMap.html">../../../../std/collections/'
    "hash_map/struct.HashMap.html</a>...</p>\n</body>\n</html>\n"
)


@pytest.mark.parametrize(
    ("html", "redirect"),
    [
        (REDIRECT, True),  # rustdoc's page of a re-export path
        (REDIRECT.replace("0;URL", "1; url"), True),
        (REDIRECT.replace('content="0;', 'content="30;'), False),  # a page that reloads
        (REDIRECT.replace("Redirecting to", "Redirecting to " + "words " * 80), False),
        ("<html><body><p>Moved.</p></body></html>", False),
    ],
)
def test_a_redirect_page_is_no_document(html: str, redirect: bool) -> None:
    """rustdoc writes a page that only redirects for each re-export path (249 of the 1,779
    pages of Rust's `std`), Sphinx's and MkDocs' redirect plugins one per moved page: each
    was a passage "Redirecting to …" beside the page it names."""
    from docql_sqlite.ingest.read import SKIP_REDIRECT, Skip

    if not redirect:
        parse_html(html, "page.html")
        return
    with pytest.raises(Skip) as skipped:
        parse_html(html, "struct.HashMap.html")
    assert skipped.value.kind == SKIP_REDIRECT
    assert "std/collections/hash_map/struct.HashMap.html" in skipped.value.message


def test_rustdocs_notable_traits_tooltip_is_no_part_of_a_heading() -> None:
    html = (
        '<html><body><main><h1>Struct std::vec::Vec</h1><section id="method.new">'
        '<h4 class="code-header">pub const fn <a class="fnname">new</a>() -&gt; Vec&lt;T&gt;'
        '<span class="notable-traits"><span class="notable-traits-tooltip">ⓘ<span '
        'class="notable-traits-tooltiptext"><span class="notable">Notable traits for Vec'
        "</span>impl Write for Vec</span></span></span></h4></section>"
        "<p>Constructs a new, empty vector.</p></main></body></html>"
    )
    doc = parse_html(html, "struct.Vec.html")
    assert [h.title for h in doc.headings] == [
        "Struct std::vec::Vec",
        "pub const fn new() -> Vec<T>",
    ]
    assert ("API", "new") in [(e.entity_type, e.name) for e in doc.entities]
    assert "Notable traits" not in doc.text


def test_sphinxs_general_index_is_a_directory() -> None:
    """alembic's `genindex.html`: each letter a `table.indextable` of lists, one per
    column, each too short to be a directory alone; a term of several places a label
    over its own links. "how do I rename a column" ranked the letter V 2nd."""
    entries = "".join(
        f'<li><a href="ops.html#alembic.operations.Operations.op{i}">op{i}() '
        f"(alembic.operations.Operations method)</a></li>"
        for i in range(14)
    )
    label = (
        '<li>alembic.command<ul><li><a href="api/commands.html#module-alembic.command">'
        "module</a></li></ul></li>"
    )
    columns = f"<td><ul>{entries}</ul></td><td><ul>{label}{entries.replace('op', 'run')}</ul></td>"
    small = (
        '<td><ul><li><a href="ops.html#unique">unique (create_index parameter)</a></li></ul></td>'
    )
    html = (
        f'<html><body><h1>Index</h1><h2 id="A">A</h2><table class="indextable genindextable">'
        f'<tr>{columns}</tr></table><h2 id="U">U</h2><table class="indextable genindextable">'
        f"<tr>{small}</tr></table></body></html>"
    )
    doc = parse_html(html, "genindex.html")
    lines = doc.text.splitlines()
    assert (
        "op3() (alembic.operations.Operations method) → ops.html#alembic.operations.Operations.op3"
        in lines
    )
    assert "module → api/commands.html#module-alembic.command" in lines
    assert "unique (create_index parameter) → ops.html#unique" in lines  # a letter of one
    # any other table is rendered as one
    plain = parse_html(html.replace("indextable genindextable", "docutils"), "page.html")
    assert "→" not in plain.text


def test_a_button_a_script_drives_is_chrome() -> None:
    """SQLite's syntax diagrams each have a `<button onclick=…>hide</button>` beside them:
    every statement's page opened with "attach-stmt: hide", "expr: show". A button with
    no handler keeps its label (Sphinx-tabs' "Python")."""
    page = (
        "<html><body><h1>Overview</h1><p><b><a href='syntax/attach-stmt.html'>attach-stmt:"
        "</a></b>\n<button id='x1' onclick='hideorshow(\"x1\",\"x2\")'>hide</button></p>"
        "<p>The ATTACH DATABASE statement adds a database file.</p>"
        "<div><button class='sphinx-tabs-tab' role='tab'>Python</button></div>"
        "</body></html>"
    )
    doc = parse_html(page, "lang_attach.html")
    assert doc.text == (
        "Overview\n\nattach-stmt:\n\nThe ATTACH DATABASE statement adds a database file.\n\n"
        "Python\n"
    )
