"""A script without an extension is told by its `#!` line (`ingest/shebang.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.ingest.formats import sniff_format
from docql_sqlite.ingest.shebang import script_language


@pytest.mark.parametrize(
    "head, language",
    [
        (b"#!/usr/bin/env python3\nimport sys\n", "python"),
        (b"#!/usr/bin/python3.11 -u\n", "python"),
        (b"#!/bin/sh\nset -e\n", "bash"),
        (b"#! /bin/bash\n", "bash"),
        (b"#!/usr/bin/env -S node --no-warnings\n", "javascript"),
        (b"#!/usr/bin/ruby2.7 -w\n", "ruby"),
        (b"#!/usr/bin/env lua5.4\n", "lua"),
        (b"#!/usr/bin/perl -w\n", "perl"),
        (b"#!/usr/bin/make -f\n", None),  # no language of ours
        (b"#!/usr/bin/env\n", None),
        (b"# just a comment\n", None),
        (b"\x7fELF\x02\x01", None),  # a program
    ],
)
def test_the_interpreter_names_the_language(head: bytes, language: str | None) -> None:
    assert script_language(head) == language


def test_a_script_given_by_name_is_sniffed_as_code(tmp_path: Path) -> None:
    """Named on the command line (no walk), a script without an extension is sniffed:
    its `#!` line makes it code, parsed in its language."""
    assert sniff_format(b"#!/usr/bin/env python3\ndef main():\n    pass\n") == "code"
    assert sniff_format(b"#!/usr/bin/make -f\nall:\n") == "text"
    script = tmp_path / "release"
    script.write_text("#!/usr/bin/env python3\ndef main():\n    pass\n")
    db = tmp_path / "x.db"
    docql_sqlite.index(db, [str(script)])
    with docql_sqlite.open(db) as index:
        (row,) = index.rows("SELECT language FROM documents")
        names = [r["name"] for r in index.rows("SELECT name FROM symbols")]
    assert row["language"] == "python" and names == ["main"]


def test_ruby_files_named_by_their_tool_are_ruby(tmp_path: Path) -> None:
    """`Rakefile`, `Gemfile` (named, no extension, no `#!`) and `.gemspec`, `.ru`: Ruby."""
    for name, text in {
        "Rakefile": 'task :default do\n  sh "rspec"\nend\n',
        "Gemfile": 'source "https://rubygems.org"\ngem "rack"\n',
        "x.gemspec": 'Gem::Specification.new do |s|\n  s.name = "x"\nend\n',
        "config.ru": "run App\n",
        "Makefile": "all:\n\techo hi\n",
    }.items():
        (tmp_path / name).write_text(text)
    db = tmp_path / "x.db"
    docql_sqlite.index(db, [str(tmp_path)])
    with docql_sqlite.open(db) as index:
        found = {
            r["path"].rpartition("/")[2]: r["language"]
            for r in index.rows("SELECT path, language FROM documents")
        }
    assert {
        name: found.get(name) for name in ("Rakefile", "Gemfile", "x.gemspec", "config.ru")
    } == {
        "Rakefile": "ruby",
        "Gemfile": "ruby",
        "x.gemspec": "ruby",
        "config.ru": "ruby",
    }
    assert found.get("Makefile") != "ruby"


def test_texts_named_without_an_extension_are_indexed_scripts_of_those_names_are_code(
    tmp_path: Path,
) -> None:
    """Debian's /usr/share/doc has a `copyright` file per package (788 here) and `NEWS`,
    `FAQ`, `THANKS`: the walk left each out as "not a document format", so "what is the
    licence of curl" found changelogs. A file of such a name that is a script (an
    `install` with a `#!` line) is code, parsed in its language."""
    texts = {
        "curl/copyright": "Files: *\nCopyright: Daniel Stenberg\nLicense: curl\n",
        "curl/NEWS": "Version 8: the quokka transfer.\n",
        "curl/FAQ": "How do I use the numbat option?\n",
        "curl/THANKS": "Thanks to the wallaby team.\n",
        "curl/INSTALL": "Run ./configure to build the platypus.\n",
        # a project text with an extension that names no format (86 packages here
        # explain their Debian setup in a `README.Debian`)
        "curl/README.Debian": "The bilby proxy setting is in /etc/curlrc.\n",
        "curl/TODO.Debian": "Package the dingo tool.\n",
        "curl/COPYING.LIB": "The kookaburra terms of use.\n",
    }
    for name, text in texts.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "install").write_text("#!/bin/sh\nsetup_echidna() {\n  :\n}\n")
    db = tmp_path / "x.db"
    docql_sqlite.index(db, [str(tmp_path)])
    with docql_sqlite.open(db) as index:
        found = {
            r["path"].partition(str(tmp_path) + "/")[2]: (r["format"], r["language"])
            for r in index.rows("SELECT path, format, language FROM documents")
        }
        symbols = [r["name"] for r in index.rows("SELECT name FROM symbols")]
        for word, name in [
            ("quokka", "NEWS"),
            ("numbat", "FAQ"),
            ("platypus", "INSTALL"),
            ("bilby", "README.Debian"),
        ]:
            assert index.search(word, limit=1)[0]["path"].endswith(name)
        assert index.search("licence of curl", limit=1)[0]["path"].endswith("copyright")
    assert found == {**{n: ("text", None) for n in texts}, "tool/install": ("code", "bash")}
    assert symbols == ["setup_echidna"]


CODE_BASE_TEXTS = {
    # the files a code base is made of that no grammar here parses: each was "not a
    # document format", so "where is the users table defined" found nothing
    "db/schema.sql": "-- ==========\n-- Tables\n-- ==========\n"
    "CREATE TABLE users_wombat (id int);\n",
    "api/service.proto": 'syntax = "proto3";\nmessage QuollRequest { string id = 1; }\n',
    "api/schema.graphql": "type Query {\n  bandicoot: String\n}\n",
    "infra/main.tf": 'resource "aws_s3_bucket" "potoroo" {\n  bucket = "potoroo"\n}\n',
    "Makefile": "test:\n\tpytest --numbat\n",
    "Dockerfile": "FROM python:3.11\nEXPOSE 8531\n",
    "Dockerfile.dev": "FROM python:3.11\nENV CUSCUS=1\n",
    "build/rules.mk": "CFLAGS += -DDUNNART\n",
    "templates/mail.txt.j2": "Hello {{ user.name }}, your gecko is ready.\n",
    "views/card.hbs": '<div class="card">{{ dingo }}</div>\n',
    "views/index.html.erb": "<h1><%= @echidna.title %></h1>\n",
    # a project's manifests, by name (JSON at large stays out: lock files, data)
    "package.json": '{\n  "scripts": {\n    "test": "jest --koala"\n  }\n}\n',
    "tsconfig.build.json": '{ "compilerOptions": { "target": "es2022" } }\n',
}


def test_a_code_bases_schemas_build_files_and_templates_are_text(tmp_path: Path) -> None:
    """Read as text, line by line, without an outline (the SQL file's `-- ====` rules are
    no titles); data and secrets (`.xml`, `.csv`, `.env`) stay out."""
    left_out = {
        "data.csv": "a,b\n",
        ".env": "KEY=1\n",
        "package-lock.json": '{"koala": 1}\n',
        "fixtures/rows.json": '[{"koala": 2}]\n',
    }
    for name, text in {**CODE_BASE_TEXTS, **left_out}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    db = tmp_path / "x.db"
    docql_sqlite.index(db, [str(tmp_path)])
    with docql_sqlite.open(db) as index:
        found = {
            r["path"].partition(str(tmp_path) + "/")[2]: r["format"]
            for r in index.rows("SELECT path, format FROM documents")
        }
        sections = index.rows("SELECT count(*) AS n FROM sections")[0]["n"]
        for word, name in [
            ("users_wombat", "db/schema.sql"),
            ("QuollRequest", "api/service.proto"),
            ("8531", "Dockerfile"),
            ("numbat", "Makefile"),
            ("gecko", "templates/mail.txt.j2"),
            ("echidna", "views/index.html.erb"),
            ("koala", "package.json"),
        ]:
            assert index.search(word, limit=1)[0]["path"].endswith(name), word
    assert found == {name: "text" for name in CODE_BASE_TEXTS}
    assert sections == 0
