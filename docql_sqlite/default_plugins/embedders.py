"""The built-in embedding models: each factory imports its backend only when called, so
registering them costs nothing until a model is used (docs/search.md lists them), and
needs no numpy (a bare install indexes without it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from docql_sqlite.errors import EmbeddingError
from docql_sqlite.hookspecs import hookimpl

if TYPE_CHECKING:  # not at run time: the embedders package needs numpy, indexing does not
    from docql_sqlite.embedders.base import EmbeddingModel


@hookimpl
def register_embedders(register: Callable[..., None]) -> None:
    register("hash", _hash_factory)
    register("e5-small", _e5_factory, ("multilingual-e5-small", "e5"))
    register("use-multilingual", _use_factory, ("use",))
    register("openai", _openai_factory)
    register("llm", _llm_factory)


def _hash_factory(arg: str | None, dimensions: int | None = None) -> EmbeddingModel:
    from docql_sqlite.embedders.hashing import DEFAULT_DIMENSIONS, HashEmbedder

    if arg is not None:
        if not (arg.isascii() and arg.isdigit()):
            raise EmbeddingError(
                f"invalid dimension '{arg}' in 'hash:{arg}'; expected a number, e.g. 'hash:256'"
            )
        dimensions = int(arg)
    return HashEmbedder(DEFAULT_DIMENSIONS if dimensions is None else dimensions)


def _use_factory(
    arg: str | None, model_path: str | None = None, threads: int = 2, max_chars: int = 2000
) -> EmbeddingModel:
    from docql_sqlite.embedders.onnx_use import USEMultilingual

    if arg is not None:
        raise EmbeddingError(
            f"the embedding model 'use-multilingual' takes no ':' argument, got ':{arg}'"
        )
    return USEMultilingual(model_path=model_path, threads=threads, max_chars=max_chars)


def _e5_factory(
    arg: str | None,
    threads: int | None = None,
    max_chars: int | None = None,
    engine: str = "auto",
) -> EmbeddingModel:
    from docql_sqlite.embedders.e5 import DEFAULT_MAX_CHARS, E5Small

    if arg is not None:
        raise EmbeddingError(f"the embedding model 'e5-small' takes no ':' argument, got ':{arg}'")
    return E5Small(
        threads=threads,
        max_chars=DEFAULT_MAX_CHARS if max_chars is None else max_chars,
        engine=engine,
    )


def _openai_factory(
    arg: str | None,
    base_url: str | None = None,
    api_key: str | None = None,
    batch_size: int = 64,
    timeout: float = 120.0,
    retries: int = 5,
) -> EmbeddingModel:
    from docql_sqlite.embedders.http import OpenAIEmbedder

    if not arg:
        raise EmbeddingError(
            "the openai embedder needs a model name, e.g. 'openai:nomic-embed-text'"
        )
    return OpenAIEmbedder(
        arg, base_url, api_key, batch_size=batch_size, timeout=timeout, retries=retries
    )


def _llm_factory(arg: str | None) -> EmbeddingModel:
    from docql_sqlite.embedders.llm_bridge import LLMEmbedder

    if not arg:
        raise EmbeddingError(
            "the llm bridge needs an llm embedding model id, e.g. 'llm:sentence-transformers/"
            "all-MiniLM-L6-v2' (`llm embed-models` lists them)"
        )
    return LLMEmbedder(arg)
