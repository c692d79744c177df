"""Python regular expressions → PostgreSQL ARE (advanced regular expressions).

DocQL regexes are Python's (the `regex` module, V0, runs them in SQLite); on PostgreSQL
`PostgresDialect.regex_value` binds their translation.
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

from ..errors import DocQLRegexError

# DocQL regexes are Python's (the `regex` module, V0, runs them in SQLite). A filter only asks
# "is there a match", so greediness does not matter and ARE's longest-match rules give the
# same answer; what must agree is what each atom matches. The translation walks Python's own
# parse of the pattern and spells each node the way ARE means the same thing: `.` excludes
# the newline unless `s`, `^`/`$` follow Python (`$` also before a final newline; lines with
# `m`), `\b` is `\y`. Constructs ARE has no equal for raise a clear error instead.
_ARE_SPECIAL = set("\\^$.|?*+()[]{}")
_ARE_MAX_REPEAT = 255  # ARE's bound on {m,n}
# `\d`, `\s`, `\w` and their negations; only the positive ones may stand inside [...].
_CATEGORIES = {
    sre.CATEGORY_DIGIT: "\\d",
    sre.CATEGORY_NOT_DIGIT: "\\D",
    sre.CATEGORY_SPACE: "\\s",
    sre.CATEGORY_NOT_SPACE: "\\S",
    sre.CATEGORY_WORD: "\\w",
    sre.CATEGORY_NOT_WORD: "\\W",
}
_CLASS_CATEGORIES = {k: v for k, v in _CATEGORIES.items() if v[1].islower()}


def python_regex_to_are(pattern: str, flags: str = "") -> str:
    """The ARE (PostgreSQL `~`) matching where the Python regex `pattern` matches."""
    c = sre
    bits = 0
    for flag in flags:
        bits |= {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}.get(flag, 0)
    try:
        parsed = sre_parse.parse(pattern, bits)
    except re.error as exc:
        raise DocQLRegexError(f"invalid regex /{pattern}/: {exc}") from None
    state = parsed.state.flags
    multiline, dotall = bool(state & re.MULTILINE), bool(state & re.DOTALL)

    def unsupported(what: str) -> DocQLRegexError:
        return DocQLRegexError(f"regex /{pattern}/: {what} cannot run on PostgreSQL")

    def literal(code: int) -> str:
        ch = chr(code)
        return "\\" + ch if ch in _ARE_SPECIAL else ch

    def class_item(op: Any, arg: Any) -> str:
        if op is c.LITERAL:
            ch = chr(arg)
            return "\\" + ch if ch in "\\]^-[" else ch
        if op is c.RANGE:
            return class_item(c.LITERAL, arg[0]) + "-" + class_item(c.LITERAL, arg[1])
        if op is c.CATEGORY and arg in _CLASS_CATEGORIES:
            return _CLASS_CATEGORIES[arg]
        raise unsupported(f"the class item {op} {arg}")

    def char_class(items: list[Any]) -> str:
        if len(items) == 1 and items[0][0] is c.CATEGORY:
            escape = _CATEGORIES.get(items[0][1])
            if escape is None:
                raise unsupported(f"the class {items[0][1]}")
            return escape
        negate = bool(items) and items[0][0] is c.NEGATE
        body = "".join(class_item(op, arg) for op, arg in items[negate:])
        return "[" + ("^" if negate else "") + body + "]"

    def repeat(lo: int, hi: int, lazy: bool) -> str:
        if hi is c.MAXREPEAT or hi == c.MAXREPEAT:
            q = {0: "*", 1: "+"}.get(lo, f"{{{lo},}}")
        elif (lo, hi) == (0, 1):
            q = "?"
        else:
            q = f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"
        if max(lo, 0 if hi == c.MAXREPEAT else hi) > _ARE_MAX_REPEAT:
            raise unsupported(f"a repeat count above {_ARE_MAX_REPEAT}")
        return q + ("?" if lazy else "")

    def at(code: Any) -> str:
        if code in (c.AT_BEGINNING_STRING,) or (code is c.AT_BEGINNING and not multiline):
            return "^"
        if code is c.AT_BEGINNING:
            return "(?:^|(?<=\\n))"
        if code is c.AT_END_STRING:
            return "$"
        if code is c.AT_END:
            return "(?:$|(?=\\n))" if multiline else "(?:$|(?=\\n$))"
        if code is c.AT_BOUNDARY:
            return "\\y"
        if code is c.AT_NON_BOUNDARY:
            return "\\Y"
        raise unsupported(f"the anchor {code}")

    def node(op: Any, arg: Any) -> str:
        if op is c.LITERAL:
            return literal(arg)
        if op is c.NOT_LITERAL:
            return "[^" + class_item(c.LITERAL, arg) + "]"
        if op is c.ANY:
            return "." if dotall else "[^\\n]"
        if op is c.IN:
            return char_class(list(arg))
        if op is c.BRANCH:
            return "(?:" + "|".join(sequence(branch) for branch in arg[1]) + ")"
        if op is c.SUBPATTERN:
            group, add_flags, del_flags, sub = arg
            if add_flags or del_flags:
                raise unsupported("a group with its own flags")
            return ("(" if group is not None else "(?:") + sequence(sub) + ")"
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            lo, hi, sub = arg
            inner = sequence(sub)
            if len(sub) != 1 or sub[0][0] in (c.MAX_REPEAT, c.MIN_REPEAT, c.AT):
                inner = "(?:" + inner + ")"
            return inner + repeat(lo, hi, op is c.MIN_REPEAT)
        if op is c.AT:
            return at(arg)
        if op is c.GROUPREF:
            return f"\\{arg}"
        if op in (c.ASSERT, c.ASSERT_NOT):
            direction, sub = arg
            kind = (
                ("=" if op is c.ASSERT else "!")
                if direction > 0
                else ("<=" if op is c.ASSERT else "<!")
            )
            return f"(?{kind}" + sequence(sub) + ")"
        raise unsupported(f"the construct {op}")

    def sequence(items: Any) -> str:
        return "".join(node(op, arg) for op, arg in items)

    body = sequence(parsed)
    # ARE options go first: `i` for case-insensitive matching set inside the pattern.
    return ("(?i)" if state & re.IGNORECASE and "i" not in flags else "") + body
