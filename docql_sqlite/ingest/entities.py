"""Entities found in prose documents (spec §4.5): `API`, `ClassEntity` and `Term`.

This module owns the rules that turn a parsed `Document` (Markdown, reST, HTML, DOCX,
PDF, plain text) into entities; code files produce their own from their symbols.
The rules favour precision over recall — a wrong entity costs more than a missed one:

- `API`: a heading, or an inline code span handed in as `(line, text)`, that is a whole
  call signature (`fs.readFile(path[, options])`, `Index.search(query, *, limit=10)`)
  or an HTTP endpoint (`GET /api/users`). `name` is the callable or `METHOD /path`,
  `signature` the full text.
- `ClassEntity`: a heading `Class: Foo` / `class Foo(Base)`.
- `Term`: Markdown/Pandoc definition lists (`Term` then `: definition`), glossary
  tables (first headers Term/Name/… and Definition/Description/…), and paragraphs or
  list items opening with `**Term**: definition` / `**Term** — definition`.
  Admonition words (`**Note**:`, `**注意**：`) are not terms.

`term_entity` and `merge_entities` are shared with the parsers that find entities
natively (HTML `<dl>`, reST definition lists, DOCX bold runs), so every format applies
the same term filter and the same de-duplication.
"""

from __future__ import annotations

import re

from docql_sqlite.model import (
    CodeBlock,
    Document,
    Entity,
    Heading,
    Table,
    count_lines,
    split_lines,
)
from docql_sqlite.text import closing

# Bold lead-ins that introduce an admonition, not a defined term.
ADMONITIONS = frozenset(
    {
        *("note", "notes", "warning", "warnings", "tip", "tips", "hint", "important"),
        *("caution", "danger", "attention", "example", "examples", "see also", "todo"),
        *("info", "remark", "nb", "n.b"),
        *("注意", "提示", "警告", "重要", "说明", "备注", "注", "示例", "例如"),
    }
)

_NAME = r"[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*"
# No space between the callable and "(": "Getting started (optional)" is prose. A Rust
# function's qualifiers as rustdoc's headings write them: `pub const fn new()`,
# `pub unsafe fn from_raw_parts(…)`, `pub(crate) async fn`, `pub extern "C" fn`.
_RUST_QUALIFIERS = r'(?:pub(?:\([\w:\s]+\))?\s+)?(?:(?:const|async|unsafe|extern(?:\s+"\w+")?)\s+)*'
_CALL = re.compile(
    rf"^(?:(?:async\s+)?(?:def|function|func)\s+|{_RUST_QUALIFIERS}fn\s+|(?P<new>new)\s+)?"
    rf"(?P<name>{_NAME})(?:<(?:[^<>()]|<[^<>()]*>)*>)?\((?P<args>.*)\)(?:\s*(?:->|=>|:)\s*\S.*)?$"
)
# A Rust signature's trailing `where` clause (`pub fn retain<F>(&mut self, f: F) where F:
# FnMut(&T) -> bool,`): its bounds hold parentheses of their own.
_WHERE_CLAUSE = re.compile(r"\)(?:\s*->\s*[^()]*?)?\s+where\s+\S.*$")
_API_LABEL = re.compile(
    r"^(?:(?:static|class|instance|abstract)\s+)?(?:method|function|constructor|api)\s*[:：]\s*",
    re.I,
)
# Upper-case methods only, and a path that starts with "/": "Why use GET requests?" is prose.
_HTTP = re.compile(
    r"^(?P<method>GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|TRACE|CONNECT)\s+"
    r"(?P<path>(?:https?://[^\s/]+)?/[^\s]*)(?:\s+\S.*)?$"
)
_CLASS_LABEL = re.compile(
    rf"^(?:class|类)\s*[:：]\s*(?P<name>{_NAME})(?:\s+extends\s+\S.*)?$", re.I
)
_CLASS_KW = re.compile(
    rf"^class\s+(?P<name>{_NAME})\s*(?:<[^<>]*>\s*)?(?:\(.*\)|(?:extends|implements)\s+\S.*|:\s*\S.*)?\s*:?$"
)
_ARG = re.compile(
    r"""^(?:[\w$.*&<>\[\]|]+(?:\s+[\w$.*&<>\[\]|]+){0,2}(?:\s*[:=].*)?"""
    r"""|['"].*['"]|-?\d[\w.]*|\.\.\.|[*/]|\{.*\}|\w+\s*=>.*)$"""
)
_WORDY = re.compile(r"[A-Za-z]+(?:\s+[A-Za-z]+)+")
_RUST_MUT = re.compile(r"^'\w+\s+(?:mut\s+)?|^mut\s+")  # `&'a mut self`, `&'a self`

