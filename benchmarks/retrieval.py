"""Retrieval quality: nDCG@10, Recall@10 and MRR@10 of bm25, vector, hybrid and smart search.

    # both sets, all modes, use-multilingual
    python benchmarks/retrieval.py
    python benchmarks/retrieval.py --sets lee --model hash      # quick, lexical test model
    PATH=$NODE22/bin:$PATH python benchmarks/retrieval.py --qmd $QMD/node_modules/.bin/qmd
                                                                # also QMD's `qmd search` (node 22,
                                                                # corpora.md E3)

Judged sets, built from data obtainable here (notes/corpora.md D1, D3), cached outside
the repository in $DOCQL_CORPORA (default ~/.cache/docql-corpora):

- `lee`: gensim's Lee corpus (50 news documents, human similarity 0-1 for every pair),
  extracted from the gensim 4.4.0 wheel (`pip download`). Each document is a query
  against the other 49 (itself excluded); relevant = similarity >= 0.5, binary gains.
  Results are grouped per file (a document is one or two chunks).
- `code`: CPython standard library "core" (no tests, idlelib, tkinter, lib2to3,
  turtledemo, ensurepip) with every docstring removed (blanked in place, so line
  numbers stay). Query = the first sentence of a public function's docstring (>= 5
  words), 500 sampled with a fixed seed; relevant = a passage overlapping the function.
- `zh`: unspaced Chinese questions over `debian-reference-zh-cn` (HTML) and datasets/zh.
- `debfaq`, `rfaq`: question → answer. Each question section of the Debian FAQ
  (`debian-faq`, its text edition) or the R FAQ (`r-doc-html`, texinfo HTML) becomes one
  Markdown file headed "FAQ entry N", the question removed; the question is the query,
  that file the answer; the Node + Docker + Rust books mix (1,494 files, corpora.md A6,
  from the corpora manifest or $DOCQL_MIX) is added as distractors. Packages come from
  `apt-get download` + `dpkg -x` into $DOCQL_CORPORA/debs.

    python benchmarks/retrieval.py --sets debfaq,rfaq --model '' --modes bm25,smart --baseline

- `djfaq`: how-to questions over a repository of documentation and code. Django 5.1.4's
  sdist (`pip download`): its `docs/` (reST in .txt files) and its `django/` package
  (Python, templates, locales) indexed together (~33k passages); each question of
  `docs/faq/*.txt` (53) becomes "FAQ entry N" in the indexed copy, the rest of the page
  kept; the question is the query, its section's lines the answer (span relevance, and
  the file level too). The other pages of the docs often answer too: the figures are
  strict lower bounds, for comparing systems, not for an absolute recall.

    python benchmarks/retrieval.py --sets djfaq --model '' --modes bm25,smart --baseline

- `djwhere`: "where is <page title> explained?", "which page describes …?", "where can
  I read about …?", "where is … documented?" over djfaq's index, for each page of
  Django's docs (release notes and the FAQ aside) whose title no other page has (223);
  that page is the answer (file level). Code named like the title (`Middleware`,
  `Signals`) and the other pages on the topic compete.

Known-item sets (issue 19), each query's item and file both judged (`(file level)` rows),
names masked, only unambiguous items (a query text two items share is left out). The
item of `go` and `rust` spans its doc comment and its header, so a passage of the comment
alone counts; `--header` counts only a passage that holds the header line (what a user
looking for the function needs: docs/search.md, "A code section starts at its doc
comment"):

- `go`: doc comment → item over Go 1.19's src/ (`code_go` of the corpora manifest, 23
  packages, 3.7 MB): an exported func's or type's first doc sentence, its name taken out.
- `rust`: doc comment → item over Rust 1.63's library (`code_rust`, rust-src: `alloc`,
  `std::collections`, `fs`, `env`, `process`, `core::iter` and `core::str`; 136 files,
  2.5 MB): a public fn's, struct's, enum's or trait's first `///` sentence, its name and
  code spans taken out — the kind of set issue 19 measured smart at .736 item MRR
  against bm25's .933 on, built here from another part of the library, never tuned on.
- `node`: description → section of Node 18's Markdown API docs (`md_node`, nodejs-doc):
  the first sentence of a method's description in Node's own API JSON (`api/*.json.gz`)
  after its parameter list, the method's name and code spans taken out, finds the
  section headed by the method (its own text) — issue 19's other held-out kind (bm25
  .945 → smart .867 section MRR then), built from the package's JSON, not tuned on.
- `nodecli`: `node --help` option text (the corpora's Node 22, `peer_node`) → the
  option's section of Node 18's `cli.md` among all of its Markdown API docs, for the
  options both versions have — issue 19's third held-out kind (bm25 .672 → smart .598
  section MRR then).
- `pg`: description → passage of PostgreSQL 15's HTML manual (`html_pg`,
  postgresql-doc-15): the first sentence of a setting's (runtime-config pages) or a
  function's (function tables) description; data type and SQL command pages as
  distractors (4.5 MB).
- `git`: `git <cmd> -h` option lines (the installed git) → the option's entry in
  git-doc's HTML page of the command (`html_git`), every other page of git-doc as
  distractors (8.1 MB).

For `pg` and `git` the relevant passage is located in the built index (the one chunk of
the page holding the description / the option's term line). `--sample N` queries per
set (default 500; 300 in the published runs). `--split tune` / `--split confirm`: half
of each set's queries by a hash of the query id, to tune on one half and confirm on the
other.

    python benchmarks/retrieval.py --sets go,pg,git --sample 300 --model '' \
        --modes bm25,smart --baseline --split tune

Full mode (the published tables): the commands above. `--smoke` evaluates every mode with
the hash embedder on `smoke`, a set built from datasets/ alone (its English and Chinese
Markdown copied into a temporary folder, which also holds the vector cache): one query
per file, the file's first heading line, that file its answer. Its figures check the
harness, not the search. `--json OUT` writes the rows to OUT (`--json` alone: stdout);
under `--smoke` each row also has every query's own scores (`per_query`).
"""

from __future__ import annotations

import argparse
import ast
import glob
import gzip
import html
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Same rule as benchmarks/fetch_corpora.sh and benchlib.cache_dir().
CACHE = Path(
    os.environ.get("DOCQL_CORPORA")
    or ("/work/cache/corpora" if Path("/work/cache").is_dir() else "")
    or Path.home() / ".cache" / "docql-corpora"
)
GENSIM = "gensim==4.4.0"
SKIP_DIRS = {
    "test",
    "tests",
    "idlelib",
    "tkinter",
    "lib2to3",
    "turtledemo",
    "ensurepip",
    "site-packages",
    "__pycache__",
    "config-3.11-x86_64-linux-gnu",
    "pydoc_data",
}


@dataclass
class Query:
    qid: str
    text: str
    relevant: dict[str, float]  # for lee: path -> gain; for code: "path:line-end" -> 1
    exclude: str | None = None  # a path never counted (the query document itself)


@dataclass
class Dataset:
    name: str
    root: Path  # the directory to index (paths are stored relative to its parent)
    queries: list[Query] = field(default_factory=list)
    granularity: str = "file"  # file: relevance per document; span: per line range
    index: str = ""  # the index's name when another set's (default: `name`)


# -- Lee -------------------------------------------------------------------------------------
def lee(cache: Path = CACHE) -> Dataset:
    ir = cache / "ir"
    ir.mkdir(parents=True, exist_ok=True)
    needed = ("lee.cor", "similarities0-1.txt")
    if not all((ir / n).exists() for n in needed):
        wheels = glob.glob(str(ir / "gensim-4.4.0-*.whl"))
        if not wheels:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "-q",
                    "--no-deps",
                    "--only-binary",
                    ":all:",
                    GENSIM,
                    "-d",
                    str(ir),
                ],
                check=True,
            )
            wheels = glob.glob(str(ir / "gensim-4.4.0-*.whl"))
        with zipfile.ZipFile(wheels[0]) as z:
            for n in needed:
                (ir / n).write_bytes(z.read("gensim/test/test_data/" + n))
    docs = (ir / "lee.cor").read_bytes().decode("latin-1").splitlines()
    docs = [d.strip() for d in docs if d.strip()]
    sims = [
        [float(x) for x in line.split()]
        for line in (ir / "similarities0-1.txt").read_text().splitlines()
        if line.strip()
    ]
    root = cache / "lee" / "lee"
    root.mkdir(parents=True, exist_ok=True)
    names = [f"doc{i:02d}.txt" for i in range(len(docs))]
    for name, text in zip(names, docs):
        target = root / name
        if not target.exists() or target.read_text(encoding="utf-8") != text + "\n":
            target.write_text(text + "\n", encoding="utf-8")
    n = len(docs)
    sim = [[0.0] * n for _ in range(n)]
    for i, row in enumerate(sims):
        for j, value in enumerate(row):  # the file is a full or upper-triangular matrix
            sim[i][j] = sim[j][i] = max(sim[i][j], value)
    data = Dataset("lee", root, granularity="file")
    for i in range(n):
        relevant = {f"lee/{names[j]}": sim[i][j] for j in range(n) if j != i and sim[i][j] >= 0.5}
        if relevant:
            data.queries.append(Query(f"lee{i:02d}", docs[i], relevant, exclude=f"lee/{names[i]}"))
    return data


