"""Item types (spec §1) and the SQL that lists them: the compiler's view of the schema.

Each item type names its fields, their kinds (text, number, list, json) and the SQL
expression that yields each one over a row `r` of the current stage. Base SELECTs
produce every visible field plus hidden helper columns:
`_doc` (document id), `_path`, `_pos` (position in the document), `_score` (ranked
results) and `_f_<field>` (casefolded text, where the index stores it).
"""

from __future__ import annotations

import functools

from ..dialect import SQLITE, Dialect
from ..records import Record, field, replace
from ..ref_codes import REFERENCE_KINDS, RESOLUTIONS


class FieldSpec(Record, frozen=True):
    name: str
    kind: str  # text | number | list | json
    expr: str = ""  # SQL over the stage row `r`; default r.<name>
    fold: str | None = (
        # SQL giving the Unicode-casefolded text, when the index stores it (else ASCII-only lower())
        None
    )
    # A trigram table over `fold` (docs/design.md B35) and the SQL of the row id it holds
    # for the stage row: `~=` reads the candidate rows from it before the exact test.
    trigrams: str | None = None
    trigram_rowid: str = ""

    @property
    def sql(self) -> str:
        return self.expr or f"r.{self.name}"


class ItemType(Record, frozen=True):
    name: str
    fields: tuple[FieldSpec, ...]
    open_fields: bool = False  # front matter: any key is a field
    aliases: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> FieldSpec | None:
        name = self.aliases.get(name, name)
        for spec in self.fields:
            if spec.name == name:
                return spec
        return None

    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]


def _t(name: str, fold: str | None = None, expr: str = "") -> FieldSpec:
    return FieldSpec(name, "text", expr, fold)


def _n(name: str, expr: str = "") -> FieldSpec:
    return FieldSpec(name, "number", expr)


_COMMON = (_t("type"), _t("path"))
_LOC = _t("location")


def range_text(dialect: Dialect) -> str:
    """The text of a line range, rebuilt from the chunks that tile the document."""
    return dialect.ordered_concat(
        "c2.content",
        "chunks c2 WHERE c2.doc_id = r._doc AND c2.line >= r.line AND c2.line <= r.end_line",
        "c2.chunk_index",
    )


# Where a symbol's source starts: its section's first line, which is the first line of
# what leads it (doc comment, decorators, attributes: `code_text.leading_block`), else
# its own line (an enum's member has no section). A chunk starts at that line, so the
# source holds the whole doc comment: taken from the chunk that holds the symbol's line,
# a doc comment longer than a passage gave only its last lines (Node's `fs.readFile`).
# The innermost section of that name ending where the symbol ends is its own (a class
# can end on its last method's line).
# (A one-row table in the FROM, so it is found once a symbol, not once a chunk: in the
# WHERE it was evaluated for every chunk of the document: `function("*")` on Go's `src/`
# took over 5 s instead of 0.3.)
_SOURCE_START = (
    "(SELECT coalesce((SELECT max(h.line) FROM sections h WHERE h.doc_id = r._doc"
    " AND h.end_line = r.end_line AND h.title = r.name AND h.line <= r.line), r.line)"
    " AS line LIMIT 1) src_start"
)


def symbol_source(dialect: Dialect) -> str:
    """A symbol's source: the chunks overlapping its lines and what leads them."""
    return dialect.ordered_concat(
        "c2.content",
        f"{_SOURCE_START} CROSS JOIN chunks c2 WHERE c2.doc_id = r._doc"
        " AND c2.end_line >= src_start.line AND c2.line <= r.end_line",
        "c2.chunk_index",
    )


def caller_source(dialect: Dialect) -> str:
    """The source of a reference's enclosing symbol: the chunks overlapping its lines."""
    return dialect.ordered_concat(
        "c2.content",
        "chunks c2 WHERE c2.doc_id = r._doc AND c2.end_line >= r._caller_line "
        "AND c2.line <= r._caller_end_line",
        "c2.chunk_index",
    )


def chunk_fold(dialect: Dialect) -> str:
    """A chunk's text casefolded: ASCII lower case of its non-ASCII-folded copy."""
    return dialect.ascii_lower("coalesce(r._fold, r.content)")


RANGE_TEXT = range_text(SQLITE)
SYMBOL_SOURCE = symbol_source(SQLITE)
CALLER_SOURCE = caller_source(SQLITE)

