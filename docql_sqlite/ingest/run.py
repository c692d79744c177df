"""`index`: bring an index up to date with a set of paths, incrementally and idempotently.

The one driver for both engines: walk → plan (pure: decided from the walk, the disk and
what the index holds) → parser processes → the store's writer (`store/writer.py`), which
writes in its engine's way (SQLite: one transaction per batch of documents; PostgreSQL:
one per document, under a lock on its URI, with other writers at once). The index is
opened once per run (`open_store`), its vectors kept current through the same store.

Unchanged files are skipped by size + mtime, then by content hash; changed files are
parsed in worker processes and their rows replaced atomically (an interrupted run leaves
every file either old or new). Failures are recorded per file and never stop the run: a
file whose rows cannot be written is rolled back alone and recorded. Only errors about
the index as a whole (disk full, I/O, corruption, a lost server) stop a run, with a
message that says how to recover.

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
At the end of a run on a file the WAL is checkpointed into the main file.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import DocQLError, IngestError, UsageError
from ..options import EmbedOptions, IngestOptions
from ..schema import KEY_MODEL
from ..store import Store, open_store, start_check
from ..store.writer import DocumentNotStored, FailedFiles, Parsed, StoredDoc, Writer
from .formats import SNIFF, decompressed_name, extension_of, format_for_path, formats
from .grammars import is_optional, language_for_extension, unavailable_reason
from .parse import (
    ParseTask,
    Skipped,
    Unchanged,
    content_rules,
    parse_for_writer,
    rules_fingerprint,
    warm_up,
)
from .paths import is_url, raw_bytes, shown
from .read import NO_DOCUMENT, SKIP_EMPTY, SKIP_REDIRECT, SKIP_TOO_LARGE, UNREADABLE
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
# `meta`: the content rules (`parse.rules_fingerprint`) the failed-file memo was kept under.
FAILURES_RULES_KEY = "failures_content_rules"
_FAILED_UNCHANGED_REASON = (
    "failed before and unchanged since: not parsed again (its error is in `status --errors`; "
    "--retry-failed parses it again)"
)
_FILE_SKIP_KINDS = (
    SKIP_EMPTY,
    SKIP_REDIRECT,
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
    selects under them (with its counts); grammar notes go to `report`."""

    urls = [p for p in paths if is_url(p)]
    roots = [Path(p) for p in paths if not is_url(p)]
    for root in roots:
        if not root.exists() and not root.is_symlink():
            # The request, not a file, is wrong (exit 2: fix the command), and nothing is
            # indexed: a mistyped or unmounted root must not read as its files removed.
            raise UsageError(f"no such file or directory: '{root}'")
    walk_options = WalkOptions(
        include=options.include,
        exclude=options.exclude,
        hidden=options.hidden,
        ignore_files=options.ignore_files,
        follow_symlinks=options.follow_symlinks,
        decompress=options.decompress,
    )
    stats = WalkStats()
    found = list(walk(roots, walk_options, stats))
    report.notes.extend(_grammar_notes(found))
    return urls, roots, found, stats


def resolve_pending(conn: Any, names: set[str], staged: list[tuple[int, str]], dialect: Any) -> int:
    """The reference pass of `resolve.py`, whose module (~25 ms to import) is loaded only
    when a run has references or names to resolve: a run over prose, or one that changed
    nothing, has none."""
    if not names and not staged:
        return 0
    from .resolve import resolve_pending as run_pass

    return run_pass(conn, names, staged, dialect)


def index_paths(
    location: str | Path, paths: list[str], options: IngestOptions | None = None
) -> IngestReport:
    """Bring the index at `location` (a file path, created when missing, or a
    postgresql:// URL) up to date with `paths`. The index is opened once, and its
    vectors kept current through the same store."""
    options = options or IngestOptions()
    started = time.monotonic()
    report = IngestReport()
    # The file's structure is checked while the walk runs (store.start_check).
    checked = start_check(location)
    try:
        urls, roots, found, stats = walk_inputs(paths, options, report)
        store = open_store(location, readonly=False, checked=checked)
    except BaseException:
        if checked is not None:
            checked.stop()  # no writer will take its verdict
        raise
    try:
        writer = store.writer()
        with writer.run_errors():
            _index(writer, urls, roots, found, stats, options, report)
        _keep_vectors_current(store, options, report)
    finally:
        store.close()
    report.seconds = time.monotonic() - started
    return report


