"""Loading the embedding model for a one-off search (issue 10 item 6).

- `use-multilingual` keeps a graph-optimised copy of its ONNX file in the cache directory
  (`$DOCQL_MODEL_CACHE`, else `~/.cache/docql-sqlite`): written once, whole or not at all,
  then loaded with optimising switched off — and the vectors stay bit for bit the same.
- Only the modes that embed the query load a model: `--mode bm25` imports no embedder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import docql_sqlite
from docql_sqlite.embedders import onnx_use
from docql_sqlite.errors import EmbeddingError

TEXTS = ["watch a file for changes", "数据库把所有文档存储在一个文件中。", "docker volume"]


def _use_available() -> None:
    for module in ("onnxruntime", "onnxruntime_extensions"):
        pytest.importorskip(module, reason=f"{module} is not installed (semantic extra)")
    try:
        onnx_use.find_model_file()
    except EmbeddingError as err:
        pytest.skip(str(err))


def test_optimized_copy_written_once_same_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _use_available()
    cache = tmp_path / "cache"
    monkeypatch.setenv(onnx_use.CACHE_DIR_ENV, str(cache))
    first = onnx_use.USEMultilingual().embed(TEXTS)
    copies = sorted(cache.iterdir())
    assert [p.suffix for p in copies] == [".onnx"], copies  # no .partial left behind
    copy = copies[0]
    assert copy.stat().st_size > 1_000_000
    written = copy.stat().st_mtime_ns
    second = onnx_use.USEMultilingual().embed(TEXTS)  # from the copy
    assert np.array_equal(first, second)
    assert copy.stat().st_mtime_ns == written  # read, not rewritten

    copy.write_bytes(b"not a model")  # a damaged copy: rebuilt from the model file
    third = onnx_use.USEMultilingual().embed(TEXTS)
    assert np.array_equal(first, third)
    assert copy.stat().st_size > 1_000_000


def test_copy_named_by_model_file_and_runtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "model.onnx"
    model.write_bytes(b"x" * 10)
    monkeypatch.setenv(onnx_use.CACHE_DIR_ENV, str(tmp_path / "c"))
    name = onnx_use.optimized_copy(str(model), "1.2.3")
    assert name is not None and name.startswith(str(tmp_path / "c") + os.sep)
    assert "-10-" in name and name.endswith("-ort1.2.3.onnx")
    assert onnx_use.optimized_copy(str(model), "1.2.4") != name  # another runtime
    os.utime(model, ns=(1, 2))
    assert onnx_use.optimized_copy(str(model), "1.2.3") != name  # the file changed
    assert onnx_use.optimized_copy(str(tmp_path / "missing.onnx"), "1.2.3") is None


def test_unwritable_cache_still_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _use_available()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(onnx_use.CACHE_DIR_ENV, str(blocker / "cache"))  # cannot be created
    vectors = onnx_use.USEMultilingual().embed(TEXTS[:1])
    assert vectors.shape == (1, 512)
    assert blocker.read_text() == ""


RUNNER = (
    "import atexit, json, sys\n"
    "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules))))\n"
    "sys.argv = ['docql-sqlite'] + sys.argv[1:]\n"
    "from docql_sqlite.cli import main\n"
    "main()\n"
)


def _search_modules(db: Path, mode: str) -> tuple[list[dict[str, object]], set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, "search", str(db), "install", "--mode", mode, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",
    )
    assert done.returncode == 0, done.stderr
    marker = done.stderr.rfind("MODULES ")
    return json.loads(done.stdout), set(json.loads(done.stderr[marker + len("MODULES ") :]))


def test_only_modes_that_embed_load_a_model(tmp_index: object) -> None:
    index = tmp_index  # a TmpIndex (tests/conftest.py)
    index.write_many(  # type: ignore[attr-defined]
        {"a.md": "# Install\n\nHow to install the tool.\n", "b.md": "# Usage\n\nRun it.\n"}
    )
    index.index()  # type: ignore[attr-defined]
    db = index.db  # type: ignore[attr-defined]
    docql_sqlite.embed(db, "hash")
    hits, modules = _search_modules(db, "bm25")
    assert [h["path"] for h in hits][:1] == ["docs/a.md"]
    assert [m for m in modules if m.startswith("docql_sqlite.embedders")] == []
    hits, modules = _search_modules(db, "hybrid")
    assert [h["path"] for h in hits][:1] == ["docs/a.md"]
    assert "docql_sqlite.embedders.hashing" in modules  # the contrast: this one embeds
