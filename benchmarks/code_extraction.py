"""Benchmark the code parser on the Python standard library, checked against `ast`.

Runs the code parser (`ingest.code.parse`) over every stdlib `.py` file on this
machine (site-packages excluded) and reports throughput (files/s, MB/s, parse time
only) and correctness:
for every file `ast` accepts, the multiset of (class|function, qualified name, line)
tree-sitter finds must equal what `ast` finds; end-line mismatches are counted too.
Files `ast` rejects (deliberately broken test data) only have to not crash.

    python benchmarks/code_extraction.py [--limit N] [--show N] [--root DIR] [--json OUT]
    python benchmarks/code_extraction.py --smoke --json OUT   # datasets/ Python, seconds

Full mode (the published figure): `python benchmarks/code_extraction.py`, the whole stdlib.
`--smoke` runs the same comparison on the Python files of datasets/ (copied into a
temporary folder, with datasets/bad/broken_syntax.py as the file `ast` rejects); its
timings mean nothing.

Goal to report against: >= 200 typical Python files/s. No timing assertions.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import shutil
import sys
import sysconfig
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from docql_sqlite.ingest.code import parse  # noqa: E402
from docql_sqlite.model import Document, Source  # noqa: E402

Key = tuple[str, str, int]


def stdlib_files(root: Path) -> list[Path]:
    """Every .py file under `root`, sorted, without third-party packages."""
    return sorted(
        p for p in root.rglob("*.py") if not {"site-packages", "dist-packages"} & set(p.parts)
    )


def ast_symbols(tree: ast.AST) -> tuple[Counter[Key], dict[tuple[str, int], int]]:
    """(kind, qualified name, line) multiset and end lines of every class and def."""
    found: Counter[Key] = Counter()
    ends: dict[tuple[str, int], int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                qualified = f"{prefix}.{child.name}" if prefix else child.name
                kind = "class" if isinstance(child, ast.ClassDef) else "function"
                found[(kind, qualified, child.lineno)] += 1
                ends[(qualified, child.lineno)] = child.end_lineno or child.lineno
                visit(child, qualified)
            else:
                visit(child, prefix)

    visit(tree, "")
    return found, ends


def ts_symbols(document: Document) -> tuple[Counter[Key], dict[tuple[str, int], int]]:
    found: Counter[Key] = Counter()
    ends: dict[tuple[str, int], int] = {}
    for s in document.symbols:
        if s.kind == "enum_member":  # an Enum's `RED = 1`: no class or def of `ast`'s
            continue
        kind = "class" if s.kind == "class" else "function"
        found[(kind, s.qualified_name, s.line)] += 1
        ends[(s.qualified_name, s.line)] = s.end_line
    return found, ends


def run(files: list[Path], root: Path, show: int) -> dict[str, object]:
    parse_seconds = cpu_seconds = 0.0
    per_file: list[tuple[float, int]] = []  # (seconds, bytes)
    total_bytes = 0
    compared = rejected = extent_mismatches = 0
    symbol_count = 0
    diffs: list[tuple[str, list[Key], list[Key]]] = []
    failures: list[tuple[str, str]] = []
    for path in files:
        data = path.read_bytes()
        total_bytes += len(data)
        rel = str(path.relative_to(root))
        source = Source(path=rel, uri=str(path), data=data, sha256=hashlib.sha256(data).hexdigest())
        start, cpu_start = time.perf_counter(), time.process_time()
        try:
            document = parse(source)
        except Exception as exc:  # report, keep going: a benchmark is a survey
            failures.append((rel, f"{type(exc).__name__}: {exc}"))
            continue
        finally:
            elapsed = time.perf_counter() - start
            parse_seconds += elapsed
            cpu_seconds += time.process_time() - cpu_start
            per_file.append((elapsed, len(data)))
        symbol_count += len(document.symbols)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # invalid escape sequences in old test data
                tree = ast.parse(data, filename=rel)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            rejected += 1
            continue
        compared += 1
        want, want_ends = ast_symbols(tree)
        got, got_ends = ts_symbols(document)
        if want != got:
            diffs.append((rel, sorted((want - got).elements()), sorted((got - want).elements())))
        extent_mismatches += sum(
            1 for key, end in want_ends.items() if key in got_ends and got_ends[key] != end
        )

    mb = total_bytes / 1e6
    print(f"root:         {root}")
    print(f"files:        {len(files)} ({mb:.1f} MB), {symbol_count} symbols")
    print(
        f"parse time:   {parse_seconds:.2f} s  ->  {len(files) / parse_seconds:.0f} files/s, "
        f"{mb / parse_seconds:.2f} MB/s  (goal: >= 200 files/s)"
    )
    # CPU time is steadier than wall time on a shared machine
    print(f"cpu time:     {cpu_seconds:.2f} s  ->  {len(files) / cpu_seconds:.0f} files/s")
    # "Typical" = the middle half of files by size: the mean over everything is
    # dominated by a few 200-700 KB test modules.
    by_size = sorted(per_file, key=lambda item: item[1])
    middle = by_size[len(by_size) // 4 : 3 * len(by_size) // 4] or by_size
    middle_seconds = sum(t for t, _ in middle)
    print(
        f"typical:      middle half by size ({middle[0][1] / 1e3:.1f}-{middle[-1][1] / 1e3:.1f} "
        f"KB): "
        f"{len(middle) / middle_seconds:.0f} files/s"
    )
    print(
        f"vs ast:       {compared} files compared, {len(diffs)} differ; "
        f"{rejected} rejected by ast (only checked not to crash)"
    )
    print(f"end lines:    {extent_mismatches} symbols whose end_line differs from ast's end_lineno")
    for rel, missing, extra in diffs[:show]:
        print(f"  diff {rel}: missing {missing[:5]} extra {extra[:5]}")
    print(f"failures:     {len(failures)}")
    for rel, error in failures[:show]:
        print(f"  {rel}: {error}")
    return {
        "root": str(root),
        "files": len(files),
        "bytes": total_bytes,
        "symbols": symbol_count,
        "parse_s": parse_seconds,
        "cpu_s": cpu_seconds,
        "compared": compared,
        "rejected_by_ast": rejected,
        "differ": [{"file": r, "missing": m, "extra": e} for r, m, e in diffs],
        "end_line_mismatches": extent_mismatches,
        "failures": [{"file": r, "error": e} for r, e in failures],
    }


def smoke_root(target: Path) -> Path:
    """The Python files of datasets/ (and the one `ast` rejects), copied under `target`."""
    datasets = Path(__file__).resolve().parents[1] / "datasets"
    shutil.copytree(datasets / "code" / "python", target / "python")
    shutil.copy(datasets / "bad" / "broken_syntax.py", target / "python")
    return target


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--limit", type=int, default=0, help="only the first N files")
    parser.add_argument("--show", type=int, default=10, help="diffs and failures to print")
    parser.add_argument("--smoke", action="store_true", help="datasets/ Python files, seconds")
    parser.add_argument("--json", dest="json_out", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="docql-code-") as tmp:
        root = smoke_root(Path(tmp)) if args.smoke else args.root
        files = stdlib_files(root)
        if args.limit:
            files = files[: args.limit]
        result = run(files, root, args.show)
    if args.smoke:
        print("(--smoke: a harness check on 3 files; its timings mean nothing)")
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
