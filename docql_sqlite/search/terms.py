"""Plain search text → terms, which each engine's `Dialect` spells as full-text queries.

The FTS columns hold text with a space around every CJK character and are tokenized by
the built-in `unicode61` (DESIGN D4). So every term is sent as a quoted FTS5 string:
FTS5 runs the table's own tokenizer over it, which turns `DEC-0054` into the phrase
`dec 0054`, `2026.4.10` into `2026 4 10`, `snake_case` into `snake case`, and the
CJK-spaced `架构` into `架 构` — exactly the token sequences the index holds. Quoting
also keeps user words such as AND/OR/NOT/NEAR from being read as operators
(`SqliteDialect.match_and`; PostgreSQL gets tsquery literals of the same tokens).

Syntax accepted (the `lex:` language of spec §7): words, `"phrases"`, `-negation`
(of a word or a phrase), and `prefix*` (prefix matching only where asked).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..records import Record
from ..text import CJK_RUN, fold, fts_text, has_cjk
from . import cjk

# Tokens as unicode61 sees them: runs of letters and digits (`_` and punctuation split).
WORD = re.compile(r"[^\W_]+")
# Short English function words: dropped from a query that has other words, because in
# the OR fallback they would count as "covered" terms and outrank the real ones.
STOPWORDS = frozenset(
    "a an and are as at be but by can do does for from has have how i if in into is it its "
    "me my no not of on or our so than that the their then there these this to was we what "
    "when where which who why will with you your".split()
)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SUFFIXES = ("ations", "ation", "ings", "ing", "ers", "er", "ies", "ied", "es", "ed", "ly", "s")


class Term(Record, frozen=True):
    """One query term: a word, an identifier (several tokens) or a quoted phrase."""

    text: str
    phrase: bool = False  # written in "quotes"
    negated: bool = False
    prefix: bool = False
    # A piece of a CJK run (`cjk.split`): counts toward coverage, not as a name to match.
    part: bool = False
    # The word the index also holds this word and its neighbour in the query written as
    # (`log` and `scale` of "set log scale": gnuplot's `logscale`; `auto`, `increment`:
    # SQLite's `AUTOINCREMENT`): either matches the term (`compounds.join`).
    joined: str | None = None

    @property
    def tokens(self) -> list[str]:
        """The unicode61 tokens of the term (casefolded), CJK characters one by one."""
        return WORD.findall(fold(fts_text(self.text)))

    @property
    def fts(self) -> str:
        """The term as an FTS5 string (a phrase when it has several tokens; with `joined`,
        either spelling: `("log" OR "logscale")`)."""
        quoted = '"' + " ".join(self.tokens).replace('"', '""') + '"'
        if self.joined:
            return f'({quoted} OR "{self.joined}")'
        return quoted + " *" if self.prefix else quoted

    @property
    def needle(self) -> str:
        """Casefolded text to look for in a chunk's content (snippets, hit marking)."""
        return fold(self.text)

    @property
    def is_stopword(self) -> bool:
        return not self.phrase and not self.prefix and fold(self.text) in STOPWORDS


def parse(text: str, *, keep_stopwords: bool = False) -> list[Term]:
    """Split search text into terms. Unbalanced quotes close at the end of the text."""
    terms: list[Term] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        # `-word` and `-"phrase"` negate; `--flag`, a lone `-`, a short option (`-e`) and
        # a negative number (`-1`) are text.
        negated = text[i] == "-" and i + 1 < n and (text[i + 1].isalnum() or text[i + 1] == '"')
        if negated and _option_or_number(text, i + 1):
            negated = False
        if negated:
            i += 1
        if text[i] == '"':
            end = text.find('"', i + 1)
            end = n if end == -1 else end
            body, i = text[i + 1 : end], end + 1
            prefix = i < n and text[i] == "*"
            i += 1 if prefix else 0
            term = Term(body, phrase=True, negated=negated, prefix=prefix)
        else:
            start = i
            while i < n and not text[i].isspace() and text[i] != '"':
                i += 1
            word = text[start:i]
            prefix = word.endswith("*") and len(word.rstrip("*")) > 0
            term = Term(word.rstrip("*") if prefix else word, negated=negated, prefix=prefix)
        if term.tokens:  # pure punctuation ("&&", "-") carries nothing FTS5 can match
            terms.append(term)
    if not keep_stopwords:
        terms = split_cjk(terms)
        content = [t for t in terms if not t.negated and not t.is_stopword]
        if content:
            terms = [t for t in terms if t.negated or not t.is_stopword]
    return _unique(terms)


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _option_or_number(text: str, start: int) -> bool:
    """Whether the word at `start` (after a `-`) is one character or a number: `set -e`,
    `grep -v`, `returns -1` name an option or a value, and as negations they dropped every
    passage holding the letter or the number ("what does set -e do" found nothing of
    bash's `set` builtin, whose text says `-e`)."""
    end = start
    while end < len(text) and not text[end].isspace() and text[end] != '"':
        end += 1
    word = text[start:end].rstrip(",.;:?!)")
    return len(word) == 1 or _NUMBER.fullmatch(word) is not None


