"""`Writer`: the write side of a `Store`, as the one writer (`ingest/`) drives it.

(Step 0 of the store redesign: the interface is filled in by the writer work; see
docs/design.md.)
"""

from __future__ import annotations

from abc import ABC


class Writer(ABC):
    """What an `index` or `embed` run asks of the engine it writes to."""


__all__ = ["Writer"]
