"""Benchmark: `parse_pdf` against bare pypdf `extract_text()`, in pages per second.

    python benchmarks/pdf_extraction.py [PDF ...] [--pages 200] [--repeat 3] [--check]

With no PDF, a synthetic one is generated in memory (Helvetica text, ~45 lines per page,
a two-level outline with an entry every page). Each run opens the PDF afresh; the best
of `--repeat` runs is kept for each side, the two sides alternating so that machine
noise hits both. The goal is `parse_pdf` no slower than pypdf + 10%: the extra work
(outline, heading lines, glued-word check, entities) must stay small next to text
extraction. `--check` exits 1 when the overhead is above 10%.

`--compare PDF...` measures the three text extractors `parse_pdf` can use on real files
(PDFium through pypdfium2, the default; poppler's pdftotext; pypdf): CPU seconds per page
(pdftotext's from its child process), the word-sequence similarity of each page's text
between extractors (difflib ratio over words, CJK characters counted as words), and
`parse_pdf`'s sections with each (outline titles, pages, the line each heading was found
on, printed numbers, where the body starts). The published figures:

    python benchmarks/pdf_extraction.py --compare $pdf_r/R-intro.pdf $pdf_r/R-exts.pdf \
        $pdf_r/refman.pdf $pdf_debref_en/*.pdf $pdf_debref_zh/*.pdf

Full mode (the published figure): `python benchmarks/pdf_extraction.py --pages 200`.
`--smoke` runs one pass over datasets/' generated handbook PDF (4 pages, 2-level outline,
from datasets/make_binary_samples.py, written to a temporary folder) and a 5-page
synthetic one; its rates mean nothing. `--json OUT` writes the figures and, per PDF, the
page count and the headings `parse_pdf` found.
"""

from __future__ import annotations

import argparse
import difflib
import io
import json
import random
import re
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pypdf import PageObject, PdfReader, PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from docql_sqlite.ingest import pdf as pdf_module  # noqa: E402
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


# -- extractors side by side (--compare) ------------------------------------------------
_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]|\w+")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def extract(data: bytes, extractor: str) -> tuple[list[str], float]:
    """(page texts, CPU seconds) by one extractor, as `parse_pdf` would get them."""
    started, children = time.process_time(), _children_cpu()
    if extractor == "pdfium":
        pages = pdf_module._pdfium_pages(data, len(PdfReader(io.BytesIO(data)).pages), [])
    elif extractor == "pdftotext":
        pages = pdf_module._pdftotext(data)
    else:
        reader = PdfReader(io.BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages]
    cpu = time.process_time() - started + _children_cpu() - children
    if pages is None:
        raise SystemExit(f"{extractor} could not read the file")
    return pages, cpu


def similarity(a: str, b: str) -> float:
    """How alike two texts of a page are: difflib's ratio over their word sequences."""
    words_a, words_b = _WORD.findall(a.casefold()), _WORD.findall(b.casefold())
    if not words_a and not words_b:
        return 1.0
    return difflib.SequenceMatcher(None, words_a, words_b, autojunk=False).ratio()


def parsed_with(data: bytes, extractor: str) -> tuple[Any, float]:
    """`parse_pdf` with one extractor forced (the others made unavailable), and its CPU."""
    saved = (pdf_module._pdfium, pdf_module.shutil.which, pdf_module.LARGE_PDF_PAGES)
    try:
        if extractor != "pdfium":
            pdf_module._pdfium = lambda: None  # type: ignore[assignment]
        if extractor == "pypdf":
            pdf_module.shutil.which = lambda name: None  # type: ignore[assignment]
        if extractor == "pdftotext":
            pdf_module.LARGE_PDF_PAGES = 0
        started, children = time.process_time(), _children_cpu()
        document = parse_pdf(data, "compare.pdf")
        return document, time.process_time() - started + _children_cpu() - children
    finally:
        pdf_module._pdfium, pdf_module.shutil.which, pdf_module.LARGE_PDF_PAGES = saved


def compare(paths: list[str]) -> list[dict[str, Any]]:
    extractors = ("pdfium", "pdftotext", "pypdf")
    results = []
    for path in paths:
        data = Path(path).read_bytes()
        texts, row = {}, {"pdf": Path(path).name}
        for name in extractors:
            texts[name], row[f"{name}_cpu_s"] = extract(data, name)
            row["pages"] = len(texts[name])
            print(
                f"{row['pdf']}: {name} {len(texts[name])} pages, {row[f'{name}_cpu_s']:.2f} CPU s, "
                f"{1000 * row[f'{name}_cpu_s'] / max(1, len(texts[name])):.2f} ms/page",
                flush=True,
            )
        for a, b in (("pdfium", "pypdf"), ("pdfium", "pdftotext"), ("pdftotext", "pypdf")):
            if len(texts[a]) != len(texts[b]):
                row[f"{a}~{b}"] = None
                continue
            sims = sorted(similarity(x, y) for x, y in zip(texts[a], texts[b]))
            row[f"{a}~{b}"] = {
                "mean": sum(sims) / len(sims),
                "p5": sims[len(sims) // 20],
                "min": sims[0],
            }
            print(f"  similarity {a}~{b}: {row[f'{a}~{b}']}", flush=True)
        sections = {}
        for name in extractors:
            document, cpu = parsed_with(data, name)
            row[f"parse_pdf_{name}_cpu_s"] = cpu
            sections[name] = [(h.title, h.page, h.number) for h in document.headings]
            found = sum(
                1
                for h in document.headings
                if pdf_module._norm(h.title)[:12]
                in pdf_module._norm(document.text.split("\n")[h.line - 1] + " ")
                + pdf_module._norm(" ".join(document.text.split("\n")[h.line : h.line + 1]))
            )
            row[f"sections_{name}"] = len(document.headings)
            row[f"sections_on_their_line_{name}"] = found
            row[f"body_page_{name}"] = document.page_of(document.body_start_line)
            print(
                f"  parse_pdf with {name}: {cpu:.2f} CPU s, {len(document.headings)} sections "
                f"({found} on their line), body from page {row[f'body_page_{name}']}",
                flush=True,
            )
        row["same_sections_pdfium_pypdf"] = sections["pdfium"] == sections["pypdf"]
        row["same_sections_pdfium_pdftotext"] = sections["pdfium"] == sections["pdftotext"]
        print(
            "  same sections (title, page, number): "
            f"pdfium = pypdf {row['same_sections_pdfium_pypdf']}, "
            f"pdfium = pdftotext {row['same_sections_pdfium_pdftotext']}",
            flush=True,
        )
        results.append(row)
    return results


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
    parser.add_argument(
        "--compare", action="store_true", help="compare the extractors on the PDFs given"
    )
    args = parser.parse_args(argv)
    if args.compare:
        if not args.pdf:
            parser.error("--compare needs PDF files")
        figures = compare(args.pdf)
        if args.json_out:
            args.json_out.write_text(json.dumps({"compare": figures}, indent=2))
        return 0

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
