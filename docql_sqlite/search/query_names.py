"""The names a query stands for: what a symbol, heading or entity name may equal or contain.

Read by the name lists (`name_lists.py`: which names to look for, and how much a match
counts) and by the final score (`fusion.composite`: the bonus of a name equal to the query).
"""

from __future__ import annotations

import re

from ..records import Record, field
from ..text import fold, has_cjk
from . import terms as search_terms

# Name lists match a name *containing* a term only for short queries: in a pasted
# sentence every common word is inside some identifier.
SHORT_QUERY = 3
# A section a question names ("where is the magic trailing comma explained" → "The magic
# trailing comma", "what is the write-ahead log" → "Write-Ahead Log"): a heading whose
# content words are a run of MIN_PHRASE_TOKENS or more of the question's, up to
# MAX_PHRASE_TERMS terms, in questions of at most PHRASE_QUERY terms (a pasted passage
# holds every common heading somewhere). The run must be more than MIN_PHRASE_SHARE of
# the question's terms: "porcelain format" of "show porcelain format with per-line commit
# information" named two other pages' sections above the option asked for (git set), and
# "code of conduct" of "… for the mailing lists" the Rust books' above the FAQ's answer.
MIN_PHRASE_TOKENS, MAX_PHRASE_TERMS, PHRASE_QUERY = 2, 6, 12
MIN_PHRASE_SHARE = 0.5
# A symbol the query names with another case, or inside a longer name, counts this share
# in the code name lists and the name bonus (`QueryNames.case_share`): "Environment" on
# Jinja2 ranked `set_environment` and three other functions before `class Environment`
# (each in the BM25 list and both name lists; the class's first passage, a docstring,
# far down BM25's), "Config" on pytest the property `config` before `class Config`.
CASE_SHARE = 0.5
_CASED = re.compile(r"[A-Za-z_$][\w$]*")


class QueryNames(Record, frozen=True):
    """Names a symbol, heading or entity may equal or contain, and which of them are strong.

    Equal: each term, and the words joined (`query planner` → queryplanner, query_planner).
    Contain: the joined forms; a lone term only when it is the whole query — with two
    words, a name holding just one of them ("LumenError" for "lumen index") is noise.
    Strong: a name that stands for the whole query — the only term, a term written like
    an identifier (`createReadStream`), or the words joined. A plain English word of a
    longer question (`handle` in "how do I handle errors") is weak: it answers one word.
    """

    equal: list[str]
    contain: list[str]
    strong: frozenset[str]
    words: int  # positive terms (names and plain words alike)
    # A query that is one qualified name (`django.middleware.csrf.CsrfViewMiddleware`,
    # `std::io::Error`, `fs.readFile`): its last part, and the part before it, which a
    # symbol of that name must have as a folder, its file's stem or its parent's name.
    qualified: tuple[str, str] | None = None
    # Runs of the query's content words a heading may be made of (`content_key` of the
    # run → the share of the query it stands for: its terms / `words`).
    phrases: dict[str, float] = field(default_factory=dict)
    # The query's names typed with a capital (`Config`, `MonkeyPatch`, `HTTPServer`):
    # code is case-sensitive, so a symbol spelled otherwise (`config`, `set_environment`
    # for `Environment`) is not the one asked for (`case_share`).
    cased: frozenset[str] = frozenset()
    # A class's name and a member's written as two words ("how does HashMap resize"):
    # (the member, the class), folded, for each such pair of adjacent words
    # (`member_pairs`); a symbol that is that member of that class is named by both.
    members: tuple[tuple[str, str], ...] = ()
    # A name the query gives with its kind ("class Session", "function create_engine"):
    # (the name as typed, the symbol kinds the kind word names) (`kind_named`).
    kinded: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # The last part of a qualified name, as typed, when it has a capital: that spelling
    # is the member asked for (`ts.createProgram` is not the type `ts.CreateProgram`).
    qualified_spelling: str = ""
    # A task's words joined as code spells a name (`push_screen`): the function that
    # does it, never a test of it (`test_command` for "how do I test a command").
    spelled: frozenset[str] = frozenset()
    # The qualified names of a short query of several terms ("AsyncResult.get timeout"):
    # (last part, the part before it), folded, for each (`qualified` is the one-name
    # query's); an API entry named with its package before them is one of them.
    mentioned: tuple[tuple[str, str], ...] = ()
    # The query's hyphenated words, folded ("many-to-one"): a title holding their words in
    # another order is no phrase of the query (Django's "One-to-many relationships").
    compounds: tuple[str, ...] = ()

    def weight(self, match: str | None, code: bool = False) -> float:
        """A name channel row's share of its list weight (`fusion.rrf`'s `_weight`), the
        name as matched; `code` for a code symbol's name, as its code spells it (which
        the query's capitals may not: `case_share`)."""
        folded = fold(match or "")
        # (an API entry a qualified name of the query names stands for that name as typed)
        strong = folded in self.strong or folded.endswith(self.mentioned_suffixes)
        share = 1.0 if strong else 1.0 / max(1, self.words)
        return share * self.case_share(match) if code else share

    @property
    def mentioned_suffixes(self) -> tuple[str, ...]:
        """How the API entries the `mentioned` names name end, after their package:
        `.asyncresult.get` (Sphinx's `celery.result.AsyncResult.get`)."""
        return tuple(f".{parent}.{last}" for last, parent in self.mentioned)

    def parts_share(self, name: str | None) -> float:
        """The share of a code name's parts the query's words make, at most 1: a name
        holding the query in a longer compound (`tokio_thread_local` for "what is
        tokio", 1 part of 3) is about something else as much as about it — tokio's
        internal macro came before its README's "Tokio" once macros were symbols."""
        parts = len(search_terms.split_identifier(name or ""))
        return min(1.0, max(1, self.words) / parts) if parts else 1.0

    def case_share(self, symbol: str | None) -> float:
        """CASE_SHARE for a code symbol's name that holds a name the query typed with a
        capital, folded, but is not that name as typed (`config` or `get_config` for
        `Config`); else 1. Only the code name lists ask (symbols, code words): headings
        and prose are not case-sensitive."""
        if not self.cased or not symbol or symbol in self.cased:
            return 1.0
        folded = fold(symbol)
        return CASE_SHARE if any(fold(c) in folded for c in self.cased) else 1.0


