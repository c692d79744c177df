"""LaTeX → `Document`: sections numbered as LaTeX numbers them, read by lines.

This module owns reading LaTeX sources (`.tex`, `.latex`, `.ltx`) as their outline,
without typesetting (design B45). `Document.text` is the file itself, so every line
number is a line of it, and search reads its words (and its commands) as written.

- **Sections**: `\\part`, `\\chapter`, `\\section`, `\\subsection`, `\\subsubsection`,
  `\\paragraph`, `\\subparagraph`, with a `*` or a short title in brackets, the title in
  braces (over several lines too), its commands read as text (`\\texttt{Prg}` is
  "Prg", `\\LaTeX` "LaTeX"). The number is the one LaTeX prints: chapters (or sections,
  in a document without chapters) count from 1, lower levels from their parent, after
  `\\appendix` the top level counts A, B, …; a starred section, a part, a paragraph and a
  subparagraph have none, nor a level below the numbering depth (the class's: a book's
  subsubsections; the document's `\\setcounter{secnumdepth}{…}`, memoir's
  `\\setsecnumdepth`) — so `chapter("2.3")` is the PDF's 2.3. The `\\label` right
  after a title (on its line or the next) is its anchor: `chapter("#sec:intro")`.
- **Not sections**: anything after a `%` comment sign, inside a verbatim-like
  environment (`verbatim`, `lstlisting`, `minted`, `Verbatim`, `comment`), or inside
  `\\iffalse` … `\\fi`; those environments but `comment` are code blocks (`minted`'s
  language, `lstlisting`'s `language=`).
- **The title**: `\\title{…}`. **Terms**: `\\item[term] text` (a description list).
- `\\input` and `\\include` are not followed (an index reads the files it is given).
"""

from __future__ import annotations

import re

from docql_sqlite.ingest.entities import extract_entities, merge_entities, term_entity
from docql_sqlite.ingest.read import parse_decoded, plain_lines
from docql_sqlite.model import CodeBlock, Document, Entity, Heading, Source, split_lines

# Sectioning commands and their depth (a part above a chapter above a section …).
_DEPTH = {
    "part": 0,
    "chapter": 1,
    "section": 2,
    "subsection": 3,
    "subsubsection": 4,
    "paragraph": 5,
    "subparagraph": 6,
}
_SECTION = re.compile(
    r"\\(?P<command>part|chapter|section|subsection|subsubsection|paragraph|subparagraph)"
    r"(?P<star>\*?)[ \t]*(?:\[[^\]\n]*\][ \t]*)?\{"
)
# Environments whose body is shown as written (package documentation shows its examples'
# `\\section`s in `tcblisting` and `LTXexample`), or not at all (`comment`).
_VERBATIM = frozenset(
    "verbatim verbatim* lstlisting minted Verbatim Verbatim* BVerbatim LVerbatim comment "
    "tcblisting tcboutputlisting LTXexample filecontents filecontents*".split()
)
_NOT_SHOWN = frozenset({"comment", "filecontents", "filecontents*"})
_BEGIN = re.compile(r"\\begin\{(?P<env>[A-Za-z]+\*?)\}(?P<rest>.*)")
_LABEL = re.compile(r"\\label\{(?P<label>[^}\n]+)\}")
_TITLE = re.compile(r"\\title[ \t]*(?:\[[^\]\n]*\][ \t]*)?\{")
_ITEM = re.compile(r"\\item[ \t]*\[(?P<term>[^\]\n]+)\][ \t]*(?P<text>.*)")
_APPENDIX = re.compile(r"\\appendix\b")
# How deep LaTeX numbers sections (its `secnumdepth`: a chapter 0, a section 1, …): set by
# the class (a book's subsubsections print no number) and by the document.
_CLASS = re.compile(r"\\documentclass[ \t]*(?:\[[^\]]*\])?[ \t]*\{(?P<name>[\w-]+)\}")
_SECNUMDEPTH = re.compile(
    r"\\setcounter[ \t]*\{secnumdepth\}[ \t]*\{[ \t]*(?P<depth>-?\d+)[ \t]*\}"
)
_MEMOIR_DEPTH = re.compile(r"\\(?:set|max)secnumdepth[ \t]*\{(?P<name>\w+)\}")
_CHAPTERED = frozenset({"book", "report", "memoir", "scrbook", "scrreprt", "amsbook", "ltxdoc"})
# a macro's parameter: `\\newcommand{\\mysec}[1]{\\section{#1}}` defines, sections nothing
_PARAMETER = re.compile(r"#\d")
_IFFALSE = re.compile(r"^[ \t]*\\iffalse\b")
_FI = re.compile(r"^[ \t]*\\fi\b")
_LANGUAGE = re.compile(r"language[ \t]*=[ \t]*\{?(?P<language>[\w+#-]+)", re.I)
# A line longer than this holds no section, title or item (and no regular expression
# runs over a 50 MB line of `\\section{` or `\\item[` whose brackets never close).
_LONG_LINE = 20_000
# how far a title's braces are read (a brace never closed is no title)
_TITLE_LINES = 5
_TITLE_CHARS = 500
# Commands whose name is their text; other commands without braces are dropped.
_NAMED = {
    "LaTeX": "LaTeX",
    "TeX": "TeX",
    "LaTeXe": "LaTeX2e",
    "BibTeX": "BibTeX",
    "textbackslash": "\\",
    "ldots": "…",
    "dots": "…",
}
_ESCAPED = re.compile(r"\\([&%$#_{}])")
# Commands that print no text of their argument (a key, a length, a note elsewhere), and
# those whose first argument is not text (`\\textcolor{green}{Functional}`, `\\href{url}{…}`).
_DROPPED = re.compile(
    r"\\(?:label|ref|pageref|eqref|cite[a-z]*|footnote|index|thanks|hspace|vspace|color"
    r"|includegraphics|url)\*?(?:\[[^\]]*\])?\{[^{}]*\}"
)
_FIRST_ARGUMENT = re.compile(r"\\(?:textcolor|colorbox|href)(?:\[[^\]]*\])?\{[^{}]*\}")
# a control word eats the spaces after it, as TeX reads it (`\\textbackslash begin`)
_COMMAND = re.compile(r"\\([A-Za-z]+)\*?[ \t]*|\\(.)")