FILE = ItemType(
    "file",
    _COMMON
    + (
        _t("name"),
        _t("directory"),
        _t("extension"),
        _t("format"),
        _t("language"),
        _t("title"),
        _n("size"),
        _n("lines"),
        _n("pages"),
        _n("mtime"),
        _t("sha256"),
    ),
)
HEADING = ItemType(
    "heading",
    _COMMON
    + (
        _n("level"),
        _t("title", "r._f_title"),
        _t("number"),
        _t("anchor"),
        _n("line"),
        _n("end_line"),
        _n("page"),
        _LOC,
    ),
)
ENTITY = ItemType(
    "entity",
    _COMMON
    + (
        _t("entity_type"),
        FieldSpec(
            "name", "text", fold="r._f_name", trigrams="entities_trigram", trigram_rowid="r._ent"
        ),
        _t("signature"),
        _t("definition"),
        _n("line"),
        _n("end_line"),
        _LOC,
    ),
    aliases={"type": "entity_type"},
)
SECTION = ItemType(
    "section",
    _COMMON
    + (
        _t("title", "r._f_title"),
        _n("level"),
        _t("number"),
        _t("anchor"),
        _n("line"),
        _n("end_line"),
        _n("page"),
        _t("content", expr=RANGE_TEXT),
        _n("score"),
        _t("match"),
        _LOC,
    ),
)
CHUNK = ItemType(
    "chunk",
    _COMMON
    + (
        _t("section"),
        _t("number"),
        _t("content", chunk_fold(SQLITE)),
        _n("line"),
        _n("end_line"),
        _n("page"),
        _n("chunk_index"),
        _LOC,
    ),
)
GREP_CHUNK = ItemType("chunk", CHUNK.fields + (_n("hit_line"), _t("snippet")))
RANKED_CHUNK = ItemType("chunk", CHUNK.fields + (_n("score"), _t("snippet")))
CODEBLOCK = ItemType(
    "codeblock", _COMMON + (_t("language"), _t("code"), _n("line"), _n("end_line"), _LOC)
)
TABLE = ItemType(
    "table",
    _COMMON
    + (
        FieldSpec("headers", "list"),
        FieldSpec("rows", "json"),
        _n("row_count"),
        _n("column_count"),
        _n("line"),
        _n("end_line"),
        _LOC,
    ),
)
SYMBOL_FIELDS = _COMMON + (
    _t("kind"),
    FieldSpec("name", "text", fold="r._f_name", trigrams="symbols_trigram", trigram_rowid="r._sym"),
    _t("qualified_name"),
    _t("signature"),
    _t("language"),
    _t("parent"),
    _n("line"),
    _n("end_line"),
    _t("docstring"),
    _LOC,
)
SYMBOL = ItemType("symbol", SYMBOL_FIELDS)
SYMBOL_WITH_SOURCE = ItemType("symbol", SYMBOL_FIELDS + (_t("source", expr=SYMBOL_SOURCE),))
RANKED_SYMBOL = ItemType("symbol", SYMBOL_FIELDS + (_n("score"),))
REFERENCE_FIELDS = _COMMON + (
    _t("name"),
    _t("qualifier"),
    _t("kind"),
    _t("caller"),
    _t("caller_location"),
    _n("line"),
    _n("end_line"),
    _n("column", 'r."column"'),
    _LOC,
    _t("target"),
    _t("resolution"),
    _n("candidates"),
    _t("language"),
)
REFERENCE = ItemType("reference", REFERENCE_FIELDS)
# `callers()`: each call site with its caller's code, so "every caller of X and their
# code" is one query.
CALLER = ItemType("reference", REFERENCE_FIELDS + (_t("source", expr=CALLER_SOURCE),))
IMPORT = ItemType(
    "import",
    _COMMON
    + (
        _t("module"),
        FieldSpec("names", "list"),
        _t("alias"),
        _n("line"),
        _n("end_line"),
        _LOC,
        _t("language"),
    ),
)
FRONTMATTER = ItemType("frontmatter", _COMMON, open_fields=True)
PAGE = ItemType("page", _COMMON + (_n("page"), _t("content"), _n("line"), _n("end_line"), _LOC))
STRUCTURE = ItemType("structure", _COMMON + (_t("name"), _t("kind"), _n("depth"), _t("format")))

