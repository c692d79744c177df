"""Shared helpers of the benchmark scripts: the corpus cache, peers, process-tree RSS, stats.

Not a benchmark itself. The scripts next to it import it with `sys.path` set to this folder.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from docql_sqlite.ingest.walk import walk  # noqa: E402

FETCH = REPO / "benchmarks" / "fetch_corpora.sh"


# -- the corpus cache ----------------------------------------------------------------------------
def cache_dir() -> Path:
    """Where fetch_corpora.sh keeps everything (same rule as the script)."""
    if os.environ.get("DOCQL_CORPORA"):
        return Path(os.environ["DOCQL_CORPORA"])
    if Path("/work/cache").is_dir():
        return Path("/work/cache/corpora")
    return Path.home() / ".cache" / "docql-corpora"


def manifest(fetch: bool = True) -> dict[str, str]:
    """NAME → value from the cache's manifest.env, running fetch_corpora.sh first if asked."""
    path = cache_dir() / "manifest.env"
    if fetch:
        subprocess.run(["bash", str(FETCH), str(cache_dir())], check=True, capture_output=True)
    if not path.exists():
        return {}
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return {key: value for key, value in pairs}


def corpus_roots(info: dict[str, str], *names: str) -> list[Path]:
    """The folders of the named corpora (a manifest value may list several, ':'-separated)."""
    return [Path(p) for name in names for p in info[name].split(":") if p]


# -- peers ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Peer:
    name: str
    command: list[str] | None  # None: not available
    reason: str = ""  # why not, when command is None
    env: dict[str, str] | None = None


def find_rg(info: dict[str, str]) -> Peer:
    cached = info.get("peer_rg")
    if cached and os.access(cached, os.X_OK):
        return Peer("rg", [cached])
    found = shutil.which("rg")
    if found:
        return Peer("rg", [found])
    return Peer(
        "rg", None, "ripgrep not found (run benchmarks/fetch_corpora.sh or apt-get install)"
    )


def find_qmd(info: dict[str, str]) -> Peer:
    qmd, node_bin = info.get("peer_qmd"), info.get("peer_node_bin")
    if qmd and node_bin and os.access(qmd, os.X_OK):
        env = dict(os.environ, PATH=f"{node_bin}:{os.environ.get('PATH', '')}")
        return Peer("qmd", [qmd], env=env)
    return Peer("qmd", None, "QMD not in the cache (benchmarks/fetch_corpora.sh installs it)")


def qmd_env(peer: Peer, home: Path) -> dict[str, str]:
    """An isolated HOME/XDG dirs, so QMD's index is the benchmark's own."""
    env = dict(peer.env or os.environ)
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        NO_COLOR="1",
    )
    home.mkdir(parents=True, exist_ok=True)
    return env


def docql_cli() -> list[str]:
    script = REPO / ".venv" / "bin" / "docql-sqlite"
    if script.exists():
        return [str(script)]
    found = shutil.which("docql-sqlite")
    return [found] if found else [sys.executable, "-m", "docql_sqlite"]


# -- files ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CorpusFile:
    path: Path
    format: str | None
    size: int


def _walk(roots: list[Path], include: tuple[str, ...]) -> Any:
    """The package's walker (its signature changed when it learned ripgrep's rules)."""
    try:
        from docql_sqlite.ingest.walk import WalkOptions
    except ImportError:  # the older walker: walk(roots, include, exclude)
        return walk(roots, include)
    return walk(roots, WalkOptions(include=include))


def walks_like_ripgrep() -> bool:
    """True when the walker honours .gitignore and skips hidden files, as rg does by default."""
    try:
        from docql_sqlite.ingest.walk import WalkOptions  # noqa: F401
    except ImportError:
        return False
    return True


def indexable_files(roots: list[Path], include: tuple[str, ...] = ()) -> list[CorpusFile]:
    """The files `docql-sqlite index` would pick up (its own walker), with their sizes."""
    out = []
    for found in _walk(roots, include):
        if found.error is not None or getattr(found, "skipped", None):
            continue
        try:
            size = found.path.stat().st_size
        except OSError:
            continue
        out.append(CorpusFile(found.path, found.format, size))
    return out


