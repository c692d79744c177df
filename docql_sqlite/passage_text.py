"""What is not a search passage: text made only of links, anchors, badges and comments,
or of no words at all.

Node's API pages end with a block of Markdown link reference definitions (24 to 200
lines of `` [`fs.watch()`]: #fswatchfilename-options-listener ``): every API name of the
page in one chunk, which ranked #2 for `fs.watch caveats` and filled an agent's context
pack with 1–2k characters of URLs (issue 19). Such a chunk stays in the document (`get`
and DocQL show the whole text; chunks still tile the body, docql-spec §1.3), but search
does not return it. Markdown chunking cuts a definition block into chunks of its own
(`ingest/chunk.py`), so the text before it stays a passage.

Link-only: once reference definitions, HTML anchors (`<a id="x"></a>`), comments,
images and badges (`![ci](…)`, `[![ci](…)](…)`) and links with their text (`[API](api.md)`,
`[foo][]`) are taken out, no letter or digit is left. A heading, a sentence or a
list item with words of its own keeps the chunk a passage. Nor is a chunk without a
letter or digit a passage (407 blank chunks of the Markdown mix, between Docker's front
matter and its first heading).

A chunk of HTML comments alone (Docker's 435 `<!-- This file is maintained within the
moby/moby GitHub repository … -->`) stays a passage for word search — a phrase that is
only in a comment still finds it — but has nothing to embed (`nothing_to_embed`): the
embedders' text, comments taken out, is empty, and every such chunk had one vector.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# A Markdown link reference definition line: `[label]: destination "title"` (CommonMark:
# up to three spaces of indent).
LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*\S")
_REMOVED = re.compile(
    r"^ {0,3}\[[^\]\n]+\]:.*$"  # reference definitions
    r"|<!--.*?-->"  # comments
    r"|<a\s[^>]*>\s*</a>"  # anchors
    r"|<img\s[^>]*>"
    r"|!?\[(?:[^\[\]]|\[[^\]]*\])*\]\([^)]*\)"  # links and images, badges inside links
    r"|!?\[[^\]\n]*\]\[[^\]\n]*\]"  # [text][ref], [text][]
    r"|^\s*\[[^\]\n]*\]\s*$",  # a lone [ref] line
    re.MULTILINE | re.DOTALL,
)
_WORD = re.compile(r"[^\W_]")
_MARKERS = ("](", "]:", "<a ", "<a\n", "<img", "][")
# Every construct `_REMOVED` takes out begins with one of these, after whitespace at most.
_OPENERS = re.compile(r"[\[<!]")


# A line of an index or a table of contents: an entry, a dot leader, page numbers
# ("evaluation, lazy . . . . . . 2, 38, 39", "1 Introduction ........ 1").
_LEADER_LINE = re.compile(r"(?:\.\s?){4,}\s*(?:[0-9ivxlc]+[,–-]?\s*)+$", re.IGNORECASE)
LEADER_SHARE = 0.5  # of a chunk's non-blank lines
MIN_LEADER_LINES = 3
# A row of a Texinfo HTML index (`<table class="index-cp">`), as the page is rendered:
# " | evaluation, lazy: |  | Arguments" — the entry, an empty cell, the section it points to.
_INDEX_ROW = re.compile(r"^[ |]*[^|\n]{1,120}:[ \t]*\|[ \t]*\|[ \t]*[^|\n]{1,160}$")


# An Info menu line (`ingest/info.py`): `* Menu:`, a node's entry (`* Invoking sed::
# Invocation`), an index entry (`* -i: Command-Line Options. (line 28)`); coreutils'
# and grep's Index nodes came up for "find files modified in the last day", "grep -o".
# (A bullet "* Note: be careful." is none, nor one naming C++'s `v8::Isolate`: an entry
# names a node with `::` and a space, an index entry its line.)
_INFO_MENU = re.compile(
    r"\* (?:Menu:|[^:\n]+::(?:\s|$)|[^:\n]+: [^\n]*?\.\s+\(line +\d+\)"
    r"|[^:\n]+: \([^)\s]+\)(?:\S[^\n]*?)?\.)"  # a `dir` entry: `* sed: (sed).  Stream EDitor.`
)


# An index entry too long for one line goes on with its `(line N)` on the next, and a
# menu entry's description may wrap: coreutils' index chunk of `--human-readable <1>:
# What information is listed.` / `(line 118)` lines came 2nd for "what is the nproc
# command". Read only in a chunk whose first lines are a menu's (`_info_menu_line`).
_INFO_MENU_PART = re.compile(r"\* [^:\n]+: +\S[^\n]*\.$|\s+\(line +\d+\)$")


def _info_menu_line(line: str) -> bool:
    """Whether `line` is an Info menu's or index's entry, or a wrapped one's part."""
    return _INFO_MENU.match(line) is not None or _INFO_MENU_PART.match(line) is not None


