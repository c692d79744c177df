"""Single-file components (Vue's `.vue`, Svelte's `.svelte`, Astro's `.astro`) as the code
parser reads them.

A component is code whose `<script>` blocks are JavaScript, or TypeScript by their
`lang` (an Astro component's front matter, between its opening `---` lines, is
TypeScript); the rest of the file (its template, its style) is text of the document. The
parser is given the file with every other byte turned into a space and every newline
kept, so that symbols and references sit at the file's own lines and columns (design
B49). A Vue template's expressions — event handlers (`@click="onClick"`), bindings
(`:disabled="isDisabled()"`), directives (`v-if`, `v-for`'s list) and `{{ … }}` — are
kept too, each made a statement of its own in the same bytes, and so are a Svelte
template's (`{greet(name)}`, `on:click={save}`, `{#if …}`, `{#each …}`), so that the
methods a template calls are found by `$.code.callers` ("who calls onOverlayClick" is
answered by the `<div @click="onOverlayClick">` that does). A file whose template the
parser reads with an error is parsed in its scripts alone (`code._parse_code_text`).
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

from ..text import closing

_TYPESCRIPT_LANG = re.compile(rb"""\blang\s*=\s*["']?(?:ts|typescript)\b""", re.IGNORECASE)
_NOT_NEWLINE = re.compile(rb"[^\n]")


class _Element(NamedTuple):
    """An element of a component's top level, by its offsets: `<tag …>body</tag>`."""

    start: int  # its opening tag's `<`
    body: int  # the first byte after its opening tag's `>`
    body_end: int  # its closing tag's `<`
    end: int  # the first byte after its closing tag


def _elements(src: bytes, tag: bytes) -> list[_Element]:
    """The `<tag …>…</tag>` elements of `src` (`tag` in lower case), in one pass: each
    search starts where the last ended, so that a file of unclosed tags costs no more
    than its length (a regex's lazy match rescanned the rest for each: 160 KB of
    `<script>x` took 14 s). An element left open ends the list: the rest is not one."""
    lower = src.lower()
    found: list[_Element] = []
    at = 0
    opening, closing = b"<" + tag, b"</" + tag
    while (start := lower.find(opening, at)) >= 0:
        after = start + len(opening)
        if after < len(src) and (src[after : after + 1].isalnum() or src[after] in b"_-:"):
            at = after  # `<scripts>`, `<style-guide>`: another element
            continue
        body = src.find(b">", after)
        if body < 0:
            break
        body_end = lower.find(closing, body + 1)
        if body_end < 0:
            break
        end = src.find(b">", body_end)
        end = len(src) if end < 0 else end + 1
        found.append(_Element(start, body + 1, body_end, end))
        at = end
    return found


def _comments(src: bytes) -> list[tuple[int, int]]:
    """The spans of `src`'s `<!-- … -->` comments, in one pass (an unclosed one: the rest)."""
    spans, at = [], 0
    while (start := src.find(b"<!--", at)) >= 0:
        end = src.find(b"-->", start + 4)
        at = len(src) if end < 0 else end + 3
        spans.append((start, at))
    return spans


def _not_template(src: bytes) -> list[tuple[int, int]]:
    """What a template's expressions are not looked for in — scripts, styles and
    comments — as sorted, non-overlapping spans."""
    spans = sorted(
        [(e.start, e.end) for e in _elements(src, b"script") + _elements(src, b"style")]
        + _comments(src)
    )
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


_PAST_ANY_END = 1 << 62


def _inside(spans: list[tuple[int, int]], at: int) -> int | None:
    """The end of the span of `spans` (sorted, apart) that holds `at`, or None."""
    i = bisect.bisect_right(spans, (at, _PAST_ANY_END)) - 1
    return spans[i][1] if i >= 0 and spans[i][0] <= at < spans[i][1] else None


# A Vue directive whose value is an expression: an event handler (`@click`, `v-on:click`),
# a binding (`:disabled`, `v-bind:class`) or `v-if`, `v-else-if`, `v-show`, `v-for`,
# `v-model`, `v-html`, `v-text`. Its `=`, then its value between double quotes.
_DIRECTIVE = re.compile(
    rb"""\s(?P<attr>(?:@|v-on:)[\w.:-]+|(?::|v-bind:)[\w.-]+"""
    rb"""|v-(?:if|else-if|show|for|model|html|text))(?P<eq>=)"(?P<value>[^"<>;]*)\""""
)
_MUSTACHE = re.compile(rb"\{\{(?P<value>[^{}<>;]*)\}\}")
_HANDLER_NAME = re.compile(rb"\s*[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\s*")
_V_FOR = re.compile(rb"(?P<left>.*?\S)\s+(?:in|of)\s+(?P<right>\S.*)", re.DOTALL)


# An Astro component's front matter: its code, between a `---` first line and the next.
_FRONT_MATTER = re.compile(rb"\A---[ \t]*\n(.*?\n)---[ \t]*(?:\n|\Z)", re.DOTALL)


def component_language(text: str, path: str = "") -> str:
    """The language of a component's scripts: TypeScript when a <script> says so by its
    `lang` (an Astro component's always), else JavaScript (Vue's and Svelte's default)."""
    if path.lower().endswith(".astro"):
        return "typescript"
    src = text.encode("utf-8", "replace")
    ts = any(_TYPESCRIPT_LANG.search(src, e.start, e.body) for e in _elements(src, b"script"))
    return "typescript" if ts else "javascript"


