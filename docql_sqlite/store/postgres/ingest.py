"""`index` into PostgreSQL: the file engine's walk, plan and parser processes, with a
writer that many processes (on many machines) may run against one database at once.

What is decided is decided by `ingest/run.py` (which files changed, which documents are
gone); only the writing differs (`pg/store.py`): one transaction per document under an
advisory lock on its URI instead of one transaction per batch, so concurrent writers
interleave document by document and never duplicate a row. The run's bookkeeping in
`meta` (`last_run_skipped`) is a one-row upsert (a row lock for an instant). Vectors are
kept current as on a file (`pg/embed.py`), when the index has a model.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import replace

import psycopg

from ...dialect import POSTGRES
from ...errors import DatabaseError, DocQLError, IngestError
from ...ingest.parse import ParseTask, Skipped, Unchanged, parse_task
from ...ingest.paths import shown
from ...ingest.read import SKIP_EMPTY
from ...ingest.resolve import requeue, resolve_pending, take_pending
from ...ingest.run import (
    IngestReport,
    ParseFailure,
    StoredDoc,
    _plan,
    _plan_urls,
    _removals,
    _uri,
    walk_inputs,
)
from ...ingest.store import Parsed
from ...ingest.walk import FoundFile
from ...ingest.workers import run_tasks
from ...options import EmbedOptions, IngestOptions
from . import connect as pg
from . import embed as pg_embed
from . import writer as store


def index_paths(url: str, paths: list[str], options: IngestOptions | None = None) -> IngestReport:
    """Bring the PostgreSQL index at `url` up to date with `paths` (created when empty)."""
    options = options or IngestOptions()
    started = time.monotonic()
    report = IngestReport()
    urls, roots, found, stats = walk_inputs(paths, options, report)
    conn = pg.connect(url)
    conn.autocommit = True  # every unit of work below is its own conn.transaction()
    try:
        store.prepare(conn)
        stored = store.stored_documents(conn)
        # The failed-file memo, as on a file: a file that failed to parse and has not
        # changed since (size and mtime) is not parsed again, unless retry_failed.
        failed_before = {} if options.retry_failed else store.failed_files(conn)
        plan = _plan(found, stored, failed_before, options, report)
        tasks = plan.tasks + _plan_urls(urls, stored, options)
        seen = plan.seen
        # The parser processes build the tsvector literals too (the writer only sends rows).
        tasks = [(item, task and replace(task, tsvectors=True)) for item, task in tasks]
        for old, new, raw in plan.moved:
            with conn.transaction():
                store.move(conn, old, new, raw)
        for path, uri in plan.renamed:
            with conn.transaction():
                store.rename(conn, path, uri)
        _run(conn, tasks, stored, options, report)
        if options.remove_missing:
            unlisted = [item.path for item in found if item.error is not None]
            unfollowed = [item.path for item in found if item.skipped is not None]
            gone, stale_errors = _removals(
                roots, seen, unlisted, unfollowed, stored, options, report, store.error_uris(conn)
            )
            uri_of = {id(info): uri for uri, info in stored.items()}
            for info in gone:
                with conn.transaction():
                    store.lock_uri(conn, uri_of[id(info)])
                    store.delete_document(conn, uri_of[id(info)])
                report.removed.append(info.path)
            for uri in stale_errors:
                with conn.transaction():
                    store.lock_uri(conn, uri)
                    store.clear_problems(conn, uri)
        _resolve(conn)
        counts = Counter(stats.counts)
        counts.update(report.skip_counts)
        report.skip_counts = dict(sorted(counts.items()))
        with conn.transaction():
            pg.set_meta(conn, "last_run_skipped", json.dumps(report.skip_counts))
    except psycopg.Error as exc:
        raise DatabaseError(
            f"writing to {pg.safe_url(url)} failed: {pg.first_line(exc)}; every document "
            f"committed before this is kept: run the same index command again to finish"
        ) from None
    finally:
        conn.close()
    _keep_vectors_current(url, options, report)
    report.seconds = time.monotonic() - started
    return report


def _resolve(conn: psycopg.Connection) -> None:
    """The resolution pass of ingest/resolve.py, one writer at a time (a session lock):
    the queue is taken and committed first, so writers still writing never wait on the
    pass's locks (the pass resolves; they only queue)."""
    conn.execute("SELECT pg_advisory_lock(%s, 1)", (store.SETUP_LOCK,))
    try:
        with conn.transaction():
            names = take_pending(conn, POSTGRES)
        try:
            with conn.transaction():
                resolve_pending(conn, names, POSTGRES)
        except BaseException:
            with conn.transaction():
                requeue(conn, names, POSTGRES)
            raise
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s, 1)", (store.SETUP_LOCK,))


