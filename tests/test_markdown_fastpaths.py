"""The Markdown parser's CPU shortcuts give what the slow paths give (issue 24).

- `plain_inline` skips the inline parser when code spans, plain inline links, empty
  anchors, underscores inside words and brackets that open no link are the only syntax: oracle,
  markdown-it-py's inline parser, on Node-style API headings, Docker-style table cells
  and on generated text;
- front matter goes through libyaml when present: oracle, PyYAML's pure-Python
  `safe_load` (values, and the warnings of invalid or deeply nested YAML);
- inline code spans keep their line numbers, counted per span rather than from the
  paragraph's start each time; only spans that can be an API (a `(` or a `/`) are
  handed to `extract_entities`.
"""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from docql_sqlite.ingest import markdown


def _reference_inline(raw: str) -> str:
    tokens = markdown._inline_parser().parseInline(raw)
    parts: list[str] = []
    for child in tokens[0].children or []:
        if child.type in ("text", "code_inline", "image"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


@pytest.mark.parametrize(
    "raw",
    [
        "`fs.readFile(path[, options], callback)`",
        "`tls.connect(port[, host][, options][, callback])`",
        "`ERR_INSPECTOR_NOT_WORKER`",
        "DEP0103: `process.binding('util').is[...]` typechecks",
        "Memory soft limit (format: `<number>[<unit>]`). Unit is `b` or `k`.",
        "`a<b` x `c>d`",
        "`a` <b> `c`",  # an HTML tag outside the spans: the parser decides
        "x `*a*` y",
        "*a* `b`",
        "`a`_b_",
        "a&amp;`b`",
        "`&amp;`",
        "` a `",
        "`  `",
        "`[`x`]`",
        "`![img](x)`",
        "[link](x.md) `code`",
        "SYS_ADMIN",
        "SYS_ADMIN `x` a__b",
        "_a_ SYS_ADMIN",  # emphasis: the parser decides
        "a_ b",
        "[docker ps](ps.md)",
        "See [the guide](https://docs.docker.com/a_b/#x) and `run()`",
        "[a](javascript:alert(1))",
        "[a](JavaScript:x)",  # not a link: markdown-it's validateLink
        "[a](data:image/png;base64,x)",
        "[ spaced ](x.md)",
        "[a](b)(c)",
        "![img](x.png)",
        "[a](<b>)",
        "[a](b 'title')",
        "[REPL][]",
        "`[a](b)` [c](d)",
        # brackets without a `](`: text, as no reference is defined in a fragment
        "[Subtraction][arith], [Negation]",
        "[`dns.resolve4()`][]",
        "[a]`(b)`",
        "[`a](b)`",
        "[[a](b)]",
        "[^1] a note",
        "x [a] (b)",
        "[a]: b",
        "[a](b)](c)",
        # an empty anchor shows no text (Docker's command tables)
        '<a name="attach"></a> Attach to STDIN/STDOUT/STDERR (-a, --attach)',
        '<a id="x"></a>_a_',
        '<a name="x">text</a>',
        '<a name="a b"></a> c',
        '`<a name="x"></a>` <a name="y"></a>',
    ],
)
def test_plain_inline_equals_the_inline_parser(raw: str) -> None:
    assert markdown.plain_inline(raw) == _reference_inline(raw)


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet="`ab .*_[]<>!&;()\\", max_size=24))
def test_plain_inline_equals_the_inline_parser_generated(raw: str) -> None:
    assert markdown.plain_inline(raw) == _reference_inline(raw)


_PIECES = ["[", "]", "(", ")", "a", "_", "b_c", "`x`", " ", "\t", ":", "/p", "x.md", "#a", "&"]
_PIECES += ["javascript:", "JavaScript:", "data:", "data:image/png", "http://x", "[a](b)", "é"]
_PIECES += ["][", "[]", "](", "^1", "`]`", "`(`", "[REPL][]"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=10).map("".join))
def test_plain_inline_links_and_underscores_equal_the_inline_parser(raw: str) -> None:
    """The fast path's inline links (`[ps](ps.md)`) and underscores inside words."""
    assert markdown.plain_inline(raw) == _reference_inline(raw)


