"""Starve a command's process tree as a busy machine would, without taking CPU from anyone.

    python scripts/throttle.py SHARE COMMAND...
    python scripts/throttle.py 0.1 .venv/bin/docql-sqlite index h.db hostile-full --json

Runs COMMAND and, every 200 ms, lets its whole process tree (found by parent pid in /proc,
so parser workers too) run for SHARE of the period and holds it stopped (SIGSTOP) for the
rest, as `cpulimit` does. At SHARE=0.1 the tree gets at most a tenth of the wall time:
wall times stretch tenfold or more while CPU times stay the same. Used to show that the
parse limit (`--timeout`) counts CPU, not the scheduler (docs/reliability.md, section 6,
the fourth full run). Linux only. Exits with COMMAND's exit code.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

PERIOD = 0.2  # seconds


def tree(root: int) -> list[int]:
    """`root` and every descendant alive now."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    raw = stat.read()
            except OSError:
                continue
            parents[int(entry)] = int(raw[raw.rindex(")") + 2 :].split()[1])
    found, frontier = [root], {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier}
        found += sorted(frontier)
    return found


def signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def main(argv: list[str]) -> int:
    if len(argv) < 2 or not 0 < float(argv[0]) <= 1:
        print(__doc__, file=sys.stderr)
        return 2
    share = float(argv[0])
    child = subprocess.Popen(argv[1:])
    stopped: list[int] = []
    try:
        while child.poll() is None:
            time.sleep(PERIOD * share)
            stopped = tree(child.pid)
            signal_all(stopped, signal.SIGSTOP)
            time.sleep(PERIOD * (1 - share))
            signal_all(stopped, signal.SIGCONT)
            stopped = []
    finally:
        signal_all(stopped or tree(child.pid), signal.SIGCONT)
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
