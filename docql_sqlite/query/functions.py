"""Roots and functions of DocQL (spec §4): each turns into a base SELECT of one item type.

`ROOTS`, `CONTENT_FUNCTIONS` and `CODE_FUNCTIONS` are the registry: they drive
compilation, "did you mean" hints and the function table in docs/docql.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from ..errors import DocQLNameError, DocQLSyntaxError, DocQLTypeError, did_you_mean
from ..module_paths import module_segments
from ..records import Record
from ..ref_codes import REFERENCE_KINDS
from ..sqlparams import Params
from ..text import fold, fold_non_ascii, like_pattern, plain_number
from . import items as item_sql
from .filters import (  # trigram_query: also imported from here (search/name_lists.py)
    ascii_lower,
    letter_rarity,
    regex_condition,
    required_regex_literals,
    trigram_query,
)
from .nodes import Call, Regex


class Source(Record):
    """What a root or function yields: the item type and the SQL listing those items."""

    item: item_sql.ItemType
    sql: str
    ranked: bool = False
    post: str | None = None  # results-stage refinement: frontmatter | structure | regex_grep
    post_arg: object = None


class Function(Record, frozen=True):
    name: str
    params: tuple[str, ...]  # names of the arguments, for docs and arity errors
    min_args: int
    doc: str


ROOTS = {
    "toc": "all headings, flattened pre-order",
    "entities": "terms, APIs, classes and functions found in documents and code",
    "files": "the indexed documents",
    "content": "sections, chunks, code blocks, tables and pages (needs a function)",
    "code": "code symbols (classes, functions, methods …)",
    "frontmatter": "each document's front matter",
    "structure": "the directory tree of the indexed paths",
}
CONTENT_FUNCTIONS = {
    f.name: f
    for f in [
        Function(
            "heading",
            ("kw",),
            0,
            "sections whose title contains kw (score 3 exact, 2 prefix, 1 contains); body fallback",
        ),
        *[
            Function(f"h{n}", ("kw",), 0, f"level-{n} headings whose title contains kw")
            for n in range(1, 7)
        ],
        Function(
            "chapter",
            ("id",),
            1,
            "the section numbered id ('1.2') or with anchor '#id', with its sub-sections",
        ),
        Function(
            "grep",
            ("text",),
            1,
            "chunks containing text (case-insensitive substring) or matching /regex/",
        ),
        Function(
            "search",
            ("q",),
            1,
            "ranked full-text search over chunks (BM25, fused with vectors when present)",
        ),
        Function("similar", ("q",), 1, "chunks ranked by vector similarity"),
        Function("chunks", (), 0, "every chunk, in document order"),
        Function("all", (), 0, "every chunk, in document order (alias of chunks())"),
        Function("page", ("n",), 1, "the text of page n of each PDF"),
    ]
}
CONTENT_LISTS = {"codeblock": "fenced code blocks", "table": "Markdown tables"}
CODE_LISTS = {
    "classes": "classes, interfaces, enums, structs, traits",
    "functions": "functions and methods",
    "methods": "methods",
    "symbols": "every symbol",
    "imports": "every import: the module as written and the names imported",
}
CODE_FUNCTIONS = {
    f.name: f
    for f in [
        Function(
            "class", ("name",), 0, "classes named exactly name (case-insensitive), with source"
        ),
        Function("function", ("name",), 0, "functions named exactly name, with source"),
        Function("method", ("name",), 0, "methods named exactly name, with source"),
        Function(
            "query", ("kw",), 1, "symbols whose name contains kw, ranked exact > prefix > contains"
        ),
        Function(
            "references",
            ("name",),
            1,
            "every use of name: calls, type uses, inheritance, imports "
            "('A.f': the uses resolved to A.f)",
        ),
        Function(
            "callers",
            ("name",),
            1,
            "the call sites of name, each with its caller (the enclosing symbol) and its source",
        ),
        Function(
            "callees", ("name",), 1, "the calls made directly inside the functions named name"
        ),
        Function(
            "importers",
            ("module",),
            1,
            "the imports of module or of a module inside it ('os' also finds 'os.path')",
        ),
    ]
}
REFERENCE_FUNCTIONS = ("references", "callers", "callees")
CALL = REFERENCE_KINDS.index("call")  # `refs.kind` of a call (schema 11)
IMPORT = REFERENCE_KINDS.index("import")  # of a name an import statement takes
CLASS_KINDS = (
    "class",
    "interface",
    "enum",
    "struct",
    "trait",
    "record",
    "object",
    "union",
    "protocol",
    "type",  # named type declarations: TypeScript/Rust `type X = ...`, Go `type X int`
)
FUNCTION_KINDS = ("function", "method", "constructor")
METHOD_KINDS = ("method", "constructor")


# A qualified name as each language writes it, dotted as the index stores it: C++'s, Rust's
# and Ruby's `A::B`, Ruby's `Rack::Utils#escape` (an instance method), PHP's
# `GuzzleHttp\Psr7\Utils::streamFor` (a leading `\` is the global namespace).
_NAME_SEPARATORS = re.compile(r"::|(?<=\w)#(?=\w)|\\")


def dotted_name(name: str) -> str:
    """`name` with its language's separators written as dots (`_NAME_SEPARATORS`)."""
    if ":" not in name and "#" not in name and "\\" not in name:
        return name
    return _NAME_SEPARATORS.sub(".", name).lstrip(".") or name