_ANCHOR_PIECES = ['<a name="x"></a>', '<a id="a-b"></a>', '<a name=""></a>', "</a>", "<a "]
_ANCHOR_PIECES += [" ", "a", "_", "`x`", "[a](b)", "<", ">", '"', "x_", "&", "*", "["]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_ANCHOR_PIECES), max_size=10).map("".join))
def test_plain_inline_empty_anchors_equal_the_inline_parser(raw: str) -> None:
    """The fast path drops an empty `<a name="...">` anchor, as the parser's HTML tags."""
    assert markdown.plain_inline(raw) == _reference_inline(raw)


FRONT_MATTER = [
    "title: Docker run\ndescription: Run a command\nkeywords: docker, run, container\n",
    "title: 'quoted: colon'\nredirect_from:\n- /engine/a/\n- /engine/b/\n",
    "a: 1\nb: 2.5\nc: true\nd: null\ne: 2021-01-02\nf: [1, {g: h}]\n",
    "anchors: &x {a: 1}\nuse: *x\n",
    "title: 中文标题\n",
    "just a string\n",
    "- a list\n- at the top\n",
    "a: [1, 2\n",  # invalid: unclosed flow sequence
    "a: b: c\n",  # invalid: nested mapping on one line
    "\ta: 1\n",  # a tab where indentation is
    "a: '\x07'\n",  # a control character
    "[" * 300 + "]" * 300 + "\n",  # nested past the fast loader's bound
    "a:\n" + "".join(" " * (2 * i) + f"k{i}:\n" for i in range(1, 220)) + " " * 440 + "v\n",
]


@pytest.mark.parametrize("raw", FRONT_MATTER, ids=range(len(FRONT_MATTER)))
def test_front_matter_as_pure_python_yaml(raw: str) -> None:
    warnings: list[str] = []
    data = markdown._load_front_matter(raw, warnings)
    expected_warnings: list[str] = []
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        expected_warnings.append(f"front matter is not valid YAML{where}; kept as text only")
        value = None
    except RecursionError:
        expected_warnings.append(
            "front matter is nested too deep to read as YAML; kept as text only"
        )
        value = None
    if value is not None and not isinstance(value, dict):
        expected_warnings.append("front matter is not a YAML mapping; ignored")
        value = None
    assert (data, warnings) == (value, expected_warnings)


def test_inline_code_spans_keep_their_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        "# T\n\n"
        "first `fs.one()` line\n"
        "second line\n"
        "third `two()` and `three()`\n"
        "a span `broken\nacross` lines, then `four()`\n"
    )
    from docql_sqlite.ingest import entities

    seen: list[list[tuple[int, str]]] = []
    real = entities.extract_entities

    def recording(document, spans=None):  # type: ignore[no-untyped-def]
        seen.append(list(spans or []))
        return real(document, spans)

    monkeypatch.setattr(entities, "extract_entities", recording)
    doc = markdown.parse_markdown(text, "x.md")
    spans = markdown._CODE_SPAN.finditer(text)
    expected = [
        (text.count("\n", 0, m.start()) + 1, m.group(2).strip())
        for m in spans
        if "(" in m.group(2) or "/" in m.group(2)  # the only spans that can be APIs
    ]
    assert seen == [expected]
    assert [line for line, _ in expected] == [3, 5, 5, 7]
    assert sorted((e.line, e.name) for e in doc.entities) == [
        (3, "fs.one"),
        (5, "three"),
        (5, "two"),
        (7, "four"),
    ]


def test_api_headings_skip_the_inline_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shortcut is taken for Node's API headings (a fifth of its inline fragments)."""

    def no_parser() -> None:
        raise AssertionError("the inline parser ran")

    monkeypatch.setattr(markdown, "_inline_parser", no_parser)
    assert markdown.plain_inline("`fs.mkdir(path[, options], callback)`") == (
        "fs.mkdir(path[, options], callback)"
    )
    assert markdown.plain_inline("`ERR_DIR_CLOSED`") == "ERR_DIR_CLOSED"