def _info_menu_marks(head: str) -> bool:
    """Whether `head` has what every Info menu line has (`::`, an index's `(line`, a
    `dir` entry's `: (file)`, the `* Menu:` line): a bullet list without them is never
    read line by line."""
    return "* " in head and ("::" in head or "(line" in head or ": (" in head or "* Menu:" in head)


# A line that is a file's path alone (`tests/test_basic.py`, `README.rst`): a manifest
# (setuptools' `SOURCES.txt`, `MANIFEST`, a list of files) points to files, answers
# nothing itself: click's `SOURCES.txt` came first for "how do I test a command", all
# its `tests/test_command*.py` lines holding both words.
# A file name alone needs a common extension: `user.email` (git-config's keys, one a
# line) and `io.Closer` (a Go interface's embedded ones) are no files.
_PATH_LINE = re.compile(
    r"^[ \t]*(?:[\w.@+-]+(?:/[\w.@+-]+)+/?|[\w@+-]+\.(?:rst|txt|md|py|pyi|cfg|toml|in|ini"
    r"|json|ya?ml|js|ts|go|rs|c|h|cc|cpp|hpp|java|rb|sh|html|css|lock|typed))[ \t]*$"
)


# A page link as a cross-reference lists it: `compile.html#enable_json1`,
# `c3ref/blob_close.html` (a comma or semicolon after it); after an arrow, an anchor of
# the page itself too (`#summary`: HTML directories, `ingest/html.py`).
_PAGE_LINK = re.compile(r"[\w.-]+(?:/[\w.-]+)*\.html?(?:#[\w.:-]*)?[,;]?")
_ANCHOR = re.compile(r"#[\w][\w.:/-]*[,;]?")
ARROW = "→"
LINK_LINE_WORDS = 8  # other words a cross-reference line may hold besides its links


def _link_line(line: str) -> bool:
    """Whether `line` is a cross-reference: an entry, an arrow and the pages it points to
    (`-DSQLITE_CDECL → compile.html#cdecl`, as `ingest/html.py` renders a directory's
    links and SQLite's cross-reference pages are written), or page links and at most
    LINK_LINE_WORDS other words (`-DSQLITE_OMIT_JSON - changes.html#version_3_38_0`)."""
    words = line.split()
    if ARROW in words:
        after = words[words.index(ARROW) + 1 :]
        if after and all(_PAGE_LINK.fullmatch(w) or _ANCHOR.fullmatch(w) for w in after):
            return True
        # an index entry's several pages: "TLS, Secure TCP/IP Connections with SSL →
        # ssl-tcp.html, SSL Support → libpq-ssl.html"
        targets = [words[i + 1].rstrip(",") for i, w in enumerate(words[:-1]) if w == ARROW]
        if words[-1] in targets and all(_PAGE_LINK.fullmatch(t) for t in targets):
            return True
    links = sum(1 for word in words if _PAGE_LINK.fullmatch(word))
    return links > 0 and len(words) - links <= LINK_LINE_WORDS


# A Markdown list item that opens with a link to another document of the site, then
# (maybe) says what it holds: `+ [Lifecycle](./Lifecycle.md): Explains the Fastify request
# lifecycle …`, `- [Hooks](hooks.md) - the hook API`. A relative link (no scheme, not an
# anchor of the page itself) to a page: a directory of the docs points to its pages.
_DIRECTORY_ITEM = re.compile(
    r"^[ \t]*(?:[-+*]|\d{1,3}[.)])[ \t]+\[[^\]\n]+\]\((?![a-z][a-z0-9+.-]*:|#)[^)\s]+\)",
    re.MULTILINE,
)
# (nested items too: a link's sub-items that say things of their own make it no directory)
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-+*]|\d{1,3}[.)])[ \t]")
MIN_DIRECTORY_ITEMS = 3
DIRECTORY_SHARE = 0.8  # of a directory's list items open with a link to a page
# ... and its items are this share of the chunk's non-blank lines: Rust by Example's
# `index.md` opens with two paragraphs on what the book is (9 lines) before 13 of its
# chapters, and is the passage that says so.
DIRECTORY_LINES_SHARE = 0.75