def parse(source: Source) -> Document:
    """The LaTeX parser (`formats.PARSERS`): decode, then `parse_latex`."""
    return parse_decoded(source, parse_latex)


def parse_latex(text: str, path: str) -> Document:
    """Parse decoded LaTeX; never raises."""
    text = plain_lines(text)
    lines = split_lines(text)
    doc = Document(format="latex", text=text)
    code = [_uncommented(line) for line in lines]
    counters = _Counters()
    terms: list[Entity] = []
    n, i = len(lines), 0
    while i < n:
        line = code[i]
        if "\\" not in line or len(line) > _LONG_LINE:
            i += 1  # (a line this long is data: no title is looked for in it)
            continue
        if _IFFALSE.match(line):
            i = _skip_iffalse(code, i)
            continue
        begin = _BEGIN.search(line)
        if begin is not None and begin["env"] in _VERBATIM:
            i = _verbatim(lines, i, begin, doc)
            continue
        for match in _SECTION.finditer(line):
            title, end, after = _braced(code, i, match.end())
            if title is None or _PARAMETER.search(title):
                continue
            command = match["command"]
            number = counters.number(command, bool(match["star"]))
            label = _LABEL.match(code[end][after:].strip())
            if label is None and end + 1 < n and not code[end][after:].strip():
                label = _LABEL.match(code[end + 1].strip())
            heading = Heading(
                level=min(_DEPTH[command] + 1, 6),
                title=latex_text(title),
                line=i + 1,
                anchor=label["label"] if label else None,
                number=number,
            )
            if heading.title:
                doc.headings.append(heading)
        if _APPENDIX.search(line):
            counters.appendix()
        counters.configure(line)
        if doc.title is None and (title_match := _TITLE.search(line)) is not None:
            title, _, _ = _braced(code, i, title_match.end())
            doc.title = latex_text(title) if title else None
        if (item := _ITEM.search(line)) is not None:
            entity = term_entity(latex_text(item["term"]), latex_text(item["text"]), i + 1, i + 1)
            if entity is not None:
                terms.append(entity)
        i += 1
    doc.entities = merge_entities(extract_entities(doc), terms)
    return doc


def _uncommented(line: str) -> str:
    """`line` without its comment (from the first `%` that no backslash escapes) and with
    its inline verbatim blanked (`\\verb|\\section{x}|` shows a command, runs none)."""
    if "\\verb" in line:
        line = _blank_verb(line)
    at = line.find("%")
    while at >= 0:
        slashes = len(line[:at]) - len(line[:at].rstrip("\\"))
        if slashes % 2 == 0:
            return line[:at]
        at = line.find("%", at + 1)
    return line


def _blank_verb(line: str) -> str:
    """`line` with each `\\verb|…|` blanked; one never closed blanks the rest of the line
    (one pass: each delimiter is looked for once)."""
    out, at = [], 0
    while (start := line.find("\\verb", at)) >= 0:
        k = start + 5
        if line[k : k + 1] == "*":
            k += 1
        delimiter = line[k : k + 1]
        if not delimiter or delimiter.isalpha() or delimiter.isspace():
            out.append(line[at:k])
            at = k
            continue
        close = line.find(delimiter, k + 1)
        end = len(line) if close < 0 else close + 1
        out.append(line[at:start] + " " * (end - start))
        at = end
    out.append(line[at:])
    return "".join(out)