def split_cjk(terms: list[Term]) -> list[Term]:
    """Unquoted CJK runs as themselves, their core phrases and parts (`cjk.split`).

    Kept whole: quoted phrases, prefixes and negations. A term of question words only
    (`如何`, `什么`) is dropped when the query has other words, as stopwords are.
    """
    out: list[Term] = []
    fillers: list[Term] = []
    for term in terms:
        parts = None if term.phrase or term.prefix or term.negated else cjk.split(term.text)
        if parts is None:
            out.append(term)
            continue
        phrases, pieces = parts
        latin = CJK_RUN.sub(" ", term.text).split()
        new = [Term(t) for t in phrases + latin] + [Term(t, part=True) for t in pieces]
        new = [t for t in new if t.tokens]
        (out if pieces or latin else fillers).extend(new)
    return out if positives(out) else out + fillers


def _unique(terms: list[Term]) -> list[Term]:
    seen: set[tuple[str, bool, bool]] = set()
    out = []
    for term in terms:
        key = (" ".join(term.tokens), term.negated, term.prefix)
        if key not in seen:
            seen.add(key)
            out.append(term)
    return out


def positives(terms: list[Term]) -> list[Term]:
    return [t for t in terms if not t.negated]


# -- long search text ------------------------------------------------------------------
# A pasted page of text must neither fail nor take long: SQLite caps expression depth and
# function arguments, and every term costs FTS5 work. Past this many positive terms only
# the most informative are kept (the rarest by document frequency, as BM25's IDF ranks
# them), and at most MAX_TERMS negated ones.
MAX_TERMS = 32
# Document frequencies are looked up (one FTS count each, ~0.1 ms) for this many terms at
# most; words beyond them in a very long text are dropped unseen.
MAX_DF_LOOKUPS = 2000


def reduce_terms(
    terms: list[Term], doc_freq: Callable[[Term], int], limit: int = MAX_TERMS
) -> tuple[list[Term], str | None]:
    """At most `limit` positive and `limit` negated terms, and a note saying what was cut.

    Positive terms are ranked by `doc_freq` (chunks holding the term), rarest first; terms
    found nowhere come last, since they can match nothing. The kept terms stay in the
    order they were typed, so phrases, ANDs and snippets read as the user wrote them.
    """
    positive = positives(terms)
    negated = [t for t in terms if t.negated]
    if len(positive) <= limit and len(negated) <= limit:
        return terms, None
    looked_up = positive[:MAX_DF_LOOKUPS]
    if len(positive) > limit:
        freq = {t: doc_freq(t) for t in looked_up}
        order = sorted(
            range(len(looked_up)), key=lambda i: (freq[looked_up[i]] == 0, freq[looked_up[i]], i)
        )
        keep = {looked_up[i] for i in order[:limit]}
    else:
        keep = set(positive)
    keep.update(negated[:limit])
    reduced = [t for t in terms if t in keep]
    kept_pos = len(positives(reduced))
    note = (
        f"long search text: kept the {kept_pos} rarest of {len(positive)} terms "
        f"(by document frequency"
        + (f", of the first {MAX_DF_LOOKUPS}" if len(positive) > MAX_DF_LOOKUPS else "")
        + ")"
    )
    if len(negated) > limit:
        note += f" and the first {limit} of {len(negated)} negated terms"
    return reduced, note


def keep_first(terms: list[Term], limit: int = MAX_TERMS) -> list[Term]:
    """At most `limit` positive and negated terms, the first ones typed: the cap where no
    document frequencies can be read (compiling `$.content.search(q)` reads no rows)."""
    return reduce_terms(terms, lambda term: 1, limit)[0]


