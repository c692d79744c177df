"""A parser plugin registered through the `docql_sqlite.parsers` entry point indexes its format."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import docql_sqlite


def test_entry_point_parser_plugin_indexes_new_format(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "starplug").mkdir(parents=True)
    (site / "starplug" / "__init__.py").write_text(
        textwrap.dedent("""
        from docql_sqlite.ingest.read import decode_text
        from docql_sqlite.model import Document, Heading

        def parse(source):
            text, warnings = decode_text(source.data, source.path)
            headings = [Heading(level=line.count("*", 0, line.index(" ")), title=line.split(" ",
            1)[1], line=n)
                        for n, line in enumerate(text.splitlines(), start=1) if
                        line.startswith("*")]
            return Document(format="starnotes", text=text, headings=headings, warnings=warnings)

        def register(register_format):
            register_format("starnotes", parse, ("stars",))
    """)
    )
    dist = site / "starplug-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: starplug\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[docql_sqlite.parsers]\nstarnotes = starplug:register\n"
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.stars").write_text(  # a format no built-in reads
        "* Top\ntext\n** Child\nmore\n"
    )
    db = tmp_path / "x.db"
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from docql_sqlite.ingest import index_paths, IngestOptions;"
        "r = index_paths(sys.argv[2], [sys.argv[3]], IngestOptions(workers=0)); print(r.summary())"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(site), str(db), str(docs)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    with docql_sqlite.open(db) as index:
        toc = index.query("$.toc")
        formats = index.query("$.files[*].format")
    assert formats == ["starnotes"]
    assert [(h["level"], h["title"], h["number"], h["line"], h["end_line"]) for h in toc] == [
        (1, "Top", "1", 1, 4),
        (2, "Child", "1.1", 3, 4),
    ]
