"""The typed options of the `Index` front door, one class per kind of call.

Every client (CLI, MCP server, Datasette and sqlite-utils plugins) builds one of these
and makes one `Index` call with it. The options check themselves when built, so a bad
value gives the same clear `OptionError` whichever client passed it. This module
imports nothing heavy: building options must not cost a client its start-up time.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

from . import settings
from .errors import OptionError
from .records import Record, field, fields, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    OptionsT = TypeVar("OptionsT")

SEARCH_MODES = ("smart", "bm25", "vector", "hybrid")
GROUPINGS = ("file",)
# The ranked lists a search weight can name (bm25/vector in every mode, the rest in smart).
LIST_NAMES = (
    "bm25",
    "vector",
    "symbols",
    "code_words",
    "headings",
    "entities",
    "documents",
    "exact",
)
RRF_K = 60
DEFAULT_BUDGET = 12_000
MAX_ROWS = 2**63 - 1  # SQLite's largest LIMIT

IngestProgress = Callable[[int, int, str], None]  # (files done, files to do, path)
EmbedProgress = Callable[[int, int], None]  # (texts done, texts to embed)


def globs(paths: str | Sequence[str] | None) -> tuple[str, ...]:
    """One glob or several: a bare string is one glob, not a sequence of characters. Each
    is checked here (docql_sqlite/globs.py), so a bad one is a usage error before any work."""
    if not paths:
        return ()
    found = (paths,) if isinstance(paths, str) else tuple(paths)
    from .globs import to_regex

    for glob in found:
        to_regex(glob)
    return found


def with_overrides(
    options: OptionsT | None, default: type[OptionsT], overrides: dict[str, Any]
) -> OptionsT:
    """`options` (or the defaults) with keyword overrides, e.g. `index.search(q, limit=3)`."""
    base = options if options is not None else default()
    if not overrides:
        return base
    names = {f.name for f in fields(default)}  # type: ignore[arg-type]
    unknown = sorted(set(overrides) - names)
    if unknown:
        raise OptionError(
            f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} for "
            f"{default.__name__}; options: {', '.join(sorted(names))}"
        )
    return replace(base, **overrides)  # type: ignore[type-var]


def _whole(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise OptionError(f"{name} must be a whole number of at least {minimum}, got {value!r}")


class QueryOptions(Record, frozen=True):
    """`Index.query` / `compile` / `explain`: scope, paging and the time allowed."""

    paths: tuple[str, ...] = ()  # only documents whose path matches one of these globs
    limit: int | None = None
    offset: int = 0
    # Seconds for one query (None: no limit); default $DOCQL_QUERY_TIMEOUT, else 5 s.
    timeout: float | None = field(default_factory=settings.query_timeout)

    def __post_init__(self) -> None:
        object.__setattr__(self, "paths", globs(self.paths))
        if self.limit is not None:
            _whole("limit", self.limit, 0)
        _whole("offset", self.offset, 0)
        if (self.limit or 0) + self.offset > MAX_ROWS:
            raise OptionError(
                f"limit + offset must be at most {MAX_ROWS}, got {self.limit} + {self.offset}"
            )
        _timeout(self.timeout)


class SearchOptions(Record, frozen=True):
    """`Index.search`: everything the CLI's `search` command can set."""

    mode: str = "smart"
    limit: int = 10
    paths: tuple[str, ...] = ()
    group: str | None = None  # "file": one result per file
    explain: bool = False  # each list's rank and score, the RRF terms, the plan
    model: str | None = None  # embedding model for the query (default: the index's)
    rrf_k: int = RRF_K
    weights: Mapping[str, float] = field(default_factory=dict)
    intent: str | None = None  # steers snippets and the passage that stands for a file
    content: bool = True  # include each passage's full text
    # Make each passage's marked snippet (`snippets.py`); off, `snippet` is None. The MCP
    # server shows passages whole, so it does not pay for snippets nobody reads.
    snippets: bool = True
    rerank: str | None = None  # a reranker's URL or model name (docql_sqlite/rerankers)
    # Seconds for the search's SQL (`Index.search` runs it under `deadline.limit`); None:
    # no limit. A reranker's HTTP call does not count.
    timeout: float | None = field(default_factory=settings.query_timeout)

    def __post_init__(self) -> None:
        object.__setattr__(self, "paths", globs(self.paths))
        _timeout(self.timeout)
        if self.rerank is not None and (
            not isinstance(self.rerank, str) or not self.rerank.strip()
        ):
            raise OptionError(
                "rerank needs a reranker's URL (http://host:port/v1/rerank) or a model name"
            )
        if self.mode not in SEARCH_MODES:
            raise OptionError(
                f"unknown search mode '{self.mode}'; modes: {', '.join(SEARCH_MODES)}"
            )
        if self.group is not None and self.group not in GROUPINGS:
            raise OptionError(f"unknown grouping '{self.group}'; the only grouping is 'file'")
        if isinstance(self.limit, bool) or not isinstance(self.limit, int) or self.limit < 1:
            raise OptionError(f"the number of results must be at least 1, got {self.limit}")
        _whole("rrf_k", self.rrf_k, 1)
        checked = {}
        for name, value in dict(self.weights).items():
            if name not in LIST_NAMES:
                raise OptionError(f"unknown list '{name}'; lists: {', '.join(LIST_NAMES)}")
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise OptionError(f"the weight of {name} must be a number, got {value!r}") from None
            if not number >= 0:
                raise OptionError(f"a weight cannot be negative, got {name}={value}")
            checked[name] = number
        object.__setattr__(self, "weights", checked)