def _directory(content: str) -> bool:
    """Whether `content` is a directory of the docs: at least MIN_DIRECTORY_ITEMS list
    items opening with a link to another document (`_DIRECTORY_ITEM`), DIRECTORY_SHARE of
    its items at least, and DIRECTORY_LINES_SHARE of its non-blank lines those items and
    their continuations (a heading, an anchor and a sentence before the list may be
    there). Fastify's `Index.md` ("+
    [Lifecycle](./Lifecycle.md): Explains the Fastify request lifecycle and illustrates
    where [Hooks](./Hooks.md) are available") ranked 2nd and 3rd for "where is the request
    lifecycle explained", above the page it describes; a link alone was no passage
    already (`no_passage`), a link with its description was one."""
    items = linked = pointed = lines = 0
    in_item = False
    for line in content.splitlines():
        if not line.strip():
            continue
        lines += 1
        if _LIST_ITEM.match(line):
            items += 1
            in_item = _DIRECTORY_ITEM.match(line) is not None
            linked += in_item
            pointed += in_item
        elif in_item and line[:1] in " \t":
            pointed += 1  # the item's description, continued
        else:
            in_item = False
    return (
        linked >= MIN_DIRECTORY_ITEMS
        and linked >= DIRECTORY_SHARE * items
        and pointed >= DIRECTORY_LINES_SHARE * lines
    )


def pointer_page(content: str) -> bool:
    """Whether `content` is a page of an index or a table of contents: at least
    MIN_LEADER_LINES lines, and more than LEADER_SHARE of its non-blank ones, end in a
    dot leader and page numbers, or are rows of a Texinfo HTML index (`_INDEX_ROW`) or
    lines of an Info menu (`_INFO_MENU`), or
    files' paths (`_PATH_LINE`, a manifest), or cross-references to HTML pages
    (`_link_line`). It points to the pages that answer, and answers nothing itself:
    R-lang.pdf's "Concept Index" page ranked first for "what is lazy evaluation"
    ("evaluation, lazy . . . 2, 38, 39"), above page 38, and R-lang.html's for "lazy
    evaluation of function arguments promise" above "2.1.8 Promise objects"; SQLite's
    `doc_keyword_crossref.html` third for "how do I enable WAL mode" (its lines
    `-DSQLITE_DEFAULT_WAL_SYNCHRONOUS - compile.html#default_wal_synchronous`)."""
    pointer: Callable[[str], object]  # whether a line is one of the page's pointers
    if ". . . ." in content or "...." in content:
        pointer = _LEADER_LINE.search
    elif ": |" in content:
        pointer = _INDEX_ROW.search
    elif _info_menu_marks(content[:400]) and any(
        _INFO_MENU.match(line) for line in content.split("\n", 3)[:3]
    ):
        pointer = _info_menu_line  # an Info node's menu, an Info index (or a piece of one)
    elif (".htm" in content or ARROW in content) and any(
        _link_line(line) for line in content.split("\n", 3)[:3]
    ):
        pointer = _link_line  # (one of its first lines, as for paths below)
    elif any(
        # (a line with a space inside is no path: most prose fails this `in`, not the regex)
        " " not in line.strip() and _PATH_LINE.match(line)
        for line in content[:600].split("\n", 3)[:3]
    ):
        pointer = _PATH_LINE.search  # (one of its first lines: after a title and a blank line)
    elif "](" in content and _DIRECTORY_ITEM.search(content, 0, 4000) is not None:
        return _directory(content)
    else:
        return False
    lines = [line for line in content.splitlines() if line.strip()]
    pointers = sum(1 for line in lines if pointer(line))
    if pointer is _link_line and pointers == len(lines) and ARROW in content:
        # a directory's last lines, cut off by a chunk's size (PostgreSQL's back-of-book
        # index: "with libpq, Parameter Key Words → libpq-connect.html#…" and one more
        # line before the next letter ranked first for "how do I connect with libpq")
        return True
    return pointers >= MIN_LEADER_LINES and pointers > LEADER_SHARE * len(lines)


# A chunk this long without a line break is a line of data, not of prose: minified code
# (`jquery.min.js`), a generated search index (Sphinx's `searchindex.js`: 3.6 MB on one
# line, 222 chunks of 16 KB), tables of character ranges (`xregexp.js`), an HTML index
# page whose table cells hold whole lists (Sphinx's `genindex-all.html`). Holding nearly
# every word, its pieces matched every query: `searchindex.js` ranked 2nd for "what new
# features in python 3.11 for error messages" on Python's HTML docs. An HTML paragraph is
# one line too, but prose paragraphs stay far below this (3,000 characters at most in the
# judged sets' and Python's, SQLite's and PostgreSQL's HTML docs). Below the shortest
# piece `ingest/chunk.split_long_line` cuts a line over 16 KB into (7,168 characters).
LONG_LINE_CHARS = 7_000


