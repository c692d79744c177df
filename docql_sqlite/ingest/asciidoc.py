"""AsciiDoc → `Document`: sections, listings, tables and definition lists, by lines.

This module owns reading AsciiDoc (`.adoc`, `.asciidoc`, and the `.txt` files that
`looks_like_asciidoc`: git's manual is 292 of them) as Asciidoctor reads its structure,
without rendering it. `Document.text` is the source itself, so every line number is a
line of the file, and nothing is included from elsewhere (`include::` stays a line of
text: an index reads only the files it is given).

- **Sections**: one-line titles (`= Document`, `== Section` … six levels) and the older
  two-line ones (a title underlined by `=`, `-`, `~`, `^` or `+` of its length ± 1, as
  git's pages write them), each with the id a browser's link to it uses: `[[id]]` or
  `[#id]` on the line above, else Asciidoctor's own (`_section_title`, `_2` for the
  second of a name). A title inside a delimited block is no section.
- **Blocks**: listings (`----`, a Markdown fence) and literals (`....`) are code blocks,
  in the language of their `[source,lang]` line; comments (`////`) and passthroughs
  (`++++`) hold no structure; example, sidebar, quote and open blocks (`====`, `****`,
  `____`, `--`) hold sections of none but blocks of every kind.
- **Tables** (`|===`): cells by `|`, the first row a header when a blank line follows it
  or the block says `%header` / `options="header"`; a cell's spans and styles (`2+|`,
  `a|`) are no text of it.
- **Definition lists** (`term:: definition`, `term;;`): `Term` entities.
- **The header**: `= Title` is the document's title and `:name: value` lines under it
  its front matter (`$.frontmatter`).
"""

from __future__ import annotations

import re

from docql_sqlite.ingest.entities import (
    extract_entities,
    merge_entities,
    option_term,
    term_entity,
)
from docql_sqlite.ingest.read import parse_decoded, plain_lines, repeated_character
from docql_sqlite.model import CodeBlock, Document, Heading, Source, Table, split_lines

