"""Smart search's document channel: BM25 over whole documents, from the passage index.

A question's answer is often a whole short document (an FAQ entry, a man page, a how-to)
whose passages each hold only some of the question's words; passage BM25 then ranks a
passage of a long unrelated document that happens to repeat two of them above it. This
channel scores documents instead, as a plain FTS5 table over whole files would:

    score(D) = Σ_t  w_t · idf(t) · tf(t,D)·(k1+1) / (tf(t,D) + k1·(1 − b + b·|D|/avgdl))

without a second index. The full-text index already holds every token occurrence by
chunk; the engine counts them by chunk (`Store.body_counts`: on the file an `fts5vocab`
table of type `instance` over `chunks_fts`, created in the connection's temp schema so a
read-only file stays untouched; on PostgreSQL the body-weighted positions of each
chunk's tsvector, the same counts), and the chunk → document map (read once per version
of the index, `_layout`) sums them per document.
Document frequencies are counted the same way, so idf is the documents' own, not the
chunks'. Body column only: the title column repeats a section's title on each of its
chunks. |D| is the document's length in characters (BM25 uses the ratio |D|/avgdl, so
characters serve as well as tokens). b = 1.0: full length normalisation ranked short
answers among long documents best (0.75 and 0.9 were worse on both FAQ sets).

Terms: the content words of the query (stopwords already dropped); a word with a suffix
also through its stem prefix (`upgrades` → `upgrad*`) at half weight, since the index
has no stemmer. Words in more than MAX_SHARE of the chunks are not looked up: their idf
is near zero, and their occurrences are many to read.

Pseudo-relevance feedback (RM3-style: the words frequent in the best three documents
and rare in the index added with weight 0.3, then a second scoring) was tried and left
out: it lowered Recall@10 on both FAQ sets (docs/benchmarks.md).

Each ranked document is represented in the fusion by its best passage (the chunk with
the highest passage-level score under the same weights), scored only for the DEPTH
documents the channel returns.

Cost (docs/mcp.md, "What a call costs"): a question's words have thousands of
postings. They are read as plain tuples into arrays, summed per document once, and kept
in an LRU bounded by rows (`PostingsCache`) keyed by the index's version stamp, so a
long-lived server that meets a word again reads nothing; ~20 → 10 ms of CPU a question
cold, 3–4 ms warm, with output identical to the uncached implementation
(tests/test_search_documents_oracle.py keeps it as the oracle).
"""

from __future__ import annotations

import math
import threading
from array import array
from collections import OrderedDict, defaultdict
from typing import TYPE_CHECKING, Any

from ..query import items as item_sql
from ..records import Record
from ..sqlparams import Params
from ..text import has_cjk
from . import ranking, stats
from . import terms as search_terms

if TYPE_CHECKING:
    from ..store import Store

K1 = 1.2
B = 1.0
DEPTH = 30  # documents in the channel
MAX_SHARE = 0.1  # a token in more than this share of the chunks is not looked up
MIN_CHUNKS = 200  # … in an index big enough for shares to mean something
PREFIX_WEIGHT = 0.5  # an occurrence through the stem prefix (upgrade for upgrades) counts half
MIN_STEM = 4
# Content words a query needs for this channel: fewer make a look-up, not a question.
MIN_QUESTION_WORDS = 3
MIN_TOKEN = 1  # characters ("R", "C" are names)


class Token(Record, frozen=True):
    """One looked-up token: exact (`term = ?`) or a stem prefix range."""

    text: str
    weight: float
    prefix: bool = False


class Ranked(Record):
    doc_id: int
    score: float
    chunk: int  # the document's best passage

    def __init__(self, doc_id: int, score: float, chunk: int) -> None:
        # Written out: ~400 are made per search, and Record's generic __init__ (which
        # reads the field table) cost ~1.5 % of an MCP search (docs/benchmarks.md).
        self.doc_id, self.score, self.chunk = doc_id, score, chunk


