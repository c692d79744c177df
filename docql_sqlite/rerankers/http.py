"""A `/rerank` HTTP reranker: llama.cpp's server, Jina, Cohere-style and vLLM endpoints.

Request (what they all accept): `{"model", "query", "documents": [...], "top_n"}`.
Response: `{"results": [{"index": i, "relevance_score": s}, ...]}` (llama.cpp, Jina,
Cohere, vLLM); `"data"` for `"results"` and `"score"` for `"relevance_score"` are read
too. Up to 3 attempts within one time budget ($DOCQL_RERANK_TIMEOUT seconds, default 10:
a reranker sits on the query path, so a slow one must not hold a search up for long);
429/503 and network errors are retried by `docql_sqlite.retry` (Retry-After honoured
when it fits the budget), other 4xx fail at once.

    DOCQL_RERANK_URL      base URL or endpoint for a reranker given by name
                          (default http://127.0.0.1:8080/v1, llama.cpp's server)
    DOCQL_RERANK_MODEL    model name sent with a reranker given by URL (default "reranker")
    DOCQL_RERANK_API_KEY  sent as `Authorization: Bearer KEY`

(read by `docql_sqlite/settings.py`, which documents them in docs/settings.md)
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from typing import Any

from docql_sqlite import settings
from docql_sqlite.errors import SearchError
from docql_sqlite.rerankers.base import Reranker
from docql_sqlite.retry import GaveUp, Policy, Retry, retry_after, retryable_status, with_retries

DEFAULT_TIMEOUT = float(settings.RERANK_TIMEOUT.default or 10)
DEFAULT_ATTEMPTS = 3


class RerankError(SearchError):
    """The reranker could not be reached or gave an answer that cannot be used."""


def endpoint(url: str) -> str:
    """`…/rerank` as given, else the base URL with `/rerank` appended."""
    url = url.rstrip("/")
    return url if url.endswith("/rerank") else url + "/rerank"


def get_reranker(spec: str) -> HTTPReranker:
    """The reranker that `--rerank SPEC` names: an http(s) URL or a model name."""
    spec = spec.strip()
    if not spec:
        raise RerankError("--rerank needs a URL (http://host:port/v1/rerank) or a model name")
    timeout = settings.rerank_timeout()
    if spec.startswith(("http://", "https://")):
        model = settings.rerank_model()
        return HTTPReranker(endpoint(spec), model, timeout=timeout)
    if "://" in spec:
        raise RerankError(f"unsupported reranker URL '{spec}': only http:// and https://")
    base = settings.rerank_url()
    return HTTPReranker(endpoint(base), spec, timeout=timeout)


class HTTPReranker(Reranker):
    def __init__(
        self,
        url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        attempts: int = DEFAULT_ATTEMPTS,
    ) -> None:
        self.url = url
        self.model = model
        self.name = f"{model} at {url}"
        self.api_key = api_key if api_key is not None else settings.rerank_api_key()
        self.timeout = timeout  # seconds for the whole call: every attempt and wait
        self.attempts = attempts

    def scores(self, query: str, passages: list[str]) -> list[float]:
        if not passages:
            return []
        payload = {
            "model": self.model,
            "query": query,
            "documents": passages,
            "top_n": len(passages),
        }
        return self._parse(self._post(payload), len(passages))

    def _post(self, payload: dict[str, Any]) -> bytes:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        # A reranker sits on the query path: few, short tries, all within `timeout`.
        policy = Policy(attempts=self.attempts, budget=self.timeout, backoff=0.2, max_backoff=2.0)
        try:
            return with_retries(
                lambda left: self._attempt(body, headers, left), policy, what=f"reranker {self.url}"
            )
        except GaveUp as gave_up:
            raise RerankError(gave_up.message) from None

    def _attempt(self, body: bytes, headers: dict[str, str], timeout: float) -> bytes:
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return bytes(response.read())
        except urllib.error.HTTPError as err:
            detail = err.read(300).decode("utf-8", "replace").strip() or err.reason
            if retryable_status(err.code):
                wait = retry_after(err.headers.get("Retry-After") if err.headers else None)
                raise Retry(f"HTTP {err.code}: {detail}", err.code, wait) from None
            raise RerankError(f"reranker {self.url} answered HTTP {err.code}: {detail}") from None
        except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError) as err:
            reason = getattr(err, "reason", err)
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise Retry(f"no answer within {timeout:.2g}s") from None
            raise Retry(f"cannot connect ({reason})") from None

    def _parse(self, raw: bytes, expected: int) -> list[float]:
        try:
            data = json.loads(raw)
            results = data.get("results", data.get("data")) if isinstance(data, dict) else None
            if not isinstance(results, list):
                raise ValueError("no 'results' list")
            scores: list[float | None] = [None] * expected
            for entry in results:
                i = int(entry["index"])
                value = entry.get("relevance_score", entry.get("score"))
                if not 0 <= i < expected or value is None:
                    raise ValueError(f"bad result {entry!r}")
                scores[i] = float(value)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise RerankError(
                f"reranker {self.url} sent an answer that is not a rerank result: {exc}"
            ) from None
        missing = [i for i, s in enumerate(scores) if s is None]
        if missing:
            raise RerankError(
                f"reranker {self.url} scored {expected - len(missing)} of {expected} passages"
            )
        return [float(s) for s in scores if s is not None]