# A question's last word keeps its mark as a term ("what is DocQLLexer?"): as a name
# it would equal no symbol or heading. Only a question's or an exclamation's marks: a
# comma or a full stop after a name in a description ("as generated by
# QuoteRuneToGraphic, to dst") mentions another item, and matching it lost the Go set
# a known item.
SENTENCE_MARKS = "?!？！"
# A hyphenated word (`many-to-one`, `--watch-path`): `QueryNames.compounds`.
_COMPOUND = re.compile(r"\w-\w")


# Words that open where or with what a task is done ("set a cookie in rack", "read a
# file with tokio", "remove an item from a list"): the words before them are the action.
_PLACE_WORDS = frozenset({"in", "with", "using", "via", "inside", "within", "from", "for", "on"})


def _action_spelled(text: str, parts: list[str]) -> list[str]:
    """A task's action — its words before the first of `_PLACE_WORDS`, two or more of
    them — spelled as code names it (`set_cookie`, `setcookie`), when that is not the
    whole task: on rack's code "how to set a cookie in rack" ranked `Response#set_cookie`
    (first in BM25 and by its code words) 7th, below prose that mentions cookies."""
    words = text.split()
    cut = next((i for i, w in enumerate(words) if i and fold(w) in _PLACE_WORDS), None)
    if cut is None:
        return []
    head = [
        p
        for w in words[:cut]
        if fold(w) not in search_terms.STOPWORDS
        for p in search_terms.split_identifier(w)
    ]
    if len(head) < 2 or head == parts:
        return []
    return ["".join(head), "_".join(head)]


def as_name(term: str) -> str:
    """A query term as the name it may equal: folded, without a question mark."""
    return fold(term).rstrip(SENTENCE_MARKS)


