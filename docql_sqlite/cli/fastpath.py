"""`docql-sqlite query DATABASE QUERY [flags]` without click: reading the line, and the
command's work (`run_query`, which the click command calls too).

A structural query should answer in ≤ 100 ms end to end (issue 12), and importing click
(and the inspect, typing, uuid, datetime and gettext modules it pulls in) was a third of
that command's start-up. So `main()` first offers the arguments of a `query` to
`parse`, which reads the flag table click builds the command from (`flags.QUERY_FLAGS`)
and accepts only what it can read exactly as click would: every flag spelled in full, the
two arguments, values that convert without error. Anything else — `--help`, a typo, a
missing value, a bad `--limit`, a query that is not DocQL, `--`, shell completion — returns
None, and click parses the line, so every help text and error message is click's own.
tests/test_cli_fastpath.py checks `parse` against click's own parse of the same lines.
"""

from __future__ import annotations

from .. import output, settings
from ..errors import UsageError
from ..options import QueryOptions
from . import flags
from .console import default_format, echo, emit, handle_errors, note_unmatched_paths, open_index

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any

_BY_SWITCH = {switch: flag for flag in flags.QUERY_FLAGS for switch in flag.switches}


def parse(args: list[str]) -> dict[str, Any] | None:
    """The keyword arguments of `run_query` for `args` (what follows `query`),
    or None when click must read them."""
    if settings.shell_completion():
        return None  # click's shell completion
    values: dict[str, Any] = {}
    for each in flags.QUERY_FLAGS:
        values[each.dest] = () if each.multiple else (False if each.is_flag else None)
    positional: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg[:1] != "-" or arg == "-":
            positional.append(arg)
            continue
        switch, eq, attached = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        flag = _BY_SWITCH.get(switch)
        if flag is None:
            return None  # --help, -h, --, an unknown or abbreviated flag
        if not flag.takes_value:
            if eq:
                return None  # click's "option does not take a value"
            values[flag.dest] = True if flag.is_flag else flag.flag_value
            continue
        value = attached if eq else next(rest, None)
        if value is None:
            return None  # "requires an argument"
        converted = _convert(flag, value)
        if converted is None:
            return None
        values[flag.dest] = values[flag.dest] + (converted,) if flag.multiple else converted
    if len(positional) != len(flags.QUERY_ARGUMENTS):
        return None
    values.update(zip(flags.QUERY_ARGUMENTS, positional))
    return values if is_docql(values["query"]) else None


def _convert(flag: flags.Flag, value: str) -> Any:
    """The value click would give the parameter, or None where click would refuse it."""
    if flag.kind == "count":
        # click.IntRange(min=0) takes what int() takes (" 7", "+7", "7_0"): only plain
        # digits here, the rest goes to click.
        return int(value) if value.isascii() and value.isdigit() else None
    if flag.kind == "fields":
        try:
            return output.parse_fields(value)
        except UsageError:
            return None
    return value


def run(args: list[str]) -> bool:
    """Run `docql-sqlite query` with `args` if `parse` reads them; False: click's turn."""
    values = parse(args)
    if values is None:
        return False
    run_query(**values)
    return True


@handle_errors
def run_query(
    database: str,
    query: str,
    paths: tuple[str, ...],
    limit: int | None,
    show_sql: bool,
    inline: bool,
    fmt: str | None,
    fields: tuple[str, ...] | None,
) -> None:
    """Run the DocQL `query` (the caller checked that it starts with '$')."""
    options = QueryOptions(paths=paths, limit=limit)
    with open_index(database) as idx:
        if show_sql or inline:
            compiled = idx.compile(query, options)
            if inline:
                echo(compiled.inline_sql() + ";")
            else:
                echo(compiled.sql + ";")
                if compiled.params:
                    echo("-- params: " + output.dumps(compiled.params))
            return
        result = idx.query(query, options)
        if not len(result):
            note_unmatched_paths(idx, paths, fmt)
    if result.compiled.post == "structure" and default_format(fmt) == "table" and not fields:
        from .. import structure_text

        echo(structure_text(result), nl=False)
        return
    emit(result, fmt, fields, database)


def is_docql(query: str) -> bool:
    return query.lstrip().startswith("$")
