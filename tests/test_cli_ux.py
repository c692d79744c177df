"""The CLI for daily use (issue 8, items 9, 10, 11, 14, 15), through the real command:

- `get` reads every location form the tool prints; past the end it says how long the
  document is and exits non-zero.
- Tables people can read: fitted to the width (`$COLUMNS`, or the terminal's own width
  on a real pseudo-terminal), file names and line numbers never cut, bodies left out;
  `--fields` in every output format and on every command that prints rows.
- Exit codes scripts can trust: Ctrl-C (SIGINT to the process group, as a terminal
  sends it) mid-index exits 130 with an intact file; `| head -1` under `set -o pipefail`
  exits 0; a missing or foreign database is one line and exit 2 for every command.
- JSON by default when piped, for every command; whole-sentence command help.
- Docs that match the code: TypeScript `type` aliases are `$.code.classes`; the HTTP
  embedder reads OPENAI_BASE_URL/OPENAI_API_KEY; the docs mention only files that exist.

Most cases run the installed console script in a subprocess; format variations use
click's CliRunner (the same code without an interpreter start-up each time).
"""

from __future__ import annotations

import csv
import fcntl
import glob
import io
import json
import os
import pty
import re
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apsw
import pytest
from click.testing import CliRunner
from conftest import CLI, REPO, TmpIndex, chdir, file_lines
from test_embed import FakeServer
from test_parse_pdf import GUIDE_PAGES, make_pdf

from docql_sqlite import output
from docql_sqlite.cli import cli
from docql_sqlite.errors import display_width
from docql_sqlite.ingest import IngestOptions, index_paths
from docql_sqlite.output import cut, embolden, shorten_path, unmark

DEEP = "docs/reference/v2/internals/storage/api/stream.md"  # a path too long for a narrow table
DEEP_DOC = (
    "# Streaming reads through the segment API with back-pressure and cancellation\n"  # 1
    "\n"
    "A stream yields records in key order.\n"  # 3
    "Second line of the first section.\n"
    "\n"
    "## Opening a stream with an explicit snapshot and a deadline for the first batch\n"  # 6
    "\n"
    "Call open() with a snapshot.\n"
    "\n"
    "## Closing\n"  # 10
    "\n"
    "Close it.\n"
)