def query_tokens(terms: list[search_terms.Term]) -> list[Token]:
    """Content words of the positive terms (not CJK: one CJK character is no word; the
    passage channels handle CJK runs), and the stem prefixes of those with a suffix."""
    out: dict[tuple[str, bool], Token] = {}
    for term in search_terms.positives(terms):
        for tok in term.tokens:
            # A letter alone counts when typed alone ("R", "C"), not as the piece of a
            # word ("it's" → it, s).
            if has_cjk(tok) or tok in search_terms.STOPWORDS or len(tok) < MIN_TOKEN:
                continue
            if len(tok) == 1 and len(term.tokens) > 1:
                continue
            out.setdefault((tok, False), Token(tok, 1.0))
            root = search_terms.stem(tok)
            if PREFIX_WEIGHT and len(root) >= MIN_STEM and root.isalpha() and root != tok:
                out.setdefault((root, True), Token(root, PREFIX_WEIGHT, prefix=True))
    return list(out.values())


def _occurrences(
    store: Store, token: Token, paths: tuple[str, ...], negated: str | None
) -> Postings:
    """The token's body occurrences in scope, counted by chunk (cached: `postings`).
    `negated`: a full-text query in the engine's syntax (`negation`); its chunks are out."""
    eng = store
    cache = postings(eng)
    key = (*eng.stamp(), token.text, token.prefix, paths, negated)
    found = cache.get(key)
    if found is not None:
        return found
    params = Params(eng.dialect)
    within = without = None
    if paths:
        scope = ranking.scope_sql(eng, paths, params)
        within = f"SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE {scope}"
    if negated:
        without = eng.dialect.ids_matching(params.add(negated))
    # The engine's own statement (fts5vocab on the file, the tsvector on PostgreSQL), as
    # plain tuples, not `Engine.rows`' dicts: a common word has thousands of chunks, and
    # a dict per row was a third of the channel's time. No join to chunks here: the
    # chunk → document map is read once (`_layout`).
    chunk_doc = _layout(eng).chunk_doc
    chunks, counts, docs = array("q"), array("q"), array("q")
    tf: dict[int, int] = {}
    for chunk, n in eng.body_counts(token.text, token.prefix, params, within, without):
        doc = chunk_doc.get(chunk)
        if doc is not None:  # chunks of code files do not take part
            chunks.append(chunk)
            counts.append(n)
            docs.append(doc)
            tf[doc] = tf.get(doc, 0) + n
    found = Postings(chunks, counts, docs, array("q", tf), array("q", tf.values()))
    cache.put(key, found)
    return found


def negation(store: Store, terms: list[search_terms.Term]) -> str | None:
    """The query's negated terms as one full-text query in the engine's syntax (any of
    them, in any column), or None."""
    negated = [t for t in terms if t.negated]
    if not negated:
        return None
    return store.dialect.any_of(negated)


class Postings(Record, frozen=True):
    """One token's occurrences in prose chunks: chunk ids, counts and their documents,
    in parallel arrays (compact: a long-lived server keeps many, `POSTINGS_CACHE_ROWS`);
    and summed by document (`tf_docs`, `tf`), in the order the chunks first name them."""

    chunks: array[int]
    counts: array[int]
    docs: array[int]
    tf_docs: array[int]
    tf: array[int]


class PostingsCache:
    """Least recently used postings, bounded by their total rows. A long-lived process
    (the MCP server) meets the same words in question after question; the key holds the
    index's version stamp, so a write makes every entry unreachable."""

    def __init__(self, max_rows: int) -> None:
        self.max_rows = max_rows
        self._rows = 0
        self._entries: OrderedDict[tuple[Any, ...], Postings] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> Postings | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: tuple[Any, ...], postings: Postings) -> None:
        size = len(postings.chunks) + len(postings.tf_docs) + 1
        if size > self.max_rows:
            return
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = postings
            self._rows += size
            while self._rows > self.max_rows:
                _, old = self._entries.popitem(last=False)
                self._rows -= len(old.chunks) + len(old.tf_docs) + 1