_DEF_LINE = re.compile(r"^ {0,3}:[ \t]+(?P<text>\S.*)$")
_ANY_DEF_LINE = re.compile(r" {0,3}:[ \t]+\S")  # at the start of the text, or:
# after a newline: a pattern opening with a literal is searched for that character first
# (`^` with re.M is tried at every position: 4x the CPU of this on prose)
_ANY_DEF_LINE_AFTER_NEWLINE = re.compile(r"\n {0,3}:[ \t]+\S")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_BOLD_TERM = re.compile(
    r"^\s*(?:[-*+]\s+|\d{1,3}[.)]\s+)?\*\*(?P<term>[^*\n]+?)(?P<inner>\s*[:：])?\*\*"
    r"\s*(?(inner)|(?:[:：]|—|–|--|-(?=\s)))\s*(?P<definition>\S.*)$"
)
_GLOSSARY_TERM_HEADERS = frozenset({"term", "terms", "name", "glossary", "术语", "名词"})
_GLOSSARY_DEF_HEADERS = frozenset({"definition", "description", "meaning", "定义", "说明", "含义"})


def extract_entities(
    document: Document, inline_code_spans: list[tuple[int, str]] | None = None
) -> list[Entity]:
    """All API, ClassEntity and Term entities of `document`, in line order, deduplicated."""
    found: list[Entity] = []
    api_names: set[str] = set()
    # the lines themselves only for the per-line passes below (most files need none)
    ends = _section_ends(document.headings, count_lines(document.text))
    for heading, end in zip(document.headings, ends, strict=True):
        entity = _heading_entity(heading.title, heading.line, end)
        if entity:
            found.append(entity)
            api_names.add(entity.name)
    seen_spans: set[str] = set()
    for line, span in inline_code_spans or []:
        # Only a call "(" or an endpoint "/" can be an API; each text is judged once.
        if span in seen_spans or ("(" not in span and "/" not in span):
            continue
        seen_spans.add(span)
        entity = _api_entity(_clean(span), line, line)
        # A code span mentioned many times is one API; a heading already defines it.
        if entity and entity.name not in api_names:
            found.append(entity)
            api_names.add(entity.name)
    declared = _declarations(document)
    found += [e for e in declared if e.name not in api_names]
    # One C-speed scan each decides whether the per-line passes are needed at all.
    text = document.text
    definitions = bool(_ANY_DEF_LINE.match(text) or _ANY_DEF_LINE_AFTER_NEWLINE.search(text))
    bold = _lines_with(text, "**")
    lines = split_lines(text) if definitions or bold or document.tables else []
    if definitions or bold:
        skip = _non_prose_lines(document)
        if definitions:
            found += _definition_list_terms(lines, skip)
        if bold:
            found += _bold_terms(lines, skip, bold)
    for table in document.tables:
        found += _glossary_terms(table, lines)
    return _dedupe(found)