# -- keyword expansion (smart search) --------------------------------------------------
def split_identifier(word: str) -> list[str]:
    """Component words of camelCase, PascalCase, snake_case, kebab and dotted names."""
    parts: list[str] = []
    for piece in re.split(r"[\W_]+", word):
        parts.extend(p.lower() for p in _CAMEL.findall(piece)) if not has_cjk(
            piece
        ) else parts.append(piece)
    return [p for p in parts if p]


# camelCase / PascalCase with an inner capital, snake_case, dotted or `::` paths, letters
# with digits: how code names look, unlike an English word (`handle`, `HTTP`, `Handle`).
_IDENTIFIER = re.compile(
    r"[a-z][A-Z]|[A-Z]{2,}[a-z]|[A-Za-z]_[A-Za-z0-9]|\w\.\w|::|[A-Za-z]\d|\d[A-Za-z]"
)


def is_identifier(text: str) -> bool:
    """Whether a query word is written like a code name (`createReadStream`, `parse_args`)."""
    return _IDENTIFIER.search(text) is not None


def stem(word: str) -> str:
    """A crude English stem (suffix stripping): `indexing` → `index`, `queries` → `quer`."""
    w = word.lower()
    if not w.isascii() or not w.isalpha():
        return w
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            return w[: -len(suffix)]
    return w


class Expansion(Record, frozen=True):
    """The three keyword levels of smart search (AutoDev's KeywordExpander, made concrete)."""

    exact: list[Term]  # level 1: the query as typed (and, for several words, the phrase)
    components: list[Term]  # level 2: parts of identifiers, words of phrases
    stems: list[Term]  # level 3: stem prefixes


def expand(terms: list[Term]) -> Expansion:
    words = positives(terms)
    negated = [t for t in terms if t.negated]
    components: list[Term] = []
    for term in words:
        parts = split_identifier(term.text) if not CJK_RUN.fullmatch(term.text) else [term.text]
        for part in parts:
            if fold(part) not in STOPWORDS:
                components.append(Term(part))
    components = _unique(components + negated)
    stems = []
    for term in positives(components):
        root = stem(term.text)
        # A prefix on the stem finds the inflections: plan* → planner, planning, plans.
        if root.isascii() and len(root) >= 4:
            stems.append(Term(root, prefix=True))
    return Expansion(terms, components, _unique(stems + negated))


# -- symbols as written (`literals.py`: "$@ vs $*", "||", "2>&1") ------------------------
# Characters that make a token a symbol; `.`, `-`, `_` and `'` are word-internal
# (`fs.watch`, `--depth`, `snake_case`, `what's`) and the word search reads them.
SYMBOL_CHARACTERS = frozenset("$@*#?!|&<>[]{}=+%^~\\/:;`")
# Letters and digits a symbol may carry (`$1`, `2>&1`, `C++`); more make it words.
MAX_ALNUM = 2
MAX_SYMBOLS = 4
# A query of more content words than this is a description or a pasted passage ("returns the
# number of zero bits of |x|", a Rust example with `//` comments): its symbols are
# incidental, and the list of passages holding them noise.
MAX_WORDS = 8
# Punctuation around a word that belongs to the sentence ("is it?", "(see C++)"), and
# the brackets of a placeholder (`<n>`, "<Framework X>": words, not symbols).
_SENTENCE = "\"'()[]{}<>,.;:?!"


def symbols(text: str) -> list[str]:
    """The symbols of `text`, in order, each once: whitespace-separated tokens of two
    characters or more holding a `SYMBOL_CHARACTERS` character and at most `MAX_ALNUM`
    letters or digits. A token with letters loses the sentence's punctuation around it
    first ("is it?" has none); one of punctuation alone is taken whole (`$?`, `[[`)."""
    found: list[str] = []
    tokens = text.split()
    words = [t for t in tokens if any(ch.isalnum() for ch in t)]
    if sum(t.strip(_SENTENCE).lower() not in STOPWORDS for t in words) > MAX_WORDS:
        return []  # a description or a pasted passage: its symbols are incidental
    for token in tokens:
        alnum = sum(ch.isalnum() for ch in token)
        core = token.strip(_SENTENCE) if alnum else token.strip("\"'").rstrip(",.;")
        if (
            len(core) >= 2
            and alnum <= MAX_ALNUM
            and any(ch in SYMBOL_CHARACTERS for ch in core)
            and core not in found
        ):
            found.append(core)
    return found[:MAX_SYMBOLS]