def env_without_columns(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env.update(extra)
    return env


def run(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env or env_without_columns(),
        timeout=timeout,
    )


def invoke(*args: str, env: dict[str, str] | None = None) -> Any:
    """CliRunner without COLUMNS unless given (a developer's shell may export it)."""
    env = {"COLUMNS": "", **(env or {})}
    return CliRunner().invoke(cli, list(args), env=env)


@pytest.fixture
def deep(tmp_index: TmpIndex) -> TmpIndex:
    tmp_index.write(DEEP.removeprefix("docs/"), DEEP_DOC)
    tmp_index.write("manual.pdf", make_pdf(GUIDE_PAGES))
    report = tmp_index.index()
    assert report.failed == []
    return tmp_index


# -- item 9: get takes every location the tool prints --------------------------------------
DEEP_LINES = DEEP_DOC.split("\n")[:-1]


@pytest.mark.parametrize(
    "location, first, last",
    [
        (DEEP, 1, 12),
        (f"{DEEP}:6", 6, 6),  # a one-line result's location
        (f"{DEEP}:6-8", 6, 8),  # a range, as every result prints it
        (f"{DEEP}:3:2", 3, 4),  # FROM:COUNT
        (f"{DEEP}:10-99", 10, 12),  # a range past the end stops at the end
        ("stream.md:1-3", 1, 3),  # a unique suffix of the path
    ],
)
def test_get_line_forms(deep: TmpIndex, location: str, first: int, last: int) -> None:
    assert file_lines(deep.root / DEEP) == DEEP_LINES
    out = invoke("get", "--json", "index.db", location)
    assert out.exit_code == 0, out.stderr
    assert json.loads(out.stdout) == [
        {"path": DEEP, "line": n, "text": DEEP_LINES[n - 1]} for n in range(first, last + 1)
    ]


def test_every_printed_location_reads_back(deep: TmpIndex) -> None:
    """Each location `query` prints is a `get` argument naming that item's lines."""
    items = json.loads(invoke("query", "--json", "index.db", "$.toc").stdout)
    assert len(items) > 3
    for item in items:
        rows = json.loads(invoke("get", "--json", "index.db", item["location"]).stdout)
        if item["page"] is None:
            assert (rows[0]["line"], rows[-1]["line"]) == (item["line"], item["end_line"])
        else:  # a PDF heading's location is the page it starts on
            assert item["location"].endswith(f":page {item['page']}")
            assert rows[0]["line"] <= item["line"] <= rows[-1]["line"]
            assert rows[item["line"] - rows[0]["line"]]["text"] == item["title"]


@pytest.mark.parametrize("form", ["docs/manual.pdf:page {n}", "docs/manual.pdf#page={n}"])
def test_get_page_forms(deep: TmpIndex, form: str) -> None:
    # GUIDE_PAGES: page 2 is lines 3-6, page 4 lines 8-12 (the parser's own test says so).
    for page, (first, last) in ((2, (3, 6)), (4, (8, 12))):
        if page == 2:  # the real script once, piped: JSON by default
            out = run("get", "index.db", form.format(n=page), cwd=deep.root)
            assert out.returncode == 0, out.stderr
            rows = json.loads(out.stdout)
        else:
            rows = json.loads(invoke("get", "index.db", form.format(n=page)).stdout)
        assert [r["line"] for r in rows] == list(range(first, last + 1))
        words = " ".join(" ".join(GUIDE_PAGES[page - 1]).split())
        assert " ".join(" ".join(r["text"] for r in rows).split()) == words


@pytest.mark.parametrize(
    "location, message",
    [
        (f"{DEEP}:13", f"{DEEP} has 12 lines; line 13 is past its end"),
        (f"{DEEP}:40:5", f"{DEEP} has 12 lines; line 40 is past its end"),
        ("docs/manual.pdf:page 9", "docs/manual.pdf has 5 pages; page 9 is past its end"),
        ("docs/manual.pdf#page=6", "docs/manual.pdf has 5 pages; page 6 is past its end"),
        (f"{DEEP}:page 1", f"{DEEP} has no pages"),
    ],
)
def test_get_past_the_end_says_how_long(deep: TmpIndex, location: str, message: str) -> None:
    if location.endswith(":13"):  # the real script once
        out = run("get", "--text", "index.db", location, cwd=deep.root)
        code, stdout, stderr = out.returncode, out.stdout, out.stderr
    else:
        result = invoke("get", "--text", "index.db", location)
        code, stdout, stderr = result.exit_code, result.stdout, result.stderr
    assert code == 1 and stdout == ""
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {message}"), stderr


# -- item 10: tables people can read; --fields everywhere ------------------------------
def test_shorten_path_keeps_file_name_and_lines() -> None:
    loc = "docs/reference/v2/api/stream.md:62-63"
    assert shorten_path(loc, 100) == loc
    assert shorten_path(loc, 30) == "…/v2/api/stream.md:62-63"
    assert shorten_path(loc, 24) == "…/v2/api/stream.md:62-63"  # exactly 24
    assert shorten_path(loc, 23) == "…/api/stream.md:62-63"
    assert shorten_path(loc, 5) == "…/stream.md:62-63"  # never less than the file name
    assert shorten_path("manual/guide.pdf:page 9", 15) == "…/guide.pdf:page 9"
    assert shorten_path("a/b/c/d.md", 7) == "…/d.md"  # a path without lines
    assert shorten_path("stream.md:62-63", 3) == "stream.md:62-63"  # nothing to leave out
    assert cut("配置 Configuration", 8) == "配置 Co…" and display_width(cut("配置配置配置", 7)) <= 7


def table_rows(text: str) -> tuple[list[str], list[list[str]]]:
    """Header and cells of a table: columns start where the dashes under them start."""
    lines = text.splitlines()
    starts = [m.start() for m in re.finditer(r"-+", lines[1])]

    def split(line: str) -> list[str]:
        # Columns are found by display width (a CJK character takes two cells).
        cells, col, buf = [], 0, ""
        bounds = starts[1:] + [10**9]
        for ch in line:
            if col >= bounds[len(cells)]:
                cells.append(buf.strip())
                buf = ""
            buf += ch
            col += display_width(ch)
        cells.append(buf.strip())
        return cells + [""] * (len(starts) - len(cells))

    return split(lines[0]), [split(line) for line in lines[2:]]


@pytest.mark.parametrize("width", [60, 80, 44])
def test_table_fits_width_and_keeps_locations(deep: TmpIndex, width: int) -> None:
    items = json.loads(invoke("query", "--json", "index.db", "$.toc").stdout)
    out = invoke("query", "-t", "index.db", "$.toc", env={"COLUMNS": str(width)})
    assert out.exit_code == 0, out.stderr
    assert all(display_width(line) <= width for line in out.stdout.splitlines()), out.stdout
    header, rows = table_rows(out.stdout)
    assert header[0] == "location" and "path" not in header and "line" not in header
    assert len(rows) == len(items)
    for row, item in zip(rows, items):
        shown, real = row[0], item["location"]
        name_and_lines = real.rsplit("/", 1)[1]
        assert shown == real or (shown.startswith("…/") and real.endswith(shown[1:])), shown
        assert shown.endswith(name_and_lines)  # the file name and line numbers are all there
        title = row[header.index("title")]
        assert title == item["title"] or (
            title.endswith("…") and item["title"].startswith(title[:-1])
        ), title
    # at 60 columns the deep path is shortened and the long titles are cut
    if width <= 60:
        assert any(row[0].startswith("…/") for row in rows)
        assert any(row[header.index("title")].endswith("…") for row in rows)


def test_table_leaves_bodies_to_json(deep: TmpIndex) -> None:
    query = '$.content.heading("Opening")'
    out = invoke("query", "-t", "index.db", query)
    header, rows = table_rows(out.stdout)
    assert "content" not in header and "Call open()" not in out.stdout
    assert rows[0][0] == f"{DEEP}:6-9"  # no width: cells whole
    asked = invoke("query", "-t", "--fields", "location,content", "index.db", query)
    header, rows = table_rows(asked.stdout)
    heading = "## Opening a stream with an explicit snapshot and a deadline for the first batch"
    assert header == ["location", "content"] and rows == [[f"{DEEP}:6-9", heading + " …"]]
    md = invoke("query", "--md", "index.db", query).stdout
    assert "Call open()" not in md and f"| {DEEP} |" in md  # md: whole values, no body
    full = json.loads(invoke("query", "--json", "index.db", query).stdout)[0]["content"]
    assert "Call open() with a snapshot." in full


def pty_run(args: list[str], cwd: Path, columns: int, **env: str) -> str:
    """Run the CLI with stdout on a pseudo-terminal `columns` wide; its output, LF ends."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    environ = env_without_columns(**env)
    for name in [k for k, v in env.items() if v == ""]:  # "" means: not set
        del environ[name]
    proc = subprocess.Popen(
        [str(CLI), *args], stdout=slave, stderr=subprocess.PIPE, cwd=cwd, env=environ
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def test_terminal_defaults_on_a_real_pty(deep: TmpIndex) -> None:
    """On a terminal: a table fitted to the terminal's own width; `get` prints text."""
    table = pty_run(["query", "index.db", "$.toc"], deep.root, columns=50)
    lines = table.splitlines()
    assert lines[0].split()[0] == "location" and all(display_width(x) <= 50 for x in lines)
    assert any(line.startswith("…/api/stream.md:") for line in lines)
    text = pty_run(["get", "index.db", f"{DEEP}:3-4"], deep.root, columns=50)
    assert text == "A stream yields records in key order.\nSecond line of the first section.\n"


BOLD, RESET = "\x1b[1m", "\x1b[0m"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.parametrize(
    "marked, plain, hits",
    [
        ("…**lexer** = DocQLLexer(**lexer**)…", "…lexer = DocQLLexer(lexer)…", ["lexer", "lexer"]),
        ("**架构** 设计", "架构 设计", ["架构"]),
        ("f(**kwargs) and a ** b", "f(**kwargs) and a ** b", []),  # no marks: source text
        ("**two words** here", "two words here", ["two words"]),
        ("no hits", "no hits", []),
    ],
)
def test_unmark_keeps_the_text_and_finds_each_hit(marked: str, plain: str, hits: list) -> None:
    text, spans = unmark(marked)
    assert text == plain and [text[a:b] for a, b in spans] == hits
    assert ANSI.sub("", embolden(text, spans)) == plain


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("width", [36, 60, 200])
def test_terminal_tables_show_hits_in_bold_and_fit(monkeypatch, width: int) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    rows = [{"location": "a.md:1-2", "snippet": "…the **lexer** splits **tokens** on whitespace…"}]
    screen = FakeTerminal()
    output.write(rows, "table", screen, width=width)
    shown = screen.getvalue().splitlines()
    visible = [ANSI.sub("", line) for line in shown]
    assert all(display_width(line) <= width for line in visible)
    assert "**" not in screen.getvalue()
    # every bold run is a hit (or the part of one that fitted), never the cut mark
    bold = re.findall(re.escape(BOLD) + "(.*?)" + re.escape(RESET), shown[2])
    assert bold and all(b and ("lexer".startswith(b) or "tokens".startswith(b)) for b in bold)
    assert "…" + RESET not in shown[2]
    if width == 200:
        assert bold == ["lexer", "tokens"] and visible[2].endswith("on whitespace…")


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}, {}])
def test_marks_stay_as_they_are_without_a_colour_terminal(monkeypatch, env: dict) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    rows = [{"location": "a.md:1", "snippet": "the **lexer** splits"}]
    stream = FakeTerminal() if env else io.StringIO()  # {}: a file, not a terminal
    output.write(rows, "table", stream, width=80)
    assert "the **lexer** splits" in stream.getvalue() and BOLD not in stream.getvalue()