def query_names(terms: list[search_terms.Term], task: bool = False, text: str = "") -> QueryNames:
    """The names of the query (`QueryNames`), for the name lists and the final score.
    A `task` (the topic of "how do I test a command", `frames.py`) is a phrase, not a
    name written as words: its words joined name nothing (on click's sdist the tests
    `test_command` came first, each a name "equal to the query", its docs' "Testing
    Click Applications" not in the first 20)."""
    # Parts of a CJK run (`自定义主题` → 自定义, 主题) are not names: a heading equal to one
    # of them ("禁用" for 如何禁用日期) would outrank the passage about the whole question.
    positive = [t for t in search_terms.positives(terms) if not t.part]
    words = [as_name(t.text) for t in positive]
    parts = [p for t in positive for p in search_terms.split_identifier(t.text)]
    # One qualified name (`Connection.execute`, `fs::read`) is a member of what its dots
    # name, never its parts joined into one: `connection_execute`, a test helper of
    # SQLAlchemy's, came first as a name "equal to the query", before the method.
    named = _qualified_parts(positive[0].text) if len(positive) == 1 else None
    dotted = named is not None
    joined = (
        ["".join(parts), "_".join(parts), "-".join(parts), " ".join(parts)]
        if len(parts) > 1 and not task and not dotted
        else []
    )
    if joined and len(positive) > 1 and " ".join(words) not in joined:
        # ... and the terms as typed, an identifier among them: SQLite's heading "PRAGMA
        # journal_mode" for "what does PRAGMA journal_mode do" (2nd, behind a WAL page's
        # passage saying `PRAGMA journal_mode=WAL;`)
        joined.append(" ".join(words))
    # A task's words joined as code spells a name (`push_screen`, `pushscreen`) may name
    # the function that does it: an equal name of the symbols list at a plain word's
    # weight, none to look for inside longer names (textual's sdist, code alone: "how do
    # I push a screen" found no `App.push_screen`, its `action_push_screen` first).
    spelled = ["".join(parts), "_".join(parts)] if task and len(parts) > 1 and not dotted else []
    if task and not dotted:
        spelled += _action_spelled(text, parts)
    equal = list(dict.fromkeys(n for n in words + joined + spelled if n))
    contain = joined + (words if len(positive) == 1 else [])
    if len(positive) > SHORT_QUERY:
        contain = []
    strong = set(joined) | {as_name(t.text) for t in positive if search_terms.is_identifier(t.text)}
    if len(positive) == 1:
        strong.update(words)
    # A name given with its kind ("class Session"), read in `text`, the query as typed:
    # a kind word's neighbour is the next word typed ("type of Engine" names no type);
    # without it, the next term.
    kinded = kind_named(text.split() or [t.text for t in positive], len(positive))
    strong.update(fold(name) for name in kinded)
    # A capital is a case only in a name: the query's one word, a word written like an
    # identifier, or one given with its kind — not the first word of a sentence ("How
    # do I …", "Environment variables …").
    cased = {
        text
        for t in positive
        if (text := t.text.rstrip(SENTENCE_MARKS)) != text.lower()
        and _CASED.fullmatch(text)
        and (len(positive) == 1 or search_terms.is_identifier(text) or text in kinded)
    }
    last = named[-1] if named else ""
    mentioned = (
        [found for t in positive if (found := _qualified_parts(t.text))]
        if 1 < len(positive) <= SHORT_QUERY
        else []
    )
    return QueryNames(
        equal,
        list(dict.fromkeys(n for n in contain if len(n) >= 3)),
        frozenset(strong),
        len(search_terms.positives(terms)),
        (fold(named[-1]), fold(named[-2])) if named else None,
        task_phrases(phrases(positive), positive) if task else phrases(positive),
        frozenset(cased),
        member_pairs([t.text for t in positive]),
        tuple(sorted(kinded.items())),
        last if last != last.lower() else "",
        frozenset(spelled),
        tuple((fold(p[-1]), fold(p[-2])) for p in mentioned),
        tuple(fold(t.text) for t in positive if _COMPOUND.search(t.text)),
    )


# Words that say what kind of code a name is ("the source of class Session", "function
# create_engine", "the Session class"): the word beside one, written like a name, is a
# name, however common as a word.
# A kind word → the symbol kinds (`symbols.kind`) it names.
_TYPES = ("class", "struct", "interface", "enum", "trait", "type")
_FUNCTIONS = ("function", "method", "constructor")
KIND_WORDS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("class", "classes"), ("class", "struct")),
    **dict.fromkeys(("struct", "structs"), ("struct", "class")),
    **dict.fromkeys(("function", "functions", "func", "fn", "def", "decorator"), _FUNCTIONS),
    **dict.fromkeys(("method", "methods"), ("method", "function")),
    **dict.fromkeys(("interface", "interfaces"), ("interface",)),
    **dict.fromkeys(("trait", "traits"), ("trait",)),
    **dict.fromkeys(("enum", "enums"), ("enum",)),
    **dict.fromkeys(("macro", "macros"), ("macro",)),
    **dict.fromkeys(("module", "modules"), ("module", "namespace")),
    **dict.fromkeys(("type", "typedef"), _TYPES),
    "constructor": ("constructor",),
}


# ... in a look-up of at most this many content words: Go's doc comment "… returns the
# Cmd struct to execute the named program …" describes `Command`, not the struct.
KIND_QUERY = 4
# Marks around a word as typed that are no part of a name ("`Session`", "(class").
_AROUND = "\"'`()[]{},;:!?？！"


