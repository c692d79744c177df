"""The one-line progress display of `index` and `embed`, on stderr when it is a terminal.

    indexing [##########..........]  1204/2649  45%  310/s  ETA 0:05  doc/book/src/ch09.md

The line is fitted to the terminal's width at every redraw (a resized window is followed):
parts drop out from the right as it narrows (the current path first shrinks from the
left, then the bar goes, then the ETA and rate), and it is never wider than the width
minus one cell, so a terminal never wraps it. The rate and the ETA come once a run has
gone on for a moment. Piped or redirected, nothing is printed: the summary line and
the JSON report say everything a log needs. Redraws are at most ten a second.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

from .. import output
from ..errors import display_width

_REDRAW_EVERY = 0.1  # seconds between redraws (the last step is always drawn)
_RATE_AFTER = 0.5  # seconds before a rate (and an ETA) means something
_BAR_CELLS = (10, 30)  # the bar's narrowest and widest
_MIN_PATH = 12  # a path narrower than this is left out rather than shown as '…h.md'


class ProgressBar:
    """Progress on `stream` (stderr) when it is a terminal; `update` is the callback that
    `IngestOptions.progress` / `EmbedOptions.progress` take."""

    def __init__(self, label: str = "", stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.active = _isatty(self.stream)
        self.shown = 0  # width of what is on the line now (0: nothing)
        self.started: float | None = None
        self.drawn_at = 0.0

    def update(self, done: int, total: int, path: str = "") -> None:
        if not self.active or total <= 0:
            return
        now = time.monotonic()
        if self.started is None:
            self.started = now
        if done < total and now - self.drawn_at < _REDRAW_EVERY:
            return
        self.drawn_at = now
        # A file name is shown as `ls -b` would: no raw control character reaches the terminal.
        shown = output.visible(path)
        line = render(self.label, done, total, shown, now - self.started, self._width())
        pad = " " * max(self.shown - display_width(line), 0)  # what a longer line left
        self.stream.write("\r" + line + pad)
        self.stream.flush()
        self.shown = display_width(line)

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.stream.flush()
            self.shown = 0

    def _width(self) -> int:
        try:
            return os.get_terminal_size(self.stream.fileno()).columns or 80
        except (OSError, ValueError, AttributeError):
            return 80


def render(label: str, done: int, total: int, path: str, elapsed: float, width: int) -> str:
    """The progress line for `width` terminal cells (at most `width - 1` of them used)."""
    room = width - 1
    count = f"{done:>{len(str(total))}}/{total}"
    percent = f"{100 * done // total:>3}%"
    rate = eta = ""
    if elapsed >= _RATE_AFTER and done > 0:
        per_second = done / elapsed
        rate = f"{per_second:.0f}/s" if per_second >= 10 else f"{per_second:.1f}/s"
        eta = "ETA " + _clock((total - done) / per_second) if done < total else ""
    # The parts, most important first; those that do not fit are dropped from the end.
    fixed = [p for p in (label.rstrip(), count, percent, rate, eta) if p]
    line = "  ".join(fixed)
    while display_width(line) > room and len(fixed) > 1:
        fixed.pop()
        line = "  ".join(fixed)
    if display_width(line) > room:
        return _cut_left(line, room)
    reserve = 2 + _MIN_PATH if path else 0  # a path's least room, kept from the bar
    cells = min(_BAR_CELLS[1], room - display_width(line) - 2 - 2 - reserve)
    if cells >= _BAR_CELLS[0]:
        filled = cells * done // total
        bar = "[" + "#" * filled + "." * (cells - filled) + "]"
        head, _, tail = line.partition("  ") if label else ("", "", line)
        line = "  ".join(p for p in (head, bar, tail) if p)
    left = room - display_width(line) - 2
    if path and left >= _MIN_PATH:
        line += "  " + _cut_left(path, left)
    return line


def _cut_left(text: str, width: int) -> str:
    """`text` in `width` cells, its start replaced by `…` when it does not fit."""
    if display_width(text) <= width:
        return text
    kept: list[str] = []
    used = 1
    for ch in reversed(text):
        used += display_width(ch)
        if used > width:
            break
        kept.append(ch)
    return "…" + "".join(reversed(kept))


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{seconds:02}" if hours else f"{minutes}:{seconds:02}"


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except Exception:  # a closed or odd stream
        return False