def _index(
    writer: Writer,
    urls: list[str],
    roots: list[Path],
    found: list[FoundFile],
    stats: WalkStats,
    options: IngestOptions,
    report: IngestReport,
) -> None:
    writer.prepare(trigram=options.trigram)
    # A file that failed under other content rules (an older version of the parsers) is
    # tried again once: the rules that changed may be what made it fail (nbformat 3
    # notebooks failed "corrupt notebook" until notebook.py read them).
    rules = rules_fingerprint()
    new_rules = writer.meta(FAILURES_RULES_KEY) != rules
    failed_before = {} if options.retry_failed or new_rules else writer.failed_files()
    stored_before = writer.stored_documents()
    long_lines = writer.meta(LONG_LINES_KEY) != LONG_LINES
    if long_lines:
        stored_before = _long_lines_again(writer, stored_before)
    sniffed = writer.meta(SNIFFED_KEY) != SNIFFED
    if sniffed:
        stored_before = _sniffed_again(stored_before)
    named = dict(sorted(formats().extensions.items()))
    named_text = json.dumps(named, separators=(",", ":"))
    named_before = writer.meta(NAMED_KEY)
    renamed_formats = named_before != named_text
    if renamed_formats:
        stored_before = _named_again(stored_before, named_before, named)
    planned = plan(found, stored_before, failed_before, options)
    planned.report_to(report)
    stored = planned.stored
    writer.move_documents(planned.moved)
    writer.rename_documents(planned.renamed)
    tasks = planned.tasks + plan_urls(urls, stored, options)
    _run(writer, tasks, stored, options, report)
    if options.remove_missing:
        unlisted = [item.path for item in found if item.error is not None]
        unfollowed = [item.path for item in found if item.skipped is not None]
        gone = removals(
            roots, planned.seen, unlisted, unfollowed, stored, options, writer.error_uris()
        )
        report.outside_filters += gone.outside_filters
        _remove(writer, gone, stored, report)
    # After every write of the run: a changed file can change what references in
    # unchanged files resolve to (resolve.py).
    writer.resolve_references(resolve_pending)
    counts = Counter(stats.counts)
    counts.update(report.skip_counts)
    report.skip_counts = dict(sorted(counts.items()))
    writer.set_meta("last_run_skipped", json.dumps(report.skip_counts))
    if new_rules:
        writer.set_meta(FAILURES_RULES_KEY, rules)
    if long_lines:
        writer.set_meta(LONG_LINES_KEY, LONG_LINES)
    if sniffed:
        writer.set_meta(SNIFFED_KEY, SNIFFED)
    if renamed_formats:
        writer.set_meta(NAMED_KEY, named_text)
    writer.finish()


# Lines over 16 KB are cut into pieces of about equal length (`chunk.split_long_line`,
# session 26), each long enough for search to know it for a line of data
# (`passage_text.long_line`); fixed windows left a last piece of any length, a passage
# that held hundreds of a generated index's words. A document chunked before is parsed
# again, once per index: its format's content rules did not change for so rare a case.
LONG_LINES_KEY = "long_lines"
LONG_LINES = "equal-pieces"


def _long_lines_again(writer: Writer, stored: dict[str, StoredDoc]) -> dict[str, StoredDoc]:
    """`stored` with the documents that hold a line of 8 KB or more marked for a new
    parse (no content rules recorded)."""
    again = writer.long_line_documents()
    if not again:
        return stored
    return {
        uri: info._replace(content_rules=None) if info.id in again else info
        for uri, info in stored.items()
    }


# What a document named with no format of ours is read as comes from its first bytes
# (`formats.sniff_format`): when that rule changes, such documents are parsed again once
# per index, whatever their format's content rules. "org-mode-line": a first line naming
# Emacs's Org mode (GnuPG's `DETAILS.gz`, read as Markdown before) is Org.
SNIFFED_KEY = "sniffed_formats"
SNIFFED = "org-mode-line"


def _sniffed_again(stored: dict[str, StoredDoc]) -> dict[str, StoredDoc]:
    """`stored` with the documents whose format was sniffed marked for a new parse."""
    return {
        uri: info._replace(content_rules=None)
        if "://" not in info.path and format_for_path(info.path, decompress=True) in (None, SNIFF)
        else info
        for uri, info in stored.items()
    }


