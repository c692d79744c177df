"""The `llm:` bridge: an embedding model that an llm plugin registers (here a small plugin
registered in-process with llm's own plugin manager, the way an installed plugin's
`register_embedding_models` hook is called) embeds an index and searches it. The bridge
is under test, not the model: the plugin's vectors are a bag of letters.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.embedders import get_model
from docql_sqlite.errors import EmbeddingError
from docql_sqlite.store.sqlite import db

llm = pytest.importorskip("llm", reason="the llm extra is not installed")
from llm.plugins import pm  # noqa: E402

ALPHABET = "abcdefghijklmnopqrstuvwxyz"


class Letters(llm.EmbeddingModel):
    model_id = "docql-test-letters"
    batch_size = 2
    batches: list[int] = []

    def embed_batch(self, items, *, key=None):  # type: ignore[no-untyped-def]
        items = list(items)
        Letters.batches.append(len(items))
        for text in items:
            if "explode" in text:
                raise RuntimeError("the plugin's server went away")
            low = text.lower()
            yield [float(low.count(c)) for c in ALPHABET]


class Keyed(llm.EmbeddingModel):
    model_id = "docql-test-keyed"
    needs_key = "docql-test-service"
    key_env_var = "DOCQL_TEST_LLM_KEY"

    def embed_batch(self, items, *, key=None):  # type: ignore[no-untyped-def]
        for _ in items:
            yield [1.0, 0.0]


class Plugin:
    @llm.hookimpl
    def register_embedding_models(self, register):  # type: ignore[no-untyped-def]
        register(Letters(), aliases=("letters",))
        register(Keyed())


@pytest.fixture(autouse=True)
def plugin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path / "llm-home"))  # no keys.json, aliases
    monkeypatch.delenv("DOCQL_TEST_LLM_KEY", raising=False)
    pm.register(Plugin(), name="docql-test-plugin")
    Letters.batches = []
    yield
    pm.unregister(name="docql-test-plugin")


def test_alias_and_id_name_the_same_model() -> None:
    by_alias, by_id = get_model("llm:letters"), get_model("llm:docql-test-letters")
    assert by_alias.model_id == by_id.model_id == "llm:docql-test-letters"
    assert by_alias.dimensions == 26  # learned from a probe
    assert by_alias.batch_size == 2  # the plugin's own batch size


def test_embed_an_index_and_search_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "zebra.md").write_text("# Zoo\n\nzzz zebra zigzag zone\n")
    (docs / "apple.md").write_text("# Orchard\n\naaa apple banana papaya\n")
    (docs / "kiwi.md").write_text("# Fruit\n\nkiwi kiwi kick\n")
    database = tmp_path / "docs.db"
    docql_sqlite.index(database, [str(docs)])
    report = docql_sqlite.embed(database, "llm:letters")
    assert report["model"] == "llm:docql-test-letters" and report["dimensions"] == 26
    assert report["embedded"] >= 3 and max(Letters.batches) <= 2
    conn = db.connect(database, readonly=True)
    try:
        assert db.get_meta(conn, "embedding_model") == "llm:docql-test-letters"
    finally:
        conn.close()
    with docql_sqlite.open(database) as index:
        hits = index.search("lazy zigzag zebras", mode="vector", limit=1)
        assert hits[0]["path"].endswith("zebra.md")
        hits = index.search("a papaya", mode="vector", limit=1)
        assert hits[0]["path"].endswith("apple.md")
    # A second run embeds nothing: the bridge's model id is stable across processes.
    assert docql_sqlite.embed(database)["embedded"] == 0


@pytest.mark.parametrize(
    ("name", "texts", "message"),
    [
        ("llm:nope", ["x"], "llm has no embedding model 'nope'; llm's embedding models: "),
        (
            "llm:letters",
            ["explode"],
            "the llm model 'docql-test-letters' failed: RuntimeError: the plugin's server went "
            "away",
        ),
        ("llm:docql-test-keyed", ["x"], "the llm model 'docql-test-keyed': "),
    ],
)
def test_errors_name_the_llm_model(name: str, texts: list[str], message: str) -> None:
    with pytest.raises(EmbeddingError) as err:
        get_model(name).embed(texts)
    assert err.value.message.startswith(message)
    if name == "llm:nope":
        assert "docql-test-letters" in err.value.message
    if name == "llm:docql-test-keyed":
        assert "llm keys set docql-test-service" in err.value.message  # llm's own advice
