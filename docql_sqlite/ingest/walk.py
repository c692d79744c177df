"""Expand the paths given to `index` into the files to index, honouring ignore rules."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .formats import format_for_path

# Directories that are never documentation: VCS data, dependency and build trees, caches.
IGNORED_DIRS = {
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    ".idea",
    ".vscode",
    "dist",
    "build",
    ".next",
    ".cache",
    "target",
    ".gradle",
    "site-packages",
    ".eggs",
    ".direnv",
}


@dataclass(frozen=True, slots=True)
class FoundFile:
    path: Path  # as found (may be a symlink)
    display: str  # the path users see
    format: str | None  # from the name; None = sniff the content
    explicit: bool  # named on the command line (indexed whatever its extension)
    error: str | None = None  # why this path could not be walked (an unreadable directory)


def display_path(path: Path, cwd: Path | None = None) -> str:
    """A path relative to the current directory when inside it, else absolute; '/' separators."""
    # Plain string work: this runs for every file of a walk, and pathlib costs ~10x more.
    base = str(cwd) if cwd is not None else os.getcwd()
    absolute = os.path.abspath(path)
    prefix = base.rstrip(os.sep) + os.sep
    shown = absolute[len(prefix) :] if absolute.startswith(prefix) else absolute
    return shown.replace(os.sep, "/") if os.sep != "/" else shown


def _matches(display: str, patterns: tuple[str, ...]) -> bool:
    name = display.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(display, p) or fnmatch.fnmatch(name, p) for p in patterns)


def walk(
    roots: list[Path],
    include: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
    ignore_dirs: set[str] | None = None,
) -> Iterator[FoundFile]:
    """Yield files under `roots` in a stable (sorted) order."""
    ignore_dirs = IGNORED_DIRS if ignore_dirs is None else ignore_dirs
    for root in roots:
        if not root.is_dir():
            display = display_path(root)
            yield FoundFile(root, display, format_for_path(display), explicit=True)
            continue
        failures: list[OSError] = []
        for dirpath, dirnames, filenames in os.walk(
            root, onerror=failures.append, followlinks=False
        ):
            yield from _walk_failures(failures)
            dirnames[:] = sorted(
                d
                for d in dirnames
                if d not in ignore_dirs and not _matches(display_path(Path(dirpath) / d), exclude)
            )
            for filename in sorted(filenames):
                path = Path(dirpath) / filename
                display = display_path(path)
                if exclude and _matches(display, exclude):
                    continue
                if include and not _matches(display, include):
                    continue
                fmt = format_for_path(display)
                if fmt is None and not include:
                    continue  # unknown kinds of file (images, archives...) are not documents
                yield FoundFile(path, display, fmt, explicit=False)
        yield from _walk_failures(failures)


def _walk_failures(failures: list[OSError]) -> Iterator[FoundFile]:
    """Directories os.walk could not list, as FoundFiles carrying the reason (then cleared)."""
    for exc in failures:
        where = Path(exc.filename) if exc.filename else Path(".")
        reason = (
            "permission denied (directory not listed)"
            if isinstance(exc, PermissionError)
            else (f"cannot list directory: {exc.strerror or exc}")
        )
        yield FoundFile(where, display_path(where), None, explicit=False, error=reason)
    failures.clear()