def kind_named(words: list[str], content_words: int | None = None) -> dict[str, tuple[str, ...]]:
    """The words written like a name (a capital then a small letter, or an identifier's
    `_`, digits or inner capitals) that stand right after a kind word ("class Session")
    or right before one ("the Session class"), each with the symbol kinds that word
    names (`words`: the query's words as typed; `content_words`: how many of them are
    not stopwords, else all). On SQLAlchemy "source of class Session" found prose about
    sessions:
    `Session` is in thousands of passages, and a plain word of a three-word query names
    no symbol (`name_lists.rows`), so `class Session` was in no list."""
    found: dict[str, tuple[str, ...]] = {}
    if (len(words) if content_words is None else content_words) > KIND_QUERY:
        return found  # a sentence: "returns the Cmd struct to execute the named program"
    words = [word.strip(_AROUND) for word in words]
    for i, word in enumerate(words):
        kinds = KIND_WORDS.get(fold(word))
        if kinds is None:
            continue
        for j in (i + 1, i - 1):
            if 0 <= j < len(words):
                name = words[j].rstrip(SENTENCE_MARKS)
                if (
                    fold(name) not in KIND_WORDS
                    and _CASED.fullmatch(name)
                    and (_CLASS_WORD.fullmatch(name) or search_terms.is_identifier(name))
                ):
                    found.setdefault(name, kinds)
    return found


# A class's name as a sentence writes it: a capital, then a small letter somewhere
# (`HashMap`, `Session`; not `URL`, `I`, a constant).
# (or a class written with its package path, as Perl, Ruby and C++ write it: `Mojo::DOM`,
# `Net::HTTP`, whose last part may be capitals alone)
_CLASS_WORD = re.compile(r"[A-Z][\w$]*[a-z][\w$]*|(?:[A-Za-z_][\w$]*::)+[A-Z][\w$]*")
_MEMBER_WORD = re.compile(r"[A-Za-z_$][\w$]{2,}")


def member_pairs(words: list[str]) -> tuple[tuple[str, str], ...]:
    """(member, class), folded, for each word written like a class's name followed by
    a word that may be its member's ("how does HashMap resize", "Session close"): the
    symbol `HashMap.resize` is what both words name, where the name lists found every
    `resize` and every `HashMap` apart (`HashMap.resize` was not among the first ten of
    OpenJDK's java.util; "Mojo::DOM find" names `Mojo.DOM.find`). A sentence's first
    word has its capital anyway ("Explain caching"): such a pair names nothing unless
    the index has that member of that class, which the symbols list asks
    (`name_lists._qualified_symbol`)."""
    pairs = []
    for first, second in zip(words, words[1:]):
        second = second.rstrip(SENTENCE_MARKS + ",;:")
        if (
            _CLASS_WORD.fullmatch(first)
            and _MEMBER_WORD.fullmatch(second)
            and fold(second) not in search_terms.STOPWORDS
        ):
            pairs.append((fold(second), fold(first).replace("::", ".")))
    return tuple(dict.fromkeys(pairs))


def content_words(text: str) -> list[str]:
    """The words of `text` as unicode61 tokens, casefolded, stopwords out ("The magic
    trailing comma" → magic, trailing, comma; "Write-Ahead Log" → write, ahead, log).
    One regex pass: it runs on every candidate title of a search."""
    return [
        w for w in search_terms.WORD.findall(text.casefold()) if w not in search_terms.STOPWORDS
    ]


def content_key(text: str) -> str:
    """A title's content words joined by spaces, without the number it prints
    (`TITLE_NUMBER`): what a heading is compared with a run of the query's words by
    (`phrases` makes the runs with the same words)."""
    return " ".join(content_words(TITLE_NUMBER.sub("", text, count=1)))


# The number a title prints before its words: `12.1.2.2. Setting up LVM`, `Chapter 6.`,
# `A.2. Ubuntu`, `1.2 Overview` (DocBook, Sphinx's numbered sections, RFCs). Kept, its
# words never equalled a run of the question's: on the Debian Administrator's Handbook
# "where is the apt-cache policy command explained" found "6.3.1. The apt-cache policy
# Command" third, behind two passages that hold the words. A number that is a title's
# word stays (`404 errors`, `2FA setup`).
TITLE_NUMBER = re.compile(
    r"^\s*(?:(?:chapter|appendix|section|part)\s+)?"
    r"(?:\d+(?:\.\d+)*\.|\d+(?:\.\d+)+|[a-z](?:\.\d+)*\.)\s+",
    re.IGNORECASE,
)


