"""Smart search's document channel: BM25 over whole documents, from the passage index.

A question's answer is often a whole short document (an FAQ entry, a man page, a how-to)
whose passages each hold only some of the question's words; passage BM25 then ranks a
passage of a long unrelated document that happens to repeat two of them above it. This
channel scores documents instead, as a plain FTS5 table over whole files would:

    score(D) = Σ_t  w_t · idf(t) · tf(t,D)·(k1+1) / (tf(t,D) + k1·(1 − b + b·|D|/avgdl))

without a second index. The FTS5 index already holds every token occurrence by chunk;
an `fts5vocab` table of type `instance` over `chunks_fts` (created in the connection's
temp schema, so a read-only file stays untouched) lists them by chunk, and the chunk →
document map (read once per version of the file, `_layout`) sums them per document.
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
the highest passage-level score under the same weights).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..query import items as item_sql
from ..query.dialect import SQLITE
from ..query.sqlparams import Params
from ..text import has_cjk
from . import engine, ranking, stats
from . import terms as search_terms

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
VOCAB = "temp.docql_vocab"
PREFIX_END = "\uffff"  # above every character a token can hold


@dataclass(frozen=True, slots=True)
class Token:
    """One looked-up token: exact (`term = ?`) or a stem prefix range."""

    text: str
    weight: float
    prefix: bool = False


@dataclass(slots=True)
class Ranked:
    doc_id: int
    score: float
    chunk: int  # the document's best passage


def ensure_vocab(conn: Any) -> None:
    """The fts5vocab instance table over chunks_fts, in this connection's temp schema."""
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB} USING fts5vocab(main, chunks_fts, instance)"
    )


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
    index: Any, token: Token, paths: tuple[str, ...], negated: str | None
) -> list[tuple[int, int]]:
    """(chunk_id, count) of the token's body occurrences in scope."""
    params = Params()
    if token.prefix:
        low, high = params.add(token.text), params.add(token.text + PREFIX_END)
        cond = f"v.term >= {low} AND v.term < {high}"
    else:
        cond = f"v.term = {params.add(token.text)}"
    if paths:
        scope = ranking.scope_sql(paths, params)
        cond += (
            f" AND v.doc IN (SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id "
            f"WHERE {scope})"
        )
    if negated:
        cond += (
            f" AND v.doc NOT IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH "
            f"{params.add(negated)})"
        )
    # No join to chunks here: the chunk → document map is read once (`_layout`).
    sql = (
        f"SELECT v.doc AS chunk, count(*) AS n FROM {VOCAB} v WHERE {cond} AND v.col = 'body' "
        "GROUP BY v.doc"
    )
    return [(r["chunk"], r["n"]) for r in index.rows(sql, params.values)]


@dataclass(frozen=True, slots=True)
class Layout:
    """Which document each chunk belongs to, and each document's length in characters
    (documents other than code files)."""

    chunk_doc: dict[int, int]
    lengths: dict[int, int]
    avgdl: float


def _layout(index: Any) -> Layout:
    def compute() -> Layout:
        chunk_doc: dict[int, int] = {}
        lengths: dict[int, int] = {}
        # Code files are left out: a question about code is answered by a definition,
        # which the symbol and code-word channels find; ranking whole source files by
        # the question's words pushed those passages out (code set R@10 0.41 → 0.33).
        for row in index.rows(
            "SELECT c.id AS chunk, c.doc_id AS doc, c.end_offset - c.start_offset AS chars "
            "FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.format != 'code'"
        ):
            chunk, doc, chars = row["chunk"], row["doc"], row["chars"]
            chunk_doc[chunk] = doc
            lengths[doc] = lengths.get(doc, 0) + max(1, int(chars or 0))
        avgdl = sum(lengths.values()) / len(lengths) if lengths else 1.0
        return Layout(chunk_doc, lengths, avgdl)

    return stats.cached(index, ("doc_layout",), compute)