# (`#` as Markdown writes them: Asciidoctor reads those too, git's commit-graph notes)
# (The title up to its last non-blank, greedy, and the closing marks taken off after:
# `.*?` before `[ \t]*$` tried the rest of the line at each character, quadratic on a
# line of 200,000 blanks.)
_ONE_LINE_TITLE = re.compile(r"(?P<marks>={1,6}|#{1,6})[ \t]+(?P<title>\S(?:.*[^ \t])?)[ \t]*$")
# Attribute references Asciidoctor replaces by characters, in titles ("{caret}").
_CHARACTER_REFERENCES = {
    "{caret}": "^",
    "{tilde}": "~",
    "{plus}": "+",
    "{vbar}": "|",
    "{amp}": "&",
    "{lt}": "<",
    "{gt}": ">",
    "{startsb}": "[",
    "{endsb}": "]",
    "{backslash}": "\\",
    "{two-colons}": "::",
    "{nbsp}": " ",
    "{sp}": " ",
    "{empty}": "",
}
_CHARACTER_REFERENCE = re.compile("|".join(re.escape(k) for k in _CHARACTER_REFERENCES))
# A link in a title shows its text: `https://x[git-mentoring@googlegroups.com]`.
_LINK_MACRO = re.compile(
    r"(?:link:|mailto:|(?:https?|ftp|irc)://)(?P<target>[^\s\[]*)\[(?P<text>[^\]]*)\]"
)
# Underline characters of two-line titles, by level (Asciidoctor's legacy syntax).
_UNDERLINE_LEVEL = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}
# Delimited blocks: the line that opens one closes it, exactly.
_VERBATIM_DELIMITER = re.compile(r"(?:-{4,}|\.{4,}|\+{4,}|/{4,}|```[\w+#.-]*)[ \t]*$")
_COMPOUND_DELIMITER = re.compile(r"(?:={4,}|\*{4,}|_{4,}|--)[ \t]*$")
_TABLE_DELIMITER = re.compile(r"[|!]={3,}[ \t]*$")
# (searched for: started only where a run of blanks starts, not inside one, which made a
# title with 200,000 blanks quadratic)
_INLINE_ANCHOR = re.compile(r"(?<![ \t])[ \t]*\[\[(?P<id>[\w:.-]+)(?:,[^\]]*)?\]\][ \t]*$")
_ANCHOR_LINE = re.compile(r"\[\[(?P<id>[\w:.-]+)(?:,[^\]]*)?\]\][ \t]*$")
_ATTRIBUTE_LIST = re.compile(r"\[(?P<body>[^\[\]]*)\][ \t]*$")
# (a value up to its last non-blank, greedy: `.*?` before `[ \t]*$` is quadratic on blanks)
_ATTRIBUTE_ENTRY = re.compile(
    r":(?P<name>!?[\w][\w-]*!?):(?:[ \t]+(?P<value>(?:.*[^ \t])?))?[ \t]*$"
)
_BLOCK_TITLE = re.compile(r"\.[^.\s]")
_DEFINITION = re.compile(r"(?P<term>\S.*?)(?P<marker>:{2,4}|;;)(?:[ \t]+(?P<text>\S.*))?$")
# A cell's spec before its `|`: a span (`2+`, `.3+`, `2.2+`), a repeat (`3*`), an
# alignment (`<`, `^`, `>`, `.^`) and a style letter (`a`, `e`, `h`, `l`, `m`, `s`, `v`).
_CELL_SPEC = re.compile(r"(?:^|[ \t])(?:\d*(?:\.\d+)?[+*])?(?:[<^>])?(?:\.[<^>])?[aehlmsdv]?$")
# Asciidoctor's ids are made from the title as converted: `--` became an em dash and
# `<`, `>` entities, which the id drops ("Internals -- sparse checkout" →
# `_internalssparse_checkout`, "push-cert=<nonce>" → `_push_certnonce`).
_ID_DASHES = re.compile(r"(?<=\w)--(?=\w)| -- ")
_ID_DROP = re.compile(r"[^\w \-.]")
_ID_SEPARATORS = re.compile(r"[ .\-]+")
# `.txt` files that are AsciiDoc: a title, then a mark only AsciiDoc writes.
_SNIFF_CHARS = 100_000
_ASCIIDOC_MARKS = re.compile(
    r"^(?:\[(?:verse|source|listing|literal|quote|NOTE|TIP|IMPORTANT|WARNING|CAUTION|"
    r"horizontal|cols=|options=|%|\[)[^\n]*\]"
    r"|(?:include|ifdef|ifndef|endif|image)::[^\n\[]*\[[^\n]*\]"
    r"|\S[^\n]*?(?<!:):{2,3}(?:[ \t][^\n]*)?"
    r"|\|===)[ \t]*$"
    r"|\b(?:link|xref|image|footnote|kbd|mailto|linkgit):[^\s\[\]]*\[[^\]\n]*\]",
    re.M,
)
# A file included into others (git's `diff-options.txt`) has no title: its directives
# (`ifdef::git-log[]`) and definition items (`--patch::`) tell it.
_DIRECTIVE_LINE = re.compile(r"^(?:include|ifdef|ifndef|endif)::[^\n\[]*\[[^\n]*\][ \t]*$", re.M)
_TERM_LINE = re.compile(r"^\S[^\n]*?(?<!:):{2}[ \t]*$", re.M)


def parse(source: Source) -> Document:
    """The AsciiDoc parser (`formats.PARSERS`): decode, then `parse_asciidoc`."""
    return parse_decoded(source, parse_asciidoc)


def looks_like_asciidoc(text: str) -> bool:
    """True when plain text is AsciiDoc: its first line that is no comment is a title
    (`= Title`, or a line underlined with `=` of its length ± 1) and a line only
    AsciiDoc writes follows (`[verse]`, `[source,sh]`, `include::x[]`, `term::`,
    `|===`, `link:url[text]`): git's pages (`git-commit(1)` over a line of `=`, options
    as `--all::`); or, untitled, a directive and three definition items (an include)."""
    head = plain_lines(text[:_SNIFF_CHARS])
    lines = [line for line in head.split("\n", 40) if not line.startswith("//")]
    while lines and not lines[0].strip():
        lines.pop(0)
    if len(lines) < 3:
        return False
    if _DIRECTIVE_LINE.search(head) and len(_TERM_LINE.findall(head)) >= 3:
        return True
    if lines[0].startswith("= ") and _ONE_LINE_TITLE.match(lines[0]):
        return _ASCIIDOC_MARKS.search(head) is not None
    if not _underlined(lines[0], lines[1]):
        return False
    # a mark, or a second title underlined as the first (`Background` over `----`)
    if _ASCIIDOC_MARKS.search(head):
        return True
    all_lines = head.split("\n")
    return any(
        _underlined(above, below) and (not before.strip())
        for before, above, below in zip(all_lines[2:], all_lines[3:], all_lines[4:], strict=False)
    )


