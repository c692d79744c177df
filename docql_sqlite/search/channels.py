"""The candidate lists of smart search, run together: each a ranked list of passages.

bm25 (the chosen keyword level, `keywords.py`) and the exact evidence drawn from it
(`evidence.py`); the name lists (symbols, headings, entities: `name_lists.py`); code
words (`names.py`); whole documents (`documents.py`); vectors when the index has them.
Each list carries its weight in the fusion (`WEIGHTS`, scaled by `lexical_share` for
the lexical lists). Two lists are adjusted by what BM25 answered before they are handed
on: the code words (`code_words_weighed`) and the documents' passages (`represented`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..records import Record
from ..schema import KEY_MODEL
from ..sqlparams import Params
from ..text import fold
from . import documents, evidence, fusion, keywords, ranking, snippets, sqlbuild
from . import names as code_words
from . import terms as search_terms
from .name_lists import NAME_LISTS, NameList
from .name_lists import rows as name_rows
from .query_names import QueryNames

if TYPE_CHECKING:
    from ..store import Store
    from . import parallel

CHANNEL_DEPTH = 30  # passages per list
WEIGHTS = {
    "bm25": 1.0,
    "vector": 1.0,
    "symbols": 1.0,
    "code_words": 1.0,
    "headings": 0.8,
    "entities": 0.6,
    "documents": 1.0,
}
# A text of more than LONG_QUERY content words is a pasted passage ("more like this"),
# not a question: with vectors, the lexical lists then count LONG_LEXICAL of their
# weight (see `lexical_share`).
LONG_QUERY = 20
LONG_LEXICAL = 0.0


def lexical_share(store: Store, terms: list[search_terms.Term]) -> float:
    """How much the lexical channels count next to the vector channel (1.0, or LONG_LEXICAL).

    A query of more than LONG_QUERY content words is a passage, asking for passages like
    it. Its words are many and mostly common, so BM25 over its rarest ones (and the name
    and document channels, which see the same words) ranks by accidents of vocabulary,
    and RRF, which counts how many lists hold a passage far more than where they rank
    it, lets four such lists outvote the one that measures similarity of meaning: on the
    Lee set (news paragraphs as queries) smart Recall@10 was 0.55 against 0.70 for the
    vector mode. Questions (FAQ, code docstrings: 1–18 content words) are unchanged."""
    if store.has_vectors and len(search_terms.positives(terms)) > LONG_QUERY:
        return LONG_LEXICAL
    return 1.0


class Candidates(Record):
    """The ranked lists of one search, and what the fusion and `--explain` need of them."""

    lists: list[fusion.Ranked]
    steps: list[str]  # the keyword strategy's steps (and the vector plan's notes)
    documents: list[str]  # the document channel's notes
    lexical: float  # the lexical lists' share (`lexical_share`)
    nearness: fusion.Nearness | None = None  # with a boosted vector list (`nearness`)
    agreed: fusion.Agreement | None = None  # a fragment's first passages in both lists


def collect(
    store: Store,
    text: str,
    terms: list[search_terms.Term],
    names: QueryNames,
    opts: ranking.Request,
    question: bool = False,
) -> Candidates:
    """The ranked lists of `terms` (the query's, as cut by `stats.reduce_terms`: a text
    of more than LONG_QUERY words keeps more than that many). Every list but the vector
    one counts `lexical_share` of its weight; at 0 they are not run.

    With a sidecar (`parallel.of`: an index opened with `parallel_search`) its worker
    computes the lexical lists (`lexical_tasks`) while this thread embeds the query and
    finds the nearest vectors, then takes the lexical lists the worker has not started
    (`parallel.Shared`); the lists and their order are the same either way."""
    lexical = lexical_share(store, terms)
    level = ChosenLevel(0, [])
    lists: list[fusion.Ranked] = []
    steps: list[str] = []
    doc_notes: list[str] = []
    shared: parallel.Shared | None = None
    pending: parallel.Pending[None] | None = None
    # `parallel` (threads: concurrent.futures, logging) loads only with a sidecar: a
    # one-off search has none (tests/test_cli_startup.py).
    sidecar = _sidecar(store) if lexical > 0 else None
    if sidecar is not None:
        from . import parallel

        shared = parallel.Shared(lexical_tasks(terms, names, opts, lexical, question))
        pending = sidecar.submit(store, shared.run)
    try:
        vector = vector_list(store, text, opts) if store.has_vectors else None
        if lexical > 0:
            if shared is None or pending is None:
                lists, steps, level = passage_lists(store, terms, names, opts, lexical)
                others, doc_notes = other_lists(
                    store, terms, opts, lexical, (lists[0], level.terms), names, question
                )
            else:
                shared.run(store)  # the lists the worker has not taken yet
                if not pending.drop_unstarted():
                    pending.result()
                pending = None
                lists, steps, level, others, doc_notes = gathered(
                    shared.results, opts, lexical, names
                )
            lists += others
    finally:
        if pending is not None:  # an error here: the worker's task still finishes first
            pending.wait()
    near = agreed = None
    if vector is not None:
        steps += vector[1]
        if lexical > 0 and "vector" not in opts.weights:
            strength = model_strength(store, opts)
            boost = vector_boost(strength, text, lists, level.terms, names)
            if boost > 1.0:
                vector[0].weight *= boost
                steps.append(f"a strong encoder and a question → vector list weight x{boost:.2f}")
                near = nearness(vector[0].rows, (boost - 1.0) / (strength - 1.0))
                if near is not None:
                    steps.append(
                        f"nearness in meaning → {near.weight:.1f} x (farthest distance "
                        f"{near.farthest:.4f} - a passage's; the nearest {near.nearest:.4f})"
                    )
                # (a word respelled by its stem is held by the passages its stem finds:
                # "reminders" holds the question's "remind")
                vector[0].rows, wordless = wordless_weighed(vector[0].rows, terms + level.respelled)
                if wordless:
                    steps.append(
                        f"{wordless} vector passages hold none of the words → x{WORDLESS_WEIGHT}"
                    )
            elif strength > 1.0:
                agreed = fusion.agreement([*lists, vector[0]])
                if agreed is not None:
                    steps.append(
                        f"no question: {len(agreed.chunks)} passages in the first "
                        f"{fusion.AGREEMENT_DEPTH} of both BM25 and the vector list → "
                        f"+{fusion.AGREEMENT_POINTS:.2f} each"
                    )
        lists.append(vector[0])
    named = named_exact(lists)
    if named:
        steps.append(f"{named} sections named by the whole question → first in the exact list")
    lists = represented(lists)
    if named:
        named_documents(lists)
    return Candidates(lists, steps, doc_notes, lexical, near, agreed)


def named_documents(lists: list[fusion.Ranked]) -> None:
    """The documents list's passage of a document with a section the whole question
    names (`named_exact`) is that section's."""
    documents = next((r for r in lists if r.name == "documents"), None)
    if documents is None:
        return
    by_doc: dict[int, dict[str, Any]] = {}
    for row in _named_in_full(lists):
        by_doc.setdefault(row["_doc"], row)
    documents.rows = [
        dict(by_doc[row["_doc"]], _weight=row.get("_weight", 1.0), _doc_score=row.get("_doc_score"))
        if row["_doc"] in by_doc
        else row
        for row in documents.rows
    ]