def phrases(positive: list[search_terms.Term]) -> dict[str, float]:
    """The runs of consecutive content terms a heading may be named by (`QueryNames.phrases`):
    2 to MAX_PHRASE_TERMS terms, or one term of several words ("magic trailing comma" in
    quotes), of MIN_PHRASE_TOKENS tokens or more and more than MIN_PHRASE_SHARE of the
    terms; none for a long query."""
    if len(positive) > PHRASE_QUERY or not all(_plain(t) for t in positive):
        return {}
    words = [content_words(t.text) for t in positive]
    out: dict[str, float] = {}
    for start in range(len(positive)):
        tokens: list[str] = []
        for end in range(start, min(start + MAX_PHRASE_TERMS, len(positive))):
            tokens += words[end]
            share = (end - start + 1) / len(positive)
            if len(tokens) >= MIN_PHRASE_TOKENS and share > MIN_PHRASE_SHARE:
                key = " ".join(tokens)
                out[key] = max(out.get(key, 0.0), share)
    return out


def task_phrases(runs: dict[str, float], positive: list[search_terms.Term]) -> dict[str, float]:
    """A task's runs (`phrases`) and, for each run that opens with the task's verb, the same
    run opened by the verb's -ing form: a guide titles the section that explains "how do I
    add a table" "Adding a table" (python-docx's quickstart: not in the first five, behind
    enum pages that hold "table" and "add" more often). Only the verb a task opens with,
    only as a heading's first word: the run is still the task's words in its order."""
    verb = content_words(positive[0].text) if positive else []
    if len(verb) != 1:
        return runs
    out = dict(runs)
    for key, share in runs.items():
        first, *rest = key.split()
        if first == verb[0]:
            for form in gerunds(first):
                out.setdefault(" ".join([form, *rest]), share)
    return out


def gerunds(verb: str) -> set[str]:
    """The -ing forms an English verb may take, by spelling alone: add → adding, create →
    creating, set → setting (a final consonant doubled after one vowel), tie → tying. A
    form no title holds finds nothing, so the rules may offer one too many."""
    if len(verb) < 2 or not verb.isalpha() or not verb.isascii():
        return set()
    forms = {verb + "ing"}
    if verb.endswith("ie"):
        forms.add(verb[:-2] + "ying")
    elif verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        forms.add(verb[:-1] + "ing")
    if _DOUBLED.search(verb):
        forms.add(verb + verb[-1] + "ing")
    return forms


# One vowel before a final consonant that English doubles before -ing (set, run, stop).
_DOUBLED = re.compile(r"(?:^|[^aeiou])[aeiou][bdgklmnprtvz]$")


def _plain(term: search_terms.Term) -> bool:
    """A word of prose (`explained?` too) or a quoted phrase: what a heading's title is
    made of. An identifier (`by_ref`, `InputNumberProps`), a prefix, code punctuation or
    CJK (ranked by the passage channels, cjk.py) makes the query no question that names
    a section."""
    if term.phrase:
        return not has_cjk(term.text)
    return (
        not term.prefix
        and not has_cjk(term.text)
        and _PROSE_WORD.fullmatch(term.text) is not None
        and not search_terms.is_identifier(term.text)
    )


# A word as prose writes it: letters, digits, inner apostrophes and hyphens, and a
# sentence's mark after it; no CJK (`has_cjk`'s characters are letters to `\w`).
_PROSE_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*[.,;:?!]?")


# `a.b.C`, `a::b::C`, `a/b.C`: segments of names, the last one a name of 3+ characters.
# (`#` as Ruby's and JavaScript's manuals and Javadoc's `{@link}` name an instance's
# method: `Net::HTTP#start`, `Array#map`, `List#add`)
_QUALIFIED = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|/|#)[A-Za-z_$][\w$]*)+")


def qualified(text: str) -> tuple[str, str] | None:
    """(last part, the part before it), folded, of a query that is one qualified name;
    None for anything else (a sentence mentioning `pkg.Func` keeps its words: matching
    the mention lost the Go set a known item, `SENTENCE_MARKS`)."""
    parts = _qualified_parts(text)
    return (fold(parts[-1]), fold(parts[-2])) if parts else None


def _qualified_parts(text: str) -> list[str] | None:
    """The parts of a query that is one qualified name, as typed (`qualified`)."""
    text = text.rstrip(SENTENCE_MARKS).removesuffix("()")  # `Session.merge()`: a call's
    if not _QUALIFIED.fullmatch(text):
        return None
    # JavaScript's `Array.prototype.includes` (as MDN and every JS manual write a method)
    # is the member `includes` of `Array`.
    parts = [p for p in re.split(r"\.|::|/|#", text) if p != "prototype"]
    return parts if len(parts) >= 2 and len(parts[-1]) >= 3 else None