def _common(index: Any, token: Token) -> bool:
    total = stats.chunk_count(index)
    if total < MIN_CHUNKS or token.prefix:
        return False
    return stats.matching(index, f'"{token.text}"') > MAX_SHARE * total


def score(
    index: Any, tokens: list[Token], paths: tuple[str, ...], negated: str | None
) -> list[Ranked]:
    """Documents by BM25 over their whole text, best first."""
    layout = _layout(index)
    n_docs = max(1, len(layout.lengths))
    doc_score: dict[int, float] = {}
    chunk_score: dict[int, float] = {}
    for token in tokens:
        if _common(index, token):
            continue
        rows = _occurrences(index, token, paths, negated)
        if not rows:
            continue
        tf: dict[int, int] = {}
        for chunk, n in rows:
            doc = layout.chunk_doc.get(chunk)
            if doc is not None:
                tf[doc] = tf.get(doc, 0) + n
            # passages: saturated tf, no length norm (chunks are of a size)
            chunk_score[chunk] = chunk_score.get(chunk, 0.0) + token.weight * n / (n + K1)
        df = len(tf)
        idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
        w = token.weight * idf * (K1 + 1)
        for doc, n in tf.items():
            norm = K1 * (1.0 - B + B * layout.lengths.get(doc, layout.avgdl) / layout.avgdl)
            doc_score[doc] = doc_score.get(doc, 0.0) + w * n / (n + norm)
    best: dict[int, tuple[float, int]] = {}
    for chunk, s in chunk_score.items():
        doc = layout.chunk_doc.get(chunk)
        if doc is not None and (doc not in best or (s, -chunk) > (best[doc][0], -best[doc][1])):
            best[doc] = (s, chunk)
    ranked = [Ranked(d, s, best[d][1]) for d, s in doc_score.items()]
    ranked.sort(key=lambda r: (-r.score, r.doc_id))
    return ranked


def channel(
    index: Any, terms: list[search_terms.Term], paths: tuple[str, ...], depth: int = DEPTH
) -> tuple[list[dict[str, Any]], list[str]]:
    """The document channel's rows (each document's best passage, best first) and notes."""
    if any(has_cjk(t.text) for t in search_terms.positives(terms)):
        # It would see only the Latin words of a mixed question (`如何配置 apt 源`) and rank
        # documents by them alone: Chinese set MRR@10 0.947 → 0.848. The passage
        # channels rank CJK questions (cjk.py).
        return [], ["not for CJK questions: the passage channels rank them"]
    index = engine.of(index)
    if index.dialect is not SQLITE:
        # fts5vocab is FTS5's; PostgreSQL would need its own term statistics per document.
        return [], ["not on PostgreSQL: the passage channels rank alone"]
    tokens = query_tokens(terms)
    if not tokens:
        return [], []
    words = sum(1 for t in tokens if not t.prefix)
    if words < MIN_QUESTION_WORDS:
        # One or two words are a look-up (`createReadStream`, `DocQLLexer tokens`): the
        # passage and name channels find the definition; a document that mentions the
        # name often would outrank it. Questions are longer.
        return [], [f"not for a {words}-word look-up: the passage and name channels rank it"]
    ensure_vocab(index.conn)
    negated_terms = [t for t in terms if t.negated]
    negated = " OR ".join(t.fts for t in negated_terms) if negated_terms else None
    ranked = score(index, tokens, paths, negated)
    notes = [f"BM25 over whole documents: {len(ranked)} matched"]
    ranked = ranked[:depth]
    if not ranked:
        return [], notes
    qp = Params()
    ids = ", ".join(qp.add(r.chunk) for r in ranked)
    rows = {
        r["_chunk"]: r
        for r in index.rows(
            f"SELECT {item_sql.CHUNK_COLUMNS} FROM {item_sql.CHUNK_FROM} WHERE c.id IN ({ids})",
            qp.values,
        )
    }
    out = []
    for r in ranked:
        if r.chunk in rows:
            out.append(dict(rows[r.chunk], _doc_score=round(r.score, 6)))
    return out, notes
