"""Unspaced CJK questions → the parts a search can require: content phrases and words.

An unbroken CJK run is one query term, searched as an exact substring (DESIGN D4). A
natural question (`如何自定义主题`, `怎么设置按钮大小`) never occurs verbatim, so the run
alone finds nothing. Here a run is split, on the query side only (the index keeps its
one-character-spaced column, readable by any shell):

- Chinese (a Han-only run): into words by a segmenter (`rjieba`, else `jieba`, when
  installed: the `cjk` extra), else into overlapping bigrams of its spans;
- Japanese (kana in the run) and Korean (Hangul): overlapping bigrams of its spans;

after removing question and filler words (如何, 怎么, 请问, 什么, 吗, 的, どう, 어떻게, …).
The caller turns the result into terms: each *core phrase* (a maximal run of content
words, e.g. `自定义主题`) and each *part* (a word or bigram). The AND of all of them is
what a phrase search found before; when that finds too little, the OR fallback ranks
passages by how many parts they hold (coverage), then by title-weighted BM25 — the
AND→OR fallback spaced languages already have.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from ..text import CJK_RUN

_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af]")
# Letters (CJK punctuation such as `、` and `。` separates runs).
_LETTERS = re.compile(r"[^\W\d_]+")

# Words that make a sentence a question or a request, not what it is about. Dropped from
# a query that has other words, as English stopwords are (`terms.STOPWORDS`).
QUESTION_WORDS_ZH = frozenset(
    "如何 如何才能 怎么 怎么样 怎样 怎么办 请问 请 什么 什么样 为什么 为何 吗 呢 吧 啊 呀 么 "
    "是 是否 的 地 得 了 我 我们 你 您 想 想要 要 需要 应该 可以 能 能否 能不能 会 知道 "
    "我想知道 想知道 一下 有没有 有 哪些 哪个 哪里 哪儿 多少 几 方法 办法 方式 步骤 "
    "问题 这个 那个 一个 进行 去 和 与 及 或 在".split()
)
QUESTION_WORDS_JA = frozenset(
    "どう どうやって どうすれば どうしたら どのように 何 なに なん ですか ますか ですか？ "
    "ください 方法 やり方 する します したい の は が を に で と も か へ や ね よ".split()
)
QUESTION_WORDS_KO = frozenset(
    "어떻게 무엇 무엇인가요 뭐 뭔가요 방법 방법은 하는 하나요 인가요 있나요 알려주세요".split()
)
_ALL_QUESTION_WORDS = QUESTION_WORDS_ZH | QUESTION_WORDS_JA | QUESTION_WORDS_KO
_LONGEST_FIRST = sorted(_ALL_QUESTION_WORDS, key=len, reverse=True)

Segmenter = Callable[[str], list[str]]


@lru_cache(maxsize=1)
def segmenter() -> Segmenter | None:
    """A Chinese word segmenter when one is installed (rjieba, else jieba), else None.

    Imported on the first Chinese query that needs it (rjieba loads its dictionary in
    about a second), never at ingest: the index does not depend on it.
    """
    try:
        import rjieba

        return lambda text: list(rjieba.cut(text))
    except ImportError:
        pass
    try:
        import jieba

        jieba.setLogLevel(60)
        return lambda text: list(jieba.cut(text))
    except ImportError:
        return None


def is_question_word(word: str) -> bool:
    return word in _ALL_QUESTION_WORDS


def bigrams(span: str) -> list[str]:
    """Overlapping two-character pieces (`自定义主题` → 自定 定义 义主 主题); short spans whole."""
    if len(span) <= 2:
        return [span]
    return [span[i : i + 2] for i in range(len(span) - 1)]


def _cut_at_question_words(run: str) -> list[list[str]]:
    """Spans of `run` between question words (greedy, longest first), as one-piece lists."""
    spans: list[list[str]] = [[]]
    current = ""
    i = 0
    while i < len(run):
        word = next((w for w in _LONGEST_FIRST if run.startswith(w, i)), None)
        if word is None:
            current += run[i]
            i += 1
            continue
        if current:
            spans[-1].append(current)
            current = ""
        spans.append([])
        i += len(word)
    if current:
        spans[-1].append(current)
    return [s for s in spans if s]


def _content_spans(run: str) -> tuple[list[list[str]], bool]:
    """Maximal runs of content words in `run` (each a list of words), and whether the
    words are a segmenter's (else each span is one piece, to be cut into bigrams)."""
    cut = segmenter() if not (_KANA.search(run) or _HANGUL.search(run)) else None
    if cut is None:
        return _cut_at_question_words(run), False
    spans: list[list[str]] = [[]]
    for word in cut(run):
        if is_question_word(word) or not word.strip():
            spans.append([])
        else:
            spans[-1].append(word)
    return [s for s in spans if s], True


def split(text: str) -> tuple[list[str], list[str]] | None:
    """(phrases, parts) of the CJK text of one query term, or None to keep it whole.

    The phrases are the term's runs as typed, then its core phrases (content words only).

    None when nothing needs splitting: a run of two characters or less, or a single word
    the segmenter leaves whole. A text made of question words only has no parts
    (`什么` → ([什么], [])): the caller drops it when the query has other words.
    """
    runs = [r for cjk in CJK_RUN.findall(text) for r in _LETTERS.findall(cjk)]
    if not runs or (len(runs) == 1 and len(runs[0]) <= 2 and not is_question_word(runs[0])):
        return None
    # The runs as typed come first: their AND is the exact-substring search of before, and
    # a passage holding one verbatim outranks those holding only its parts.
    phrases: list[str] = list(runs)
    parts: list[str] = []
    for run in runs:
        spans, words = _content_spans(run)
        for span in spans:
            phrases.append("".join(span))
            for piece in span:
                parts.extend([piece] if words else bigrams(piece))
    phrases, parts = list(dict.fromkeys(phrases)), list(dict.fromkeys(parts))
    if len(runs) == 1 and phrases == [runs[0]] and parts == [runs[0]]:
        return None
    return phrases, parts
