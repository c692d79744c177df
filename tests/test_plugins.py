"""The plugin mechanism (docql_sqlite/plugins.py, hookspecs.py): one pluggy hook per kind.

The end-to-end case installs a third-party plugin for real — a package with a
`*.dist-info/entry_points.txt` under the `docql_sqlite` group, found by
importlib.metadata on PYTHONPATH — and runs the console script as a user would: `index`
reads the plugin's format, `embed --model` uses its embedding model, `search --rerank`
its reranker. The in-process cases register plugin objects with `plugins.pm` (as llm's
tests do) and check what the tables make of them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import docql_sqlite
from docql_sqlite import hookspecs, plugins
from docql_sqlite.errors import EmbeddingError, IngestError
from docql_sqlite.ingest import formats
from docql_sqlite.rerankers import (
    HTTPReranker,
    Reranker,
    RerankError,
    available_rerankers,
    get_reranker,
)

CLI = str(Path(sys.executable).with_name("docql-sqlite"))

# A plugin package as a third party writes it (docs/plugins.md): one module, three hooks.
GEMPLUG = """
from docql_sqlite.plugins import hookimpl


def parse(source):
    from docql_sqlite.ingest.read import decode_text
    from docql_sqlite.model import Document, Heading

    text, warnings = decode_text(source.data, source.path)
    headings = [
        Heading(level=len(line) - len(line.lstrip("#")), title=line.lstrip("# "), line=n)
        for n, line in enumerate(text.splitlines(), start=1)
        if line.startswith("#")
    ]
    return Document(format="gemtext", text=text, headings=headings, warnings=warnings)


def letters(arg, **options):
    # Imported in the factory: the embedders package needs numpy, indexing does not.
    from docql_sqlite.embedders.hashing import HashEmbedder

    model = HashEmbedder(int(arg or 32))
    model.model_id = "letters:" + str(model.dimensions)
    return model


def zcount(arg):
    from docql_sqlite.rerankers import Reranker

    class ZCount(Reranker):
        name = "zcount"

        def scores(self, query, passages):
            return [float(p.lower().count(arg or "z")) for p in passages]

    return ZCount()


@hookimpl
def register_formats(register):
    register("gemtext", parse, ("gmi",))


@hookimpl
def register_embedders(register):
    register("letters", letters, aliases=("abc",))


@hookimpl
def register_rerankers(register):
    register("zcount", zcount)