# Code blocks whose declarations are C's: none named (HTML's <pre>, an indented block) or
# C's family. A block in another language declares its functions otherwise (or is code
# the index parses as such).
_C_BLOCKS = frozenset({"", "c", "h", "cpp", "c++", "cc", "hpp", "cxx", "objc", "objective-c"})
# A C function's declaration as a block writes it: at a line's start, its type's words
# (`int`, `const char *`, `SQLITE_API void`), its name, "(", then the parameters, which
# `_declared` reads to the closing ")" and a ";" (a definition's "{" is an example's).
_PROTOTYPE = re.compile(
    r"^[ \t]*(?P<type>(?:[A-Za-z_]\w*[ \t*]+)+\**)(?P<name>[A-Za-z_]\w*)[ \t]*\(", re.M
)
# Words a statement opens with that are no type: `return f(x);`, `await f(x);`.
_NOT_TYPES = frozenset(
    {
        *("return", "await", "yield", "throw", "new", "delete", "else", "case", "goto"),
        *("sizeof", "typeof", "echo", "print", "puts", "if", "while", "for", "switch", "do"),
        *("not", "and", "or", "in", "of", "let", "var", "def", "fn", "func", "function"),
        *("typedef", "define", "include", "call", "exec", "assert"),
    }
)
# SQL's statements read like declarations: `CREATE TABLE t1(a INT, b TEXT);`.
_SQL_WORDS = frozenset(
    {
        *("create", "table", "insert", "into", "values", "select", "from", "where", "update"),
        *("delete", "view", "index", "trigger", "drop", "alter", "virtual", "using", "as"),
        *("replace", "with", "join", "on", "exists", "unique", "temp", "temporary", "set"),
    }
)
MAX_DECLARATIONS = 64  # per code block: a header's whole listing is no API page's


def _declarations(document: Document) -> list[Entity]:
    """`API` entities of the C functions a prose document's code blocks declare
    (`int sqlite3_prepare_v2(sqlite3 *db, …);`): an API reference shows its functions'
    prototypes above their description (SQLite's C reference, a man page's SYNOPSIS,
    libcurl's), where no heading names them ("Compiling An SQL Statement")."""
    found: list[Entity] = []
    lines: list[str] | None = None
    for block in document.codeblocks:
        code = block.code
        if (block.language or "").casefold() not in _C_BLOCKS or ";" not in code or ")" not in code:
            continue
        entities = _declared(code)
        if not entities or len(entities) > MAX_DECLARATIONS:
            continue
        lines = split_lines(document.text) if lines is None else lines
        first = _first_code_line(block, lines)
        if first is None:
            continue
        found += [
            Entity("API", name, first + start, first + end, signature=signature)
            for name, start, end, signature in entities
        ]
    return found


def _declared(code: str) -> list[tuple[str, int, int, str]]:
    """(name, first line, last line — from 0 in `code` — and the declaration on one line)
    of each function prototype in `code`."""
    out: list[tuple[str, int, int, str]] = []
    line, counted = 0, 0  # lines before `counted`, counted as the matches go (not again)
    for match in _PROTOTYPE.finditer(code):
        words = match["type"].replace("*", " ").split()
        if not words or words[0].casefold() in _NOT_TYPES or match["name"] in _NOT_TYPES:
            continue
        if not _SQL_WORDS.isdisjoint(w.casefold() for w in words):
            continue  # `CREATE TABLE t1(a INT, b TEXT);`
        at = closing(code, "(", ")", match.end(), MAX_DECLARATION_CHARS)
        if at is None or not _END.match(code, at):
            continue
        if not _typed_parameters(code[match.end() : at - 1]):
            continue  # C++'s `HandleScope scope(isolate);` makes an object
        line += code.count("\n", counted, match.start("type"))
        counted = match.start("type")
        end = line + code.count("\n", counted, at)
        signature = _C_COMMENT.sub("", code[match.start("type") : at])
        signature = re.sub(r"\s+", " ", signature).replace("( ", "(").replace(" )", ")")
        out.append((match["name"], line, end, signature.replace(" ,", ",") + ";"))
        if len(out) > MAX_DECLARATIONS:
            break  # a header's whole listing: the caller keeps none of it
    return out


MAX_DECLARATION_CHARS = 2_000  # of one declaration's parameters


def _typed_parameters(parameters: str) -> bool:
    """Whether a parameter list is a declaration's: each parameter (a function pointer's
    own list inside it) a type and a name, a pointer or reference, `void` or `...`
    (`sqlite3 *db`, `sqlite3*`, `int (*callback)(void*,int)`), or none; not a call's
    values (`isolate`, `0`, `"x"`)."""
    parameters = _C_COMMENT.sub("", parameters).strip()
    if not parameters:
        return True
    if "'" in parameters or '"' in parameters:
        return False  # a value: no declaration holds a string
    return all(
        " " in p or "*" in p or "&" in p or p in ("void", "...")
        for p in (part.strip() for part in _split_top(parameters))
    )