# ~24 bytes a row: 1M rows is ~24 MB, the postings of a few thousand words.
POSTINGS_CACHE_ROWS = 1_000_000


def postings(store: Store) -> PostingsCache:
    """The postings cache of the index behind `store` (kept with its other figures,
    `stats.of`: one per open index, shared with its search sidecar)."""
    return stats.of(store).part("postings", lambda: PostingsCache(POSTINGS_CACHE_ROWS))


class Layout(Record, frozen=True):
    """Which document each chunk belongs to, each document's length in characters
    (documents other than code files), and its BM25 length norm."""

    chunk_doc: dict[int, int]
    lengths: dict[int, int]
    avgdl: float
    norms: dict[int, float]  # K1 · (1 − B + B·|D|/avgdl)


def _layout(store: Store) -> Layout:
    def compute() -> Layout:
        # Code files are left out: a question about code is answered by a definition,
        # which the symbol and code-word channels find; ranking whole source files by
        # the question's words pushed those passages out (code set R@10 0.41 → 0.33).
        # Read as columns (stats.columns), not a dict per chunk: 90k chunks at 279 MB.
        prose = "FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.format != 'code'"
        chunks, docs = stats.columns(store, ["c.id", "c.doc_id"], prose, "c.id", any_order=True)
        chunk_doc = dict(zip(map(int, chunks), map(int, docs)))
        size = store.dialect.greatest("1", "coalesce(c.end_offset - c.start_offset, 0)")
        grouped = f"SELECT c.doc_id, sum({size}) AS n {prose} GROUP BY c.doc_id"
        by_doc, sizes = stats.columns(
            store, ["g.doc_id", "g.n"], f"FROM ({grouped}) g", "g.doc_id", any_order=True
        )
        lengths = dict(zip(map(int, by_doc), map(int, sizes)))
        avgdl = sum(lengths.values()) / len(lengths) if lengths else 1.0
        norms = {doc: K1 * (1.0 - B + B * n / avgdl) for doc, n in lengths.items()}
        return Layout(chunk_doc, lengths, avgdl, norms)

    return stats.cached(store, ("doc_layout", K1, B), compute)


def _word(token: Token) -> str:
    """The query word a token stands for: a stem prefix and its word are one."""
    return token.text if token.prefix else search_terms.stem(token.text)


def _common(store: Store, token: Token) -> bool:
    total = stats.chunk_count(store)
    if total < MIN_CHUNKS or token.prefix:
        return False
    # The chunks holding the token in any column: `"tok"` on FTS5, `'tok'` on PostgreSQL.
    query = store.dialect.phrase([token.text])
    return stats.matching(store, query) > MAX_SHARE * total


def score(
    store: Store,
    tokens: list[Token],
    paths: tuple[str, ...],
    negated: str | None,
    depth: int | None = None,
    keep_common: bool = False,
    min_words: int = 1,
) -> list[Ranked]:
    """Documents by BM25 over their whole text, best first. Only the first `depth` (all
    when None) get their best passage; the others have `chunk` -1. A token in more than
    MAX_SHARE of the passages is left out unless `keep_common`; a document holding fewer
    than `min_words` of the query's words (a word and its stem prefix are one) is left
    out."""
    layout = _layout(store)
    norms = layout.norms
    n_docs = max(1, len(layout.lengths))
    doc_score: dict[int, float] = {}
    postings: list[tuple[float, Postings]] = []
    words: dict[int, set[str]] = defaultdict(set)
    for token in tokens:
        if not keep_common and _common(store, token):
            continue
        found = _occurrences(store, token, paths, negated)
        if not found.chunks:
            continue
        postings.append((token.weight, found))
        df = len(found.tf_docs)
        idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
        w = token.weight * idf * (K1 + 1)
        doc_get = doc_score.get
        for doc, n in zip(found.tf_docs, found.tf):
            doc_score[doc] = doc_get(doc, 0.0) + w * n / (n + norms[doc])
        if min_words > 1:
            word = _word(token)
            for doc in found.tf_docs:
                words[doc].add(word)
    if min_words > 1:
        doc_score = {d: s for d, s in doc_score.items() if len(words[d]) >= min_words}
    ranked = [Ranked(d, s, -1) for d, s in doc_score.items()]
    ranked.sort(key=lambda r: (-r.score, r.doc_id))
    shown = ranked if depth is None else ranked[:depth]
    # Passage scores (saturated tf, no length norm: chunks are of a size), only for the
    # documents shown: a question's words are in hundreds of documents.
    wanted = {r.doc_id for r in shown}
    chunk_score: dict[int, float] = {}
    chunk_get = chunk_score.get
    for weight, found in postings:
        for chunk, n, doc in zip(found.chunks, found.counts, found.docs):
            if doc in wanted:
                chunk_score[chunk] = chunk_get(chunk, 0.0) + weight * n / (n + K1)
    chunk_doc = layout.chunk_doc
    best: dict[int, tuple[float, int]] = {}
    for chunk, s in chunk_score.items():
        doc = chunk_doc[chunk]
        held = best.get(doc)
        # the highest passage score; on a tie the lower chunk id
        if held is None or s > held[0] or (s == held[0] and chunk < held[1]):
            best[doc] = (s, chunk)
    for r in shown:
        r.chunk = best[r.doc_id][1]
    return ranked