def _named_in_full(lists: list[fusion.Ranked]) -> list[dict[str, Any]]:
    """The headings list's rows of the sections the whole question names (a `_phrase`
    share of 1)."""
    headings = next((r for r in lists if r.name == "headings"), None)
    return [] if headings is None else [r for r in headings.rows if r.get("_phrase") == 1.0]


def named_exact(lists: list[fusion.Ranked]) -> int:
    """Put the passages of headings that the whole question names (a `_phrase` share of
    1: "where is the magic trailing comma explained" → "The magic trailing comma") first
    in the exact list, when there is one; how many were put there.

    The exact list leaves a passage's heading line out of its own text, so that a sibling
    whose heading merely names the words does not count as holding them; but a section
    the question names in full is about those words, and without this the passages that
    repeat them (the option `--skip-magic-trailing-comma`, an FAQ entry) outranked it
    once the question's frame word was no longer a term (`frames.py`)."""
    exact = next((r for r in lists if r.name == "exact"), None)
    if exact is None:
        return 0
    # (at a full list's first place: the exact list's weight says how rare a passage
    # holding every term is, and a section named in full is no such passage)
    full = 1.0 / exact.weight if 0.0 < exact.weight < 1.0 else 1.0
    named = [dict(row, _weight=full) for row in _named_in_full(lists)]
    if not named:
        return 0
    ids = {row["_chunk"] for row in named}
    exact.rows = named + [row for row in exact.rows if row["_chunk"] not in ids]
    return len(ids)


