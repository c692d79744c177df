"""The MCP tools as plain Python over an `Index`: arguments in, a `Reply` (text and the
same answer as structured data) out.

Output is sized for a context window: every reply's final text stays within `CHAR_CAP`
characters and ends with "N more — call again with offset=K" (or `from=K` for lines)
when something was left out. Every result carries a location (`path:line-end_line`) that
`get` reads back. Errors are replies too (`is_error`), worded so that a model can fix its
call: a bad DocQL query carries the caret message and a hint.

Every call borrows a read-only connection from a pool (`readers.ReaderPool`) for its
lane — quick (status, one location, one outline) or heavy (queries, searches, globs) —
and runs under the per-call deadline (`limits.call_seconds`) with its arguments checked
against their caps first (`limits`). Nothing here imports the MCP SDK; `server.py`
turns these methods into tools and schedules them on worker threads (`lanes.py`).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from .. import (
    DocQLError,
    Excerpt,
    Index,
    QueryError,
    SearchOptions,
    deadline,
    errors,
    globs,
    settings,
)
from ..output import outline_entries
from . import limits
from .limits import (
    CHAR_CAP,
    MAX_GLOB_CHARS,
    MAX_INTENT_CHARS,
    MAX_OFFSET,
    MAX_PATH_CHARS,
    MAX_PATHS,
    MAX_QUERY_CHARS,
    MAX_QUERY_LIMIT,
    MAX_SEARCH_LIMIT,
    RESOURCE_CHAR_CAP,
    check_list,
    check_text,
)
from .readers import ReaderPool

log = logging.getLogger(__name__)

FIELD_CAP = 8_000  # a longer text field of one item is cut (the location reads it whole)
HIT_CAP = 2_000  # characters of passage text per search hit
MAX_BUDGET = CHAR_CAP  # a context pack is one reply
MAX_MAP_BUDGET = CHAR_CAP // 4  # repo_map tokens: a map is one reply
# Room kept for a page's header and its "N more — call again" line.
TAIL_ROOM = 200
PAGE_BUDGET = CHAR_CAP - TAIL_ROOM
# Results a `docql_query` page fetches at most: a page of 20,000 characters holds fewer
# (an item is at least ~20 characters), so the rest are never built (memory).
FETCH_CAP = 1_000
# List answers show long text fields as their first line, this long (`bodies=true` for
# the whole text).
PREVIEW_CHARS = 100
BODY_FIELDS = ("content", "source", "docstring", "definition", "snippet", "code", "match")
LOCATED_FIELDS = ("path", "line", "end_line")
# "0" runs each search on one thread (no sidecar connection): for comparing, or for a
# machine with one core.
PARALLEL_ENV = settings.PARALLEL_SEARCH.name
GLOB_CHARACTERS = ("*", "?")

QUICK, HEAVY = "quick", "heavy"  # the lanes (`lanes.py` gives each its worker threads)

QUERY_HINT = (
    "hint: fix the query at the caret and call again. Queries start at a root: "
    '$.toc[?(@.level<=2)], $.content.heading("kw"), $.content.chapter("1.2"), '
    '$.content.grep("text"), $.code.class("Name"), $.entities, $.files'
)


@dataclass(frozen=True, slots=True)
class Reply:
    """What one tool call returns: text for the model, the same answer as data (the
    tool's structured content, `outputs.py`), and whether it is an error."""

    text: str
    is_error: bool = False
    data: dict[str, Any] | None = field(default=None)


def more(remaining: int, what: str, argument: str, value: int) -> str:
    return f"{remaining} more {what} — call again with {argument}={value}"


def fit(reply: Reply, cap: int = CHAR_CAP) -> Reply:
    """The one cap on the final text. Each tool pages within it; this is the guarantee
    for what a tool did not foresee (a header longer than its room)."""
    if len(reply.text) <= cap:
        return reply
    note = f"\n…[reply cut at {cap} characters]"
    return Reply(reply.text[: cap - len(note)] + note, reply.is_error, reply.data)


def with_location(item: Any) -> Any:
    """A result item with a `location` that `get` reads (sections lack one)."""
    if isinstance(item, dict) and "location" not in item and item.get("path"):
        line, end = item.get("line"), item.get("end_line")
        if isinstance(line, int):
            where = f":{line}" if end in (None, line) else f":{line}-{end}"
            item = {**item, "location": item["path"] + where}
    return item


def cut_fields(item: Any, field_cap: int = FIELD_CAP) -> Any:
    """An item with its text fields over `field_cap` cut, each saying where to read it."""
    # Most items have no long field: look before copying the item to cut one.
    if not isinstance(item, dict) or not any(
        isinstance(v, str) and len(v) > field_cap for v in item.values()
    ):
        return item
    where = item.get("location", item.get("path", ""))
    return {
        key: value[:field_cap] + f"…[cut at {field_cap} characters; get {where}]"
        if isinstance(value, str) and len(value) > field_cap
        else value
        for key, value in item.items()
    }


def compact(item: Any) -> Any:
    """A list answer's item: its long text fields (BODY_FIELDS) as their first line, cut at
    PREVIEW_CHARS and ending in "…" when there is more (`bodies=true`, or `get` at the
    item's location, gives the whole text); without the fields its location repeats
    (path, line, end_line) and without empty ones."""
    if not isinstance(item, dict):
        return item
    short = {}
    located = isinstance(item.get("location"), str)
    for key, value in item.items():
        # The location holds the path and the lines; an empty field says nothing.
        if value is None or (located and key in LOCATED_FIELDS):
            continue
        if key in BODY_FIELDS and isinstance(value, str):
            first = value.strip().split("\n", 1)[0]
            if len(first) > PREVIEW_CHARS or len(first) < len(value.strip()):
                value = first[:PREVIEW_CHARS].rstrip() + "…"
        short[key] = value
    return short


def render_item(item: Any) -> str:
    """One result as one line of JSON."""
    return json.dumps(item, ensure_ascii=False, default=str)


def paged(
    blocks: Iterable[str],
    total: int,
    offset: int,
    what: str,
    argument: str = "offset",
    budget: int = PAGE_BUDGET,
    separator: int = 1,
) -> tuple[list[str], str]:
    """The blocks that fit in `budget` (at least one), and the "N more" line if any."""
    kept: list[str] = []
    used = 0
    for block in blocks:
        if kept and used + len(block) + separator > budget:
            break
        kept.append(block)
        used += len(block) + separator
    shown = offset + len(kept)
    tail = more(total - shown, what, argument, shown) if shown < total else ""
    return kept, tail


def clamp(value: int | None, low: int, high: int, default: int | None) -> int | None:
    if value is None:
        return default
    return max(low, min(high, value))


def is_glob(path: str) -> bool:
    return any(c in path for c in GLOB_CHARACTERS)


def glob_paths(idx: Index, pattern: str) -> list[str]:
    """The indexed paths that match the glob `pattern`, in path order — the one place the
    MCP server matches a glob. The dialect is `globs.to_regex`; the matching runs
    in the `regex` engine with the call's time left as its timeout and the GIL released,
    so a pathological pattern (`**/` x 200,000, `*` x 200) ends at the deadline instead of
    holding the server (issue 20 §4); the pattern's length is capped before (limits)."""
    import regex

    check_text("path", pattern, MAX_GLOB_CHARS)
    try:
        compiled = regex.compile(globs.to_regex(pattern), regex.DOTALL | regex.V0)
    except regex.error as exc:
        raise DocQLError(f"'{pattern}' is not a valid glob ({exc})") from None
    found = []
    for doc in idx.documents():
        left = deadline.remaining() or limits.call_seconds()  # raises when out of time
        try:
            hit = compiled.match(doc["path"], timeout=left, concurrent=True)
        except TimeoutError:
            raise deadline.timed_out(limits.call_seconds()) from None
        if hit is not None:
            found.append(doc["path"])
    return found


class Tools:
    """The tools over pools of read-only `Index` connections (reopened after `--watch`
    re-indexes, and when the file is replaced)."""

    def __init__(
        self, db_path: str, heavy_workers: int | None = None, parallel: bool | None = None
    ) -> None:
        self.db_path = db_path
        parallel = settings.parallel_search() if parallel is None else parallel
        self._vectors: Any = None  # one in-memory copy of the vectors for every heavy reader

        def heavy() -> Index:
            # A server answers many searches: the vectors are worth holding in memory, and
            # a sidecar connection lets a search run its lists on both cores.
            idx = Index(db_path, vectors_in_memory=True, parallel_search=parallel)
            idx.store.hold_pages(limits.SEARCH_PAGES_KIB)  # and its sidecar's (`parallel`)
            if self._vectors is None:
                self._vectors = idx.vector_cache
            idx.vector_cache = self._vectors
            return idx

        def quick() -> Index:
            return Index(db_path)

        self.pools = {
            QUICK: ReaderPool(db_path, limits.QUICK_WORKERS, quick),
            HEAVY: ReaderPool(db_path, heavy_workers or limits.heavy_workers(), heavy),
        }

    def close(self) -> None:
        for pool in self.pools.values():
            pool.close()

    def reopen(self) -> None:
        """See what the writer wrote, including vectors that appeared (watch mode)."""
        for pool in self.pools.values():
            pool.reopen()

    @staticmethod
    def lane(tool: str, arguments: dict[str, Any]) -> str:
        """Which workers a call runs on: the quick lane never waits behind a slow query."""
        if tool == "status":
            return QUICK
        if tool == "get":
            path = str(arguments.get("path") or "")
            glob = is_glob(path) and arguments.get("from") is None and not arguments.get("count")
            return HEAVY if glob else QUICK
        if tool == "toc":
            path = str(arguments.get("path") or "")
            return QUICK if path and not is_glob(path) else HEAVY
        return HEAVY

    def call(
        self,
        lane: str,
        body: Callable[[Index], Reply],
        seconds: float | None = None,
        cap: int = CHAR_CAP,
    ) -> Reply:
        """Run a tool body on a connection of `lane`, under the per-call deadline (or the
        `seconds` left of it); our errors become error replies, and so does any other
        exception, named (the SDK's own reply to one was "Error executing tool get",
        which told the model nothing)."""
        # (No time left — a call that waited out its deadline for a worker — is out of
        # time at its first check; a floor of 1 ms let a quick call through or not, by
        # the machine's speed.)
        limit = seconds if seconds is not None else limits.call_seconds()
        try:
            with self.pools[lane].borrow() as idx, deadline.limit(limit):
                return fit(body(idx), cap)
        except errors.QueryTimeout as exc:
            return timeout_reply(exc)
        except QueryError as exc:
            return Reply(f"{exc}\n{QUERY_HINT}", is_error=True)
        except DocQLError as exc:
            return Reply(f"error: {exc.message}", is_error=True)
        except Exception as exc:  # a bug of ours: said, and logged with its traceback
            log.exception("a tool call failed")
            return Reply(
                f"error: the server failed on this call ({type(exc).__name__}: {exc}); "
                "this is a docql-sqlite bug, not a mistake in your call: try other "
                "arguments or another tool",
                is_error=True,
            )

    # -- the tools -------------------------------------------------------------------
    def status(self, seconds: float | None = None) -> Reply:
        def body(idx: Index) -> Reply:
            info = dict(idx.status(), has_vectors=idx.has_vectors)
            return Reply(json.dumps(info, ensure_ascii=False, indent=1), data=info)

        return self.call(QUICK, body, seconds)

    def warm_up(self) -> None:
        """Load the embedding model and the vectors (a long-lived server pays for them
        once, at start), on every heavy connection: the shared vector cache is loaded per
        connection the first time it asks."""
        pool = self.pools[HEAVY]
        with contextlib.ExitStack() as stack:
            readers = [stack.enter_context(pool.borrow()) for _ in range(pool.size)]
            for idx in readers:
                if not idx.has_vectors:
                    return
                try:
                    with deadline.limit(60.0):
                        idx.search("warm up", SearchOptions(mode="vector", limit=1))
                except DocQLError:
                    return

    def instructions_figures(self) -> tuple[dict[str, Any], bool]:
        with self.pools[QUICK].borrow() as idx:
            return idx.status(), idx.has_vectors

    def docql_query(
        self,
        query: str,
        limit: int | None = None,
        offset: int = 0,
        bodies: bool | None = None,
        seconds: float | None = None,
    ) -> Reply:
        limit = clamp(limit, 0, MAX_QUERY_LIMIT, None)
        offset = max(0, min(offset, MAX_OFFSET))

        def body(idx: Index) -> Reply:
            check_text("query", query, MAX_QUERY_CHARS)
            # One more than a page keeps (FETCH_CAP, or the caller's `limit`): that one
            # says whether more results follow, so that a page cut by `limit` names the
            # offset to call again with (it ended with no "more" line and next_offset None).
            if limit == 0:  # how many, not which: a count (it read "no results")
                return count_only(idx, query, offset)
            cap = FETCH_CAP if limit is None else min(limit, FETCH_CAP)
            found = list(idx.query(query, limit=offset + cap + 1, offset=offset))
            # More than a page can hold: counted as "over N", and never all built.
            over = len(found) > cap
            items = [with_location(i) for i in found[:cap]]
            if not items:
                note = f" at offset {offset}" if offset else ""
                return Reply(
                    f"no results for {query}{note}. Widen the filter (~= instead of ==, fewer "
                    "conditions), check names with $.files or $.toc, or use search.",
                    data=query_data(query, offset, 0, False, [], None),
                )
            whole = bodies if bodies is not None else len(items) == 1
            shaped = [cut_fields(i) if whole else compact(i) for i in items]
            blocks = [render_item(i) for i in shaped]
            if len(blocks[0]) > PAGE_BUDGET:  # one item too big for the page: cut harder
                shaped[0] = cut_fields(shaped[0], PAGE_BUDGET // 4)
                blocks[0] = render_item(shaped[0])
            kept, tail = paged(blocks, offset + len(items), offset, "results")
            shown = offset + len(kept)
            if over:  # the total is unknown: more than were fetched
                tail = f"more results — call again with offset={shown}"
            count = f"over {len(items)}" if over else str(len(items))
            plural = "s" if len(items) != 1 else ""
            head = f"{count} result{plural} from offset {offset}; showing {len(kept)}:"
            data = query_data(
                query, offset, len(items), over, shaped[: len(kept)], shown if tail else None
            )
            return Reply("\n".join([head, *kept, tail]).rstrip("\n"), data=data)

        return self.call(HEAVY, body, seconds)

    def search(
        self,
        query: str,
        mode: str = "smart",
        limit: int = 10,
        paths: list[str] | None = None,
        intent: str | None = None,
        offset: int = 0,
        seconds: float | None = None,
    ) -> Reply:
        limit = clamp(limit, 1, MAX_SEARCH_LIMIT, 10) or 10
        offset = max(0, min(offset, MAX_SEARCH_LIMIT))

        def body(idx: Index) -> Reply:
            check_text("query", query, MAX_QUERY_CHARS)
            check_text("intent", intent, MAX_INTENT_CHARS)
            check_list("paths", paths, MAX_PATHS, MAX_GLOB_CHARS)
            # The reply shows each passage whole (up to HIT_CAP): no snippets to make.
            options = SearchOptions(
                mode=mode,
                limit=offset + limit,
                paths=tuple(paths or ()),
                intent=intent or None,
                snippets=False,
            )
            found = idx.search(query, options)
            hits = found[offset:]
            if not hits and found:
                # Paged past the end: the passages exist, the offset is past them (this said
                # "no passages match", sending the model to rephrase a query that works).
                return Reply(
                    f"no more hits: {len(found)} passages match {query!r} (mode {mode}) and "
                    f"offset {offset} is past them — call again with an offset below "
                    f"{len(found)}.",
                    data={"query": query, "mode": mode, "hits": [], "next_offset": None},
                )
            documents = idx.documents() if not hits and paths else []
            in_scope = globs.matcher(paths or ())
            if documents and not any(in_scope(d["path"]) for d in documents):
                # The filter, not the words: "no passages match … try broader words" sent
                # the model to rephrase. (The search matched the same globs already.)
                example = documents[0]["path"]
                return Reply(
                    f"no indexed document matches the paths filter {list(paths or ())}, so nothing "
                    f"was searched. A glob with '/' starts at the index's root (paths look "
                    f"like {example!r}); '**/name/**' matches at any depth. Drop the filter, "
                    "or list the paths with docql_query $.files",
                    data={"query": query, "mode": mode, "hits": [], "next_offset": None},
                )
            if not hits:
                vector = " or mode='hybrid'" if idx.has_vectors else ""
                return Reply(
                    f"no passages match {query!r} (mode {mode}"
                    + (f", paths {list(paths)}" if paths else "")
                    + f"). Try fewer or broader words, a synonym or the other language{vector}, "
                    'drop the paths filter, or docql_query with $.content.grep("word").',
                    data={"query": query, "mode": mode, "hits": [], "next_offset": None},
                )
            blocks, rows = [], []
            for rank, hit in enumerate(hits, start=offset + 1):
                text = hit.get("content") or hit.get("snippet") or ""
                if len(text) > HIT_CAP:
                    text = text[:HIT_CAP] + f"…[cut; get {hit['location']} for all of it]"
                section = f" § {hit['section']}" if hit.get("section") else ""
                blocks.append(
                    f"[{rank}] {hit['location']}{section} (score {hit['score']:.4g})\n"
                    f"{text.rstrip()}"
                )
                rows.append(
                    {
                        "rank": rank,
                        "location": hit["location"],
                        "path": hit.get("path"),
                        "section": hit.get("section"),
                        "score": float(hit["score"]),
                        "text": text.rstrip(),
                    }
                )
            kept, tail = paged(blocks, offset + len(hits), offset, "hits", separator=2)
            shown = offset + len(kept)
            data = {
                "query": query,
                "mode": mode,
                "hits": rows[: len(kept)],
                "next_offset": shown if tail else None,
            }
            return Reply("\n\n".join(kept) + (f"\n\n{tail}" if tail else ""), data=data)

        return self.call(HEAVY, body, seconds)

    def get(
        self,
        path: str,
        from_: int | None = None,
        count: int | None = None,
        offset: int = 0,
        seconds: float | None = None,
    ) -> Reply:
        arguments = {"path": path, "from": from_, "count": count}

        def body(idx: Index) -> Reply:
            if self.lane("get", arguments) == HEAVY:
                return self._get_many(idx, path, max(0, offset))
            check_text("path", path, MAX_PATH_CHARS)
            if from_ is not None or count is not None:
                excerpt = idx.get(path, from_, count)
            else:
                excerpt = idx.get(path)
            return render_excerpt(excerpt)

        return self.call(self.lane("get", arguments), body, seconds)

    def _get_many(self, idx: Index, pattern: str, offset: int) -> Reply:
        """Whole documents matching a glob, in path order, a page of them at a time."""
        paths = glob_paths(idx, pattern)
        if not paths:
            return Reply(
                f"no indexed document matches {pattern!r} (`**/` spans directories, `*` stays "
                "within one); list them with docql_query $.files",
                is_error=True,
            )
        if offset >= len(paths):  # paged past the end: the reply was empty text
            return Reply(
                f"no documents at offset {offset}: {pattern!r} matches {len(paths)} "
                f"document{'s' if len(paths) != 1 else ''} — call again with an offset below "
                f"{len(paths)}",
                data={
                    "kind": "documents",
                    "documents": [],
                    "too_long": [],
                    "matched": len(paths),
                    "next_offset": None,
                },
            )
        blocks: list[str] = []
        documents: list[dict[str, Any]] = []
        too_long: list[dict[str, Any]] = []
        used, shown = 0, offset
        for path in paths[offset:]:
            deadline.remaining()  # raises when out of time
            excerpt = idx.get(path)
            text = excerpt.text.rstrip()
            block = f"=== {path} ({excerpt.total_lines} lines) ===\n{text}"
            if len(block) + 2 > PAGE_BUDGET:  # alone over a page: named, read with `get`
                block = (
                    f"=== {path} ({excerpt.total_lines} lines, {len(text)} characters: longer "
                    f"than one reply — get {path} reads it in parts) ==="
                )
                entry: dict[str, Any] | None = None
                long_entry = {"path": path, "total_lines": excerpt.total_lines, "chars": len(text)}
            else:
                entry, long_entry = (
                    {"path": path, "total_lines": excerpt.total_lines, "text": text},
                    None,
                )
            if blocks and used + len(block) + 2 > PAGE_BUDGET:
                break
            blocks.append(block)
            used += len(block) + 2
            shown += 1
            if entry is not None:
                documents.append(entry)
            if long_entry is not None:
                too_long.append(long_entry)
        tail = ""
        if shown < len(paths):
            tail = "\n\n" + more(len(paths) - shown, "documents match", "offset", shown)
        data = {
            "kind": "documents",
            "documents": documents,
            "too_long": too_long,
            "matched": len(paths),
            "next_offset": shown if shown < len(paths) else None,
        }
        return Reply("\n\n".join(blocks) + tail, data=data)

    def toc(self, path: str | None = None, offset: int = 0, seconds: float | None = None) -> Reply:
        offset = max(0, min(offset, MAX_OFFSET))

        def body(idx: Index) -> Reply:
            check_text("path", path, MAX_PATH_CHARS)
            if path and is_glob(path):
                # The outlines of the matching documents, in path order (it was "no
                # document 'docs/*.md' in the index": the model had to know DocQL's
                # $.files[...].toc to outline a directory).
                paths = glob_paths(idx, path)
                if not paths:
                    return Reply(
                        f"no indexed document matches {path!r} (`**/` spans directories, "
                        "`*` stays within one); list them with docql_query $.files",
                        is_error=True,
                    )
                items = []
                for one in paths:
                    deadline.remaining()  # raises when out of time
                    items += idx.toc(one)
            else:
                items = idx.toc(path or None)
            if not items:
                return Reply(
                    f"{path or 'the index'} has no headings; try get {path or ''}",
                    data={"headings": [], "next_offset": None},
                )
            if offset >= len(items):  # paged past the end: the reply was empty text
                return Reply(
                    f"no headings at offset {offset}: {path or 'the index'} has {len(items)} "
                    f"heading{'s' if len(items) != 1 else ''} — call again with an offset "
                    f"below {len(items)}",
                    data={"headings": [], "next_offset": None},
                )
            lines, rows = [], []

            def location(item: dict[str, Any]) -> str:
                return f"{item['path']}:{item['line']}-{item['end_line']}"

            # From the first heading, so that a page's indents are the whole outline's;
            # a page's first heading names its document (its own "path" line).
            entries = outline_entries(items, location)
            for _ in range(min(offset, len(items))):
                next(entries)
            for index, (head, line) in enumerate(entries):
                item = items[offset + index]
                if head is None and index == 0:
                    head = item["path"]
                where = location(item)
                lines.append(f"{head}\n{line}" if head is not None else line)
                rows.append(
                    {
                        "path": item["path"],
                        "level": item["level"],
                        "number": item["number"],
                        "title": item["title"],
                        "line": item["line"],
                        "end_line": item["end_line"],
                        "location": where,
                    }
                )
                if len(lines) * 20 > CHAR_CAP:  # enough for a page: build no more
                    break
            kept, tail = paged(lines, len(items), offset, "headings")
            data = {
                "headings": rows[: len(kept)],
                "next_offset": offset + len(kept) if tail else None,
            }
            return Reply("\n".join(kept) + (f"\n{tail}" if tail else ""), data=data)

        return self.call(self.lane("toc", {"path": path}), body, seconds)

    def context(self, question: str, budget: int = 12_000, seconds: float | None = None) -> Reply:
        budget = clamp(budget, 1, MAX_BUDGET, 12_000) or 12_000

        def body(idx: Index) -> Reply:
            check_text("question", question, MAX_QUERY_CHARS)
            if not question.strip():
                # A pack for nothing was the opening of the first documents: 12,000
                # characters that answered no question.
                return Reply(
                    "error: empty question; ask one in words (what you want to know)",
                    is_error=True,
                )
            pack = idx.context(question, budget=budget)
            data = {
                "question": question,
                "budget": budget,
                "chars": len(pack["text"]),
                "strategy": pack.get("strategy", ""),
                "blocks": [
                    {k: b.get(k) for k in ("path", "line", "end_line", "section", "kind")}
                    for b in pack.get("blocks", [])
                ],
                "text": pack["text"],
            }
            if not pack["text"].strip():
                return Reply(f"nothing in the index answers {question!r}; try search", data=data)
            return Reply(pack["text"], data=data)

        return self.call(HEAVY, body, seconds)

    def repo_map(
        self,
        paths: list[str] | None = None,
        budget: int = 1024,
        focus: str | None = None,
        seconds: float | None = None,
    ) -> Reply:
        """The repository map (`Index.repo_map`): central files and symbols, signatures."""
        budget = clamp(budget, 1, MAX_MAP_BUDGET, 1024) or 1024

        def body(idx: Index) -> Reply:
            check_list("paths", paths, MAX_PATHS, MAX_GLOB_CHARS)
            if focus is not None:
                check_text("focus", focus, MAX_PATH_CHARS)
            result = idx.repo_map(paths or [], budget=budget, focus=focus or None)
            if result["note"]:
                # With its data: the tool has an output schema, and a reply without the
                # structured content reached the client as "Error executing tool repo_map".
                return Reply(result["note"], data=result)
            head = f"{result['tokens']} of {budget} tokens; {result['left_out']} symbols left out"
            return Reply(f"{result['text']}({head}; read a symbol with get path:line)", data=result)

        return self.call(HEAVY, body, seconds)

    def document(self, path: str, seconds: float | None = None) -> Reply:
        """The text of an indexed document (the `docql://{path}` resource), whole up to
        RESOURCE_CHAR_CAP characters; a longer one is cut on a line boundary and ends
        with a line that says where the rest is (a location works as the path too)."""

        def body(idx: Index) -> Reply:
            check_text("path", path, MAX_PATH_CHARS)
            excerpt = idx.get(path)
            kept, used = 0, 0
            for _, line in excerpt.lines:
                if used + len(line) + 1 > RESOURCE_CHAR_CAP:
                    break
                used += len(line) + 1
                kept += 1
            if kept == len(excerpt.lines):
                return Reply(excerpt.text)
            if kept == 0:  # one line longer than the cap: cut within it
                line = excerpt.lines[0][1][:RESOURCE_CHAR_CAP]
                return Reply(
                    f"{line}\n…[line {excerpt.first} cut at {RESOURCE_CHAR_CAP:,} characters; "
                    f"the get tool reads it]"
                )
            last = excerpt.first + kept - 1
            shown = "".join(text + "\n" for _, text in excerpt.lines[:kept])
            rest = f"{excerpt.path}:{last + 1}-{excerpt.last}"
            return Reply(
                f"{shown}…[cut at {RESOURCE_CHAR_CAP:,} characters: lines {excerpt.first}-"
                f"{last} of {excerpt.total_lines}; the rest is the resource "
                f"docql://{quote(rest, safe='/:')}, or the get tool with path {rest}]\n"
            )

        # The heavy lane: a whole document is read (and up to a megabyte sent), and six
        # clients reading a 20 MB one on the quick lane held `status` for ~0.7 s.
        return self.call(self.lane("document", {}), body, seconds, cap=RESOURCE_CHAR_CAP + 1_000)

    def documents(self) -> list[dict[str, Any]]:
        with self.pools[QUICK].borrow() as idx, deadline.limit(limits.call_seconds()):
            return idx.documents()


def timeout_reply(exc: errors.QueryTimeout) -> Reply:
    """A call out of time, with advice a model can follow. The library's message offers
    to raise the limit (`DOCQL_QUERY_TIMEOUT`, `timeout=`), which a client of the server
    cannot, and showed the time left when the work started ("over 4.9999 s"); the query
    hint after it sent the model to a caret that a time-out does not have. What ran out is
    said as the library says it (`deadline.ran_out`), with this server's limit."""
    said = deadline.ran_out(f"{limits.call_seconds():g} s, this server's limit per call", exc.regex)
    if isinstance(exc, errors.RegexTimeout):
        advice = "simplify the regex, or run it on fewer rows (a filter or a path before it)"
    else:
        advice = (
            'narrow it: a filter, a path ($.files[?(@.path~="docs/")].toc), a limit, or '
            "fewer words; then call again"
        )
    return Reply(f"{type(exc).__name__}: {said}; {advice}", is_error=True)


def count_only(idx: Index, query: str, offset: int) -> Reply:
    """`docql_query` with limit 0: how many results there are from `offset` (up to
    FETCH_CAP, then "over"), none shown, and the offset to read them from."""
    found = sum(1 for _ in idx.query(query, limit=offset + FETCH_CAP + 1, offset=offset))
    over = found > FETCH_CAP
    found = min(found, FETCH_CAP)
    count = f"over {found}" if over else str(found)
    plural = "" if found == 1 and not over else "s"
    head = f"{count} result{plural} from offset {offset}; none shown (limit=0 counts them)"
    tail = f"read them with a limit > 0 from offset={offset}" if found else ""
    data = query_data(query, offset, found, over, [], offset if found else None)
    return Reply("\n".join([head, tail]).rstrip("\n"), data=data)


def query_data(
    query: str,
    offset: int,
    found: int,
    over: bool,
    items: list[Any],
    next_offset: int | None,
) -> dict[str, Any]:
    return {
        "query": query,
        "offset": offset,
        "found": found,
        "more_than_found": over,
        "items": items,
        "next_offset": next_offset,
    }


def render_excerpt(excerpt: Excerpt) -> Reply:
    """Lines of one document under a header; cut within the page on a line boundary (a
    first line longer than a page is cut itself, saying so)."""
    lines: list[str] = []
    used = 0
    for number, text in excerpt.lines:
        if lines and used + len(text) + 1 > PAGE_BUDGET:
            break
        if len(text) > PAGE_BUDGET:
            text = text[:PAGE_BUDGET] + f"…[line {number} cut at {PAGE_BUDGET} characters]"
        lines.append(text)
        used += len(text) + 1
    last = excerpt.first + len(lines) - 1 if lines else excerpt.first - 1
    header = (
        f"--- {excerpt.path}:{excerpt.first}-{last} "
        f"(lines {excerpt.first}-{last} of {excerpt.total_lines}) ---"
    )
    text = "\n".join(lines)
    tail = ""
    next_from = None
    if last < excerpt.last:
        next_from = last + 1
        tail = "\n" + more(excerpt.last - last, "lines", "from", next_from)
    data = {
        "kind": "lines",
        "path": excerpt.path,
        "first": excerpt.first,
        "last": last,
        "total_lines": excerpt.total_lines,
        "text": text,
        "next_from": next_from,
    }
    return Reply(f"{header}\n{text}{tail}", data=data)