# -- smoke: datasets/ alone -------------------------------------------------------------------
_ATX = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def smoke_set(cache: Path) -> Dataset:
    """datasets/en and datasets/zh Markdown under `cache`; each file's first `#` line is a
    query whose answer is that file (a line of it: the answer is known without the index)."""
    datasets = Path(__file__).resolve().parents[1] / "datasets"
    root = cache / "smoke" / "smoke"
    data = Dataset("smoke", root, granularity="file")
    for part in ("en", "zh"):
        for src in sorted((datasets / part).rglob("*.md")):
            target = root / part / src.relative_to(datasets / part)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
            first = _ATX.search(src.read_text(encoding="utf-8"))
            if first:
                path = target.relative_to(root.parent).as_posix()
                data.queries.append(Query(f"smoke:{path}", first.group(1), {path: 1.0}))
    return data


# -- stdlib code search ------------------------------------------------------------------------
def _first_sentence(doc: str) -> str:
    text = " ".join(doc.strip().split("\n\n")[0].split())
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    return (match.group(1) if match else text).strip()


def _strip_docstrings(source: str, tree: ast.AST) -> str:
    lines = source.split("\n")
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
        ):
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                start, end = first.lineno - 1, first.end_lineno - 1  # type: ignore[operator]
                indent = re.match(r"\s*", lines[start]).group(0)  # type: ignore[union-attr]
                # `pass` keeps a body that was only a docstring valid; line numbers stay.
                lines[start] = indent + "pass" + lines[end][first.end_col_offset :]
                for k in range(start + 1, end + 1):
                    lines[k] = ""
    return "\n".join(lines)


def code(cache: Path = CACHE, sample: int = 500, seed: int = 0) -> Dataset:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    root = cache / "stdlib" / "stdlib"
    root.mkdir(parents=True, exist_ok=True)
    targets = []
    for path in sorted(stdlib.rglob("*.py")):
        rel = path.relative_to(stdlib)
        if any(part in SKIP_DIRS for part in rel.parts[:-1]) or rel.parts[0] in SKIP_DIRS:
            continue
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        out = root / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        stripped = _strip_docstrings(source, tree)
        if not out.exists() or out.read_text(encoding="utf-8") != stripped:
            out.write_text(stripped, encoding="utf-8")
        for node in ast.walk(tree):
            if isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef)
            ) and not node.name.startswith("_"):
                doc = ast.get_docstring(node)
                sentence = _first_sentence(doc) if doc else ""
                if len(sentence.split()) >= 5:
                    targets.append(
                        (f"stdlib/{rel.as_posix()}", node.lineno, node.end_lineno, sentence)
                    )
    rng = random.Random(seed)
    picked = rng.sample(targets, min(sample, len(targets)))
    data = Dataset("code", root, granularity="span")
    for n, (path, line, end, sentence) in enumerate(picked):
        data.queries.append(Query(f"code{n:03d}", sentence, {f"{path}:{line}-{end}": 1.0}))
    return data


# -- Go doc comment → item (known-item) ------------------------------------------------------
# Packages of Go's src/ (`code_go` in the corpora manifest, golang-1.19-src) the set indexes:
# ~3 MB of code, enough twins (bytes/strings, Reader/Writer, Sync/async) to be hard.
GO_PACKAGES = (
    "archive", "bufio", "bytes", "compress", "context", "encoding", "errors", "flag", "fmt",
    "io", "log", "math/big", "net/http", "net/url", "os", "path", "regexp", "sort",
    "strconv", "strings", "sync", "text/template", "unicode",
)  # fmt: skip
_GO_DECL = re.compile(r"^(?:func\s+(?:\([^)]*\)\s*)?|type\s+)([A-Z]\w*)")


def _from_manifest(key: str, package: str, subdir: str, cache: Path) -> Path:
    """Corpus `key` of the corpora manifest (benchmarks/fetch_corpora.sh), else `package`
    fetched into `cache` (`_deb_files`)."""
    for line in MIX_MANIFEST.read_text().splitlines() if MIX_MANIFEST.exists() else []:
        if line.startswith(f"{key}=") and Path(line.split("=", 1)[1]).is_dir():
            return Path(line.split("=", 1)[1])
    return _deb_files(package, cache, subdir)


def go_doc_items(source: str) -> list[tuple[int, int, str, str]]:
    """(first comment line, declaration line, name, doc comment) of each exported func or
    type with a doc comment (1-based lines)."""
    lines = source.split("\n")
    out = []
    for i, line in enumerate(lines):
        m = _GO_DECL.match(line)
        if not m:
            continue
        j = i
        while j > 0 and lines[j - 1].startswith("//"):
            j -= 1
        if j == i:
            continue
        doc = " ".join(x[2:].strip() for x in lines[j:i])
        out.append((j + 1, i + 1, m.group(1), doc))
    return out


def go_mask(name: str, doc: str) -> str:
    """The doc comment's first sentence with the item's name taken out (Go comments start
    with it: "Contains reports whether …" → "reports whether …")."""
    sentence = _first_sentence(doc)
    masked = re.sub(rf"\b{re.escape(name)}\b", " ", sentence)
    masked = re.sub(r"^\s*(?:An?|The)\s+(?=\s)", "", masked)
    return " ".join(masked.split())


