"""The docs generated from the code (scripts/gen_docs.py) are what the code says today.

A changed flag, help text or command that was not followed by `make docs` fails here, with
the command that regenerates the file; the generator itself is checked on what it writes
(every command, every option) and on the --check mode a CI step would run.
"""

from __future__ import annotations

import difflib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import click
import pytest

from docql_sqlite.cli.group import COMMANDS, cli

REPO = Path(__file__).resolve().parent.parent


GENERATOR = REPO / "scripts" / "gen_docs.py"


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen_docs = load_generator()


@pytest.mark.parametrize("path", sorted(gen_docs.GENERATED))
def test_a_generated_file_is_current(path: str) -> None:
    written = (REPO / path).read_text(encoding="utf-8") if (REPO / path).exists() else ""
    # In a fresh interpreter, as `make docs` runs it: other tests in this process build
    # click commands of their own (test_cli_fastpath), which changes what --help prints.
    script = (
        "import importlib.util, sys; "
        f"spec = importlib.util.spec_from_file_location('gen_docs', {str(GENERATOR)!r}); "
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); "
        f"sys.stdout.write(m.GENERATED[{path!r}]())"
    )
    expected = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout
    if written != expected:
        diff = difflib.unified_diff(
            written.splitlines(), expected.splitlines(), path, "generated", lineterm="", n=1
        )
        shown = "\n".join(list(diff)[:40])
        pytest.fail(f"{path} is out of date: run {gen_docs.REGENERATE}\n{shown}", pytrace=False)


def sections(text: str) -> dict[str, str]:
    """The text of docs/cli.md under each `## name` heading."""
    parts = re.split(r"^## (\S+)\n", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_the_cli_reference_has_every_command_and_option() -> None:
    by_command = sections(gen_docs.cli_reference())
    assert list(by_command) == ["docql-sqlite", *COMMANDS]
    options = 0
    for name in COMMANDS:
        command = cli.commands[name]
        section = by_command[name]
        assert f"Usage: docql-sqlite {name} [OPTIONS]" in section, name
        for param in command.params:
            if isinstance(param, click.Option):
                options += 1
                for switch in param.opts + param.secondary_opts:
                    assert re.search(rf"(^|[ ,]){re.escape(switch)}\b", section, re.M), (
                        name,
                        switch,
                    )
        # The whole help: the long description too, not only the short line.
        first_line = (command.help or "").strip().splitlines()[0]
        assert first_line[:60] in " ".join(section.split()), name
    assert options >= 53  # issue 21 counted 53 (the shared output flags once per command here)


def test_help_text_does_not_depend_on_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    wide = gen_docs.cli_reference()
    monkeypatch.setenv("COLUMNS", "40")
    assert gen_docs.cli_reference() == wide
    blocks = re.findall(r"^```text\n(.*?)^```$", wide, flags=re.M | re.S)
    assert len(blocks) == len(COMMANDS) + 1
    assert max(len(line) for block in blocks for line in block.splitlines()) <= gen_docs.HELP_WIDTH


def test_check_names_a_stale_file_and_a_run_rewrites_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The script run on a tree of freshly generated files, then one of them edited by hand.
    for path, generate in gen_docs.GENERATED.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(generate(), encoding="utf-8")
    monkeypatch.setattr(gen_docs, "REPO", tmp_path)
    assert gen_docs.main(["--check"]) == 0
    edited = tmp_path / "docs" / "cli.md"
    edited.write_text(edited.read_text(encoding="utf-8").replace("--limit", "--lmit"), "utf-8")
    capsys.readouterr()
    assert gen_docs.main(["--check"]) == 1
    assert "docs/cli.md is out of date: run make docs" in capsys.readouterr().err
    assert gen_docs.main([]) == 0
    assert edited.read_text(encoding="utf-8") == gen_docs.cli_reference()
    assert gen_docs.main(["--check"]) == 0
    assert gen_docs.main(["--bogus"]) == 2