def channel(
    store: Store,
    terms: list[search_terms.Term],
    paths: tuple[str, ...],
    depth: int = DEPTH,
    question: bool = False,
) -> tuple[list[dict[str, Any]], list[str]]:
    """The document channel's rows (each document's best passage, best first) and notes.
    A how-to `question` ("how do I test a command": `frames.Frame.task`) has it whatever
    its number of words."""
    if any(has_cjk(t.text) for t in search_terms.positives(terms)):
        # It would see only the Latin words of a mixed question (`如何配置 apt 源`) and rank
        # documents by them alone: Chinese set MRR@10 0.947 → 0.848. The passage
        # channels rank CJK questions (cjk.py).
        return [], ["not for CJK questions: the passage channels rank them"]
    tokens = query_tokens(terms)
    if not tokens:
        return [], []
    words = sum(1 for t in tokens if not t.prefix)
    if words < MIN_QUESTION_WORDS and not question:
        # One or two words are a look-up (`createReadStream`, `DocQLLexer tokens`): the
        # passage and name channels find the definition; a document that mentions the
        # name often would outrank it. Questions are longer.
        return [], [f"not for a {words}-word look-up: the passage and name channels rank it"]
    # Every word of a how-to question common ("how do I test a command" on click's
    # sdist, where tests fill a tenth of the passages): they are all it has, so they count.
    # (A stem prefix is never "common": `_common` does not count it.)
    common = question and all(_common(store, t) for t in tokens if not t.prefix)
    # A how-to question of three words or more is answered by a document holding two of
    # them at least: in requests' sdist (no docs) "how to use a session to persist
    # cookies" ranked requires.txt, setup.cfg and LICENSE for "use" alone, above the code
    # that answers. (With two words, one may be all a good answer repeats: R FAQ's "How
    # can I save my workspace?")
    least = 2 if question and len({_word(t) for t in tokens}) > 2 else 1
    ranked = score(
        store, tokens, paths, negation(store, terms), depth, keep_common=common, min_words=least
    )
    notes = [f"BM25 over whole documents: {len(ranked)} matched"]
    if common:
        notes.insert(0, "every word of the question is common: each one counts")
    ranked = ranked[:depth]
    if not ranked:
        return [], notes
    qp = Params(store.dialect)
    ids = ", ".join(qp.add(r.chunk) for r in ranked)
    columns = item_sql.chunk_columns(store.dialect)
    rows = {
        r["_chunk"]: r
        for r in store.rows(
            f"SELECT {columns} FROM {item_sql.CHUNK_FROM} WHERE c.id IN ({ids})",
            qp.values,
        )
    }
    out = []
    for r in ranked:
        if r.chunk in rows:
            out.append(dict(rows[r.chunk], _doc_score=round(r.score, 6)))
    return out, notes
