"""`index`: bring an index up to date with a set of paths, incrementally and idempotently.

Unchanged files are skipped by size + mtime, then by content hash; changed files are
parsed in worker processes and replaced one transaction per batch (each file's rows are
replaced atomically, so an interrupted run leaves every file either old or new).
Failures are recorded per file and never stop the run: a file whose rows cannot be
written is rolled back alone (a savepoint per file) and recorded. Only errors about the
database as a whole (disk full, I/O, corruption) stop a run, with a message that says
how to recover.

What is removed (docs/design.md, "Which files"): only documents whose file has vanished
from disk under an indexed root. A document that is merely outside this run's filters
(a narrower --include, a new ignore rule) stays and is counted in
`IngestReport.outside_filters`, unless `prune` asks for it to go; a document under a
directory that could not be listed stays too. Files deliberately not indexed (empty,
over --max-bytes, symlinks the policy does not follow) are `skipped`, not failed; the
run's skip counts by reason are kept in `meta` (`last_run_skipped`) for `status`.

Each document records the chunk size it was cut with (`documents.chunk_chars`, written
with its rows), so a run that changes `--chunk-chars` and is killed part-way leaves the
rest marked as not done: the next run (or a concurrent one) re-chunks exactly those.
At the end of a run the WAL is checkpointed into the main file.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import DatabaseFull, DocQLError, IngestError
from ..options import EmbedOptions, IngestOptions
from ..store.sqlite import db
from .grammars import is_optional, language_for_extension, unavailable_reason
from .parse import (
    ParseTask,
    Skipped,
    Unchanged,
    content_rules,
    parse_for_writer,
    warm_up,
)
from .paths import raw_bytes, shown
from .read import SKIP_EMPTY, SKIP_TOO_LARGE, UNREADABLE
from .resolve import resolve_references
from .store import (
    FtsWrites,
    Parsed,
    clear_problems,
    delete_document,
    failed_files,
    record_problem,
    replace_document,
)
from .walk import (
    SKIP_SYMLINK_DIR,
    SKIP_SYMLINK_OUTSIDE,
    FoundFile,
    WalkOptions,
    WalkStats,
    walk,
)
from .workers import run_tasks, timed_out_after

# A file whose parse failed and that has not changed since (same size and mtime): not parsed
# again until it changes, or with `IngestOptions.retry_failed`; its error row stays.
SKIP_FAILED_UNCHANGED = "failed before, unchanged"
_FAILED_UNCHANGED_REASON = (
    "failed before and unchanged since: not parsed again (its error is in `status --errors`; "
    "--retry-failed parses it again)"
)
_FILE_SKIP_KINDS = (
    SKIP_EMPTY,
    SKIP_TOO_LARGE,
    SKIP_SYMLINK_OUTSIDE,
    SKIP_SYMLINK_DIR,
    SKIP_FAILED_UNCHANGED,
)


@dataclass(frozen=True, slots=True)
class ParseFailure:
    """A file that could not be read or parsed, with its (size, mtime_ns) from before the
    parse: recorded with the error, so the next run skips the file until it changes."""

    error: IngestError
    file_stat: tuple[int, int | None] | None


class StoredDoc(NamedTuple):
    """What the index already holds for a file: enough to skip it when unchanged."""

    id: int
    size: int
    mtime_ns: int | None
    sha256: str
    path: str
    chunk_chars: int | None  # None: indexed before chunk sizes were recorded per document
    uri_bytes: bytes | None = None  # the exact path when `uri` is an escaped form (paths.py)
    format: str | None = None
    content_rules: int | None = None  # None: indexed before content rules were recorded


@dataclass(slots=True)
class IngestReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason), per file
    # Every entry left out by reason: the per-file skips plus the walk's (ignored, hidden...).
    skip_counts: dict[str, int] = field(default_factory=dict)
    outside_filters: int = 0  # indexed documents under the roots this run did not select: kept
    notes: list[str] = field(default_factory=list)  # one line each, e.g. a grammar unavailable
    seconds: float = 0.0
    # Vectors kept current in the same run (None: the index has none and none were asked).
    embedding: dict[str, object] | None = None
    embedding_error: str | None = None

    @property
    def ok(self) -> bool:
        """No real failure (skipped files are not failures)."""
        return not self.failed and self.embedding_error is None

    def file_skip_counts(self) -> dict[str, int]:
        """The skip counts of files this run looked at and left out (not the walk's
        ignored/hidden/unknown-format entries)."""
        return {k: self.skip_counts[k] for k in _FILE_SKIP_KINDS if self.skip_counts.get(k)}

    def summary(self) -> dict[str, Any]:
        return {
            "added": len(self.added),
            "updated": len(self.updated),
            "unchanged": self.unchanged,
            "removed": len(self.removed),
            "failed": len(self.failed),
            "skipped": len(self.skipped),
            "warnings": len(self.warnings),
            "outside_filters": self.outside_filters,
            "seconds": round(self.seconds, 3),
        }


def walk_inputs(
    paths: list[str], options: IngestOptions, report: IngestReport
) -> tuple[list[str], list[Path], list[FoundFile], WalkStats]:
    """The URLs among `paths`, the local roots (each must exist), and the files the walk
    selects under them (with its counts); grammar notes go to `report`. Shared by the
    file and PostgreSQL writers."""
    from .fetch import is_url

    urls = [p for p in paths if is_url(p)]
    roots = [Path(p) for p in paths if not is_url(p)]
    for root in roots:
        if not root.exists() and not root.is_symlink():
            raise IngestError(f"no such file or directory: '{root}'")
    walk_options = WalkOptions(
        include=options.include,
        exclude=options.exclude,
        hidden=options.hidden,
        ignore_files=options.ignore_files,
        follow_symlinks=options.follow_symlinks,
    )
    stats = WalkStats()
    found = list(walk(roots, walk_options, stats))
    report.notes.extend(_grammar_notes(found))
    return urls, roots, found, stats


def index_paths(
    db_path: str | Path, paths: list[str], options: IngestOptions | None = None
) -> IngestReport:
    options = options or IngestOptions()
    started = time.monotonic()
    report = IngestReport()
    urls, roots, found, stats = walk_inputs(paths, options, report)
    conn = db.connect(db_path)
    try:
        if options.trigram:
            with conn:
                db.create_chunk_trigrams(conn)
        stored = {
            row[1]: StoredDoc(row[0], *row[2:])
            for row in conn.execute(
                "SELECT id, uri, size, mtime_ns, sha256, path, chunk_chars, uri_bytes, format, "
                "content_rules FROM documents"
            )
        }
        failed_before = {} if options.retry_failed else failed_files(conn)
        plan = _plan(found, stored, failed_before, options, report)
        if plan.moved:
            with conn:
                conn.executemany(
                    "UPDATE documents SET uri = ?, uri_bytes = ? WHERE uri = ?",
                    [(new, raw, old) for old, new, raw in plan.moved],
                )
                conn.executemany(
                    "UPDATE ingest_errors SET uri = ? WHERE uri = ?",
                    [(new, old) for old, new, _ in plan.moved],
                )
        if plan.renamed:
            with conn:
                conn.executemany("UPDATE documents SET path = ? WHERE uri = ?", plan.renamed)
        tasks = plan.tasks + _plan_urls(urls, stored, options)
        seen = plan.seen
        _run(conn, tasks, stored, options, report)
        if options.remove_missing:
            unlisted = [item.path for item in found if item.error is not None]
            unfollowed = [item.path for item in found if item.skipped is not None]
            _remove_missing(conn, roots, seen, unlisted, unfollowed, stored, options, report)
        # After every write of the run: a changed file can change what references in
        # unchanged files resolve to (resolve.py).
        with conn:
            resolve_references(conn)
        counts = Counter(stats.counts)
        counts.update(report.skip_counts)
        report.skip_counts = dict(sorted(counts.items()))
        with conn:
            db.set_meta(conn, "last_run_skipped", json.dumps(report.skip_counts))
        # Move the run's pages from the WAL into the main file, so the index is one file
        # again (and a full disk shows up here, not at some later reader's checkpoint).
        # Hand back the pages FTS5's last segment merges left free (files made with
        # auto_vacuum = INCREMENTAL, see db.py; a no-op on older files): a cold build
        # then ends at its content's size, 1.96x the Markdown mix instead of 1.95-2.05x.
        conn.execute("PRAGMA incremental_vacuum").fetchall()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except (db.DiskFullError, DatabaseFull):
        raise DatabaseFull(
            f"no space left to write '{db_path}' (disk full): every document committed before "
            f"this is kept (some may still be in '{db_path}-wal'; keep that file next to the "
            f"index); free some space, then run the same index command again to finish"
        ) from None
    finally:
        conn.close()
    _keep_vectors_current(db_path, options, report)
    report.seconds = time.monotonic() - started
    return report


def _current(previous: StoredDoc | None, options: IngestOptions) -> StoredDoc | None:
    """`previous` when its chunks were cut with this run's settings and the current content
    rules of its format, else None (re-parse)."""
    if previous is None or previous.chunk_chars != options.max_chars:
        return None
    if previous.content_rules != content_rules(previous.format):
        return None
    return previous


@dataclass
class Plan:
    """What a run will do, decided before anything is written (the engine's writer writes)."""

    tasks: list[tuple[FoundFile, ParseTask | None]]
    seen: set[str]  # the URIs found
    renamed: list[tuple[str, str]]  # (path, uri): an unchanged file now shown under another path
    # (old uri, new uri, new uri_bytes): a document whose folder moved (`_moved_here`).
    moved: list[tuple[str, str, bytes | None]] = field(default_factory=list)


def _plan(
    found: list[FoundFile],
    stored: dict[str, StoredDoc],
    failed_before: dict[str, tuple[tuple[int, int | None], str]],
    options: IngestOptions,
    report: IngestReport,
) -> Plan:
    """The parse tasks, the URIs seen, the renamed and the moved documents. `stored` is
    updated for the moved ones (their entries go to the new URI). `failed_before`: the
    failed-file memo (`store.failed_files`), empty to parse every failed file again."""
    plan = Plan([], set(), [])
    tasks, seen, renamed = plan.tasks, plan.seen, plan.renamed
    by_path: dict[str, str] | None = None
    for item in found:
        uri = _uri(item)
        if uri in seen:  # the same file under two of the given paths
            continue
        seen.add(uri)
        if uri not in stored and item.error is None and item.skipped is None:
            if by_path is None:
                by_path = {info.path: old for old, info in stored.items()}
            old = _moved_here(by_path.get(shown(item.display)), stored)
            if old is not None:
                stored[uri] = stored.pop(old)
                plan.moved.append((old, uri, raw_bytes(os.path.abspath(item.path))))
        if item.error is not None:  # an unreadable directory: recorded, nothing to parse
            tasks.append((item, None))
            continue
        if item.skipped is not None:  # a symlink the policy does not follow
            report.skipped.append((shown(item.display), item.skipped))
            seen.discard(uri)  # a document indexed through it before is removed
            continue
        previous = _current(stored.get(uri), options)
        try:
            st = item.path.stat()
        except OSError:
            st = None
        file_stat = (st.st_size, st.st_mtime_ns) if st is not None else None
        if previous is not None and file_stat == (previous.size, previous.mtime_ns):
            report.unchanged += 1
            if previous.path != shown(item.display):
                renamed.append((shown(item.display), uri))
            continue
        if file_stat is not None and _fails_again(failed_before.get(uri), file_stat, options):
            # It would fail again (perhaps after a long timeout): its error row stays.
            report.skipped.append((shown(item.display), _FAILED_UNCHANGED_REASON))
            report.skip_counts[SKIP_FAILED_UNCHANGED] = (
                report.skip_counts.get(SKIP_FAILED_UNCHANGED, 0) + 1
            )
            continue
        task = ParseTask(
            path=str(item.path),
            display=shown(item.display),
            format=item.format,
            known_sha256=previous.sha256 if previous else None,
            max_bytes=options.max_bytes,
            max_chars=options.max_chars,
            file_stat=file_stat,
        )
        tasks.append((item, task))
    return plan


def _moved_here(old: str | None, stored: dict[str, StoredDoc]) -> str | None:
    """The URI of the stored document a newly found file replaces, when its folder was
    moved or copied with its index (a checkout cloned elsewhere, an index copied to another
    machine): the same shown path (relative to where the command runs, as typed), and the
    old file no longer exists. Without this every document would be indexed twice, once
    per place. Two checkouts that both exist stay two sets of documents."""
    if old is None:
        return None
    from .fetch import is_url

    info = stored[old]
    if is_url(old) or os.path.isabs(info.path):  # a URL, or a path typed as absolute
        return None
    return (
        old if _on_disk(os.fsdecode(info.uri_bytes) if info.uri_bytes else old) == "gone" else None
    )


def _fails_again(
    failure: tuple[tuple[int, int | None], str] | None,
    file_stat: tuple[int, int | None],
    options: IngestOptions,
) -> bool:
    """Whether a recorded failure still holds: the file is as it was when it failed, and a
    timeout is not longer now than the one it ran out of (raising --timeout, as the message
    says, retries the files that timed out). A file that could not be read is always retried:
    a chmod changes neither its size nor its mtime."""
    if failure is None or failure[0] != file_stat or failure[1].startswith(UNREADABLE):
        return False
    timed_out = timed_out_after(failure[1])
    return timed_out is None or options.timeout <= timed_out


def _plan_urls(
    urls: list[str], stored: dict[str, StoredDoc], options: IngestOptions
) -> list[tuple[FoundFile, ParseTask | None]]:
    """URLs are fetched every run (no cheap change check); unchanged bytes skip the parse."""
    by_path = {info.path: info for info in stored.values()}
    tasks: list[tuple[FoundFile, ParseTask | None]] = []
    for url in urls:
        previous = _current(by_path.get(url), options)
        task = ParseTask(
            path=url,
            display=url,
            format=None,
            known_sha256=previous.sha256 if previous else None,
            max_bytes=options.max_bytes,
            max_chars=options.max_chars,
            is_url=True,
            fetch_timeout=options.fetch_timeout,
        )
        tasks.append((FoundFile(Path("."), url, None, explicit=True), task))
    return tasks


def _uri(item: FoundFile) -> str:
    """The identity of a found file as stored: absolute path (escaped, see `paths`) or URL."""
    from .fetch import is_url

    return item.display if is_url(item.display) else shown(os.path.abspath(item.path))


def _run(
    conn: db.Connection,
    tasks: list[tuple[FoundFile, ParseTask | None]],
    stored: dict[str, StoredDoc],
    options: IngestOptions,
    report: IngestReport,
) -> None:
    walk_failures = [
        (item, IngestError(item.error or "cannot be walked", shown(item.display)))
        for item, task in tasks
        if task is None
    ]
    runnable = [(item, task) for item, task in tasks if task is not None]
    total = len(runnable)
    batch: list[tuple[FoundFile, object]] = []
    batch_started = time.monotonic()
    done = 0
    # Even one file is parsed in a worker: the timeout and crash isolation must hold for it too.
    if min(options.workers, total) > 0:
        warm_up([(task.format, task.display) for _, task in runnable])
    results: Iterator[tuple[tuple[FoundFile, ParseTask], object]] = run_tasks(
        parse_for_writer,
        ((pair, pair[1]) for pair in runnable),
        min(options.workers, total),
        options.timeout,
    )
    batch.extend(walk_failures)
    for (item, task), result in results:
        if isinstance(result, IngestError):
            result = ParseFailure(result, task.file_stat)
        done += 1
        if options.progress:
            options.progress(done, total, shown(item.display))
        batch.append((item, result))
        if (
            len(batch) >= options.batch_docs
            or time.monotonic() - batch_started > options.batch_seconds
        ):
            _write_batch(conn, batch, stored, report)
            batch, batch_started = [], time.monotonic()
    if batch:
        _write_batch(conn, batch, stored, report)


def _write_batch(
    conn: db.Connection,
    batch: list[tuple[FoundFile, object]],
    stored: dict[str, StoredDoc],
    report: IngestReport,
) -> None:
    # The batch's full-text writes, applied after its savepoints (see `store.FtsWrites`).
    fts = FtsWrites()
    with conn:  # one transaction for speed; each file in it is replaced whole or not at all
        for item, result in batch:
            display = shown(item.display)
            uri = shown(result.uri) if isinstance(result, (Parsed, Unchanged)) else _uri(item)
            mine = FtsWrites()
            try:
                with conn:  # a savepoint: a file whose rows cannot be written rolls back alone
                    _write_one(conn, display, uri, result, stored, report, mine)
            except db.WHOLE_DATABASE_ERRORS:
                raise
            except Exception as exc:  # noqa: BLE001 - one file must never stop a run
                if not conn.in_transaction:  # SQLite rolled the whole batch back: stop
                    raise
                reason = f"could not be stored: {type(exc).__name__}: {exc}"
                clear_problems(conn, uri)
                record_problem(conn, display, uri, "error", reason)
                report.failed.append((display, reason))
            else:
                fts.extend(mine)  # only a file whose rows were all written
        fts.apply(conn)


def _write_one(
    conn: db.Connection,
    display: str,
    uri: str,
    result: object,
    stored: dict[str, StoredDoc],
    report: IngestReport,
    fts: FtsWrites | None = None,
) -> None:
    clear_problems(conn, uri)
    if isinstance(result, Skipped):
        previous = stored.get(uri)
        if previous is not None and result.kind == SKIP_EMPTY:
            delete_document(conn, previous.id, fts)  # the file has no content any more
            report.removed.append(previous.path)
        report.skipped.append((display, shown(result.reason)))
        report.skip_counts[result.kind] = report.skip_counts.get(result.kind, 0) + 1
    elif isinstance(result, ParseFailure):
        record_problem(conn, display, uri, "error", result.error.message, result.file_stat)
        report.failed.append((display, shown(result.error.message)))
    elif isinstance(result, IngestError):
        record_problem(conn, display, uri, "error", result.message)
        report.failed.append((display, shown(result.message)))
    elif isinstance(result, Unchanged):
        conn.execute(
            "UPDATE documents SET mtime = ?, mtime_ns = ?, path = ? WHERE uri = ?",
            (
                result.mtime_ns / 1e9 if result.mtime_ns else None,
                result.mtime_ns,
                display,
                uri,
            ),
        )
        report.unchanged += 1
    elif isinstance(result, Parsed):
        replace_document(conn, result, fts)
        for warning in result.doc.warnings:
            record_problem(conn, display, uri, "warning", warning)
        # the report only once every row is written: a failure above is reported instead
        (report.updated if uri in stored else report.added).append(display)
        report.warnings.extend((display, shown(w)) for w in result.doc.warnings)


def _remove_missing(
    conn: db.Connection,
    roots: list[Path],
    seen: set[str],
    unlisted: list[Path],
    unfollowed: list[Path],
    stored: dict[str, StoredDoc],
    options: IngestOptions,
    report: IngestReport,
) -> None:
    """Remove the documents under the roots whose files vanished, and those indexed through
    a symlink the policy no longer follows; count (or, with `prune`, remove) those the walk
    did not select; keep those it could not see (under directories it could not list)."""
    error_uris = [uri for (uri,) in conn.execute("SELECT DISTINCT uri FROM ingest_errors")]
    gone, stale_errors = _removals(
        roots, seen, unlisted, unfollowed, stored, options, report, error_uris
    )
    if not gone and not stale_errors:
        return
    with conn:
        for info in gone:
            delete_document(conn, info.id)
            report.removed.append(info.path)
        for uri in stale_errors:
            clear_problems(conn, uri)


def _removals(
    roots: list[Path],
    seen: set[str],
    unlisted: list[Path],
    unfollowed: list[Path],
    stored: dict[str, StoredDoc],
    options: IngestOptions,
    report: IngestReport,
    error_uris: list[str],
) -> tuple[list[StoredDoc], list[str]]:
    """What `_remove_missing` removes: (documents, URIs whose error rows go); decided from
    the walk and the disk alone, so that either engine's writer can apply it."""
    prefixes = []
    exact = set()
    for root in roots:
        absolute = shown(os.path.abspath(root))
        if root.is_dir():
            prefixes.append(absolute.rstrip("/") + "/")
        else:
            exact.add(absolute)
    blind = tuple(shown(os.path.abspath(d)).rstrip("/") + "/" for d in unlisted)
    links = {shown(os.path.abspath(link)) for link in unfollowed}
    through_links = tuple(link + "/" for link in links)

    def under_roots(uri: str) -> bool:
        return uri in exact or uri.startswith(tuple(prefixes))

    gone = []
    for uri, info in stored.items():
        if uri in seen or not under_roots(uri) or uri.startswith(blind):
            continue
        state = _on_disk(os.fsdecode(info.uri_bytes) if info.uri_bytes else uri)
        if uri in links or uri.startswith(through_links):
            gone.append(info)  # the symlink policy does not follow this path any more
        elif state == "gone" or (state == "present" and options.prune):
            gone.append(info)
        elif state == "present":
            report.outside_filters += 1
    stale_errors = [
        uri
        for uri in error_uris
        if uri not in seen and under_roots(uri) and not uri.startswith(blind)
    ]
    return gone, stale_errors


def _on_disk(uri: str) -> str:
    """'gone' (vanished), 'present', or 'unknown' (cannot tell: e.g. permission denied)."""
    try:
        os.lstat(uri)
    except (FileNotFoundError, NotADirectoryError):
        return "gone"
    except OSError:
        return "unknown"
    return "present"


def _grammar_notes(found: list[FoundFile]) -> list[str]:
    """One line per optional grammar this run needs but cannot load (files fall back to
    plain-text chunking; checked here once rather than reported for every file)."""
    languages = set()
    for item in found:
        if item.format == "code":
            language = language_for_extension(os.path.splitext(item.display)[1])
            if language is not None and is_optional(language):
                languages.add(language)
    return [reason for reason in map(unavailable_reason, sorted(languages)) if reason]


def _keep_vectors_current(
    db_path: str | Path, options: IngestOptions, report: IngestReport
) -> None:
    """Embed the passages this run added or changed, so vector search never goes stale.

    With `options.embed` the named model embeds (creating the vectors if the index has
    none); otherwise an index that already has vectors uses its own model, and loads it
    only when some passage needs a vector. A failure here is recorded like a file's: the
    indexed text stays, and the next run (or `embed`) finishes the vectors.
    """
    if options.embed is None and (not options.update_vectors or not _has_vectors(db_path)):
        # Nothing to embed: `.embed` is not even imported (it imports numpy, ~0.1 CPU s,
        # a quarter of an index run's fixed cost).
        return
    from .embed import embed_index, pending

    try:
        if options.embed is None:
            if not options.update_vectors:
                return
            model, stale = pending(db_path)
            if model is None or not stale:
                return
        report.embedding = embed_index(
            db_path, EmbedOptions(model=options.embed, progress=options.embed_progress)
        )
    except DocQLError as exc:
        report.embedding_error = exc.message


def _has_vectors(db_path: str | Path) -> bool:
    """Whether the index records an embedding model (`search.vectors.KEY_MODEL` in meta)."""
    from ..search.vectors import KEY_MODEL

    try:
        conn = db.connect(db_path, readonly=True)
    except DocQLError:
        return True  # let `embed.pending` say what is wrong, as before
    try:
        return db.get_meta(conn, KEY_MODEL) is not None
    finally:
        conn.close()