def _copied(path: Path, out: Path) -> str:
    """`path`'s text, written to `out` unless it is there (the set's copy of its corpus)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    return text


def _doc_targets(
    files: list[tuple[Path, Path]],
    root: Path,
    prefix: str,
    items: Callable[[str], list[tuple[int, int, str, str]]],
    mask: Callable[[str, str], str],
    keep: Callable[[str], bool],
) -> tuple[list[tuple[str, int, int, str]], dict[str, int]]:
    """The doc comment → item targets of `files` (each a source and its path under
    `root`, where it is copied): every item's masked first sentence of 5 words or more
    that `keep` accepts, and how often each query occurs (`_known_items` keeps those
    that occur once)."""
    targets: list[tuple[str, int, int, str]] = []
    seen: dict[str, int] = {}
    for path, rel in files:
        for first, decl, name, doc in items(_copied(path, root / rel)):
            query = mask(name, doc)
            key = query.casefold()
            seen[key] = seen.get(key, 0) + 1
            if len(query.split()) >= 5 and keep(query):
                targets.append((f"{prefix}/{rel.as_posix()}", first, decl, query))
    return targets, seen


def header_relevance(data: Dataset) -> None:
    """Each doc comment → item query's relevant span cut to the item's header line (its
    last line): a comment-only passage no longer counts as the item it documents."""
    for query in data.queries:
        query.relevant = {
            f"{key.rpartition(':')[0]}:{key.rpartition('-')[2]}-{key.rpartition('-')[2]}": gain
            for key, gain in query.relevant.items()
        }


def _known_items(
    name: str,
    root: Path,
    targets: list[tuple[str, int, int, str]],
    seen: dict[str, int],
    sample: int,
    seed: int,
) -> Dataset:
    """A known-item set: `sample` of the `targets` (path, first line, last line, query)
    whose query no other item of the source gave (`seen`, by case-folded query), each
    relevant at its span."""
    unique = [t for t in targets if seen[t[3].casefold()] == 1]
    picked = random.Random(seed).sample(unique, min(sample, len(unique)))
    data = Dataset(name, root, granularity="span")
    for n, (path, first, last, query) in enumerate(picked):
        data.queries.append(Query(f"{name}{n:03d}", query, {f"{path}:{first}-{last}": 1.0}))
    return data


def go_set(cache: Path = CACHE, sample: int = 300, seed: int = 0) -> Dataset:
    """Doc comment → item over Go's standard library: the first sentence of an exported
    func's or type's doc comment, its name masked, finds the declaration (its comment and
    signature lines). The comments stay in the files (a known-item search: find what
    carries this sentence). Only unambiguous items: a masked sentence that two items share
    (bytes.Contains / strings.Contains) is left out, and so are sentences under 5 words
    or marked Deprecated."""
    src = _from_manifest("code_go", "golang-1.19-src", "usr/share/go-1.19/src", cache)
    root = cache / "go" / "gosrc"
    files = [
        (path, rel)
        for package in GO_PACKAGES
        for path in sorted((src / package).rglob("*.go"))
        if not path.name.endswith("_test.go")
        and "testdata" not in (rel := path.relative_to(src)).parts
    ]
    targets, seen = _doc_targets(
        files, root, "gosrc", go_doc_items, go_mask, lambda q: "deprecated" not in q.casefold()
    )
    return _known_items("go", root, targets, seen, sample, seed)


RUST_PARTS = (
    "library/alloc/src", "library/std/src/collections", "library/std/src/fs.rs",
    "library/std/src/env.rs", "library/std/src/process.rs", "library/core/src/iter",
    "library/core/src/str",
)  # fmt: skip
_RUST_ITEM = re.compile(
    r"^[ \t]*((?:///[^\n]*\n[ \t]*)+)(?:#\[[^\n]*\n[ \t]*)*"
    r"pub (?:const )?(?:unsafe )?(?:fn|struct|enum|trait) (\w+)",
    re.M,
)


def rust_doc_items(source: str) -> list[tuple[int, int, str, str]]:
    """(first comment line, declaration line, name, doc comment) of each public fn,
    struct, enum or trait with a `///` doc comment (attributes between are allowed)."""
    out = []
    for m in _RUST_ITEM.finditer(source):
        doc = " ".join(line.strip()[3:].strip() for line in m.group(1).strip().splitlines())
        first = source.count("\n", 0, m.start(1)) + 1
        out.append((first, source.count("\n", 0, m.start(2)) + 1, m.group(2), doc))
    return out


def rust_mask(name: str, doc: str) -> str:
    """The doc comment's first sentence without the item's name and code spans
    (`` `Vec` ``, `` [`None`] ``), which name the item or its types outright."""
    sentence = _first_sentence(doc)
    masked = re.sub(r"\[?`[^`]*`\]?", " ", sentence)
    masked = re.sub(rf"\b{re.escape(name)}\b", " ", masked, flags=re.IGNORECASE)
    return " ".join(masked.split())


def rust_set(cache: Path = CACHE, sample: int = 300, seed: int = 0) -> Dataset:
    """Doc comment → item over part of Rust's library, as `go_set` over Go's: the files
    are copied as they are (the comments stay: find what carries this sentence); only
    unambiguous sentences of 5 words or more that are no examples or headings."""
    src = _from_manifest("code_rust", "rust-src", "usr/src/rustc-1.63.0", cache)
    root = cache / "rust" / "rustsrc"
    files = [
        (path, rel)
        for part in RUST_PARTS
        for path in (sorted((src / part).rglob("*.rs")) if (src / part).is_dir() else [src / part])
        if "tests" not in (rel := path.relative_to(src / "library")).parts
        and path.name not in ("tests.rs", "benches.rs")
    ]
    targets, seen = _doc_targets(
        files, root, "rustsrc", rust_doc_items, rust_mask, lambda q: not q.startswith(("#", "```"))
    )
    return _known_items("rust", root, targets, seen, sample, seed)


_HTML_TAG = re.compile(r"<[^>]+>")


def node_method_items(api: dict) -> list[tuple[str, str, str]]:
    """(the heading text, the method's name, its first description sentence) of every
    method in one module of Node's API JSON, nested classes included."""
    out: list[tuple[str, str, str]] = []

    def walk(node: dict) -> None:
        for key in ("modules", "classes", "methods", "miscs"):
            for child in node.get(key, []):
                if key == "methods" and child.get("textRaw") and child.get("desc"):
                    # The description after the parameter list (`<ul>…</ul>`) and any
                    # stability note: its first paragraph's first sentence.
                    desc = re.sub(
                        r"<ul>.*?</ul>|<blockquote>.*?</blockquote>", " ", child["desc"], flags=re.S
                    )
                    para = re.search(r"<p>(.*?)</p>", desc, re.S)
                    if para:
                        text = html.unescape(_HTML_TAG.sub("", para.group(1)))
                        name = child["textRaw"].strip("`").split("(")[0].rsplit(".", 1)[-1]
                        out.append((child["textRaw"], name, _first_sentence(text)))
                walk(child)

    walk(api)
    return out


def node_set(cache: Path = CACHE, sample: int = 300, seed: int = 0) -> Dataset:
    """Method description → its section of Node's Markdown API docs: the `.md` pages are
    copied as they are; the section is the heading that writes the method as the JSON
    does (`` ### `fs.readFile(path[, options], callback)` ``) up to the next heading."""
    src = _from_manifest("md_node", "nodejs-doc", "usr/share/doc/nodejs/api", cache)
    root = cache / "node" / "nodeapi"
    targets: list[tuple[str, int, int, str]] = []
    seen: dict[str, int] = {}
    for page in sorted(src.glob("*.md")):
        data_file = page.with_suffix(".json.gz")
        if page.name == "all.md" or not data_file.exists():
            continue
        text = _copied(page, root / page.name)
        lines = text.split("\n")
        headings = [i for i, line in enumerate(lines) if re.match(r"#{1,6} ", line)]
        with gzip.open(data_file, "rt", encoding="utf-8") as handle:
            api = json.load(handle)
        for heading, name, sentence in node_method_items(api):
            at = next((i for i in headings if lines[i].split(" ", 1)[1].strip() == heading), None)
            if at is None:
                continue
            end = next((i for i in headings if i > at), len(lines)) - 1
            query = re.sub(r"`[^`]*`", " ", sentence)
            query = " ".join(re.sub(rf"\b{re.escape(name)}\b", " ", query).split())
            key = query.casefold()
            seen[key] = seen.get(key, 0) + 1
            if len(query.split()) >= 5:
                targets.append((f"nodeapi/{page.name}", at + 1, end + 1, query))
    return _known_items("node", root, targets, seen, sample, seed)


def node_help_options(help_text: str) -> list[tuple[list[str], str]]:
    """(the option's names, its description) of each option `node --help` lists, the
    description's wrapped lines joined."""
    out: list[tuple[list[str], str]] = []
    for line in help_text.splitlines():
        option = re.match(r"^  (-(?:\S.*?)?)(?:\s{2,}(\S.*))?$", line)
        if option:
            names = re.findall(r"(?<!\S)--?[\w-]*", option.group(1))
            out.append((names, option.group(2) or ""))
        elif out and re.match(r"^\s{10,}\S", line):
            out[-1] = (out[-1][0], f"{out[-1][1]} {line.strip()}".strip())
    return out


def nodecli_set(cache: Path = CACHE, sample: int = 300, seed: int = 0) -> Dataset:
    """`node --help` option text → the option's section of Node's `cli.md`: the help
    text of the options whose long name a `cli.md` heading writes in backticks
    (`` ### `--cpu-prof-dir` ``), the section up to the next heading; every other page of
    the Markdown API docs as distractors."""
    src = _from_manifest("md_node", "nodejs-doc", "usr/share/doc/nodejs/api", cache)
    node = next(
        (
            line.split("=", 1)[1]
            for line in (MIX_MANIFEST.read_text().splitlines() if MIX_MANIFEST.exists() else [])
            if line.startswith("peer_node=")
        ),
        shutil.which("node") or "node",
    )
    help_text = subprocess.run([node, "--help"], capture_output=True, text=True).stdout
    root = cache / "nodecli" / "nodeapi"
    for page in sorted(src.glob("*.md")):
        out = root / page.name
        if page.name != "all.md" and not out.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(page, out)
    lines = (root / "cli.md").read_text(encoding="utf-8").split("\n")
    headings = [i for i, line in enumerate(lines) if re.match(r"#{1,6} ", line)]
    targets: list[tuple[str, int, int, str]] = []
    seen: dict[str, int] = {}
    for names, description in node_help_options(help_text):
        longs = [n for n in names if n.startswith("--") and len(n) > 2]
        at = next(
            (i for i in headings for n in longs if re.search(rf"`{re.escape(n)}[`= ]", lines[i])),
            None,
        )
        query = " ".join(description.split())
        if at is None or len(query.split()) < 3:
            continue
        end = next((i for i in headings if i > at), len(lines)) - 1
        key = query.casefold()
        seen[key] = seen.get(key, 0) + 1
        targets.append(("nodeapi/cli.md", at + 1, end + 1, query))
    return _known_items("nodecli", root, targets, seen, sample, seed)


# -- located sets: queries whose answer span is found in the index once it is built ----------
@dataclass
class Pending:
    """A query whose relevant passage is located after indexing (`locate`): in `path`,
    the one chunk holding `needle` (whitespace-normalised); `line` matches a chunk
    holding a *line* that starts with the needle (an option's term line)."""

    qid: str
    text: str
    path: str
    needle: str
    line: bool = False
    prefer_section: str = ""  # among several chunks, those of a section with this word


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def locate(data: Dataset, db_path: Path, pending: list[Pending]) -> None:
    """Give `data` the pending queries whose needle one chunk of their file holds, that
    chunk's line range as the relevant span; the others are dropped (ambiguous)."""
    import sqlite3

    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        by_path: dict[str, list[tuple[int, int, str, str]]] = {}
        for path in {p.path for p in pending}:
            by_path[path] = [
                (r[0], r[1], r[2], r[3] or "")
                for r in conn.execute(
                    "SELECT c.line, c.end_line, c.content, s.title FROM chunks c "
                    "JOIN documents d ON d.id = c.doc_id LEFT JOIN sections s ON "
                    "s.id = c.section_id WHERE d.path = ? ORDER BY c.chunk_index",
                    (path,),
                )
            ]
    finally:
        conn.close()
    for p in pending:
        needle = _norm(p.needle)
        chunks = by_path.get(p.path, [])
        if p.line:
            found = [
                c for c in chunks if any(_norm(x).startswith(needle) for x in c[2].splitlines())
            ]
        else:
            found = [c for c in chunks if needle in _norm(c[2])]
        if len(found) > 1 and p.prefer_section:
            found = [c for c in found if p.prefer_section.casefold() in c[3].casefold()]
        if len(found) == 1:
            line, end = found[0][0], found[0][1]
            data.queries.append(Query(p.qid, p.text, {f"{p.path}:{line}-{end}": 1.0}))


def _unique(items: list[Pending]) -> list[Pending]:
    """Items whose query text no other item shares (unambiguous), of 4 words or more."""
    counts: dict[str, int] = {}
    for it in items:
        counts[_norm(it.text)] = counts.get(_norm(it.text), 0) + 1
    return [it for it in items if counts[_norm(it.text)] == 1 and len(it.text.split()) >= 4]


def _mask(text: str, names: list[str]) -> str:
    for name in names:
        if name:
            text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", " ", text, flags=re.I)
    return " ".join(text.split())


# -- PostgreSQL manual: a function's or a setting's description → its passage ----------------
PG_DOC = "postgresql-doc-15"
PG_PAGES = ("runtime-config*.html", "functions*.html", "datatype*.html", "sql-*.html")


def pg_set(cache: Path = CACHE, sample: int = 300, seed: int = 0) -> tuple[Dataset, list[Pending]]:
    """Description → section of PostgreSQL 15's manual (HTML, `postgresql-doc-15`): the
    first sentence of a configuration setting's description (runtime-config pages) or
    of a function's description (the function tables), the setting's or function's name
    masked. Distractors: the data type and SQL command reference pages. Relevant: the
    passage holding the description (located in the index, `locate`)."""
    from lxml import html as lxml_html

    src = _from_manifest("html_pg", PG_DOC, f"usr/share/doc/{PG_DOC}/html", cache)
    root = cache / "pg" / "pgdoc"
    root.mkdir(parents=True, exist_ok=True)
    items: list[Pending] = []
    for pattern in PG_PAGES:
        for page in sorted(src.glob(pattern)):
            out = root / page.name
            if not out.exists():
                shutil.copy(page, out)
            if not page.name.startswith(("runtime-config", "functions")):
                continue
            tree = lxml_html.parse(str(page))
            for dt in tree.xpath("//dt[starts-with(@id, 'GUC-')]"):
                name = "".join(dt.xpath(".//code[@class='varname'][1]//text()")).strip()
                paras = dt.xpath("following-sibling::dd[1]/p[1]")
                if paras:
                    desc = " ".join(paras[0].text_content().split())
                    items.append(
                        Pending(
                            "",
                            _mask(_first_sentence(desc), [name]),
                            f"pgdoc/{page.name}",
                            desc[:80],
                        )
                    )
            for td in tree.xpath("//td[@class='func_table_entry']"):
                paras = td.xpath("./p")
                if len(paras) < 2:
                    continue
                names = [n.strip() for n in paras[0].xpath(".//code[@class='function']//text()")]
                desc = " ".join(paras[1].text_content().split())
                if "→" in desc:  # a second signature line, not a description
                    continue
                items.append(
                    Pending(
                        "", _mask(_first_sentence(desc), names), f"pgdoc/{page.name}", desc[:80]
                    )
                )
    unique = _unique(items)
    rng = random.Random(seed)
    picked = rng.sample(unique, min(sample, len(unique)))
    for n, it in enumerate(picked):
        it.qid = f"pg{n:03d}"
    return Dataset("pg", root, granularity="span"), picked


# -- git: `git <cmd> -h` option lines → the option's entry in git-doc ---------------------------
GIT_DOC = "git-doc"
GIT_COMMANDS = (
    "add", "am", "apply", "archive", "bisect", "blame", "branch", "bundle", "checkout",
    "cherry-pick", "clean", "clone", "commit", "config", "describe", "diff", "fetch",
    "format-patch", "fsck", "gc", "grep", "init", "log", "ls-files", "merge", "mv", "notes",
    "pull", "push", "range-diff", "rebase", "reflog", "remote", "repack", "replace", "reset",
    "restore", "revert", "rm", "shortlog", "show", "show-branch", "sparse-checkout", "stash",
    "status", "submodule", "switch", "tag", "worktree",
)  # fmt: skip
_GIT_OPTION = re.compile(r"^\s{2,}(?:-\w, )?(--(?:\[no-\])?([\w-]+))\S*\s{2,}(\S.*)$")


def git_set(cache: Path = CACHE, sample: int = 300, seed: int = 0) -> tuple[Dataset, list[Pending]]:
    """Command help → documentation: each option line of `git <cmd> -h` (the installed
    git) whose description no other command's options share, the option's and the
    command's names masked, finds the option's entry in `git-doc`'s HTML page of that
    command (the passage holding the line that starts with the option). Distractors:
    every other page of git-doc (guides, the other commands). Names are masked as
    written (`--dry-run`, `git add`); a plain word of a description stays ("perform a
    commit if the merge succeeds")."""
    src = _from_manifest("html_git", GIT_DOC, f"usr/share/doc/{GIT_DOC}", cache)
    root = cache / "git" / "gitdoc"
    root.mkdir(parents=True, exist_ok=True)
    for page in sorted(src.glob("*.html")):
        out = root / page.name
        if not out.exists():
            shutil.copy(page, out)
    items: list[Pending] = []
    for cmd in GIT_COMMANDS:
        if not (root / f"git-{cmd}.html").exists():
            continue
        done = subprocess.run(["git", cmd, "-h"], capture_output=True, text=True, cwd=root)
        for line in (done.stdout + done.stderr).splitlines():
            m = _GIT_OPTION.match(line)
            if not m:
                continue
            option, desc = m.group(1), m.group(3)
            spelled = option.replace("[no-]", "")
            items.append(
                Pending(
                    "",
                    _mask(desc, [spelled, f"git {cmd}", f"git-{cmd}"]),
                    f"gitdoc/git-{cmd}.html",
                    spelled,
                    line=True,
                    prefer_section="option",
                )
            )
    unique = _unique(items)
    rng = random.Random(seed)
    picked = rng.sample(unique, min(sample, len(unique)))
    for n, it in enumerate(picked):
        it.qid = f"git{n:03d}"
    return Dataset("git", root, granularity="span"), picked


# -- Chinese questions --------------------------------------------------------------------------
ZH_REFERENCE = "debian-reference-zh-cn"
# Everyday forms of an unspaced question around a heading (the examples).
ZH_FORMS = ("{h}的方法是什么？", "怎样{h}", "我想知道如何{h}")
_NUMBER_PREFIX = re.compile(r"^(?:第\s*\d+\s*章|[A-Z]?\d+(?:\.\d+)*\.?|[A-Z]\.(?:\d+\.)*)\s*")


def _deb_files(package: str, cache: Path, subdir: str) -> Path:
    """`apt-get download PACKAGE` and `dpkg -x` it under cache (once); the SUBDIR inside it."""
    target = cache / "debs" / package
    if not (target / subdir).is_dir():
        debs = cache / "debs"
        debs.mkdir(parents=True, exist_ok=True)
        if not glob.glob(str(debs / f"{package}_*.deb")):
            subprocess.run(["apt-get", "download", package], cwd=debs, check=True)
        deb = sorted(glob.glob(str(debs / f"{package}_*.deb")))[-1]
        subprocess.run(["dpkg", "-x", deb, str(target)], check=True)
    return target / subdir


def zh_set(cache: Path = CACHE) -> Dataset:
    """Debian Reference (zh-CN HTML) and datasets/zh; questions are filled by `zh_queries`."""
    root = cache / "zhq" / "zhq"
    root.mkdir(parents=True, exist_ok=True)
    html = _deb_files(ZH_REFERENCE, cache, "usr/share/debian-reference")
    sources = sorted(html.glob("*.zh-cn.html")) + sorted(
        (Path(__file__).resolve().parents[1] / "datasets" / "zh").glob("*.md")
    )
    for src in sources:
        target = root / src.name
        if not target.exists() or target.read_bytes() != src.read_bytes():
            shutil.copyfile(src, target)
    return Dataset("zh", root, granularity="file")


def zh_queries(data: Dataset, db_path: Path, sample: int = 0, seed: int = 0) -> None:
    """Every Chinese heading found in one document only (or `sample` of them), asked in
    each of ZH_FORMS."""
    import docql_sqlite
    from docql_sqlite.text import has_cjk

    with docql_sqlite.open(db_path) as idx:
        rows = idx.rows(
            "SELECT d.path AS path, s.title AS title FROM sections s "
            "JOIN documents d ON d.id = s.doc_id"
        )
        docs_of: dict[str, set[str]] = {}
        for row in rows:
            heading = _NUMBER_PREFIX.sub("", row["title"]).strip().rstrip("？?")
            if has_cjk(heading) and len(heading) >= 2:
                docs_of.setdefault(heading, set()).add(row["path"])
    unique = [(h, next(iter(p))) for h, p in sorted(docs_of.items()) if len(p) == 1]
    if sample and len(unique) > sample:
        unique = sorted(random.Random(seed).sample(unique, sample))
    for heading, path in unique:
        for i, form in enumerate(ZH_FORMS):
            data.queries.append(Query(f"zh:{heading}:{i}", form.format(h=heading), {path: 1.0}))


# -- Debian FAQ: questions whose answers do not repeat them, among 1,494 distractors --------
DEB_FAQ = "debian-faq"
MIX_MANIFEST = Path(os.environ.get("DOCQL_MANIFEST", "/work/cache/corpora/manifest.env"))
MIX_KEYS = ("md_node", "md_docker", "md_rustdoc")  # corpora.md A6: Node + Docker + Rust books
_FAQ_QUESTION = re.compile(r"^(\d+\.\d+(?:\.\d+)*)\.\s(\S.*)$")  # \s: a no-break space


def _mix_dirs() -> list[Path]:
    """The distractor directories: $DOCQL_MIX (':'-separated), else the corpora manifest."""
    if os.environ.get("DOCQL_MIX"):
        return [Path(p) for p in os.environ["DOCQL_MIX"].split(":")]
    values = dict(
        line.split("=", 1) for line in MIX_MANIFEST.read_text().splitlines() if "=" in line
    )
    return [Path(values[k]) for k in MIX_KEYS]


def faq_set(cache: Path = CACHE) -> Dataset:
    """One Markdown file per Debian FAQ question ("FAQ entry N", the question removed);
    the question is the query, its file the answer; the A6 Markdown mix as distractors."""
    import gzip

    top = cache / "debfaq" / "debfaq"
    faq_dir, mix_dir = top / "faq", top / "mix"
    faq_dir.mkdir(parents=True, exist_ok=True)
    text_gz = _deb_files(DEB_FAQ, cache, "usr/share/doc/debian/FAQ") / "debian-faq.en.txt.gz"
    lines = gzip.decompress(text_gz.read_bytes()).decode("utf-8", "replace").splitlines()
    entries: list[tuple[str, list[str]]] = []  # (question, answer lines)
    i = 0
    while i < len(lines):
        match = _FAQ_QUESTION.match(lines[i])
        if not match:
            if entries and not re.match(r"^\d+\.\s", lines[i]):
                entries[-1][1].append(lines[i])
            elif entries and re.match(r"^\d+\.\s", lines[i]):
                entries.append(("", []))  # a chapter title ends the previous answer
            i += 1
            continue
        question = [match[2]]
        i += 1
        while i < len(lines) and lines[i].strip() and not lines[i].startswith("    "):
            question.append(lines[i].strip())
            i += 1
        entries.append((" ".join(question), []))
    data = Dataset("debfaq", top, granularity="file")
    n = 0
    for question, answer in entries:
        body = "\n".join(line[4:] if line.startswith("    ") else line for line in answer).strip()
        if not question.endswith("?") or len(body) < 80:
            continue
        n += 1
        name = f"entry{n:03d}.md"
        text = f"# FAQ entry {n}\n\n{body}\n"
        target = faq_dir / name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        data.queries.append(Query(f"faq{n}", question, {f"debfaq/faq/{name}": 1.0}))
    _copy_mix(mix_dir)
    return data


# -- R FAQ: the same shape, from the texinfo HTML of `r-doc-html` ---------------------------
R_FAQ = "r-doc-html"
_R_HEADING = re.compile(
    r'<h([34]) class="(?:sub)?section">(\d+(?:\.\d+)+)\s+(.*?)</h\1>', re.DOTALL
)
# A section ends at the next heading of its level or above; its subsections belong to it
# (their headings dropped: "How can R be installed (Windows)" would restate the question).
_R_END = {"3": re.compile(r"<h[1-3][ >]"), "4": re.compile(r"<h[1-4][ >]")}


def _html_to_markdown(fragment: str) -> str:
    """texinfo HTML → plain Markdown: `pre` blocks fenced, paragraphs and list items kept,
    the navigation header (Next:/Previous: links naming other questions) dropped."""
    import html

    fragment = re.sub(r'<div class="header">.*?</div>', "", fragment, flags=re.DOTALL)
    fragment = re.sub(r'<ul class="section-toc">.*?</ul>', "", fragment, flags=re.DOTALL)
    fragment = re.sub(r"<h[1-6][^>]*>.*?</h[1-6]>", "", fragment, flags=re.DOTALL)
    blocks = []
    for pre, other in re.findall(r"<pre[^>]*>(.*?)</pre>|(.+?)(?=<pre|$)", fragment, re.DOTALL):
        if pre:
            code = html.unescape(re.sub(r"<[^>]+>", "", pre)).strip("\n")
            blocks.append("```\n" + code + "\n```")
            continue
        text = re.sub(r"<li[^>]*>", "\n- ", other)
        text = re.sub(r"</?(p|div|ul|ol|dl|dt|dd|table|tr|br|hr)\b[^>]*>", "\n\n", text)
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
        for para in re.split(r"\n\s*\n", text):
            para = " ".join(para.split())
            if para:
                blocks.append(para)
    return "\n\n".join(blocks)


def r_faq_entries(page: str) -> list[tuple[str, str]]:
    """(question, answer as Markdown) for each h3/h4 section of a texinfo HTML FAQ whose
    title ends in "?" and whose answer has 80+ characters."""
    import html

    entries = []
    for head in _R_HEADING.finditer(page):
        question = " ".join(html.unescape(re.sub(r"<[^>]+>", "", head[3])).split())
        rest = page[head.end() :]
        end = _R_END[head[1]].search(rest)
        body = _html_to_markdown(rest[: end.start()] if end else rest)
        if question.endswith("?") and len(body) >= 80:
            entries.append((question, body))
    return entries


def rfaq_set(cache: Path = CACHE) -> Dataset:
    """One Markdown file per R FAQ question section (an h3/h4 whose title ends in "?",
    with its subsections), "FAQ entry N" as its heading; the question the query; the A6
    mix as distractors."""
    top = cache / "rfaq" / "rfaq"
    faq_dir, mix_dir = top / "faq", top / "mix"
    faq_dir.mkdir(parents=True, exist_ok=True)
    page = (_deb_files(R_FAQ, cache, "usr/share/R/doc/manual") / "R-FAQ.html").read_text(
        encoding="utf-8", errors="replace"
    )
    data = Dataset("rfaq", top, granularity="file")
    for n, (question, body) in enumerate(r_faq_entries(page), start=1):
        name = f"entry{n:03d}.md"
        text = f"# FAQ entry {n}\n\n{body}\n"
        target = faq_dir / name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        data.queries.append(Query(f"rfaq{n}", question, {f"rfaq/faq/{name}": 1.0}))
    _copy_mix(mix_dir)
    return data


# -- Django's FAQ inside Django: how-to questions over a repository of docs and code ------
DJANGO = "django==5.1.4"
# A reST section title: a line of text over an underline of one punctuation character at
# least as long (Django's FAQ pages: "=" over and under the page title, "=" under each
# question, "-" under the subsections of an answer).
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{3,}\s*$")


def django_faq_entries(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, question) of each question of one FAQ page (1-based): a
    title underlined with "=" and not overlined (the page title is overlined), up to the
    line before the next such title or the end of the page."""
    lines = text.splitlines()
    starts = []
    for i in range(1, len(lines)):
        title, under = lines[i - 1], lines[i]
        overlined = i >= 2 and _RST_UNDERLINE.match(lines[i - 2]) is not None
        if (
            title.strip()
            and not _RST_UNDERLINE.match(title)
            and under.startswith("=")
            and _RST_UNDERLINE.match(under)
            and len(under.strip()) >= len(title.rstrip())
            and not overlined
        ):
            starts.append((i, " ".join(title.split())))  # the title's 1-based line is i
    return [
        (line, (starts[k + 1][0] - 1 if k + 1 < len(starts) else len(lines)), question)
        for k, (line, question) in enumerate(starts)
    ]


def djfaq_set(cache: Path = CACHE) -> Dataset:
    """How-to questions over a repository of documentation and code: Django 5.1.4's sdist
    (`pip download`), its `docs/` (reST in .txt files) and its `django/` package (Python,
    the distractors that compete with the docs). Each question of `docs/faq/*.txt` becomes
    "FAQ entry N" in the indexed copy (the question removed, the rest of the page as it
    is); the question is the query, its section's lines the answer (span relevance)."""
    import tarfile

    top = cache / "djfaq" / "djfaq"
    downloads = cache / "djfaq" / "download"
    if not (top / "docs" / "faq").is_dir():
        downloads.mkdir(parents=True, exist_ok=True)
        if not list(downloads.glob("*.tar.gz")):
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                 DJANGO, "-d", str(downloads)],
                check=True,
            )  # fmt: skip
        with tarfile.open(sorted(downloads.glob("*.tar.gz"))[-1]) as archive:
            for member in archive.getmembers():
                parts = Path(member.name).parts
                if len(parts) > 2 and parts[1] in ("docs", "django") and member.isfile():
                    target = top.joinpath(*parts[1:])
                    target.parent.mkdir(parents=True, exist_ok=True)
                    source = archive.extractfile(member)
                    if source is not None:
                        target.write_bytes(source.read())
    data = Dataset("djfaq", top, granularity="span")
    n = 0
    originals = cache / "djfaq" / "faq-originals"  # outside the indexed tree
    originals.mkdir(parents=True, exist_ok=True)
    for page in sorted((top / "docs" / "faq").glob("*.txt")):
        original = originals / page.name
        if not original.exists():
            shutil.copyfile(page, original)
        lines = original.read_text(encoding="utf-8").splitlines()
        for line, end, question in django_faq_entries("\n".join(lines)):
            n += 1
            heading = f"FAQ entry {n}"
            lines[line - 1], lines[line] = heading, "=" * len(heading)
            relevant = f"djfaq/docs/faq/{page.name}:{line}-{end}"
            data.queries.append(Query(f"djfaq{n}", question, {relevant: 1.0}))
        text = "\n".join(lines) + "\n"
        if page.read_text(encoding="utf-8") != text:
            page.write_text(text, encoding="utf-8")
    return data


