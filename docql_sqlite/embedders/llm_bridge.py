"""`llm:ID`: every embedding model of simonw's `llm` and its plugins, as an embedder here.

`pip install 'docql-sqlite[llm]'` plus any llm plugin (llm-sentence-transformers,
llm-ollama, llm-embed-onnx, llm-embed-jina, llm-gemini, llm-clip, …) and
`--model llm:ID` embeds with it: ID is what `llm embed-models` lists, an alias
included. The index records llm's canonical model id (`llm:` + `model.model_id`), so an
alias and the full name are the same model. API keys are llm's business
(`llm keys set …` or the plugin's environment variable); a missing one is reported in
llm's words. llm models have one encoder for queries and passages and do not say their
dimension, so it is learned from a first probe.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from docql_sqlite.embedders.base import LearnedDimensions
from docql_sqlite.errors import EmbeddingError

INSTALL_HINT = "install it with: pip install 'docql-sqlite[llm]'"
DEFAULT_BATCH = 32


def _llm() -> Any:
    try:
        import llm
    except ImportError:
        raise EmbeddingError(f"'llm:' models need the llm package; {INSTALL_HINT}") from None
    return llm


class LLMEmbedder(LearnedDimensions):
    """An llm embedding model (`llm.get_embedding_model(ID)`), called through `embed_batch`."""

    is_semantic = True

    def __init__(self, name: str) -> None:
        llm = _llm()
        try:
            self.model: Any = llm.get_embedding_model(name)
        except llm.UnknownModelError:
            known = sorted({m.model.model_id for m in llm.get_embedding_models_with_aliases()})
            listed = ", ".join(known) if known else "none; install an llm embedding plugin"
            raise EmbeddingError(
                f"llm has no embedding model '{name}'; llm's embedding models: {listed}"
            ) from None
        self.model_id = f"llm:{self.model.model_id}"
        self.batch_size = int(getattr(self.model, "batch_size", None) or DEFAULT_BATCH)
        if not getattr(self.model, "supports_text", True):
            raise EmbeddingError(f"the llm model '{self.model.model_id}' does not embed text")
        self._dimensions: int | None = None

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        llm = _llm()
        try:
            # embed_multi resolves the API key the way `llm embed` does, then calls the
            # plugin's embed_batch in the model's own batch size.
            rows = list(self.model.embed_multi(texts, batch_size=len(texts) or 1))
        except llm.NeedsKeyException as err:
            raise EmbeddingError(f"the llm model '{self.model.model_id}': {err}") from None
        except EmbeddingError:
            raise
        except Exception as err:  # a plugin's (or its server's) failure, named
            raise EmbeddingError(
                f"the llm model '{self.model.model_id}' failed: {type(err).__name__}: {err}"
            ) from err
        try:
            array = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError):
            raise EmbeddingError(
                f"the llm model '{self.model.model_id}' returned vectors of uneven length"
            ) from None
        if array.ndim != 2 or array.shape[0] != len(texts) or array.shape[1] == 0:
            raise EmbeddingError(
                f"the llm model '{self.model.model_id}' returned {len(rows)} vectors "
                f"for {len(texts)} texts"
            )
        if self._dimensions is None:
            self._dimensions = int(array.shape[1])
        return array