# What the vector list may weigh, for a model measured strong, when no passage holds
# every term of the query (docs/search.md, "The vector list's weight"). RRF with equal
# weights was tuned with `use-multilingual`, whose list is no better than BM25's; with
# `e5-small` the vector mode alone beat smart search by .05-.16 MRR@10 on the FAQ sets.
# Models not listed (use-multilingual, hash, served models) keep weight 1.
STRONG_VECTORS = {"e5-small": 8.0}
# ... and its least weight for any question, whatever the exact evidence: a passage
# holding every word of a question is often its sibling ("How can add-on packages be
# installed?" for "... be used?"), not its answer. 3 keeps the regression list's
# known-item questions (tests/test_search_regression.py) in their top 3; 8 did not.
QUESTION_FLOOR = 3.0


def is_question(text: str) -> bool:
    """A question as people ask one: ends in "?", opens with "how" or "why", with another
    question word and an auxiliary ("what is", "where can", "when should", "which does"),
    or with an auxiliary and its subject ("can I", "is there", "does it"); and a problem
    told in the first person ("I can't log in …", "My admin-site CSS … not displaying"),
    which a manual's sentences never open with. A manual's sentences open with the other
    words too, and are known items: "When set to on, ...", "Can be used to ...", "Which
    is the default" without a subject, "do not fetch tags"."""
    if text.rstrip().endswith("?"):
        return True
    words = text.lower().replace("’", "'").split(None, 2)
    if not words:
        return False
    first, second = words[0], (words[1] if len(words) > 1 else "")
    if first in ("how", "why") or (first in FIRST_PERSON and second):
        return True
    if first in WH_WORDS:
        return second in AUXILIARIES or second == "to"
    return first in AUXILIARIES and second in SUBJECTS


WH_WORDS = frozenset("what where when which who whom whose".split())
FIRST_PERSON = frozenset("i i'm i've i'd i'll my".split())
AUXILIARIES = frozenset(
    "is are was were am do does did can could should would will may might shall must "
    "has have had".split()
)
SUBJECTS = frozenset(
    "i you we they he she it there this that these those my your our the a an".split()
)


def model_strength(store: Store, opts: ranking.Request) -> float:
    """The vector list's greatest weight for the search's model (`STRONG_VECTORS`, else 1)."""
    return STRONG_VECTORS.get(opts.model or store.meta(KEY_MODEL) or "", 1.0)


def vector_boost(
    strength: float,
    text: str,
    lists: list[fusion.Ranked],
    n_level: int,
    names: QueryNames,
) -> float:
    """For a question, between QUESTION_FLOOR and `strength` (`model_strength`): 1 + (strength
    - 1) x (1 - the exact evidence held). A question whose words many passages hold, or
    none (question → answer), leans on meaning; one that a few passages hold word for
    word keeps more of its lexical lists. The evidence of a question of one term ("What
    is R?") is a name equal to it (`what is DocQLLexer?`), as no exact list is made.
    Not for other queries: a fragment (an option's description, a doc comment's
    sentence, a name) is a known item, where BM25 is the better list (git's option set
    lost .13 R@10 at x3)."""
    if strength <= 1.0 or not is_question(text):
        return 1.0
    if n_level < evidence.MIN_TERMS:
        held = 1.0 if names_equal(lists, names) else 0.0
    else:
        exact = next((r for r in lists if r.name == "exact"), None)
        # The list's weight: EXACT_WEIGHT x selectivity x lexical x the user's exact weight.
        held = min(1.0, exact.weight / evidence.EXACT_WEIGHT) if exact is not None else 0.0
    # A section the question names ("where is the magic trailing comma explained") is a
    # known item as much as a passage holding every word: its run's share counts.
    held = max(held, named_share(lists))
    return max(min(strength, QUESTION_FLOOR), 1.0 + (strength - 1.0) * (1.0 - held))


def named_share(lists: list[fusion.Ranked]) -> float:
    """The greatest share of the question that a heading it names stands for (the
    headings list's phrase rows, `name_lists._phrase_titles`); 0 when none."""
    return max(
        (row.get("_phrase") or 0.0 for r in lists if r.name == "headings" for row in r.rows),
        default=0.0,
    )


# Composite points per unit of cosine distance, at the model's full strength
# (`fusion.Nearness`): 1.5 points per 0.01, about one membership in a lexical list at
# rank 1. Tuned on the tune halves of the FAQ sets (docs/search.md, "Nearness in meaning").
NEARNESS_WEIGHT = 150.0


