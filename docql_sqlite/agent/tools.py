"""The MCP tools as plain Python over an `Index`: arguments in, a `Reply` (text) out.

Output is sized for a context window: every reply stays under `CHAR_CAP` characters and
ends with "N more — call again with offset=K" (or `from=K` for lines) when something
was left out. Every result carries a location (`path:line-end_line`) that `get` reads
back. Errors are replies too (`is_error`), worded so that a model can fix its call: a
bad DocQL query carries the caret message and a hint.

Nothing here imports the MCP SDK; `server.py` turns these methods into tools. One lock
serialises calls on the read-only connection (the SDK runs tools in worker threads).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import DocQLError, QueryError
from ..index import Excerpt, Index
from ..options import SearchOptions

CHAR_CAP = 20_000  # characters per reply (~5,000 tokens)
FIELD_CAP = 8_000  # a longer text field of one item is cut (the location reads it whole)
HIT_CAP = 2_000  # characters of passage text per search hit
MAX_QUERY_LIMIT = 10_000
MAX_SEARCH_LIMIT = 100
MAX_BUDGET = CHAR_CAP  # a context pack is one reply
MAX_MAP_BUDGET = CHAR_CAP // 4  # repo_map tokens: a map is one reply
MANY_BYTES = 50_000  # the byte cap of a glob `get`
# "0" runs each search on one thread (no sidecar connection): for comparing, or for a
# machine with one core.
PARALLEL_ENV = "DOCQL_PARALLEL_SEARCH"
GLOB_CHARACTERS = ("*", "?")

QUERY_HINT = (
    "hint: fix the query at the caret and call again. Queries start at a root: "
    '$.toc[?(@.level<=2)], $.content.heading("kw"), $.content.chapter("1.2"), '
    '$.content.grep("text"), $.code.class("Name"), $.entities, $.files'
)


@dataclass(frozen=True, slots=True)
class Reply:
    """What one tool call returns: text for the model, and whether it is an error."""

    text: str
    is_error: bool = False


def more(remaining: int, what: str, argument: str, value: int) -> str:
    return f"{remaining} more {what} — call again with {argument}={value}"


def with_location(item: Any) -> Any:
    """A result item with a `location` that `get` reads (sections lack one)."""
    if isinstance(item, dict) and "location" not in item and item.get("path"):
        line, end = item.get("line"), item.get("end_line")
        if isinstance(line, int):
            where = f":{line}" if end in (None, line) else f":{line}-{end}"
            item = {**item, "location": item["path"] + where}
    return item


def render_item(item: Any) -> str:
    """One result as one line of JSON; text fields over FIELD_CAP cut, saying where."""
    # Most items have no long field: look before copying the item to cut one.
    if isinstance(item, dict) and any(
        isinstance(v, str) and len(v) > FIELD_CAP for v in item.values()
    ):
        cut = {}
        for key, value in item.items():
            if isinstance(value, str) and len(value) > FIELD_CAP:
                where = item.get("location", item.get("path", ""))
                value = value[:FIELD_CAP] + f"…[cut at {FIELD_CAP} characters; get {where}]"
            cut[key] = value
        item = cut
    return json.dumps(item, ensure_ascii=False, default=str)


def paged(
    blocks: Iterable[str], total: int, offset: int, what: str, argument: str = "offset"
) -> tuple[list[str], str]:
    """The blocks that fit in CHAR_CAP (at least one), and the "N more" line if any."""
    kept: list[str] = []
    used = 0
    for block in blocks:
        if kept and used + len(block) + 1 > CHAR_CAP:
            break
        kept.append(block)
        used += len(block) + 1
    shown = offset + len(kept)
    tail = more(total - shown, what, argument, shown) if shown < total else ""
    return kept, tail


def clamp(value: int | None, low: int, high: int, default: int | None) -> int | None:
    if value is None:
        return default
    return max(low, min(high, value))


class Tools:
    """The six tools over one read-only `Index` (reopened after `--watch` re-indexes)."""

    def __init__(self, db_path: str) -> None:
        self.db_path = db_path
        self._lock = threading.RLock()
        # A server answers many searches: the vectors are worth holding in memory, and a
        # second connection lets a search run its lists on both cores (search.parallel).
        self._index: Index = self._open()

    def _open(self) -> Index:
        parallel = os.environ.get(PARALLEL_ENV, "").strip().lower() not in ("0", "no", "off")
        return Index(self.db_path, vectors_in_memory=True, parallel_search=parallel)

    def close(self) -> None:
        with self._lock:
            self._index.close()

    def reopen(self) -> None:
        """See what the writer wrote, including vectors that appeared (watch mode)."""
        with self._lock:
            fresh = self._open()
            self._index.close()
            self._index = fresh

    def call(self, body: Callable[[Index], Reply]) -> Reply:
        """Run a tool body under the lock; our errors become error replies."""
        with self._lock:
            try:
                return body(self._index)
            except QueryError as exc:
                return Reply(f"{exc}\n{QUERY_HINT}", is_error=True)
            except DocQLError as exc:
                return Reply(f"error: {exc.message}", is_error=True)

    # -- the tools -------------------------------------------------------------------
    def status(self) -> Reply:
        def body(idx: Index) -> Reply:
            info = dict(idx.status(), has_vectors=idx.has_vectors)
            return Reply(json.dumps(info, ensure_ascii=False, indent=1))

        return self.call(body)

    def warm_up(self) -> None:
        """Load the embedding model (a long-lived server pays for it once, at start)."""
        if self._index.has_vectors:
            self.search("warm up", mode="vector", limit=1)

    def instructions_figures(self) -> tuple[dict[str, Any], bool]:
        with self._lock:
            return self._index.status(), self._index.has_vectors

    def docql_query(self, query: str, limit: int | None = None, offset: int = 0) -> Reply:
        limit = clamp(limit, 0, MAX_QUERY_LIMIT, None)
        offset = max(0, offset)

        def body(idx: Index) -> Reply:
            wanted = None if limit is None else offset + limit
            items = [with_location(i) for i in idx.query(query, limit=wanted, offset=offset)]
            total = offset + len(items)
            if not items:
                note = f" at offset {offset}" if offset else ""
                return Reply(
                    f"no results for {query}{note}. Widen the filter (~= instead of ==, fewer "
                    "conditions), check names with $.files or $.toc, or use search."
                )
            kept, tail = paged((render_item(i) for i in items), total, offset, "results")
            found = total - offset
            plural = "s" if found != 1 else ""
            head = f"{found} result{plural} from offset {offset}; showing {len(kept)}:"
            return Reply("\n".join([head, *kept, tail]).rstrip("\n"))

        return self.call(body)

    def search(
        self,
        query: str,
        mode: str = "smart",
        limit: int = 10,
        paths: list[str] | None = None,
        intent: str | None = None,
        offset: int = 0,
    ) -> Reply:
        limit = clamp(limit, 1, MAX_SEARCH_LIMIT, 10) or 10
        offset = max(0, min(offset, MAX_SEARCH_LIMIT))

        def body(idx: Index) -> Reply:
            # The reply shows each passage whole (up to HIT_CAP): no snippets to make.
            options = SearchOptions(
                mode=mode,
                limit=offset + limit,
                paths=tuple(paths or ()),
                intent=intent or None,
                snippets=False,
            )
            hits = idx.search(query, options)[offset:]
            if not hits:
                vector = " or mode='hybrid'" if idx.has_vectors else ""
                return Reply(
                    f"no passages match {query!r} (mode {mode}"
                    + (f", paths {list(paths)}" if paths else "")
                    + f"). Try fewer or broader words, a synonym or the other language{vector}, "
                    'drop the paths filter, or docql_query with $.content.grep("word").'
                )
            blocks = []
            for rank, hit in enumerate(hits, start=offset + 1):
                text = hit.get("content") or hit.get("snippet") or ""
                if len(text) > HIT_CAP:
                    text = text[:HIT_CAP] + f"…[cut; get {hit['location']} for all of it]"
                section = f" § {hit['section']}" if hit.get("section") else ""
                blocks.append(
                    f"[{rank}] {hit['location']}{section} (score {hit['score']:.4g})\n"
                    f"{text.rstrip()}"
                )
            kept, tail = paged(blocks, offset + len(hits), offset, "hits")
            return Reply("\n\n".join(kept) + (f"\n\n{tail}" if tail else ""))

        return self.call(body)

    def get(self, path: str, from_: int | None = None, count: int | None = None) -> Reply:
        def body(idx: Index) -> Reply:
            if any(c in path for c in GLOB_CHARACTERS) and from_ is None and count is None:
                return self._get_many(idx, path)
            if from_ is not None or count is not None:
                excerpt = idx.get(path, from_, count)
            else:
                excerpt = idx.get(path)
            return render_excerpt(excerpt)

        return self.call(body)

    def _get_many(self, idx: Index, pattern: str) -> Reply:
        found = idx.get_many(pattern, MANY_BYTES)
        if not found.excerpts and not found.skipped:
            return Reply(
                f"no indexed document matches {pattern!r} (`**/` spans directories, `*` stays "
                "within one); list them with docql_query $.files",
                is_error=True,
            )
        blocks = [
            f"=== {e.path} ({e.total_lines} lines) ===\n{e.text.rstrip()}" for e in found.excerpts
        ]
        text = "\n\n".join(blocks)
        if found.skipped:
            names = ", ".join(f"{p} ({n} bytes)" for p, n in found.skipped)
            text += (
                f"\n\n{len(found.skipped)} more over the {MANY_BYTES}-byte cap — get them one "
                f"by one: {names}"
            )
        return Reply(text.lstrip("\n"))

    def toc(self, path: str | None = None, offset: int = 0) -> Reply:
        offset = max(0, offset)

        def body(idx: Index) -> Reply:
            items = idx.toc(path or None)
            if not items:
                return Reply(f"{path or 'the index'} has no headings; try get {path or ''}")
            lines, current = [], None
            for item in items[offset:]:
                head = ""
                if item["path"] != current:
                    current = item["path"]
                    head = f"{current}\n"
                where = f"{item['path']}:{item['line']}-{item['end_line']}"
                indent = "  " * max(0, item["level"] - 1)
                lines.append(f"{head}  {indent}{item['number']} {item['title']}  ({where})")
            kept, tail = paged(lines, len(items), offset, "headings")
            return Reply("\n".join(kept) + (f"\n{tail}" if tail else ""))

        return self.call(body)

    def context(self, question: str, budget: int = 12_000) -> Reply:
        budget = clamp(budget, 1, MAX_BUDGET, 12_000) or 12_000

        def body(idx: Index) -> Reply:
            pack = idx.context(question, budget=budget)
            if not pack["text"].strip():
                return Reply(f"nothing in the index answers {question!r}; try search")
            return Reply(pack["text"])

        return self.call(body)

    def repo_map(
        self, paths: list[str] | None = None, budget: int = 1024, focus: str | None = None
    ) -> Reply:
        """The repository map (`Index.repo_map`): central files and symbols, signatures."""
        budget = clamp(budget, 1, MAX_MAP_BUDGET, 1024) or 1024

        def body(idx: Index) -> Reply:
            result = idx.repo_map(paths or [], budget=budget, focus=focus or None)
            if result["note"]:
                return Reply(result["note"])
            head = f"{result['tokens']} of {budget} tokens; {result['left_out']} symbols left out"
            return Reply(f"{result['text']}({head}; read a symbol with get path:line)")

        return self.call(body)

    def document(self, path: str) -> str:
        """The whole text of an indexed document (the `docql://{path}` resource)."""
        with self._lock:
            return self._index.get(path).text

    def documents(self) -> list[dict[str, Any]]:
        with self._lock:
            return self._index.documents()


def render_excerpt(excerpt: Excerpt) -> Reply:
    """Lines of one document under a header; cut at CHAR_CAP on a line boundary."""
    lines: list[str] = []
    used = 0
    for _number, text in excerpt.lines:
        if lines and used + len(text) + 1 > CHAR_CAP:
            break
        lines.append(text)
        used += len(text) + 1
    last = excerpt.first + len(lines) - 1 if lines else excerpt.first - 1
    header = (
        f"--- {excerpt.path}:{excerpt.first}-{last} "
        f"(lines {excerpt.first}-{last} of {excerpt.total_lines}) ---"
    )
    body = "\n".join(lines)
    tail = ""
    if last < excerpt.last:
        tail = "\n" + more(excerpt.last - last, "lines", "from", last + 1)
    return Reply(f"{header}\n{body}{tail}")
