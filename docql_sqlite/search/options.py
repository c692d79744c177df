"""A `-word` that names an option the index documents is that option, not a negation.

The query syntax negates a word after a dash (`lumen -replication`), and a one-letter
option or a number is text already (`set -e`, `returns -1`: `terms.parse`). But find's,
ffmpeg's, Java's and X's options are whole words after one dash: "find -mtime" searched
for `find` in passages without "mtime", the one word that said what was asked. Smart
search reads such a word as the option when an entity of the index is named by it (a
manual page's `-mtime n`, an AsciiDoc `-name::`): a negation of a word no page documents
as an option stays one.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..records import replace
from ..sqlparams import Params
from ..text import fold
from . import terms as search_terms

if TYPE_CHECKING:
    from ..store import Store

_OPTION_WORD = re.compile(r"[A-Za-z][\w-]*")


def documented(
    store: Store, terms: list[search_terms.Term]
) -> tuple[list[search_terms.Term], list[str]]:
    """`terms` with each negated word that names a documented option made that option
    (`-mtime`, a positive term), and the steps saying so."""
    candidates = [t for t in terms if t.negated and not t.phrase and _OPTION_WORD.fullmatch(t.text)]
    if not candidates:
        return terms, []
    params = Params(store.dialect)
    names = ", ".join(params.add("-" + fold(t.text)) for t in candidates)
    found = {
        str(r["name"])
        for r in store.rows(
            f"SELECT DISTINCT name_fold AS name FROM entities WHERE name_fold IN ({names})",
            params.values,
        )
    }
    out, steps = [], []
    for term in terms:
        if term in candidates and "-" + fold(term.text) in found:
            out.append(replace(term, text="-" + term.text, negated=False))
            steps.append(f"-{term.text}: an option the index documents, not a negation")
        else:
            out.append(term)
    return out, steps
