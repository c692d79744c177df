"""Unspaced CJK questions: split into core phrases and parts, question words dropped, ranked
by coverage — against a brute-force oracle of which passages hold all the content words.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.ingest import IngestOptions, index_paths
from docql_sqlite.search import cjk
from docql_sqlite.search import terms as T

# One section per file, so a file is a passage. Words are placed so that phrase, all
# words apart, one word only and no word at all each occur.
DOCS = {
    "theme.md": "# 定制主题\n\n通过修改设计变量，你可以自定义主题，满足业务的品牌需求。\n",
    "theme-apart.md": "# 设计变量\n\n主题由一组变量组成；组件的样式也可以自定义。\n",
    "theme-only.md": "# 暗色主题\n\n切换到暗色主题后，页面的背景变深。\n",
    "custom-only.md": "# 自定义图标\n\n可以传入自定义的图标组件。\n",
    "button.md": "# 按钮\n\n按钮有三种大小：大、中、小。通过 size 属性设置按钮大小。\n",
    "button-apart.md": "# 尺寸\n\n设置 size 可以改变输入框的大小，也适用于按钮。\n",
    "button-only.md": "# 按钮类型\n\n按钮有主按钮、次按钮和虚线按钮。\n",
    "table.md": "# 表格分页\n\n表格默认带有分页，可以关闭分页或者设置每页条数。\n",
    "form.md": "# 表单校验\n\n表单校验规则写在 rules 属性里，提交前会逐项校验。\n",
    "i18n.md": "# 国际化\n\n组件库默认文案为英文，可以切换到中文语言包。\n",
    "ja.md": "# 設定ファイルの書き方\n\n設定ファイルはプロジェクトの直下に置きます。\n",
    "ko.md": "# 설정 파일\n\n설정 파일은 프로젝트 폴더에 둡니다.\n",
}

# (question, its content words: what a reader would say the question is about)
QUESTIONS = [
    ("如何自定义主题", ["自定义", "主题"]),
    ("怎么设置按钮大小", ["设置", "按钮", "大小"]),
    ("自定义主题的方法是什么？", ["自定义", "主题"]),
    ("怎样设置按钮大小", ["设置", "按钮", "大小"]),
    ("我想知道如何自定义主题", ["自定义", "主题"]),
    ("表格分页的方法是什么？", ["表格", "分页"]),
    ("怎样表单校验", ["表单", "校验"]),
    ("我想知道如何国际化", ["国际化"]),
    ("请问怎么切换暗色主题吗", ["切换", "暗色", "主题"]),
]


@pytest.fixture(scope="module")
def cjk_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cjkq")
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    index_paths(root / "q.db", [str(root)], IngestOptions(workers=1))
    return root / "q.db"


@pytest.fixture(params=["segmenter", "bigrams"])
def splitting(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Both ways of splitting a Chinese run: the installed segmenter, and none (bigrams)."""
    if request.param == "segmenter":
        assert cjk.segmenter() is not None, "the cjk extra (rjieba) is part of the test install"
    else:
        monkeypatch.setattr(cjk, "segmenter", lambda: None)
    yield request.param


def _files(idx, question: str, mode: str) -> list[str]:
    hits = idx.search(question, mode=mode, limit=len(DOCS), group="file")
    return [h["path"].rsplit("/", 1)[-1] for h in hits]


def _holding(words: list[str]) -> set[str]:
    return {name for name, text in DOCS.items() if all(w in text for w in words)}


@pytest.mark.parametrize("mode", ["bm25", "smart"])
@pytest.mark.parametrize("question, words", QUESTIONS)
def test_unspaced_question_ranks_files_with_every_content_word_first(
    cjk_db: Path, splitting: str, mode: str, question: str, words: list[str]
) -> None:
    with docql_sqlite.open(cjk_db) as idx:
        got = _files(idx, question, mode)
    assert got, f"{question!r} found nothing"
    if splitting == "segmenter":
        oracle = _holding(words)
    else:
        # Without a segmenter the parts are the bigrams of the content spans: a passage
        # holding all of them (the words in the question's order) is what ranks first.
        parts = [t.text for t in T.parse(question)]
        oracle = _holding(parts) or _holding(words)
    assert oracle, "the fixture holds every question's words"
    assert set(got[: len(oracle)]) == oracle, (question, got)


def test_question_words_are_not_required_terms(splitting: str) -> None:
    texts = [t.text for t in T.parse("我想知道如何自定义主题")]
    assert not any(w in texts for w in ("我", "想", "知道", "如何", "我想知道"))
    assert texts[:2] == ["我想知道如何自定义主题", "自定义主题"]  # as typed, then the core
    if splitting == "segmenter":
        assert texts[2:] == ["自定义", "主题"]
    else:
        assert texts[2:] == ["自定", "定义", "义主", "主题"]
    # Spaced question words go too; alone, a question word is kept (something to search).
    spaced = ["自定义"] + (["自定", "定义"] if splitting == "bigrams" else [])
    assert [t.text for t in T.parse("如何 自定义")] == spaced
    assert [t.text for t in T.parse("什么")] == ["什么"]
    # Quoted text stays one exact phrase; short runs and single words are not split.
    assert [t.text for t in T.parse('"如何自定义主题"')] == ["如何自定义主题"]
    assert [t.text for t in T.parse("主题")] == ["主题"]


def test_japanese_and_korean_get_bigrams() -> None:
    ja = [t.text for t in T.parse("設定ファイルの書き方はどうですか")]
    assert ja[:3] == ["設定ファイルの書き方はどうですか", "設定ファイル", "書き方"]
    assert {"設定", "ファ", "イル", "書き"} <= set(ja) and "の" not in ja and "どう" not in ja
    ko = [t.text for t in T.parse("설정파일 어떻게")]
    assert ko == ["설정파일", "설정", "정파", "파일"]


@pytest.mark.parametrize(
    "question, best",
    [("設定ファイルの書き方はどうですか", "ja.md"), ("설정파일 어떻게", "ko.md")],
)
def test_japanese_and_korean_questions_find_their_document(
    cjk_db: Path, question: str, best: str
) -> None:
    with docql_sqlite.open(cjk_db) as idx:
        for mode in ("bm25", "smart"):
            assert _files(idx, question, mode)[0] == best, mode


def test_verbatim_run_still_ranks_first_and_and_keeps_exact_search(cjk_db: Path) -> None:
    with docql_sqlite.open(cjk_db) as idx:
        # The run as typed occurs in theme.md only: it ranks first, partial matches follow.
        got = _files(idx, "自定义主题", "bm25")
        assert got[0] == "theme.md" and len(got) > 1
        # With a limit the exact matches fill, AND keeps them alone (no partial matches).
        exact = idx.search("自定义主题", mode="bm25", limit=1)
        assert [h["path"].rsplit("/", 1)[-1] for h in exact] == ["theme.md"]