# The frames of `djwhere`'s questions, each page asked for with one in turn.
WHERE_FRAMES = (
    "where is {} explained?",
    "which page describes {}?",
    "where can I read about {}?",
    "where is {} documented?",
)
# reST section adornments (a title's underline, and overline when it has one).
_ADORNMENT = re.compile(r"^([=\-~*^#+`'\"])\1{2,}\s*$")


def djwhere_set(cache: Path = CACHE) -> Dataset:
    """ "Where is ⟨page title⟩ explained?" over `djfaq`'s index (Django's docs and code):
    each page of `docs/` (but release notes and the FAQ) whose title no other page has;
    the question asks for that title, lowercased, in one of the frames in turn
    (`WHERE_FRAMES`: "which page describes …?", "where can I read about …?"); the page
    is the answer (file level). Code files named like the title (`Middleware`,
    `Signals`, `Sessions`) and the other pages on the topic compete."""
    top = djfaq_set(cache).root  # the tree and its index are djfaq's
    data = Dataset("djwhere", top, index="djfaq")
    titles: dict[str, list[str]] = {}
    for page in sorted((top / "docs").rglob("*.txt")):
        rel = page.relative_to(top.parent).as_posix()
        if "/releases/" in rel or "/faq/" in rel:
            continue
        title = _rst_title(page.read_text(encoding="utf-8", errors="replace"))
        if title and re.search(r"[A-Za-z]{3,}", title) and not re.search(r"[`:|*]", title):
            titles.setdefault(title.casefold(), []).append(rel)
    for n, (title, pages) in enumerate(sorted(titles.items())):
        if len(pages) == 1:
            question = WHERE_FRAMES[n % len(WHERE_FRAMES)].format(title)
            data.queries.append(Query(f"djwhere{n}", question, {pages[0]: 1.0}))
    return data