def smoke_tree(target: Path) -> Path:
    """A tiny corpus copied from datasets/: English and Chinese Markdown and some code."""
    target.mkdir(parents=True, exist_ok=True)
    for part in ("en", "zh", "code"):
        source = REPO / "datasets" / part
        if source.is_dir():
            shutil.copytree(source, target / part, dirs_exist_ok=True)
    return target


# -- processes and RSS --------------------------------------------------------------------------
def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_kb(root: int) -> int:
    tree = _children()
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += _rss_kb(pid)
        stack.extend(tree.get(pid, []))
    return total


class PeakSampler(threading.Thread):
    """Samples the summed RSS of a process and all its descendants every `interval` s."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak_kb = pid, interval, 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.peak_kb = max(self.peak_kb, tree_rss_kb(self.pid))
            self.done.wait(self.interval)


@dataclass
class Measured:
    seconds: float
    rss_mb: float  # peak of the whole process tree
    returncode: int
    stdout: str
    stderr: str
    cpu_s: float = 0.0  # user + system time of the process and every descendant it waited for


def server_cpu(server: Any) -> float:
    """CPU seconds of the PostgreSQL server so far: the postmaster, the backends it has
    reaped (a writer's connection ends with it), and its processes still running."""
    import psutil

    main = psutil.Process(server.get_pid())
    times = main.cpu_times()
    total = times.user + times.system + times.children_user + times.children_system
    for proc in main.children(recursive=True):
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            pass
    return total


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_measured(
    cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> Measured:
    cpu = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd
    )
    sampler = PeakSampler(proc.pid)
    sampler.start()
    out, err = proc.communicate()
    seconds = time.perf_counter() - started
    sampler.done.set()
    sampler.join()
    cpu = _children_cpu() - cpu
    return Measured(seconds, sampler.peak_kb / 1024, proc.returncode, out, err, cpu)


def time_process_cpu(
    cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """(wall ms, CPU ms, result) of one process run, start-up included. On a shared machine
    the CPU time (user + system, descendants included) is the steadier of the two."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    wall = (time.perf_counter() - started) * 1000
    return wall, (_children_cpu() - cpu) * 1000, done


def time_process(
    cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Wall milliseconds of one process run, start-up included."""
    wall, _, done = time_process_cpu(cmd, env, cwd)
    return wall, done


def file_bytes(*paths: Path) -> int:
    total = 0
    for p in paths:
        if p.is_dir():
            total += sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
        elif p.exists():
            total += p.stat().st_size
    return total


def db_bytes(db: Path) -> int:
    return file_bytes(db, Path(f"{db}-wal"))


def remove_db(db: Path) -> None:
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        p.unlink(missing_ok=True)


def page_counts(db: Path) -> list[dict[str, Any]]:
    """sqlite3_analyzer-style: pages and bytes per table and index (the dbstat virtual table)."""
    import apsw

    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        rows = conn.execute(
            "SELECT name, count(*), sum(pgsize), sum(payload), sum(unused) FROM dbstat "
            "GROUP BY name ORDER BY sum(pgsize) DESC"
        ).fetchall()
    finally:
        conn.close()
    total = sum(r[2] for r in rows) or 1
    return [
        {"name": n, "pages": p, "bytes": b, "payload": pl, "unused": u, "share": b / total}
        for n, p, b, pl, u in rows
    ]


# -- statistics and output ----------------------------------------------------------------------
def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def machine() -> dict[str, Any]:
    import apsw

    try:
        shell = subprocess.run(["sqlite3", "--version"], capture_output=True, text=True).stdout
    except OSError:
        shell = ""
    cpu = ""
    try:
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        pass
    return {
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "loadavg_at_start": os.getloadavg(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "sqlite_apsw": apsw.sqlite_lib_version(),
        "sqlite3_shell": shell.split()[0] if shell else None,
    }


def write_json(path: Path | None, data: Any) -> None:
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2, default=str))


def table(headers: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table (what docs/benchmarks.md publishes)."""

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:,.2f}" if abs(v) < 100 else f"{v:,.0f}"
        if isinstance(v, int):
            return f"{v:,}"
        return str(v)

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
