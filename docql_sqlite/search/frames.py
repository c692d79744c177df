"""Question frames: the words of a question that say where it wants its answer found,
not what it is about — "where is X explained?", "which page describes X?", "where can I
read about X?".

Smart search searches for the topic (X) alone, and when the frame asks for prose
(every frame but "defined": where a thing is *defined* is its code), passages of code
files count less (`fusion.CODE_SHARE`). Why: a frame word names no topic, yet in BM25 it
is often the question's rarest word, so its passages were the only OR candidates beside
the common words (`stats.common_terms`): on Flask's sdist "where is the application
context explained" found a file-upload page that "explained" something and the function
`_get_source_explained`, and "which page explains the application context" the pages
with "page" and "explains"; and code whose names equal the topic (the property
`blueprints`, the class `RequestContext`) came before the docs that explain it.

A question about a name's uses in code ("who calls X", "where is X used") is a frame
too: its topic is the name, and its uses are the answer (`Frame.uses`, `uses.py`).
"""

from __future__ import annotations

import re

from ..records import Record
from . import terms as search_terms

_PARTICIPLES = r"explained|documented|described|discussed|covered|mentioned|defined|implemented"
_VERBS = (
    r"explains|describes|documents|discusses|covers|mentions|defines|talks\s+about"
    r"|is\s+about|deals\s+with"
)
_PLACES = (
    r"pages?|sections?|chapters?|parts?|docs?|documents?|documentation|guides?|manuals?"
    r"|articles?|topics?"
)
_FRAMES = [
    # where is X explained [in the docs]
    re.compile(
        rf"^where\s+(?:is|are|was|were)\s+(?P<topic>.+?)\s+(?P<frame>{_PARTICIPLES})"
        rf"(?:\s+in\s+(?:the\s+)?(?:{_PLACES}))?$",
        re.IGNORECASE,
    ),
    # where can I read / learn / find information about X
    re.compile(
        r"^where\s+(?:can|could|do|should|would|might)\s+(?:i|we|you|one)\s+"
        r"(?P<frame>read|learn|find\s+out|find\s+(?:information|docs|documentation|details)"
        r"|look)(?:\s+(?:more|up))?\s+(?:about|on|for)\s+(?P<topic>.+)$",
        re.IGNORECASE,
    ),
    # how do I X, how can we X, how to X: a task, which a guide explains
    re.compile(
        r"^(?P<frame>how\s+(?:(?:do|can|could|should|would|might|may)\s+(?:i|we|you|one)"
        r"|to))\s+(?P<topic>.+)$",
        re.IGNORECASE,
    ),
    # how does X work [in Y]: an explanation of X (in Y) — "work" is no word of it
    re.compile(
        r"^how\s+(?:does|do|did|will|would|can|could|should)\s+(?P<topic>.+?)\s+"
        r"(?P<frame>work)(?:\s+(?:internally|exactly|together|under\s+the\s+hood))?"
        r"(?:\s+(?P<rest>(?:in|on|with|for|under|when|if|across|between)\s+.+))?$",
        re.IGNORECASE,
    ),
    # which page / section of the docs explains X
    re.compile(
        rf"^(?:which|what)\s+(?:{_PLACES})(?:\s+of\s+the\s+(?:{_PLACES}))?\s+"
        rf"(?P<frame>{_VERBS})\s+(?P<topic>.+)$",
        re.IGNORECASE,
    ),  # which file / function of the code implements X
    re.compile(
        r"^(?:which|what)\s+(?:files?|modules?|functions?|methods?|class(?:es)?|code|parts?)"
        r"(?:\s+of\s+the\s+code)?\s+(?P<frame>implements|defines)\s+(?P<topic>.+)$",
        re.IGNORECASE,
    ),
]
# A comparison: "what is the difference between X and Y", "X vs Y". Its topic is both
# things; the frame's word is no word of the answer ("difference" was the rarest word of
# "what is the difference between apt and aptitude", and passages holding it ranked first).
_COMPARISONS = [
    re.compile(
        r"^(?:what(?:'s|\s+is|\s+are)\s+(?:the\s+)?(?:main\s+)?)?(?P<frame>differences?)"
        r"\s+between\s+(?P<topic>\S.*?\s+and\s+\S.*)$",
        re.IGNORECASE,
    ),
    re.compile(r"^(?P<first>\S.*?)\s+(?P<frame>vs\.?|versus)\s+(?P<second>\S.*)$", re.IGNORECASE),
]
# A comparison names two short things (the topic: at most COMPARED_WORDS words) in a
# short question (at most COMPARED_CHARS characters).
COMPARED_WORDS = 8
COMPARED_CHARS = 200
_SENTENCE_END = re.compile(r"[?!;]|\.\s")
_NAMED = re.compile(r"\w\w")


def _sides(found: re.Match[str]) -> tuple[str, str]:
    """The two things a comparison names."""
    groups = found.groupdict()
    if groups.get("topic"):
        *first, second = re.split(r"\s+and\s+", groups["topic"], flags=re.IGNORECASE)
        return " ".join(first), second
    return groups["first"], groups["second"]