def _rst_title(text: str) -> str | None:
    """The first section title of a reST page: a line underlined by an adornment at least
    as long (an overline above it, when there is one, changes nothing)."""
    lines = text.splitlines()
    for i in range(len(lines) - 1):
        title = lines[i].strip()
        if (
            title
            and not _ADORNMENT.match(lines[i])
            and _ADORNMENT.match(lines[i + 1])
            and len(lines[i + 1].rstrip()) >= len(title)
        ):
            return title
    return None


def _copy_mix(mix_dir: Path) -> None:
    for k, src in enumerate(_mix_dirs()):
        for path in sorted(src.rglob("*.md")):
            target = mix_dir / str(k) / path.relative_to(src)
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)


# -- the baseline: plain FTS5 BM25 over whole files ---------------------------------------------
def baseline_evaluate(data: Dataset, db_path: Path) -> dict:
    """FTS5 (unicode61, CJK characters spaced as in the index) over each file's whole text
    (the rendered text the index holds), the question's words OR'ed, ranked by bm25()."""
    import sqlite3

    import docql_sqlite
    from docql_sqlite.text import fts_text

    with docql_sqlite.open(db_path) as idx:
        docs = list(
            idx.rows(
                "SELECT d.path AS path, group_concat(c.content, '') AS text FROM documents d "
                "JOIN chunks c ON c.doc_id = d.id GROUP BY d.id ORDER BY d.path"
            )
        )
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE files USING fts5(path UNINDEXED, body)")
    conn.executemany(
        "INSERT INTO files VALUES (?, ?)", [(d["path"], fts_text(d["text"] or "")) for d in docs]
    )
    word = re.compile(r"[^\W_]+")
    scores, times = [], []
    for q in data.queries:
        started = time.perf_counter()
        tokens = list(dict.fromkeys(word.findall(fts_text(q.text).lower())))
        expr = " OR ".join('"' + t + '"' for t in tokens) or '""'
        hits = [
            r[0]
            for r in conn.execute(
                "SELECT path FROM files WHERE files MATCH ? ORDER BY bm25(files) LIMIT 11", (expr,)
            )
        ]
        times.append(time.perf_counter() - started)
        keys = [h for h in hits if h != q.exclude][:10]
        relevant = q.relevant if data.granularity == "file" else file_relevance(q)
        scores.append(metrics(keys, relevant))
    return _row(data.name, "FTS5 whole-file BM25", scores, times)