def _braced(code: list[str], i: int, start: int) -> tuple[str | None, int, int]:
    """(the text inside the braces opened before `start` on line i, the line they close
    on, the column after the closing brace); (None, i, start) when they do not close
    within `_TITLE_LINES` lines or `_TITLE_CHARS` characters."""
    parts: list[str] = []
    depth, k, row = 1, start, i
    line = code[i]
    while row < min(len(code), i + _TITLE_LINES):
        while k < len(line):
            if len(parts) > _TITLE_CHARS:
                return None, i, start  # (read no further into a brace never closed)
            c = line[k]
            if c == "\\" and k + 1 < len(line):
                parts.append(line[k : k + 2])
                k += 2
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    return "".join(parts), row, k + 1
            parts.append(c)
            k += 1
        row += 1
        if row < len(code):
            parts.append(" ")
            line, k = code[row], 0
    return None, i, start


def latex_text(source: str) -> str:
    """LaTeX as words: commands' arguments kept, their names dropped (`\\texttt{Prg}`:
    "Prg"), `\\LaTeX` "LaTeX", escapes and `~` as the characters they print, braces
    gone, spaces collapsed."""
    text = _FIRST_ARGUMENT.sub("", _DROPPED.sub("", source))
    # escaped braces kept apart from the groups' braces, which go
    text = text.replace("\\{", "\ue000").replace("\\}", "\ue001")
    text = _ESCAPED.sub(r"\1", text.replace("\\\\", " ").replace("~", " "))

    def command(match: re.Match[str]) -> str:
        name = match.group(1)
        return " " if name is None else _NAMED.get(name, "")

    text = _COMMAND.sub(command, text).replace("{", "").replace("}", "")
    text = text.replace("\ue000", "{").replace("\ue001", "}")
    return re.sub(r"\s+", " ", text).strip()


def _verbatim(lines: list[str], i: int, begin: re.Match[str], doc: Document) -> int:
    """A verbatim-like environment from line i: a code block (not for `comment`); the
    index of the line after its end."""
    env = begin["env"]
    end_marker = f"\\end{{{env}}}"
    rest = begin["rest"]
    j = i + 1
    while j < len(lines) and end_marker not in lines[j]:
        j += 1
    if env not in _NOT_SHOWN:
        language = None
        if env == "minted" and (m := re.match(r"\s*(?:\[[^\]]*\])?\s*\{(?P<l>[\w+#-]+)\}", rest)):
            language = m["l"]
        elif (m := _LANGUAGE.search(rest)) is not None:
            language = m["language"]
        body = "\n".join(lines[i + 1 : j])
        end_line = min(j + 1, len(lines))
        doc.codeblocks.append(
            CodeBlock(language=language, code=body, line=i + 1, end_line=end_line)
        )
    return j + 1


def _skip_iffalse(code: list[str], i: int) -> int:
    """The line after the `\\fi` that ends an `\\iffalse` block from line i (nested
    `\\if…` counted); the end of the text when none does."""
    depth, j = 0, i
    while j < len(code):
        line = code[j].strip()
        if re.match(r"\\if(?!thenelse)[A-Za-z@]*\b", line):  # (`\\ifthenelse{…}` ends no `\\fi`)
            depth += 1
        elif _FI.match(line):
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return j


class _Counters:
    """LaTeX's section counters: which number a sectioning command prints."""

    def __init__(self) -> None:
        self.counts = [0] * 5  # chapter, section, subsection, subsubsection (index 1-4)
        self.appendix_at: int | None = None  # the depth whose counter shows letters
        self.top = 2  # the depth of the top numbered level: 1 once a chapter is seen
        self.deepest = 4  # the deepest numbered depth (LaTeX's secnumdepth + 1)

    def configure(self, line: str) -> None:
        """Read the class's and the document's numbering depth from a line."""
        if "documentclass" not in line and "secnumdepth" not in line:
            return  # (most lines: no regular expression runs)
        if (match := _CLASS.search(line)) is not None:
            name = match["name"]
            self.deepest = 2 if name == "memoir" else 3 if name in _CHAPTERED else 4
        elif (match := _SECNUMDEPTH.search(line)) is not None:
            self.deepest = int(match["depth"]) + 1
        elif (match := _MEMOIR_DEPTH.search(line)) is not None:
            name = match["name"]
            self.deepest = {"none": -1, "all": 6}.get(name, _DEPTH.get(name, self.deepest))

    def number(self, command: str, starred: bool) -> str:
        depth = _DEPTH[command]
        if command == "chapter":
            self.top = 1
        if starred or depth == 0 or depth >= 5 or depth < self.top or depth > self.deepest:
            return ""
        self.counts[depth] += 1
        for lower in range(depth + 1, len(self.counts)):
            self.counts[lower] = 0
        parts = []
        for level in range(self.top, depth + 1):
            count = self.counts[level]
            if level == self.appendix_at:
                parts.append(chr(64 + count) if 0 < count <= 26 else str(count))
            else:
                parts.append(str(count))
        return ".".join(parts)

    def appendix(self) -> None:
        self.appendix_at = self.top
        for level in range(self.top, len(self.counts)):
            self.counts[level] = 0