def _without_closing_marks(match: re.Match[str]) -> str:
    """A one-line title without the marks that may close it, after a blank (`== Title ==`:
    "Title"; `== a==` keeps them)."""
    title, marks = match["title"], match["marks"]
    if title.endswith(marks):
        head = title[: -len(marks)]
        if head and head != head.rstrip(" \t"):
            return head.rstrip(" \t")
    return title


def _underlined(title: str, underline: str) -> bool:
    """Whether `underline` makes `title` a two-line section title."""
    underline, title = underline.rstrip(), title.rstrip()
    return (
        repeated_character(underline, "=-~^+", 2) is not None
        and abs(len(underline) - len(title)) <= 1
        and len(title.strip()) >= 2
        and (title.lstrip()[:1].isalnum() or title.lstrip()[:1] in "'\"`*_(")
    )


def parse_asciidoc(text: str, path: str) -> Document:
    """Parse decoded AsciiDoc; never raises."""
    text = plain_lines(text)
    lines = split_lines(text)
    document = Document(format="asciidoc", text=text)
    _Reader(lines, document).read()
    if document.title is None:
        document.title = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or None
    document.entities = merge_entities(extract_entities(document), document.entities)
    return document


class _Reader:
    """One pass over the lines; `read` fills the document's structure."""

    def __init__(self, lines: list[str], document: Document) -> None:
        self.lines = lines
        self.doc = document
        self.ids: dict[str, int] = {}
        self.attributes = ""  # the last block attribute line's body (`source,python`)
        self.anchor: str | None = None  # the last `[[id]]` / `[#id]` above a block
        self.last_delimiters: dict[str, int] | None = None  # (`_closed`)

    def read(self) -> None:
        lines, n = self.lines, len(self.lines)
        open_blocks: list[str] = []  # the compound blocks we are inside, innermost last
        header = True  # the document header: its title and attribute entries
        i = 0
        while i < n:
            line = lines[i]
            stripped = line.rstrip()
            if not stripped:
                self.attributes, self.anchor = "", None
                header = header and not (self.doc.headings or self.doc.frontmatter)
                i += 1
                continue
            if stripped.startswith("//") and not stripped.startswith("////"):
                i += 1  # a line comment
                continue
            if open_blocks and stripped == open_blocks[-1]:
                open_blocks.pop()
                i += 1
                continue
            if _VERBATIM_DELIMITER.fullmatch(stripped):
                i = self._verbatim(i, stripped)
                continue
            if _TABLE_DELIMITER.fullmatch(stripped):
                i = self._table(i, stripped)
                continue
            if _COMPOUND_DELIMITER.fullmatch(stripped) and self._closed(i, stripped):
                # (a `--` with no line to close it is text: it would hide every
                # section after it)
                open_blocks.append(stripped)
                self.attributes, self.anchor = "", None
                i += 1
                continue
            if header and self.doc.headings and (entry := _ATTRIBUTE_ENTRY.match(stripped)):
                self.doc.frontmatter = self.doc.frontmatter or {}
                self.doc.frontmatter[entry["name"]] = entry["value"] or ""
                i += 1
                continue
            if anchor := _ANCHOR_LINE.match(stripped):
                self.anchor = anchor["id"]
                i += 1
                continue
            if attributes := _ATTRIBUTE_LIST.match(stripped):
                self._block_attributes(attributes["body"])
                i += 1
                continue
            if not open_blocks and (title := self._title(i)):
                level, text, used = title
                self._heading(level, text, i + 1)
                i += used
                continue
            if definition := _DEFINITION.match(stripped):
                i = self._definition(i, definition)
                continue
            if not _BLOCK_TITLE.match(stripped):  # `.Example` names the block below it
                self.attributes, self.anchor = "", None
            i += 1

    def _closed(self, i: int, delimiter: str) -> bool:
        """Whether a line after `i` closes the block `delimiter` opens."""
        if self.last_delimiters is None:  # each delimiter's last line, found once
            self.last_delimiters = {
                line.rstrip(): k
                for k, line in enumerate(self.lines)
                if line[:1] in "=*_-" and _COMPOUND_DELIMITER.fullmatch(line.rstrip())
            }
        return self.last_delimiters.get(delimiter, -1) > i

    def _block_attributes(self, body: str) -> None:
        """`[source,python]`, `[#id.role]`, `[[id]]`-less ids: kept for the next block."""
        self.attributes = body
        first = body.split(",", 1)[0].strip()
        if first.startswith("#"):
            self.anchor = re.split(r"[.%]", first[1:], maxsplit=1)[0] or self.anchor
        elif "#" in first and not first.startswith(("'", '"')):
            self.anchor = re.split(r"[.%]", first.partition("#")[2], maxsplit=1)[0] or None
        for part in body.split(","):
            key, _, value = part.partition("=")
            if key.strip() == "id" and value.strip():
                self.anchor = value.strip().strip("\"'")

    def _title(self, i: int) -> tuple[int, str, int] | None:
        """(level, title, lines used) of a section title at line `i`, or None."""
        line = self.lines[i]
        if line.startswith(("=", "#")):
            match = _ONE_LINE_TITLE.match(line)
            return (len(match["marks"]), _without_closing_marks(match), 1) if match else None
        if i + 1 >= len(self.lines):
            return None
        if _underlined(line, self.lines[i + 1]) and (i == 0 or self._starts_a_block(i - 1)):
            return _UNDERLINE_LEVEL[self.lines[i + 1][0]], line.strip(), 2
        return None

    def _starts_a_block(self, i: int) -> bool:
        """Whether a block may start after line `i`: it is blank, an anchor, an attribute
        list, a comment, a preprocessor directive (`ifndef::x[]`, gone before Asciidoctor
        reads blocks) or the underline of a section title (git-send-email's "EXAMPLES"
        over `--------` then "Use gmail as the SMTP server" over `~~~~`)."""
        above = self.lines[i].rstrip()
        return (
            not above
            or above.startswith("//")
            or bool(_ANCHOR_LINE.match(above) or _ATTRIBUTE_LIST.match(above))
            or bool(_DIRECTIVE_LINE.match(above))
            or (i >= 1 and _underlined(self.lines[i - 1], above))
        )

    def _heading(self, level: int, title: str, line: int) -> None:
        if inline := _INLINE_ANCHOR.search(title):
            # `== GitHub CI[[GHCI]]`: an anchor inside the title; the section keeps its id
            title = title[: inline.start()].rstrip()
        if "{" in title:
            title = _CHARACTER_REFERENCE.sub(lambda m: _CHARACTER_REFERENCES[m[0]], title)
        if "[" in title:
            title = _LINK_MACRO.sub(lambda m: m["text"] or m[0].partition("[")[0], title)
        anchor = self.anchor or _asciidoctor_id(title)
        if level > 1 or self.doc.headings:  # (the document's title has no id to take)
            seen = self.ids.get(anchor, 0) + 1
            self.ids[anchor] = seen
            if seen > 1 and not self.anchor:
                anchor = f"{anchor}_{seen}"
        self.doc.headings.append(Heading(level=level, title=title, line=line, anchor=anchor))
        if level == 1 and self.doc.title is None:
            self.doc.title = title
        self.attributes, self.anchor = "", None

    def _verbatim(self, i: int, delimiter: str) -> int:
        """A listing, literal, passthrough or comment block from line `i`: the line after
        its end. A listing or literal is a code block."""
        lines, n = self.lines, len(self.lines)
        closing = "```" if delimiter.startswith("```") else delimiter
        end = i + 1
        while end < n and lines[end].rstrip() != closing:
            end += 1
        if delimiter[0] in "-.`":
            fence = delimiter[3:].strip() if delimiter.startswith("```") else ""
            language = fence or self._source_language()
            code = "\n".join(lines[i + 1 : end])
            last = min(end, n - 1) + 1
            self.doc.codeblocks.append(CodeBlock(language or None, code, i + 1, last))
        self.attributes, self.anchor = "", None
        return end + 1

    def _source_language(self) -> str | None:
        """The language of `[source,python]` (or `[,python]`) above a listing."""
        parts = [p.strip() for p in self.attributes.split(",")]
        if len(parts) >= 2 and parts[0] in ("source", "") and "=" not in parts[1]:
            return parts[1] or None
        for part in parts[1:]:
            key, _, value = part.partition("=")
            if key.strip() == "language":
                return value.strip().strip("\"'") or None
        return None

    def _table(self, i: int, delimiter: str) -> int:
        """A `|===` table from line `i`: its cells as rows; the line after its end."""
        lines, n = self.lines, len(self.lines)
        separator = delimiter[0]
        end = i + 1
        while end < n and lines[end].rstrip() != delimiter:
            end += 1
        body = lines[i + 1 : end]
        columns = _columns(self.attributes)
        first = next((k for k, line in enumerate(body) if line.strip()), None)
        cells: list[str] = []
        header_cells = 0
        for k, line in enumerate(body):
            if not line.strip():
                continue
            found = _cells(line, separator)
            if found is None:  # a cell's text going on over lines
                if cells:
                    cells[-1] = f"{cells[-1]} {line.strip()}".strip()
                continue
            cells.extend(found)
            if k == first:
                columns = columns or len(found)
                implicit = k + 1 < len(body) and not body[k + 1].strip()
                if implicit or "header" in self.attributes:
                    header_cells = len(found)
        if columns and cells:
            headers = cells[:header_cells] if header_cells == columns else []
            rest = cells[len(headers) :]
            rows = [rest[r : r + columns] for r in range(0, len(rest), columns)]
            self.doc.tables.append(Table(headers, rows, i + 1, min(end, n - 1) + 1))
        self.attributes, self.anchor = "", None
        return end + 1

    def _definition(self, i: int, match: re.Match[str]) -> int:
        """A `term:: definition` item (the definition on its line or the lines under it):
        a `Term` entity; the line after the item's first paragraph."""
        lines, n = self.lines, len(self.lines)
        parts = [match["text"]] if match["text"] else []
        end = i + 1
        while end < n and lines[end].strip() and not _DEFINITION.match(lines[end].rstrip()):
            if lines[end].strip() == "+" or _delimiter(lines[end].rstrip()):
                break  # (a block's end is never text of the item: git-reset's `--`)
            parts.append(lines[end].strip())
            end += 1
        term = match["term"].strip().strip("'`*_")
        make = option_term if term.startswith("-") else term_entity  # `--root`
        entity = make(term, " ".join(parts), i + 1, end)
        if entity is not None:
            self.doc.entities.append(entity)
        self.attributes, self.anchor = "", None
        return end


