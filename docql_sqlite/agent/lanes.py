"""Scheduling tool calls so that cheap calls never wait behind slow ones (issue 20 §5).

Two lanes of worker threads, each thread with its own read-only connection
(`readers.ReaderPool`): the quick lane (status, one location, one document's outline, a
resource) and the heavy lane (DocQL, search, context, globs, the outline of everything).
A call waits for a worker of its lane only; and a client (an MCP session) has at most
HEAVY_PER_CLIENT heavy calls running or queued for a worker, so six clients each sending
catastrophic regexes share the heavy workers in turn instead of one of them holding all.

The per-call deadline counts from the moment the call arrives: time spent waiting for a
worker is part of it, and a call that finds no worker within its deadline is answered
"busy" instead of joining an ever longer queue. The work itself runs on the thread under
what is left of the deadline (`Tools.call`).
"""

from __future__ import annotations

import contextlib
import time
import weakref
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread

from . import limits
from .tools import HEAVY, QUICK, Reply, Tools


class Lanes:
    def __init__(self, tools: Tools) -> None:
        self.tools = tools
        self.workers = {QUICK: tools.pools[QUICK].size, HEAVY: tools.pools[HEAVY].size}
        self.limiters = {lane: anyio.CapacityLimiter(n) for lane, n in self.workers.items()}
        # Our own thread limiter: anyio's default one (40) is shared with the SDK.
        self.threads = anyio.CapacityLimiter(sum(self.workers.values()))
        self._clients: weakref.WeakKeyDictionary[Any, anyio.CapacityLimiter] = (
            weakref.WeakKeyDictionary()
        )

    def _client_limiter(self, client: Any) -> anyio.CapacityLimiter | None:
        if client is None:
            return None
        try:
            limiter = self._clients.get(client)
            if limiter is None:
                limiter = self._clients[client] = anyio.CapacityLimiter(limits.HEAVY_PER_CLIENT)
        except TypeError:  # not weakly referenceable: no per-client limit
            return None
        return limiter

    async def run(
        self, tool: str, arguments: dict[str, Any], client: Any, work: Callable[[float], Reply]
    ) -> Reply:
        """`work(seconds_left)` on a worker of the call's lane, within the deadline."""
        started = time.monotonic()
        budget = limits.call_seconds()
        lane = self.tools.lane(tool, arguments)
        async with contextlib.AsyncExitStack() as held:
            with anyio.move_on_after(budget) as waiting:
                if lane == HEAVY:
                    mine = self._client_limiter(client)
                    if mine is not None:
                        await held.enter_async_context(mine)
                await held.enter_async_context(self.limiters[lane])
            if waiting.cancelled_caught:
                return Reply(
                    f"error: the server is busy: no {lane} worker was free within the "
                    f"{budget:g} s deadline ({self.workers[lane]} workers; at most "
                    f"{limits.HEAVY_PER_CLIENT} heavy calls per client at once); call again",
                    is_error=True,
                )
            left = budget - (time.monotonic() - started)
            return await anyio.to_thread.run_sync(work, left, limiter=self.threads)
