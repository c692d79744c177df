"""Index in a child process: one `index_paths` run, out of the calling process.

For a process that serves while it indexes (`mcp --watch`): parsing a large file holds
Python's lock for long stretches (tree-sitter parsing SQLite's 9.5 MB `sqlite3.c` kept
the server's other threads waiting up to 0.67 s at a time, 1.8 s in all), and in-process
parsing has no CPU limit per file. The child is a fresh interpreter (`python -m
docql_sqlite.ingest.child`), single-threaded, so its run forks parser workers with their
time limits as `docql-sqlite index` does; the caller's threads keep serving, and a parser
that crashes or hangs costs its file, never the server. Not multiprocessing's spawn or
fork server: those import the caller's `__main__` again in the child, which re-runs or
breaks a host program without a main guard.

The run's arguments go to the child's stdin and its report comes back on stdout, both
pickled (the two processes are the same program). Callbacks (progress) stay behind.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

from ..errors import DocQLError
from ..options import IngestOptions
from ..records import replace
from .run import IngestReport, index_paths


def index_in_child(
    db_path: str | Path, paths: list[str], options: IngestOptions | None = None
) -> IngestReport:
    """`index_paths(db_path, paths, options)` run by a child process; its report. An error
    the run raises comes back as a `DocQLError` with its message; a child that dies is one
    too, with its exit status and the last line it wrote."""
    options = replace(options or IngestOptions(), progress=None, embed_progress=None)
    done = subprocess.run(
        [sys.executable, "-m", __name__],
        input=pickle.dumps((str(db_path), list(paths), options)),
        capture_output=True,
        check=False,
    )
    if done.returncode == 0 and done.stdout:
        status, value = pickle.loads(done.stdout)
        if status == "ok":
            return value
        raise DocQLError(str(value))
    said = done.stderr.decode("utf-8", "replace").strip().splitlines()
    raise DocQLError(
        f"the indexing process stopped with exit status {done.returncode}"
        + (f": {said[-1]}" if said else "")
    )


def _main() -> None:
    db_path, paths, options = pickle.loads(sys.stdin.buffer.read())
    try:
        reply: tuple[str, object] = ("ok", index_paths(db_path, paths, options))
    except DocQLError as exc:
        reply = ("error", exc.message if hasattr(exc, "message") else str(exc))
    sys.stdout.buffer.write(pickle.dumps(reply))


if __name__ == "__main__":
    _main()