# What a document's name says it is comes from the registered extensions (`formats()`,
# a plugin's included): when an extension comes to name another format — an upgrade that
# reads `.rdoc` as RDoc where it was text (rack's `README.rdoc`), a plugin installed or
# removed — the documents so named and stored in another format are parsed again, once;
# the map is kept in `meta` to tell. (An index from before the map was kept has every
# such document parsed again once: those whose format is not their name's, such as a
# `.txt` file that is AsciiDoc, come back as they were.)
NAMED_KEY = "formats_by_extension"


def _named_again(
    stored: dict[str, StoredDoc], before: str | None, new: dict[str, str]
) -> dict[str, StoredDoc]:
    """`stored` with the documents whose extension names another format than it did
    (`before`: the map as `meta` kept it, JSON; `new`: extension → format now) and
    another than the one stored marked for a new parse."""
    try:
        old = json.loads(before) if before else {}
    except ValueError:
        old = {}
    changed = {ext for ext in old.keys() | new.keys() if old.get(ext) != new.get(ext)}

    def again(info: StoredDoc) -> bool:
        if "://" in info.path or extension_of(decompressed_name(info.path)) not in changed:
            return False
        named = format_for_path(info.path, decompress=True)
        return named not in (None, SNIFF) and named != info.format

    return {
        uri: info._replace(content_rules=None) if again(info) else info
        for uri, info in stored.items()
    }


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
    """What a run will do, decided before anything is written, from the walk, the disk
    and what the index holds (`plan`): the writer then writes it, on either engine."""

    tasks: list[tuple[FoundFile, ParseTask | None]]
    seen: set[str]  # the URIs found
    renamed: list[tuple[str, str]]  # (path, uri): an unchanged file now shown under another path
    # (old uri, new uri, new uri_bytes): a document whose folder moved (`_moved_here`).
    moved: list[tuple[str, str, bytes | None]] = field(default_factory=list)
    # What the index holds by URI once the moves are made (the moved under their new URIs).
    stored: dict[str, StoredDoc] = field(default_factory=dict)
    unchanged: int = 0  # files skipped as unchanged (size and mtime)
    # unchanged files parsed again: their format's content rules or the chunk size changed
    reread: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    skip_counts: dict[str, int] = field(default_factory=dict)

    def report_to(self, report: IngestReport) -> None:
        """Add what the plan already knows (unchanged and skipped files) to `report`, and
        why unchanged files were parsed again (after an upgrade, every file of a format
        whose reading changed is "updated": the note says it is not the files)."""
        report.unchanged += self.unchanged
        if self.reread:
            report.notes.append(
                f"{self.reread} unchanged file{'s' * (self.reread != 1)} parsed again: this "
                "version reads their format otherwise, or --chunk-chars changed"
            )
        report.skipped.extend(self.skipped)
        for kind, n in self.skip_counts.items():
            report.skip_counts[kind] = report.skip_counts.get(kind, 0) + n


def plan(
    found: list[FoundFile],
    stored: dict[str, StoredDoc],
    failed_before: FailedFiles,
    options: IngestOptions,
) -> Plan:
    """The parse tasks, the URIs seen, the renamed and the moved documents, from the walk
    (`found`), the disk (sizes and mtimes) and what the index holds (`stored`, left as
    it is: `Plan.stored` is it after the moves). `failed_before`: the failed-file memo
    (`Writer.failed_files`), empty to parse every failed file again."""
    stored = dict(stored)
    result = Plan([], set(), [], stored=stored)
    tasks, seen, renamed = result.tasks, result.seen, result.renamed
    by_path: dict[str, str] | None = None
    for item in found:
        uri = uri_of(item)
        if uri in seen:  # the same file under two of the given paths
            continue
        seen.add(uri)
        if uri not in stored and item.error is None and item.skipped is None:
            if by_path is None:
                by_path = {info.path: old for old, info in stored.items()}
            old = _moved_here(by_path.get(shown(item.display)), stored)
            if old is not None:
                stored[uri] = stored.pop(old)
                result.moved.append((old, uri, raw_bytes(os.path.abspath(item.path))))
        if item.error is not None:  # an unreadable directory: recorded, nothing to parse
            tasks.append((item, None))
            continue
        if item.skipped is not None:  # a symlink the policy does not follow
            result.skipped.append((shown(item.display), item.skipped))
            seen.discard(uri)  # a document indexed through it before is removed
            continue
        previous = _current(stored.get(uri), options)
        try:
            st = item.path.stat()
        except OSError:
            st = None
        file_stat = (st.st_size, st.st_mtime_ns) if st is not None else None
        if previous is not None and file_stat == (previous.size, previous.mtime_ns):
            result.unchanged += 1
            if previous.path != shown(item.display):
                renamed.append((shown(item.display), uri))
            continue
        if previous is None and uri in stored:
            held = stored[uri]
            result.reread += file_stat == (held.size, held.mtime_ns)
        if file_stat is not None and _fails_again(failed_before.get(uri), file_stat, options):
            # It would fail again (perhaps after a long timeout): its error row stays.
            result.skipped.append((shown(item.display), _FAILED_UNCHANGED_REASON))
            result.skip_counts[SKIP_FAILED_UNCHANGED] = (
                result.skip_counts.get(SKIP_FAILED_UNCHANGED, 0) + 1
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
            decompress=options.decompress,
        )
        tasks.append((item, task))
    return result


