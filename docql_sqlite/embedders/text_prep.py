"""What a passage looks like to an embedding model: Markdown noise out, a length budget.

A transformer's time grows with the tokens it reads, and the tokens of a URL, a table
rule or `**` carry no meaning a model can use. So the e5 embedder reads each passage
cleaned (links keep their text, markup and rules go, whitespace runs become one space)
and cut to a character budget: the opening of a chunk carries its meaning, its tail
mostly costs time (docs/search.md, "Embedding models and their cost", has the measured
curve). The stored chunk text is untouched; only the model's input changes.
"""

from __future__ import annotations

import re

# CJK characters cost ~2x a Latin letter in SentencePiece tokens (more tokens per
# character), so they count double against a budget: the same budget then bounds the
# time for every script.
_WIDE = re.compile("[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]")

_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_LINK = re.compile(r"\[([^\]\n]+)\]\([^)\n]*\)")
_REF_LINK = re.compile(r"\[([^\]\n]+)\]\[[^\]\n]*\]")
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*\S+.*$", re.MULTILINE)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?/?>")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# Table rules (|---|:--:|), thematic breaks (---, ***), fences (``` / ~~~ lines).
_RULE_LINE = re.compile(r"^[ \t]*(?:[|:\-+ \t]{3,}|[*_=\-]{3,}|`{3,}\w*|~{3,}\w*)[ \t]*$", re.M)
_MARKUP = re.compile(r"\*\*|__|`+")
_SPACE = re.compile(r"\s+")


def clean(text: str) -> str:
    """`text` as a model should read it: link text without its URL, no HTML tags, table
    rules, fences or emphasis marks, whitespace runs collapsed to one space."""
    text = _HTML_COMMENT.sub(" ", text)
    text = _LINK_DEFINITION.sub(" ", text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _HTML_TAG.sub(" ", text)
    text = _RULE_LINE.sub(" ", text)
    text = _MARKUP.sub("", text)
    return _SPACE.sub(" ", text).strip()


def truncate(text: str, budget: int) -> str:
    """The longest prefix of `text` costing at most `budget`, a CJK character costing 2."""
    if len(text) * 2 <= budget:
        return text  # fast path: cannot exceed the budget even if every character is wide
    cost = 0
    for index, char in enumerate(text):
        cost += 2 if _WIDE.match(char) else 1
        if cost > budget:
            return text[:index]
    return text
