"""Bound parameters for compiled SQL, and their rendering as SQL literals (`--inline`)."""

from __future__ import annotations

import re
from typing import Any

_PARAM = re.compile(r":(p\d+)\b")


class Params:
    """Collects values as named parameters `:p0`, `:p1`…, reusing a name for an equal value."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def add(self, value: Any) -> str:
        if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
            value = float(value)  # SQLite integers are 64-bit; a bigger literal binds as REAL
        for name, existing in self.values.items():
            if type(existing) is type(value) and existing == value:
                return ":" + name
        name = f"p{len(self.values)}"
        self.values[name] = value
        return ":" + name


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


def inline(sql: str, params: dict[str, Any]) -> str:
    """`sql` with every `:pN` replaced by its value as a literal."""
    return _PARAM.sub(lambda m: sql_literal(params[m.group(1)]), sql)