def test_table_links_and_words_with_underscores_skip_the_inline_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Docker's command tables (`[docker ps](ps.md)`) and names such as `SYS_ADMIN`: a
    third of the mix's fragments that reached the parser."""

    def no_parser() -> None:
        raise AssertionError("the inline parser ran")

    monkeypatch.setattr(markdown, "_inline_parser", no_parser)
    assert markdown.plain_inline("[docker ps](ps.md)") == "docker ps"
    assert markdown.plain_inline("SYS_ADMIN") == "SYS_ADMIN"
    assert markdown.plain_inline("See [run](run.md#x_y), `a_b()` and SYS_ADMIN") == (
        "See run, a_b() and SYS_ADMIN"
    )


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML built without libyaml")
def test_front_matter_skips_the_pure_python_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow(raw: str) -> None:
        raise AssertionError("the pure-Python loader ran")

    monkeypatch.setattr(yaml, "safe_load", slow)
    doc = markdown.parse_markdown("---\ntitle: Run\nkeywords: a, b\n---\n# X\n", "x.md")
    assert doc.frontmatter == {"title": "Run", "keywords": "a, b"} and doc.title == "Run"


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet="ab\n€", max_size=60),
    st.lists(st.tuples(st.integers(0, 200), st.integers(0, 200)), max_size=12),
    st.booleans(),
)
def test_byte_offsets_to_lines(text: str, spans: list[tuple[int, int]], in_order: bool) -> None:
    """`markdown_blocks._Lines` counts newlines forward; an offset out of order (never
    produced by a pre-order walk) still gets its line by bisection."""
    from docql_sqlite.ingest.markdown_blocks import _Lines

    data = text.encode()
    spans = [(min(a, len(data)), min(max(a, b), len(data))) for a, b in spans]
    if in_order:
        spans.sort()
    lines = _Lines(data)
    for start, stop in spans:
        last = max(start, stop - 1)
        expected = (data.count(b"\n", 0, start) + 1, data.count(b"\n", 0, last) + 1)
        assert lines.span(start, stop) == expected


def _rendered_titles(text: str) -> list[str]:
    """Every heading's visible text as markdown-it-py shows it, the whole document parsed
    (its link reference definitions known)."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark", {"html": True}).parse(text)
    titles = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            children = tokens[i + 1].children or []
            titles.append(
                "".join(
                    c.content if c.type in ("text", "code_inline", "image") else " "
                    for c in children
                    if c.type in ("text", "code_inline", "image", "softbreak", "hardbreak")
                ).strip()
            )
    return titles


@pytest.mark.parametrize(
    "text",
    [
        # Fastify's TypeScript.md: reference links in titles, defined at the page's end
        "##### fastify.FastifyRegister(plugin: [FastifyPlugin][FastifyPlugin], opts: "
        "[FastifyRegisterOptions][FastifyRegisterOptions])\n\nText.\n\n"
        "[FastifyPlugin]:\n  #fastifyplugin\n[FastifyRegisterOptions]: #options\n",
        # collapsed and shortcut references, a label in other case and blanks, one undefined
        "# Use [the API][] and [Guide] and [x][Other  LABEL] and [y][nope]\n\n"
        "[the api]: api.md\n[guide]: guide.md 'The guide'\n[other label]: <o.md>\n",
        # code spans with brackets beside a reference; an escaped bracket
        "## `fs.read(fd[, options])` and [Buffer][]\n\n## \\[not a link\\] [Buffer]\n\n"
        "[Buffer]: buffer.md\n",
        # no definitions: brackets are text
        "# [a][b] and [c]\n\nText.\n",
    ],
)
def test_titles_show_reference_links_as_a_renderer_does(text: str) -> None:
    doc = markdown.parse_markdown(text, "t.md")
    assert [h.title for h in doc.headings] == _rendered_titles(text)