_END = re.compile(r"[ \t]*;")
_C_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def _first_code_line(block: CodeBlock, lines: list[str]) -> int | None:
    """The document line (from 1) of `block`'s first line of code: after a Markdown fence,
    at a <pre>'s first line; None when the text does not hold it there."""
    head = block.code.split("\n", 1)[0].rstrip()
    for number in range(block.line, min(block.end_line, len(lines)) + 1):
        if lines[number - 1].rstrip() == head:
            return number
    return None


def term_entity(name: str, definition: str | None, line: int, end_line: int) -> Entity | None:
    """A `Term` entity, or None when `name` does not look like a defined term."""
    name = _clean(name).strip(" \t:：-—–")
    name = re.sub(r"\s+", " ", name)
    if not name or len(name) > 80 or len(name.split()) > 8:
        return None
    if name.casefold() in ADMONITIONS or name[-1] in ".!?。！？,，;；":
        return None
    if not any(ch.isalnum() for ch in name):
        return None
    definition = re.sub(r"\s+", " ", definition).strip() if definition else None
    return Entity("Term", name, line, max(line, end_line), definition=definition or None)


def option_term(option: str, definition: str | None, line: int, end_line: int) -> Entity | None:
    """A `Term` named by a command-line option as it is typed (`-n`, `--quiet`,
    `--fixup=<commit>`), for the readers of option lists (AsciiDoc's `--all::`, a manual
    page's tagged paragraphs, Info's and POD's items): `term_entity` takes a leading dash
    for a list's bullet, and `$.entities[?(@.name=="--all")]` must find it."""
    entity = term_entity(option, definition, line, end_line)
    if entity is not None:
        entity.name = option[: len(option) - len(option.lstrip("-"))] + entity.name
    return entity


_EMPHASIZED = re.compile(r"^(\*\*|__)(.+)\1$")


def _clean(text: str) -> str:
    """Heading or span text without inline-code ticks and surrounding emphasis."""
    text = text.replace("`", "").strip()
    if not text.startswith(("**", "__")):  # most headings and spans: no regex to run
        return text
    return _EMPHASIZED.sub(r"\2", text).strip()


# rustdoc's title of an item's page: its kind and its whole path (`Struct std::sync::Mutex`,
# `Macro std::vec`); a path of two parts at least, so no prose heading ("Trait objects").
_RUSTDOC_ITEM = re.compile(
    r"^(?P<kind>Struct|Enum|Trait|Union|Type Definition|Function|Macro|Constant|Static)\s+"
    r"(?:[A-Za-z_]\w*::)+(?P<name>[A-Za-z_]\w*)!?$"
    r"|^(?P<primitive>Primitive Type) (?P<type>[a-z]\w*)$"  # `Primitive Type slice`: no path
)
_RUSTDOC_TYPES = frozenset({"Struct", "Enum", "Trait", "Union", "Type Definition"})


def _heading_entity(title: str, line: int, end_line: int) -> Entity | None:
    text = _clean(title)
    if "::" in text or text.startswith("Primitive Type "):
        item = _RUSTDOC_ITEM.match(text)
        if item and item["primitive"]:
            return Entity("ClassEntity", item["type"], line, end_line, signature=text)
        if item:
            kind = "ClassEntity" if item["kind"] in _RUSTDOC_TYPES else "API"
            return Entity(kind, item["name"], line, end_line, signature=text)
    # both class patterns open with "class" (any case: no other character folds to a
    # "c") or "类": most headings need neither regex
    match = None
    if text[:1] in _CLASS_FIRST:
        match = _CLASS_LABEL.match(text) or _CLASS_KW.match(text)
    if match:
        return Entity("ClassEntity", match["name"], line, end_line, signature=text)
    return _api_entity(text, line, end_line)


_CLASS_FIRST = frozenset("cC类")