def test_search_hits_are_bold_on_a_real_pty(deep: TmpIndex) -> None:
    shown = pty_run(
        ["search", "index.db", "snapshot", "--fields", "location,snippet"],
        deep.root,
        columns=200,
        TERM="xterm",
        NO_COLOR="",
    )
    assert BOLD + "snapshot" + RESET in shown and "**snapshot**" not in shown
    piped = run(
        "search", "index.db", "snapshot", "--fields", "location,snippet", "-t", cwd=deep.root
    )
    assert "**snapshot**" in piped.stdout and BOLD not in piped.stdout


FORMAT_FIELDS = ("location", "title", "level")


def parse(fmt: str, text: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows (as text) of any output format."""
    if fmt == "json":
        items = json.loads(text)
        return list(items[0]), [[str(v) for v in i.values()] for i in items]
    if fmt == "nl":
        items = [json.loads(line) for line in text.splitlines()]
        return list(items[0]), [[str(v) for v in i.values()] for i in items]
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(text)))
        return rows[0], rows[1:]
    if fmt == "md":
        rows = [[c.strip() for c in line.strip("|").split(" | ")] for line in text.splitlines()]
        return rows[0], rows[2:]
    return table_rows(text)


@pytest.mark.parametrize("fmt", ["json", "nl", "csv", "table", "md"])
def test_fields_pick_and_order_columns_in_every_format(deep: TmpIndex, fmt: str) -> None:
    items = json.loads(invoke("query", "--json", "index.db", "$.toc").stdout)
    flag = {"table": "-t"}.get(fmt, f"--{fmt}")
    out = invoke("query", flag, "--fields", "level, location,title", "index.db", "$.toc")
    assert out.exit_code == 0, out.stderr
    header, rows = parse(fmt, out.stdout)
    assert header == ["level", "location", "title"]
    assert rows == [[str(i["level"]), i["location"], i["title"]] for i in items]


def test_fields_on_every_command_that_prints_rows(deep: TmpIndex) -> None:
    want = {
        ("status",): ("documents", "chunks"),
        ("status", "--errors"): ("path", "reason"),
        ("toc", DEEP): ("title", "line"),
        ("get", f"{DEEP}:1-2"): ("text", "line"),
        ("query", "$.toc"): ("title", "path"),
        ("search", "stream"): ("score", "location"),
        ("context", "stream"): ("section", "path", "line"),  # of the blocks
        ("index", "docs"): ("unchanged", "failed"),
        ("embed", "--model", "hash"): ("model", "embedded"),
    }
    deep.write("latin1.md", b"caf\xe9\n")  # a warning row for status --errors
    deep.index()
    for (command, *rest), fields in want.items():
        args = [command, "--json", "--fields", ",".join(fields), "index.db", *rest]
        out = invoke(*args)
        assert out.exit_code in (0, 1), (args, out.stderr)
        items = json.loads(out.stdout)
        if command == "context":
            items = items[0]["blocks"]
        assert items and all(list(i) == list(fields) for i in items), (args, out.stdout)


@pytest.mark.parametrize(
    "args, message",
    [
        (["query", "--fields", "locaton", "index.db", "$.toc"], "unknown field 'locaton'"),
        (["query", "--fields", "name", "index.db", "$.toc.title"], "plain values"),
        (["get", "--text", "--fields", "line", "index.db", DEEP], "--text prints the lines"),
    ],
)
def test_fields_errors_are_one_line_usage_errors(
    deep: TmpIndex, args: list[str], message: str
) -> None:
    out = run(*args, cwd=deep.root)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.splitlines()) == 1 and message in out.stderr, out.stderr
    empty = invoke("query", "--fields", " , ", "index.db", "$.toc")
    assert empty.exit_code == 2 and "at least one field name" in empty.stderr


# -- item 11: Ctrl-C, closed pipes, databases that are not indexes --------------------------
MANY = 300


def _notes(root: Path, count: int, folders: int) -> Path:
    """`count` Markdown notes of ~2.6 KB under root/tree, in `folders` folders."""
    for n in range(count):
        path = root / "tree" / f"part{n % folders}" / f"note{n:04}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = f"Words about topic {n} and its neighbours. " * 60
        path.write_text(f"# Note {n}\n\n{body}\n\n## Details {n}\n\nMore on {n}.\n")
    return root


@pytest.fixture(scope="module")
def many_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _notes(tmp_path_factory.mktemp("many"), MANY, 12)


def documents_in(db: Path) -> int:
    try:
        conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            return int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])
        finally:
            conn.close()
    except apsw.Error:  # not created yet, or the schema not yet committed
        return 0


# Files for the Ctrl-C test: enough that the run outlasts the poll for its first commit
# and the signal's delivery (300 are indexed in ~0.3 s, 2,000 in ~1.5 s).
INTERRUPTED = 2000


@pytest.fixture(scope="module")
def more_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _notes(tmp_path_factory.mktemp("more"), INTERRUPTED, 40)


def _sigint_as_in_a_terminal() -> None:
    # A process started in the background by a shell without job control (`cmd &` in a
    # script, as a CI runner may start pytest) inherits SIGINT ignored, and Python then
    # installs no KeyboardInterrupt handler: the CLI under test would ignore the Ctrl-C
    # this test sends, as such a shell means it to (two runs of this session's CI failed
    # so). In a terminal the signal has its default action.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_mid_index_exits_130_and_the_next_run_completes(more_files: Path) -> None:
    db = more_files / "interrupted.db"
    proc = subprocess.Popen(
        [str(CLI), "index", str(db), "tree", "--workers", "2"],
        cwd=more_files,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, which gets the SIGINT, as in a terminal
        preexec_fn=_sigint_as_in_a_terminal,
    )
    deadline = time.monotonic() + 60
    started = time.monotonic()
    while documents_in(db) == 0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    # (if not, the test saw no commit before the run's end: a race of the test's own)
    assert proc.poll() is None, f"the run ended after {time.monotonic() - started:.2f} s"
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: parent and workers alike
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (proc.returncode, err)
    assert err.strip().splitlines()[-1] == "interrupted" and "Traceback" not in err, err
    assert out == ""
    kept = documents_in(db)
    assert 0 < kept < INTERRUPTED  # it did stop mid-run
    check = subprocess.run(
        ["sqlite3", str(db), "PRAGMA integrity_check;"], capture_output=True, text=True
    )
    assert check.stdout.strip() == "ok", check
    again = run("index", "--json", str(db), "tree", cwd=more_files)
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)[0]
    assert (report["added"], report["unchanged"], report["failed"]) == (
        INTERRUPTED - kept,
        kept,
        0,
    )
    assert documents_in(db) == INTERRUPTED


@pytest.fixture(scope="module")
def many_db(many_files: Path) -> Path:
    db = many_files / "many.db"
    with chdir(many_files):
        index_paths(db, ["tree"], IngestOptions(workers=2))
    return db


@pytest.mark.parametrize(
    "command",
    [
        "query many.db '$.content.grep(\"topic\")'",  # ~600 kB of JSON
        "query many.db '$.toc' -t",
        "search many.db 'neighbours topic' -n 200 --nl",
        "get many.db tree/part0/note0000.md --text",
    ],
)
def test_closed_pipe_ends_quietly(many_db: Path, command: str) -> None:
    script = f"set -o pipefail; '{CLI}' {command} | head -c 100 | head -1"
    out = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, cwd=many_db.parent, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == "" and len(out.stdout.splitlines()) == 1


def test_closed_pipe_output_really_exceeds_the_pipe(many_db: Path) -> None:
    """The pipe case is only a test if the output is larger than a pipe's buffer."""
    out = run("query", "many.db", '$.content.grep("topic")', cwd=many_db.parent)
    assert len(out.stdout) > 4 * 65536


NOT_INDEXES = ["missing", "text", "empty", "other-sqlite", "directory"]
READ_COMMANDS = [
    ["status"],
    ["status", "--errors"],
    ["toc"],
    ["get", "a.md"],
    ["query", "$.toc"],
    ["query", "$.toc", "--sql"],
    ["explain", "$.toc"],
    ["search", "words"],
    ["context", "words"],
    ["map"],
    ["embed", "--model", "hash"],
    ["serve", "--port", "0"],  # refuses before any server starts
]


def make_not_an_index(path: Path, kind: str) -> None:
    if kind == "text":
        path.write_text("hello, I am not a database\n" * 10)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "other-sqlite":
        conn = apsw.Connection(str(path))
        conn.execute("CREATE TABLE notes(body TEXT)")
        conn.close()
    elif kind == "directory":
        path.mkdir()


def snapshot(path: Path) -> object:
    if path.is_dir():
        return sorted(os.listdir(path))
    return path.read_bytes() if path.exists() else None


@pytest.mark.parametrize("kind", NOT_INDEXES)
def test_not_an_index_is_one_line_and_exit_2_for_every_command(tmp_path: Path, kind: str) -> None:
    db = tmp_path / "thing.db"
    make_not_an_index(db, kind)
    before = snapshot(db)
    commands = list(READ_COMMANDS)
    if kind not in ("missing", "empty"):  # index creates a missing file and fills an empty one
        commands.append(["index", str(tmp_path)])
    for command, *rest in commands:
        out = invoke(command, str(db), *rest)
        assert out.exit_code == 2, (command, kind, out.exit_code, out.stderr)
        assert isinstance(out.exception, SystemExit), out.exception
        lines = out.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and str(db) in lines[0], lines
        assert snapshot(db) == before  # nothing created or changed
    real = run("search", str(db), "words", cwd=tmp_path)  # the real script, once per kind
    assert real.returncode == 2 and len(real.stderr.splitlines()) == 1
    assert "Traceback" not in real.stderr and real.stdout == ""


# -- item 14: JSON when piped; whole-sentence help -------------------------------------------
# Commands that serve until stopped: no rows to print (they are checked for a bad database).
SERVERS = {
    "serve": "Datasette on 127.0.0.1; its address goes to stderr",
    "mcp": "an MCP server on stdio or HTTP; it speaks JSON-RPC, not rows",
}
# Commands whose rows need a PostgreSQL server: checked where one runs.
NEEDS_POSTGRES = {"copy": "tests/test_pg_copy.py::test_cli_copy_both_ways (JSON when piped)"}


def test_every_command_prints_json_when_piped(deep: TmpIndex) -> None:
    commands = {
        "status": [],
        "toc": [DEEP],
        "get": [f"{DEEP}:1-2"],
        "query": ["$.toc"],
        "explain": ["$.toc"],
        "search": ["stream"],
        "context": ["stream"],
        "map": [],
        "index": ["docs"],
        "embed": ["--model", "hash"],
    }
    listed = set(commands) | set(SERVERS) | set(NEEDS_POSTGRES)
    assert listed == set(cli.commands), "a new command needs a case here"
    printed = {}
    for command, rest in commands.items():
        out = run(command, "index.db", *rest, cwd=deep.root)
        assert out.returncode == 0, (command, out.stderr)
        printed[command] = json.loads(out.stdout)  # nothing but JSON on stdout
        assert printed[command], command
    get_rows = printed["get"]
    assert get_rows == [{"path": DEEP, "line": n, "text": DEEP_LINES[n - 1]} for n in (1, 2)]
    pack = printed["context"]
    assert set(pack[0]) >= {"question", "budget", "chars", "strategy", "blocks", "text"}
    assert set(pack[0]["blocks"][0]) >= {"path", "line", "end_line", "section", "kind", "text"}
    text = invoke("context", "--text", "index.db", "stream").stdout  # now with vectors
    now = json.loads(invoke("context", "--json", "index.db", "stream").stdout)
    assert text == now[0]["text"] and text.startswith("--- ")


def test_help_lists_every_command_with_a_whole_sentence() -> None:
    for width in ("200", "60"):  # a narrow terminal wraps the sentence; it never cuts it
        out = subprocess.run(
            [str(CLI), "--help"],
            capture_output=True,
            text=True,
            env=env_without_columns(COLUMNS=width),
        )
        assert out.returncode == 0
        listing = out.stdout.split("Commands:\n", 1)[1]
        entries: dict[str, str] = {}
        name = ""
        for line in listing.splitlines():
            match = re.match(r"^  (\S+)\s+(.*)$", line)
            if match:
                name = match.group(1)
                entries[name] = match.group(2)
            elif line.strip():
                entries[name] += " " + line.strip()
        assert set(entries) == set(cli.commands)
        for name, text in entries.items():
            assert re.fullmatch(r"[A-Z].*[^.]\.", text), (name, text)  # one sentence, no "..."
            assert text == cli.commands[name].get_short_help_str(10**6), (name, text)


# -- item 15: docs that match the code -------------------------------------------------------
TS = """\
export type DocumentId = string;
type Props = {
  title: string;
  count?: number;
};
export interface Options { limit: number }
export class Client {
  run(): void {}
}
"""


def test_typescript_type_aliases_are_classes(tmp_index: TmpIndex) -> None:
    tmp_index.write("client.ts", TS)
    tmp_index.index()
    out = run("query", "index.db", "$.code.classes", cwd=tmp_index.root)
    kinds = {(i["name"], i["kind"]) for i in json.loads(out.stdout)}
    assert kinds == {
        ("DocumentId", "type"),
        ("Props", "type"),
        ("Options", "interface"),
        ("Client", "class"),
    }
    props = json.loads(run("query", "index.db", '$.code.class("props")', cwd=tmp_index.root).stdout)
    assert [(p["line"], p["end_line"]) for p in props] == [(2, 5)]
    assert props[0]["source"] == "".join(line + "\n" for line in TS.split("\n")[1:5])


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    server = FakeServer()
    yield server
    server.close()


def test_http_embedder_reads_the_conventional_openai_variables(
    tmp_index: TmpIndex, fake_server: FakeServer
) -> None:
    tmp_index.write("a.md", "# A\n\nSome text to embed.\n\n## B\n\nMore text.\n")
    tmp_index.index()
    env = {k: v for k, v in env_without_columns().items() if not k.startswith("DOCQL_EMBED")}
    env.update(OPENAI_BASE_URL=fake_server.url, OPENAI_API_KEY="sk-conventional")
    out = run(
        "embed", "index.db", "--model", "openai:nomic-embed-text", cwd=tmp_index.root, env=env
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)[0]
    assert report["model"] == "openai:nomic-embed-text" and report["embedded"] > 0
    assert fake_server.requests and {r["model"] for r in fake_server.requests} == {
        "nomic-embed-text"
    }
    assert {h.get("Authorization") for h in fake_server.headers} == {"Bearer sk-conventional"}
    # the DOCQL_ names win over the OPENAI_ ones
    other = FakeServer()
    try:
        env.update(DOCQL_EMBED_URL=other.url, DOCQL_EMBED_API_KEY="sk-docql")
        tmp_index.write("c.md", "# C\n\nA new passage.\n")
        again = run("index", "index.db", "docs", cwd=tmp_index.root, env=env)  # keeps vectors
        assert again.returncode == 0, again.stderr
        assert other.requests and {h.get("Authorization") for h in other.headers} == {
            "Bearer sk-docql"
        }
    finally:
        other.close()


# Mentions that are not files of this repository, each with why.
NOT_REPO_FILES = {
    "docql-spec.md": "the team's DocQL contract, kept with the shared notes",
    "notes/ecosystem.md": "shared notes outside the repository",
    "notes/corpora.md": "shared notes outside the repository",
    "notes/style-anchors.md": "shared notes outside the repository",
    "docs/zh/a.md": "an example path in docql.md's glob rules",
    "grep.sql": "the file a shell example in sql.md writes",
    "docs/drafts/*": "an example --exclude glob in the README",
    "docs/guide.md": "an example location in datasette.md",
    "sql/postgres/": "where design D12 puts a schema that is not written yet",
    "tests.py": "the name of a Django app's tests, in the rules that tell a test file",
}
REPO_PATH = re.compile(
    r"(?<![\w/.~-])((?:docql_sqlite|sql|tests|datasets|benchmarks|scripts|docs|\.ci)/[\w./*+-]*)"
)
FILE_NAME = re.compile(r"(?<![\w/.-])((?:notes/)?[\w-]+\.(?:py|sql|scm|toml|docql))\b")
# A layout block's `docs/  a.md, b.md ...` line lists the pages of docs/.
DOCS_LISTING = re.compile(r"^docs/ +(.*)$", re.M)
LINK = re.compile(r"\]\(([^)#\s]+)[^)]*\)")


def repo_files() -> list[Path]:
    skip = {".venv", ".git", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
    return [p for p in REPO.rglob("*") if not skip & set(p.relative_to(REPO).parts)]


def test_docs_mention_only_files_that_exist() -> None:
    names = {p.name for p in repo_files()}
    docs = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    missing = []
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        prose = re.sub(r"```.*?```", "", text, flags=re.S)  # `](x)` in code is not a link
        for target in LINK.findall(prose):
            if "://" not in target and not (doc.parent / target).exists():
                missing.append((doc.name, target))
        if doc.name.endswith("-history.md"):
            continue  # a dated record names the files of its day (its links must still work)
        for mention in REPO_PATH.findall(text):
            mention = mention.rstrip(".,;:)")
            if mention not in NOT_REPO_FILES and not glob.glob(str(REPO / mention.rstrip("/"))):
                missing.append((doc.name, mention))
        for listing in DOCS_LISTING.findall(text):
            for page in re.findall(r"[\w-]+\.md", listing):
                if not (REPO / "docs" / page).exists():
                    missing.append((doc.name, f"docs/{page}"))
        for mention in FILE_NAME.findall(text):
            name = mention.rsplit("/", 1)[-1]
            if mention not in NOT_REPO_FILES and name not in names:
                missing.append((doc.name, mention))
    assert missing == []


def test_docs_check_catches_a_missing_file() -> None:
    """The patterns above do see the kinds of mention that went stale before."""
    stale = "see `docql_sqlite/embed` and cli.py, or [the shell](shell.md)"
    assert REPO_PATH.findall(stale) == ["docql_sqlite/embed"]
    assert "cli.py" in FILE_NAME.findall(stale) and LINK.findall(stale) == ["shell.md"]
    layout = "```\ndocs/           docql.md (language), shell.md, reliability.md\n```"
    assert DOCS_LISTING.findall(layout) == ["docql.md (language), shell.md, reliability.md"]
    assert not glob.glob(str(REPO / "docql_sqlite/embed"))


def test_context_table_lists_the_blocks(deep: TmpIndex) -> None:
    pack = json.loads(invoke("context", "--json", "index.db", "stream snapshot").stdout)[0]
    header, rows = table_rows(invoke("context", "-t", "index.db", "stream snapshot").stdout)
    assert header == ["location", "section", "kind", "chars"]

    def where(b: dict[str, Any]) -> str:
        lines = f"{b['line']}" if b["line"] == b["end_line"] else f"{b['line']}-{b['end_line']}"
        return f"{b['path']}:{lines}"

    assert rows == [
        [where(b), b["section"] or "", b["kind"], str(len(b["text"]))] for b in pack["blocks"]
    ]
    for command in ("get", "context"):  # their terminal default is text, and help says so
        help_text = invoke(command, "--help").stdout
        assert re.search(r"--text +\S.*\(default on a terminal\)", help_text)
        assert help_text.count("(default on a terminal)") == 1


def test_a_python_warning_about_a_users_regex_is_one_line(deep: TmpIndex) -> None:
    """Python's `re` warns of `&&` in a character class ("Possible set intersection"): the
    CLI shows it as one `warning:` line and answers (it printed a TypeError traceback)."""
    proc = run(
        "query", str(deep.db), "$.toc[?(@.title=~/[I&&n]/)]", "--fields", "title", cwd=deep.root
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "warning: FutureWarning: Possible set intersection at position 2"
    ]
    assert json.loads(proc.stdout)


@pytest.mark.parametrize(
    "command",
    [
        ["query", "$.toc"],
        ["search", "snapshot"],
    ],
)
@pytest.mark.parametrize(
    "glob, hint",
    [
        # anchored at the start: the indexed paths start with docs/
        ("reference/**", "'**/reference/**' matches it at any depth"),
        ("nothing.md", None),
    ],
)
def test_a_path_glob_that_matches_no_document_says_so(
    deep: TmpIndex, command: list[str], glob: str, hint: str | None
) -> None:
    """`--path reference/**` over paths that start with `docs/` matched nothing and printed
    "no results", as if nothing in those documents matched the query."""
    result = invoke(command[0], str(deep.db), command[1], "--path", glob, "-t")
    assert result.exit_code == 0, result.output
    note = f"note: --path '{glob}' matches no indexed document (indexed paths look like 'docs/"
    assert note in result.output
    assert (hint in result.output) if hint else ("anchored" not in result.output)
    # a glob that matches documents, with nothing found in them: no such note
    found = invoke(command[0], str(deep.db), command[1], "--path", "**/reference/**", "-t")
    assert "matches no indexed document" not in found.output
