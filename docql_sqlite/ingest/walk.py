"""Expand the paths given to `index` into the files to index, the way ripgrep walks a tree.

- Ignore files are respected: `.gitignore` and `.ignore` in every directory (a deeper
  file wins over a shallower one, `.ignore` over `.gitignore` in the same directory), the
  repository's `.git/info/exclude`, and the ignore files of the directories above a root
  up to the top of its git repository. Patterns are matched by `pathspec` (git's rules,
  negation included). `WalkOptions.ignore_files=False` (`--no-ignore`) turns them off.
- Hidden files and directories (a name starting with '.') are skipped unless
  `hidden=True`; `.git` itself is never entered. No directory is skipped for its name
  alone (`build/`, `target/` and `node_modules/` are indexed unless an ignore file says
  otherwise); in a Sphinx or Doxygen HTML build (known by the files beside them) the
  search index, the pages' sources and the theme's scripts are left out
  (`SKIP_GENERATED`), and so is a build beside a source map that names a file of the
  walked tree (`SKIP_BUILT`: an npm package's `dist/` bundles of its `lib/`), and a build
  beside its source of the same name (`SKIP_COMPILED`: `x.js` beside `x.ts`).
- Symbolic links: a link to a file inside the indexed roots is indexed under its own
  path; a link to a file outside them, or to a directory, is not followed (skipped,
  with the reason) unless `follow_symlinks=True`. Loops are reported as loops.
- `include`/`exclude` globs filter what remains: gitignore-style globs (`globs.py`, the
  dialect of every path filter) on the shown path; `--exclude` also prunes directories.

Every entry left out is counted by reason in `WalkStats`, so a run can say what it
skipped; a skipped directory counts once (its contents are never looked at).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from .. import globs
from .formats import compression_of, format_for_path
from .read import link_problem
from .shebang import file_language as script_language_of

# Reasons an entry is left out by the walk (keys of WalkStats.counts).
SKIP_IGNORED = "ignored by .gitignore/.ignore"
SKIP_HIDDEN = "hidden"
SKIP_EXCLUDED = "excluded by --exclude"
SKIP_NOT_INCLUDED = "not matched by --include"
SKIP_UNKNOWN = "not a document format"
SKIP_COMPRESSED = "compressed (--decompress reads them)"
SKIP_SPECIAL = "not a regular file"
SKIP_SYMLINK_OUTSIDE = "symlink to outside the indexed paths"
SKIP_SYMLINK_DIR = "symlink to a directory"
SKIP_GENERATED = "a doc build's search index, page sources and theme scripts"
# Doc builds known by what is beside them, and what of each repeats its HTML pages:
# Sphinx (`_build/html`, Python's and Read the Docs' downloads: `objects.inv` and
# `searchindex.js`) keeps each page's reST again in `_sources/` (`library/json.rst.txt`
# beside `library/json.html`: every answer came twice in a search's first ten) and every
# word of the pages in `searchindex.js`, on one 3.6 MB line; Doxygen (`doxygen.css`)
# keeps its search data in `search/` (`all_8.js`: `['mdb_5ftxn_5fbegin',['mdb_txn_begin',
# ['../group__mdb.html#…` for every name, ranked 5th for `mdb_txn_begin`); mdBook
# (`book.js` and `print.html`: the Rust book) keeps every chapter again in `print.html`
# (every answer of the book came twice in the first ten) and its words in `searchindex.js`
# / `.json`. Walked as a root of its own, such a folder, and a file named, are indexed.
# Their theme's scripts are no documents either: Sphinx's `_static/` (jQuery,
# `doctools.js`, `sphinx_highlight.js` came up for "string concatenation ||" on Python's
# docs), and every `*.js` beside a Doxygen's or an mdBook's pages (`jquery.js`,
# `dynsections.js`, `book.js`, `highlight.js`): `SCRIPTS` stands for those. Nor are the
# pages of Sphinx's viewcode (`_modules/`: "Source code for examples.performance…", the
# Python sources again as highlighted HTML; SQLAlchemy's ranked first for "what is the
# difference between flush and commit", above its own `.py`). A Sphinx build that ships
# without `objects.inv` (SQLAlchemy's sdist) is known by `searchindex.js` beside
# `_static/`.
SCRIPTS = "*.js"
SKIP_BUILT = "a build of sources also indexed (its source map names them)"
SKIP_COMPILED = "a build beside its source (the same name)"
_SPHINX = frozenset({"_sources", "searchindex.js", "_static", "_modules"})
_GENERATED = (
    (frozenset({"objects.inv", "searchindex.js"}), _SPHINX),
    (frozenset({"_static", "searchindex.js"}), _SPHINX),
    (frozenset({"doxygen.css", "search"}), frozenset({"search", SCRIPTS})),
    (
        frozenset({"book.js", "print.html"}),
        frozenset({"print.html", "searchindex.js", "searchindex.json", SCRIPTS}),
    ),
)


_IGNORE_FILES = (".gitignore", ".ignore")  # in increasing precedence


@dataclass(frozen=True, slots=True)
class WalkOptions:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    hidden: bool = False  # --hidden: enter hidden files and directories
    ignore_files: bool = True  # --no-ignore turns this off
    follow_symlinks: bool = False  # --follow-symlinks
    decompress: bool = False  # --decompress: a compressed document is read inside


@dataclass(frozen=True, slots=True)
class FoundFile:
    path: Path  # as found (may be a symlink)
    display: str  # the path users see
    format: str | None  # from the name; None = sniff the content
    explicit: bool  # named on the command line (indexed whatever its extension)
    error: str | None = None  # why this path could not be walked (an unreadable directory)
    skipped: str | None = None  # why this file is deliberately not indexed (a symlink policy)


@dataclass(slots=True)
class WalkStats:
    counts: Counter[str] = field(default_factory=Counter)  # reason -> entries left out


@dataclass(frozen=True, slots=True)
class _IgnoreFile:
    base: str  # absolute directory the patterns are relative to, ending in '/'
    patterns: tuple[pathspec.RegexPattern, ...]  # last one first


def display_path(path: Path | str, cwd: Path | None = None) -> str:
    """A path relative to the current directory when inside it, else absolute; '/' separators."""
    # Plain string work: this runs for every file of a walk, and pathlib costs ~10x more.
    base = str(cwd) if cwd is not None else os.getcwd()
    return _shown(os.path.abspath(path), base.rstrip(os.sep) + os.sep)


def _shown(absolute: str, prefix: str) -> str:
    """`display_path` of an absolute, normalized path, given the current directory as
    `prefix` (ending in the separator): what the walk calls per entry."""
    shown = absolute[len(prefix) :] if absolute.startswith(prefix) else absolute
    return shown.replace(os.sep, "/") if os.sep != "/" else shown


def _matches(display: str, patterns: tuple[str, ...], is_dir: bool = False) -> bool:
    # A directory's path ends in '/', so that `drafts/` (directories only) can match it.
    return globs.matcher(patterns)(display + "/" if is_dir else display)


def walk(
    roots: list[Path], options: WalkOptions | None = None, stats: WalkStats | None = None
) -> Iterator[FoundFile]:
    """Yield files under `roots` in a stable (sorted) order; left-out entries go to `stats`."""
    options = options or WalkOptions()
    stats = stats if stats is not None else WalkStats()
    real_roots = [os.path.realpath(root) for root in roots]
    for root in roots:
        if not root.is_dir():
            display = display_path(root)
            yield FoundFile(
                root, display, format_for_path(display, options.decompress), explicit=True
            )
            continue
        chain = _ancestor_ignores(os.path.abspath(root)) if options.ignore_files else ()
        yield from _walk_tree(root, chain, real_roots, options, stats)


def _walk_tree(
    root: Path,
    chain: tuple[_IgnoreFile, ...],
    real_roots: list[str],
    options: WalkOptions,
    stats: WalkStats,
) -> Iterator[FoundFile]:
    # Depth first, entries sorted by name; each stack entry carries its ignore chain and,
    # when links are followed, the (device, inode) of its ancestors to detect loops.
    # `display_path` with the current directory read once: an entry's absolute path is
    # its directory's (made absolute once) joined with its name.
    cwd_prefix = os.getcwd().rstrip(os.sep) + os.sep
    root_id = _dir_id(str(root))
    stack: list[tuple[str, tuple[_IgnoreFile, ...], frozenset[tuple[int, int]]]] = [
        (str(root), chain, frozenset({root_id}) if root_id else frozenset())
    ]
    while stack:
        directory, chain, ancestors = stack.pop()
        absolute_dir = os.path.abspath(directory)
        if options.ignore_files:
            chain = chain + _dir_ignores(absolute_dir)
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            yield _unlistable(directory, exc)
            continue
        subdirs: list[tuple[str, tuple[_IgnoreFile, ...], frozenset[tuple[int, int]]]] = []
        names = {entry.name for entry in entries}
        generated = frozenset().union(*(out for marks, out in _GENERATED if marks <= names))
        built = _built_from_sources(absolute_dir, entries, names, real_roots)
        compiled = _compiled_beside_sources(names)
        for entry in entries:
            name = entry.name
            if name == ".git":
                continue  # repository data, never documents (git itself never lists it)
            if name in generated or (SCRIPTS in generated and name.endswith(".js")):
                stats.counts[SKIP_GENERATED] += 1
                continue
            if name.startswith(".") and not options.hidden:
                stats.counts[SKIP_HIDDEN] += 1
                continue
            if name in built:
                stats.counts[SKIP_BUILT] += 1
                continue
            if name in compiled and entry.is_file(follow_symlinks=False):
                stats.counts[SKIP_COMPILED] += 1
                continue
            path = os.path.join(directory, name)
            absolute = os.path.join(absolute_dir, name)
            try:
                is_link = entry.is_symlink()
                is_dir = not is_link and entry.is_dir(follow_symlinks=False)
            except OSError:
                is_link, is_dir = False, False
            if chain and _ignored(chain, absolute, is_dir):
                stats.counts[SKIP_IGNORED] += 1
                continue
            display = _shown(absolute, cwd_prefix)
            if options.exclude and _matches(display, options.exclude, is_dir):
                stats.counts[SKIP_EXCLUDED] += 1
                continue
            if is_dir:
                subdirs.append((path, chain, ancestors))
                continue
            if is_link and _points_to_dir(path):
                if not options.follow_symlinks:
                    stats.counts[SKIP_SYMLINK_DIR] += 1
                    yield FoundFile(
                        Path(path),
                        display,
                        None,
                        explicit=False,
                        skipped="symlink to a directory (not followed; use --follow-symlinks)",
                    )
                    continue
                target = _dir_id(path)
                if target is None or target in ancestors:
                    yield FoundFile(
                        Path(path),
                        display,
                        None,
                        explicit=False,
                        error=f"symlink loop (a link back to a directory above it: "
                        f"'{os.readlink(path)}')",
                    )
                    continue
                subdirs.append((path, chain, ancestors | {target}))
                continue
            if options.include and not _matches(display, options.include):
                stats.counts[SKIP_NOT_INCLUDED] += 1
                continue
            fmt = format_for_path(display, options.decompress)
            if (
                fmt in (None, "text")
                and "." not in entry.name
                and entry.is_file(follow_symlinks=False)
            ):
                # a script without an extension (`bin/rake`, an `install` script): code
                # when its `#!` line names an interpreter of ours
                if script_language_of(path) is not None:
                    fmt = "code"
            if fmt is None and not options.include:
                # images, archives...: not documents; a compressed one may hold one
                compressed = not options.decompress and compression_of(display) is not None
                stats.counts[SKIP_COMPRESSED if compressed else SKIP_UNKNOWN] += 1
                continue
            if is_link:
                found = _symlinked_file(Path(path), display, fmt, real_roots, options, stats)
                if found is not None:
                    yield found
                continue
            if not entry.is_file(follow_symlinks=False):
                stats.counts[SKIP_SPECIAL] += 1  # FIFOs, sockets, devices: reading could block
                continue
            yield FoundFile(Path(path), display, fmt, explicit=False)
        for subdir in reversed(subdirs):
            stack.append(subdir)
    # Pre-order with sorted siblings: a stack pops the last pushed first, hence reversed().


# A source map's `sources` and `sourceRoot` (JSON; the lists come before the mappings and
# the sources' text, so the map's head holds them).
_MAP_SOURCES = re.compile(rb'"sources"\s*:\s*\[([^\]]{0,100000})\]')
_MAP_ROOT = re.compile(rb'"sourceRoot"\s*:\s*"([^"]{0,1000})"')
_MAP_STRING = re.compile(rb'"((?:[^"\\]|\\.){1,1000})"')  # one of the list's JSON strings
_MAP_HEAD = 1 << 20


def _built_from_sources(
    directory: str, entries: list[os.DirEntry[str]], names: set[str], real_roots: list[str]
) -> set[str]:
    """The files of `directory` built from sources the walk indexes too: `x.js` (`.cjs`,
    `.mjs`, `.min.js`, `.d.ts`, `.css`, …) beside its source map `x.js.map` whose
    `sources` name a file that exists inside the roots (`../lib/core/settle.js`,
    `../src/index.ts`).

    Why: an npm package ships its library again as bundles — axios 1.7.7 holds `lib/` and
    four builds of it in `dist/` (browser, ESM, Node, UMD), so each answer came five times
    in a search's first ten ("who calls dispatchRequest": five copies of its definition)
    and a name had five definitions. A TypeScript package's `.js` and `.d.ts` beside maps
    to its shipped `.ts` are the same. A build whose sources are not there (a package that
    ships `dist/` alone) is all there is of the code, and stays. Only a regular file is
    read as a map (a FIFO would block the walk), its first MB."""
    out: set[str] = set()
    for entry in entries:
        name = entry.name
        if not name.endswith(".map") or name[:-4] not in names:
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue  # a FIFO would block the walk; a link may point anywhere
        except OSError:
            continue
        try:
            with open(os.path.join(directory, name), "rb") as handle:
                head = handle.read(_MAP_HEAD)
        except OSError:
            continue
        listed = _MAP_SOURCES.search(head)
        if listed is None:
            continue
        root = _MAP_ROOT.search(head)
        base = (
            os.path.join(directory, root.group(1).decode("utf-8", "replace")) if root else directory
        )
        for source in _MAP_STRING.findall(listed.group(1)):
            text = source.decode("utf-8", "replace")
            if "://" in text or text.startswith("/"):
                continue  # `webpack://pkg/…`: a name, not a path here
            target = os.path.realpath(os.path.join(base, text))
            if any(_inside(target, r) for r in real_roots) and os.path.isfile(target):
                out.add(name[:-4])
                break
    return out


# The extensions of a build's JavaScript, and of the sources it is compiled from beside it.
_BUILD_SUFFIXES = (".js", ".cjs", ".mjs", ".d.ts")
_COMPILED_SOURCES = (".tsx", ".mts", ".cts", ".ts", ".vue", ".svelte")
_TYPESCRIPT_SOURCES = frozenset({".ts", ".tsx", ".mts", ".cts"})
# What a build adds to its source's name: `calendar.esm.js`, `calendar.cjs.min.js`.
_BUILD_MARKS = frozenset({"min", "esm", "cjs", "umd", "es", "module", "common", "prod", "dev"})


def _compiled_beside_sources(names: set[str]) -> set[str]:
    """The files of a folder (`names`) that are builds of a source beside them: `x.js`,
    `x.cjs`, `x.mjs` and `x.d.ts` beside `x.ts` (or `.tsx`, `.mts`, `.cts`: TypeScript
    compiled where its sources are), and a component's builds beside it, known by their
    marks — `calendar.esm.js`, `calendar.cjs.min.js`, then `calendar.js` too — beside
    `Calendar.vue` (or a `.svelte`), the names compared without case.

    Why: primevue 3.53's `calendar/` holds `Calendar.vue` and `calendar.cjs.js`,
    `calendar.esm.js`, `calendar.js` and three minified builds, no source map: every
    method was defined seven times, and "who calls onOverlayClick" listed the builds'
    copies beside the templates' calls. Without a marked build a module of a component's
    name is its own (Skeleton's `lightswitch.js`, the store `LightSwitch.svelte`
    imports), and a component's `.d.ts` is written by hand (primevue's `Calendar.d.ts`,
    its props' documented types): both stay, as does a `.js` with no source beside it."""
    typescript, components = set(), set()
    for name in names:
        if name.endswith(".d.ts"):
            continue
        for ext in _COMPILED_SOURCES:
            if name.endswith(ext):
                stem = name[: -len(ext)]
                if ext in _TYPESCRIPT_SOURCES:
                    typescript.add(stem)
                else:
                    components.add(stem.lower())
    if not typescript and not components:
        return set()
    builds: dict[str, list[str]] = {}  # a component's stem → its builds
    marked: set[str] = set()
    out = set()
    for name in names:
        suffix = next((e for e in _BUILD_SUFFIXES if name.endswith(e)), None)
        if suffix is None:
            continue
        stem = name[: -len(suffix)]
        if stem in typescript:
            out.add(name)
            continue
        parts = stem.lower().split(".")
        marks = 0
        while len(parts) > 1 and parts[-1] in _BUILD_MARKS:
            parts.pop()
            marks += 1
        base = ".".join(parts)
        if base in components and suffix != ".d.ts":
            builds.setdefault(base, []).append(name)
            if marks:
                marked.add(base)
    for base in marked:
        out.update(builds[base])
    return out