def component_script(src: bytes, path: str = "", template: bool = True) -> bytes:
    """`src` with everything but its <script> blocks' bodies turned into spaces, byte for
    byte and newlines kept; with `template`, a Vue file's template expressions kept as
    statements of their own (`_template_expressions`)."""
    out = bytearray(_NOT_NEWLINE.sub(b" ", src))
    for block in _elements(src, b"script"):
        out[block.body : block.body_end] = src[block.body : block.body_end]
    if path.lower().endswith(".astro") and (front := _FRONT_MATTER.match(src)) is not None:
        out[front.start(1) : front.end(1)] = front.group(1)
    lower = path.lower()
    if template and lower.endswith(".vue") and (b'="' in src or b"{{" in src):
        _template_expressions(src, out)
    elif template and lower.endswith(".svelte") and b"{" in src:
        _svelte_expressions(src, out)
    return bytes(out)


def _template_expressions(src: bytes, out: bytearray) -> None:
    """Write a Vue template's expressions into `out` (the masked `src`) at their own
    bytes, each a statement: a directive's `=` becomes `;` and its quotes parentheses
    (`;(isDisabled())`), a handler that is a name alone a call of it (`@click="onClick"`:
    `;onClick()`, the name one byte left, over its opening quote), `v-for`'s list alone
    (`item in items`: `(      items)`), and `{{ label }}` `;( label) `. A value holding a
    `;` (two statements) is left out: in parentheses it would read as an error."""
    skip = _not_template(src)
    for m in _DIRECTIVE.finditer(src):
        value, start = m.group("value"), m.start("value")
        if not value.strip() or _inside(skip, m.start()) is not None:
            continue
        out[m.start("eq")] = ord(";")
        attr = m.group("attr")
        if attr[:1] == b"@" or attr.startswith(b"v-on:"):
            if _HANDLER_NAME.fullmatch(value):
                name = value.strip()
                out[start - 1 : start + len(value) + 1] = (name + b"()").ljust(len(value) + 2)
                continue
        if attr == b"v-for" and (parts := _V_FOR.fullmatch(value)) is not None:
            value = b" " * parts.start("right") + parts.group("right")
        out[start - 1] = ord("(")
        out[start : start + len(value)] = value
        out[start + len(value)] = ord(")")
    for m in _MUSTACHE.finditer(src):
        if not m.group("value").strip() or _inside(skip, m.start()) is not None:
            continue
        out[m.start() : m.end()] = b";(" + m.group("value") + b") "


# A Svelte tag's keyword before its expression: `{#if x}`, `{:else if x}`, `{#each x as
# item}`, `{#await x}`, `{#key x}`, `{@html x}`, `{@render x()}`.
_SVELTE_KEYWORD = re.compile(rb"\s*(?:#if|:else\s+if|#each|#await|#key|@html|@render)\s")
# Tags whose content is no expression to read: block ends, `{:else}`, `{:then v}`,
# `{:catch e}`, `{@const x = …}` (a declaration), `{@debug x}`, `{#snippet f(a)}`.
_SVELTE_SKIP = re.compile(rb"\s*(?:/|:else\s*$|:then|:catch|@const|@debug|#snippet)")
# An event attribute before a tag: `on:click=`, `on:click|preventDefault=`, `onclick=`.
_SVELTE_EVENT = re.compile(rb"\son(?::[\w|-]+|[a-z]+)=$")
_EACH_AS = re.compile(rb"\s+as\s")
_AWAIT_THEN = re.compile(rb"\s+then(?:\s|$)")


def _svelte_expressions(src: bytes, out: bytearray) -> None:
    """Write a Svelte template's expressions into `out` (the masked `src`) at their own
    bytes, each a statement: a tag's braces and keyword become spaces and its closing
    brace a `;` (`{greet(name)}`: ` greet(name);`), `{#each}`'s list, `{#await}`'s
    promise and a spread's (`{...props}`) expression alone, and an event handler named
    alone a call of it (`on:click={save}`: `save()`, the name one byte left over its
    brace, then a `;` after the tag)."""
    skip = _not_template(src)
    at = 0
    while (open_at := src.find(b"{", at)) >= 0:
        inside = _inside(skip, open_at)
        if inside is not None:
            at = inside
            continue
        after = closing(src, b"{", b"}", open_at + 1, MAX_TAG)
        if after is None:
            return  # a tag left open: the rest of the file is text
        close = after - 1
        at = close + 1
        content = src[open_at + 1 : close]
        if not content.strip() or _SVELTE_SKIP.match(content):
            continue
        start, end = open_at + 1, close
        keyword = _SVELTE_KEYWORD.match(content)
        spread = content.lstrip().startswith(b"...")  # `{...props}`: the props' expression
        if spread:
            start += content.index(b"...") + 3
        elif keyword is not None:
            start += keyword.end()
            head = src[start:end]
            cut = (_EACH_AS if keyword.group().strip() == b"#each" else _AWAIT_THEN).search(head)
            if cut is not None:
                end = start + cut.start()
        expression = src[start:end]
        if not expression.strip():
            continue
        if (
            keyword is None
            and not spread
            and _SVELTE_EVENT.search(src[max(0, open_at - 40) : open_at])
        ):
            if _HANDLER_NAME.fullmatch(expression):
                name = expression.strip()
                out[open_at : close + 1] = (name + b"()").ljust(close + 1 - open_at)
                if close + 1 < len(src) and src[close + 1 : close + 2] not in (b"\n", b""):
                    out[close + 1] = ord(";")
                continue
        out[start:end] = expression
        out[close] = ord(";")


MAX_TAG = 10_000  # bytes of one Svelte tag: past this, the rest of the file is text
