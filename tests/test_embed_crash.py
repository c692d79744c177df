"""SIGKILL during `embed` (issue 11, crash harness): finished batches stay, nothing is half.

`embed` commits one transaction per batch of chunks (ordered by chunk id), so a killed run
must leave, besides a file that passes integrity_check and the FTS integrity-check:

- the documents exactly as they were (embedding never touches them);
- vectors either absent or exactly those of the finished batches: the stored chunk ids
  are the first k batches of the chunks that needed a vector, and each stored vector is
  byte for byte the embedder's vector of its chunk's text (one vec0 row per
  chunk_vectors row, same doc_id);
- with `--replace`, either the old model's vectors untouched or only the new model's;

and the same `embed` command, run again, must reach exactly the state of an
uninterrupted run (every vector, chunk id, hash and the model rows of meta).

The normal suite kills a small generated corpus three times (at the first committed
batch, half-way, and at a random moment), through the Python API in a child process with
batches of 8 chunks, so that the short run has many commits to land between.
`DOCQL_SLOW=1` runs `docql-sqlite embed` itself (batches of 256) on the Node.js API docs
(notes/corpora.md; `DOCQL_CRASH_CORPUS=DIR` for another), killed at
`DOCQL_EMBED_KILL_POINTS` (default 20) random moments, then `--replace` with another
model at 5 more, and, when the ONNX model is installed, `use-multilingual` at 3.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import apsw
import pytest
from index_states import (
    check_integrity,
    check_vectors,
    check_whole_batches,
    document_states,
    vector_state,
)

import docql_sqlite
from docql_sqlite.search import vectors

NODE_DOCS = Path("/work/cache/corpora/x/nodejs-doc/usr/share/doc/nodejs/api")
WORDS = "vector index cursor shard ledger buffer schema journal commit replica token".split()


def make_corpus(root: Path, files: int, seed: int = 5) -> Path:
    rng = random.Random(seed)
    root.mkdir(parents=True)
    for n in range(files):
        parts = [f"# Note {n}\n\n"]
        for s in range(rng.randint(3, 6)):
            parts.append(f"## Part {s} of {n}\n\n")
            parts.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60))))
            parts.append(f" unique{n}x{s}.\n\n")
        (root / f"note{n:03d}.md").write_text("".join(parts), encoding="utf-8")
    return root


def index(db: Path, corpus: Path) -> None:
    assert docql_sqlite.index(db, [str(corpus)]).ok


def embed_argv(db: Path, args: list[str], batch: int | None) -> list[str]:
    """The CLI `embed`, or (`batch`) the same call through the API with that batch size."""
    if batch is None:
        return [sys.executable, "-m", "docql_sqlite", "embed", str(db), *args]
    model = args[args.index("--model") + 1]
    code = (
        "import sys, docql_sqlite; docql_sqlite.embed(sys.argv[1], model=sys.argv[2], "
        "replace=sys.argv[3] == '1', batch=int(sys.argv[4]))"
    )
    replace = "1" if "--replace" in args else "0"
    return [sys.executable, "-c", code, str(db), model, replace, str(batch)]


def run_embed(db: Path, args: list[str], batch: int | None) -> float:
    """`embed` to the end: the CLI, or (`batch`) the API in this process (the short
    variant's runs that are not killed need no process of their own)."""
    started = time.monotonic()
    if batch is None:
        done = subprocess.run(
            embed_argv(db, args, batch), capture_output=True, text=True, timeout=900
        )
        assert done.returncode == 0, done.stderr
    else:
        model = args[args.index("--model") + 1]
        docql_sqlite.embed(db, model=model, replace="--replace" in args, batch=batch)
    return time.monotonic() - started


def vectors_now(db: Path) -> int:
    """chunk_vectors rows as a reader sees them (0 while unreadable)."""
    try:
        conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            conn.set_busy_timeout(1000)
            return conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]
        finally:
            conn.close()
    except apsw.Error:
        return 0