# Field expressions above that are spelled per dialect (the item types hold SQLite's).
_DIALECT_EXPRS = {
    RANGE_TEXT: range_text,
    SYMBOL_SOURCE: symbol_source,
    CALLER_SOURCE: caller_source,
    chunk_fold(SQLITE): chunk_fold,
}


def in_dialect(item: ItemType, dialect: Dialect) -> ItemType:
    """`item` with its field expressions spelled in `dialect` (`item` itself when they are
    spelled as the item types hold them: SQLite's)."""
    return _spelled(_ItemKey(item), dialect)


class _ItemKey:
    """An item type as a cache key: its name and fields (the record itself holds lists)."""

    __slots__ = ("item", "key")

    def __init__(self, item: ItemType) -> None:
        self.item = item
        self.key = item.name + repr(item.field_names)

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ItemKey) and other.key == self.key


@functools.lru_cache(maxsize=256)  # item types × dialects: a few dozen
def _spelled(key: _ItemKey, dialect: Dialect) -> ItemType:
    item = key.item

    def spelled(expr: str | None) -> str | None:
        builder = _DIALECT_EXPRS.get(expr or "")
        return builder(dialect) if builder else expr

    fields = tuple(
        replace(f, expr=spelled(f.expr) or "", fold=spelled(f.fold)) for f in item.fields
    )
    return item if fields == item.fields else replace(item, fields=fields)


def location(
    path: str, line: str, end_line: str, page: str | None = None, *, dialect: Dialect
) -> str:
    """SQL for the `location` field: `path:12-30`, `path:12` or `path:page 5`."""
    ranged = (
        f"CASE WHEN {end_line} > {line} THEN {line} || '-' || {end_line} "
        f"ELSE {dialect.text(line)} END"
    )
    if page is None:
        return f"{path} || ':' || {ranged}"
    return (
        f"{path} || ':' || CASE WHEN d.format = 'pdf' AND {page} IS NOT NULL "
        f"THEN 'page ' || {page} ELSE {ranged} END"
    )


def base_files(scope: str, dialect: Dialect) -> str:
    title_fold = dialect.ascii_lower("d.title")
    return f"""SELECT 'file' AS type, d.path AS path, d.name AS name, d.directory AS directory,
  d.extension AS extension, d.format AS format, d.language AS language, d.title AS title, d.size
  AS size,
  d.lines AS lines, d.pages AS pages, d.mtime AS mtime, d.sha256 AS sha256,
  d.id AS _doc, d.path AS _path, 0 AS _pos, NULL AS _score, {title_fold} AS _f_title
FROM documents d WHERE {scope}"""


def base_headings(scope: str, extra_where: str = "", *, dialect: Dialect) -> str:
    # Documents first, then each one's sections: rows in the outline's order, where the
    # engine lets a query fix the join order.
    join = dialect.documents_then_sections()
    return f"""SELECT 'heading' AS type, d.path AS path, s.level AS level, s.title AS title,
      s.number AS number,
  s.anchor AS anchor, s.line AS line, s.end_line AS end_line, s.page AS page,
  {location("d.path", "s.line", "s.end_line", "s.page", dialect=dialect)} AS location,
  d.id AS _doc, d.path AS _path, s.ord AS _pos, NULL AS _score, s.title_fold AS _f_title
FROM {join} WHERE {scope}{extra_where}"""


def base_sections(scope: str, score: str, match: str, where: str, dialect: Dialect) -> str:
    return f"""SELECT 'section' AS type, d.path AS path, s.title AS title, s.level AS level,
      s.number AS number,
  s.anchor AS anchor, s.line AS line, s.end_line AS end_line, s.page AS page, {score} AS score,
  {match} AS match,
  {location("d.path", "s.line", "s.end_line", "s.page", dialect=dialect)} AS location,
  s.doc_id AS _doc, d.path AS _path, s.ord AS _pos, {score} AS _score, s.title_fold AS _f_title
FROM sections s JOIN documents d ON d.id = s.doc_id WHERE {scope} AND ({where})"""


def chunk_columns(dialect: Dialect) -> str:
    """The columns of a chunk item over `chunks c`, `documents d`, `sections sec`."""
    return f"""'chunk' AS type, d.path AS path, sec.title AS section, sec.number AS number,
  c.content AS content, c.line AS line, c.end_line AS end_line, c.page AS page, c.chunk_index AS
  chunk_index,
  {location("d.path", "c.line", "c.end_line", "c.page", dialect=dialect)} AS location,
  c.doc_id AS _doc, d.path AS _path, c.chunk_index AS _pos, c.fold AS _fold,
  c.id AS _chunk"""