def _delimiter(line: str) -> bool:
    """Whether `line` opens or closes a delimited block or a table."""
    return bool(
        _VERBATIM_DELIMITER.fullmatch(line)
        or _COMPOUND_DELIMITER.fullmatch(line)
        or _TABLE_DELIMITER.fullmatch(line)
    )


def _cells(line: str, separator: str) -> list[str] | None:
    """The cells a table line starts (None: the line goes on the cell before)."""
    stripped = line.strip()
    if separator not in stripped:
        return None
    head, *rest = re.split(rf"(?<!\\){re.escape(separator)}", stripped)
    if _CELL_SPEC.fullmatch(head.strip()) is None and head.strip():
        return None  # text before the first separator: the previous cell's
    cells = []
    for k, cell in enumerate(rest):
        if k + 1 < len(rest):
            cell = _CELL_SPEC.sub("", cell)  # the next cell's spec, written before its `|`
        cells.append(cell.strip().replace(f"\\{separator}", separator))
    return cells


def _columns(attributes: str) -> int:
    """The column count `[cols="1,2"]` or `[cols=3]` gives, else 0."""
    match = re.search(r"cols\s*=\s*(?:\"(?P<quoted>[^\"]*)\"|(?P<bare>[^,\]]*))", attributes)
    if not match:
        return 0
    spec = (match["quoted"] if match["quoted"] is not None else match["bare"]).strip()
    if spec.isdigit():
        return int(spec)
    count = 0
    for part in spec.split(",") if "," in spec else spec.split(";"):
        repeat = re.match(r"\s*(\d+)\*", part)
        count += int(repeat[1]) if repeat else 1
    return count


def _asciidoctor_id(title: str) -> str:
    """The id Asciidoctor gives a section: `_` then the title in lower case, its
    characters other than letters, digits, spaces, `-` and `.` dropped, runs of those
    three made one `_` ("Getting Started" → `_getting_started`)."""
    title = _ID_DROP.sub("", _ID_DASHES.sub("", title.lower()))
    words = _ID_SEPARATORS.sub("_", title).strip("_")
    return f"_{words}"
