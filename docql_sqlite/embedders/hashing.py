"""`hash`: a deterministic *lexical* embedder (character n-gram feature hashing).

No model files and no randomness: the same text gives the same bytes in every process
and on every machine, which is what tests and CI need to exercise vec0 and hybrid
search. It measures shared spelling, not meaning — "car" and "automobile" are unrelated
to it — so it reports `is_semantic = False` and must not be sold as a semantic model.

Features (fastText-style, so inflections and typos still overlap):
- Latin/Cyrillic/... words: the word itself plus character 3-5-grams of `<word>`;
- CJK runs (no spaces between words): every character and every adjacent pair.
Each feature is hashed with blake2b (Python's `hash()` is salted per process) to a
bucket and a sign; a feature's weight is 1 + log(tf) so repeated words don't dominate.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

import numpy as np

from docql_sqlite.embedders.base import EmbeddingModel
from docql_sqlite.errors import EmbeddingError

DEFAULT_DIMENSIONS = 256
NGRAM_SIZES = (3, 4, 5)
# Longer "words" are hashes, base64 or minified code: their n-grams cost time and carry
# little, so only the first characters contribute n-grams.
MAX_NGRAM_WORD = 32
# Bound each per-model cache of feature ids (a corpus has a Zipfian vocabulary, so a
# modest cache catches nearly every repeat).
MAX_CACHED_WORDS = 200_000

_CJK = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs (ext. A, unified, compatibility)
    "\uac00-\ud7af"  # Hangul syllables
    "\U00020000-\U0002ebef"  # CJK ideographs, extensions B-F
)
# A CJK run, or a word of other letters/digits. `_` splits words so snake_case names
# contribute their parts.
_TOKEN = re.compile(f"([{_CJK}]+)|([^\\W_{_CJK}]+)")
_EMPTY_FEATURE = "\x00empty"


def _feature_id(feature: str) -> int:
    return int.from_bytes(
        hashlib.blake2b(feature.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little"
    )


def _word_features(word: str) -> list[str]:
    features = ["w\x00" + word]
    marked = "<" + word[:MAX_NGRAM_WORD] + ">"
    for n in NGRAM_SIZES:
        features.extend("g\x00" + marked[i : i + n] for i in range(len(marked) - n + 1))
    return features


def _cjk_features(run: str) -> list[str]:
    features = ["c\x00" + ch for ch in run]
    features.extend("c\x00" + run[i : i + 2] for i in range(len(run) - 1))
    return features


class HashEmbedder(EmbeddingModel):
    """Character n-gram feature hashing into `dimensions` signed buckets, L2-normalised."""

    is_semantic = False
    batch_size = 256

    def __init__(self, dimensions: int = DEFAULT_DIMENSIONS) -> None:
        if (
            not isinstance(dimensions, int)
            or isinstance(dimensions, bool)
            or not 8 <= dimensions <= 8192
        ):
            raise EmbeddingError(
                f"the hash embedder takes 8 to 8192 dimensions, got {dimensions!r}"
            )
        self.dimensions = dimensions
        self.model_id = f"hash:{dimensions}"
        # Memoised feature ids: hashing dominates the cost, and words repeat (Zipf).
        self._cache: dict[str, np.ndarray] = {}  # word -> ids of all its features
        self._cjk_cache: dict[str, int] = {}  # CJK character or pair -> id

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float64)
        for row, text in enumerate(texts):
            ids = self._text_ids(text)
            features, counts = np.unique(ids, return_counts=True)
            weights = 1.0 + np.log(counts)
            # Bucket from the low bits, sign from the top bit: independent parts of the hash.
            signs = np.where(features >> np.uint64(63), -1.0, 1.0)
            buckets = (features % np.uint64(self.dimensions)).astype(np.intp)
            out[row] = np.bincount(buckets, weights=signs * weights, minlength=self.dimensions)
        return out.astype(np.float32)

    def _text_ids(self, text: str) -> np.ndarray:
        text = unicodedata.normalize("NFKC", text).casefold()
        parts = []
        for match in _TOKEN.finditer(text):
            if match.group(1):
                # A CJK run is often a whole sentence and rarely repeats: cache its
                # characters and pairs instead, a small closed set.
                cache = self._cjk_cache
                if len(cache) >= MAX_CACHED_WORDS:
                    cache.clear()
                ids = [
                    cache.get(f) or cache.setdefault(f, _feature_id(f))
                    for f in _cjk_features(match.group(1))
                ]
                parts.append(np.array(ids, dtype=np.uint64))
            else:
                parts.append(self._word_ids(match.group(2)))
        if not parts:
            # Empty or punctuation-only text: a fixed feature keeps the vector unit-length
            # (a zero vector has no cosine distance in sqlite-vec).
            return np.array([_feature_id(_EMPTY_FEATURE)], dtype=np.uint64)
        return np.concatenate(parts)

    def _word_ids(self, word: str) -> np.ndarray:
        ids = self._cache.get(word)
        if ids is None:
            features = _word_features(word)
            ids = np.fromiter(
                (_feature_id(f) for f in features), dtype=np.uint64, count=len(features)
            )
            if len(self._cache) >= MAX_CACHED_WORDS:
                self._cache.clear()
            self._cache[word] = ids
        return ids
