"""Parser workers never outlive the indexer (issue 11, item 3).

`index` is SIGKILLed in the middle of a run of a few hundred files; its worker processes,
found beforehand by their parent pid in /proc, must all be gone a few seconds later. Before
the fix each worker held both ends of its socketpair, so it never saw EOF and stayed
blocked for ever, reparented to PID 1.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import CLI

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, or None when it no longer exists."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return fields[0], int(fields[1])


def children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            info = _stat(int(entry))
            if info is not None and info[1] == pid:
                found.add(int(entry))
    return found


def alive(pid: int) -> bool:
    info = _stat(pid)
    return info is not None and info[0] != "Z"  # a zombie has exited; only reaping is left


def make_corpus(root: Path, files: int) -> None:
    root.mkdir()
    body = "".join(
        f"## Section {i}\n\nSome words about topic {i} and more words.\n\n" for i in range(200)
    )
    for n in range(files):
        (root / f"doc{n:04d}.md").write_text(f"# Document {n}\n\n{body}")


@pytest.mark.parametrize("kill_after", [0.5, 1.5])
def test_workers_exit_when_index_is_killed(tmp_path: Path, kill_after: float) -> None:
    # Large enough to outlast the kill on a quiet machine (300 files did not, once the
    # Markdown parse got faster).
    make_corpus(tmp_path / "docs", 1000)
    proc = subprocess.Popen(
        [str(CLI), "index", str(tmp_path / "t.db"), str(tmp_path / "docs"), "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: set[int] = set()
    deadline = time.monotonic() + 20
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        workers |= children(proc.pid)
        time.sleep(0.02)
    assert len(workers) >= 2, "the indexer never started its two parser workers"
    time.sleep(kill_after)
    assert proc.poll() is None, "the run finished before the kill; make the corpus larger"
    workers |= children(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(alive(p) for p in workers):
        time.sleep(0.05)
    survivors = [p for p in workers if alive(p)]
    for pid in survivors:  # do not leave them behind for the rest of the suite
        os.kill(pid, signal.SIGKILL)
    assert survivors == [], f"parser workers survived the indexer: {survivors}"