CHUNK_FROM = (
    "chunks c JOIN documents d ON d.id = c.doc_id LEFT JOIN sections sec ON sec.id = c.section_id"
)


def base_chunks(scope: str, dialect: Dialect) -> str:
    return f"SELECT {chunk_columns(dialect)}, NULL AS _score FROM {CHUNK_FROM} WHERE {scope}"


def base_entities(scope: str, dialect: Dialect) -> str:
    loc = location("d.path", "e.line", "e.end_line", dialect=dialect)
    return f"""SELECT 'entity' AS type, d.path AS path, e.entity_type AS entity_type, e.name AS
      name,
  e.signature AS signature, e.definition AS definition, e.line AS line, e.end_line AS end_line,
  {loc} AS location,
  e.doc_id AS _doc, d.path AS _path, e.ord AS _pos, NULL AS _score, e.name_fold AS _f_name,
  e.id AS _ent
FROM entities e JOIN documents d ON d.id = e.doc_id WHERE {scope}"""


def symbol_columns(score: str = "NULL", *, dialect: Dialect) -> str:
    loc = location("d.path", "y.line", "y.end_line", dialect=dialect)
    return f"""'symbol' AS type, d.path AS path, y.kind AS kind, y.name AS name, y.qualified_name
      AS qualified_name,
  y.signature AS signature, y.language AS language, y.parent AS parent, y.line AS line,
  y.end_line AS end_line,
  y.docstring AS docstring, {loc} AS location,
  y.doc_id AS _doc, d.path AS _path, y.ord AS _pos, {score} AS _score, y.name_fold AS _f_name,
  {dialect.ascii_lower("y.qualified_name")} AS _f_qualified_name, y.id AS _sym"""


def base_symbols(scope: str, where: str = "1", score: str = "NULL", *, dialect: Dialect) -> str:
    extra = f", {score} AS score" if score != "NULL" else ""
    return f"""SELECT {symbol_columns(score, dialect=dialect)}{extra}
FROM symbols y JOIN documents d ON d.id = y.doc_id WHERE {scope} AND ({where})"""


def code_names(column: str, names: tuple[str, ...]) -> str:
    """SQL naming a code column again: `refs` stores a kind or a resolution as its position
    in `names` (`ref_codes.REFERENCE_KINDS`, `ref_codes.RESOLUTIONS`; schema 11)."""
    cases = " ".join(f"WHEN {code} THEN '{name}'" for code, name in enumerate(names))
    return f"CASE {column} {cases} END"


# `refs.end_line` is NULL when it is `line` (schema 11).
REF_END_LINE = "coalesce(r.end_line, r.line)"


def base_references(scope: str, where: str, dialect: Dialect) -> str:
    """References (`refs r`) with their enclosing symbol (`cy`) and resolved target (`t`)."""
    loc = location("d.path", "r.line", REF_END_LINE, dialect=dialect)
    caller_loc = location("d.path", "cy.line", "cy.end_line", dialect=dialect)
    target = location("td.path", "t.line", "t.end_line", dialect=dialect)
    kind = code_names("r.kind", REFERENCE_KINDS)
    resolution = code_names("r.resolution", RESOLUTIONS)
    return f"""SELECT 'reference' AS type, d.path AS path, r.name AS name,
  r.qualifier AS qualifier, {kind} AS kind,
  cy.qualified_name AS caller,
  CASE WHEN cy.id IS NULL THEN NULL ELSE {caller_loc} END AS caller_location,
  r.line AS line, {REF_END_LINE} AS end_line, r.col AS "column", {loc} AS location,
  CASE WHEN t.id IS NULL THEN NULL ELSE {target} END AS target,
  {resolution} AS resolution, r.candidates AS candidates, d.language AS language,
  r.doc_id AS _doc, d.path AS _path, r.ord AS _pos, NULL AS _score,
  cy.line AS _caller_line, cy.end_line AS _caller_end_line
FROM refs r JOIN documents d ON d.id = r.doc_id
  LEFT JOIN symbols cy ON cy.doc_id = r.doc_id AND cy.ord = r.caller_ord
  LEFT JOIN symbols t ON t.id = r.target_id
  LEFT JOIN documents td ON td.id = t.doc_id
WHERE {scope} AND ({where})"""