def kill_embed(
    db: Path, args: list[str], batch: int | None, *, after: float | None, rows_over: int = -1
) -> bool:
    """Start `embed`, SIGKILL its process group `after` seconds in, or once more than
    `rows_over` vectors are committed; False when it finished first."""
    proc = subprocess.Popen(
        embed_argv(db, args, batch),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    started = time.monotonic()
    while proc.poll() is None and time.monotonic() - started < 600:
        if after is not None and time.monotonic() - started >= after:
            break
        if after is None and vectors_now(db) > rows_over:
            break
        time.sleep(0.005 if after is None else 0.02)
    if proc.poll() is not None:
        return False
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return True


def copy_index(source: Path, target: Path) -> Path:
    for suffix in ("-wal", "-shm"):
        Path(str(target) + suffix).unlink(missing_ok=True)
    shutil.copyfile(source, target)
    return target


def chunk_ids(db: Path) -> list[int]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [r[0] for r in conn.execute("SELECT id FROM chunks ORDER BY id")]
    finally:
        conn.close()


class Harness:
    """One scenario: `base` (the index before `embed ARGS`), and the uninterrupted run's
    end state as the oracle."""

    def __init__(
        self,
        tmp: Path,
        base: Path,
        args: list[str],
        batch: int | None,
        fresh: bool,
        min_cosine: float | None = None,
    ) -> None:
        self.tmp, self.base, self.args, self.batch = tmp, base, args, batch
        self.min_cosine = min_cosine  # see index_states.check_vectors
        self.fresh = fresh  # True: base has no vectors; False: base has another model's
        self.documents = document_states(base)
        self.before = vector_state(base)
        self.ids = chunk_ids(base)
        self.expected: dict[str, bytes] = {}
        reference = copy_index(base, tmp / "reference.db")
        self.full_run = run_embed(reference, args, batch)
        self.final = check_vectors(reference, self.expected, min_cosine)
        assert len(self.final["rows"]) == len(self.ids)  # type: ignore[arg-type]
        self.batches_seen: list[int] = []

    def kill_and_resume(self, name: str, *, after: float | None, rows_over: int = -1) -> bool:
        db = copy_index(self.base, self.tmp / f"{name}.db")
        killed = kill_embed(db, self.args, self.batch, after=after, rows_over=rows_over)
        self.check_killed(db)
        if not killed:  # it finished first: checked all the same, not counted as a kill
            self.batches_seen.pop()
        run_embed(db, self.args, self.batch)  # the same command again
        assert vector_state(db) == self.final, f"{name}: the resumed run ended elsewhere"
        check_integrity(db)
        for leftover in self.tmp.glob(f"{name}.db*"):
            leftover.unlink()
        return killed

    def check_killed(self, db: Path) -> None:
        check_integrity(db)
        assert document_states(db) == self.documents, "embed changed the documents"
        state = check_vectors(db, self.expected, self.min_cosine)
        rows: dict[int, tuple[object, ...]] = state["rows"]  # type: ignore[assignment]
        if not self.fresh and state["meta"] == self.before["meta"]:
            # killed before the old vectors were swapped out: all of them, untouched
            assert state == self.before
            self.batches_seen.append(-1)
            return
        final_meta = self.final["meta"]
        assert not rows or state["meta"] == final_meta, "vectors of a model not asked for"
        self.batches_seen.append(check_whole_batches(state, self.ids, self.batch or 256))


def fresh_harness(
    tmp: Path,
    corpus: Path,
    batch: int | None,
    model: str = "hash",
    min_cosine: float | None = None,
) -> Harness:
    base = tmp / "base.db"
    if not base.exists():
        index(base, corpus)
    return Harness(tmp, base, ["--model", model], batch, fresh=True, min_cosine=min_cosine)


def test_embed_killed_three_times_keeps_finished_batches(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "notes", 120)
    harness = fresh_harness(tmp_path, corpus, batch=8)
    total = len(harness.ids)
    assert total > 200, total  # enough batches for a kill to land between commits
    killed = [
        harness.kill_and_resume("first", after=None, rows_over=0),
        harness.kill_and_resume("half", after=None, rows_over=total // 2),
        harness.kill_and_resume("random", after=random.Random(1).uniform(0, harness.full_run)),
    ]
    print(f"\nembed kills: finished batches at each kill {harness.batches_seen} of {total // 8}")
    assert killed[0], "the first kill came after the run ended"
    assert max(harness.batches_seen) > 0, harness.batches_seen  # some batches were kept


def test_vector_checker_catches_a_wrong_vector(tmp_path: Path) -> None:
    """The oracle is not vacuous: one altered byte, or a vec0 row gone, is found."""
    corpus = make_corpus(tmp_path / "notes", 5)
    db = tmp_path / "i.db"
    index(db, corpus)
    docql_sqlite.embed(db, "hash")
    check_vectors(db)
    from docql_sqlite.store.sqlite import db as dbmod

    conn = dbmod.connect(db)
    try:
        (rowid, blob) = conn.execute(
            f"SELECT rowid, embedding FROM {vectors.VEC_TABLE} LIMIT 1"
        ).fetchone()
        wrong = bytes([blob[0] ^ 1]) + bytes(blob[1:])
        conn.execute(
            f"UPDATE {vectors.VEC_TABLE} SET embedding = ? WHERE rowid = ?", (wrong, rowid)
        )
    finally:
        conn.close()
    with pytest.raises(AssertionError, match="not the vector of its text"):
        check_vectors(db)


def test_tolerant_vector_checker_catches_swapped_vectors(tmp_path: Path) -> None:
    """The cosine oracle of the ONNX sweep is not vacuous either: right vectors pass it,
    two chunks' vectors swapped (each a whole, valid vector of another text) fail it."""
    corpus = make_corpus(tmp_path / "notes", 5)
    db = tmp_path / "i.db"
    index(db, corpus)
    docql_sqlite.embed(db, "hash")
    check_vectors(db, min_cosine=0.995)
    from docql_sqlite.store.sqlite import db as dbmod

    conn = dbmod.connect(db)
    try:
        (a, blob_a), (b, blob_b) = conn.execute(
            f"SELECT rowid, embedding FROM {vectors.VEC_TABLE} ORDER BY rowid LIMIT 2"
        ).fetchall()
        assert blob_a != blob_b
        for rowid, blob in ((a, blob_b), (b, blob_a)):
            conn.execute(
                f"UPDATE {vectors.VEC_TABLE} SET embedding = ? WHERE rowid = ?", (blob, rowid)
            )
    finally:
        conn.close()
    with pytest.raises(AssertionError, match="not the vector of its text"):
        check_vectors(db, min_cosine=0.995)


# -- the long sweep (DOCQL_SLOW=1) --------------------------------------------------------
def real_corpus(target: Path) -> Path:
    source = Path(os.environ.get("DOCQL_CRASH_CORPUS", NODE_DOCS))
    if not source.is_dir():
        pytest.skip(f"no corpus at {source} (see notes/corpora.md, or DOCQL_CRASH_CORPUS)")
    for path in sorted(p for p in source.rglob("*.md") if p.is_file() and not p.is_symlink()):
        copy = target / path.relative_to(source)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
    return target


def sweep(harness: Harness, points: int, seed: int, label: str) -> None:
    rng = random.Random(seed)
    killed = 0
    for point in range(points):
        after = rng.uniform(0.0, 0.9 * harness.full_run)
        for _ in range(4):  # a run that ended first is retried with an earlier kill
            if harness.kill_and_resume(f"{label}{point}", after=after):
                killed += 1
                break
            after /= 2
    print(
        f"\nembed crash sweep ({label}): {killed} of {points} runs killed part-way "
        f"(uninterrupted {harness.full_run:.1f} s, {len(harness.ids)} chunks); finished "
        f"batches at each kill: {harness.batches_seen} (-1: before the swap; "
        f"{-(-len(harness.ids) // (harness.batch or 256))} batches in a whole run)"
    )
    assert killed == points


@pytest.mark.slow
def test_embed_crash_sweep_real_corpus(tmp_path: Path) -> None:
    corpus = real_corpus(tmp_path / "corpus")
    harness = fresh_harness(tmp_path, corpus, batch=None)
    sweep(harness, int(os.environ.get("DOCQL_EMBED_KILL_POINTS", "20")), 11, "fresh")
    # --replace: the base now has hash:256 vectors; kill the switch to hash:128.
    replaced = tmp_path / "embedded.db"
    copy_index(harness.base, replaced)
    run_embed(replaced, ["--model", "hash"], None)
    other = Harness(tmp_path, replaced, ["--model", "hash:128", "--replace"], None, fresh=False)
    sweep(other, 5, 12, "replace")


@pytest.mark.slow
def test_embed_crash_with_the_onnx_model(tmp_path: Path) -> None:
    """DOCQL_EMBED_ONNX=1 as well (it needs the model, and minutes of CPU). The model's
    vectors depend on the batch a text is in (its quantized graph scales over the whole
    batch: byte-for-byte against the text embedded alone failed at the first chunk,
    cosine >= 0.998), so each kill is checked by cosine (`check_vectors(min_cosine=)`);
    the resumed run must still reach the uninterrupted run's vectors byte for byte, as
    it embeds the same batches."""
    if os.environ.get("DOCQL_EMBED_ONNX") != "1":
        pytest.skip("set DOCQL_EMBED_ONNX=1 to run it with the use-multilingual model")
    try:
        vectors.load_model("use-multilingual")
    except Exception as exc:  # noqa: BLE001 - any reason the model cannot load here
        pytest.skip(f"use-multilingual is not available: {exc}")
    corpus = real_corpus(tmp_path / "corpus")
    keep = sorted(corpus.rglob("*.md"))[:12]  # a real model is slow: a dozen files
    for path in sorted(corpus.rglob("*.md")):
        if path not in keep:
            path.unlink()
    harness = fresh_harness(
        tmp_path, corpus, batch=None, model="use-multilingual", min_cosine=0.995
    )
    sweep(harness, 3, 13, "onnx")