def _api_entity(text: str, line: int, end_line: int) -> Entity | None:
    if "(" not in text and "/" not in text:
        return None  # neither a call nor an HTTP path (the label cut below adds neither)
    text = _API_LABEL.sub("", text.strip(), count=1)
    if len(text) > 300:
        return None
    http = _HTTP.match(text)
    if http:
        return Entity("API", f"{http['method']} {http['path']}", line, end_line, signature=text)
    signature = text
    if " where " in text:
        text = _WHERE_CLAUSE.sub(lambda m: m[0][: m[0].index("where")].rstrip(), text, count=1)
    call = _CALL.match(text)
    if call and _plausible_args(call["args"], call["name"]):
        return Entity("API", call["name"], line, end_line, signature=signature)
    return None


def _plausible_args(args: str, name: str) -> bool:
    """True when `args` reads like a parameter list, not a parenthetical remark."""
    depth = 0
    for ch in args:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth < 0:
            return False  # "foo(a)(b)" or "f(x) (note)"
    if depth:
        return False
    flat = re.sub(r"[\[\]]", ",", args)  # optional-argument brackets: path[, options]
    # (a Rust receiver or binding, `&'a mut self`, `mut buf: Vec<u8>`, is one word)
    parts = [_RUST_MUT.sub("", p.strip().lstrip("*&").strip()) for p in _split_top(flat)]
    if re.fullmatch(r"[A-Za-z][a-z]*", name) and any(_WORDY.fullmatch(p) for p in parts):
        return False  # "Overview(see below)": a plain word followed by a remark
    return all(not p or _ARG.match(p) for p in parts)


