"""A query word that names a document's folder: evidence the path gives.

"What is the licence of zlib" on /usr/share/doc: `zlib1g-dev/copyright` holds the licence
and sits in zlib's folder, but two other packages' copyright files quote zlib's licence
too, and BM25 ranked them first — the text has no word that says which package a file
is of; its folder does. A passage whose document's folders hold a word of a short query
(`zlib1g-dev` is zlib, 1, g, dev; `net/http` is net, http) earns `POINTS` once in smart
search's composite score: half a rank-1 membership, enough to order the passages the
lists found alike, not to bring one no list found.

Only folders, and only look-ups (at most `MAX_WORDS` content words): the file's own name
was tried too and lifted Django's pages for "where is middleware explained" (djwhere
MRR@10 +.01 / +.03), but every word a page is named after lifted other collections'
pages above the answer of a question that merely used it ("How does autoloading work?":
Rust's `how-functions-work.md`; "How can I inspect R objects": Docker's `inspect.md`;
R FAQ tune −.042), and so did longer questions (Node's `process.md` for an option that
mentions a process: nodecli −.04 / −.06). A folder names a package or a project.

A folder word that names many documents says little (`doc`, `src`, `usr`, a corpus's own
folder): one held by more than `MAX_SHARE` of the index's documents is no evidence.
The words of every path are read once per version of the index (`stats.cached`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from . import stats
from . import terms as search_terms
from .sqlbuild import RRF_K

if TYPE_CHECKING:
    from ..store import Store

POINTS = 0.5 * 100.0 / (RRF_K + 1)  # half of one rank-1 membership of a list of weight 1
MAX_SHARE = 0.05  # a path word in more than this share of the documents is no evidence
MIN_DOCUMENTS = 20  # … counted only in an index of this many documents or more
MIN_LENGTH = 3  # characters of a query word that a path can name
# Content words of a query at most: a look-up ("license of zlib", "gnupg news") names
# what it means; a longer question or a pasted sentence mentions topics that other
# documents are named after (`process`, `install`, `report`).
MAX_WORDS = 3

# A folder's words: runs of letters or of digits, case-folded, camelCase split
# (`QueryPlanner/` is query, planner).
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^\W\d_]+")


def words_of(path: str) -> frozenset[str]:
    """The words of `path`'s folders (not of the file's own name)."""
    return _folder_words(path.rpartition("/")[0])


def _folder_words(folder: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in _WORD.findall(folder))


class PathWords:
    """The words of each folder that holds documents, and how many documents each word
    names. Read by folder, not by document: a folder holds many (the kernel's
    documentation: 8,907 documents in 508 folders)."""

    def __init__(self, paths: list[str]) -> None:
        per_folder: dict[str, int] = {}
        for path in paths:
            folder = path.rpartition("/")[0]
            per_folder[folder] = per_folder.get(folder, 0) + 1
        self.by_folder = {folder: _folder_words(folder) for folder in per_folder}
        counts: dict[str, int] = {}
        for folder, n in per_folder.items():
            for word in self.by_folder[folder]:
                counts[word] = counts.get(word, 0) + n
        self.counts = counts
        self.documents = len(paths)

    def telling(self, word: str) -> bool:
        """Whether `word` names few enough documents to say which the query means."""
        n = self.counts.get(word, 0)
        if n == 0:
            return False
        return self.documents < MIN_DOCUMENTS or n <= MAX_SHARE * self.documents

    def words(self, path: str) -> frozenset[str]:
        folder = path.rpartition("/")[0]
        found = self.by_folder.get(folder)
        return found if found is not None else _folder_words(folder)


def of(store: Store) -> PathWords:
    def compute() -> PathWords:
        (paths,) = stats.columns(store, ["path"], "FROM documents", "path", any_order=True)
        return PathWords(paths)

    return stats.cached(store, ("path_words",), compute)


def named(
    store: Store, terms: list[search_terms.Term], paths: set[str]
) -> tuple[frozenset[str], set[str]]:
    """(the query's content words that a folder names and that tell documents apart, the
    `paths` whose folders hold one of them). The index's folder words are looked up once
    a search, not once a passage (each lookup reads the index's version stamp)."""
    wanted = {
        token.casefold()
        for term in search_terms.positives(terms)
        if not term.is_stopword
        for token in term.tokens
        if len(token) >= MIN_LENGTH and token not in search_terms.STOPWORDS
    }
    if not wanted or len(wanted) > MAX_WORDS:
        return frozenset(), set()
    known = of(store)
    words = frozenset(w for w in wanted if known.telling(w))
    if not words:
        return words, set()
    return words, {path for path in paths if not words.isdisjoint(known.words(path))}