def _symlinked_file(
    path: Path,
    display: str,
    fmt: str | None,
    real_roots: list[str],
    options: WalkOptions,
    stats: WalkStats,
) -> FoundFile | None:
    """A link to a file: indexed when its target is inside a root (or links are followed)."""
    problem = link_problem(path)
    if problem is not None:
        return FoundFile(path, display, fmt, explicit=False, error=problem)
    if not os.path.isfile(path):
        stats.counts[SKIP_SPECIAL] += 1
        return None
    target = os.path.realpath(path)
    if options.follow_symlinks or any(_inside(target, root) for root in real_roots):
        return FoundFile(path, display, fmt, explicit=False)
    stats.counts[SKIP_SYMLINK_OUTSIDE] += 1
    return FoundFile(
        path,
        display,
        fmt,
        explicit=False,
        skipped=f"symlink to a file outside the indexed paths ('{target}'; not followed, "
        f"use --follow-symlinks)",
    )


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _points_to_dir(path: str) -> bool:
    try:
        return os.path.isdir(path)
    except OSError:
        return False


def _dir_id(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _unlistable(directory: str, exc: OSError) -> FoundFile:
    reason = (
        "permission denied (directory not listed)"
        if isinstance(exc, PermissionError)
        else f"cannot list directory: {exc.strerror or exc}"
    )
    return FoundFile(Path(directory), display_path(directory), None, explicit=False, error=reason)


# -- ignore files ---------------------------------------------------------------------------
def _ignored(chain: tuple[_IgnoreFile, ...], absolute: str, is_dir: bool) -> bool:
    """git's rule: the last pattern matching the entry itself, in the most specific ignore
    file that has one, decides (a negation re-includes).

    Only matches of the entry *itself* count: a pattern that matches because it names a
    parent directory (`build/` against `build/x.rs`) is left out, since the walk never
    enters an ignored directory and an entered one was re-included. (pathspec's
    `GitIgnoreSpec.check_file` ranks directory-pattern matches below file-pattern ones,
    which is right for files but wrong for a directory itself: `*` then `!*/`.)
    """
    for ignore in reversed(chain):
        if not absolute.startswith(ignore.base):
            continue
        relative = absolute[len(ignore.base) :] + ("/" if is_dir else "")
        for pattern in ignore.patterns:
            found = pattern.match_file(relative)
            if found is None:
                continue
            match = found.match
            if match.groupdict().get("ps_d") is not None and match.end("ps_d") != len(relative):
                continue  # matched through a parent directory
            return bool(pattern.include)
    return False


def _load(path: str, base: str) -> _IgnoreFile | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None  # missing (the usual case) or unreadable: no patterns
    compiled: list[pathspec.RegexPattern] = []
    for line in lines:
        try:
            compiled.extend(pathspec.GitIgnoreSpec.from_lines([line]).patterns)
        except ValueError:
            continue  # a line git would ignore as invalid (a lone '!' or '\\')
    patterns = tuple(p for p in reversed(compiled) if p.include is not None)
    if not patterns:
        return None
    return _IgnoreFile(base.rstrip("/") + "/", patterns)


def _dir_ignores(directory: str) -> tuple[_IgnoreFile, ...]:
    """The ignore files of one directory, lowest precedence first (info/exclude of a nested
    repository, then .gitignore, then .ignore)."""
    found = []
    git = os.path.join(directory, ".git")
    if os.path.lexists(git):
        exclude = _info_exclude(git)
        if exclude is not None:
            found.append(_load(exclude, directory))
    found += [_load(os.path.join(directory, name), directory) for name in _IGNORE_FILES]
    return tuple(f for f in found if f is not None)


def _ancestor_ignores(root: str) -> tuple[_IgnoreFile, ...]:
    """Ignore files above `root` that git would apply to it: from the repository top down."""
    top = os.path.dirname(root)
    above: list[str] = []
    while True:
        above.append(top)
        if os.path.lexists(os.path.join(top, ".git")):
            break
        parent = os.path.dirname(top)
        if parent == top:
            return ()  # not inside a git repository: only the root's own ignore files count
        top = parent
    chain: list[_IgnoreFile] = []
    for directory in reversed(above):
        chain.extend(_dir_ignores(directory))
    return tuple(chain)


def _info_exclude(git: str) -> str | None:
    """`.git/info/exclude`, also for worktrees and submodules whose `.git` is a file."""
    if os.path.isdir(git):
        return os.path.join(git, "info", "exclude")
    try:
        with open(git, encoding="utf-8") as handle:
            line = handle.readline().strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    gitdir = os.path.join(os.path.dirname(git), line[len("gitdir:") :].strip())
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as handle:
            gitdir = os.path.join(gitdir, handle.read().strip())
    except OSError:
        pass  # not a worktree: the gitdir holds info/ itself
    return os.path.join(gitdir, "info", "exclude")
