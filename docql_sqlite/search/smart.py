"""Smart search for plain text (spec §7), after AutoDev's DocQLTool with working thresholds.

A pipeline, each stage a module with one job; this module only runs them in order:

1. the query: its frame taken out ("where is X explained?" searches for X: `frames.py`),
   terms (`terms.py`), the longest texts cut to their rarest terms
   (`stats.reduce_terms`), the names the query stands for (`query_names.py`);
2. the candidate lists (`channels.py`), each ranked, the lexical ones weighed down when
   the query is a pasted passage and the index has vectors (`channels.lexical_share`):
   BM25 at the chosen keyword level
   (`keywords.py`) and its exact evidence (`evidence.py`), code symbols, headings and
   entities by name (`name_lists.py`), code words (`names.py`), whole documents
   (`documents.py`), vectors when present;
3. fusion (`fusion.py`): RRF over the lists, then a composite score (100 x RRF + BM25
   squashed to 0..1 x 0.5 + the best result-type priority + a bonus when a symbol,
   heading or entity name equals the query or starts with it, half a rank-1 membership
   when a short query names the passage's folder: `path_words.py`), a test file's at a
   share
   unless the query asks for tests, a code file's at a share when the question asks
   where something is explained; ties by path, position; a copy of a better passage
   (the same text at the same lines of another file) left out (`fusion.distinct`);
4. result items with their marked snippets (`results.py`, `snippets.py`).

Reranking, when asked for, comes after (`api.search`, `rerank.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..passage_text import documentation, no_passage
from ..path_kinds import (
    is_generated,
    is_legal,
    is_manifest,
    is_release_notes,
    is_settings,
    is_source_listing,
)
from . import (
    channels,
    compounds,
    frames,
    fusion,
    languages,
    literals,
    options,
    path_words,
    ranking,
    results,
    snippets,
    stats,
    uses,
)
from . import terms as search_terms
from .channels import LONG_QUERY
from .query_names import query_names

if TYPE_CHECKING:
    from ..store import Store


def run(store: Store, text: str, opts: ranking.Request) -> list[dict[str, Any]]:
    # 1. the query
    framed = frames.frame(text)
    task = framed is not None and framed.task
    symbols = search_terms.symbols(text)
    topic = framed.topic if framed is not None else text
    terms, documented = options.documented(store, search_terms.parse(topic))
    if not symbols and not search_terms.positives(terms):
        ranking.query_terms(topic)  # nothing to search for: says so (a query of symbols
        # alone, "$@ vs $*" or "||", has the passages that hold them)
    terms, reduced = stats.reduce_terms(store, terms)
    names = query_names(terms, task=task, text=topic)
    terms, joined = compounds.join(store, terms)
    # 2. the candidate lists
    if search_terms.positives(terms):
        found = channels.collect(store, text, terms, names, opts, question=task)
    else:
        found = channels.Candidates([], ["no word to search for: the symbols as written"], [], 1.0)
        if store.has_vectors:
            vector, vector_notes = channels.vector_list(store, text, opts)
            found.lists.append(vector)
            found.steps += vector_notes
    lists, steps, lexical = found.lists, found.steps, found.lexical
    if symbols and lexical > 0:
        alone = not any(ranked.rows for ranked in lists)
        words = [t.needle for t in search_terms.positives(terms) if not t.is_stopword]
        if literals.about_symbols(text, symbols):
            words = []  # "what does $# mean": the symbols alone order their passages
        literal = literals.ranked(store, symbols, opts, alone=alone, words=words)
        steps.append(f"symbols as written ({' '.join(symbols)}): {len(literal.rows)} passages")
        if literal.rows:
            lists.append(literal)
    if framed is not None and framed.uses and lexical > 0:
        # "who calls X": the passages of X's uses; X's own definition is not the answer
        used = uses.ranked(store, framed.topic, framed.uses, opts.paths, channels.CHANNEL_DEPTH)
        what = "calls" if framed.uses == "call" else "uses"
        steps.append(
            f"{what} of {framed.topic} in code: {len(used.rows)} passages"
            + (
                f" → list weight {used.weight:.0f}; the name and vector lists left out"
                if used.rows
                else ""
            )
        )
        if used.rows:  # (none found: the name is searched for as any other)
            lists = [ranked for ranked in lists if ranked.name not in uses.LEFT_OUT]
            lists.append(used)
            found.nearness = found.agreed = None  # (the vector list's terms)
    if reduced:
        steps.insert(0, reduced)
    steps[:0] = documented + joined
    if lexical != 1.0:
        steps.insert(0, f"a passage as query (over {LONG_QUERY} words) → lexical lists x{lexical}")
    # 3. fusion. Chunks of links alone (a Markdown page's link definitions) are no
    # passages; the BM25 and vector lists have none (`ranking.run_plan`), the name lists may.
    tests = fusion.test_share(terms)
    if tests != 1.0:
        lists, dropped = fusion.without_test_names(lists)
        if dropped:
            steps.append(f"tests named after the query left out of the name lists: {dropped}")
    fused = [f for f in fusion.rrf(lists, opts.rrf_k) if not no_passage(f.row["content"])]
    if tests != 1.0 and any(fusion.is_test(f.row["_path"]) for f in fused):
        steps.append(f"passages of test files x{tests} (the query does not ask for tests)")
    notes = fusion.notes_share(terms, task=task)
    if notes != 1.0 and any(is_release_notes(f.row["_path"]) for f in fused):
        steps.append(f"passages of release notes x{notes} (the query does not ask about changes)")
    legal = fusion.legal_share(terms)
    if legal != 1.0 and any(is_legal(f.row["_path"]) for f in fused):
        steps.append(f"passages of licence files x{legal} (the query does not ask about licensing)")
    generated = fusion.generated_share(terms)
    if generated != 1.0 and any(is_generated(f.row["_path"]) for f in fused):
        steps.append(f"passages of generated source x{generated} (the query does not ask for it)")
    manifest = fusion.manifest_share(terms)
    if manifest != 1.0 and any(is_manifest(f.row["_path"]) for f in fused):
        steps.append(
            f"passages of project manifests x{manifest} (the query does not ask about them)"
        )
    # The passages of the kind of document the frame does not ask for (by chunk id), and
    # the share of its score each keeps: for prose, code and settings — but a code
    # passage that is its documentation (a module's doc comments); for code, the
    # documents that are not code.
    off_frame: frozenset[int] = frozenset()
    off_share = fusion.CODE_SHARE
    if framed is not None:
        steps.insert(0, f"a question framed by '{framed.words}': searching for '{framed.topic}'")
    if framed is not None and framed.prose:
        code = ranking.code_documents(store, {f.row["_doc"] for f in fused})
        # Only where prose competes: among the passages of a library of code alone
        # (penlight's Lua), "how do I split a string" is answered by a function's doc
        # comment, and the share would only rank the functions by how long their bodies
        # are beside their comments (`utils.splitv`'s over `utils.split`'s).
        if any(f.row["_doc"] not in code for f in fused):
            off_frame = frozenset(
                f.row["_chunk"]
                for f in fused
                if (f.row["_doc"] in code and not documentation(f.row["content"]))
                or is_settings(f.row["_path"])
                or is_source_listing(f.row["_path"])
            )
        if off_frame:
            steps.append(
                f"passages of code and settings files x{off_share} (the question asks for "
                f"prose: where something is explained, or how to do it; doc comments are "
                f"prose)"
            )
    elif framed is not None and framed.code:
        code = ranking.code_documents(store, {f.row["_doc"] for f in fused})
        off_frame = frozenset(f.row["_chunk"] for f in fused if f.row["_doc"] not in code)
        off_share = fusion.PROSE_SHARE
        if off_frame:
            steps.append(
                f"passages of documents that are not code x{off_share} (the question asks "
                f"where something is implemented)"
            )
    foreign: frozenset[int] = frozenset()
    # (not for a passage as query ranked by meaning alone: a translation of what was
    # pasted is a passage of that meaning)
    if lexical > 0 and languages.english_question(text):
        ranked_paths = {f.row["_doc"]: f.row["_path"] for f in fused}
        foreign = languages.foreign_documents(store, ranked_paths)
        if foreign and len(foreign) < len(ranked_paths):
            steps.append(
                f"passages of {len(foreign)} documents in another language than the "
                f"question's x{languages.FOREIGN_SHARE}"
            )
        else:
            foreign = frozenset()  # every one, or none: nothing to tell apart
    in_path, named = (
        path_words.named(store, terms, {f.row["_path"] for f in fused})
        if lexical > 0
        else (frozenset(), set())
    )
    if named:
        steps.append(
            f"{len(named)} documents in a folder named {' or '.join(sorted(in_path))} → "
            f"+{path_words.POINTS:.2f}"
        )
    scored = sorted(
        (
            (
                (
                    fusion.composite(f, names, lexical, found.nearness, found.agreed)
                    + (lexical * path_words.POINTS if f.row["_path"] in named else 0.0)
                )
                * fusion.share(
                    f,
                    tests,
                    off_frame,
                    notes,
                    legal,
                    generated,
                    manifest,
                    off_share,
                    foreign,
                    languages.FOREIGN_SHARE,
                ),
                f,
            )
            for f in fused
        ),
        key=lambda p: (-p[0], p[1].row["_path"], p[1].row["_pos"]),
    )
    scored, copies = fusion.distinct(
        scored,
        lambda docs: ranking.code_documents(store, docs),
        lambda chunk: ranking.section_text(store, chunk),
    )
    if copies:
        steps.append(f"{copies} passages with the same text as a better one left out")
    scored = scored[: opts.fetch]
    # 4. result items
    pats = snippets.patterns(terms) or snippets.patterns(search_terms.expand(terms).components)
    pats += literals.patterns(symbols)
    plan = {
        "mode": "smart",
        "strategy": steps,
        "documents": found.documents,
        "channels": {r.name: len(r.rows) for r in lists},
    }
    items = [results.fused_item(score, entry, pats, opts, plan) for score, entry in scored]
    return results.group_files(items, opts) if opts.group == "file" else items[: opts.limit]
