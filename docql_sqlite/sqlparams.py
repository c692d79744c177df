"""Bound parameters for compiled SQL, and their rendering as SQL literals (`--inline`).

Compiling is pure: it reads no rows and loads no model. A value that only the index can
give (a query vector, term statistics) is a `Deferred` parameter, computed by `bind()`
when the statement runs (or is inlined), so `--sql` shows the statement at no cost.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:  # the dialects bind their own values (BM25 statistics) with `Deferred`
    from typing import Any

    from .dialect import Dialect


class Deferred(Record, frozen=True, eq=False):
    """A parameter computed when the statement runs; `label` says what it will hold."""

    label: str
    compute: Callable[[], Any]

    def __str__(self) -> str:
        return f"<{self.label}: bound when the query runs>"


def bind(values: dict[str, Any]) -> dict[str, Any]:
    """`values` with every `Deferred` computed (each once)."""
    return {k: (v.compute() if isinstance(v, Deferred) else v) for k, v in values.items()}


class Params:
    """Collects values as named parameters `:p0`, `:p1`… (in the dialect's marker style),
    reusing a name for an equal value."""

    def __init__(self, dialect: Dialect) -> None:
        self.values: dict[str, Any] = {}
        self.dialect = dialect

    def add(self, value: Any) -> str:
        if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
            value = float(value)  # SQLite integers are 64-bit; a bigger literal binds as REAL
        for name, existing in self.values.items():
            if type(existing) is type(value) and existing == value:
                return self.dialect.param(name)
        name = f"p{len(self.values)}"
        self.values[name] = value
        return self.dialect.param(name)


def sql_literal(value: Any) -> str:
    """A SQL literal that any SQLite shell reads back as `value`."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    if "\x00" in text:
        # A NUL cannot appear inside a quoted literal; spell the text as UTF-8 bytes.
        return f"CAST(X'{text.encode('utf-8').hex()}' AS TEXT)"
    return "'" + text.replace("'", "''") + "'"


def inline(sql: str, params: dict[str, Any], dialect: Dialect) -> str:
    """`sql` with every `:pN` replaced by its value as a literal (deferred ones computed)."""
    values = bind(params)
    return re.sub(dialect.PARAM_PATTERN, lambda m: sql_literal(values[m.group(1)]), sql)
