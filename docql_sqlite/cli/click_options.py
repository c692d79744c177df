"""click options and arguments built from the flag tables of `cli/flags.py`, for the
command modules of `cli/commands/` (the fast path reads the same tables without click)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

from .. import output
from ..errors import UsageError
from . import flags

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def _parse_fields(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    try:
        return output.parse_fields(value)
    except UsageError as exc:
        raise click.BadParameter(exc.message) from None


def option(flag: flags.Flag) -> Decorator:
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


def with_flags(options: Sequence[flags.Flag]) -> Decorator:
    """Decorate a command with the click options of `options`, listed in that order."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for flag in reversed(options):
            func = option(flag)(func)
        return func

    return decorate


def output_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--json / --nl / --csv / -t/--table / --md / --fields, named as in sqlite-utils."""
    return with_flags(flags.output_flags())(func)


def text_output_options(text_help: str) -> Decorator:
    """The output options of a command that prints text on a terminal (`get`, `context`):
    --text (`text_help`) first, and the table no longer the terminal's default."""
    return with_flags(flags.output_flags(text_help))


def with_arguments(names: Sequence[str]) -> Decorator:
    """Decorate a command with one required click argument per name, in that order."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for name in reversed(names):
            func = click.argument(name)(func)
        return func

    return decorate


def database_argument(func: Callable[..., Any]) -> Callable[..., Any]:
    # Not click.Path(dir_okay=False): its error is three lines; opening says it in one.
    return click.argument("database")(func)


def paths_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return option(flags.PATHS)(func)
