"""What every command does once its flags are parsed, without click: printing, error
handling and exit codes, output formats, opening the index.

Exit codes (one table, README "Exit codes"; each error class carries its own `exit_code`):
0 on success (also "no results", and when a reader such as `head` closes the pipe early);
1 when the work itself failed (an index run in which some files failed, a location past
the end); 2 on a usage or query error, or a database that is missing or not an index;
3 when the index is damaged; 4 when its storage cannot serve it (read-only, disk full,
I/O error); 5 when another writer holds it (busy); 130 when interrupted (Ctrl-C).

No click here: `cli/fastpath.py` runs a `query` through this module alone, and click's
import is a third of that command's start-up (docs/benchmarks.md).
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Callable, Iterable

from .. import Index, output
from ..errors import DocQLError, DocQLNote, QueryError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any, NoReturn

# click.echo drops ANSI styles from text bound for a file or pipe; so does `echo`, so the
# messages are the same byte for byte whichever path printed them (its pattern is click's).
_ANSI = "\033["


def echo(message: str = "", err: bool = False, nl: bool = True) -> None:
    """`click.echo` for text: one message (and a newline) on stdout or stderr, flushed.
    A message on stderr, or on a terminal, shows its control characters as `\\xNN` (a
    file name in it must not drive the terminal); stdout piped keeps them (`--sql`)."""
    stream = sys.stderr if err else sys.stdout
    if err or _isatty(stream):
        message = output.visible(message, lines=True)
    if _ANSI in message and not _isatty(stream):
        import re

        message = re.sub(r"\033\[[;?0-9]*[a-zA-Z]", "", message)
    stream.write(message + "\n" if nl else message)
    stream.flush()


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except Exception:  # a closed or odd stream: click treats it as not a terminal
        return False


def default_format(fmt: str | None) -> str:
    if fmt:
        return fmt
    return "table" if sys.stdout.isatty() else "json"


def emit(
    items: Iterable[Any],
    fmt: str | None,
    fields: tuple[str, ...] | None = None,
    database: str | None = None,
) -> None:
    """Write `items` to stdout in `fmt`. With `database` (the index the items came from),
    a table shortens a path only to a tail that names one document of that index, so that
    every location it prints is one `get` takes (`…/std/fs.md:12-40`)."""
    fmt = default_format(fmt)
    tails = UniqueTails(database) if database and fmt == "table" else None
    try:
        count = output.write(
            items,
            fmt,
            sys.stdout,
            fields=fields,
            note=_note,
            shortest=tails.shortest if tails else None,
        )
    finally:
        if tails:
            tails.close()
    if count == 0 and fmt in ("table", "md", "csv"):
        echo("no results", err=True)


class UniqueTails:
    """The shortest tail of a document's path (whole directories) that `get` resolves to
    that document and no other: `fs.md` when one document ends in it, `std_misc/fs.md`
    when `library/std/src/fs.md` exists too. Asked only for paths a table must shorten,
    so the index is opened only then; a path that is no document stays whole.

    The paths of the index are read once (on the first path to shorten) and grouped by
    file name; the tail kept is the shortest that no other path equals or ends in, which
    is what `get` (`catalog.find_document`: exact path, then absolute path, then the only
    path ending in the tail) resolves to this document alone: an absolute path of another
    document from the current directory would end in the tail too. One pass over the
    paths (~10 ms for 2.6k documents), not a lookup per tail."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.index: Index | None = None
        self.by_name: dict[str, list[str]] = {}
        self.found: dict[str, str] = {}

    def shortest(self, path: str) -> str:
        if path not in self.found:
            self.found[path] = self._shortest(path)
        return self.found[path]

    def _shortest(self, path: str) -> str:
        if self.index is None:
            self.index = open_index(self.database)
            for doc in self.index.documents():
                name = doc["path"].rsplit("/", 1)[-1]
                self.by_name.setdefault(name, []).append(doc["path"])
        parts = path.split("/")
        same_name = self.by_name.get(parts[-1], [])
        if path not in same_name:
            return path  # not a document of this index (a failed file, say): never cut
        others = [p for p in same_name if p != path]
        for keep in range(1, len(parts)):
            tail = "/".join(parts[-keep:])
            if not any(p == tail or p.endswith("/" + tail) for p in others):
                return tail
        return path

    def close(self) -> None:
        if self.index is not None:
            self.index.close()


