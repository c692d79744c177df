"""Whether a question is asked in English, and which documents are written in another
language: translations of the same manual rank below the English pages for it.

Projects ship their docs translated (`html.ptbr/`, `html.ru/`, `html.zh/` beside `html/`
in Beautiful Soup's; `docs/zh/`, `README.ja.md`), and a translated page holds the same
code names as the English one: "difference between find and find_all" listed the Russian
and the Portuguese `find_all()` sections before the English one. A document is in another
language when most of the letters of its first passages are of another script than
Latin's (Cyrillic, CJK, Greek, Arabic, …), or when the function words of other European
languages (`de`, `que`, `und`, `les`, …) outnumber English ones three to one. A question
is in English when it holds an English function word and none of another language's.
Read per document, once per version of the index (`stats.cached`), for the documents a
search ranks whose path names a language (`html.ru/`, `docs/zh/`, `README.ja.md`,
`man/zh_CN/`): translations are laid out so, and an index in one language pays nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..sqlparams import Params
from . import stats

if TYPE_CHECKING:
    from ..store import Store

# A passage of a document in another language than an English question's keeps this
# share of its score (as a test file's does for a question that asks for none).
FOREIGN_SHARE = 0.5

# English function words that no other language here writes (not `a`, `in`, `on`, `die`).
ENGLISH = frozenset(
    "the of and to is are was were be been this that these those with for from by you your "
    "can could should would will how what where why when which who does do did not it its "
    "an or if then there their they we our my i".split()
)
# Function words of Spanish, Portuguese, French, German, Italian and Dutch that are no
# English words.
FOREIGN = (
    frozenset(
        "de del los las el y que para por con una uno como pero más sus esta este "
        "da do dos das em um uma não são ao os se mais ou também "
        "le les des du une est pour dans sur qui avec pas sont au aux cette ces "
        "der die das und ist nicht mit für ein eine den dem sich auch auf wird oder "
        "di il della che gli sono questo una delle "
        "het een van en zijn niet voor deze".split()
    )
    - ENGLISH
)
# Letters of the Latin script (basic and accented), and letters of any other.
_LATIN = re.compile(r"[A-Za-z\u00C0-\u024F]")
_OTHER_LETTER = re.compile(r"[^\W\d_A-Za-z\u00C0-\u024F]")
_PUNCTUATION = ".,;:!?()[]\"'`«»“”‘’¿¡，。：；！？（）、"
# A token with these is a piece of a name or a path, not a word of prose.
_NAME_PIECE = re.compile(r"[._/#\\@→=]")
# Han, kana and hangul: one character is about one word.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# How much of a document is read: its first passages, up to this many characters.
SAMPLE_PASSAGES = 4
SAMPLE_CHARS = 8_000
# Foreign function words a document needs before its words say anything.
MIN_FOREIGN_WORDS = 15


def english_question(text: str) -> bool:
    """Whether `text` is a question or phrase in English: one of its words is an English
    function word, none is another language's (`find_all` alone is in no language) and
    none of its letters is of another script than Latin."""
    if _OTHER_LETTER.search(text):
        return False  # a letter of another script: "调整合并的 I/O 限额" is no English
    words = {token.strip(_PUNCTUATION) for token in text.lower().split()}
    return bool(words & ENGLISH) and not words & FOREIGN


# A line with these is code (or markup), not prose: a translated manual's examples are
# the English one's (Beautiful Soup's Portuguese pages quote "The Dormouse's story").
_CODE_LINE = re.compile(r"[={};<>$]|^\s|^#")


def prose_lines(sample: str) -> str:
    """The lines of `sample` that read as prose, not code."""
    return "\n".join(line for line in sample.split("\n") if not _CODE_LINE.search(line))


def foreign_text(sample: str) -> bool:
    """Whether `sample` is written in another language than English (module docstring).
    Its prose is read word by word — a CJK character counts as a word, as the script
    writes one, and a piece of a name (`os.html#os.environ`, a link's
    `ch01.html#_the_shell_prompt`) as none."""
    other = latin = english = foreign = 0
    for token in prose_lines(sample).lower().split():
        word = token.strip(_PUNCTUATION)
        if not word or _NAME_PIECE.search(word):
            continue
        if _OTHER_LETTER.search(word):
            cjk = len(_CJK.findall(word))
            other += cjk or 1
            continue
        latin += 1
        if word in ENGLISH:
            english += 1
        elif word in FOREIGN:
            foreign += 1
    if other > latin:
        return True
    return foreign >= MIN_FOREIGN_WORDS and foreign > 3 * english


# Codes of languages (ISO 639-1, and a region's `zh-cn`, `pt-br` as one word) that a
# translation's path names: `html.ru/`, `docs/zh/`, `README.ja.md`, `man/zh_CN/`,
# `ch01.zh-cn.html`. Only a document whose path has one is read: an index of one
# language pays nothing (a one-off search reads no text for this).
LANGUAGE_MARKS = frozenset(
    "ar bg bn ca cs da de el es et fa fi fr he hi hr hu id it ja ko lt lv ms nb nl no pl "
    "pt ro ru sk sl sr sv th tr uk vi zh ptbr zhcn zhtw cn tw br hans hant".split()
)
_PATH_PARTS = re.compile(r"[/\\._-]+")


def translated_path(path: str) -> bool:
    """Whether `path` names a language the way translations are laid out."""
    return any(part in LANGUAGE_MARKS for part in _PATH_PARTS.split(path.lower()))


def foreign_documents(store: Store, paths: dict[int, str]) -> frozenset[int]:
    """Of the documents `paths` names (id → path), those of prose written in another
    language than English (code files never: their words are names), among those whose
    path names a language (`translated_path`)."""
    doc_ids = {d for d, path in paths.items() if translated_path(path)}
    if not doc_ids:
        return frozenset()
    known: dict[int, bool] = stats.cached(store, ("foreign_documents",), dict)
    missing = sorted(d for d in doc_ids if d not in known)
    if missing:
        params = Params(store.dialect)
        ids = params.add("[" + ",".join(map(str, missing)) + "]")
        samples: dict[int, list[str]] = {d: [] for d in missing}
        for row in store.rows(
            f"SELECT c.doc_id AS doc, c.content AS content FROM chunks c "
            f"JOIN documents d ON d.id = c.doc_id "
            f"WHERE {store.dialect.ids_in('c.doc_id', ids)} AND d.format != 'code' "
            f"AND c.chunk_index < {SAMPLE_PASSAGES} ORDER BY c.doc_id, c.chunk_index",
            params.values,
        ):
            samples[int(row["doc"])].append(row["content"])
        for doc, parts in samples.items():
            known[doc] = bool(parts) and foreign_text("\n".join(parts)[:SAMPLE_CHARS])
    return frozenset(d for d in doc_ids if known.get(d))