"""


def install(site: Path, module: str, source: str, group: str = "docql_sqlite") -> None:
    """A distribution `module` 1.0 on the path `site`: the module and its dist-info."""
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{module} = {module}\n")


def run(*args: str, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [CLI, *args], capture_output=True, text=True, env=env, timeout=300, cwd=site.parent
    )


def test_an_installed_plugin_adds_a_format_a_model_and_a_reranker(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "gemplug", GEMPLUG)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "moths.gmi").write_text(
        "# Moths\nMoths fly to the lantern at night.\n"
        "## Buzz\nThe lantern draws a buzzing, zigzagging moth.\n"
        "# Lanterns\nA lantern is a lamp.\n",
        encoding="utf-8",
    )
    db = tmp_path / "x.db"

    done = run("index", str(db), str(docs), site=site)
    assert done.returncode == 0, done.stderr
    with docql_sqlite.open(db) as index:
        assert index.query("$.files[*].format") == ["gemtext"]
        assert [(h["level"], h["title"]) for h in index.query("$.toc")] == [
            (1, "Moths"),
            (2, "Buzz"),
            (1, "Lanterns"),
        ]

    done = run("embed", str(db), "--model", "abc:48", site=site)  # by its alias
    assert done.returncode == 0, done.stderr
    with docql_sqlite.open(db) as index:
        assert index.status()["embedding_model"] == "letters:48"

    args = ["search", str(db), "lantern", "--mode", "bm25", "--json", "--explain"]
    plain = run(*args, site=site)
    reranked = run(*args, "--rerank", "zcount", site=site)
    assert plain.returncode == 0 and reranked.returncode == 0, plain.stderr + reranked.stderr
    before, after = json.loads(plain.stdout), json.loads(reranked.stdout)
    assert len(before) == len(after) >= 2
    assert [item["explain"]["rerank"]["model"] for item in after] == ["zcount"] * len(after)
    # Ordered by the number of z's in each passage, as the plugin scores them.
    scores = [item["explain"]["rerank"]["score"] for item in after]
    assert scores == sorted(scores, reverse=True) and scores[0] >= 2 > scores[-1]
    assert "zigzag" in after[0]["snippet"], after[0]


def test_a_plugin_that_fails_to_import_is_named_by_every_kind(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\ntext about lanterns\n")
    db = str(tmp_path / "x.db")
    done = run("index", db, str(docs), site=tmp_path / "nothing")
    assert done.returncode == 0, done.stderr
    site = tmp_path / "site"
    install(site, "badplug", "raise ImportError('no module named yaml2')\n")
    cases = [
        (["index", db, str(docs)], "parser", 1),
        (["embed", db, "--model", "hash"], "embedding", 1),
        # A reranker's errors are usage errors (RerankError is a SearchError): exit 2.
        (["search", db, "lanterns", "--mode", "bm25", "--rerank", "zcount"], "reranker", 2),
    ]
    for args, kind, status in cases:
        done = run(*args, site=site)
        assert done.returncode == status, done.stderr
        assert done.stderr == (
            f"error: {kind} plugin 'badplug' (badplug) failed to load: "
            "ImportError: no module named yaml2\n"
        )
    # A query needs no plugin, so a broken one does not stop it.
    done = run("query", db, "$.toc", "--json", site=site)
    assert done.returncode == 0 and json.loads(done.stdout), done.stderr


# -- in process: plugin objects registered with the manager --------------------------------


@pytest.fixture
def register_plugin() -> Iterator[Callable[..., object]]:
    """Register plugin objects (modules or namespaces of hook functions) for one test."""
    added: list[object] = []

    def add(**hooks: Callable[..., Any]) -> object:
        plugin = types.SimpleNamespace(
            **{name: hookspecs.hookimpl(function) for name, function in hooks.items()}
        )
        plugins.pm.register(plugin)
        added.append(plugin)
        return plugin

    yield add
    for plugin in added:
        if plugins.pm.is_registered(plugin):
            plugins.pm.unregister(plugin)


def test_builtins_are_registered_through_the_hooks() -> None:
    formats.formats()  # loads the registry
    names = {name for name, _ in plugins.pm.list_name_plugin()}
    assert set(plugins.DEFAULT_PLUGINS) <= names
    assert formats.available_formats()[:3] == ["markdown", "rst", "html"]
    assert available_rerankers()[0] == "http"
    for module in plugins.DEFAULT_PLUGINS:
        plugin = plugins.pm.get_plugin(module)
        assert plugins.pm.get_hookcallers(plugin), module  # implements at least one hook


def test_a_plugin_replaces_a_builtin_format_and_unregistering_restores_it(
    register_plugin: Callable[..., object],
) -> None:
    def parse(source: Any) -> Any:
        raise AssertionError("not called")

    assert formats.format_for_path("a.md") == "markdown"
    plugin = register_plugin(register_formats=lambda register: register("mymd", parse, ["MD"]))
    assert formats.format_for_path("a.md") == "mymd"  # the table follows pm.register at once
    assert formats.get_format("mymd").parse is parse
    plugins.pm.unregister(plugin)
    assert formats.format_for_path("a.md") == "markdown"


def test_a_hook_that_raises_is_one_error_naming_the_plugin(
    register_plugin: Callable[..., object],
) -> None:
    def broken(register: Any) -> None:
        raise KeyError("oops")

    register_plugin(register_rerankers=broken)
    with pytest.raises(RerankError, match=r"reranker plugin .* failed to load: KeyError: 'oops'"):
        get_reranker("zcount")
    with pytest.raises(RerankError, match="failed to load"):  # every time, not once
        get_reranker("http://127.0.0.1:1/rerank")


def test_rerankers_registered_and_not(register_plugin: Callable[..., object]) -> None:
    class Fixed(Reranker):
        name = "fixed"

        def __init__(self, arg: str | None) -> None:
            self.arg = arg

        def scores(self, query: str, passages: list[str]) -> list[float]:
            return [1.0] * len(passages)

    register_plugin(register_rerankers=lambda register: register("fixed", Fixed, ("fx",)))
    table: list[tuple[str, type[Reranker], str | None]] = [
        ("fixed", Fixed, None),
        ("FX:deep", Fixed, "deep"),  # an alias, any case, with its argument
        ("http:bge-m3", HTTPReranker, "bge-m3"),  # the built-in by name
        ("bge-reranker-v2-m3", HTTPReranker, "bge-reranker-v2-m3"),  # a server's model
        ("qwen3-reranker:0.6b", HTTPReranker, "qwen3-reranker:0.6b"),  # ':' in a model name
        ("http://127.0.0.1:9/v1", HTTPReranker, "reranker"),  # an endpoint
    ]
    for spec, kind, arg in table:
        reranker = get_reranker(spec)
        assert type(reranker) is kind, spec
        assert getattr(reranker, "arg" if kind is Fixed else "model") == arg, spec


def test_a_reranker_name_cannot_shadow_another(register_plugin: Callable[..., object]) -> None:
    register_plugin(register_rerankers=lambda register: register("http", lambda arg: None))
    with pytest.raises(
        RerankError, match="reranker name 'http' from user code is already registered by built-in"
    ):
        get_reranker("x")


def test_a_factory_that_returns_no_reranker(register_plugin: Callable[..., object]) -> None:
    register_plugin(register_rerankers=lambda register: register("nothing", lambda arg: None))
    with pytest.raises(RerankError, match="reranker 'nothing' .* did not return a Reranker"):
        get_reranker("nothing")


def test_a_misspelt_hook_is_reported(register_plugin: Callable[..., object]) -> None:
    register_plugin(register_format=lambda register: None)
    with pytest.raises(
        IngestError, match="unknown hook 'register_format'; did you mean 'register_formats'"
    ):
        formats.formats()


def test_register_functions_are_one_call_plugins() -> None:
    def parse(source: Any) -> Any:
        raise AssertionError("not called")

    plugin = formats.register("ini2", parse, "ini2")  # one extension, not four letters
    try:
        assert formats.format_for_path("x.INI2") == "ini2"
        assert formats.format_for_path("x.i") is None
    finally:
        plugins.pm.unregister(plugin)
    assert "ini2" not in formats.available_formats()

    from docql_sqlite.embedders import available_models, get_model, register, reload_plugins

    register("twin", lambda arg: get_model("hash:16"))
    try:
        assert get_model("twin").dimensions == 16
        with pytest.raises(EmbeddingError, match="'twin' from user code is already registered"):
            register("twin", lambda arg: None)
        register("twin", lambda arg: get_model("hash:8"), replace=True)
        assert get_model("twin").dimensions == 8
    finally:
        reload_plugins()
    assert "twin" not in available_models()


def test_old_entry_point_groups_still_load(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "oldplug.py").write_text(
        "def formats(register):\n"
        "    from docql_sqlite.ingest import plaintext\n"
        "    register('old', plaintext.parse, ('old',))\n"
        "def models(register):\n"
        "    from docql_sqlite.embedders.hashing import HashEmbedder\n"
        "    register('old', lambda arg: HashEmbedder(8))\n"
    )
    info = site / "oldplug-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: oldplug\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[docql_sqlite.parsers]\nold = oldplug:formats\n"
        "[docql_sqlite.embedders]\nold = oldplug:models\n"
    )
    script = textwrap.dedent("""
        import sys
        sys.path.insert(0, sys.argv[1])
        from docql_sqlite.embedders import get_model
        from docql_sqlite.ingest import formats
        print(formats.format_for_path("a.old"), get_model("old").dimensions)
    """)
    done = subprocess.run(
        [sys.executable, "-c", script, str(site)], capture_output=True, text=True, cwd="/"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["old", "8"]
