"""Compressed documents (`index --decompress`, `-z`): Debian compresses most of
/usr/share/doc (`changelog.Debian.gz`, `README.md.gz`, `debian-faq.pdf.gz`), and a run
without the option left 1,917 of its 3,325 documents out without a word. The document
inside is indexed under the file's own path, its lines as Python's decompressors read
them; a file that expands past --max-bytes, a broken one and a compressed archive are
each recorded with a reason, and every other file is still indexed."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import docql_sqlite
from docql_sqlite.cli import cli
from docql_sqlite.ingest.formats import format_for_path

README = "# Tool\n\nIntro text.\n\n## Install\n\nRun the zanzibar installer.\n"
NOTES = "Notes\n\nThe quetzal option turns the cache off.\n"
CHANGELOG = "tool (1.2-1) unstable; urgency=medium\n\n  * Fix the ocelot crash.\n"
GUIDE = "# Guide\n\n## Usage\n\nCall the marmoset command.\n"


def _tar_gz() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        data = b"\x00\x01binary payload"
        info = tarfile.TarInfo("payload.bin")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _tree(root: Path) -> dict[str, bytes]:
    files = {
        "README.md.gz": gzip.compress(README.encode()),
        "notes.txt.bz2": bz2.compress(NOTES.encode()),
        "changelog.Debian.gz": gzip.compress(CHANGELOG.encode()),  # no format by name: sniffed
        "guide.xz": lzma.compress(GUIDE.encode()),  # sniffed: Markdown
        "example.py.gz": gzip.compress(b"def hello():\n    return 'capybara'\n"),  # as text
        # a script named by its `#!` line alone (Debian's `strace-graph.gz`): read as text
        "graph.gz": gzip.compress(b"#!/usr/bin/perl\n# draws the wombat graph\nprint 1;\n"),
        "data.tar.gz": _tar_gz(),  # an archive: no document inside
        "bomb.txt.gz": gzip.compress(b"a" * 200_000),  # expands past the limit below
        "broken.md.gz": gzip.compress(README.encode())[:-12],  # cut short
        "plain.md": b"# Plain\n\nNot compressed.\n",
    }
    root.mkdir()
    for name, data in files.items():
        (root / name).write_bytes(data)
    return files


@pytest.mark.parametrize(
    "name, decompress, expected",
    [
        ("README.md.gz", True, "markdown"),
        ("README.md.gz", False, None),
        ("notes.txt.bz2", True, "text"),
        ("changelog.Debian.gz", True, ""),  # formats.SNIFF: read inside, then sniffed
        ("manual.pdf.xz", True, "pdf"),
        ("example.py.gz", True, "text"),  # code inside is read as text
        ("changelog.gz", True, "text"),  # a text name (TEXT_NAMES) inside
        ("README.md", True, "markdown"),
    ],
)
def test_a_compressed_files_format_is_its_inner_names(
    name: str, decompress: bool, expected: str | None
) -> None:
    assert format_for_path(f"docs/{name}", decompress) == expected


def test_without_decompress_compressed_files_are_counted_apart(tmp_path: Path) -> None:
    _tree(tmp_path / "docs")
    report = docql_sqlite.index(tmp_path / "i.db", [str(tmp_path / "docs")], max_bytes=100_000)
    assert [Path(p).name for p in report.added] == ["plain.md"]
    assert report.skip_counts["compressed (--decompress reads them)"] == 9


def test_decompress_indexes_the_document_inside_each_file(tmp_path: Path) -> None:
    files = _tree(tmp_path / "docs")
    db = tmp_path / "i.db"
    report = docql_sqlite.index(db, [str(tmp_path / "docs")], max_bytes=100_000, decompress=True)
    added = sorted(Path(p).name for p in report.added)
    assert added == [
        "README.md.gz",
        "changelog.Debian.gz",
        "example.py.gz",
        "graph.gz",
        "guide.xz",
        "notes.txt.bz2",
        "plain.md",
    ]
    failed = {Path(p).name: reason for p, reason in report.failed}
    assert list(failed) == ["broken.md.gz"] and failed["broken.md.gz"].startswith(
        "not a valid .gz file"
    )
    skipped = {Path(p).name: reason for p, reason in report.skipped}
    assert skipped["data.tar.gz"] == "compressed binary data, not a document"
    assert "decompresses to over the 100,000-byte limit" in skipped["bomb.txt.gz"]
    with docql_sqlite.open(db) as index:
        docs = {Path(d["path"]).name: d for d in index.documents()}
        # the formats inside, and the sizes of the files on disk (what the next run checks)
        assert {n: docs[n]["format"] for n in added} == {
            "README.md.gz": "markdown",
            "changelog.Debian.gz": "text",
            "example.py.gz": "text",
            "graph.gz": "text",
            "guide.xz": "markdown",
            "notes.txt.bz2": "text",
            "plain.md": "markdown",
        }
        assert all(docs[n]["size"] == len(files[n]) for n in added)
        readme = str(tmp_path / "docs" / "README.md.gz")
        assert [h["title"] for h in index.toc(readme)] == ["Tool", "Install"]
        # every line as Python's decompressor reads it
        lines = [text for _, text in index.get(f"{readme}:1-7").lines]
        assert lines == gzip.decompress(files["README.md.gz"]).decode().splitlines()
        for word, name in [
            ("zanzibar", "README.md.gz"),
            ("quetzal", "notes.txt.bz2"),
            ("ocelot", "changelog.Debian.gz"),
            ("marmoset", "guide.xz"),
            ("capybara", "example.py.gz"),
            ("wombat", "graph.gz"),
        ]:
            hits = index.search(word, limit=3)
            assert hits and Path(hits[0]["path"]).name == name, (word, hits)
    # the next run finds every file unchanged (by its size on disk and mtime)
    again = docql_sqlite.index(db, [str(tmp_path / "docs")], max_bytes=100_000, decompress=True)
    assert not again.added and not again.updated and again.unchanged == 7
    (tmp_path / "docs" / "README.md.gz").write_bytes(
        gzip.compress(README.replace("zanzibar", "zebu").encode())
    )
    third = docql_sqlite.index(db, [str(tmp_path / "docs")], max_bytes=100_000, decompress=True)
    assert [Path(p).name for p in third.updated] == ["README.md.gz"]
    with docql_sqlite.open(db) as index:
        assert Path(index.search("zebu", limit=1)[0]["path"]).name == "README.md.gz"


def test_the_cli_reads_inside_with_z_and_says_so_without(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "README.md.gz").write_bytes(gzip.compress(README.encode()))
    runner = CliRunner()
    named = str(root / "README.md.gz")
    plain = runner.invoke(cli, ["index", str(tmp_path / "a.db"), named, "--json"])
    assert "index --decompress reads the document inside" in plain.output
    done = runner.invoke(cli, ["index", str(tmp_path / "b.db"), str(root), "-z", "--json"])
    assert done.exit_code == 0, done.output
    with docql_sqlite.open(tmp_path / "b.db") as index:
        assert [h["title"] for h in index.toc(named)] == ["Tool", "Install"]
