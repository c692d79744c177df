"""The name lists of smart search: passages holding a code symbol, a heading or an
entity whose name is the query (or, for short queries, contains it).

Names first (a small, materialized list), then their passages. In code files headings
and entities repeat the symbols (spec §1): a class counts once, in the symbols list.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from ..passage_text import nothing_to_embed
from ..path_kinds import is_test
from ..query import items as item_sql
from ..query.functions import trigram_query
from ..sqlparams import Params
from ..text import fold
from . import ranking, stats, symbol_names
from . import terms as search_terms
from .query_names import QueryNames, content_key

if TYPE_CHECKING:
    from ..store import Store


class NameList(NamedTuple):
    """One name list: its name in the fusion, and the table and column of the names."""

    name: str
    table: str
    alias: str
    column: str


NAME_LISTS = (
    NameList("symbols", "symbols", "y", "name_fold"),
    NameList("headings", "sections", "s", "title_fold"),
    NameList("entities", "entities", "e", "name_fold"),
)


def _typed_names(terms: list[search_terms.Term]) -> list[str]:
    """The query's words written with punctuation and a letter or digit (`-C`, `--all`,
    `:s`, `'tabstop'`, `i_CTRL-R`, `dgram.Socket`): names an entity may bear as typed. Not
    a word whose only marks are a sentence's end or an apostrophe (`list?`, `R's`)."""
    return sorted(t.text for t in terms if not t.negated and _typed(t.text))


# A number, a version: `9.1`, `1.2.13`, `v2.40`, `3,5`. No name typed: "what's new in
# coreutils 9.1" put base-files' changelog entry first, the one entity of the index
# named `9.1` (a Debian changelog's version Term).
_NUMBER = re.compile(r"v?\d+(?:[.,]\d+)+", re.IGNORECASE)


def _typed(text: str) -> bool:
    if _NUMBER.fullmatch(text):
        return False
    marks = {c for c in text if not c.isalnum() and not c.isspace()}
    if not marks or not any(c.isalnum() for c in text):
        return False
    if marks <= set(".,;:?!") and text.rstrip(".,;:?!") and text.rstrip(".,;:?!").isalnum():
        return False  # `list?`, `done.`
    quoted = len(text) > 2 and text[0] == text[-1] == "'"
    return not (marks == {"'"} and not quoted)  # `R's`, `doesn't`; not `'tabstop'`


def rows(
    store: Store,
    name_list: NameList,
    terms: list[search_terms.Term],
    names: QueryNames,
    paths: tuple[str, ...],
    depth: int,
) -> list[dict[str, Any]]:
    """Chunks holding a symbol / heading / entity whose name matches; exact > prefix > contains.

    A name *containing* the query counts only for short queries (`QueryNames.contain`):
    in a pasted sentence every common word is inside some name.
    """
    table, alias, name_col = name_list.table, name_list.alias, name_list.column
    params = Params(store.dialect)
    dialect = params.dialect
    scope = ranking.scope_sql(store, paths, params)
    # Code symbols are named only by strong names: a symbol called after one plain word of
    # a question (`def handle`) is what the code-words channel weighs, by its share.
    equal = [
        n for n in names.equal if table != "symbols" or n in names.strong or n in names.spelled
    ]
    contain = names.contain
    # Headings a question names by a run of its words (`QueryNames.phrases`), as titles
    # equal to the query's, each with its share of the query.
    named = _phrase_titles(store, names) if table == "sections" else {}
    if table == "sections" and names.phrases:
        named.update(
            (title, share)
            for title, share in _phrase_page_titles(store, names).items()
            if share > named.get(title, 0.0)
        )
    equal += [title for title in named if title not in equal]
    if not equal and not contain:
        return []
    col = f"{alias}.{name_col}"
    conds, exact, prefix = [], [], []
    # A symbol keeps its own spelling (`_match`): the query's capitals tell `Config` from
    # `config` (`QueryNames.case_share`); the exact spelling is the first tier.
    spelled = f"{alias}.name" if table == "symbols" else col
    if table == "symbols" and names.cased:
        cased = ", ".join(params.add(name) for name in sorted(names.cased))
        exact.append(f"WHEN {spelled} IN ({cased}) THEN 4")
    typed_names = _typed_names(terms)
    if table == "entities" and typed_names:
        # A name written with its punctuation is case-sensitive: "tar -C" asks for `-C`
        # (change directory), not the `-c` (create) its folded name also equals; Vim's
        # `:s` or `'tabstop'` is that tag.
        typed = ", ".join(params.add(name) for name in typed_names)
        exact.append(f"WHEN {alias}.name IN ({typed}) THEN 4")
    equal_params = [params.add(name) for name in equal]
    if equal_params:
        # One IN list, not an OR of equalities: the scan of every name then probes one
        # small index per row instead of comparing a dozen strings (a 10-word passage
        # gives 14 spellings): the headings list 3.0 → 1.8 ms on the 10 MB mix.
        conds.append(f"{col} IN ({', '.join(equal_params)})")
    for p in equal_params:
        exact.append(f"WHEN {col} = {p} THEN 3")
    for name in contain:
        p = params.add(name)
        conds.append(dialect.contains(col, p))
        prefix.append(f"WHEN {dialect.starts_with(col, p)} THEN 2")
    if table == "symbols" and names.kinded:
        # "class Session": the symbol of that name, as typed, and of that kind
        for name, kinds in names.kinded:
            kind_list = ", ".join(params.add(k) for k in kinds)
            named_kind = f"({alias}.name = {params.add(name)} AND {alias}.kind IN ({kind_list}))"
            conds.append(named_kind)
            exact.insert(0, f"WHEN {named_kind} THEN {NAMED_SYMBOL_TIER}")
    if table == "sections" and names.qualified:
        # `ArrayUtils.contains`: a heading of its last name in a page whose file or folder
        # the part before it names, as for a symbol: a reference page per class (Javadoc's
        # `ArrayUtils.html` and its `contains` overloads, whose source listings under
        # `src-html/` came first)
        last, parent = names.qualified
        cond = f"({col} = {params.add(last)} AND {ranking.named_by_path('d.path', parent, params)})"
        conds.append(cond)
        exact.insert(0, f"WHEN {cond} THEN 3")
    if table == "entities" and names.qualified:
        # `Environment.get_template`: an API named with its package before it too
        # (Sphinx's `jinja2.Environment.get_template`), as a name written with its
        # punctuation is (tier 4: the one such entity is the look-up's answer), not as
        # one that merely holds the query (a passage quoting `Environment.get_template()`
        # came first, the entry 8th)
        last, parent = names.qualified
        cond = dialect.ends_with(col, params.add(f".{parent}.{last}"))
        conds.append(cond)
        exact.append(f"WHEN {cond} THEN 4")
        # ... or the API of its last name in the page its class names, as a heading
        # (rustdoc's `pub fn retain<F>(&mut self, f: F) where …` in `struct.Vec.html`:
        # "Vec::retain" ranked `BinaryHeap`'s and `VecDeque`'s first)
        in_page = (
            f"({col} = {params.add(last)} AND {ranking.named_by_path('d.path', parent, params)})"
        )
        conds.append(in_page)
        exact.append(f"WHEN {in_page} THEN 4")
    if table == "entities" and names.spelled:
        # ... and a C library's API of that name after its prefix: "how do I create a
        # window" names SDL's `SDL_CreateWindow` (Doxygen's entry; before: the test
        # library's `SDLTest_CommonQuit` first, the function not in the first five)
        for name in sorted(names.spelled):
            cond = dialect.ends_with(col, params.add(f"_{name}"))
            conds.append(cond)
            exact.append(f"WHEN {cond} THEN 4")
    if table == "entities" and names.mentioned:
        # "AsyncResult.get timeout": the API entry of each qualified name of a short query,
        # named with its package before it (Sphinx's `celery.result.AsyncResult.get`), as
        # a name written with its punctuation (before: no entity, the entry 4th behind
        # passages saying "get" and "timeout")
        for suffix in names.mentioned_suffixes:
            cond = dialect.ends_with(col, params.add(suffix))
            conds.append(cond)
            exact.append(f"WHEN {cond} THEN 4")
    if table == "symbols" and names.qualified:
        # `django.middleware.csrf.CsrfViewMiddleware`: the symbols of its last name whose
        # folder or file (`…/csrf.py`, `lib/fs.js`) or parent (`QuerySet.filter`) is the
        # part before it, as an exact match.
        cond = _qualified_symbol(names.qualified, col, params)
        conds.append(cond)
        # The member of the class the part before names (`NAMED_SYMBOL_TIER`).
        member = _member_of_class(names.qualified, col, params)
        if names.qualified_spelling:  # typed with a capital: that spelling
            spelling = params.add(names.qualified_spelling)
            member = f"({member} AND {spelled} = {spelling})"
            # ... and of the symbols its path names, those so spelled first: "what is
            # anyhow::Error" is the struct `Error`, not `ErrorImpl::error`
            exact.insert(0, f"WHEN {cond} AND {spelled} = {spelling} THEN {SPELLED_TIER}")
        exact.insert(0, f"WHEN {member} THEN {NAMED_SYMBOL_TIER}")
        exact.append(f"WHEN {cond} THEN 3")
    # "HashMap resize": the member of the class two words name (`QueryNames.members`),
    # an exact match that stands for both words (`_phrase` 1.0, as a heading the whole
    # question names)
    pair = "0"
    if table == "symbols" and names.members:
        pair = " OR ".join(_member_of_class(member, col, params) for member in names.members)
        pair = f"({pair})"
        conds.append(pair)
        exact.insert(0, f"WHEN {pair} THEN 5")
        pair = f"CASE WHEN {pair} THEN 1 ELSE 0 END"
    scope_names, scope_chunks = scope, dialect.TRUE
    if table == "sections":
        # In code files headings repeat the symbols (spec §1): a class counts once, in
        # the symbols channel. A code file's heading over no symbol is its manual's: a
        # Perl module's POD (`=head2 request_timeout`, an attribute no sub defines).
        scope_names += (
            f" AND (d.format != 'code' OR NOT EXISTS (SELECT 1 FROM symbols y WHERE "
            f"y.doc_id = {alias}.doc_id AND y.line BETWEEN {alias}.line AND {alias}.end_line))"
        )
    elif table != "symbols":
        scope_names += " AND d.format != 'code'"  # (an entity repeats its symbol)
    negated = [t for t in terms if t.negated]
    if negated:
        scope_chunks = _outside(negated, params)
    where = " OR ".join(conds)
    looked_up = equal + ([names.qualified[0]] if names.qualified else [])
    if table == "entities":
        looked_up += [suffix[1:] for suffix in names.mentioned_suffixes]
    if table == "symbols":
        looked_up += [member for member, _ in names.members]
    narrowed = _candidates(store, table, looked_up, contain, params)
    if narrowed is not None:
        where = f"{narrowed} AND ({where})"
    tier = "CASE " + " ".join(exact + prefix) + " ELSE 1 END"
    # A heading repeated in its document ("Preview style" under each of a changelog's 30
    # releases, "Returns" under each function) names none of those sections in
    # particular: of equal tiers, the titles a document uses once come first (the docs'
    # own "Preview style" page was 29th, after the changelog's, in path order).
    repeats = f"count(*) OVER (PARTITION BY {alias}.doc_id, {col})" if table == "sections" else "1"
    if table == "symbols":
        # Of one name defined again in its file, the last first: Python's and
        # TypeScript's implementation after its `@overload` signatures, a C function's
        # body after its prototype, the definition Python keeps (SQLAlchemy's
        # "Connection.execute" showed two body-less `@overload` stubs before the method).
        repeats = (
            f"row_number() OVER (PARTITION BY {alias}.doc_id, {alias}.qualified_name "
            f"ORDER BY {alias}.line DESC)"
        )
    # Of equal tiers, the names in a document the query names by another of its words
    # come first: "ssh -L" asks for ssh(1)'s `-L`, not the 30 other pages' (in path
    # order `[.1.gz`, the test command's, was first); "tar -C" tar's.
    stems = sorted({t.needle for t in terms if not t.negated and not t.is_stopword})
    own = "0"
    if len(stems) > 1:
        dot = dialect.position("d.name || '.'", "'.'")
        stem = dialect.ascii_lower(f"substr(d.name, 1, {dot} - 1)")
        listed = ", ".join(params.add(w) for w in stems)
        own = f"CASE WHEN {stem} IN ({listed}) AND {stem} != {col} THEN 1 ELSE 0 END"
    kind = f"{alias}.entity_type" if table == "entities" else "NULL"
    # a document's first heading: its title's (`ref/forms/index.txt`'s "Forms")
    first = f"CASE WHEN {alias}.ord = 0 THEN 1 ELSE 0 END" if table == "sections" else "0"
    # Names first (a small, materialized list), then their passages: letting the planner
    # start from the chunks made this 100x slower on big indexes.
    sql = f"""WITH named AS MATERIALIZED (
  SELECT {alias}.doc_id AS doc_id, {alias}.line AS line, {spelled} AS name, {tier} AS tier,
  d.path AS path, {repeats} AS repeats, {pair} AS pair, {own} AS own, {kind} AS kind,
  {first} AS first
  FROM {table} {alias} JOIN documents d ON d.id = {alias}.doc_id
  WHERE ({where}) AND {scope_names}
  ORDER BY tier DESC, pair DESC, own DESC, repeats, length({col}), {dialect.sort_key("d.path")},
  {alias}.line
  LIMIT {int(depth)})
SELECT {item_sql.chunk_columns(dialect)}, n.tier AS _tier, n.name AS _match, n.pair AS _pair,
  n.own AS _own, n.kind AS _kind, n.first AS _first, n.line AS _name_line
FROM named n JOIN chunks c ON c.doc_id = n.doc_id AND c.line <= n.line AND c.end_line >= n.line
JOIN documents d ON d.id = c.doc_id LEFT JOIN sections sec ON sec.id = c.section_id
WHERE {scope_chunks}
ORDER BY n.tier DESC, n.pair DESC, n.own DESC, n.repeats, length(n.name),
  {dialect.sort_key("n.path")}, c.chunk_index"""
    found = store.rows(sql, params.values)
    if table == "symbols" and names.spelled:
        # a task's words spelled as a name: the function that does it, not a test of it
        found = [
            r for r in found if fold(r["_match"]) not in names.spelled or not is_test(r["_path"])
        ]
    if table == "sections" and equal:
        found = _with_titled_pages(found, _titled_pages(store, equal, paths, negated))
    # a name written with its punctuation that one entity of the index bears, as typed
    # (at the same line of another file it is a copy: rustdoc's page of a re-export path)
    unique = Counter(
        r["_match"]
        for r in {(r["_match"], r.get("_name_line")): r for r in found}.values()
        if r["_tier"] >= 4 and r["_match"][:1] != "-"
    )
    # A heading more pages bear than PAGES_OF_A_TITLE names none of them in particular,
    # as such a page title (`_page_titles`): git's 170 manual pages each end with "GIT"
    # ("Part of the git(1) suite"), which filled the list for "git" before git(1). But
    # the first heading of a page, its title, names that page (Django's "Forms" page).
    pages_of: Counter[str] = Counter()
    if table == "sections":
        pages_of.update(
            title for title, _ in {(r["_match"], r["_doc"]) for r in found if not r.get("_page")}
        )
    out = []
    for r in found:
        share = named.get(r["_match"])
        if r["_tier"] == NAMED_SYMBOL_TIER:
            # the member a qualified query names is the look-up's answer
            out.append(dict(r, _weight=NAMED_SYMBOL_WEIGHT))
        elif r.get("_page") and names.words == 1:
            # ... and so is the page a query of one name names, with the bonus of a name
            # that stands for the whole query (`grep`: grep(1), not the ENVIRONMENT section
            # of xzgrep(1) that says GREP eight times; `curl_easy_setopt`: its page, not a
            # guide's prototype of it)
            out.append(dict(r, _weight=NAMED_SYMBOL_WEIGHT, _pair=1))
        elif r["_pair"]:  # a class's member both words name: as strong as an identifier
            out.append(dict(r, _weight=1.0))
        elif r["_own"] and r["_tier"] >= 3 and table != "symbols" and r["_match"][:1] == "-":
            # a page's option both words name ("ssh -L": ssh(1)'s `-L`), as a class's
            # member (options only: a Django page's heading a "where is X explained"
            # question named by another word moved djwhere's MRR@10 .929 → .894)
            out.append(dict(r, _weight=1.0, _pair=1))
        elif r["_tier"] >= 4 and table == "entities" and unique.get(r["_match"]) == 1:
            # the one entity a name so written names (Vim's `:s`, `'tabstop'`: `:help`
            # jumps there) answers the query as a class's member both words name does;
            # an API a query of that one name names (SQLite's `sqlite3_prepare_v2`, whose
            # reference page shows its prototype) is the look-up's answer, as the member
            # a qualified query names. Not a term: SQLite's 2.x page's list of result
            # codes is no better than the current page's section "(5) SQLITE_BUSY"; nor
            # one name of several ("fs.watch caveats" asks for the caveats).
            weight = NAMED_SYMBOL_WEIGHT if r["_kind"] == "API" and names.words == 1 else 1.0
            out.append(dict(r, _weight=weight, _pair=1))
        elif share is None:
            weight = names.weight(r["_match"], code=table == "symbols")
            if table == "symbols" and r["_tier"] <= 2:  # a name holding the query, longer
                weight *= names.parts_share(r["_match"])
            out.append(dict(r, _weight=weight))
        else:  # the composite score's name bonus reads `_phrase` (fusion.describe)
            out.append(dict(r, _weight=max(share, names.weight(r["_match"])), _phrase=share))
    if table == "sections" and max(pages_of.values(), default=0) > PAGES_OF_A_TITLE:
        out = [
            dict(r, _weight=r["_weight"] * PAGES_OF_A_TITLE / pages_of[r["_match"]])
            if pages_of[r["_match"]] > PAGES_OF_A_TITLE
            and not r.get("_page")
            and not r.get("_first")
            else r
            for r in out
        ]
    if table == "symbols" and any(r["_pair"] for r in out):
        # "HashMap resize" names `HashMap.resize`: a symbol one of the two words names
        # (the class, its eight constructors) answers one word of the query, as a plain
        # word's name does (its weight and name bonus shared: `fusion.describe`)
        share = 1.0 / max(1, names.words)
        out = [
            r if r["_pair"] else dict(r, _weight=min(r["_weight"], share), _one_word=True)
            for r in out
        ]
    if table == "symbols" and names.qualified and any(r["_tier"] >= 3 for r in out):
        # A query that is one qualified name asks for that symbol: a symbol that only
        # holds a part of it (`arg_required_else_help` for `Arg::required`) is not it.
        out = [r for r in out if r["_tier"] >= 3]
        if any(r["_tier"] >= NAMED_SYMBOL_TIER for r in out):
            # ... and when the class it names has that member, a symbol of that name
            # that is only in a file or folder so named is not it either.
            out = [r for r in out if r["_tier"] >= NAMED_SYMBOL_TIER]
    return out


# The first chunks of a page the first passage of its opening is looked for in: the
# blank one between Docker's front matter and its text, a comment, then its text.
PAGE_OPENING_CHUNKS = 4


def _titled_pages(
    store: Store, equal: list[str], paths: tuple[str, ...], negated: list[search_terms.Term]
) -> list[dict[str, Any]]:
    """The opening passage of each page (not code) whose title is one of `equal` (folded
    names) and whose first heading has no such name: a page titled by its front matter
    (`title:` in Mintlify's, Docusaurus', Hugo's and Starlight's pages, which show it as
    the page's heading and have no `#` line of their own) or by an HTML `<h1>` above its
    Markdown. Its title is the heading of its opening: FastMCP's "what is tool
    transformation" listed five methods named `*_tool_transformation` and the changelog's
    "### Tool Transformation" before the page so titled, which no list held.

    A row a heading of that name gives: tier 3 (`rows`), `_match` the name the query
    has (a manual page's `chmod(1)` is named `chmod`: `_MANUAL_PAGE`)."""
    titles = _page_titles(store)
    # each page's name the query has (`tar` for the page titled `tar(1)`)
    named = {doc: name for name in equal for doc in titles.get(name, ())}
    doc_ids = sorted(named)
    if not doc_ids:
        return []  # (most searches: no SQL)
    params = Params(store.dialect)
    dialect = params.dialect
    ids = ", ".join(str(doc) for doc in doc_ids)
    folded = ", ".join(params.add(n) for n in equal)
    scope = ranking.scope_sql(store, paths, params)
    outside = _outside(negated, params) if negated else dialect.TRUE
    sql = f"""SELECT {item_sql.chunk_columns(dialect)}
FROM chunks c JOIN documents d ON d.id = c.doc_id LEFT JOIN sections sec ON sec.id = c.section_id
WHERE c.doc_id IN ({ids}) AND c.chunk_index < {PAGE_OPENING_CHUNKS} AND {scope} AND {outside}
AND NOT EXISTS (SELECT 1 FROM sections s WHERE s.doc_id = d.id AND s.ord = 0
  AND s.title_fold IN ({folded}))
ORDER BY {dialect.sort_key("d.path")}, c.chunk_index"""
    out, seen = [], set()
    for row in store.rows(sql, params.values):
        if row["_doc"] in seen or nothing_to_embed(row["content"]):
            continue  # no passage (the blank line after the front matter), a comment alone
        seen.add(row["_doc"])
        out.append(
            dict(row, _tier=3, _match=named[row["_doc"]], _pair=0, _own=0, _kind=None, _page=1)
        )
    return out


def _outside(negated: list[search_terms.Term], params: Params) -> str:
    """The condition on chunks `c` that hold none of the `negated` terms."""
    neg = params.add(params.dialect.any_of(negated))
    return f"c.id NOT IN ({params.dialect.ids_matching(neg)})"


# A title more pages bear than this names none of them: a site's name over each page
# (every page of Fastify's docs opens with `<h1 align="center">Fastify</h1>`, its title),
# a generator's "index".
PAGES_OF_A_TITLE = 4


# A manual page's title, `name(section)` (`chmod(1)`, `printf(3p)`): the page is named by
# its command, as `man chmod` finds it. Among 17,931 pages of man1 "chmod" found curl's
# OPTIONS and chmod's SYNOPSIS, "ls" git-fast-import's `ls` heading first.
_MANUAL_PAGE = re.compile(r"([^\s()]+)\(\d\w*\)")
# rustdoc's title of an item's page, `RwLock in std::sync - Rust`: named by the item, as
# its search finds it ("what is a RwLock" ranked three `impl` headings and `fn default()
# -> RwLock<T>` above the page's top).
_RUSTDOC_PAGE = re.compile(r"([\w!]+)(?: in [\w:]+)? - rust")  # a primitive's: `slice - Rust`


def _page_titles(store: Store) -> dict[str, tuple[int, ...]]:
    """Each folded title of the documents that are not code → their ids, for the titles
    at most PAGES_OF_A_TITLE documents bear (read once per version of the index: a search
    then reads no document it does not name)."""

    def compute() -> dict[str, tuple[int, ...]]:
        ids, titles, contents = stats.columns(
            store,
            ["d.id", "d.title", "d.sha256"],
            "FROM documents d WHERE d.format != 'code' AND d.title IS NOT NULL",
            "d.id",
            any_order=True,
        )
        found: dict[str, list[int]] = {}  # title → the rows of its documents
        for row, title in enumerate(titles):
            folded = fold(title)
            found.setdefault(folded, []).append(row)
            if "(" in folded or folded.endswith(" - rust"):
                page = _MANUAL_PAGE.fullmatch(folded) or _RUSTDOC_PAGE.fullmatch(folded)
                if page is not None:  # `chmod(1)`: `chmod`'s page too
                    found.setdefault(page[1], []).append(row)
        # (copies are one page: grep.1, egrep.1, fgrep.1; sets only where they can matter)
        return {
            title: tuple(int(ids[row]) for row in rows)
            for title, rows in found.items()
            if len(rows) <= PAGES_OF_A_TITLE
            or len({contents[row] for row in rows}) <= PAGES_OF_A_TITLE
        }

    return cast(dict, stats.cached(store, ("page_titles",), compute))


def _phrase_page_titles(store: Store, names: QueryNames) -> dict[str, float]:
    """The page titles (`_page_titles`) made of a run of the query's content words, in
    its order or another, each with that run's share, as `_phrase_titles` finds headings:
    SQLite's statement pages are titled "ATTACH DATABASE" in their `<title>` alone (the
    banner that shows it is the site's chrome, no heading), and "how do I attach a
    database" ranked DETACH's page first and ATTACH's 6th."""
    by_key = _page_title_keys(store)
    found: dict[str, float] = {}
    for key, share in names.phrases.items():
        in_order = by_key.get(key, ())
        any_order = by_key.get(" ".join(sorted(key.split())), ())
        for title in in_order + tuple(t for t in any_order if _keeps_compounds(t, names)):
            found[title] = max(found.get(title, 0.0), share)
    return found


def _page_title_keys(store: Store) -> dict[str, tuple[str, ...]]:
    """The titles of `_page_titles` by their content words (`content_key`), in their
    order and sorted (read once per version of the index)."""

    def compute() -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {}
        for title in _page_titles(store):
            if _CODE_MARKS.search(title):
                continue  # (a name's page: `chmod(1)`, `slice - rust`: the names list's)
            key = content_key(title)
            if not key:
                continue
            for k in {key, " ".join(sorted(key.split()))}:
                out.setdefault(k, []).append(title)
        return {k: tuple(v) for k, v in out.items()}

    return cast(dict, stats.cached(store, ("page_title_keys",), compute))


def _with_titled_pages(
    found: list[dict[str, Any]], pages: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """`found` (ordered by tier) with `pages` before its first row of tier 3 or lower: a
    page titled by the name is about it as a whole, a heading of that name one section.
    A passage already listed for a heading of that name stays where it is; one listed
    for a heading that only holds the name is the page's now (rustdoc's `RwLock in
    std::sync - Rust` opens with "Struct std::sync::RwLock": its passage was a heading
    holding the name, three `impl RwLock<T>` headings beside it)."""
    listed = {r["_chunk"] for r in found if r["_tier"] >= 3}
    pages = [p for p in pages if p["_chunk"] not in listed]
    if not pages:
        return found
    taken = {p["_chunk"] for p in pages}
    found = [r for r in found if r["_chunk"] not in taken]
    at = next((i for i, r in enumerate(found) if r["_tier"] <= 3), len(found))
    return found[:at] + pages + found[at:]


def _phrase_titles(store: Store, names: QueryNames) -> dict[str, float]:
    """The folded titles of headings made of a run of the query's content words
    (`QueryNames.phrases`), each with that run's share of the query.

    Every run holds more than half of the query's terms, so the middle ones are in all of
    them: a candidate title holds each of those words (their trigrams, where the index
    has them) and is not much longer than the longest run (stopwords and punctuation);
    `content_key` then compares its words with the runs'. On the 279 MB index the longest
    word of each run alone gave thousands of candidates ("default": 7.6 ms a search on
    average, 197 at most)."""
    if not names.phrases:
        return {}
    keys = [key.split() for key in names.phrases]
    core = sorted(set(keys[0]).intersection(*keys[1:]), key=lambda w: (-len(w), w))
    if not core or len(core[0]) < 3:
        return {}  # no word of 3+ characters in every run: too common to look up
    params = Params(store.dialect)
    longest = max(len(key) for key in names.phrases)
    if params.dialect.TITLE_TRIGRAMS:
        grams = trigram_query(core[0], *core[1:])
        if grams is None:
            return {}
        match = params.add(grams)
        where = f"s.id IN (SELECT rowid FROM sections_trigram WHERE sections_trigram MATCH {match})"
    else:
        where = " AND ".join(
            params.dialect.contains("s.title_fold", params.add(word)) for word in core
        )
    # Not in code files, as the headings list (their headings repeat the symbols).
    sql = (
        f"SELECT DISTINCT s.title_fold AS title FROM sections s JOIN documents d "
        f"ON d.id = s.doc_id WHERE {where} AND d.format != 'code' "
        f"AND length(s.title_fold) <= {2 * longest + TITLE_SLACK}"
    )
    # A prose title in any order of the run's words: "how to make an option required"
    # names commander's "Required option" (4th before, behind `argRequired`'s code).
    by_words: dict[str, float] = {}
    for key, run_share in names.phrases.items():
        words = " ".join(sorted(key.split()))
        by_words[words] = max(by_words.get(words, 0.0), run_share)
    found: dict[str, float] = {}
    for row in store.rows(sql, params.values):
        title = row["title"]
        if not title:
            continue
        key = content_key(title)
        share = names.phrases.get(key)
        if share is None and not _CODE_MARKS.search(title) and _keeps_compounds(title, names):
            share = by_words.get(" ".join(sorted(key.split())))
        if share is not None:
            found[title] = share
    return found


def _keeps_compounds(title: str, names: QueryNames) -> bool:
    """Whether a (folded) title holds each hyphenated word of the query as written, as
    a title the query names in another order of its words must: "many-to-one
    relationships" does not name Django's "One-to-many relationships" ("path to watch",
    no compound, names Node's `--watch-path`)."""
    return all(compound in title for compound in names.compounds)


# A title written as code (`stream.destroy(error)`, `fs_read`) is a name, whose words'
# order is its own: "destroy stream error" names the sibling whose text holds it, not
# that heading (tests/test_search_evidence.py).
_CODE_MARKS = re.compile(r"[._()\[\]<>/#$:`=]")


# Characters a title may have beyond twice its words' ("The", "What is", backticks, `()`).
TITLE_SLACK = 16


# The tier of a symbol the query names outright: the member of the class a qualified
# query names (`Session.merge`), or a name given with its kind ("class Session",
# `QueryNames.kinded`): above a name the query spells as typed (4), below a class's
# member two words name (5). When a qualified query has one, the symbols only in a file
# or folder so named leave the list (`rows`): on SQLAlchemy "Session.merge" found
# `AsyncSession.merge` (in `ext/asyncio/session.py`, its docstring naming
# `Session.merge`) before the method.
NAMED_SYMBOL_TIER = 4.5
# A symbol a qualified name's path names, spelled as the query's last part is (`Error`
# of anyhow's `anyhow::Error`, beside its `error` functions): above the path's other
# symbols of that name (3), below a name the query spells as typed (4).
SPELLED_TIER = 3.5
# ... and it counts twice in the list, as a selective exact match counts in the exact
# list (`evidence.EXACT_WEIGHT`; a sibling channel, so not imported from there).
NAMED_SYMBOL_WEIGHT = 2.0


def _qualified_symbol(qualified: tuple[str, str], col: str, params: Params) -> str:
    """The condition on a symbol (`y`, its document `d`) named like the last part of a
    qualified name whose folder, file stem or parent is the part before it. A folder
    named `{parent}-…` counts: an unpacked release (`clap-4.0.32/`, `flask-3.1.0/`)
    holds the package `clap::Arg` and `flask.Flask` name."""
    last, parent = qualified
    dialect = params.dialect
    held = dialect.ascii_lower("coalesce(y.qualified_name, '')")
    q = params.add(f"{parent}.{last}")
    return (
        f"({col} = {params.add(last)} AND ({ranking.named_by_path('d.path', parent, params)} "
        f"OR {held} = {q} OR {dialect.ends_with(held, params.add(f'.{parent}.{last}'))}))"
    )


def _member_of_class(member: tuple[str, str], col: str, params: Params) -> str:
    """The condition on a symbol (`y`) that is the member `member[0]` of a class (or
    type) `member[1]`: its qualified name ends with `class.member`. Not a folder's or a
    file's, as for a qualified name (`_qualified_symbol`): "Does Django scale?" names no
    `scale` of the `django/` package."""
    name, parent = member
    dialect = params.dialect
    held = dialect.ascii_lower("coalesce(y.qualified_name, '')")
    return (
        f"({col} = {params.add(name)} AND ({held} = {params.add(f'{parent}.{name}')} OR "
        f"{dialect.ends_with(held, params.add(f'.{parent}.{name}'))}))"
    )


def _candidates(
    store: Store, table: str, equal: list[str], contain: list[str], params: Params
) -> str | None:
    """A condition that every row of `table` whose name is one of `equal` or contains
    one of `contain` meets, answered from an index instead of a scan of every name
    (None: scan).

    Headings: their title trigrams (~50 → 4–11 ms a search on the 279 MB index). Symbols:
    the code-words channel's names in memory, which smart search reads anyway (~40 → 5–25
    ms). Entities: their name trigrams (schema 16)."""
    names = equal + contain
    # Neither titles nor entity names have an index of their own: equality is read from
    # the trigrams too, else it scanned every name.
    if table == "sections":
        titles = _trigram_candidates(names, params, params.dialect.TITLE_TRIGRAMS)
        if titles is None:
            return None
        return f"s.id IN (SELECT rowid FROM sections_trigram WHERE sections_trigram MATCH {titles})"
    if table == "entities":
        found = _trigram_candidates(names, params, params.dialect.NAME_TRIGRAMS)
        if found is None:
            return None
        return f"e.id IN (SELECT rowid FROM entities_trigram WHERE entities_trigram MATCH {found})"
    if table == "symbols" and contain:  # equality alone: the index on the names
        return params.dialect.ids_in("y.id", params.add(_symbol_candidates(store, names)))
    return None


def _trigram_candidates(names: list[str], params: Params, indexed: bool) -> str | None:
    """A parameter: the trigram query that every name (title) equal to or containing one
    of `names` matches (an OR of each name's trigrams), or None when the index has no such
    trigram table (`indexed` false) or a name is too short to have one."""
    if not indexed or not names:
        return None
    grams = [trigram_query(name) for name in dict.fromkeys(names)]
    if any(g is None for g in grams):
        return None
    return params.add(" OR ".join(f"({g})" for g in grams))


def _symbol_candidates(store: Store, names: list[str]) -> str:
    """The ids of the symbols whose name contains one of `names` (so also those equal to
    one), as a JSON array."""
    tab = symbol_names.table(store)
    found = tab.containing(tuple(dict.fromkeys(names)))
    return "[" + ",".join(tab.ids[i] for i in sorted(found)) + "]"