def _moved_here(old: str | None, stored: dict[str, StoredDoc]) -> str | None:
    """The URI of the stored document a newly found file replaces, when its folder was
    moved or copied with its index (a checkout cloned elsewhere, an index copied to another
    machine): the same shown path (relative to where the command runs, as typed), and the
    old file no longer exists. Without this every document would be indexed twice, once
    per place. Two checkouts that both exist stay two sets of documents."""
    if old is None:
        return None

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


def plan_urls(
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


def uri_of(item: FoundFile) -> str:
    """The identity of a found file as stored: absolute path (escaped, see `paths`) or URL."""

    return item.display if is_url(item.display) else shown(os.path.abspath(item.path))


def _run(
    writer: Writer,
    tasks: list[tuple[FoundFile, ParseTask | None]],
    stored: dict[str, StoredDoc],
    options: IngestOptions,
    report: IngestReport,
) -> None:
    """Parse the tasks in worker processes and write what they give back, in batches
    where the writer takes several documents per transaction, else one by one."""
    batch: list[tuple[FoundFile, object]] = [
        (item, IngestError(item.error or "cannot be walked", shown(item.display)))
        for item, task in tasks
        if task is None
    ]
    runnable = [(item, task) for item, task in tasks if task is not None]
    if writer.wants_tsvectors:  # built by the parser processes: the writer only sends rows
        runnable = [(item, replace(task, tsvectors=True)) for item, task in runnable]
    total = len(runnable)
    limit = options.batch_docs if writer.batch_documents else 1
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
    for (item, task), result in results:
        if isinstance(result, IngestError):  # recorded with the file as it was parsed
            result = ParseFailure(result, task.file_stat)
        done += 1
        if options.progress:
            options.progress(done, total, shown(item.display))
        batch.append((item, result))
        if len(batch) >= limit or time.monotonic() - batch_started > options.batch_seconds:
            _write_batch(writer, batch, stored, report)
            batch, batch_started = [], time.monotonic()
    if batch:
        _write_batch(writer, batch, stored, report)


def _write_batch(
    writer: Writer,
    batch: list[tuple[FoundFile, object]],
    stored: dict[str, StoredDoc],
    report: IngestReport,
) -> None:
    """Each file's rows replaced whole or not at all (`Writer.document`); a file whose
    rows cannot be written is recorded as failed and the run goes on."""
    with writer.batch():
        for item, result in batch:
            display = shown(item.display)
            uri = shown(result.uri) if isinstance(result, (Parsed, Unchanged)) else uri_of(item)
            try:
                with writer.document(uri):
                    writer.clear_problems(uri)
                    removed = _write_one(writer, display, uri, result, stored)
            except DocumentNotStored as failure:
                with writer.document(uri):
                    writer.clear_problems(uri)
                    writer.record_problem(display, uri, "error", shown(failure.reason))
                report.failed.append((display, failure.reason))
            else:
                # reported once every row is written: a failure above is reported instead
                _report(report, display, uri, result, stored, removed)


def _write_one(
    writer: Writer, display: str, uri: str, result: object, stored: dict[str, StoredDoc]
) -> bool:
    """Write what `result` says about `uri`; True when a stored document was removed."""
    if isinstance(result, Skipped):
        if uri in stored and result.kind in NO_DOCUMENT:
            writer.delete_document(uri)  # the file has no content (or page) any more
            return True
    elif isinstance(result, ParseFailure):
        message = shown(result.error.message)
        writer.record_problem(display, uri, "error", message, result.file_stat)
    elif isinstance(result, IngestError):
        writer.record_problem(display, uri, "error", shown(result.message))
    elif isinstance(result, Unchanged):
        writer.touch(uri, result.mtime_ns, display)
    elif isinstance(result, Parsed):
        writer.replace_document(result)
        for warning in result.doc.warnings:
            writer.record_problem(display, uri, "warning", shown(warning))
    return False


def _report(
    report: IngestReport,
    display: str,
    uri: str,
    result: object,
    stored: dict[str, StoredDoc],
    removed: bool,
) -> None:
    """The report of one written file."""
    if isinstance(result, Skipped):
        if removed:
            report.removed.append(stored[uri].path)
        report.skipped.append((display, shown(result.reason)))
        report.skip_counts[result.kind] = report.skip_counts.get(result.kind, 0) + 1
    elif isinstance(result, ParseFailure):
        report.failed.append((display, shown(result.error.message)))
    elif isinstance(result, IngestError):
        report.failed.append((display, shown(result.message)))
    elif isinstance(result, Unchanged):
        report.unchanged += 1
    elif isinstance(result, Parsed):
        (report.updated if uri in stored else report.added).append(display)
        report.warnings.extend((display, shown(w)) for w in result.doc.warnings)


def _remove(
    writer: Writer, gone: Removals, stored: dict[str, StoredDoc], report: IngestReport
) -> None:
    """Remove the documents `removals` found gone, and the error rows of vanished files."""
    if not gone.documents and not gone.errors:
        return
    with writer.batch():
        for uri in gone.documents:
            try:
                with writer.document(uri):
                    writer.delete_document(uri)
            except DocumentNotStored as failure:  # kept, and said: the next run tries again
                report.failed.append((stored[uri].path, failure.reason))
            else:
                report.removed.append(stored[uri].path)
        for uri in gone.errors:
            with writer.document(uri):
                writer.clear_problems(uri)


@dataclass(frozen=True, slots=True)
class Removals:
    """What an index run removes (`removals`)."""

    documents: list[str]  # URIs of the documents to remove
    errors: list[str]  # URIs whose error rows go
    outside_filters: int  # documents kept that this run's filters did not select


def removals(
    roots: list[Path],
    seen: set[str],
    unlisted: list[Path],
    unfollowed: list[Path],
    stored: dict[str, StoredDoc],
    options: IngestOptions,
    error_uris: list[str],
) -> Removals:
    """The documents under the roots whose files vanished, and those indexed through a
    symlink the policy no longer follows; those the walk did not select are counted (or,
    with `prune`, removed); those it could not see (under directories it could not list)
    are kept. Decided from the walk and the disk alone."""
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
    outside = 0
    for uri, info in stored.items():
        if uri in seen or not under_roots(uri) or uri.startswith(blind):
            continue
        state = _on_disk(os.fsdecode(info.uri_bytes) if info.uri_bytes else uri)
        if uri in links or uri.startswith(through_links):
            gone.append(uri)  # the symlink policy does not follow this path any more
        elif state == "gone" or (state == "present" and options.prune):
            gone.append(uri)
        elif state == "present":
            outside += 1
    stale_errors = [
        uri
        for uri in error_uris
        if uri not in seen and under_roots(uri) and not uri.startswith(blind)
    ]
    return Removals(gone, stale_errors, outside)


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


def _keep_vectors_current(store: Store, options: IngestOptions, report: IngestReport) -> None:
    """Embed the passages this run added or changed, so vector search never goes stale.

    With `options.embed` the named model embeds (creating the vectors if the index has
    none); otherwise an index that already has vectors uses its own model, and loads it
    only when some passage needs a vector. A failure here is recorded like a file's: the
    indexed text stays, and the next run (or `embed`) finishes the vectors.
    """
    try:
        if options.embed is None and (not options.update_vectors or not store.meta(KEY_MODEL)):
            # Nothing to embed: `.embed` is not even imported (it imports numpy, ~0.1 CPU
            # s, a quarter of an index run's fixed cost).
            return
        from .embed import drop_textless_vectors, embed_store, pending

        if options.embed is None:
            model, stale = pending(store)
            if model is None or not stale:
                if model is not None:  # once per index embedded before the rule
                    drop_textless_vectors(store)
                return
        report.embedding = embed_store(
            store, EmbedOptions(model=options.embed, progress=options.embed_progress)
        )
    except DocQLError as exc:
        report.embedding_error = exc.message