def _kinds(kinds: tuple[str, ...]) -> str:
    return "y.kind IN (" + ", ".join(f"'{k}'" for k in kinds) + ")"


class FunctionCompiler:
    def __init__(
        self, params: Params, source: str, search_builder: Callable[..., Source] | None = None
    ) -> None:
        self.params = params
        self.source = source
        self.search_builder = search_builder

    # -- argument helpers -----------------------------------------------------------
    def check_call(self, call: Call, registry: dict[str, Function], owner: str) -> Function:
        fn = registry.get(call.name)
        if fn is None:
            hint = did_you_mean(call.name, registry)
            message = f"unknown function '{call.name}' for {owner}"
            message += (
                f"; did you mean '{hint}'?" if hint else f"; functions: {', '.join(registry)}"
            )
            raise DocQLNameError(message, source=self.source, offset=call.offset, suggestion=hint)
        if len(call.args) < fn.min_args or len(call.args) > len(fn.params):
            shown = f"{fn.name}({', '.join(fn.params)})"
            raise DocQLTypeError(
                f"{shown} takes {len(fn.params)} argument{'s' if len(fn.params) != 1 else ''}, "
                f"got {len(call.args)}",
                source=self.source,
                offset=call.offset,
            )
        return fn

    def text_arg(self, call: Call, index: int = 0, default: str = "") -> str:
        if index >= len(call.args):
            return default
        arg = call.args[index]
        if arg.kind == "regex":
            raise DocQLTypeError(
                f"{call.name}() needs a string, got a regex", source=self.source, offset=arg.offset
            )
        return str(arg.value) if arg.kind == "string" else (arg.text or str(arg.value))

    # -- $.content.* ------------------------------------------------------------------
    def content(self, call: Call, scope: str) -> Source:
        fn = self.check_call(call, CONTENT_FUNCTIONS, "$.content")
        name = fn.name
        dialect = self.params.dialect
        if name == "heading":
            return self._heading(self.text_arg(call), scope)
        if name[0] == "h" and name[1:].isdigit():
            kw = fold(self.text_arg(call))
            where = f" AND s.level = {int(name[1:])}"
            if kw:
                where += f" AND {title_contains(kw, self.params.add(kw), self.params)}"
            return Source(item_sql.HEADING, item_sql.base_headings(scope, where, dialect=dialect))
        if name == "chapter":
            chapter_id = self.text_arg(call).strip()
            if chapter_id.startswith("#"):
                where = f"s.anchor = {self.params.add(chapter_id[1:])}"
            elif (plain := plain_number(chapter_id)) != chapter_id:
                # "05.1": stored as 5.1 (or as written, by an older index)
                numbers = ", ".join(self.params.add(n) for n in (chapter_id, plain))
                where = f"s.number IN ({numbers})"
            else:
                where = f"s.number = {self.params.add(chapter_id)}"
            return Source(
                item_sql.SECTION, item_sql.base_sections(scope, "NULL", "NULL", where, dialect)
            )
        if name == "grep":
            return self._grep(call, scope)
        if name in ("search", "similar"):
            if self.search_builder is None:
                raise DocQLNameError(
                    f"{name}() is not available here", source=self.source, offset=call.offset
                )
            return self.search_builder(name, self.text_arg(call), scope, self.params, call)
        if name in ("chunks", "all"):
            return Source(item_sql.CHUNK, item_sql.base_chunks(scope, dialect))
        # page(n)
        arg = call.args[0]
        if arg.kind != "number" or not isinstance(arg.value, int):
            raise DocQLTypeError(
                "page() needs a page number", source=self.source, offset=arg.offset
            )
        return Source(
            item_sql.PAGE, item_sql.base_pages(scope, self.params.add(arg.value), dialect)
        )

    def _heading(self, keyword: str, scope: str) -> Source:
        dialect = self.params.dialect
        kw = fold(keyword)
        if not kw:
            every = item_sql.base_sections(scope, "1", "'title'", dialect.TRUE, dialect)
            return Source(item_sql.SECTION, every, ranked=True)
        p = self.params.add(kw)
        tier = (
            f"(CASE WHEN s.title_fold = {p} THEN 3 "
            f"WHEN {dialect.starts_with('s.title_fold', p)} THEN 2 ELSE 1 END)"
        )
        in_title = title_contains(kw, p, self.params)
        titles = item_sql.base_sections(scope, tier, "'title'", in_title, dialect)
        # Smart degradation (spec §4.3): no title in scope matches → innermost sections
        # whose own text (their chunks, not their sub-sections') contains the keyword.
        # One pass over the chunks (not one lookup per section), and none at all when a
        # title matched: the NOT EXISTS is constant, so SQLite checks it once, before the scan.
        # It reads the title matches, kept once (MATERIALIZED): asking the sections again
        # scanned every title a second time when the first match came late or never (a
        # third of the query on a 308k-section index, docs/benchmarks.md).
        # The check is a one-row gate joined before the chunks, not a term of their WHERE:
        # as a term SQLite evaluated it once but still read every chunk (15 ms of 17 on a
        # 585k-chunk index when a title matched); a gate with no row reads none.
        no_title = "(SELECT 1 AS one WHERE NOT EXISTS (SELECT 1 FROM title_hits)) no_title"
        in_scope = (
            ""
            if scope == dialect.TRUE
            else f"c.doc_id IN (SELECT d.id FROM documents d WHERE {scope}) AND "
        )
        own_text = (
            f"s.id IN (SELECT c.section_id FROM {no_title} CROSS JOIN chunks c "
            f"WHERE {in_scope}{chunk_contains(keyword, self.params)})"
        )
        bodies = item_sql.base_sections(scope, dialect.real("0.5"), "'body'", own_text, dialect)
        sql = (
            f"WITH title_hits AS MATERIALIZED ({titles})\n"
            f"SELECT * FROM title_hits UNION ALL SELECT * FROM ({bodies})"
        )
        return Source(item_sql.SECTION, sql, ranked=True)

    def _grep(self, call: Call, scope: str) -> Source:
        arg = call.args[0]
        dialect = self.params.dialect
        columns = item_sql.chunk_columns(dialect)
        if isinstance(arg.value, Regex):
            cond = regex_condition("c.content", arg.value.pattern, arg.value.flags, self.params)
            # The trigram table holds coalesce(fold, content): an ASCII run of `content`
            # is also a run of its fold (only non-ASCII characters are folded), so the
            # ASCII literal runs every match contains are a sound filter (each of them:
            # `/EADDR\w+USE/` reads the trigrams of EADDR and USE); a non-ASCII one is not.
            runs = sorted(  # the longest first: its trigrams are the main filter
                (
                    r
                    for r in required_regex_literals(arg.value.pattern, arg.value.flags)
                    if r.isascii() and len(r) >= 3
                ),
                key=len,
                reverse=True,
            )
            if runs:
                candidates = chunk_candidates(runs[0], self.params, *runs[1:])
                cond = cond if candidates is None else f"{candidates} AND {cond}"
            sql = (
                f"SELECT {columns}, NULL AS _score, c.line AS hit_line, "
                f"substr(c.content, 1, 160) AS snippet FROM {item_sql.CHUNK_FROM} "
                f"WHERE {scope} AND {cond}"
            )
            return Source(
                item_sql.GREP_CHUNK,
                sql,
                post="regex_grep",
                post_arg=(arg.value.pattern, arg.value.flags),
            )
        kw = fold(self.text_arg(call))
        if not kw:
            raise DocQLTypeError(
                "grep() needs a non-empty text", source=self.source, offset=arg.offset
            )
        p = self.params.add(kw)
        hay = dialect.ascii_lower("coalesce(c.fold, c.content)")
        # The filter is a LIKE (no lower() copy of every chunk); the hit position, needed
        # only for the matching chunks, is found in the folded text and gives the hit
        # line: folding and lower() never add or remove newlines, so counting the newlines
        # before that position in the (un-lowered) folded text is exact.
        contains = chunk_contains(self.text_arg(call), self.params)
        newline, start = dialect.newline(), dialect.greatest("1", "g._at - 60")
        sql = f"""SELECT g.*, g.line + length(substr(coalesce(g._fold, g.content), 1, g._at))
    - length(replace(substr(coalesce(g._fold, g.content), 1, g._at), {newline}, '')) AS hit_line,
  trim(replace(substr(g.content, {start}, 160), {newline}, ' ')) AS snippet
FROM (SELECT {columns}, NULL AS _score, {dialect.position(hay, p)} AS _at
      FROM {item_sql.CHUNK_FROM} WHERE {scope} AND {contains}) g"""
        return Source(item_sql.GREP_CHUNK, sql)

    # -- $.code.* ---------------------------------------------------------------------
    def code_list(self, name: str, scope: str) -> Source:
        dialect = self.params.dialect
        if name == "imports":
            return Source(item_sql.IMPORT, item_sql.base_imports(scope, dialect.TRUE, dialect))
        where = {
            "classes": _kinds(CLASS_KINDS),
            "functions": _kinds(FUNCTION_KINDS),
            "methods": _kinds(METHOD_KINDS),
            "symbols": dialect.TRUE,
        }[name]
        return Source(item_sql.SYMBOL, item_sql.base_symbols(scope, where, dialect=dialect))

    def code(self, call: Call, scope: str) -> Source:
        fn = self.check_call(call, CODE_FUNCTIONS, "$.code")
        dialect = self.params.dialect
        if fn.name in REFERENCE_FUNCTIONS:
            return self._references(fn.name, call, scope)
        if fn.name == "importers":
            return self._importers(call, scope)
        if fn.name == "query":
            text = self.text_arg(call)
            p = self.params.add(fold(text))
            q = self.params.add(
                ascii_lower(text)
            )  # qualified_name has no stored fold: lower() is ASCII-only
            # A match on the qualified name only (a member of a matching class) ranks below
            # every match on the name itself: tier 0.5.
            score = (
                f"(CASE WHEN y.name_fold = {p} THEN 3 WHEN {dialect.starts_with('y.name_fold', p)} "
                f"THEN 2 "
                f"WHEN {dialect.contains('y.name_fold', p)} THEN 1 ELSE {dialect.real('0.5')} END)"
                f" - length(y.name) / {dialect.real('1000.0')}"
            )
            qualified = dialect.ascii_lower("y.qualified_name")
            where = f"{dialect.contains('y.name_fold', p)} OR {dialect.contains(qualified, q)}"
            return Source(
                item_sql.RANKED_SYMBOL,
                item_sql.base_symbols(scope, where, score, dialect=dialect),
                ranked=True,
            )
        kinds = {"class": CLASS_KINDS, "function": FUNCTION_KINDS, "method": METHOD_KINDS}[fn.name]
        name = self.text_arg(call)
        where = _kinds(kinds)
        qualified = dotted_name(name.strip())
        short = qualified.rsplit(".", 1)[-1]
        if "." in qualified.strip(".") and short:
            # `method("QuerySet.filter")`, `function("dispatch.next")`: the symbols named
            # like its last part whose qualified name is it, or ends with it after a dot
            # (and, as before, a symbol whose own name is it: `[Symbol.iterator]`)
            q = ascii_lower(qualified)
            held = dialect.ascii_lower("y.qualified_name")
            where += (
                f" AND (y.name_fold = {self.params.add(fold(name))} OR "
                f"(y.name_fold = {self.params.add(fold(short))} AND ({held} = "
                f"{self.params.add(q)} OR {dialect.ends_with(held, self.params.add('.' + q))})))"
            )
        elif name not in ("", "*"):
            where += f" AND y.name_fold = {self.params.add(fold(name))}"
        return Source(
            item_sql.SYMBOL_WITH_SOURCE, item_sql.base_symbols(scope, where, dialect=dialect)
        )

    def _code_name(self, call: Call) -> str:
        name = self.text_arg(call).strip()
        if not name:
            raise DocQLTypeError(
                f"{call.name}() needs a name", source=self.source, offset=call.args[0].offset
            )
        return name

    def _references(self, function: str, call: Call, scope: str) -> Source:
        """references / callers / callees: reference items (spec in docs/docql.md §4)."""
        dialect = self.params.dialect
        name = self._code_name(call)
        qualified = dotted_name(name)
        short = qualified.rsplit(".", 1)[-1] or qualified
        if function == "callees":
            # The enclosing symbols named `name` (or with that qualified name), then the
            # calls directly inside them: the (doc, ord) pairs seek the key of `refs`.
            p = self.params.add(short)
            owner = f"y.name_fold = {self.params.add(fold(short))} AND y.name = {p}"
            if qualified != short:
                owner += f" AND y.qualified_name = {self.params.add(qualified)}"
            where = (
                f"r.kind = {CALL} AND (r.doc_id, r.caller_ord) IN "
                f"(SELECT y.doc_id, y.ord FROM symbols y WHERE {owner})"
            )
            return Source(item_sql.REFERENCE, item_sql.base_references(scope, where, dialect))
        p = self.params.add(short)
        # Uses under a name an import gave it (`Sq(3)` after `from m import Square as Sq`)
        # count when they resolve to a definition named `name`: such an import is a row
        # of its own with that one name (`imports.names` = '["Square"]').
        renamed = self.params.add(json.dumps([short], ensure_ascii=False))  # as `to_json`
        where = (
            f"(r.name = {p} OR (r.name IN (SELECT a.alias FROM imports a WHERE a.alias IS NOT "
            f"NULL AND a.names = {renamed}) AND t.name = {p}))"
        )
        if function == "callers":
            where += f" AND r.kind = {CALL}"
        if qualified != short:
            # `A.f`: only the uses resolved to that definition, named whole or by the end
            # of its qualified name after a dot (`Utils.streamFor` for PHP's
            # `GuzzleHttp.Psr7.Utils.streamFor`), as `method()` finds it
            held = self.params.add(qualified)
            tail = dialect.ends_with("t.qualified_name", self.params.add("." + qualified))
            where += f" AND (t.qualified_name = {held} OR {tail})"
        item = item_sql.CALLER if function == "callers" else item_sql.REFERENCE
        return Source(item, item_sql.base_references(scope, where, dialect))

    def _importers(self, call: Call, scope: str) -> Source:
        dialect = self.params.dialect
        module = self._code_name(call)
        p = self.params.add(module)
        inside = " OR ".join(
            dialect.starts_with("m.module", self.params.add(module + sep))
            for sep in (".", "/", "::")
        )
        where = f"m.module = {p} OR {inside}"
        relative = self._relative_importers(module)
        if relative:
            where += f" OR ({relative})"
        return Source(item_sql.IMPORT, item_sql.base_imports(scope, where, dialect))

    def _relative_importers(self, module: str) -> str | None:
        """The condition on an import `m` written relative to its file that takes
        `module`: `from .helpers import url_for` and `from "../core/util.js"` for
        `flask.helpers` and `core/util`, `import * as util from "../core/util.js"`, `from
        . import helpers`. Its text ends with the module's last part (or it imports that
        part by name), and the index resolved a name it brought in to a definition in a
        file at `module`'s path (…/flask/helpers.py) or inside it: one of the names it
        imports (`refs` of kind import on its lines), or a name used through the alias or
        the module it binds (`util.clone(…)`, `helpers.url_for(…)`). An import none of
        whose names the index resolved is not found this way. None when `module` has no
        path."""
        path = _module_path(module)
        if not path:
            return None
        dialect = self.params.dialect
        last = path.rsplit("/", 1)[-1]
        held = "'/' || td.path"
        in_module = " OR ".join(
            dialect.contains(held, self.params.add(f"/{path}{end}")) for end in (".", "/")
        )
        named = self.params.add(json.dumps([last]))
        ends = " OR ".join(
            dialect.ends_with("m.module", self.params.add(last + end))
            for end in ("", ".js", ".ts", ".mjs", ".jsx", ".tsx")
        )
        brought = (
            f"(r.kind = {IMPORT} AND r.line BETWEEN m.line AND m.end_line) "
            f"OR r.qualifier = m.alias "
            f"OR (m.names = {named} AND r.qualifier = {self.params.add(last)})"
        )
        return (
            f"{dialect.starts_with('m.module', self.params.add('.'))} AND ({ends} OR m.names = "
            f"{named}) AND EXISTS (SELECT 1 FROM refs r JOIN symbols t ON t.id = r.target_id "
            f"JOIN documents td ON td.id = t.doc_id WHERE r.doc_id = m.doc_id AND ({brought}) "
            f"AND ({in_module}))"
        )