class ContextOptions(Record, frozen=True):
    """`Index.context`: a context pack for a question within `budget` characters."""

    budget: int = DEFAULT_BUDGET
    paths: tuple[str, ...] = ()
    timeout: float | None = field(default_factory=settings.query_timeout)  # as SearchOptions

    def __post_init__(self) -> None:
        object.__setattr__(self, "paths", globs(self.paths))
        _whole("budget", self.budget, 1)
        _timeout(self.timeout)


class EmbedOptions(Record, frozen=True):
    """`Index.embed` / `docql_sqlite.embed`: give new or changed chunks a vector."""

    model: str | None = None  # default: the model the index already uses
    replace: bool = False  # drop the vectors of another model and re-embed everything
    batch: int = 256  # chunks per transaction (a killed run keeps its finished batches)
    progress: EmbedProgress | None = None

    def __post_init__(self) -> None:
        _whole("batch", self.batch, 1)


def default_workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))


class IngestOptions(Record):
    """`Index.index` / `docql_sqlite.index`: what to index and how.

    Vectors belong to the write path: an index that has vectors keeps them current (the
    changed passages are embedded with the index's model in the same run); `embed`
    names a model to embed with, creating the vectors if the index has none.
    """

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_bytes: int = 50 * 1024 * 1024
    max_chars: int = 1500
    workers: int = field(default_factory=default_workers)
    timeout: float = 60.0  # CPU seconds per file's parse; 5x that of wall time (ingest/workers.py)
    batch_docs: int = 200
    batch_seconds: float = 1.0
    remove_missing: bool = True  # documents whose files vanished from disk are removed
    prune: bool = False  # also remove documents under the roots outside this run's filters
    hidden: bool = False  # walk hidden files and directories
    ignore_files: bool = True  # respect .gitignore / .ignore / .git/info/exclude
    follow_symlinks: bool = False  # follow links to directories and to files outside the roots
    # Read the document inside a compressed file (`README.md.gz`, `changelog.Debian.gz`;
    # .gz, .bz2, .xz): ingest/formats.py COMPRESSIONS. Off, they are left out and counted.
    decompress: bool = False
    # Parse again the files that failed before even if unchanged (by default a failed file is
    # skipped until its size or mtime changes).
    retry_failed: bool = False
    # Add the trigram index over the chunks' text (`chunks_trigram`, docs/design.md B35) if
    # the file has none; a file that has it keeps it current whatever this says.
    trigram: bool = False
    fetch_timeout: float = 30.0
    progress: IngestProgress | None = None
    embed: str | None = None
    update_vectors: bool = True  # False: leave an embedded index's vectors stale
    embed_progress: EmbedProgress | None = None

    def __post_init__(self) -> None:
        self.include = globs(self.include)
        self.exclude = globs(self.exclude)
        _whole("max_bytes", self.max_bytes, 1)
        _whole("max_chars", self.max_chars, 1)
        _whole("workers", self.workers, 0)
        if not self.timeout > 0:
            raise OptionError(f"timeout must be a positive number of seconds, got {self.timeout}")


def _timeout(seconds: float | None) -> None:
    if seconds is not None and not seconds > 0:
        raise OptionError(f"timeout must be a positive number of seconds, got {seconds}")
