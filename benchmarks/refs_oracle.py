"""Python call sites: docql's links against a language server's, Jedi's `goto`, on the same
positions (issue 23's "what language servers offer"; docs/benchmarks.md, C7).

    python benchmarks/refs_oracle.py DB ROOT          # an index holding the Python tree ROOT
    python benchmarks/refs_oracle.py --smoke --json OUT   # datasets/code, seconds

For every call reference of a Python file under ROOT, Jedi (`jedi.Script.goto`, imports
followed, the tree as its project) is asked where the called name is defined, and the
answer is compared with the reference's `resolution` and `target`:

- a link (`local`, `import`, `unique`) **agrees** when Jedi names the same file and a line
  within 3 of the target's (a decorator or a docstring moves Jedi's line), **disagrees**
  when Jedi names another function or class of the tree, and is **outside** when Jedi
  names one outside the tree (a dependency's, the standard library's: the link is wrong);
  a call Jedi takes for a parameter's or a variable's (`app(scope, receive, send)`) is
  judged as one Jedi does not answer;
- `ambiguous` and `unresolved` references are **missed** when Jedi names a definition
  of the tree.

Precision = agree / (agree + disagree + outside); missed counts what a language server
links and docql does not. Jedi is an inference engine, not ground truth (it follows
annotations and assignments further than docql, and stops at dynamic attributes), so
read the samples printed with the figures. Needs `jedi` (the `bench` dependency group).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESOLUTIONS = ("unresolved", "local", "import", "unique", "ambiguous")
LINKS = frozenset({"local", "import", "unique"})
NEAR = 3  # lines between Jedi's line and the target's that still agree


def compare(db: Path, root: Path, limit: int | None = None) -> dict[str, Any]:
    import jedi

    root = root.resolve()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = conn.execute(
        "SELECT d.uri, r.line, r.col, r.name, r.resolution, td.uri, t.line "
        "FROM refs r JOIN documents d ON d.id = r.doc_id "
        "LEFT JOIN symbols t ON t.id = r.target_id "
        "LEFT JOIN documents td ON td.id = t.doc_id "
        "WHERE r.kind = 0 AND d.language = 'python' ORDER BY d.uri, r.line, r.col"
    ).fetchall()
    conn.close()
    # The tree's own packages first (a `src/` layout's too), then the environment's: a
    # copy of the package installed there (click, a dependency here) is not the tree's.
    first = [str(root / "src")] if (root / "src").is_dir() else []
    environment = jedi.get_default_environment().get_sys_path()
    project = jedi.Project(str(root), sys_path=[*first, str(root), *environment])
    scripts: dict[str, Any] = {}
    counts: Counter[str] = Counter()
    samples: dict[str, list[list[Any]]] = {"disagree": [], "outside": [], "missed": []}
    inside = str(root) + os.sep
    for uri, line, col, name, resolution, target_uri, target_line in rows[:limit]:
        if not uri.startswith(inside):
            continue
        script = scripts.get(uri)
        if script is None:
            script = scripts[uri] = jedi.Script(path=uri, project=project)
        lines = script._code_lines
        text = lines[line - 1] if line <= len(lines) else ""
        column = text.find(name, max(0, col - 1))  # docql counts characters from 1
        if column < 0:
            counts["no name at the position"] += 1
            continue
        try:
            found = script.goto(line, column, follow_imports=True)
        except Exception:  # Jedi's own failures are its, not the link's
            counts["jedi failed"] += 1
            continue
        # (a function's or a class's: what docql links to; a call of a parameter or a
        # variable, `app(scope, receive, send)`, names no symbol)
        in_tree = {
            (str(d.module_path), d.line)
            for d in found
            if d.type in ("function", "class")
            and d.module_path
            and str(d.module_path).startswith(inside)
            and d.line
        }
        found = [d for d in found if d.type in ("function", "class")]
        kind = RESOLUTIONS[resolution]
        where = [os.path.relpath(uri, root), line, name]
        if kind in LINKS:
            if not found:
                verdict = "jedi none"
            elif not in_tree:
                verdict = "outside"
                samples["outside"].append(where + [str(found[0].module_path)])
            elif any(u == target_uri and abs(n - target_line) <= NEAR for u, n in in_tree):
                verdict = "agree"
            else:
                verdict = "disagree"
                samples["disagree"].append(
                    where + [f"{os.path.relpath(target_uri, root)}:{target_line}"]
                )
            counts[f"link {verdict}"] += 1
        elif in_tree:
            counts[f"{kind}, jedi links"] += 1
            samples["missed"].append(where)
        else:
            counts[f"{kind}, jedi none or outside"] += 1
    judged = counts["link agree"] + counts["link disagree"] + counts["link outside"]
    rng = random.Random(1)
    return {
        "references": len(rows),
        "counts": dict(sorted(counts.items())),
        "precision": round(counts["link agree"] / judged, 4) if judged else None,
        "missed": counts["ambiguous, jedi links"] + counts["unresolved, jedi links"],
        "samples": {k: rng.sample(v, min(10, len(v))) for k, v in samples.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("db", nargs="?", help="an index holding the Python tree ROOT")
    parser.add_argument("root", nargs="?", help="the tree's folder (Jedi's project)")
    parser.add_argument("--limit", type=int, help="the first N references only")
    parser.add_argument("--smoke", action="store_true", help="index datasets/code and judge it")
    parser.add_argument("--json", metavar="OUT", help="also write the result to OUT")
    args = parser.parse_args()
    try:
        import jedi  # noqa: F401
    except ImportError:
        print("refs_oracle.py needs jedi (pip install jedi, or the bench group)", file=sys.stderr)
        return 2
    if args.smoke:
        import docql_sqlite

        with tempfile.TemporaryDirectory() as tmp:
            root = REPO / "datasets" / "code" / "python"
            db = Path(tmp) / "code.db"
            docql_sqlite.index(db, [str(root)])
            result = compare(db, root, args.limit)
    else:
        if not args.db or not args.root:
            parser.error("name DB and ROOT (or --smoke)")
        result = compare(Path(args.db), Path(args.root), args.limit)
    print(json.dumps({k: v for k, v in result.items() if k != "samples"}, indent=1))
    for kind, found in result["samples"].items():
        print(f"{kind} (a sample):")
        for sample in found:
            print("  ", *sample)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