# A Python, Rust, Go, … source file's extension: `module_segments` keeps it (`a.b` is the
# module `a/b` there), but an `importers` argument may be a file's path.
_SOURCE_SUFFIX = re.compile(r"\.(?:py|pyi|rs|go|java|kt|cs)$")


def _module_path(module: str) -> str:
    """A module as the path of its files, without extension: `flask.helpers` and
    `src/flask/helpers.py` → `flask/helpers`, `src/flask/helpers`; `std::io` → `std/io`."""
    return "/".join(module_segments(_SOURCE_SUFFIX.sub("", module.strip())))


# -- substring tests, narrowed by the trigram tables (docs/design.md B35) -------------------
def title_contains(folded: str, param: str, params: Params) -> str:
    """SQL: section `s`'s folded title contains `folded` (bound as `param`); the titles
    that can are read from `sections_trigram` first when the needle has 3+ characters."""
    exact = params.dialect.contains("s.title_fold", param)
    match = trigram_query(folded) if params.dialect.TITLE_TRIGRAMS else None
    if match is None:
        return exact
    candidates = (
        f"s.id IN (SELECT rowid FROM sections_trigram WHERE sections_trigram MATCH "
        f"{params.add(match)})"
    )
    return f"{candidates} AND {exact}"


def chunk_candidates(needle: str, params: Params, *more: str) -> str | None:
    """SQL: chunk `c` may contain `needle` (its fold: the text `chunks_trigram` holds), and
    each of `more`, from the trigram table; None when the index has none or the needle
    is too short."""
    match = trigram_query(needle, *more) if params.dialect.chunk_trigrams else None
    if match is None:
        return None
    return (
        f"c.id IN (SELECT rowid FROM chunks_trigram WHERE chunks_trigram MATCH {params.add(match)})"
    )


