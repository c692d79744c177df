"""The plugin registry: one pluggy `PluginManager` for file formats, embedders and rerankers.

Plugins are found through the `docql_sqlite` entry-point group and implement the hooks of
`docql_sqlite.hookspecs` (as llm's and Datasette's plugins do); the built-ins are plugins
too (`DEFAULT_PLUGINS`), registered first, so a plugin is written exactly like them:

    # pyproject.toml:  [project.entry-points.docql_sqlite]  orgplug = "orgplug"
    from docql_sqlite.plugins import hookimpl

    @hookimpl
    def register_formats(register):
        register("org", parse, ("org",))

Each kind's module (`ingest/formats.py`, `embedders/registry.py`, `rerankers/registry.py`)
builds its lookup table from the registrations of its hook with `table(hook, build)`,
which caches the table until a plugin comes or goes. This module is the one place that
holds mutable module-level state (`pm`), and nothing loads until a table is asked for: a
structural query never imports pluggy (tests/test_cli_startup.py).

The two older entry-point groups still load: `docql_sqlite.parsers` and
`docql_sqlite.embedders` name a callable `register(register_fn)`, called as the hook
`register_formats` / `register_embedders` would be (docs/plugins.md).
"""

from __future__ import annotations

import importlib
import threading
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar

import pluggy

from docql_sqlite import hookspecs
from docql_sqlite.errors import DocQLError, did_you_mean
from docql_sqlite.hookspecs import hookimpl

__all__ = [
    "DEFAULT_PLUGINS",
    "GROUP",
    "LEGACY_GROUPS",
    "NamedFactories",
    "PluginFailed",
    "Registration",
    "add",
    "hookimpl",
    "pm",
    "reload",
    "table",
]

GROUP = hookspecs.PROJECT  # [project.entry-points.docql_sqlite]
# The entry-point groups from before the hooks, each fed to the hook it became.
LEGACY_GROUPS = {
    "docql_sqlite.parsers": "register_formats",
    "docql_sqlite.embedders": "register_embedders",
}
DEFAULT_PLUGINS = (
    "docql_sqlite.default_plugins.formats",
    "docql_sqlite.default_plugins.embedders",
    "docql_sqlite.default_plugins.rerankers",
)
BUILT_IN = "built-in"
USER_CODE = "user code"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Registration:
    """One call of a hook's `register` callback, and which plugin made it."""

    plugin: str  # the plugin's name: its entry point's, a built-in module's, or "user code"
    origin: str  # "built-in", "plugin 'NAME'" or "user code": named in errors
    entry: str | None  # the entry point's value (`pkg.mod:register`), for plugins
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)


class PluginFailed(DocQLError):
    """A plugin could not be loaded, or its hook raised; each kind re-raises it as its own
    error (`IngestError`, `EmbeddingError`, `RerankError`) with the same facts."""

    def __init__(self, plugin: str, entry: str | None, cause: BaseException) -> None:
        self.plugin, self.entry, self.cause = plugin, entry, cause
        where = f" ({entry})" if entry else ""
        super().__init__(f"plugin '{plugin}'{where} failed to load: {self.detail}")

    @property
    def detail(self) -> str:
        if isinstance(self.cause, DocQLError):
            return self.cause.message
        return f"{type(self.cause).__name__}: {self.cause}"


class _Manager(pluggy.PluginManager):
    """pluggy's manager, plus the tables built from its hooks (dropped whenever a plugin is
    registered or unregistered, so `pm.register(obj)` in a test takes effect at once)."""

    def __init__(self) -> None:
        super().__init__(hookspecs.PROJECT)
        self.add_hookspecs(hookspecs)
        self.lock = threading.RLock()
        self.loaded = False
        self.tables: dict[str, Any] = {}
        self.origins: dict[str, tuple[str, str, str | None]] = {}  # pluggy name → origin
        self.broken: list[PluginFailed] = []  # plugins that failed to import
        self.unknown: list[PluginFailed] | None = None  # misspelt hooks; None: not checked

    def register(self, plugin: object, name: str | None = None) -> str | None:
        with self.lock:
            self.tables.clear()
            self.unknown = None
            return super().register(plugin, name)

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any | None:
        with self.lock:
            self.tables.clear()
            self.unknown = None
            return super().unregister(plugin, name)


