"""`make demo`'s script (scripts/demo.py) ends with how to open the index in Datasette
and an MCP client configuration that starts the real server."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from docql_sqlite.cli import cli

REPO = Path(__file__).resolve().parents[1]
VENV_CLI = Path(sys.executable).parent / "docql-sqlite"


@pytest.fixture(scope="module")
def demo_output(corpus_db: Path) -> str:
    done = subprocess.run(
        [sys.executable, "scripts/demo.py", str(corpus_db)],
        cwd=REPO,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def json_blocks(text: str) -> list[object]:
    """The JSON documents printed from column 0 ('{' ... '}')."""
    return [json.loads(m) for m in re.findall(r"^\{\n.*?^\}$", text, re.M | re.S)]


def test_demo_ends_with_datasette_and_mcp(demo_output: str, corpus_db: Path) -> None:
    tail = demo_output[demo_output.index("## Browse it in Datasette") :]
    assert f"$ .venv/bin/docql-sqlite serve {corpus_db}    # http://127.0.0.1:8001/-/docql" in tail
    stdio, http = json_blocks(tail)
    assert stdio == {
        "mcpServers": {"docql-sqlite": {"command": str(VENV_CLI), "args": ["mcp", str(corpus_db)]}}
    }
    assert VENV_CLI.is_absolute() and VENV_CLI.exists()
    (command,) = re.findall(r"^\$ \.venv/bin/docql-sqlite mcp (\S+) --http (\d+)$", tail, re.M)
    assert command[0] == str(corpus_db)
    url = urlsplit(http["mcpServers"]["docql-sqlite"]["url"])
    assert (url.scheme, url.hostname, url.port, url.path) == (
        "http",
        "127.0.0.1",
        int(command[1]),
        "/mcp",
    )


@pytest.mark.parametrize(("command", "option"), [("serve", "--port"), ("mcp", "--http")])
def test_the_printed_commands_exist(command: str, option: str) -> None:
    if command not in cli.commands:
        pytest.skip(f"'docql-sqlite {command}' is not in this build yet")
    done = subprocess.run(
        [str(VENV_CLI), command, "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and option in done.stdout, done.stderr