def corpus_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


# -- building and searching the index -------------------------------------------------------
sys.path.insert(
    0, str(Path(__file__).resolve().parents[1])
)  # run from a checkout without installing

MODES = ("bm25", "vector", "hybrid", "smart")


# -- what a code chunk's vector is computed from (ingest/vector_text.py) ----------------------
def _code_texts() -> dict:
    from docql_sqlite.ingest.vector_text import Shape

    return {
        "raw": Shape(names=False, docs=False, body=True),  # the chunk as it is (before code-v1)
        "names": Shape(names=True, docs=False, body=True),  # + the symbols' names in words
        "docs": Shape(names=False, docs=True, body=True),  # + the doc comments above
        "v1": Shape(),  # names + docs + body: the shipped policy (code-v1)
        "decl": Shape(names=True, docs=True, body=False),  # names, docs, signatures; no body
        "path": Shape(path=True),  # v1 + the file path in words
    }


CODE_TEXTS = _code_texts()


def use_code_text(name: str) -> None:
    """Embed code chunks under the policy `name` instead of the shipped one. The index
    records a policy of its own for it, so switching re-embeds the code chunks (through
    the passage cache: a text embedded once is never embedded again)."""
    import functools

    from docql_sqlite.ingest import vector_text

    shape = CODE_TEXTS[name]
    if shape == vector_text.CURRENT:
        return
    vector_text.code_passage = functools.partial(vector_text.code_passage, shape=shape)  # type: ignore[assignment]
    vector_text.POLICY = f"benchmark-{name}"