def long_line(content: str) -> bool:
    """Whether `content` is one line, or a piece of one, of at least LONG_LINE_CHARS
    characters."""
    if len(content) < LONG_LINE_CHARS:
        return False
    newline = content.find("\n")
    return newline < 0 or newline == len(content) - 1


def no_passage(content: str) -> bool:
    """Whether `content` is no search passage: no letter or digit at all (a blank chunk,
    punctuation alone), made only of links, anchors, badges and link definitions (none
    left once those, and comments, are taken out), or a page of an index or a table of
    contents, or a list of files (`pointer_page`), or a line of data (`long_line`)."""
    first = _WORD.search(content)
    if first is None:
        return True
    if pointer_page(content) or long_line(content):
        return True
    # The common case, without a regex: every marker holds "]" or "<" (two scans of the
    # text where prose has neither, rather than six).
    if ("]" not in content and "<" not in content) or not any(m in content for m in _MARKERS):
        return False
    # A letter or digit before the first `[`, `<` or `!` is inside no removed construct,
    # so it is left: a passage, known without rewriting the text (a prose chunk with a
    # link; a smart search asks ~150 times, ~2 ms on the 10 MB mix).
    if _OPENERS.search(content, 0, first.start()) is None:
        return False
    return _WORD.search(_REMOVED.sub(" ", content)) is None


def nothing_to_embed(content: str) -> bool:
    """Whether `content` has no words to embed: no search passage, or HTML comments alone
    (with blank lines, links or anchors around them)."""
    if no_passage(content):
        return True
    return "<!--" in content and _WORD.search(_REMOVED.sub(" ", content)) is None


# Lines of C's preprocessor and of Rust's attributes open with `#` and are code.
_HASH_CODE = (
    "#[",
    "#![",
    "#include",
    "#define",
    "#undef",
    "#if",
    "#elif",
    "#else",
    "#endif",
    "#pragma",
    "#error",
    "#import",
)
# A passage of code is its documentation when this share of its non-blank lines are
# comments or a docstring, and at least MIN_DOCUMENTATION_LINES of them: a method with a
# two-line docstring is code (Django's `get_search_fields`, four of its six lines a
# docstring's, came before the docs' page for "where is search explained").
DOCUMENTATION_SHARE = 0.6
MIN_DOCUMENTATION_LINES = 8


def documentation(content: str) -> bool:
    """Whether `content`, a passage of code, is mostly documentation: DOCUMENTATION_SHARE
    of its non-blank lines, and MIN_DOCUMENTATION_LINES at least, comments (`//`, `///`,
    `//!`, `#`, `--`, `;;`, block comments, Perl's POD, Ruby's `=begin`) or a
    docstring's. A Rust crate's guide is its doc comments: tokio's `task/mod.rs` opens
    with 55 lines of `//!` on spawning tasks, the answer to "how do I spawn a task",
    which a question asking for prose counted as code (`fusion.CODE_SHARE`), below the
    changelog and the README."""
    comments = lines = 0
    closing = ""  # the end of an open block comment or docstring
    for line in content.splitlines():
        text = line.strip()
        if not text:
            continue
        lines += 1
        if closing:
            comments += 1
            if closing in text:
                closing = ""
        elif text.startswith(("//", "--", ";;")) or (
            text.startswith("#") and not text.startswith(_HASH_CODE)
        ):
            comments += 1
        elif text.startswith("/*"):
            comments += 1
            closing = "" if "*/" in text[2:] else "*/"
        elif text[:1] == "=" and text[1:2].isalpha():
            # Perl's POD (a module's manual, `=head2 find` … `=cut`) or Ruby's `=begin`
            # block comment (… `=end`)
            comments += 1
            closing = "=end" if text.startswith("=begin") else "=cut"
        elif text.lstrip("rbuRBU").startswith(('"""', "'''")):
            quote = text.lstrip("rbuRBU")[:3]
            comments += 1
            closing = "" if text.count(quote) > 1 else quote
    return comments >= max(MIN_DOCUMENTATION_LINES, DOCUMENTATION_SHARE * lines)
