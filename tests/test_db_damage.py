"""A damaged, full, read-only, busy or foreign index file: one line, the exit code of the
README's table, the file as it was (issue 11, items 7 and 8; issue 20, items 3 and 10).

| the file is            | exit | error            |
|------------------------|------|------------------|
| not an index (foreign) | 2    | DatabaseError    |
| damaged                | 3    | DatabaseCorrupt  |
| read-only, full, I/O   | 4    | DatabaseReadOnly, DatabaseFull, DatabaseIOError |
| busy (another writer)  | 5    | DatabaseBusy     |

Every command runs through the real CLI against a copy of a small index that has been
damaged one way. Before the fixes these gave apsw tracebacks (CorruptError, FullError then
"cannot rollback", ReadOnlyError), a ValueError for a non-numeric schema_version, a
reader could not open an index in a read-only folder at all; after 200 random bit flips
`status` and `query` said nothing, `index` wrote to the damaged file and exited 0, and
`embed` printed a UnicodeDecodeError traceback and changed the file; and damage, a
read-only file and a full disk all exited 1 where the docs said 2.

Unprivileged runs: the tests run as root, which writes read-only files anyway, so the CLI
runs under `setpriv` without CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH (as
tests/test_ingest_bad_input.py does); the full disk is a 8 MB tmpfs and the read-only
mount a read-only bind mount (root may mount both). Each is skipped, saying why, where
the machine does not allow it.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest
from conftest import CLI, DATASETS
from hostile.make import flip_bits, truncate_half

PAGE = 16384
# The exit codes of the README's table (errors.py: each error's `exit_code`).
EXIT_FOREIGN, EXIT_DAMAGED, EXIT_STORAGE, EXIT_BUSY = 2, 3, 4, 5
DROP_CAPS = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-all", "--"]

READERS = {
    "status": ["status", "DB"],
    "toc": ["toc", "DB"],
    "get": ["get", "DB", "01-introduction.md:1:3"],
    "query": ["query", "DB", "$.toc"],
    "search": ["search", "DB", "install"],
    "context": ["context", "DB", "how do I install it"],
}
WRITERS = {
    "index": ["index", "DB", "DOCS", "NEW"],  # NEW: a file not indexed yet, so it must write
    "embed": ["embed", "DB", "--model", "hash:128", "--replace"],
}
COMMANDS = {**READERS, **WRITERS, "explain": ["explain", "DB", "$.toc"]}
# The normal suite runs these commands of each table; DOCQL_SLOW=1 runs every one.
FAST = {"search", "index"}


def commands(names: list[str]) -> list[object]:
    return [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in names]


@pytest.fixture(scope="module")
def good_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("damage")
    shutil.copytree(DATASETS / "en" / "handbook", root / "docs")
    db = root / "good.db"
    for args in (["index", str(db), str(root / "docs")], ["embed", str(db), "--model", "hash"]):
        subprocess.run([str(CLI), *args], check=True, capture_output=True)
    assert not Path(str(db) + "-wal").exists()
    return db


def run(
    args: list[str], db: Path, docs: Path, prefix: list[str] = ()
) -> subprocess.CompletedProcess:
    new = docs.parent / "new"
    if not new.exists():
        new.mkdir()
        (new / "fresh.md").write_text("# Fresh\n\nA file the index does not hold yet.\n")
    names = {"DB": str(db), "DOCS": str(docs), "NEW": str(new)}
    argv = [names.get(a, a) for a in args]
    return subprocess.run(
        [*prefix, str(CLI), *argv, *([] if args[0] in ("explain",) else ["--json"])],
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_one_line(proc: subprocess.CompletedProcess, *needles: str) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


# -- damage kinds -----------------------------------------------------------------------
def overwrite_pages(db: Path) -> None:
    """Random bytes over every page but the schema and meta pages (1-3)."""
    data = bytearray(db.read_bytes())
    rnd = random.Random(7)
    for offset in range(3 * PAGE, len(data), PAGE):
        data[offset : offset + PAGE] = rnd.randbytes(PAGE)
    db.write_bytes(bytes(data))


def bad_schema_version(db: Path) -> None:
    conn = apsw.Connection(str(db))
    conn.execute("UPDATE meta SET value = 'x' WHERE key = 'schema_version'")
    conn.close()


DAMAGE = {
    "corrupt": (overwrite_pages, "is damaged", "PRAGMA integrity_check"),
    "schema_version": (bad_schema_version, "schema_version 'x'", "damaged"),
    "truncated": (truncate_half, "is damaged", "PRAGMA integrity_check"),
}


@pytest.mark.parametrize("command", commands(list(COMMANDS)))
@pytest.mark.parametrize("kind", list(DAMAGE))
def test_damaged_file_gives_one_line(
    good_db: Path, tmp_path: Path, kind: str, command: str
) -> None:
    damage, *needles = DAMAGE[kind]
    db = tmp_path / "index.db"
    shutil.copy(good_db, db)
    damage(db)
    before = db.read_bytes()
    proc = run(COMMANDS[command], db, good_db.parent / "docs")
    if kind in ("corrupt", "truncated") and command == "explain" and proc.returncode == 0:
        # explain reads little past the schema (page 1), which is intact: a plan is a fine
        # answer (with `cell_size_check` on, the pages it reads do show the damage).
        pass
    else:
        assert proc.returncode == EXIT_DAMAGED, proc.stderr
        assert_one_line(proc, "error: ", str(db), *needles)
    assert db.read_bytes() == before
    assert not Path(str(db) + "-wal").exists() or Path(str(db) + "-wal").stat().st_size == 0


# -- read-only file, read-only folder (as a user without DAC override) --------------------
@pytest.fixture(scope="module")
def unprivileged() -> list[str]:
    if os.geteuid() != 0:
        return []
    if not shutil.which("setpriv"):
        pytest.skip("running as root and no setpriv to drop CAP_DAC_OVERRIDE")
    probe = subprocess.run([*DROP_CAPS, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"setpriv cannot drop capabilities here: {probe.stderr.decode().strip()}")
    return DROP_CAPS


def side_files(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name + "-"))


@pytest.mark.parametrize("command", commands(list(READERS) + list(WRITERS)))
@pytest.mark.parametrize("where", ["444 file", "444 file in 555 folder"])
def test_read_only_index(
    good_db: Path, tmp_path: Path, unprivileged: list[str], where: str, command: str
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "index.db"
    shutil.copy(good_db, db)
    db.chmod(0o444)
    if "555" in where:
        folder.chmod(0o555)
    before = db.read_bytes()
    # Prove the setup: this user really cannot write the file.
    probe = subprocess.run([*unprivileged, "sh", "-c", f"echo >> '{db}'"], capture_output=True)
    assert probe.returncode != 0, "the unprivileged user can write the file; the test is void"
    try:
        proc = run(COMMANDS[command], db, good_db.parent / "docs", unprivileged)
        if command in READERS:
            assert proc.returncode == 0, proc.stderr
            assert_one_line(proc, "note: ", "immutable", str(db))
            assert proc.stdout.strip() not in ("", "[]")
            assert side_files(db) == []  # no -wal/-shm left with this user's owner and modes
        else:
            assert proc.returncode == EXIT_STORAGE, proc.stderr
            assert_one_line(proc, "error: ", str(db), "cannot be written", "read-only")
    finally:
        folder.chmod(0o755)
    assert db.read_bytes() == before


def test_writable_index_gets_no_note(good_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    shutil.copy(good_db, db)
    proc = run(READERS["status"], db, good_db.parent / "docs")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


# -- full disk ------------------------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / f"tmpfs-{uuid.uuid4().hex[:6]}"
    mount.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)], capture_output=True
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {proc.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def fill(mount: Path, leave: int) -> None:
    fd = os.open(mount / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            st = os.statvfs(mount)
            if st.f_bavail * st.f_frsize <= leave:
                break
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)


def integrity(db: Path) -> str:
    conn = apsw.Connection(
        f"file:{db}?immutable=1", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    )
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


@pytest.mark.parametrize("command", commands(list(READERS) + list(WRITERS)))
def test_full_disk(good_db: Path, small_disk: Path, command: str) -> None:
    """No byte free: writers say so in one line and write nothing; readers still read."""
    db = small_disk / "index.db"
    shutil.copy(good_db, db)
    fill(small_disk, 0)
    before = db.read_bytes()
    proc = run(COMMANDS[command], db, good_db.parent / "docs")
    if command in READERS:
        assert proc.returncode == 0, proc.stderr
        assert_one_line(proc, "note: ", "immutable")
    else:
        assert proc.returncode == EXIT_STORAGE, proc.stderr
        assert_one_line(proc, "error: no space left to write", str(db), "free some space")
    assert db.read_bytes() == before


def test_disk_fills_during_index(good_db: Path, small_disk: Path, tmp_path: Path) -> None:
    """The disk fills mid-run: one line (no "cannot rollback"), and a consistent file."""
    db = small_disk / "index.db"
    shutil.copy(good_db, db)
    more = tmp_path / "more"
    more.mkdir()
    body = "".join(f"## Part {i}\n\n" + f"word{i} filler text " * 40 + "\n\n" for i in range(40))
    for n in range(10):
        (more / f"m{n:02d}.md").write_text(f"# More {n}\n\n{body}")
    fill(small_disk, 100_000)
    proc = run(WRITERS["index"], db, more)
    assert proc.returncode == EXIT_STORAGE, proc.stderr
    assert_one_line(proc, "error: no space left to write", str(db))
    assert "rollback" not in proc.stderr
    os.remove(small_disk / "filler")
    assert integrity(db) == "ok"
    again = run(WRITERS["index"], db, more)  # with space again, the run completes
    assert again.returncode == 0, again.stderr


# -- bit flips: damage that only some reads meet (the hostile corpus's damaged index) -------
FLIP_SEEDS = [1, 2, 3]


@pytest.mark.parametrize("seed", FLIP_SEEDS)
def test_bit_flipped_index_is_caught_before_any_write(
    good_db: Path, tmp_path: Path, seed: int
) -> None:
    """200 random bit flips past the schema pages (quick_check fails). Writers check the
    file before their first write: one line, exit 3, the bytes as they were. `status`
    checks it too. Other readers answer, or meet the damage and say so in one line."""
    db = tmp_path / "index.db"
    shutil.copy(good_db, db)
    flip_bits(db, flips=200, seed=seed)
    before = db.read_bytes()
    for command in ("index", "embed", "status"):
        proc = run(COMMANDS[command], db, good_db.parent / "docs")
        assert proc.returncode == EXIT_DAMAGED, (command, proc.stderr)
        assert_one_line(proc, "error: ", str(db), "is damaged", "integrity_check")
        assert db.read_bytes() == before, command
    for command in ("toc", "query", "search", "context", "get"):
        proc = run(COMMANDS[command], db, good_db.parent / "docs")
        assert "Traceback" not in proc.stderr, (command, proc.stderr)
        if proc.returncode != 0:  # get of a damaged document may also just not find it
            assert proc.returncode in (EXIT_DAMAGED, 1), (command, proc.stderr)
            assert len(proc.stderr.splitlines()) == 1, (command, proc.stderr)
        assert db.read_bytes() == before, command


def test_status_of_a_sound_index_says_it_was_checked(good_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    shutil.copy(good_db, db)
    proc = run(READERS["status"], db, good_db.parent / "docs")
    assert proc.returncode == 0, proc.stderr
    assert '"integrity": "ok (quick_check)"' in proc.stdout


def test_damaged_text_value_is_one_line(good_db: Path, tmp_path: Path) -> None:
    """A text value that is not UTF-8 passes quick_check (SQLite checks structure, not
    text): the read that meets it says the file is damaged, in one line, exit 3. Readers
    leave the bytes as they were; a writer stops at that read, so what it committed
    before (here `embed --replace`'s switch of model) stays, in a file still sound."""
    db = tmp_path / "index.db"
    shutil.copy(good_db, db)
    conn = apsw.Connection(str(db))
    conn.execute("UPDATE chunks SET content = CAST(X'41FF42' AS TEXT) WHERE id = 1")
    conn.execute("UPDATE documents SET path = CAST(X'C3' AS TEXT) WHERE id = 1")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    before = db.read_bytes()
    for command in ("status", "toc", "query", "embed"):
        proc = run(COMMANDS[command], db, good_db.parent / "docs")
        if command == "status":
            assert proc.returncode == 0, proc.stderr  # no row of documents is read as text
            continue
        assert proc.returncode == EXIT_DAMAGED, (command, proc.stderr)
        assert_one_line(proc, "error: ", "is damaged", "not valid UTF-8")
        if command in READERS:
            assert db.read_bytes() == before, command
    assert integrity(db) == "ok"


# -- not an index ------------------------------------------------------------------------
def foreign_sqlite(db: Path) -> None:
    conn = apsw.Connection(str(db))
    conn.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
    conn.close()


def text_file(db: Path) -> None:
    db.write_text("just some notes, not a database\n" * 200)


FOREIGN = {"another program's database": foreign_sqlite, "a text file": text_file}


@pytest.mark.parametrize("command", commands(list(READERS) + list(WRITERS)))
@pytest.mark.parametrize("kind", list(FOREIGN))
def test_foreign_file_is_exit_2_and_left_alone(tmp_path: Path, kind: str, command: str) -> None:
    db = tmp_path / "index.db"
    FOREIGN[kind](db)
    before = db.read_bytes()
    docs = tmp_path / "docs"  # run() writes a new file next to it
    shutil.copytree(DATASETS / "en" / "handbook", docs)
    proc = run(COMMANDS[command], db, docs)
    assert proc.returncode == EXIT_FOREIGN, proc.stderr
    assert_one_line(proc, "error: ", str(db), "not")
    assert db.read_bytes() == before


# -- a read-only mount ----------------------------------------------------------------------
@pytest.fixture
def read_only_mount(good_db: Path, tmp_path: Path) -> Iterator[Path]:
    """A folder holding a copy of the index, bind-mounted read-only: root cannot write
    it either (EROFS), so this needs no setpriv."""
    source, mount = tmp_path / "src", tmp_path / "ro"
    source.mkdir()
    mount.mkdir()
    shutil.copy(good_db, source / "index.db")
    done = subprocess.run(["mount", "--bind", str(source), str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {done.stderr.decode().strip()}")
    try:
        ro = subprocess.run(
            ["mount", "-o", "remount,ro,bind", str(mount)], capture_output=True, text=True
        )
        if ro.returncode != 0:
            pytest.skip(f"cannot remount read-only here: {ro.stderr.strip()}")
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


@pytest.mark.parametrize("command", commands(list(READERS) + list(WRITERS)))
def test_read_only_mount(good_db: Path, read_only_mount: Path, command: str) -> None:
    db = read_only_mount / "index.db"
    before = db.read_bytes()
    proc = run(COMMANDS[command], db, good_db.parent / "docs")
    if command in READERS:
        assert proc.returncode == 0, proc.stderr
        assert_one_line(proc, "note: ", "immutable", "read-only file system")
    else:
        assert proc.returncode == EXIT_STORAGE, proc.stderr
        assert_one_line(proc, "error: ", str(db), "cannot be written", "read-only file system")
    assert db.read_bytes() == before
    new = read_only_mount / "new.db"
    if command == "index":  # creating an index there says the same
        proc = run(["index", str(new), "DOCS"], new, good_db.parent / "docs")
        assert proc.returncode == EXIT_STORAGE, proc.stderr
        assert_one_line(proc, "error: ", "cannot be written", "read-only file system")


# -- busy ---------------------------------------------------------------------------------
@pytest.mark.parametrize("command", commands(list(WRITERS)))
def test_busy_index(good_db: Path, tmp_path: Path, command: str) -> None:
    """Another process holds the write lock past the busy timeout (10 s): exit 5, one line,
    nothing of this run written."""
    db = tmp_path / "index.db"
    shutil.copy(good_db, db)
    holder = apsw.Connection(str(db))
    holder.execute("PRAGMA journal_mode = WAL")
    holder.execute("BEGIN IMMEDIATE")
    try:
        proc = run(COMMANDS[command], db, good_db.parent / "docs")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert proc.returncode == EXIT_BUSY, proc.stderr
    assert_one_line(proc, "error: ", str(db), "is busy")


# -- the check an index run starts before its walk ------------------------------------------
def test_an_index_run_checks_the_file_on_a_thread_while_it_walks(
    good_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's one quick_check runs on its own thread, started before the walk (which
    the check overlaps); the writer's open takes its verdict instead of checking again.
    A damaged file is refused from that verdict, its bytes as they were."""
    import threading

    from docql_sqlite.errors import DatabaseCorrupt
    from docql_sqlite.ingest import run as ingest_run
    from docql_sqlite.store.sqlite import db as sqlite_db

    calls: list[str] = []
    check = sqlite_db.check_damage

    def recording(*args: object, **kwargs: object) -> object:
        calls.append(threading.current_thread().name)
        return check(*args, **kwargs)  # type: ignore[arg-type]

    walked_while_checking: list[bool] = []
    walk_inputs = ingest_run.walk_inputs

    def walk(*args: object) -> object:
        # The check began before the walk: its thread runs, or has already checked.
        running = any(t.name == "docql-quick-check" for t in threading.enumerate())
        walked_while_checking.append(running or bool(calls))
        return walk_inputs(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite_db, "check_damage", recording)
    monkeypatch.setattr(ingest_run, "walk_inputs", walk)
    db = tmp_path / "index.db"
    shutil.copy(good_db, db)
    ingest_run.index_paths(db, [str(good_db.parent / "docs")])
    assert calls == ["docql-quick-check"] and walked_while_checking == [True]

    calls.clear()
    flip_bits(db, flips=200, seed=1)
    before = db.read_bytes()
    with pytest.raises(DatabaseCorrupt, match="is damaged"):
        ingest_run.index_paths(db, [str(good_db.parent / "docs")])
    assert calls == ["docql-quick-check"]
    assert db.read_bytes() == before


def test_a_run_that_fails_before_opening_the_file_stops_its_check(
    good_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docql_sqlite.errors import UsageError
    from docql_sqlite.ingest import run as ingest_run

    started: list[object] = []
    start_check = ingest_run.start_check

    def keep(location: object) -> object:
        started.append(start_check(location))
        return started[-1]

    monkeypatch.setattr(ingest_run, "start_check", keep)
    db = tmp_path / "index.db"
    shutil.copy(good_db, db)
    with pytest.raises(UsageError, match="no such file"):
        ingest_run.index_paths(db, [str(tmp_path / "missing")])
    (check,) = started
    assert check.stopped  # type: ignore[attr-defined]
    check.thread.join(timeout=10)  # type: ignore[attr-defined]
    assert not check.thread.is_alive()  # type: ignore[attr-defined]


def test_a_first_read_that_meets_sqlite_protocol_is_tried_again_then_busy() -> None:
    """SQLITE_PROTOCOL (a WAL index changing under a reader) is transient: the first read
    of a file tries again, and when it keeps failing the answer is busy (exit 5: run
    again), not "cannot read" (exit 2: fix the command)."""
    import apsw

    from docql_sqlite.errors import DatabaseBusy
    from docql_sqlite.store.sqlite import db

    class Flaky:
        def __init__(self, failures: int) -> None:
            self.failures = failures

        def execute(self, sql: str) -> list[tuple[str]]:
            if self.failures:
                self.failures -= 1
                raise apsw.ProtocolError("locking protocol")
            return [("meta",), ("documents",)]

    flaky = Flaky(db.PROTOCOL_RETRIES)
    assert db._table_names(flaky, "x.db") == {"meta", "documents"}  # type: ignore[arg-type]
    with pytest.raises(DatabaseBusy) as caught:
        db._table_names(Flaky(db.PROTOCOL_RETRIES + 1), "x.db")  # type: ignore[arg-type]
    assert caught.value.exit_code == 5 and "'x.db' is busy" in str(caught.value)
    assert isinstance(db.translate(apsw.ProtocolError("locking protocol"), "x.db"), DatabaseBusy)