# -- vectors computed once: a passage cache shared by every set and run ----------------------
class CachedPassages:
    """An embedding model whose passage vectors come from a cache file when it has them.

    `$DOCQL_CORPORA/vector-cache/MODEL-FINGERPRINT.sqlite` maps sha256(text) to the
    float32 blob the index stores. The FAQ sets share their 1,494 distractor files, and
    every re-index (a parser change re-chunks a file) would otherwise embed again: with
    the cache a set costs its new texts only, once per machine. Queries are never cached
    (the model embeds them as usual). `--vector-seed DB` fills the cache from an index
    already embedded with the same model (same fingerprint), e.g. the MCP benchmark's.
    """

    def __init__(self, inner, path: Path):  # type: ignore[no-untyped-def]
        import sqlite3

        self.inner = inner
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(path)
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS vectors (sha TEXT PRIMARY KEY, embedding BLOB NOT NULL)"
        )
        self.hits = self.misses = 0

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.inner, name)  # model_id, dimensions, fingerprint(), warm_up...

    @staticmethod
    def key(text: str) -> str:
        import hashlib

        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def embed(self, texts, kind="passage"):  # type: ignore[no-untyped-def]
        import numpy as np

        if kind != "passage":
            return self.inner.embed(texts, kind=kind)
        keys = [self.key(t) for t in texts]
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            marks = ",".join("?" * len(part))
            found.update(
                self.conn.execute(
                    f"SELECT sha, embedding FROM vectors WHERE sha IN ({marks})", part
                )
            )
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in found))
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if missing:
            fresh = self.inner.embed(missing, kind="passage")
            with self.conn:
                for text, vector in zip(missing, fresh):
                    blob = np.asarray(vector, dtype=np.float32).tobytes()
                    found[self.key(text)] = blob
                    self.conn.execute(
                        "INSERT OR REPLACE INTO vectors VALUES (?, ?)", (self.key(text), blob)
                    )
        return np.stack([np.frombuffer(found[k], dtype=np.float32) for k in keys])

    def seed(self, index_path: Path) -> int:
        """Copy the passage vectors of an index embedded with this model (same fingerprint)."""
        import pysqlite3 as sqlite3  # the stdlib's cannot load extensions (sqlite-vec) here

        from docql_sqlite.dbapi import prepare_connection

        # A plain connection, read-only and immutable: the seed may be of an older schema,
        # and may be in use by another process.
        conn = sqlite3.connect(f"file:{index_path}?immutable=1", uri=True)
        try:
            prepare_connection(conn)
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            if not self.inner.matches_fingerprint(meta.get("embedding_fingerprint", "")):
                print(f"  vector seed {index_path}: another model, skipped", file=sys.stderr)
                return 0
            rows = conn.execute(
                "SELECT c.content, v.embedding FROM chunks c "
                "JOIN chunk_vectors cv ON cv.chunk_id = c.id AND cv.content_hash = c.content_hash "
                "JOIN chunks_vec v ON v.rowid = c.id"
            ).fetchall()
        finally:
            conn.close()
        with self.conn:
            self.conn.executemany(
                "INSERT OR IGNORE INTO vectors VALUES (?, ?)",
                [(self.key(text), bytes(blob)) for text, blob in rows],
            )
        return len(rows)


def vector_cache_path(name: str, model: Any) -> Path:
    """The passage cache of the model `name` (`CachedPassages`): named by the model and a
    short hash of its fingerprint (a sign fingerprint is ~200 characters)."""
    import hashlib

    safe = re.sub(r"[^\w.-]+", "_", name)
    digest = hashlib.sha256(model.fingerprint().encode()).hexdigest()[:16]
    return CACHE / "vector-cache" / f"{safe}-{digest}.sqlite"


def cached_model(name: str, seeds: list[Path] = ()) -> CachedPassages:  # type: ignore[assignment]
    """Install the caching wrapper as the process's model `name` (what `embed` loads)."""
    from docql_sqlite.search import vectors

    model = vectors.load_model(name)
    if isinstance(model, CachedPassages):
        return model
    wrapped = CachedPassages(model, vector_cache_path(name, model))
    for seed in seeds:
        print(f"  vector seed {seed}: {wrapped.seed(Path(seed))} passages", file=sys.stderr)
    # Readers and the writer load their model from the registry (`embedders.loaded_model`):
    # registering the wrapper under the name makes it the process's model `name`.
    from docql_sqlite.embedders import EmbeddingModel, register

    EmbeddingModel.register(CachedPassages)  # it is one, by delegation (an ABC's virtual subclass)
    register(name.partition(":")[0], lambda arg=None, **options: wrapped, replace=True)
    return wrapped


def build_index(data: Dataset, model: str | None, seeds: list[Path] = ()) -> Path:  # type: ignore[assignment]
    """Index `data.root` (paths relative to its parent) and embed it; reused when up to date.

    Embedding is incremental (new or changed passages only) and goes through the passage
    cache, so a second run, or a second set with the same distractors, embeds almost
    nothing; the vectors are replaced only when the index holds another model's."""
    from docql_sqlite import embed
    from docql_sqlite.ingest import IngestOptions, index_paths

    db_path = data.root.parent / f"{data.index or data.name}.db"
    stored = None
    if db_path.exists():
        # Read with the standard library: an index of an older schema is refused by a
        # read-only open until `index_paths` below upgrades it.
        import sqlite3

        conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            found = conn.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
            stored = found[0] if found else None
        finally:
            conn.close()
    # `index` embeds the passages it changes with the index's own model (even under
    # --model ''): through the cache too.
    if model or stored:
        cached_model(model or stored, seeds)  # type: ignore[arg-type]
    old = os.getcwd()
    os.chdir(data.root.parent)
    try:
        index_paths(db_path, [data.root.name], IngestOptions())
    finally:
        os.chdir(old)
    if model:
        cache = cached_model(model, seeds)
        started, cpu = time.monotonic(), time.process_time()
        report = embed(db_path, model, replace=bool(stored) and stored != cache.model_id)
        print(
            f"  {data.name}: {report['chunks']} passages, {report['embedded']} embedded "
            f"({cache.misses} computed, {cache.hits} from {cache.path.name}) in "
            f"{time.monotonic() - started:.1f}s wall, {time.process_time() - cpu:.1f}s CPU",
            file=sys.stderr,
        )
    return db_path


def _overlaps(hit: dict, key: str) -> bool:
    path, _, span = key.rpartition(":")
    line, _, end = span.partition("-")
    return hit["path"] == path and hit["line"] <= int(end) and hit["end_line"] >= int(line)


def file_relevance(query: Query) -> dict[str, float]:
    """Code-set relevance per file (the target function's file), for file-level systems."""
    return {k.rpartition(":")[0]: 1.0 for k in query.relevant}


def ranked_keys(
    data: Dataset, query: Query, hits: list[dict], by_file: bool = False
) -> list[str | None]:
    """Each hit as the relevance key it stands for (None: not relevant), self excluded."""
    keys: list[str | None] = []
    for hit in hits:
        if hit["path"] == query.exclude:
            continue
        if data.granularity == "file" or by_file:
            keys.append(hit["path"])
        else:
            keys.append(next((k for k in query.relevant if _overlaps(hit, k)), None))
    return keys[:10]


def metrics(
    keys: list[str | None], relevant: dict[str, float], k: int = 10
) -> tuple[float, float, float]:
    """nDCG@k (binary gains), Recall@k, MRR@k; a key counts once, at its first rank."""
    seen: set[str] = set()
    gains = []
    for key in keys[:k]:
        hit = key is not None and key in relevant and key not in seen
        if key is not None:
            seen.add(key)
        gains.append(1.0 if hit else 0.0)
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    found = sum(gains)
    first = next((i for i, g in enumerate(gains) if g), None)
    return dcg / ideal, found / len(relevant), (1.0 / (first + 1) if first is not None else 0.0)


def evaluate(
    data: Dataset,
    db_path: Path,
    modes: list[str],
    by_file: bool = False,
    vectors: bool = True,
    per_query: bool = False,
) -> list[dict]:
    """Metrics per mode; `by_file` ranks files (--group file) on the code set
    (to compare with QMD). `vectors=False` searches an embedded index as one without
    vectors (`--model ''`), so both evaluations share one cached index."""
    from docql_sqlite.store.sqlite.engine import SqliteStore

    rows = []
    saved = SqliteStore.has_vectors
    if not vectors:  # what every search consults
        SqliteStore.has_vectors = property(lambda self: False)  # type: ignore[method-assign,assignment]
    try:
        rows = _evaluate(data, db_path, modes, by_file, per_query)
    finally:
        SqliteStore.has_vectors = saved  # type: ignore[method-assign]
    return rows


SERVER = False  # --server