def chunk_contains(keyword: str, params: Params) -> str:
    """SQL: chunk `c` contains `keyword`, case-insensitively (Unicode casefold).

    `c.fold` holds the text with its non-ASCII characters casefolded (NULL when that
    changes nothing) and LIKE ignores ASCII case, so `coalesce(c.fold, c.content) LIKE
    '%' || fold_non_ascii(kw) || '%'` is exactly `kw.casefold() in text.casefold()`,
    without the lower() copy of every chunk that instr() would need: 3-4x faster.
    With `chunks_trigram`, the LIKE runs on the candidate chunks only.
    """
    folded = fold_non_ascii(keyword)
    text = "coalesce(c.fold, c.content)"
    condition = params.dialect.like(text, params.add(like_pattern(folded)))
    candidates = chunk_candidates(folded, params)
    if candidates is not None:
        return f"{candidates} AND {condition}"
    rare = _rare_suffix(folded)
    if rare is not None:
        # LIKE '%kw%' costs about one comparison per occurrence of kw's first letter, so a
        # keyword starting with 'e' is slow. A suffix starting with a rarer letter is a sound
        # pre-filter (kw in text implies suffix in text) that rejects most chunks cheaply.
        rare_like = params.dialect.like(text, params.add(like_pattern(rare)))
        condition = f"{rare_like} AND {condition}"
    return condition


