"""CPU of the parse side of an index run (what a parser worker does), per corpus, per stage.

One process, no workers, no database: every file of the corpus is read, decoded, parsed,
cut into sections and chunks and prepared for the writer (`ingest.parse.parse_task`),
as a worker does it. The CPU time of this process (`time.process_time`) is what a
shared machine cannot inflate much; wall time is not reported. Per stage, the same
files again: Markdown block scan (markdown-it-pyrs) or tree-sitter parse, and for code
the one query cursor pass, the outline and the references apart (the cost of references
is their share of the pass, measured apart in docs/benchmarks.md, plus their own stage).

    python benchmarks/parse_cpu.py --corpora md_node,md_docker,code_rust_alloc --runs 5
    python benchmarks/parse_cpu.py --smoke --json /tmp/parse_cpu.json

Corpora are names of the corpus manifest (benchmarks/fetch_corpora.sh), `code_rust_alloc`
(Rust's `library/alloc`) or folders. The minimum over the runs is reported (the least
disturbed by other processes), with the median.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import benchlib as bl

from docql_sqlite.ingest.parse import ParseTask, parse_task

_EXTRA = {"code_rust_alloc": ("code_rust", "library/alloc")}


def corpus_files(name: str, info: dict[str, str]) -> list[tuple[str, str | None]]:
    """(path, format) of every indexable file of a corpus (Markdown corpora: `*.md` only)."""
    if name in _EXTRA:
        key, sub = _EXTRA[name]
        roots = [Path(info[key]) / sub]
    elif name in info:
        roots = bl.corpus_roots(info, name)
    else:
        roots = [Path(name)]
    include = ("*.md",) if name.startswith("md_") else ()
    found = bl._walk(roots, include)
    return [
        (str(f.path), f.format) for f in found if not f.error and not getattr(f, "skipped", None)
    ]


def _parse_all(files: list[tuple[str, str | None]]) -> float:
    start = time.process_time()
    for path, fmt in files:
        parse_task(ParseTask(path, path, fmt))
    return time.process_time() - start


def _stages(files: list[tuple[str, str | None]]) -> dict[str, float]:
    """CPU of the parse's inner stages, each over every file (Markdown or code ones)."""
    from docql_sqlite.ingest import code_refs, code_symbols, markdown
    from docql_sqlite.ingest.grammars import get_parser, language_for_extension

    texts = [(p, Path(p).read_bytes().decode("utf-8", "replace")) for p, _ in files]
    out: dict[str, float] = {}
    md = [t for p, t in texts if p.endswith(".md")]
    if md:
        t = time.process_time()
        for text in md:
            markdown.scan_blocks(text)
        out["markdown block scan"] = time.process_time() - t
        t = time.process_time()
        for text in md:
            markdown.parse_markdown(text, "x.md")
        out["markdown parse (scan + document)"] = time.process_time() - t
    code = []
    for path, text in texts:
        language = language_for_extension(Path(path).suffix)
        if language is not None and not path.endswith(".md"):
            code.append((language, text.encode("utf-8", "replace")))
    if code:
        trees = []
        t = time.process_time()
        for language, src in code:
            trees.append(get_parser(language).parse(src))
        out["tree-sitter parse"] = time.process_time() - t
        if not hasattr(code_symbols, "query_matches"):  # before the shared pass
            t = time.process_time()
            outlines = [
                code_symbols.extract_outline(tree.root_node, src, lang, src.count(b"\n") + 1)
                for (lang, src), tree in zip(code, trees)
            ]
            out["outline (symbols, its own pass)"] = time.process_time() - t
            t = time.process_time()
            for (language, src), tree, outline in zip(code, trees, outlines):
                code_refs.extract_references(tree.root_node, src, language, outline)
            out["references (their own pass)"] = time.process_time() - t
            return out
        shared = []
        t = time.process_time()
        for (language, _), tree in zip(code, trees):
            shared.append(code_symbols.query_matches(tree.root_node, language))
        out["query cursor pass (symbols + references)"] = time.process_time() - t
        outlines = []
        t = time.process_time()
        for (language, src), tree, (symbols, _) in zip(code, trees, shared):
            lines = src.count(b"\n") + 1
            outlines.append(
                code_symbols.extract_outline(tree.root_node, src, language, lines, symbols)
            )
        out["outline (symbols) after the pass"] = time.process_time() - t
        # what indexing calls: the rows (since 2026-12-04), before that the objects
        extract = getattr(code_refs, "extract_reference_rows", code_refs.extract_references)
        t = time.process_time()
        for (language, src), tree, outline, (_, refs) in zip(code, trees, outlines, shared):
            extract(tree.root_node, src, language, outline, refs)
        out["references after the pass"] = time.process_time() - t
    return out


def measure(name: str, files: list[tuple[str, str | None]], runs: int) -> dict[str, Any]:
    _parse_all(files[:3])  # warm-up: imports, compiled queries and regexes
    totals = [_parse_all(files) for _ in range(runs)]
    stages = [_stages(files) for _ in range(runs)]
    return {
        "corpus": name,
        "files": len(files),
        "bytes": sum(Path(p).stat().st_size for p, _ in files),
        "parse_cpu_s_min": min(totals),
        "parse_cpu_s_median": statistics.median(totals),
        "stages_cpu_s_min": {k: min(s[k] for s in stages) for k in stages[0]},
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpora", default="md_node,md_docker,code_rust_alloc")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="datasets/en and datasets/code")
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    if args.smoke:
        names, info, runs = [str(bl.REPO / "datasets" / p) for p in ("en", "code")], {}, 1
    else:
        names, info, runs = args.corpora.split(","), bl.manifest(fetch=False), args.runs
    results = [measure(name, corpus_files(name, info), runs) for name in names]
    for r in results:
        print(
            f"{Path(r['corpus']).name:18} {r['files']:6} files {r['bytes'] / 1e6:7.2f} MB  "
            f"parse CPU min {r['parse_cpu_s_min']:.3f} s (median {r['parse_cpu_s_median']:.3f})"
        )
        for stage, seconds in r["stages_cpu_s_min"].items():
            print(f"    {stage:34} {seconds:.3f} s")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