pm = _Manager()  # the registry: the only mutable module-level state of the package


def table(hook: str, build: Callable[[list[Registration]], T]) -> T:
    """What `build` makes of every registration of `hook` (built-ins first, then plugins
    in the order they were registered), cached until the set of plugins changes.

    Raises `PluginFailed` when a plugin could not be imported or its hook raised: every
    time, not once, so a half-loaded registry never picks another parser or model than the
    user asked for. Errors `build` raises are not cached either.
    """
    with pm.lock:
        _load()
        if pm.unknown is None:
            pm.unknown = _unknown_hooks()
        if pm.broken or pm.unknown:
            raise (pm.broken or pm.unknown)[0]
        if hook not in pm.tables:
            pm.tables[hook] = build(_registrations(hook))
        built: T = pm.tables[hook]
        return built


def add(hook: str, call: Callable[[Callable[..., None]], None]) -> object:
    """Register, as "user code", a plugin whose `hook` runs `call(register)`; returns it
    (`pm.unregister(it)` takes it away again). What `formats.register` and
    `embedders.register` do: a one-line way to add a format or model from a script."""
    with pm.lock:
        _load()
        plugin = _one_hook_plugin(hook, call)
        pm.register(plugin)
        return plugin


def reload() -> None:
    """Forget every plugin but the built-ins and find the installed ones again (after
    installing a plugin into a running process, or between tests)."""
    with pm.lock:
        for name, plugin in pm.list_name_plugin():
            if name not in DEFAULT_PLUGINS:
                pm.unregister(plugin)
        pm.loaded = False
        pm.broken.clear()
        pm.origins = {k: v for k, v in pm.origins.items() if k in DEFAULT_PLUGINS}
        _load()


def _load() -> None:
    """Register the built-ins, then the installed plugins, once (under `pm.lock`)."""
    if pm.loaded:
        return
    pm.loaded = True
    for module in DEFAULT_PLUGINS:
        if pm.get_plugin(module) is None:
            pm.register(importlib.import_module(module), name=module)
            pm.origins[module] = (module, BUILT_IN, None)
    for ep in _entry_points(GROUP):
        if pm.get_plugin(ep.name) is not None or pm.is_blocked(ep.name):
            continue
        try:
            pm.register(ep.load(), name=ep.name)
        except Exception as exc:  # a broken plugin is reported by name, not as a traceback
            pm.broken.append(PluginFailed(ep.name, ep.value, exc))
            continue
        pm.origins[ep.name] = (ep.name, f"plugin '{ep.name}'", ep.value)
    for group, hook in LEGACY_GROUPS.items():
        for ep in _entry_points(group):
            name = f"{group}:{ep.name}"
            if pm.get_plugin(name) is None:
                pm.register(_legacy_plugin(hook, ep), name=name)
                pm.origins[name] = (ep.name, f"plugin '{ep.name}'", ep.value)


def _unknown_hooks() -> list[PluginFailed]:
    """A plugin's hook the specs do not know is a typo (`register_format`): say so, rather
    than leave the plugin silently doing nothing (pluggy's `check_pending`, with names)."""
    known = [name for name in vars(hookspecs) if name.startswith("register_")]
    unknown = []
    for hook, caller in vars(pm.hook).items():
        if hook.startswith("_") or caller.has_spec():
            continue
        for impl in caller.get_hookimpls():
            if impl.optionalhook:
                continue
            plugin, _, entry = pm.origins.get(impl.plugin_name, (impl.plugin_name, "", None))
            guess = did_you_mean(hook, known)
            hint = f"; did you mean '{guess}'?" if guess else f" (hooks: {', '.join(known)})"
            unknown.append(PluginFailed(plugin, entry, DocQLError(f"unknown hook '{hook}'{hint}")))
    return unknown


def _entry_points(group: str) -> list[EntryPoint]:
    """The group's entry points, each once (a distribution may be reachable twice on
    sys.path, e.g. an editable install plus a wheel)."""
    seen: set[tuple[str, str]] = set()
    found = []
    for ep in entry_points(group=group):
        if (ep.name, ep.value) not in seen:
            seen.add((ep.name, ep.value))
            found.append(ep)
    return found