def nearness(rows: list[dict[str, Any]], share: float) -> fusion.Nearness | None:
    """The nearness term of a boosted vector list: NEARNESS_WEIGHT x `share` cubed, where
    `share` is how much of the model's strength the boost took: 1 when no passage holds
    every word of the question, less when a few do. Cubed, because such a question is
    often a known item whose answer holds its words ("how do I watch a file for changes"
    → `fs.watch()`, which the vector list ranks 9th behind `--watch` and "Watch mode"):
    at share 0.4 the term weighs 0.064 of its full weight, not 0.4 (docs/search.md,
    "Nearness in meaning"). None without distances. A weight given with `--weight
    vector=N` boosts nothing, so it adds no nearness either."""
    distances = [r["_distance"] for r in rows if r.get("_distance") is not None]
    if not distances or share <= 0:
        return None
    return fusion.Nearness(NEARNESS_WEIGHT * share**3, min(distances), max(distances))


# The share of its list weight that a vector row holding none of the question's words
# keeps, when the vector list is boosted: on the FAQ sets such rows were 3.7x as often
# wrong (26.5 % of wrong first-ten rows against 7.1 % of right ones), and they are what
# a question with no answer in the index gets first ("where is authentication
# explained?" on the Markdown mix: "Logical not"). 0.25 and 0.5 measured the same on
# the tune halves (docs/search.md).
WORDLESS_WEIGHT = 0.5


def wordless_weighed(
    rows: list[dict[str, Any]], terms: list[search_terms.Term]
) -> tuple[list[dict[str, Any]], int]:
    """`rows` with WORDLESS_WEIGHT on those whose text holds no term of the query (whole
    words, as BM25 and the snippets match them), and how many there were."""
    patterns = snippets.patterns(search_terms.positives(terms))
    if not patterns:
        return rows, 0
    out, wordless = [], 0
    for row in rows:
        if not any(p.search(row["content"]) is not None for p in patterns):
            row = dict(row, _weight=WORDLESS_WEIGHT)
            wordless += 1
        out.append(row)
    return out, wordless


def names_equal(lists: list[fusion.Ranked], names: QueryNames) -> bool:
    """Whether a name list matched a name the query equals (what the composite score's
    NAME_EXACT bonus rewards)."""
    return any(
        fold(str(row.get("_match") or "")) in names.equal
        for ranked in lists
        if ranked.name in NAME_LIST_NAMES
        for row in ranked.rows
    )


NAME_LIST_NAMES = frozenset(n.name for n in NAME_LISTS)


def represented(lists: list[fusion.Ranked]) -> list[fusion.Ranked]:
    """The document channel's passage of each document: the document's passage in the
    BM25 list that holds the most terms (the better ranked on a tie), when it holds
    every term or more of them than the channel's own pick; else that pick.

    The channel picks by saturated term counts, which favour a long passage repeating
    some of the words ("request" x 12 in `request.reusedSocket`) over the one holding
    every word once (`request.setTimeout()`): the document earned its rank, and the
    passage with more of the words is the one that answers. A BM25 passage with only
    some of them is no better than a pick the BM25 list does not hold (`fs.cpSync`
    against `fs.mkdir` for "create a directory recursively")."""
    by_name = {r.name: r for r in lists}
    docs, bm25 = by_name.get("documents"), by_name.get("bm25")
    if docs is None or bm25 is None or not docs.rows or not bm25.rows:
        return lists
    share = {row["_chunk"]: row.get("_weight", 1.0) for row in bm25.rows}  # coverage / n
    best: dict[int, dict[str, Any]] = {}
    for row in bm25.rows:
        held = best.get(row["_doc"])
        if held is None or share[row["_chunk"]] > share[held["_chunk"]]:
            best[row["_doc"]] = row
    rows = []
    for r in docs.rows:
        top = best.get(r["_doc"])
        if top is not None and (
            share[top["_chunk"]] >= 1.0 or share[top["_chunk"]] > share.get(r["_chunk"], 2.0)
        ):
            r = dict(top, _doc_score=r.get("_doc_score"), _weight=1.0)
        rows.append(r)
    docs.rows = rows
    return lists


