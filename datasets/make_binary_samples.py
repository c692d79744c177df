#!/usr/bin/env python3
"""Generate the binary sample documents (PDF, DOCX) used by the demo and the tests.

Binary fixtures are not stored in the repository; they are generated on demand so
that their content is reviewable here, in plain text.

    python datasets/make_binary_samples.py OUTDIR

writes into OUTDIR:

    handbook.pdf    4 pages of English text about Lumen, with a 2-level outline
    nooutline.pdf   3 pages, no outline; each page starts with a heading-like line
    encrypted.pdf   encrypted with a user password, unreadable without it
    corrupt.pdf     a %PDF header followed by a truncated body and garbage
    handbook.docx   Title, Heading 1/2/3, paragraphs, a list and a table
    broken.docx     a valid ZIP archive that is not a valid DOCX package

Tests can import this file (``sys.path.insert(0, "<repo>/datasets")`` then
``import make_binary_samples``) and call the ``make_*`` functions or
``generate_all(outdir)``. Only pypdf and python-docx are needed; the output is
deterministic apart from the timestamps those libraries embed.
"""

from __future__ import annotations

import os
import sys
import zipfile
from typing import Sequence, Union

# An outline entry is (title, page_index) or (title, page_index, [children...]).
OutlineEntry = Union[tuple, list]

HANDBOOK_PAGES: list[list[str]] = [
    [
        "Lumen Handbook",
        "",
        "Chapter 1 Introduction",
        "",
        "1.1 What Lumen Is",
        "Lumen is an embeddable document database with a built-in full-text search",
        "engine. It stores JSON documents in collections and keeps an inverted index",
        "next to them, so one process answers both lookups by id and ranked searches.",
        "A document is searchable as soon as the transaction that wrote it commits.",
        "",
        "Lumen runs embedded, as a library linked into an application, or as a server",
        "with an HTTP API, authentication, replication and metrics. Both modes share",
        "one on-disk format.",
        "",
        "1.2 Key Concepts",
        "Document: a JSON object of at most 16 MiB, identified by a string _id.",
        "Collection: a named set of documents sharing indexes and access rules.",
        "Segment: an immutable file holding a batch of indexed documents.",
        "Analyzer: a tokenizer plus token filters that turns text into index terms.",
        "",
        "Case folding makes CAFÉ, Café and café the same term, and the ascii_folding",
        "filter lets Ångström match angstrom and straße match strasse.",
    ],
    [
        "Chapter 2 Installation",
        "",
        "2.1 Linux",
        "Download the release archive, verify its SHA-256 checksum and unpack it into",
        "/opt/lumen. Run the server as a systemd service under a dedicated user. The",
        "data directory must be on a local filesystem that supports fsync on",
        "directories; network filesystems such as NFS are not supported.",
        "",
        "2.2 macOS and Windows",
        "On macOS install with Homebrew: brew install lumen-db/tap/lumen. On Windows",
        "run the MSI installer as an administrator; it registers the Lumen service and",
        "opens port 7700 in the firewall.",
        "",
        "2.3 Verifying the Installation",
        "Run lumen doctor. It checks directory permissions, the open file limit, the",
        "clock source and the filesystem type, and prints one line per check.",
    ],
    [
        "Chapter 3 Architecture",
        "",
        "3.1 Storage Engine",
        "The storage engine is a log-structured merge design. Every transaction is one",
        "record in the write-ahead log (WAL). Writes then go to an in-memory table,",
        "which is flushed to an immutable segment when it reaches memtable_size.",
        "A background compactor merges segments of similar size and drops deleted",
        "documents.",
        "",
        "3.2 Query Execution",
        "A query is parsed, rewritten by the planner and executed against a consistent",
        "snapshot. The planner pushes filters down to segment readers and orders the",
        "clauses of a conjunction from the most to the least selective. Full-text",
        "clauses are scored with BM25 (k1 = 1.2, b = 0.75).",
    ],
    [
        "Chapter 4 Security",
        "",
        "4.1 Authentication",
        "Server mode supports three authentication modes: none (development only),",
        "api_key (a static key per client) and oidc (signed tokens from an identity",
        "provider). Lumen stores only a salted hash of each API key, so a lost key",
        "cannot be recovered, only replaced.",
        "",
        "4.2 Authorization",
        "Every user and API key has roles: reader, writer, owner and admin. A role can",
        "carry a row-level filter that Lumen adds to every query and write, including",
        "full-text searches.",
    ],
]