def _split_top(args: str) -> list[str]:
    """Split on commas outside (), {} and <>."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(args):
        if ch in "({<":
            depth += 1
        elif ch in ")}>" and depth:
            depth -= 1
        elif ch == "," and not depth:
            parts.append(args[start:i])
            start = i + 1
    parts.append(args[start:])
    return parts


def _section_ends(headings: list[Heading], line_count: int) -> list[int]:
    """Spec §1.2 extents: up to the next heading of the same or a higher level."""
    ends = [line_count] * len(headings)
    open_sections: list[int] = []  # indices whose section is still running; one pass, O(n)
    for i, heading in enumerate(headings):
        while open_sections and headings[open_sections[-1]].level >= heading.level:
            ends[open_sections.pop()] = heading.line - 1
        open_sections.append(i)
    return [
        h.end_line if h.end_line is not None else max(h.line, end)
        for h, end in zip(headings, ends, strict=True)
    ]


def _non_prose_lines(document: Document) -> set[int]:
    """Lines where term patterns must not be looked for: front matter, code, headings."""
    skip = set(range(1, document.body_start_line))
    for block in document.codeblocks:
        skip.update(range(block.line, block.end_line + 1))
    skip.update(h.line for h in document.headings)
    return skip


def _definition_list_terms(lines: list[str], skip: set[int]) -> list[Entity]:
    """Pandoc/PHP-Markdown-Extra definition lists: `Term` then `: definition` lines."""
    found: list[Entity] = []
    current: Entity | None = None
    i = 0
    while i < len(lines):
        match = _DEF_LINE.match(lines[i]) if i + 1 not in skip else None
        if not match:
            i += 1
            continue
        parts = [match["text"]]
        end = i + 1
        while end < len(lines) and lines[end][:1] in (" ", "\t") and lines[end].strip():
            parts.append(lines[end].strip())  # indented continuation
            end += 1
        term_index = i - 1
        if term_index >= 1 and not lines[term_index].strip():
            term_index -= 1  # Pandoc allows one blank line between term and definition
        previous = lines[term_index] if term_index >= 0 else ""
        if current is not None and current.end_line >= term_index + 1:
            # A second definition of the same term.
            current.definition = f"{current.definition or ''} {' '.join(parts)}".strip()
            current.end_line = end
        elif term_index >= 0 and term_index + 1 not in skip and _term_line(previous):
            current = term_entity(previous, " ".join(parts), term_index + 1, end)
            if current:
                found.append(current)
        else:
            current = None
        i = end
    return found


def _term_line(line: str) -> bool:
    text = line.strip()
    if not text or line[:1] in (" ", "\t") or _DEF_LINE.match(line):
        return False
    if text[0] in "#|>:" or text.startswith(("```", "~~~")) or _LIST_ITEM.match(line):
        return False
    return not re.match(r"^[=\-*_~]{3,}$", text)  # thematic breaks, setext underlines


def _lines_with(text: str, needle: str) -> list[int]:
    """The numbers of the lines of `text` that hold `needle`, in order (found in C)."""
    found: list[int] = []
    line, counted, at = 1, 0, text.find(needle)
    while at >= 0:
        line += text.count("\n", counted, at)
        counted = at
        found.append(line)
        end = text.find("\n", at)
        at = text.find(needle, end) if end >= 0 else -1
    return found


def _bold_terms(lines: list[str], skip: set[int], candidates: list[int]) -> list[Entity]:
    """Paragraphs and list items that open with `**Term**: definition`; `candidates`: the
    numbers of the lines that hold `**` (`_lines_with`)."""
    found = []
    for number in candidates:
        i = number - 1
        line = lines[i]
        if number in skip:
            continue
        is_item = bool(_LIST_ITEM.match(line))
        starts_paragraph = i == 0 or not lines[i - 1].strip() or number - 1 in skip
        if not (is_item or starts_paragraph):
            continue
        match = _BOLD_TERM.match(line)
        if not match:
            continue
        parts, end = [match["definition"]], i + 1
        while end < len(lines) and lines[end].strip() and end + 1 not in skip:
            following = lines[end]
            if _LIST_ITEM.match(following) or (is_item and following[:1] not in (" ", "\t")):
                break
            parts.append(following.strip())
            end += 1
        entity = term_entity(match["term"], " ".join(parts), number, end)
        if entity:
            found.append(entity)
    return found


def _glossary_terms(table: Table, lines: list[str]) -> list[Entity]:
    """Rows of a two-column-or-wider table headed Term | Definition (or a synonym)."""
    if len(table.headers) < 2:
        return []
    first, second = (_clean(h).casefold().strip(" :：") for h in table.headers[:2])
    if first not in _GLOSSARY_TERM_HEADERS or second not in _GLOSSARY_DEF_HEADERS:
        return []
    found = []
    cursor = table.line
    for index, row in enumerate(table.rows):
        if not row or not row[0].strip():
            continue
        line = _find_row_line(lines, row[0], cursor, table.end_line)
        if line is None:
            # Markdown layout: header, delimiter, then one line per row.
            guess = table.line + 2 + index
            line = guess if guess <= table.end_line else table.line
        else:
            cursor = line  # the next row is searched for below this one
        entity = term_entity(row[0], row[1] if len(row) > 1 else None, line, line)
        if entity:
            found.append(entity)
    return found


def _find_row_line(lines: list[str], cell: str, start: int, end: int) -> int | None:
    """The first line after `start`, up to `end` (1-based), that shows `cell`."""
    wanted = [cell.strip(), _clean(cell)]
    for number in range(max(start + 1, 1), min(end, len(lines)) + 1):
        if any(w and w in lines[number - 1] for w in wanted):
            return number
    return None


def merge_entities(*groups: list[Entity]) -> list[Entity]:
    """The entities of all groups in line order, one per (type, name, line)."""
    return _dedupe([entity for group in groups for entity in group])


def _dedupe(entities: list[Entity]) -> list[Entity]:
    seen: set[tuple[str, str, int]] = set()
    unique = []
    for entity in sorted(entities, key=lambda e: (e.line, e.entity_type, e.name)):
        key = (entity.entity_type, entity.name.casefold(), entity.line)
        if key not in seen:
            seen.add(key)
            unique.append(entity)
    return unique


_BOLD_SEPARATOR = re.compile(r"^\s*(?:[:：]|—|–|--|-(?=\s))\s*")


def split_bold_term(term: str, full: str) -> tuple[str, str] | None:
    """(term, definition) from a paragraph `full` that opens with the bold text `term`
    followed by a colon or a dash (`**Term**: …`, `**Term:** …`, `**Term** — …`)."""
    if not term or not full.startswith(term):
        return None
    rest = full[len(term) :]
    if term.endswith((":", "：")):
        definition = rest.strip()
    else:
        separator = _BOLD_SEPARATOR.match(rest)
        if not separator:
            return None
        definition = rest[separator.end() :].strip()
    return (term, definition) if definition else None
