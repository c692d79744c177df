"""The optional reranker (issue 10 item 7) against a real fake `/rerank` server on 127.0.0.1.

The fake server scores each passage by how often a word chosen per test occurs in it, so
the reranked order is known in advance and differs from the search's own order. Errors,
timeouts and nonsense answers must leave the search's order and say why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.errors import DocQLError, DocQLNote, OptionError
from docql_sqlite.rerankers import RerankError, get_reranker

# Every passage holds "lantern"; each holds "moth" a different number of times, and
# the search's own order (by "lantern") is not the order by "moth".
DOCS = {
    "a.md": "# Alpha\n\nlantern lantern lantern lantern on the hill.\n",
    "b.md": "# Beta\n\nlantern and one moth.\n",
    "c.md": "# Gamma\n\nlantern lantern with moth moth moth.\n",
    "d.md": "# Delta\n\nlantern lantern lantern and moth moth.\n",
}


@dataclass
class Fake:
    """What the fake server does: score by a word, fail, stall or talk nonsense."""

    word: str = "moth"
    behaviour: str = "score"  # score | http500 | slow | garbage | partial
    requests: list[dict] = field(default_factory=list)


def _handler(fake: Fake) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep pytest's output clean
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            fake.requests.append({"path": self.path, **body})
            if fake.behaviour == "slow":
                time.sleep(2.0)
            if fake.behaviour == "http500":
                self._send(500, b'{"error": "model not loaded"}')
                return
            if fake.behaviour == "garbage":
                self._send(200, b"<html>not json</html>")
                return
            docs = body["documents"]
            if fake.behaviour == "partial":
                docs = docs[:1]
            results = [
                {"index": i, "relevance_score": float(d.lower().count(fake.word))}
                for i, d in enumerate(docs)
            ]
            results.sort(key=lambda r: -r["relevance_score"])  # servers answer best first
            self._send(200, json.dumps({"results": results}).encode())

        def _send(self, status: int, payload: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                pass

    return Handler


@pytest.fixture
def fake_server() -> Iterator[tuple[Fake, str]]:
    fake = Fake()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake, f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def moth_index(tmp_index) -> Iterator[docql_sqlite.Index]:
    tmp_index.write_many(DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        yield idx


def _paths(hits: list[dict]) -> list[str]:
    return [h["path"] for h in hits]


def _by_moth(hits: list[dict]) -> list[str]:
    """The order the fake's scores dictate (ties keep the search's order)."""
    ranked = sorted(enumerate(hits), key=lambda p: (-p[1]["content"].count("moth"), p[0]))
    return [h["path"] for _, h in ranked]


def test_rerank_follows_the_servers_scores(moth_index, fake_server) -> None:
    fake, base = fake_server
    plain = moth_index.search("lantern", mode="bm25")
    expected = _by_moth(plain)
    assert expected != _paths(plain)  # the test means something only if the order changes
    hits = moth_index.search("lantern", mode="bm25", rerank=base, explain=True)
    assert _paths(hits) == expected
    assert _paths(hits)[:2] == ["docs/c.md", "docs/d.md"]
    assert fake.requests[0]["path"] == "/v1/rerank"
    assert fake.requests[0]["query"] == "lantern"
    assert len(fake.requests[0]["documents"]) == len(plain)
    first = hits[0]["explain"]["rerank"]
    assert first["score"] == 3.0 and first["rank"] == 1
    assert first["rank_before"] == _paths(plain).index("docs/c.md") + 1
    assert hits[0]["score"] == 3.0


def test_rerank_cuts_to_the_limit_after_reordering(moth_index, fake_server) -> None:
    _, base = fake_server
    plain = moth_index.search("lantern", mode="bm25")
    hits = moth_index.search("lantern", mode="bm25", rerank=base, limit=1)
    assert _paths(hits) == _by_moth(plain)[:1] == ["docs/c.md"]


@pytest.mark.parametrize(
    ("behaviour", "timeout", "note"),
    [
        ("http500", None, 'failed after 3 attempts: HTTP 500: {"error": "model not loaded"}'),
        ("slow", "0.3", "failed after 1 attempt: no answer within 0.3s"),
        ("garbage", None, "sent an answer that is not a rerank result"),
        ("partial", None, "scored 1 of 4 passages"),
    ],
)
def test_a_failing_reranker_keeps_the_search_order(
    moth_index, fake_server, monkeypatch, behaviour, timeout, note
) -> None:
    fake, base = fake_server
    fake.behaviour = behaviour
    if timeout:
        monkeypatch.setenv("DOCQL_RERANK_TIMEOUT", timeout)
    plain = moth_index.search("lantern", mode="bm25")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        started = time.monotonic()
        hits = moth_index.search("lantern", mode="bm25", rerank=base, explain=True)
        took = time.monotonic() - started
    assert _paths(hits) == _paths(plain)
    assert [h["score"] for h in hits] == [h["score"] for h in plain]
    notes = [str(w.message) for w in caught if issubclass(w.category, DocQLNote)]
    assert len(notes) == 1 and note in notes[0] and "kept the search's order" in notes[0]
    assert note in hits[0]["explain"]["rerank"]["note"]
    if timeout:
        assert took < 1.8  # the fake stalls 2 s: the search did not wait for it


def test_no_server_listening_keeps_the_order(moth_index) -> None:
    plain = moth_index.search("lantern", mode="bm25")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hits = moth_index.search("lantern", mode="bm25", rerank="http://127.0.0.1:9/v1/rerank")
    assert _paths(hits) == _paths(plain)
    assert any(
        "reranker http://127.0.0.1:9/v1/rerank failed after 3 attempts: cannot connect"
        in str(w.message)
        for w in caught
    )


@pytest.mark.parametrize(
    ("spec", "env", "url", "model"),
    [
        ("http://127.0.0.1:8012/v1/rerank", {}, "http://127.0.0.1:8012/v1/rerank", "reranker"),
        ("http://127.0.0.1:8012/v1/", {}, "http://127.0.0.1:8012/v1/rerank", "reranker"),
        (
            "https://rr.example/v1",
            {"DOCQL_RERANK_MODEL": "bge"},
            "https://rr.example/v1/rerank",
            "bge",
        ),
        ("bge-reranker-v2-m3", {}, "http://127.0.0.1:8080/v1/rerank", "bge-reranker-v2-m3"),
        (
            "jina",
            {"DOCQL_RERANK_URL": "http://10.0.0.2:9000"},
            "http://10.0.0.2:9000/rerank",
            "jina",
        ),
    ],
)
def test_rerank_spec(monkeypatch, spec, env, url, model) -> None:
    for name in ("DOCQL_RERANK_URL", "DOCQL_RERANK_MODEL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    reranker = get_reranker(spec)
    assert (reranker.url, reranker.model) == (url, model)


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ("   ", OptionError, "rerank needs a reranker's URL"),
        ("ftp://host/rerank", RerankError, "only http:// and https://"),
    ],
)
def test_bad_rerank_spec_is_one_clear_error(moth_index, spec, error, message) -> None:
    with pytest.raises(error, match=message) as caught:
        moth_index.search("lantern", rerank=spec)
    assert isinstance(caught.value, DocQLError)


def test_bad_timeout_is_one_clear_error(moth_index, monkeypatch) -> None:
    monkeypatch.setenv("DOCQL_RERANK_TIMEOUT", "soon")
    # A bad setting is the user's to fix, whichever client met it (docql_sqlite/settings.py).
    with pytest.raises(OptionError, match="DOCQL_RERANK_TIMEOUT='soon' is not a number"):
        moth_index.search("lantern", rerank="http://127.0.0.1:9/v1")


def test_cli_rerank_explain_and_fallback(tmp_index, fake_server) -> None:
    fake, base = fake_server
    tmp_index.write_many(DOCS)
    tmp_index.index()
    cli = [sys.executable, "-m", "docql_sqlite", "search", str(tmp_index.db), "lantern"]
    cli += ["--mode", "bm25"]
    env = dict(os.environ)
    done = subprocess.run(
        [*cli, "--rerank", base, "--explain", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    hits = json.loads(done.stdout)
    assert [h["path"] for h in hits][:2] == ["docs/c.md", "docs/d.md"]
    assert hits[0]["explain"]["rerank"]["model"] == f"reranker at {base}/rerank"
    table = subprocess.run(
        [*cli, "--rerank", base, "--explain", "--table"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert table.returncode == 0, table.stderr
    assert "rerank     model reranker at" in table.stdout
    fake.behaviour = "http500"
    failed = subprocess.run(
        [*cli, "--rerank", base, "--json"], capture_output=True, text=True, env=env, timeout=60
    )
    assert failed.returncode == 0, failed.stderr
    assert "note: rerank failed, kept the search's order" in failed.stderr
    assert [h["path"] for h in json.loads(failed.stdout)][0] == "docs/a.md"
    assert Path(tmp_index.db).exists()