def _registrations(hook: str) -> list[Registration]:
    made: list[Registration] = []
    for impl in getattr(pm.hook, hook).get_hookimpls():  # registration order, oldest first
        if impl.hookwrapper or impl.wrapper:
            continue  # wraps other calls: nothing to register
        plugin, origin, entry = pm.origins.get(impl.plugin_name, (USER_CODE, USER_CODE, None))

        def register(
            *args: Any, _plugin: str = plugin, _origin: str = origin, **kwargs: Any
        ) -> None:
            made.append(Registration(_plugin, _origin, entry, args, kwargs))

        try:
            impl.function(**({"register": register} if "register" in impl.argnames else {}))
        except Exception as exc:  # the plugin's bug, reported as ours, naming the plugin
            raise PluginFailed(plugin, entry, exc) from exc
    return made


def _one_hook_plugin(hook: str, call: Callable[[Callable[..., None]], None]) -> object:
    def implementation(register: Callable[..., None]) -> None:
        call(register)

    return types.SimpleNamespace(**{hook: hookimpl(implementation)})


def _legacy_plugin(hook: str, ep: EntryPoint) -> object:
    """A plugin of an older entry-point group: `ep` names `register(register_fn)`."""
    return _one_hook_plugin(hook, lambda register: ep.load()(register))


@dataclass(frozen=True, slots=True)
class Named:
    name: str
    factory: Callable[..., Any]
    aliases: tuple[str, ...]
    origin: str  # "built-in", "plugin 'x'" or "user code": named in errors


class NamedFactories:
    """`NAME` → factory, with aliases: the table of embedding models and of rerankers.

    Names are lower case without ':' (that separates the factory's argument, `hash:256`);
    a name or alias taken by another plugin is an error unless `replace=True`, so two
    plugins never silently shadow each other.
    """

    def __init__(self, noun: str, error: type[DocQLError]) -> None:
        self.noun = noun  # "embedding model": the words of every message
        self.error = error
        self.entries: dict[str, Named] = {}  # canonical name → entry, in registration order
        self.aliases: dict[str, str] = {}  # alias → canonical name

    @classmethod
    def build(
        cls, noun: str, error: type[DocQLError], registrations: Iterable[Registration]
    ) -> NamedFactories:
        """The table, or `error` naming the first bad registration and its plugin."""
        made = cls(noun, error)
        for reg in registrations:
            try:
                made.add(reg, *reg.args, **reg.kwargs)
            except DocQLError as err:
                if reg.entry is None:
                    raise
                raise error(
                    f"{noun.split()[0]} plugin '{reg.plugin}' ({reg.entry}) failed to load: "
                    f"{err.message}"
                ) from None
            except TypeError as err:
                raise error(
                    f"{reg.origin} registered {noun} {reg.args[:1]!r} with bad arguments: {err}"
                ) from None
        return made

    def add(
        self,
        reg: Registration,
        name: str,
        factory: Callable[..., Any],
        aliases: Iterable[str] = (),
        *,
        replace: bool = False,
    ) -> None:
        aliases = tuple(aliases)
        for label in (name, *aliases):
            if not isinstance(label, str) or not label or ":" in label or label != label.lower():
                raise self.error(
                    f"invalid {self.noun} name '{label}' from {reg.origin}: use lower case, no ':'"
                )
            owner = self.find(label)
            if owner is not None and not (replace and owner.name == name):
                raise self.error(
                    f"{self.noun} name '{label}' from {reg.origin} is already registered by "
                    f"{owner.origin}"
                )
        if not callable(factory):
            raise self.error(
                f"the factory of {self.noun} '{name}' from {reg.origin} is not callable"
            )
        self.entries[name] = Named(name, factory, aliases, reg.origin)
        for alias in aliases:
            self.aliases[alias] = name

    def find(self, name: str) -> Named | None:
        key = name.lower()
        return self.entries.get(self.aliases.get(key, key))

    def names(self) -> list[str]:
        return list(self.entries)

    def guess(self, name: str) -> str | None:
        """The canonical name closest to `name`, for a "did you mean" hint."""
        guess = did_you_mean(name, [*self.entries, *self.aliases])
        return self.aliases.get(guess, guess) if guess is not None else None