def vector_list(store: Store, text: str, opts: ranking.Request) -> tuple[fusion.Ranked, list[str]]:
    """The nearest passages by meaning, and the plan's notes."""
    vparams = Params(store.dialect)
    plan = sqlbuild.Plan(scope=ranking.scope_sql(store, opts.paths, vparams), rrf_k=opts.rrf_k)
    ranking.add_vector(
        store, plan, vparams, text, ranking.Request(CHANNEL_DEPTH, opts.paths, model=opts.model)
    )
    ranked = fusion.Ranked(
        "vector",
        opts.weight("vector", WEIGHTS["vector"]),
        ranking.run_plan(store, plan, vparams, CHANNEL_DEPTH, mode="vector"),
    )
    return ranked, plan.notes


def passage_lists(
    store: Store,
    terms: list[search_terms.Term],
    names: QueryNames,
    opts: ranking.Request,
    lexical: float,
    names_upto: int = len(NAME_LISTS),
) -> tuple[list[fusion.Ranked], list[str], ChosenLevel]:
    """BM25 at the chosen keyword level, then the first `names_upto` name lists
    (`NAME_LISTS`); the keyword strategy's steps; what the fusion needs of the level."""
    params = Params(store.dialect)
    scope = ranking.scope_sql(store, opts.paths, params)
    chosen = keywords.choose_level(store, terms, scope, params)
    level, narrow, steps = chosen.terms, chosen.narrow, chosen.steps
    # Name channels look for the query as typed (and its words joined: "query planner"
    # → QueryPlanner, query_planner); widening applies to the BM25 channel only.
    # A passage holding 2 of a question's 4 words answers half of it: its BM25 rank counts
    # half (RRF alone sees ranks 1 and 2 as nearly equal, whatever they cover).
    n_level = len(search_terms.positives(level))
    rows = keywords.bm25_rows(store, level, narrow, opts, CHANNEL_DEPTH)
    lists = [
        fusion.Ranked(
            "bm25",
            lexical * opts.weight("bm25", WEIGHTS["bm25"]),
            [dict(r, _weight=(r["_coverage"] or n_level) / n_level) for r in rows],
        )
    ]
    # Exact evidence is of the words as typed: widened to the parts of an identifier
    # (`createReadStream` → creat* read* stream*), "every term" is no longer the query.
    exact = evidence.exact_list(rows, level, chosen.n_and if chosen.exact else 0)
    if exact.rows:
        exact.weight *= lexical * opts.weight("exact", 1.0)
        lists.append(exact)
        steps.append(
            f"exact evidence: {len(exact.rows)} passages hold every term in their own text "
            f"(of {chosen.n_and} with every term) → list weight {exact.weight:.2f}"
        )
    lists += name_lists(store, terms, names, opts, lexical, NAME_LISTS[:names_upto])
    return lists, steps, ChosenLevel(n_level, _respelled(terms, chosen))


class ChosenLevel(Record):
    """What the fusion needs of the chosen keyword level: its number of terms, and the
    stem prefixes that stand for the query's words no passage holds as typed
    (`keywords.respell_absent`: `conffile` → `conffile*`)."""

    terms: int
    respelled: list[search_terms.Term]


def _respelled(terms: list[search_terms.Term], chosen: keywords.Level) -> list[search_terms.Term]:
    if not chosen.exact:
        return []
    return [t for t in chosen.terms if t.prefix and t not in terms]


def name_lists(
    store: Store,
    terms: list[search_terms.Term],
    names: QueryNames,
    opts: ranking.Request,
    lexical: float,
    which: tuple[NameList, ...],
) -> list[fusion.Ranked]:
    lists = []
    for which_list in which:
        weight = lexical * opts.weight(which_list.name, WEIGHTS[which_list.name])
        rows = name_rows(store, which_list, terms, names, opts.paths, CHANNEL_DEPTH)
        if which_list.name != "symbols" and weight > 0:
            # An option both words name ("ssh -L": ssh(1)'s `-L`, `name_lists.rows`)
            # counts as a class's member both words name does, at the symbols list's
            # weight: at the entities list's it stayed 10th behind passages that hold
            # "ssh" and "L" anywhere.
            lift = lexical * opts.weight("symbols", WEIGHTS["symbols"]) / weight
            rows = [dict(r, _weight=lift * r["_weight"]) if r.get("_pair") else r for r in rows]
        lists.append(fusion.Ranked(which_list.name, weight, rows))
    return lists