def _rare_suffix(keyword: str) -> str | None:
    """A suffix of `keyword` (4+ characters, so it is selective) starting with a clearly
    rarer letter than the keyword's first, if any."""
    positions = range(1, len(keyword) - 3)
    if not positions:
        return None
    best = max(positions, key=lambda i: (letter_rarity(keyword[i]), -i))
    return keyword[best:] if letter_rarity(keyword[best]) > letter_rarity(keyword[0]) + 2 else None


def unknown_name(
    kind: str, name: str, choices: dict[str, str] | list[str], source: str, offset: int
) -> DocQLNameError:
    hint = did_you_mean(name, choices)
    message = f"unknown {kind} '{name}'"
    message += f"; did you mean '{hint}'?" if hint else ""
    message += f"; {kind}s: {', '.join(choices)}" if not hint else ""
    return DocQLNameError(message, source=source, offset=offset, suggestion=hint)


def needs_function(owner: str, source: str, offset: int) -> DocQLSyntaxError:
    if owner == "content":
        listing = ", ".join(f"{f.name}({', '.join(f.params)})" for f in CONTENT_FUNCTIONS.values())
        return DocQLSyntaxError(
            f"$.content needs a function or a list: {listing}, codeblock, table",
            source=source,
            offset=offset,
        )
    listing = ", ".join(
        list(CODE_LISTS) + [f"{f.name}({', '.join(f.params)})" for f in CODE_FUNCTIONS.values()]
    )
    return DocQLSyntaxError(
        f"$.code needs a list or a function: {listing}", source=source, offset=offset
    )


_FIRST_WORD = re.compile(r"[A-Za-z_]\w*")


def as_docql(text: str) -> str | None:
    """The DocQL query `text` most likely meant when it lacks its `$`: `chapter("1.2")` →
    `$.content.chapter("1.2")`, `toc` → `$.toc`, `.files` → `$.files`,
    `callers("f")` → `$.code.callers("f")`; None for anything else (free text)."""
    text = text.strip()
    if text.startswith("."):
        return "$" + text
    word = _FIRST_WORD.match(text)
    if word is None or (len(text) > word.end() and text[word.end()] not in ".[("):
        return None
    name = word.group()
    if name in ROOTS:
        return "$." + text
    if name in CONTENT_FUNCTIONS or name in CONTENT_LISTS:
        return "$.content." + text
    if name in CODE_FUNCTIONS or name in CODE_LISTS:
        return "$.code." + text
    return None