def base_imports(scope: str, where: str, dialect: Dialect) -> str:
    loc = location("d.path", "m.line", "m.end_line", dialect=dialect)
    return f"""SELECT 'import' AS type, d.path AS path, m.module AS module, m.names AS names,
  m.alias AS alias, m.line AS line, m.end_line AS end_line, {loc} AS location,
  d.language AS language,
  m.doc_id AS _doc, d.path AS _path, m.ord AS _pos, NULL AS _score
FROM imports m JOIN documents d ON d.id = m.doc_id WHERE {scope} AND ({where})"""


def base_codeblocks(scope: str, dialect: Dialect) -> str:
    loc = location("d.path", "b.line", "b.end_line", dialect=dialect)
    return f"""SELECT 'codeblock' AS type, d.path AS path, b.language AS language, b.code AS
      code, b.line AS line,
  b.end_line AS end_line, {loc} AS location,
  b.doc_id AS _doc, d.path AS _path, b.ord AS _pos, NULL AS _score
FROM codeblocks_code b JOIN documents d ON d.id = b.doc_id WHERE {scope}"""


def base_tables(scope: str, dialect: Dialect) -> str:
    loc = location("d.path", "t.line", "t.end_line", dialect=dialect)
    return f"""SELECT 'table' AS type, d.path AS path, t.headers AS headers, t.rows AS rows,
      t.row_count AS row_count,
  t.column_count AS column_count, t.line AS line, t.end_line AS end_line,
  {loc} AS location,
  t.doc_id AS _doc, d.path AS _path, t.ord AS _pos, NULL AS _score
FROM tables t JOIN documents d ON d.id = t.doc_id WHERE {scope}"""


def base_frontmatter(scope: str) -> str:
    return f"""SELECT 'frontmatter' AS type, d.path AS path, f.data AS _data,
  f.doc_id AS _doc, d.path AS _path, 0 AS _pos, NULL AS _score
FROM frontmatter f JOIN documents d ON d.id = f.doc_id WHERE {scope}"""


def base_pages(scope: str, page_param: str, dialect: Dialect) -> str:
    content = dialect.concat_rows("c.content", "c.chunk_index")
    return f"""SELECT 'page' AS type, d.path AS path, c.page AS page, {content}
      AS content,
  min(c.line) AS line, max(c.end_line) AS end_line, d.path || ':page ' || c.page AS location,
  c.doc_id AS _doc, d.path AS _path, min(c.chunk_index) AS _pos, NULL AS _score
FROM (SELECT * FROM chunks ORDER BY doc_id, chunk_index) c JOIN documents d ON d.id = c.doc_id
WHERE {scope} AND c.page = {page_param}
{dialect.group_by("c.doc_id, c.page", "d.path")}"""


def base_structure(scope: str, dialect: Dialect) -> str:
    """The files in scope and every directory above them, one row each (a directory's path
    ends in '/'). Byte order of these paths is the tree's pre-order: '/' sorts before every
    other path character, so a directory comes right before its contents. Built in SQL (a
    recursive CTE over the paths) so filters and indexes see directories too."""
    slash = dialect.position("rest", "'/'")
    return f"""SELECT 'structure' AS type, t.path AS path, t.name AS name, t.kind AS kind,
      t.depth AS depth,
  t.format AS format, t._doc AS _doc, t.path AS _path, 0 AS _pos, NULL AS _score
FROM (
  SELECT d.path AS path, d.name AS name, 'file' AS kind,
    (length(d.path) - length(replace(d.path, '/', ''))) AS depth, d.format AS format, d.id AS _doc
  FROM documents d WHERE {scope}
  UNION ALL
  SELECT x.dir, x.name, 'directory', length(x.dir) - length(replace(x.dir, '/', '')) - 1, NULL, NULL
  FROM (WITH RECURSIVE dirs(dir, name, rest) AS (
      SELECT '', '', d.path FROM documents d WHERE {scope}
      UNION
      SELECT dir || substr(rest, 1, {slash}), substr(rest, 1, {slash} - 1),
             substr(rest, {slash} + 1)
      FROM dirs WHERE {slash} > 0)
    SELECT DISTINCT dir, name FROM dirs WHERE dir != '') x
) t"""