def other_lists(
    store: Store,
    terms: list[search_terms.Term],
    opts: ranking.Request,
    lexical: float,
    bm25: tuple[fusion.Ranked, int],
    names: QueryNames,
    question: bool = False,
) -> tuple[list[fusion.Ranked], list[str]]:
    """Code words and documents (the document channel's notes too). Code words are
    weighed by what the BM25 list answered (`code_words_weighed`): the list and its
    level's number of terms. A `question` (a how-to one: `frames.Frame.task`) is never a
    look-up for the document channel, however few its words."""
    # Words of the query inside code names (getwelcome, b64decode): what BM25 cannot see.
    code_rows = code_words.channel(store, terms, opts.paths, CHANNEL_DEPTH)
    found = documents.channel(store, terms, opts.paths, question=question)
    return _code_and_documents(code_rows, found, opts, lexical, bm25, names)


def _code_and_documents(
    code_rows: list[dict[str, Any]],
    found: tuple[list[dict[str, Any]], list[str]],
    opts: ranking.Request,
    lexical: float,
    bm25: tuple[fusion.Ranked, int],
    names: QueryNames,
) -> tuple[list[fusion.Ranked], list[str]]:
    code = fusion.Ranked(
        "code_words", lexical * opts.weight("code_words", WEIGHTS["code_words"]), code_rows
    )
    doc_rows, doc_notes = found
    docs = fusion.Ranked(
        "documents", lexical * opts.weight("documents", WEIGHTS["documents"]), doc_rows
    )
    return [code_words_weighed(code, *bm25, names), docs], doc_notes


def lexical_tasks(
    terms: list[search_terms.Term],
    names: QueryNames,
    opts: ranking.Request,
    lexical: float,
    question: bool = False,
) -> list[Callable[[Store], Any]]:
    """The lexical lists as tasks for two threads (`parallel.Shared`), the longest first
    (on the 10 MB mix: BM25 ~5 ms, documents ~2.6, the name lists ~2.5 together), so the
    last one a thread takes is short; `gathered` puts them in the fusion's order."""

    def names_of(which: NameList) -> Callable[[Store], Any]:
        return lambda store: name_lists(store, terms, names, opts, lexical, (which,))[0]

    return [
        lambda store: passage_lists(store, terms, names, opts, lexical, names_upto=0),
        lambda store: documents.channel(store, terms, opts.paths, question=question),
        *(names_of(which) for which in NAME_LISTS),
        lambda store: code_words.channel(store, terms, opts.paths, CHANNEL_DEPTH),
    ]


def gathered(
    results: list[Any], opts: ranking.Request, lexical: float, names: QueryNames
) -> tuple[list[fusion.Ranked], list[str], ChosenLevel, list[fusion.Ranked], list[str]]:
    """The answers of `lexical_tasks` as the serial path makes them: the BM25 lists, the
    strategy's steps, the level's number of terms, the code-word and document lists and
    the document channel's notes."""
    (lists, steps, level), found, *by_name, code_rows = results
    lists = lists + by_name
    others, doc_notes = _code_and_documents(
        code_rows, found, opts, lexical, (lists[0], level.terms), names
    )
    return lists, steps, level, others, doc_notes


def code_words_weighed(
    code: fusion.Ranked, bm25: fusion.Ranked, n_level: int, names: QueryNames | None = None
) -> fusion.Ranked:
    """When a passage holds every word of a question, a name counts by the share of the
    question it adds (`def handle` adds nothing to "how do I handle errors in a request
    handler" that BM25 did not see); otherwise a name match is the best evidence there
    is (a docstring's words rarely occur in the code) and counts fully. A name of more
    parts than the query has words counts by their share (`QueryNames.parts_share`), and
    one spelled otherwise than the query's capitals say less (`QueryNames.case_share`)."""
    answered = n_level > 1 and any(r["_coverage"] == n_level for r in bm25.rows)
    if answered:
        rows = [dict(r, _weight=r["_share"]) for r in code.rows if r["_share"] > 0]
    else:
        # A name made of words BM25 sees as whole tokens (`fun explain` for "where is
        # authentication explained?") is no hidden evidence: it counts by the share of
        # the question it holds, as a passage's coverage does in the BM25 list.
        rows = [dict(r, _weight=1.0 if r["_share"] > 0 else r["_held"]) for r in code.rows]
    if names is not None:
        for r in rows:
            # a name of more parts than the query has words is about more than it
            r["_weight"] *= names.parts_share(r["_match"])
            if names.cased:
                r["_weight"] *= names.case_share(r["_match"])
    return fusion.Ranked(code.name, code.weight, rows)


def _sidecar(store: Store) -> parallel.Sidecar | None:
    """`parallel.of(store)`, without importing `parallel` when the store has no sidecar."""
    if store.sidecar is None:
        return None
    from . import parallel

    return parallel.of(store)