def _run(
    conn: psycopg.Connection,
    tasks: list[tuple[FoundFile, ParseTask | None]],
    stored: dict[str, StoredDoc],
    options: IngestOptions,
    report: IngestReport,
) -> None:
    for item, task in tasks:
        if task is None:  # a directory that could not be listed
            _write(
                conn,
                item,
                IngestError(item.error or "cannot be walked", shown(item.display)),
                stored,
                report,
            )
    runnable = [(item, task) for item, task in tasks if task is not None]
    total = len(runnable)
    done = 0
    for (item, task), result in run_tasks(
        parse_task,
        ((pair, pair[1]) for pair in runnable),
        min(options.workers, total),
        options.timeout,
    ):
        if isinstance(result, IngestError):  # recorded with the file as it was parsed
            result = ParseFailure(result, task.file_stat)
        done += 1
        if options.progress:
            options.progress(done, total, shown(item.display))
        _write(conn, item, result, stored, report)


def _write(
    conn: psycopg.Connection,
    item: FoundFile,
    result: object,
    stored: dict[str, StoredDoc],
    report: IngestReport,
) -> None:
    """One file in one transaction, under its URI's lock; a file whose rows cannot be
    written is recorded as failed (in a transaction of its own) and the run goes on."""
    display = shown(item.display)
    uri = shown(result.uri) if isinstance(result, (Parsed, Unchanged)) else _uri(item)
    try:
        # Pipelined: the statements go out without waiting for each other's answers; the
        # document's upsert (its ids) is the one answer waited for before the commit.
        with conn.pipeline(), conn.transaction():
            store.lock_uri(conn, uri)
            store.clear_problems(conn, uri)
            outcome = _write_one(conn, display, uri, result, stored)
    except psycopg.OperationalError:
        raise  # the connection or the server: the run stops (index_paths says how to resume)
    except (psycopg.Error, ValueError) as exc:  # this file's rows: recorded, the run goes on
        reason = f"could not be stored: {type(exc).__name__}: {pg.first_line(exc)}"
        with conn.transaction():
            store.lock_uri(conn, uri)
            store.clear_problems(conn, uri)
            store.record_problem(conn, display, uri, "error", reason)
        report.failed.append((display, reason))
        return
    _report(report, display, uri, result, stored, outcome)


def _write_one(
    conn: psycopg.Connection,
    display: str,
    uri: str,
    result: object,
    stored: dict[str, StoredDoc],
) -> bool:
    """Write what `result` says about `uri`; True when a stored document was removed."""
    if isinstance(result, Skipped):
        if stored.get(uri) is not None and result.kind == SKIP_EMPTY:
            store.delete_document(conn, uri)  # the file has no content any more
            return True
    elif isinstance(result, ParseFailure):
        store.record_problem(conn, display, uri, "error", result.error.message, result.file_stat)
    elif isinstance(result, IngestError):
        store.record_problem(conn, display, uri, "error", result.message)
    elif isinstance(result, Unchanged):
        store.touch(conn, uri, result.mtime_ns, display)
    elif isinstance(result, Parsed):
        store.replace_document(conn, result)
        for warning in result.doc.warnings:
            store.record_problem(conn, display, uri, "warning", warning)
    return False


def _report(
    report: IngestReport,
    display: str,
    uri: str,
    result: object,
    stored: dict[str, StoredDoc],
    removed: bool,
) -> None:
    """The report of one committed file (as `ingest.run._write_one` reports it)."""
    if isinstance(result, Skipped):
        previous = stored.get(uri)
        if removed and previous is not None:
            report.removed.append(previous.path)
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


def _keep_vectors_current(url: str, options: IngestOptions, report: IngestReport) -> None:
    """As `ingest.run._keep_vectors_current`: embed what this run changed, when the index
    has a model (or `options.embed` names one); a failure is recorded, the text stays."""
    try:
        if options.embed is None:
            if not options.update_vectors:
                return
            model, stale = pg_embed.pending(url)
            if model is None or not stale:
                return
        report.embedding = pg_embed.embed_index(
            url, EmbedOptions(model=options.embed, progress=options.embed_progress)
        )
    except DocQLError as exc:
        report.embedding_error = exc.message