HANDBOOK_OUTLINE: list[OutlineEntry] = [
    ("Chapter 1 Introduction", 0, [("1.1 What Lumen Is", 0), ("1.2 Key Concepts", 0)]),
    ("Chapter 2 Installation", 1, [("2.1 Linux", 1), ("2.2 macOS and Windows", 1),
                                   ("2.3 Verifying the Installation", 1)]),
    ("Chapter 3 Architecture", 2, [("3.1 Storage Engine", 2), ("3.2 Query Execution", 2)]),
    ("Chapter 4 Security", 3, [("4.1 Authentication", 3), ("4.2 Authorization", 3)]),
]

NOOUTLINE_PAGES: list[list[str]] = [
    [
        "1 Introduction",
        "",
        "This guide has no bookmarks. Each page starts with a numbered line that looks",
        "like a heading, so an indexer may recover a table of contents from the text.",
        "Lumen keeps documents and their full-text index in one storage engine.",
    ],
    [
        "2 Installation",
        "",
        "Install the single static binary, then run lumen doctor to check the data",
        "directory. Client libraries exist for JavaScript, Python, Go, Java and .NET.",
    ],
    [
        "3 Configuration",
        "",
        "Lumen reads one TOML file, lumen.toml. Environment variables named LUMEN_",
        "followed by the table and key override it, for example LUMEN_LOG_LEVEL.",
    ],
]

ENCRYPTED_PASSWORD = "lumen-secret"

DOCX_TITLE = "Lumen Operations Guide"


def _escape_pdf_text(s: str) -> str:
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _build_writer(pages: Sequence[Sequence[str]], outline: Sequence[OutlineEntry] | None = None):
    from pypdf import PageObject, PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    N = NameObject
    w = PdfWriter()
    font = DictionaryObject({
        N("/Type"): N("/Font"),
        N("/Subtype"): N("/Type1"),
        N("/BaseFont"): N("/Helvetica"),
        N("/Encoding"): N("/WinAnsiEncoding"),
    })
    for lines in pages:
        page = w.add_page(PageObject.create_blank_page(width=612, height=792))
        page[N("/Resources")] = DictionaryObject({N("/Font"): DictionaryObject({N("/F1"): font})})
        ops = ["BT", "/F1 11 Tf", "14 TL", "72 740 Td"]
        ops += [f"({_escape_pdf_text(line)}) Tj T*" for line in lines]
        ops.append("ET")
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops).encode("latin-1"))  # WinAnsi: ASCII + Latin-1 letters
        page.replace_contents(stream)

    def add_items(entries, parent=None):
        for entry in entries:
            title, page_number = entry[0], entry[1]
            children = entry[2] if len(entry) > 2 else []
            item = w.add_outline_item(title=title, page_number=page_number, parent=parent)
            add_items(children, parent=item)

    if outline:
        add_items(outline)
    w.add_metadata({"/Title": "Lumen Handbook", "/Author": "Lumen Docs Team"})
    return w


def make_pdf(path: str, pages: Sequence[Sequence[str]], outline: Sequence[OutlineEntry] | None = None) -> str:
    """Write a PDF with one page per list of text lines, plus an optional outline.

    ``outline`` entries are ``(title, page_index)`` or ``(title, page_index, children)``.
    Text must be encodable in Latin-1 (Helvetica with WinAnsiEncoding).
    """
    w = _build_writer(pages, outline)
    with open(path, "wb") as f:
        w.write(f)
    return path


def make_handbook_pdf(path: str) -> str:
    """4 pages about Lumen with a 2-level outline (chapters and sections)."""
    return make_pdf(path, HANDBOOK_PAGES, HANDBOOK_OUTLINE)


def make_nooutline_pdf(path: str) -> str:
    """3 pages, no outline; first lines look like headings ("1 Introduction", ...)."""
    return make_pdf(path, NOOUTLINE_PAGES, None)