def _evaluate(
    data: Dataset, db_path: Path, modes: list[str], by_file: bool, per_query: bool = False
) -> list[dict]:
    import docql_sqlite

    rows = []
    # --server: the index as the MCP server opens it (vectors in memory, the query engine
    # of a long-lived process: e5-small's onnxruntime engine).
    with docql_sqlite.Index(db_path, vectors_in_memory=SERVER) as idx:
        for mode in modes:
            scores, times = [], []
            for q in data.queries:
                started = time.perf_counter()
                if data.granularity == "file" or by_file:
                    hits = idx.search(q.text, mode=mode, limit=11, group="file")
                else:
                    hits = idx.search(q.text, mode=mode, limit=10)
                times.append(time.perf_counter() - started)
                relevant = file_relevance(q) if by_file else q.relevant
                scores.append(metrics(ranked_keys(data, q, hits, by_file), relevant))
            rows.append(_row(data.name, mode + (" (file level)" if by_file else ""), scores, times))
            if per_query:
                rows[-1]["per_query"] = {
                    q.qid: dict(zip(("nDCG@10", "Recall@10", "MRR@10"), score))
                    for q, score in zip(data.queries, scores)
                }
    return rows


def _row(
    name: str, system: str, scores: list[tuple[float, float, float]], times: list[float]
) -> dict:
    return {
        "set": name,
        "system": system,
        "queries": len(scores),
        "nDCG@10": round(statistics.mean(s[0] for s in scores), 4),
        "Recall@10": round(statistics.mean(s[1] for s in scores), 4),
        "MRR@10": round(statistics.mean(s[2] for s in scores), 4),
        "ms/query": round(1000 * statistics.median(times), 1),
    }


# -- QMD (optional peer) -----------------------------------------------------------------------
def qmd_evaluate(data: Dataset, qmd: str) -> dict | None:
    """`qmd search` (BM25, per file) on the same files. Code relevance is then per file."""
    home = data.root.parent / "qmdhome"
    env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    mask = {
        "lee": "**/*.txt",
        "go": "**/*.go",
        "rust": "**/*.rs",
        "node": "**/*.md",
        "nodecli": "**/*.md",
        "pg": "**/*.html",
        "git": "**/*.html",
        "debfaq": "**/*.md",  # FAQ entries and the Markdown mix
        "rfaq": "**/*.md",
        "smoke": "**/*.md",
    }.get(data.name, "**/*.py")
    if not (home / ".cache" / "qmd").exists():
        subprocess.run(
            [qmd, "collection", "add", str(data.root), "--name", data.name, "--mask", mask],
            env=env,
            check=True,
            capture_output=True,
            timeout=900,
        )
    scores, times = [], []
    for q in data.queries:
        started = time.perf_counter()
        done = subprocess.run(
            [qmd, "search", q.text[:1000], "-n", "11", "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        times.append(time.perf_counter() - started)
        try:
            results = json.loads(done.stdout or "[]")
        except json.JSONDecodeError:
            results = []
        prefix = f"qmd://{data.name}/"
        files = [
            data.root.name + "/" + str(r.get("file", "")).removeprefix(prefix) for r in results
        ]
        files = [f for f in files if f != q.exclude][:10]
        relevant = q.relevant if data.granularity == "file" else file_relevance(q)
        scores.append(metrics(files, relevant))
    return _row(data.name, "qmd search (file level)", scores, times)


def split(queries: list[Query], half: str) -> list[Query]:
    """`tune`: the queries whose id hashes even, `confirm`: odd, `all`: every one. A
    hash, not the order: a set's sample grows without moving queries between halves."""
    if half == "all":
        return queries
    import hashlib

    want = 0 if half == "tune" else 1
    return [q for q in queries if hashlib.sha1(q.qid.encode()).digest()[0] % 2 == want]


def docql_sqlite_open_search(db_path: Path, text: str) -> list[dict]:
    """The default search's hits for `text` (to count questions that find nothing)."""
    import docql_sqlite

    with docql_sqlite.open(db_path) as idx:
        return idx.search(text, limit=1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sets", default="lee,code")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--model", default="use-multilingual", help="embedding model ('' for none)")
    parser.add_argument("--sample", type=int, default=500, help="code-search queries")
    parser.add_argument("--qmd", default=None, help="path of the qmd executable (optional)")
    parser.add_argument(
        "--json", nargs="?", const="-", metavar="OUT", help="JSON rows (to OUT, else stdout)"
    )
    parser.add_argument("--smoke", action="store_true", help="datasets/, hash model, seconds")
    parser.add_argument(
        "--baseline", action="store_true", help="also plain FTS5 BM25 over whole files"
    )
    parser.add_argument("--zh-sample", type=int, default=0, help="Chinese headings (0: all)")
    parser.add_argument(
        "--split",
        choices=("all", "tune", "confirm"),
        default="all",
        help="half of each set's queries: tune on one, confirm on the other (by query id)",
    )
    parser.add_argument(
        "--code-text",
        choices=sorted(CODE_TEXTS),
        default="v1",
        help="what a code chunk's vector is computed from (ingest/vector_text.py; v1 ships)",
    )
    parser.add_argument(
        "--vector-seed",
        action="append",
        default=[],
        metavar="DB",
        help="fill the passage vector cache from an index embedded with --model (repeatable)",
    )
    parser.add_argument(
        "--header",
        action="store_true",
        help="go, rust: a hit is the item only when it holds the item's header line "
        "(not its doc comment alone)",
    )
    parser.add_argument(
        "--server",
        action="store_true",
        help="search as the MCP server does (vectors in memory; e5-small's onnxruntime queries)",
    )
    args = parser.parse_args()
    global CACHE, SERVER
    SERVER = args.server
    with tempfile.TemporaryDirectory(prefix="docql-retrieval-") as tmp:
        if args.smoke:  # nothing read from or written to the corpus cache
            CACHE = Path(tmp)
            args.sets, args.model, args.modes, args.qmd = "smoke", "hash", ",".join(MODES), None
        run(args)


def run(args: argparse.Namespace) -> None:
    use_code_text(args.code_text)
    rows = []
    for name in args.sets.split(","):
        data = {
            "lee": lee,
            "zh": zh_set,
            "debfaq": faq_set,
            "rfaq": rfaq_set,
            "djfaq": djfaq_set,
            "djwhere": djwhere_set,
            "smoke": lambda: smoke_set(CACHE),
            "go": lambda: go_set(sample=args.sample),
            "rust": lambda: rust_set(sample=args.sample),
            "node": lambda: node_set(sample=args.sample),
            "nodecli": lambda: nodecli_set(sample=args.sample),
            "pg": lambda: pg_set(sample=args.sample),
            "git": lambda: git_set(sample=args.sample),
        }.get(name, lambda: code(sample=args.sample))()
        pending: list[Pending] = []
        if isinstance(data, tuple):  # queries located once the index is built
            data, pending = data
        db_path = build_index(data, args.model or None, [Path(p) for p in args.vector_seed])
        if name == "zh":
            zh_queries(data, db_path, sample=args.zh_sample)
        if pending:
            locate(data, db_path, pending)
        data.queries = split(data.queries, args.split)
        if args.header and name in ("go", "rust"):
            header_relevance(data)
        print(
            f"{name}: {len(data.queries)} queries over {corpus_bytes(data.root) / 1e6:.1f} MB",
            file=sys.stderr,
        )
        modes = [m for m in args.modes.split(",") if args.model or m in ("bm25", "smart")]
        rows += evaluate(data, db_path, modes, vectors=bool(args.model), per_query=args.smoke)
        if args.baseline:
            rows.append(baseline_evaluate(data, db_path))
        print(json.dumps(rows), file=sys.stderr, flush=True)  # nothing lost if a later set fails
        if name == "zh":
            empty = sum(1 for q in data.queries if not docql_sqlite_open_search(db_path, q.text))
            print(f"zh: {empty} of {len(data.queries)} questions found nothing", file=sys.stderr)
        if data.granularity == "span":  # item level above; the file level too
            rows += evaluate(data, db_path, modes, by_file=True, vectors=bool(args.model))
        if args.qmd and shutil.which(args.qmd):
            rows.append(qmd_evaluate(data, args.qmd))
    if args.json and args.json != "-":
        Path(args.json).write_text(json.dumps(rows, indent=2, ensure_ascii=False))
    elif args.json:
        print(json.dumps(rows, indent=2))
        return
    if args.smoke:
        print("(--smoke: a harness check on 13 files; its figures mean nothing)")
    print(
        f"{'set':<6} {'system':<26} {'queries':>7} {'nDCG@10':>8} {'Recall@10':>9} {'MRR@10':>7} "
        f"{'ms/query':>8}"
    )
    for r in rows:
        print(
            f"{r['set']:<6} {r['system']:<26} {r['queries']:>7} {r['nDCG@10']:>8.4f} "
            f"{r['Recall@10']:>9.4f} "
            f"{r['MRR@10']:>7.4f} {r['ms/query']:>8}"
        )


if __name__ == "__main__":
    main()