def visible_on_terminal(text: str) -> str:
    """Text as it is for a file or a pipe; on a terminal, control characters as `\\xNN`."""
    return output.visible(text, lines=True) if sys.stdout.isatty() else text


def embed_summary(report: dict[str, Any]) -> str:
    nothing = report.get("nothing_to_embed") or 0
    return (
        "embedded {embedded} texts with {model} ({reused} reused: cached or copies, "
        "{unchanged} unchanged, {removed} removed{nothing}) in {seconds:.2f}s".format(
            **report,
            nothing=f", {nothing} chunks with nothing to embed (links, comments or blank alone)"
            if nothing
            else "",
        )
    )


def _note(message: str) -> None:
    echo(message, err=True)


def handle_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn library errors into one-line messages and exit codes (see the module
    docstring); Ctrl-C and a closed pipe end quietly instead of with a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        # Library notes (`DocQLNote`, e.g. "reading … as an immutable file") and any other
        # warning print as one line, once for this command wherever they are raised (a
        # user's regex is read by the parser and by the compiler: Python's `re` warns of
        # its "Possible set intersection" at each, and its "once" filter lets both by).
        warnings.simplefilter("once", DocQLNote)
        warnings.showwarning = functools.partial(_show_note, set())
        try:
            result = func(*args, **kwargs)
            sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
            return result
        except QueryError as exc:
            fail(str(exc), exc.exit_code)
        except DocQLError as exc:
            fail(f"error: {exc.message}", exc.exit_code)
        except UnicodeDecodeError as exc:
            # A text value read from the file that is not UTF-8 (a damaged page), met by a
            # plain row iteration that `db` does not wrap: one line, not a traceback.
            from ..store.sqlite.db import damaged_text

            err = damaged_text(exc, str(kwargs.get("database") or ""))
            fail(f"error: {err.message}", err.exit_code)
        except KeyboardInterrupt:
            # An index run rolls back its open batch, so the file stays consistent and the
            # next run picks up where this one stopped.
            fail("interrupted", 130)
        except BrokenPipeError:
            _silence_stdout()
            sys.exit(0)

    return wrapper


def _show_note(
    said: set[str],
    message: Any,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """`warnings.showwarning` for the CLI, with `said` (the lines shown so far) bound: a
    `DocQLNote` as one `note:` line on stderr, any other warning (Python's `re` on a
    user's regex: "Possible set intersection") as one `warning:` line, without Python's
    source line; a line already shown is not shown again."""
    line_shown = (
        f"note: {message}"
        if issubclass(category, DocQLNote)
        else f"warning: {category.__name__}: {message}"
    )
    if line_shown not in said:  # `said`: the lines this command has shown
        said.add(line_shown)
        echo(line_shown, err=True)


def fail(message: str, code: int) -> NoReturn:
    echo(message, err=True)
    sys.exit(code)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the flush at exit does not fail on the closed pipe
    again ("Exception ignored ... BrokenPipeError")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (a test runner)
        pass


def note_unmatched_paths(idx: Index, paths: tuple[str, ...], fmt: str | None) -> None:
    """Say so on stderr, beside the "no results" of the formats that print it, when the
    `--path` globs match no indexed document: then nothing was searched, not nothing in
    those documents matched. The usual cause is an anchored glob (`docs/**`) over paths
    that start higher up (`django/docs/index.txt`)."""
    if not paths or default_format(fmt) not in ("table", "md", "csv") or idx.documents(paths):
        return
    example = next(iter(idx.query("$.files.path", limit=1)), None)
    shown = ", ".join(f"'{glob}'" for glob in paths)
    message = f"note: --path {shown} matches no indexed document"
    if example is not None:
        message += f" (indexed paths look like '{example}')"
    anchored = [g for g in paths if "/" in g.rstrip("/") and not g.startswith(("/", "**/"))]
    if anchored:
        message += (
            f"; a glob with a '/' is anchored at the start of the path: "
            f"'**/{anchored[0]}' matches it at any depth"
        )
    echo(message, err=True)


def open_index(path: str) -> Index:
    # The CLI runs no user SQL, so it skips the docql() table function (~30 ms).
    return Index(path, table_function=False)
