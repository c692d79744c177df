"""Benchmark: `parse_pdf` against bare pypdf `extract_text()`, in pages per second.

    python benchmarks/pdf_extraction.py [PDF ...] [--pages 200] [--repeat 3] [--check]

With no PDF, a synthetic one is generated in memory (Helvetica text, ~45 lines per page,
a two-level outline with an entry every page). Each run opens the PDF afresh; the best
of `--repeat` runs is kept for each side, the two sides alternating so that machine
noise hits both. The goal is `parse_pdf` no slower than pypdf + 10%: the extra work
(outline, heading lines, glued-word check, entities) must stay small next to text
extraction. `--check` exits 1 when the overhead is above 10%.

Full mode (the published figure): `python benchmarks/pdf_extraction.py --pages 200`.
`--smoke` runs one pass over datasets/' generated handbook PDF (4 pages, 2-level outline,
from datasets/make_binary_samples.py, written to a temporary folder) and a 5-page
synthetic one; its rates mean nothing. `--json OUT` writes the figures and, per PDF, the
page count and the headings `parse_pdf` found.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from pypdf import PageObject, PdfReader, PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from docql_sqlite.ingest.pdf import parse_pdf  # noqa: E402

GOAL_OVERHEAD = 0.10
WORDS = (
    "index query section chapter heading document search chunk page table line entity term "
    "the a of to and in is for with on that by this from as be are can which each its"
).split()


def synthetic_pdf(pages: int, seed: int = 7) -> bytes:
    """A `pages`-page PDF with prose, numbered headings and a matching outline."""
    rng = random.Random(seed)
    writer = PdfWriter()
    n = NameObject
    font = DictionaryObject(
        {
            n("/Type"): n("/Font"),
            n("/Subtype"): n("/Type1"),
            n("/BaseFont"): n("/Helvetica"),
            n("/Encoding"): n("/WinAnsiEncoding"),
        }
    )
    titles: list[tuple[int, str]] = []
    for index in range(pages):
        chapter, section = index // 5 + 1, index % 5
        title = (
            f"{chapter} Chapter {chapter}"
            if section == 0
            else f"{chapter}.{section} Section {section}"
        )
        titles.append((0 if section == 0 else 1, title))
        lines = [f"Page header {index + 1}", title]
        lines += [
            " ".join(rng.choice(WORDS) for _ in range(12)).capitalize() + "." for _ in range(43)
        ]
        page = writer.add_page(PageObject.create_blank_page(width=612, height=792))
        page[n("/Resources")] = DictionaryObject({n("/Font"): DictionaryObject({n("/F1"): font})})
        stream = DecodedStreamObject()
        body = [f"({line}) Tj T*" for line in lines]
        stream.set_data(
            "\n".join(["BT", "/F1 10 Tf", "16 TL", "72 760 Td", *body, "ET"]).encode("latin-1")
        )
        page.replace_contents(stream)  # type: ignore[arg-type]  # pypdf accepts decoded streams
    parent = None
    for index, (depth, title) in enumerate(titles):
        item = writer.add_outline_item(
            title=title, page_number=index, parent=parent if depth else None
        )
        if depth == 0:
            parent = item
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def bare_pypdf(data: bytes) -> int:
    reader = PdfReader(io.BytesIO(data))
    for page in reader.pages:
        page.extract_text()
    return len(reader.pages)


def with_parse_pdf(data: bytes) -> int:
    return parse_pdf(data, "bench.pdf").page_count or 0


def best_times(data: bytes, repeat: int) -> tuple[float, float, int]:
    base, ours, pages = float("inf"), float("inf"), 0
    for _ in range(repeat):
        start = time.process_time()
        pages = bare_pypdf(data)
        base = min(base, time.process_time() - start)
        start = time.process_time()
        with_parse_pdf(data)
        ours = min(ours, time.process_time() - start)
    return base, ours, pages


def smoke_pdf() -> bytes:
    """datasets/' handbook PDF (4 pages, 2-level outline), generated in a temporary folder."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "datasets"))
    import make_binary_samples

    with tempfile.TemporaryDirectory(prefix="docql-pdf-") as folder:
        path = make_binary_samples.make_handbook_pdf(str(Path(folder) / "handbook.pdf"))
        return Path(path).read_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("pdf", nargs="*", help="PDF files (default: a generated one)")
    parser.add_argument("--pages", type=int, default=200, help="pages of the generated PDF")
    parser.add_argument("--repeat", type=int, default=3, help="runs per side; the best is kept")
    parser.add_argument("--check", action="store_true", help="exit 1 if overhead > 10%%")
    parser.add_argument("--smoke", action="store_true", help="datasets/ handbook PDF, 1 run")
    parser.add_argument("--json", dest="json_out", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)

    if args.smoke:
        args.pages, args.repeat = 5, 1
    inputs = [(p, Path(p).read_bytes()) for p in args.pdf] or [
        (f"synthetic ({args.pages} pages)", synthetic_pdf(args.pages))
    ]
    if args.smoke:
        inputs.insert(0, ("datasets handbook.pdf", smoke_pdf()))
    results = []
    print(f"{'pdf':<44} {'pages':>6} {'pypdf p/s':>10} {'parse_pdf p/s':>14} {'overhead':>9}")
    worst = 0.0
    for name, data in inputs:
        base, ours, pages = best_times(data, args.repeat)
        overhead = ours / base - 1
        worst = max(worst, overhead)
        print(
            f"{name[-44:]:<44} {pages:>6} {pages / base:>10.1f} "
            f"{pages / ours:>14.1f} {overhead:>8.1%}"
        )
        document = parse_pdf(data, "bench.pdf")
        results.append(
            {
                "pdf": name,
                "pages": pages,
                "parse_pdf_pages": document.page_count,
                "headings": [h.title for h in document.headings],
                "pypdf_cpu_s": base,
                "parse_pdf_cpu_s": ours,
                "overhead": overhead,
            }
        )
    verdict = "ok" if worst <= GOAL_OVERHEAD else "SLOWER than goal"
    if args.smoke:  # 9 pages, one run: no verdict to draw
        print("(--smoke: a harness check on 9 pages; its rates mean nothing)")
    else:
        print(f"worst overhead {worst:.1%} (goal ≤ {GOAL_OVERHEAD:.0%}): {verdict}")
    if args.json_out:
        args.json_out.write_text(json.dumps({"pdfs": results, "worst_overhead": worst}, indent=2))
    return 1 if args.check and worst > GOAL_OVERHEAD else 0


if __name__ == "__main__":
    sys.exit(main())
