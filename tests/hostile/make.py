#!/usr/bin/env python3
"""Build a hostile corpus: every file a real folder can hold that has hurt an indexer.

    python tests/hostile/make.py OUTDIR [--full]

Each case is a file (or a FIFO) under OUTDIR/hostile/, next to ordinary files under
OUTDIR/good/ that must come through intact. `build(outdir, full)` returns what each case
must become: indexed (and then its chunks must equal its text), or recorded as an error
or a warning whose reason holds a given substring. The small variant (the default) is
for the normal test suite; `--full` has the sizes of issue 11 (100k headings, a 50 MB
line, a 1 GB zip bomb). Symlink cases are tested with the walker, not here.
"""

from __future__ import annotations

import io
import os
import random
import sys
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Expect:
    """What indexing a case must give: outcome 'indexed', 'error', 'warning' (indexed
    with a recorded caveat), 'skipped' (deliberately not indexed, listed in the run's
    summary) or 'counted' (not indexed, only counted under the reason in the summary),
    and a substring of the reason (for 'counted': the count's name)."""

    outcome: str
    reason: str = ""
    root_only: bool = False  # the outcome needs an unprivileged indexer (unreadable files)
    path: str = ""  # the file's real path under the corpus root (may hold escaped bytes)


DEEP = "nested deeper than 100 block quotes or list items"

GOOD_WORDS = "aardvark badger capybara dugong echidna fennec gecko hyrax ibex jerboa".split()


def _good(root: Path) -> dict[str, Expect]:
    made = {}
    for n, word in enumerate(GOOD_WORDS):
        path = root / "good" / f"good{n}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"# Good {n}\n\nThe {word} is fine.\n\n## More\n\nAnother line about the {word}.\n",
            encoding="utf-8",
        )
        made[f"good/good{n}.md"] = Expect("indexed", path=f"good/good{n}.md")
    return made


def _write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)


def _zip_bomb_docx(path: Path, inflated: int) -> None:
    """A DOCX whose word/document.xml inflates to `inflated` bytes of one long paragraph."""
    head = (
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        b"<w:body><w:p><w:r><w:t>"
    )
    tail = b"</w:t></w:r></w:p></w:body></w:document>"
    content_types = (
        b'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
        b'package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/>'
        b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        b'relationships+xml"/><Override PartName="/word/document.xml" ContentType="application/'
        b'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
    )
    rels = (
        b'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
        b'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://'
        b'schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
        b'Target="word/document.xml"/></Relationships>'
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", content_types)
        archive.writestr("_rels/.rels", rels)
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            member.write(head)
            block = b"a" * (1 << 20)
            for _ in range(inflated >> 20):
                member.write(block)
            member.write(tail)


def _zip_bomb_pdf(path: Path, inflated: int) -> None:
    """A one-page PDF whose content stream (FlateDecode) inflates to `inflated` bytes."""
    compressor = zlib.compressobj(9)
    chunk = b"BT /F1 12 Tf 72 700 Td (bomb) Tj ET\n" + b" " * ((1 << 20) - 36)
    stream = b"".join(compressor.compress(chunk) for _ in range(inflated >> 20))
    stream += compressor.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    )
    path.write_bytes(out.getvalue())


def _samples() -> object:
    sys.path.insert(0, str(REPO / "datasets"))
    import make_binary_samples  # the project's generator of sample PDFs and DOCX

    return make_binary_samples


