"""A question asked in English ranks a manual's translations below its English pages
(`search/languages.py`). Found on Debian's python-bs4-doc: its Russian, Portuguese and
Chinese pages hold the same code names as the English one, and "difference between find
and find_all" listed the Russian and Portuguese `find_all()` sections first."""

from __future__ import annotations

import pytest

import docql_sqlite
from docql_sqlite.search.languages import english_question, foreign_text, translated_path

EXAMPLE = (
    "```python\nsoup = BeautifulSoup(html_doc, 'html.parser')\n"
    "soup.find_all('a')\n# The Dormouse's story: once upon a time there were three\n```\n"
)
PAGES = {
    "html/index.md": "# Beautiful Soup\n\n## find_all()\n\n"
    "The find_all() method looks through a tag's descendants and retrieves all of them "
    "that match your filters. It is the method you will use most, and you can pass it "
    "a name, an attribute or a string.\n\n" + EXAMPLE,
    "html.ptbr/index.md": "# Beautiful Soup\n\n## find_all()\n\n"
    "O método find_all() busca entre os descendentes de uma tag e retorna todos os "
    "descendentes que correspondem a seus filtros. É o método que você mais vai usar, "
    "e para ele se pode passar um nome, um atributo ou uma string. Os filtros são "
    "usados em toda a API de busca, e a busca também aceita uma lista de nomes, como "
    "os exemplos desta seção mostram, com os nomes das tags que se quer encontrar, "
    "para cada uma das tags do documento, e com as strings que se quer, para que a "
    "busca não seja feita duas vezes em uma das tags.\n\n" + EXAMPLE,
    "html.ru/index.md": "# Beautiful Soup\n\n## find_all()\n\n"
    "Метод find_all() просматривает потомков тега и извлекает всех потомков, которые "
    "соответствуют вашим фильтрам. Это метод, которым вы будете пользоваться чаще "
    "всего.\n\n" + EXAMPLE,
    **{
        f"html/other{i}.md": f"# Other {i}\n\nUnrelated words about parsers, number {i}.\n"
        for i in range(4)
    },
}


def test_an_english_question_ranks_the_translations_below(tmp_index) -> None:
    tmp_index.write_many(PAGES)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("what does find_all do", limit=3, explain=True)
        assert hits[0]["path"] == "docs/html/index.md", [h["location"] for h in hits]
        strategy = " ".join(hits[0]["explain"]["plan"]["strategy"])
        assert "2 documents in another language than the question's x0.5" in strategy
        # a question in Portuguese, or a name alone, is in no English: nothing moves
        hits = idx.search("o que faz o método find_all", limit=1)
        assert hits[0]["path"] == "docs/html.ptbr/index.md"
        hits = idx.search("find_all", limit=3, explain=True)
        assert not any("another language" in s for s in hits[0]["explain"]["plan"]["strategy"])


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("how do I find all links", True),
        ("difference between find and find_all", True),
        ("find_all", False),  # a name is in no language
        ("o que faz o método find_all", False),
        ("wie ist die Syntax", False),
        ("如何设置网络", False),
        ("调整合并的 I/O 限额", False),  # its `I` is no English word
        ("what is I/O scheduling", True),
        ("what does $@ mean", True),
    ],
)
def test_a_question_in_english(text: str, english: bool) -> None:
    assert english_question(text) == english


@pytest.mark.parametrize(
    ("name", "foreign"),
    [(name, "html/" not in name) for name in PAGES if "other" not in name]
    + [("english-with-foreign-code", False), ("chinese", True)],
)
def test_a_document_in_another_language(name: str, foreign: bool) -> None:
    samples = {
        **PAGES,
        # English prose around code whose comments and strings are in another language
        "english-with-foreign-code": "The method returns the list of the tags that match, "
        "and you can pass it a name or an attribute.\n\n"
        + "    x = '<p>para los de la que con una y el</p>'  # de la que con\n"
        * 20,
        "chinese": "使用 find_all 方法查找所有的标签，这是最常用的方法。\n" * 5,
    }
    assert foreign_text(samples[name]) == foreign


@pytest.mark.parametrize(
    ("path", "marked"),
    [
        ("doc/html.ru/index.html", True),
        ("doc/html.ptbr/index.html", True),
        ("docs/zh/guide.md", True),
        ("README.ja.md", True),
        ("usr/share/man/zh_CN/man1/ls.1.gz", True),
        ("debian-reference/ch01.zh-cn.html", True),
        ("doc/html/index.html", False),
        ("docs/guide/install.md", False),
        ("src/lib/readme.md", False),
    ],
)
def test_a_translation_is_laid_out_under_its_language(path: str, marked: bool) -> None:
    assert translated_path(path) == marked
