"""Vim's help files: each `*tag*` is a term, as `:help tag` jumps to it.

A help file (Vim's own `doc/*.txt`, and every plugin's) opens with its own tag
(`*change.txt*  For Vim version 9.0`) or ends with a `vim:…ft=help` modeline. Its tags mark
what the text around them defines: `:[range]s[ubstitute]/{pattern}/… *:substitute*`, a
line of tags alone (`*:s* *:su*`) above the command. Each tag is a `Term` named as typed
(`:s`, `'tabstop'`, `i_CTRL-R`), spanning the paragraph it stands in (to the next blank
line), defined by that paragraph's text without its tags; so `$.entities[?(@.name==":s")]`
finds the place `:help :s` shows, and search knows the names. The outline (sections under
rules, tags as anchors) is `text_outline`'s.
"""

from __future__ import annotations

import re

from ..model import Entity

# the file's own tag on its first line, or a modeline naming the help filetype
_FIRST_TAG = re.compile(r"\*[\w.-]+\.txt\*")
_MODELINE = re.compile(r"\bvim?:[^\n]*\b(?:ft|filetype)=help\b")
# a tag: `*name*`, no space inside, after a space or at the line's start (not `a*b*c`)
TAG = re.compile(r"(?:(?<=\s)|^)\*([^*\s|\"]+)\*(?=\s|$)", re.M)
_DEFINITION_CHARS = 300


def is_vim_help(text: str) -> bool:
    """Whether `text` is a Vim help file."""
    first = text[:4096].lstrip()[:200].split("\n", 1)[0]  # (no copy of a large text)
    return _FIRST_TAG.match(first) is not None or _MODELINE.search(text[-500:]) is not None


def tag_terms(text: str) -> list[Entity]:
    """One `Term` per tag, in line order. Linear: each paragraph's end is found once, and
    a definition reads lines only until it has its characters."""
    lines = text.split("\n")
    ends = [0] * len(lines)  # the last line (1-based) of the paragraph line i+1 is in
    end = len(lines)
    for i in range(len(lines) - 1, -1, -1):
        if not lines[i].strip():
            end = i
        ends[i] = max(end, i + 1)
    terms: list[Entity] = []
    for number, line in enumerate(lines, 1):
        if "*" not in line:
            continue
        tags = TAG.findall(line)
        if not tags:
            continue
        parts: list[str] = []
        size = 0
        for i in range(number - 1, ends[number - 1]):
            part = TAG.sub(" ", lines[i]).strip()
            parts.append(part)
            size += len(part) + 1
            if size >= _DEFINITION_CHARS:
                break
        definition = re.sub(r"\s+", " ", " ".join(parts)).strip()[:_DEFINITION_CHARS] or None
        end_line = ends[number - 1]
        terms.extend(Entity("Term", tag, number, end_line, definition=definition) for tag in tags)
    return terms
