"""A document's lines, split once: entities, chunks and rows each read all of them.

`lines_of(text)` is `model.split_lines(text)`, remembered for the last text asked for
(by identity: the same `str` object, held here until another text is asked for or
`forget()` is called). Splitting the 10.8 MB Markdown mix costs ~30 ms, and it was done
three times per document. The list is shared: callers never modify it.
"""

from __future__ import annotations

from ..model import split_lines

_last: tuple[str, list[str]] | None = None


def lines_of(text: str) -> list[str]:
    """The lines of `text` without their '\\n' (`split_lines`); do not modify the list."""
    global _last
    last = _last  # one read: another thread may replace it meanwhile
    if last is not None and last[0] is text:
        return last[1]
    lines = split_lines(text)
    _last = (text, lines)
    return lines


def forget() -> None:
    """Drop the remembered text (its document is done: `rows.prepare`)."""
    global _last
    _last = None