# Where a thing is *defined* or *implemented* is its code: those frames ask for no prose.
_CODE_FRAMES = frozenset({"defined", "defines", "implemented", "implements"})
# ... and only code implements something (a term is defined in a glossary too).
_IMPLEMENTATION_FRAMES = frozenset({"implemented", "implements"})
# Questions about a name's uses in code: "who calls X", "what calls X", "callers of X",
# "where is X called", "where is X used", "usages of X", "references to X". Their topic
# is one name as code writes it (`parse_args`, `Session.merge`, `fs.readFile()`).
# (a Rust macro keeps its `!`: "who calls select!" asks for the uses named `select!`)
_NAME = r"(?P<topic>[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*!?(?:\(\))?)"
_USES_FRAMES = [
    re.compile(
        rf"^(?:who|what|which\s+(?:code|functions?|methods?|files?))\s+"
        rf"(?P<frame>calls|invokes|uses|references|imports)\s+{_NAME}$",
        re.IGNORECASE,
    ),
    re.compile(
        rf"^(?:(?:show|find|list)\s+(?:me\s+)?(?:the\s+|all\s+)?)?"
        rf"(?P<frame>callers|usages|uses|references)\s+(?:of|to)\s+{_NAME}$",
        re.IGNORECASE,
    ),
    re.compile(
        rf"^where\s+(?:is|are)\s+{_NAME}\s+(?P<frame>called|used|invoked|referenced)$",
        re.IGNORECASE,
    ),
]
# The frames that ask for calls alone; the others for any use (a type's, an import).
_CALL_FRAMES = frozenset({"calls", "invokes", "callers", "called", "invoked"})
# Questions about one aspect of a name written as code ("what are the parameters of
# FastMCP.tool", "what does Context.sample return", "signature of parse_args"): the
# name's definition and its documentation answer them, so the name alone is searched
# for, as a look-up of it is; the aspect's word ("parameters", "return") is in every
# function of the code, and on FastMCP's sdist it put `to_mcp_tool` and three docs'
# "Parameters" sections first, `FastMCP.tool` in none of the first ten.
_ASPECTS = (
    r"parameters|params|arguments|args|options|signature|return\s+(?:type|value)"
    r"|exceptions|errors"
)
_ASPECT_FRAMES = [
    re.compile(
        rf"^what\s+(?:are|is)\s+(?:the\s+)?(?P<frame>{_ASPECTS})\s+(?:of|for|to)\s+"
        rf"(?:the\s+)?{_NAME}$",
        re.IGNORECASE,
    ),
    re.compile(
        rf"^(?:what|which)(?:\s+(?:{_ASPECTS}|exception|error|values?|types?))?"
        rf"\s+(?:does|do|can|could|might|may)\s+{_NAME}\s+"
        rf"(?P<frame>return|raise|throw|accept|take|yield)$",
        re.IGNORECASE,
    ),
    re.compile(rf"^(?:the\s+)?(?P<frame>{_ASPECTS})\s+(?:of|for)\s+{_NAME}$", re.IGNORECASE),
    re.compile(rf"^{_NAME}\s+(?P<frame>{_ASPECTS})$", re.IGNORECASE),
]


class Frame(Record, frozen=True):
    """A question's frame: its topic as written, the frame's verb (casefolded, spaces
    single), and whether it asks for prose."""

    topic: str
    words: str
    prose: bool
    task: bool = False  # "how do I X": X is a task in words, not a name (`query_names`)
    code: bool = False  # "where is X implemented": its code is the answer, not prose
    # "who calls X" / "where is X used": the uses of the name X in code are the answer
    # (`uses.py`): "call" for calls alone, "any" for every use; None for other frames.
    uses: str | None = None


def frame(text: str) -> Frame | None:
    """The frame of `text` (see the module doc), or None: not such a question, or
    nothing left to search for once the frame is taken out."""
    stripped = text.strip().rstrip("?!. ")
    # (a name's uses: a Rust macro's `!` is the name's, "who calls select!")
    named = text.strip().rstrip("?. ")
    for pattern in _USES_FRAMES:
        found = pattern.match(named) or pattern.match(stripped)
        if found is not None:
            words = found["frame"].lower()
            uses = "call" if words in _CALL_FRAMES else "any"
            return Frame(found["topic"], words, prose=False, uses=uses)
    for pattern in _ASPECT_FRAMES:
        found = pattern.match(stripped)
        if found is not None and search_terms.is_identifier(found["topic"]):
            return Frame(found["topic"], " ".join(found["frame"].lower().split()), prose=False)
    # (a comparison is short: its regexes are not run over a pasted passage, where their
    # lazy parts would cost a time quadratic in a run of blanks)
    short = len(stripped) <= COMPARED_CHARS
    for pattern in _COMPARISONS if short else ():
        found = pattern.match(stripped)
        if found is not None:
            groups = found.groupdict()
            topic = groups.get("topic") or f"{groups['first']} {groups['second']}"
            # a question of one sentence, naming two short things (a description that
            # says "vs." in passing is no comparison), each more than a letter ("the
            # differences between R and S": two letters alone find every page)
            if (
                not _SENTENCE_END.search(topic)
                and len(topic.split()) <= COMPARED_WORDS
                and all(_NAMED.search(side) for side in _sides(found))
            ):
                words = "difference" if found["frame"].lower().startswith("diff") else "vs"
                return Frame(topic.strip(), words, prose=True)
    for pattern in _FRAMES:
        found = pattern.match(stripped)
        if found is None:
            continue
        topic = found["topic"].strip()
        if found.groupdict().get("rest"):
            topic = f"{topic} {found['rest'].strip()}"  # "file names in Windows"
        words_of_topic = [w.casefold() for w in search_terms.WORD.findall(topic)]
        if all(w in search_terms.STOPWORDS for w in words_of_topic):
            return None  # nothing left to search for ("how does it work")
        words = " ".join(found["frame"].lower().split())
        return Frame(
            topic,
            words,
            prose=words not in _CODE_FRAMES,
            task=words.startswith("how "),
            code=words in _IMPLEMENTATION_FRAMES,
        )
    return None