def build(outdir: Path, full: bool = False) -> dict[str, Expect]:
    """Write the corpus under `outdir`; returns {relative path (bytes-escaped): Expect}."""
    headings = 100_000 if full else 10_000
    line_bytes = 50_000_000 if full else 2_000_000
    bomb = (1 << 30) if full else (4 << 20)
    docx_bomb = (1 << 30) if full else (300 << 20)  # past the 256 MB guard either way
    h = outdir / "hostile"
    h.mkdir(parents=True, exist_ok=True)
    cases: dict[str, tuple[Callable[[Path], None], Expect]] = {
        # text encodings
        "invalid-utf8.md": (
            lambda p: _write(p, "# Café\n\nna\u00efve r\u00e9sum\u00e9\n".encode("cp1252")),
            Expect("warning", "not valid UTF-8"),
        ),
        "utf16-no-bom.md": (
            lambda p: _write(p, "# UTF-16 without BOM\n\ntext\n".encode("utf-16-le")),
            Expect("error", "binary file"),
        ),
        "nul-after-8k.md": (
            lambda p: _write(p, b"# NUL\n\n" + b"line of text\n" * 1000 + b"\x00\n"),
            Expect("error", "binary file (contains NUL bytes, the first at byte 13,007)"),
        ),
        "control-chars.md": (
            lambda p: _write(p, b"\xff" + bytes(range(1, 32)) * 200),
            Expect("error", "not text"),
        ),
        # sizes and shapes
        "sparse-1gb.md": (
            lambda p: _sparse(p, 1 << 30),
            Expect("skipped", "file too large"),
        ),
        "many-headings.md": (
            lambda p: _write(
                p, "".join(f"{'#' * (1 + i % 3)} H{i}\n\nt {i}\n\n" for i in range(headings))
            ),
            Expect("indexed"),
        ),
        "one-long-line.md": (
            lambda p: _write(p, "# Long\n\n" + ("word " * (line_bytes // 5)) + "\n"),
            Expect("indexed"),
        ),
        "long-heading-line.md": (
            lambda p: _write(p, "# " + ("title " * (line_bytes // 12)) + "\n\nbody\n"),
            Expect("indexed"),
        ),
        "blank-lines.md": (
            lambda p: _write(p, "# Blank\n" + "\n" * (line_bytes // 10) + "end\n"),
            Expect("indexed"),
        ),
        "deep-quotes.md": (
            lambda p: _write(
                p,
                "# Quotes\n\n"
                + "".join("> " * i + "q\n" for i in range(1, 400))
                + "> " * 10_000
                + "deepest\n",
            ),
            Expect("warning", DEEP),
        ),
        "deep-lists.md": (  # 10k list levels on one line, then 300 by indentation
            lambda p: _write(
                p,
                "# Lists\n\n"
                + "- " * 10_000
                + "deepest\n\n"
                + "".join("  " * i + "- item\n" for i in range(300)),
            ),
            Expect("warning", DEEP),
        ),
        # issue 20: nesting that overflowed markdown-it-pyrs's stack (SIGSEGV, the whole
        # run died with --workers 0); each must be indexed, text whole, with a warning
        "deep-list-100k.md": (
            lambda p: _write(p, "# Deep list\n\n" + "- " * 100_000 + "x\n\n# After\n"),
            Expect("warning", DEEP),
        ),
        "deep-quote-50k.md": (
            lambda p: _write(p, "# Deep quote\n\n" + "> " * 50_000 + "x\n\n# After\n"),
            Expect("warning", DEEP),
        ),
        "deep-ordered-100k.md": (
            lambda p: _write(p, "# Deep ordered\n\n" + "1. " * 100_000 + "x\n"),
            Expect("warning", DEEP),
        ),
        "deep-mixed.md": (
            lambda p: _write(p, "# Mixed\n\n" + "- > 1) * " * 25_000 + "x\n"),
            Expect("warning", DEEP),
        ),
        "deep-front-matter.md": (  # PyYAML recurses per `[`
            lambda p: _write(p, "---\ntags: " + "[" * 50_000 + "\n---\n# Front\n\nbody\n"),
            Expect("warning", "front matter is nested too deep"),
        ),
        "deep-indent.rst": (  # docutils recurses per indentation level
            lambda p: _write(
                p,
                "Title\n=====\n\n"
                + "".join(" " * i + "x\n\n" for i in range(0, 3000 if full else 1200, 2)),
            ),
            Expect("warning", "indexed as plain text"),
        ),
        "deep-parens.py": (  # tree-sitter's parser is iterative: slow, never a crash
            lambda p: _write(p, "x = " + "(" * (100_000 if full else 10_000) + "\n"),
            Expect("warning", "syntax errors"),
        ),
        "deep-braces.js": (
            lambda p: _write(p, "var x = " + "{[" * (50_000 if full else 5_000) + "\n"),
            Expect("warning", "syntax errors"),
        ),
        # components: unclosed tags made the script and template scans quadratic (160 KB
        # of `<script>x` took 14 s of CPU before `components._elements`)
        "unclosed-scripts.vue": (
            lambda p: _write(p, "<template><b>{{ a }}</b></template>\n" + "<script>x" * 200_000),
            Expect("indexed"),
        ),
        "unclosed-tags.svelte": (
            lambda p: _write(
                p, "<script>let a;</script>\n" + "<style>{<!-- {a} " * (100_000 if full else 40_000)
            ),
            Expect("indexed"),
        ),
        # Rust item macros (`rust_macros`): a search per wrapper for its closing brace,
        # and for its first item past an unclosed comment, was quadratic (20,000 nested
        # wrappers: 87 s; 20,000 unclosed comments: 11 s)
        "nested-item-macros.rs": (
            lambda p: _write(p, _nested_macros(full)),
            Expect("indexed"),
        ),
        "unclosed-macro-comments.rs": (
            lambda p: _write(p, "x! { /*\n" * (20_000 if full else 5_000)),
            Expect("warning", "syntax errors"),
        ),
        "wide-table.md": (
            lambda p: _write(
                p,
                "# Table\n\n|"
                + "|".join(f"c{i}" for i in range(5000))
                + "|\n|"
                + "|".join("-" for _ in range(5000))
                + "|\n|"
                + "|".join("v" for _ in range(5000))
                + "|\n",
            ),
            Expect("indexed"),
        ),
        "deep.html": (
            lambda p: _write(
                p,
                "<html><body><h1>Deep</h1>"
                + "<div>" * 10_000
                + "core"
                + "</div>" * 10_000
                + "</body></html>",
            ),
            Expect("warning", "nested too deeply"),
        ),
        # past the renderer's depth the fallback read the words recursively too: from
        # ~500 nested lists the page failed instead of keeping its words
        "deep-lists.html": (
            lambda p: _write(
                p,
                "<html><body>"
                + "<ul><li>item text " * 500
                + "</li></ul>" * 500
                + "<p>after</p></body></html>",
            ),
            Expect("warning", "nested too deeply"),
        ),
        # AsciiDoc's delimited blocks: each `--` asked for the line closing it by
        # scanning the rest of the file (quadratic: 7 CPU s at 100k blocks)
        "open-blocks.adoc": (
            lambda p: _write(p, "= Blocks\n\n" + "--\ntext\n" * (headings * 10) + "====\n"),
            Expect("indexed"),
        ),
        # roff: conditional blocks opened and never closed, a macro definition without
        # its `..`, a line of escapes (the page is rendered, not stored as roff)
        "man1/blocks.1": (
            lambda p: _write(
                p,
                ".TH BLOCKS 1\n.SH NAME\nblocks\n"
                + ".if n \\{\\\n" * (headings * 5)
                + "\\fB\\-a\\fR\\(em" * (line_bytes // 20)
                + "\n.de XX\n"
                + "never shown\n" * headings,
            ),
            Expect("indexed"),
        ),
        # Org: a source block never closed, headlines of every depth
        "deep.org": (
            lambda p: _write(
                p,
                "#+TITLE: Deep\n#+BEGIN_SRC python\n"
                + "".join("*" * (1 + i % 50) + f" H{i}\n" for i in range(headings)),
            ),
            Expect("indexed"),
        ),
        # plain text's outline (`ingest/text_outline.py`): a line of Vim tags over a long
        # underline (the file under the 50 MB limit at full size), numbered titles and
        # list items of every kind, titles under rules, adorned titles of many styles
        "outline.txt": (
            lambda p: _write(
                p,
                "\n"
                + " *a*" * (line_bytes // 16)
                + "\n"
                + "=" * (line_bytes // 4)
                + "\n\n"
                + "".join(f"\n{i % 50 + 1}. item {i}\n" for i in range(headings))
                + ("=" * 30 + "\nTitle *t*\n\n") * headings
                + "".join(f"\nT{i}\n{'=-~*#^+_'[i % 8] * 3}\n" for i in range(headings)),
            ),
            Expect("indexed"),
        ),
        # a Vim help file whose one paragraph has a tag on every line (each tag's term
        # spans the paragraph; its definition reads lines only until it has enough)
        "vimhelp.txt": (
            lambda p: _write(
                p,
                "*vimhelp.txt*  For Vim version 9.0\n\n"
                + "".join(f"text {i} *tag-{i}* *t{i}*\n" for i in range(headings * 2)),
            ),
            Expect("indexed"),
        ),
        # LaTeX: sections by the thousand, titles never closed, a long line of `\section{`
        # and `\verb|` openings, `\iffalse` never closed at the end
        "sections.tex": (
            lambda p: _write(
                p,
                "".join(f"\\section{{S {i}}}\\label{{s{i}}}\n" for i in range(headings))
                + "\\subsection{never closed\n" * headings
                + "\\section{\\verb|" * (line_bytes // 32)  # (the file under the 50 MB limit)
                + "\n\\iffalse\n"
                + "\\chapter{hidden}\n" * headings,
            ),
            Expect("indexed"),
        ),
        # BibTeX: entries by the thousand, macros by the thousand, a value never closed
        "refs.bib": (
            lambda p: _write(
                p,
                "".join(f'@string{{s{i} = "v"}}\n' for i in range(headings))
                + "".join(
                    f"@article{{k{i},\n  title = {{T {i}}}, year = s{i}}}\n"
                    for i in range(headings)
                )
                + "@misc{open, title = {"
                + "{" * (line_bytes // 8)
                + "\n"
                + "@misc{b, note = {\n" * headings,
            ),
            Expect("indexed"),
        ),
        # a Debian changelog of entries by the thousand, a header line as long as the line
        # limit and a trailer-shaped one too (their regexes backtrack on long lines)
        "changelog.Debian": (
            lambda p: _write(
                p,
                "".join(
                    f"pkg ({i}.0-1) unstable; urgency=low\n\n  * Change {i}.\n\n"
                    f" -- A B <a@b.org>  Mon, 01 Jan 2001 00:00:00 +0000\n\n"
                    for i in range(headings)
                )
                + "pkg (9) unstable"
                + " x" * (line_bytes // 8)
                + ";\n"
                + " -- "
                + " <" * (line_bytes // 8)
                + "\n",
            ),
            Expect("indexed"),
        ),
        # a machine-readable copyright file: stanzas by the thousand, a field of blanks as
        # long as the line limit, a Files list continued over many lines
        "copyright": (
            lambda p: _write(
                p,
                "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
                + "".join(f"Files: src/{i}.c\nLicense: L{i}\n\n" for i in range(headings))
                + "Files: "
                + " " * (line_bytes // 4)
                + "x\n"
                + "".join(f" more/{i}.c\n" for i in range(headings)),
            ),
            Expect("indexed"),
        ),
        # a GNU ChangeLog: entries by the thousand and a dated line as long as the limit
        "ChangeLog": (
            lambda p: _write(
                p,
                "".join(
                    f"2023-01-{i % 28 + 1:02d}  A B  <a@b.org>\n\n\t* f{i}.c: x.\n\n"
                    for i in range(headings)
                )
                + "2023-01-01  "
                + "a " * (line_bytes // 8)
                + "<\n",
            ),
            Expect("indexed"),
        ),
        # a NEWS file for Emacs' outline mode: star lines by the thousand, one as long as
        # the limit, and a mode line with no end
        "NEWS": (
            lambda p: _write(
                p,
                "NEWS  -*- outline -*-\n\n"
                + "".join(f"{'*' * (i % 9 + 1)} Release {i}\n\n" for i in range(headings))
                + "* "
                + "x " * (line_bytes // 8)
                + "\n"
                + "-*- outline"
                + " " * (line_bytes // 8)
                + "\n",
            ),
            Expect("indexed"),
        ),
        # release notes in plain text: release lines by the thousand, one 25 MB long
        "CHANGES": (
            lambda p: _write(
                p,
                "".join(f"Version {i}.0 (2020)\n\n  - change {i}\n\n" for i in range(headings))
                + "Version 9.9 "
                + "x" * (line_bytes // 2)  # (the file under the 50 MB limit at full size)
                + "\n",
            ),
            Expect("indexed"),
        ),
        # an underline as long as the line limit under a title, for each reader that reads
        # underlines (a regular expression's `\1+` took 4 GB and 8 s for 50 MB)
        "underline.adoc": (
            lambda p: _write(p, "= Doc\n\nTitle\n" + "=" * line_bytes + "\n\ntext\n"),
            Expect("indexed"),
        ),
        "underline.info": (
            lambda p: _write(
                p, "This is u.info, produced by makeinfo.\n\nTitle\n" + "*" * line_bytes + "\n"
            ),
            Expect("indexed"),
        ),
        # C++ whose macro rules (`ingest/c_macros.py`) each scan: export macros in class
        # heads, annotations, macro lines among declarations, unclosed macro calls and
        # braces, an enum of macro-attributed members
        "macros.cc": (
            lambda p: _write(
                p,
                "#include <x>\nnamespace n {\nN_NAMESPACE_BEGIN\n"
                + "class API_EXPORT C : public B {\n  Q_OBJECT\n  Q_PROPERTY(int x READ x\n"
                "      WRITE setX)\n public:\n  void f(int a) const LOCKS_EXCLUDED(mu_);\n"
                "  int n_ GUARDED_BY(mu_);\nsignals:\n  void changed();\n};\n"
                * (headings // 2)
                + 'FLAG(bool, verbose, false, "x");\n' * headings
                + "enum E {\n"
                + '  A DEPRECATED_X("y"),\n' * headings
                + "};\n"
                + "  UNCLOSED_CALL(" * headings
                + "\n"
                + "{" * (headings // 4),
            ),
            Expect("warning", "syntax errors"),
        ),
        "deep.py": (
            lambda p: _write(p, "def f():\n    return " + "(" * 5000 + "1" + ")" * 5000 + "\n"),
            Expect("indexed"),
        ),
        # broken binary formats
        "truncated.pdf": (
            lambda p: _samples().make_corrupt_pdf(str(p)),  # type: ignore[attr-defined]
            Expect("error", "corrupt PDF"),
        ),
        "encrypted.pdf": (
            lambda p: _samples().make_encrypted_pdf(str(p)),  # type: ignore[attr-defined]
            Expect("error", "encrypted PDF"),
        ),
        "zip-bomb.pdf": (  # a 1 GB content stream: refused before PDFium holds it whole
            lambda p: _zip_bomb_pdf(p, bomb),
            Expect("error", "PDF decompression bomb") if full else Expect("indexed"),
        ),
        "not-a-zip.docx": (
            lambda p: _write(p, b"PK\x03\x04 this is not really a zip archive"),
            Expect("error", "corrupt DOCX"),
        ),
        "broken.docx": (
            lambda p: _samples().make_broken_docx(str(p)),  # type: ignore[attr-defined]
            Expect("error", "corrupt DOCX"),
        ),
        "zip-bomb.docx": (
            lambda p: _zip_bomb_docx(p, docx_bomb),
            Expect("error", "DOCX expands to"),
        ),
        # odd names (stored with \xNN escapes when not UTF-8)
        os.fsdecode(b"bad\xffname.md"): (
            lambda p: _write(p, "# Bad name\n\nx\n"),
            Expect("indexed"),
        ),
        "new\nline.md": (lambda p: _write(p, "# Newline name\n\nx\n"), Expect("indexed")),
        "-dash.md": (lambda p: _write(p, "# Dash\n\nx\n"), Expect("indexed")),
        " spaced name .md": (lambda p: _write(p, "# Spaces\n\nx\n"), Expect("indexed")),
        "*glob?[x].md": (lambda p: _write(p, "# Glob\n\nx\n"), Expect("indexed")),
        "e\u0301combining.md": (lambda p: _write(p, "# Combining\n\nx\n"), Expect("indexed")),
        "n" * 252 + ".md": (lambda p: _write(p, "# Long name\n\nx\n"), Expect("indexed")),
        # not regular files, unreadable files
        # the walker counts it (never opened: reading a FIFO blocks); named explicitly,
        # read.py records it as "not a regular file"
        "fifo.md": (lambda p: os.mkfifo(p), Expect("counted", "not a regular file")),
        "locked.md": (lambda p: _locked(p), Expect("error", "permission denied", root_only=True)),
    }
    expected = _good(outdir)
    for name, (make, expect) in cases.items():
        make(h / name)
        shown = os.fsencode(name).decode("utf-8", "backslashreplace")
        expected[f"hostile/{shown}"] = replace(expect, path=f"hostile/{name}")
    return expected


# -- damaged index files (issue 20): what a bad disk, a bad copy or a bad RAM bit leaves ----
INDEX_PAGE = 16384  # the page size docql-sqlite gives a new index (db.py)


def flip_bits(db: Path, flips: int = 200, seed: int = 0, skip_pages: int = 3) -> None:
    """Flip `flips` random bits of `db` past its first `skip_pages` pages (the schema and
    meta pages: damage there is caught by any open, the case worth testing is damage only
    some reads meet). SQLite keeps no page checksums, so nothing notices until a read."""
    data = bytearray(db.read_bytes())
    rnd = random.Random(seed)
    for _ in range(flips):
        offset = rnd.randrange(skip_pages * INDEX_PAGE, len(data))
        data[offset] ^= 1 << rnd.randrange(8)
    db.write_bytes(bytes(data))


def truncate_half(db: Path) -> None:
    """A copy cut short (a full disk during `cp`, an interrupted download)."""
    with open(db, "r+b") as handle:
        handle.truncate(db.stat().st_size // 2)


def _sparse(path: Path, size: int) -> None:
    with open(path, "wb") as handle:
        handle.write(b"# Sparse\n")
        handle.truncate(size)


def _locked(path: Path) -> None:
    _write(path, "# Locked\n\nsecret\n")
    path.chmod(0)


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    expected = build(Path(argv[0]), full="--full" in argv)
    for name, expect in sorted(expected.items()):
        print(f"{expect.outcome:8} {name!r} {expect.reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


def _nested_macros(full: bool) -> str:
    """A Rust file of nested item macros, each holding a function (`rust_macros`)."""
    depth = 20_000 if full else 5_000
    return "x! {\npub fn a() {}\n" * depth + "}\n" * depth
