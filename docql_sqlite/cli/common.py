"""What every click command shares: the click options (built from `cli/flags.py`), the
database argument, and the click-free runtime of `cli/console.py` (re-exported here:
printing, error handling and exit codes, output, opening the index)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from .. import output
from ..errors import UsageError
from . import flags
from .console import (
    default_format,
    echo,
    emit,
    fail,
    handle_errors,
    open_index,
)
from .progress import ProgressBar

__all__ = [
    "ProgressBar",
    "database_argument",
    "default_format",
    "echo",
    "emit",
    "fail",
    "handle_errors",
    "open_index",
    "option",
    "with_flags",
    "output_options",
    "paths_option",
    "text_output_options",
]


def _parse_fields(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    try:
        return output.parse_fields(value)
    except UsageError as exc:
        raise click.BadParameter(exc.message) from None


def option(flag: flags.Flag) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The click option of a `flags.Flag`."""
    kwargs: dict[str, Any] = {"help": flag.help}
    if flag.flag_value is not None:
        kwargs["flag_value"] = flag.flag_value
    elif flag.is_flag:
        kwargs["is_flag"] = True
    else:
        kwargs["default"] = None
        if flag.kind == "count":
            kwargs["type"] = click.IntRange(min=0)
        elif flag.kind == "fields":
            kwargs["callback"] = _parse_fields
    if flag.multiple:
        kwargs["multiple"] = True
        del kwargs["default"]
    if flag.metavar:
        kwargs["metavar"] = flag.metavar
    return click.option(*flag.decls, **kwargs)


def with_flags(
    options: list[flags.Flag],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a command with the click options of `options`, listed in that order."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for flag in reversed(options):
            func = option(flag)(func)
        return func

    return decorate


def output_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--json / --nl / --csv / -t/--table / --md / --fields, named as in sqlite-utils."""
    return with_flags(flags.output_flags())(func)


def text_output_options(text_help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The output options of a command that prints text on a terminal (`get`, `context`):
    --text (`text_help`) first, and the table no longer the terminal's default."""
    return with_flags(flags.output_flags(text_help))


def database_argument(func: Callable[..., Any]) -> Callable[..., Any]:
    # Not click.Path(dir_okay=False): its error is three lines; opening says it in one.
    return click.argument("database")(func)


def paths_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return option(flags.PATHS)(func)
