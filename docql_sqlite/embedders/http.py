"""`openai:<model>`: any OpenAI-compatible `/v1/embeddings` server.

Ollama, llama.cpp's server, vLLM, LM Studio and OpenAI itself speak this protocol, so
one small urllib client (no new dependency) covers them. Failures that may pass —
connection errors, timeouts, 429 (a hosted API throttling a large `embed`), 503 and the
other 5xx — are retried by `docql_sqlite.retry`: the server's `Retry-After` honoured,
else exponential backoff with jitter, all inside one time budget per batch. Other 4xx
are the caller's mistake (bad model name, bad key, input too long) and retrying them
only delays the message, so they fail at once with the server's text.

Where the server is and the key to send, when not given in code (first one set wins;
`docql_sqlite/settings.py` reads them):

    DOCQL_EMBED_URL, OPENAI_BASE_URL      base URL, e.g. http://127.0.0.1:11434/v1 (the
                                          default: Ollama on this machine)
    DOCQL_EMBED_API_KEY, OPENAI_API_KEY   sent as `Authorization: Bearer KEY` (none: no header)

The DOCQL_ names come first, so the embedder can use another server than the rest of a
shell's OpenAI tools.
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from typing import Any

import numpy as np

from docql_sqlite import settings
from docql_sqlite.embedders.base import LearnedDimensions
from docql_sqlite.errors import EmbeddingError
from docql_sqlite.retry import GaveUp, Policy, Retry, retry_after, retryable_status, with_retries


class HTTPError(EmbeddingError):
    """An embedding request failed; `status` is the HTTP status, or None for network errors."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class OpenAIEmbedder(LearnedDimensions):
    """An embedding model served over HTTP; its dimension is learned from the first response."""

    is_semantic = True

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        batch_size: int = 64,
        timeout: float = 120.0,
        retries: int = 5,
        backoff: float = 0.5,
    ) -> None:
        if not model:
            raise EmbeddingError(
                "the openai embedder needs a model name, e.g. 'openai:nomic-embed-text'"
            )
        self.model = model
        self.model_id = f"openai:{model}"
        self.base_url = (base_url or settings.embed_url()).rstrip("/")
        self.url = self.base_url + "/embeddings"
        self.api_key = api_key if api_key is not None else settings.embed_api_key()
        self.batch_size = batch_size
        self.timeout = timeout  # seconds for one batch, all attempts and waits included
        self.retries = retries
        self.backoff = backoff
        self._dimensions: int | None = None

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        # OpenAI rejects empty strings in `input`; one space embeds as "nothing" everywhere.
        payload = {"model": self.model, "input": [t if t.strip() else " " for t in texts]}
        vectors = self._parse(self._post(payload), len(texts))
        if self._dimensions is None:
            self._dimensions = vectors.shape[1]
        return vectors

    def _post(self, payload: dict[str, Any]) -> bytes:
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        policy = Policy(attempts=self.retries + 1, budget=self.timeout, backoff=self.backoff)
        try:
            return with_retries(
                lambda left: self._attempt(body, headers, left),
                policy,
                what=f"embedding request to {self.url}",
            )
        except GaveUp as gave_up:
            raise HTTPError(gave_up.message, gave_up.status) from None

    def _attempt(self, body: bytes, headers: dict[str, str], timeout: float) -> bytes:
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.read()
        except urllib.error.HTTPError as err:
            detail = _error_text(err)
            if retryable_status(err.code):
                wait = retry_after(err.headers.get("Retry-After") if err.headers else None)
                raise Retry(f"HTTP {err.code}: {detail}", err.code, wait) from None
            raise HTTPError(
                f"embedding server {self.url} answered HTTP {err.code}: {detail}", err.code
            ) from None
        except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError) as err:
            reason = getattr(err, "reason", err)
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise Retry(f"timed out (no answer within {timeout:.2g}s)") from None
            raise Retry(f"cannot connect ({reason})") from None

    def _parse(self, raw: bytes, expected: int) -> np.ndarray:
        try:
            data = json.loads(raw)
            items = sorted(data["data"], key=lambda item: item.get("index", 0))
            vectors = [item["embedding"] for item in items]
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            preview = raw[:200].decode("utf-8", "replace")
            raise HTTPError(
                f"embedding server {self.url} sent a response that is not OpenAI embeddings JSON "
                f"({type(err).__name__}: {err}): {preview!r}"
            ) from None
        if len(vectors) != expected:
            raise HTTPError(
                f"embedding server {self.url} returned {len(vectors)} vectors for {expected} texts"
            )
        try:
            array = np.asarray(vectors, dtype=np.float32)
        except (TypeError, ValueError):
            raise HTTPError(
                f"embedding server {self.url} returned vectors that are not lists of numbers"
            ) from None
        if array.ndim != 2 or array.shape[1] == 0:
            raise HTTPError(
                f"embedding server {self.url} returned vectors of uneven or zero length"
            )
        if self._dimensions is not None and array.shape[1] != self._dimensions:
            raise HTTPError(
                f"embedding server {self.url} returned {array.shape[1]}-dimensional vectors, "
                f"earlier {self._dimensions}; did the model behind it change?"
            )
        return array


def _error_text(err: urllib.error.HTTPError) -> str:
    """The server's own explanation: OpenAI/llama.cpp `{"error": {"message"}}`, Ollama `{"error":
    "..."}`.
    """
    try:
        raw = err.read()
    except OSError:
        raw = b""
    text = raw.decode("utf-8", "replace").strip()
    try:
        error = json.loads(text).get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str) and error:
            return error
    except (ValueError, AttributeError):
        pass
    return text[:300] or (err.reason if isinstance(err.reason, str) else "no details")