def make_encrypted_pdf(path: str, password: str = ENCRYPTED_PASSWORD) -> str:
    """A PDF that needs a user password to be read."""
    w = _build_writer(HANDBOOK_PAGES[:1], None)
    # RC4-128 is implemented by pypdf itself; AES would need the cryptography package.
    w.encrypt(user_password=password, owner_password=password + "-owner", algorithm="RC4-128")
    with open(path, "wb") as f:
        w.write(f)
    return path


def make_corrupt_pdf(path: str) -> str:
    """A %PDF header, the first part of a real PDF, then garbage; no xref, no trailer."""
    import io

    buf = io.BytesIO()
    _build_writer(HANDBOOK_PAGES[:2], None).write(buf)
    data = buf.getvalue()
    truncated = data[: len(data) // 3]
    garbage = bytes((i * 37 + 11) % 256 for i in range(512))
    with open(path, "wb") as f:
        f.write(truncated + b"\n" + garbage)
    return path


def make_docx(path: str) -> str:
    """A DOCX with Title, Heading 1/2/3 paragraphs, body text, a list and a table."""
    import docx

    d = docx.Document()
    d.core_properties.title = DOCX_TITLE
    d.core_properties.author = "Lumen Docs Team"
    d.add_heading(DOCX_TITLE, level=0)  # style "Title"
    d.add_paragraph("This guide covers day-to-day operation of a Lumen server: backups, "
                    "monitoring and upgrades.")
    d.add_heading("Backups", level=1)
    d.add_paragraph("Lumen takes online backups: lumen backup create copies the manifest and "
                    "every live segment without blocking writes.")
    d.add_heading("Full Backups", level=2)
    d.add_paragraph("A full backup copies every segment. Schedule one per day.")
    d.add_heading("Restoring a Backup", level=3)
    d.add_paragraph("Stop the server, run lumen backup restore --from DIR, then start the "
                    "server again. The WAL written after the backup is replayed.")
    d.add_heading("Incremental Backups", level=2)
    d.add_paragraph("An incremental backup copies only segments created since the previous "
                    "backup, plus the current manifest.")
    d.add_heading("Monitoring", level=1)
    d.add_paragraph("The server exposes Prometheus metrics on /metrics:")
    for item in ("lumen_segments_total: number of live segments",
                 "lumen_wal_bytes: size of the write-ahead log",
                 "lumen_query_seconds: query latency histogram"):
        d.add_paragraph(item, style="List Bullet")
    d.add_heading("Alert Thresholds", level=2)
    table = d.add_table(rows=1, cols=3)
    table.style = "Table Grid"
    hdr = table.rows[0].cells
    hdr[0].text, hdr[1].text, hdr[2].text = "Metric", "Warning", "Critical"
    for row in (("lumen_segments_total", "200", "500"),
                ("lumen_wal_bytes", "1 GiB", "4 GiB"),
                ("lumen_query_seconds p99", "0.5 s", "2 s")):
        cells = table.add_row().cells
        for cell, text in zip(cells, row):
            cell.text = text
    d.add_heading("Upgrades", level=1)
    d.add_paragraph("Upgrade followers first, then the leader. Café, Ångström and straße "
                    "appear here so that accent-insensitive search can be checked in DOCX too.")
    d.save(path)
    return path


def make_broken_docx(path: str) -> str:
    """A valid ZIP that lacks [Content_Types].xml and word/document.xml."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("readme.txt", "This archive is not a Word document.\n")
        z.writestr("word/not-a-document.xml", "<w:document><unclosed>")
    return path


GENERATORS = {
    "handbook.pdf": make_handbook_pdf,
    "nooutline.pdf": make_nooutline_pdf,
    "encrypted.pdf": make_encrypted_pdf,
    "corrupt.pdf": make_corrupt_pdf,
    "handbook.docx": make_docx,
    "broken.docx": make_broken_docx,
}


def generate_all(outdir: str) -> dict[str, str]:
    """Write every sample into outdir (created if needed); return {name: path}."""
    os.makedirs(outdir, exist_ok=True)
    return {name: fn(os.path.join(outdir, name)) for name, fn in GENERATORS.items()}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print("usage: python datasets/make_binary_samples.py OUTDIR", file=sys.stderr)
        return 2
    for name, path in generate_all(argv[0]).items():
        print(f"wrote {path} ({os.path.getsize(path)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
