"""No file name or document text can drive the terminal (issue 20, item 8).

A file named `c\\x01\\x1b[31mred\\a.md`, holding ESC, OSC, BEL, CR and a C1 CSI, and a
failing file with such a name are really indexed; then every command and output format
runs as the installed CLI, with stdout a pseudo-terminal (what a person sees) or a pipe
(what a program reads). On a terminal, and on stderr, no raw control character may come
out (but newline and tab, and the bold marks the table itself writes); the name must
still be there, escaped as `\\xNN` (design B19's form). Piped, `csv` and `--text` keep
exact values, and JSON stays JSON that decodes to the stored name.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / ".venv" / "bin" / "docql-sqlite"

NAME = "c\x01\x1b[31mred\a.md"
SHOWN = "c\\x01\\x1b[31mred\\x07.md"  # how a terminal shows it
BAD_NAME = "bad\x1b]0;pwned\a.md"  # a file that fails to index (a NUL makes it binary)
BAD_SHOWN = "bad\\x1b]0;pwned\\x07.md"
TEXT = "# Tit\x1b[32mle\a\n\nsome red text \x1b]0;pwned\a with a csi\x9b31m and a\rreturn\n"
# Raw bytes no terminal may see from us: C0 but tab and newline, DEL, C1 (as UTF-8).
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
OUR_BOLD = ("\x1b[1m", "\x1b[0m")  # the table's own bold marks on a terminal


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("escapes")
    docs = root / "c"
    docs.mkdir()
    (docs / NAME).write_text(TEXT, encoding="utf-8")
    (docs / "plain.md").write_text("# Plain\n\nred text\n", encoding="utf-8")
    (docs / BAD_NAME).write_bytes(b"a\x00b")
    database = root / "t.db"
    run = subprocess.run(
        [str(CLI), "index", str(database), "c", "--json"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1, run.stderr  # the bad file failed
    return database


def run_cli(args: list[str], terminal: bool, cwd: Path | None = None) -> tuple[str, str, int]:
    """The CLI's stdout and stderr, with stdout a pseudo-terminal or a pipe."""
    env = dict(os.environ, COLUMNS="200", NO_COLOR="")
    env.pop("NO_COLOR")
    if not terminal:
        run = subprocess.run([str(CLI), *args], capture_output=True, timeout=60, env=env, cwd=cwd)
        return run.stdout.decode(), run.stderr.decode(), run.returncode
    primary, secondary = pty.openpty()
    process = subprocess.Popen(
        [str(CLI), *args], stdout=secondary, stderr=subprocess.PIPE, env=env, cwd=cwd
    )
    os.close(secondary)
    chunks = []
    while True:
        ready, _, _ = select.select([primary], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(primary)
    assert process.stderr is not None
    err = process.stderr.read().decode()
    code = process.wait(timeout=60)
    # The terminal's line discipline writes a newline as CR LF (and CSV's CR LF as CR CR LF).
    out = b"".join(chunks).decode().replace("\r\r\n", "\n").replace("\r\n", "\n")
    return out, err, code


def no_raw_controls(text: str) -> None:
    for mark in OUR_BOLD:
        text = text.replace(mark, "")
    found = RAW.search(text)
    assert found is None, f"raw {found.group()!r} at {found.start()}: {text!r}"


LOCATION = f"c/{NAME}:1-4"
GREP = '$.content.grep("red")'
# (arguments, what the output must show) for commands whose output a person reads.
TERMINAL_CASES = [
    (["query", "{db}", "$.files", "-t"], SHOWN),
    (["query", "{db}", "$.files"], SHOWN),  # a terminal's default: the table
    (["query", "{db}", "$.toc", "-t"], "Tit\\x1b[32mle\\x07"),
    (["query", "{db}", GREP, "-t"], SHOWN),
    (["query", "{db}", GREP, "--csv"], SHOWN),
    (["query", "{db}", GREP, "--md"], SHOWN),
    (["query", "{db}", GREP, "--nl"], "\\u001b[31m"),
    (["query", "{db}", GREP, "--json"], "\\u001b[31m"),
    (["query", "{db}", "$.content.chunks()", "--fields", "location,content", "-t"], SHOWN),
    (["query", "{db}", "$.structure"], SHOWN),
    (["search", "{db}", "red", "-t", "--mode", "bm25"], SHOWN),
    (["search", "{db}", "red", "--csv", "--mode", "bm25"], SHOWN),
    (["search", "{db}", "red", "--md", "--mode", "bm25"], SHOWN),
    (["search", "{db}", "red", "--json", "--mode", "bm25"], "\\u009b31m"),
    (["search", "{db}", "red", "--explain", "--mode", "bm25"], SHOWN),
    (["toc", "{db}"], SHOWN),
    (["toc", "{db}", "-t"], SHOWN),
    (["status", "{db}"], "documents"),
    (["status", "{db}", "--errors", "-t"], BAD_SHOWN),
    (["status", "{db}", "--errors", "--csv"], BAD_SHOWN),
    (["get", "{db}", LOCATION], "some red text \\x1b]0;pwned\\x07"),
    (["get", "{db}", LOCATION, "-t"], SHOWN),
    (["get", "{db}", LOCATION, "--csv"], SHOWN),
    (["context", "{db}", "red text"], "pwned"),
    (["context", "{db}", "red text", "-t"], SHOWN),
]


@pytest.mark.parametrize(
    "args, shown", TERMINAL_CASES, ids=[" ".join(a[2:]) for a, _ in TERMINAL_CASES]
)
def test_a_terminal_never_gets_a_raw_control_character(
    db: Path, args: list[str], shown: str
) -> None:
    out, err, code = run_cli([a.replace("{db}", str(db)) for a in args], terminal=True)
    assert code == 0, err
    no_raw_controls(out)
    no_raw_controls(err)
    assert shown in out


@pytest.mark.parametrize(
    "args, shown",
    [
        (["index", "{db}", "c"], f"failed: c/{BAD_SHOWN}"),  # the summary's failures
        (["get", "{db}", "c/nope\x1b[31m.md"], "nope\\x1b[31m.md"),  # an error naming it
        (["toc", "{db}", "c/nope\x1b[31m.md"], "nope\\x1b[31m.md"),
    ],
    ids=["index summary", "get error", "toc error"],
)
def test_stderr_messages_escape_the_names_they_quote(db: Path, args: list[str], shown: str) -> None:
    if args[0] == "index":
        args = [*args, "--retry-failed"]  # the failed file is parsed (and reported) again
    for terminal in (True, False):  # a log file is read on a terminal later
        _, err, _ = run_cli(
            [a.replace("{db}", str(db)) for a in args], terminal=terminal, cwd=db.parent
        )
        no_raw_controls(err)
        assert shown in err, err


def test_piped_data_keeps_exact_values(db: Path) -> None:
    """csv and --text are data for a program when piped: exact, as sqlite-utils writes
    them; JSON decodes to the stored name and holds no raw C1 character either."""
    out, _, _ = run_cli(["query", str(db), "$.files", "--csv"], terminal=False)
    assert f"c/{NAME}" in out
    out, _, _ = run_cli(["get", str(db), LOCATION, "--text"], terminal=False)
    assert "\x1b]0;pwned\a" in out
    out, _, _ = run_cli(["search", str(db), "csi", "--json", "--mode", "bm25"], terminal=False)
    assert RAW.search(out) is None
    hits = json.loads(out)
    assert hits[0]["path"] == f"c/{NAME}" and "\x9b31m" in hits[0]["snippet"]


def test_get_takes_the_location_a_terminal_showed(db: Path) -> None:
    out, _, _ = run_cli(["query", str(db), GREP, "--fields", "location", "-t"], terminal=True)
    shown = next(line.strip() for line in out.splitlines() if line.startswith("c/c\\x01"))
    assert shown == f"c/{SHOWN}:1-4"
    out, err, code = run_cli(["get", str(db), shown, "--json"], terminal=False)
    assert code == 0, err
    assert {row["path"] for row in json.loads(out)} == {f"c/{NAME}"}


def test_sqlite_utils_docql_table_escapes_too(db: Path) -> None:
    """`sqlite-utils docql DB Q -t`: the plugin's table is for reading, like ours."""
    sqlite_utils = REPO / ".venv" / "bin" / "sqlite-utils"
    run = subprocess.run(
        [str(sqlite_utils), "docql", str(db), "$.files", "-t"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    no_raw_controls(run.stdout)
    assert f"c/{SHOWN}" in run.stdout
