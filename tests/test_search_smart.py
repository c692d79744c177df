"""Smart search strategy, typed query documents, and context packs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import docql_sqlite
from docql_sqlite import embed
from docql_sqlite.search import terms
from docql_sqlite.search.typed import QueryDocumentError, parse


def search(index, text, **options):  # the facade, as every client calls it
    return index.search(text, **options)


def context(index, question, **options):
    return index.context(question, **options)


def plan(hits: list[dict]) -> dict:
    return hits[0]["explain"]["plan"]


# -- smart search strategy --------------------------------------------------------------
STRATEGY_DOCS = {
    "plan.md": "# Planning\n\nThe planner orders steps. Planning is cheap.\n\n## Planned "
    "work\n\nA plan per query.\n",
    "noise.md": "# Other\n\nNothing to see.\n",
    "many.md": "# Lorem\n\n"
    + "".join(f"## Part {i}\n\nlorem ipsum number {i}.\n\n" for i in range(60))
    + "## Lorem notes\n\nlorem again.\n\n## More lorem\n\nlorem once more.\n",
    "sched.md": "# Jobs\n\n"
    + "".join(f"## Job {i}\n\nThe scheduler runs job {i}.\n\n" for i in range(5)),
    "Factory.kt": "class QueryPlannerFactory {\n    fun make(): Int = 1\n}\n",
}


@pytest.fixture
def strategy_index(tmp_index):
    tmp_index.write_many(STRATEGY_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        yield idx


def test_exact_level_when_enough(strategy_index) -> None:
    hits = search(strategy_index, "scheduler", explain=True)
    assert plan(hits)["strategy"] == ["exact: 5 chunks with every term, 5 with any"]
    assert len(hits) == 5


def test_widen_to_components_then_stems(strategy_index) -> None:
    # "plannings" is nowhere; its stem prefix plann* finds planner, planning, planned.
    hits = search(strategy_index, "plannings", explain=True)
    steps = plan(hits)["strategy"]
    assert steps[0] == "exact: 0 chunks with every term, 0 with any"
    assert steps[1] == "fewer than 3 → widen"
    assert steps[2].startswith("stems: ") and len(steps) == 3
    assert hits[0]["path"] == "docs/plan.md" and sum(h["path"] == "docs/plan.md" for h in hits) >= 2
    # An identifier that is not in the text: its parts are.
    hits = search(strategy_index, "StepPlannerCache", explain=True)
    steps = plan(hits)["strategy"]
    assert steps[0].startswith("exact: 0") and steps[2].startswith("components: ")
    assert hits[0]["path"] == "docs/plan.md"


RESPELL_DOCS = {
    "conffiles.md": "# Entry 68\n\nConffiles is a list of configuration files that an "
    "upgrade never overwrites.\n",
    **{
        f"about{i}.md": f"# Entry {i}\n\nDebian is a system. Debian has packages and "
        f"Debian releases ({i}).\n"
        for i in range(4)
    },
}


def test_a_word_in_no_passage_is_respelled_by_its_stem(tmp_index) -> None:
    # "conffile" is in no passage (the answer says "Conffiles"): as typed, the question's
    # other word ranks alone and the answer is in no list at all.
    tmp_index.write_many(RESPELL_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "What is a Debian conffile?", explain=True)
        steps = plan(hits)["strategy"]
        assert steps[0] == '"conffile" is in no passage → "conffile" *'
        assert steps[1] == "exact: 0 chunks with every term, 5 with any"
        assert hits[0]["path"] == "docs/conffiles.md"
        # A word that some passage holds as typed stays as typed.
        steps = plan(search(idx, "What is a Debian upgrade?", explain=True))["strategy"]
        assert steps[0] == "exact: 0 chunks with every term, 5 with any"
        # One word alone is widened by the levels, as before.
        steps = plan(search(idx, "conffile", explain=True))["strategy"]
        assert steps[0] == "exact: 0 chunks with every term, 0 with any"


def test_narrow_with_a_secondary_keyword_when_too_many(strategy_index) -> None:
    hits = search(strategy_index, "lorem", limit=5, explain=True)
    steps = plan(hits)["strategy"]
    assert any(s.startswith("more than 50 → narrow by title") for s in steps)
    # Narrowed: chunks whose section title says "lorem" come first.
    assert all("lorem" in (h["section"] or "").lower() for h in hits[:3])


def test_code_names_and_determinism(strategy_index, corpus_db: Path) -> None:
    hits = search(strategy_index, "query planner factory", explain=True)
    assert hits[0]["path"] == "docs/Factory.kt"
    assert "symbols" in hits[0]["explain"]["lists"]
    with docql_sqlite.open(corpus_db) as idx:
        top = search(idx, "QueryPlanner", explain=True)[0]
        assert top["content"].startswith("class QueryPlanner(")
        assert top["explain"]["lists"]["symbols"]["rank"] == 1
        for query in ("lumen index", "segment merge policy", "架构", "DocQLLexer tokens"):
            assert search(idx, query, limit=15) == search(idx, query, limit=15)


# -- typed query documents ---------------------------------------------------------------
@pytest.mark.parametrize(
    "text, message, line, column",
    [
        (
            "lex: foo\nbar baz",
            "line 2 ('bar baz') has no type; in a typed query document every line starts with "
            "lex:, vec:, hyde: or intent:",
            2,
            1,
        ),
        (
            "intent: speed up pages",
            "intent: alone is not a query; add a lex:, vec: or hyde: line",
            1,
            9,
        ),
        ("lex: foo\nvec:   ", "empty vec: line (line 2); write the query after 'vec:'", 2, 8),
        ("lexx: foo\nlex: bar", "unknown line type 'lexx:' on line 1; did you mean 'lex:'?", 1, 1),
        (
            "intent: a\nintent: b\nlex: c",
            "a second intent: line (line 2); a document has at most one, first on line 1",
            2,
            1,
        ),
        (
            "lex: -battery",
            "lex: line 1 has no word to search for (only negations or punctuation)",
            1,
            6,
        ),
        (
            "vec: fine\n  todo: x",
            "unknown line type 'todo:' on line 2; types are lex:, vec:, hyde: and intent:",
            2,
            3,
        ),
    ],
)
def test_typed_document_errors(text: str, message: str, line: int, column: int) -> None:
    with pytest.raises(QueryDocumentError) as info:
        parse(text)
    err = info.value
    assert err.message == message
    assert (err.line, err.column) == (line, column)
    assert str(err).splitlines()[-1].strip() == "^"


def test_typed_document_parse() -> None:
    doc = parse(
        'intent: web page load times\nlex: performance "core web vitals" -battery\n\n'
        "vec: how do I make pages load faster\nhyde: Pages load faster when ..."
    )
    assert [(q.kind, q.number) for q in doc.queries] == [("lex", 2), ("vec", 4), ("hyde", 5)]
    assert doc.intent is not None and doc.intent.text == "web page load times"


TYPED_DOCS = {
    "a.md": "# A\n\nalpha words live here.\n",
    "b.md": "# B\n\nbeta words live here.\n",
    "long.md": "# Long\n\n"
    + "alpha is slow to start. "
    + "filler text without the words. " * 12
    + "alpha is fast once warm.\n",
}


def test_typed_first_line_counts_double_and_intent_steers_snippets(tmp_index) -> None:
    tmp_index.write_many(TYPED_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        first = search(idx, "lex: beta\nlex: alpha", explain=True)
        assert first[0]["path"] == "docs/b.md"
        assert first[0]["explain"]["plan"]["weights"] == {"lex:1": 2.0, "lex:2": 1.0}
        assert first[0]["score"] == pytest.approx(2 / 61, abs=1e-6)
        assert search(idx, "lex: alpha\nlex: beta")[0]["path"] != "docs/b.md"
        # vec: lines run as BM25 when the index has no vectors, and say so.
        hits = search(idx, "vec: beta words", explain=True)
        assert (
            hits[0]["path"] == "docs/b.md"
            and "ran as bm25" in hits[0]["explain"]["plan"]["notes"][0]
        )
        # intent never changes the ranking, only the snippet window.
        plain = search(idx, "lex: alpha")
        steered = search(idx, "intent: fast\nlex: alpha")
        assert [h["location"] for h in plain] == [h["location"] for h in steered]
        long_plain = next(h for h in plain if h["path"] == "docs/long.md")
        long_steered = next(h for h in steered if h["path"] == "docs/long.md")
        assert "slow" in long_plain["snippet"] and "fast" in long_steered["snippet"]


# -- context packs ----------------------------------------------------------------------------
@pytest.mark.parametrize("budget", [300, 1000, 4000, 12000])
def test_context_within_budget_and_labelled(corpus_db: Path, budget: int) -> None:
    with docql_sqlite.open(corpus_db) as idx:
        pack = context(idx, "how does segment compaction work", budget=budget)
        again = context(idx, "how does segment compaction work", budget=budget)
    assert pack == again  # deterministic
    assert len(pack["text"]) == pack["chars"] <= budget
    assert pack["blocks"] and pack["strategy"] == "smart hits"
    for block in pack["blocks"]:
        assert f"--- {block['path']}:{block['line']}" in pack["text"]
    if budget >= 12000:
        kinds = [b["kind"] for b in pack["blocks"]]
        # the top hit's document whole when it is short, first; hits and openings after
        assert set(kinds[1:]) == {"hit", "opening"} and kinds[0] in {"hit", "document"}
        # Document order inside each document.
        by_doc: dict[str, list[int]] = {}
        for b in pack["blocks"]:
            by_doc.setdefault(b["path"], []).append(b["line"])
        assert all(lines == sorted(lines) for lines in by_doc.values())


def test_context_fallback_to_small_documents(tmp_index) -> None:
    tmp_index.write_many(
        {
            "a.md": "# A\n\nsmall text one.\n",
            "b.md": "# B\n\nsmall text two.\n",
            "big.md": "# Big\n\n" + "word " * 3000 + "\n",
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        pack = context(idx, "zzqqxx nothing matches", budget=2000)
        assert pack["strategy"].startswith("fallback")
        assert [b["path"] for b in pack["blocks"]] == [
            "docs/a.md",
            "docs/b.md",
        ]  # big.md is over 12,000 chars
        assert "small text one." in pack["text"] and all(
            b["kind"] == "document" for b in pack["blocks"]
        )
        tiny = context(idx, "zzqqxx", budget=250)
        assert len(tiny["text"]) <= 250


# -- code words and common-word pruning -------------------------------------------------
CODE_DOCS = {
    "codec.py": "def b64decode(s):\n    return s\n\n\ndef b64encode(s):\n    return s\n\n\ndef "
    "getwelcome(self):\n"
    "    return self.welcome\n",
    "other.py": "def unrelated(x):\n    return x + 1\n",
}


def test_code_words_find_words_inside_names(tmp_index) -> None:
    tmp_index.write_many(CODE_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        # BM25 cannot see "decode" inside the token b64decode; the code-words channel can.
        assert search(idx, "decode the string", mode="bm25") == []
        hits = search(idx, "decode the string", explain=True)
        assert hits[0]["content"].startswith("def b64decode")
        assert hits[0]["explain"]["lists"]["code_words"]["match"] == "b64decode"
        assert search(idx, "get the welcome message")[0]["content"].startswith("def getwelcome")


def test_common_words_do_not_select_or_candidates(tmp_index, monkeypatch) -> None:
    from docql_sqlite.search import stats

    docs = {f"d{i}.md": f"# D{i}\n\nthe common word here, number {i}.\n" for i in range(60)}
    docs["rare.md"] = "# Rare\n\ncommon and zircon together.\n"
    docs["zircon.md"] = "# Z\n\nonly zircon.\n"
    tmp_index.write_many(docs)
    tmp_index.index()
    monkeypatch.setattr(stats, "MIN_CHUNKS", 1)
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "common zircon", mode="bm25", limit=5, explain=True)
        fts = hits[0]["explain"]["plan"]["fts"]
        assert fts["or"].startswith('("zircon")')  # "common" does not select candidates …
        assert [h["path"] for h in hits] == [
            "docs/rare.md",
            "docs/zircon.md",
        ]  # … but counts in coverage
        assert hits[0]["explain"]["lists"]["bm25"]["terms_matched"] == 2


# -- channel balance: identifiers win, a common word inside a name does not ------------------
BALANCE_DOCS = {
    "server.py": '"""A tiny request server."""\n\n\ndef handle(request):\n'
    "    return request.reply()\n\n\nclass Parser:\n"
    "    def convert_arg_line_to_args(self, arg_line):\n        return arg_line.split()\n\n"
    "    def parse_args(self, args=None):\n        return [a for a in args or []]\n\n\n"
    'class DocQLLexer:\n    """Splits text into tokens."""\n\n'
    "    def tokens(self, text):\n        return text.split()\n",
    "stream.js": "const fs = require('fs');\n\nfunction createReadStream(path, options) {\n"
    "  return fs.createReadStream(path, options);\n}\n\nfunction readAll(path) {\n"
    "  return fs.readFileSync(path, 'utf8');\n}\n",
    "guide.md": "# User guide\n\n## Handling errors in request handlers\n\n"
    "When a request handler raises an error, the server catches it and replies with status "
    "500. To handle errors yourself, wrap the handler body in try/except.\n\n"
    "## Reading arguments from files\n\nArguments can be read from a file: each line of the "
    "file becomes one argument; a line is split on whitespace per argument.\n\n"
    "## Streams\n\nThe createReadStream helper in stream.js wraps the fs function; a read "
    "stream reads a file in pieces.\n\n"
    "## Tokens\n\nThe DocQLLexer splits DocQL text into tokens before the parser runs.\n",
    **{
        f"note{i}.md": f"# Note {i}\n\nSome request and error text about handling, file {i}, "
        "arguments and lines.\n"
        for i in range(6)
    },
}


@pytest.fixture(scope="module")
def balance_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from docql_sqlite.ingest import IngestOptions, index_paths

    root = tmp_path_factory.mktemp("balance")
    for name, text in BALANCE_DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    index_paths(root / "b.db", [str(root)], IngestOptions(workers=1))
    return root / "b.db"


@pytest.mark.parametrize(
    "query, top_section, top_file",
    [
        # an identifier as typed: its definition first
        ("createReadStream", "createReadStream", "stream.js"),
        ("createReadStream options", "createReadStream", "stream.js"),
        ("DocQLLexer", "DocQLLexer", "server.py"),
        ("DocQLLexer tokens", "DocQLLexer", "server.py"),
        ("convert_arg_line_to_args", "convert_arg_line_to_args", "server.py"),
        ("handle", "handle", "server.py"),  # a one-word query is a name lookup
        # a question whose words one section holds all of: that section, not a name
        # that shares one word with it (def handle, convert_arg_line_to_args)
        (
            "how do I handle errors in a request handler",
            "Handling errors in request handlers",
            "guide.md",
        ),
        (
            "how are arguments read from a file, one per line",
            "Reading arguments from files",
            "guide.md",
        ),
    ],
)
def test_exact_identifier_wins_common_word_in_a_name_does_not(
    balance_db: Path, query: str, top_section: str, top_file: str
) -> None:
    with docql_sqlite.open(balance_db) as idx:
        top = search(idx, query, explain=True)[0]
    assert (top["section"], top["path"].rsplit("/", 1)[-1]) == (top_section, top_file), top


def test_name_share_weights(balance_db: Path) -> None:
    with docql_sqlite.open(balance_db) as idx:
        hits = search(idx, "how do I handle errors in a request handler", explain=True)
    by_section = {h["section"]: h for h in hits}
    handle = by_section["handle"]["explain"]
    # the symbols channel does not name `handle` for a question: only its share as a code word
    assert "symbols" not in handle["lists"]
    assert handle["rrf"]["code_words"] < 1 / 61
    # the bm25 rank of a passage with 2 of the 4 words counts half
    assert handle["lists"]["bm25"]["terms_matched"] == 2
    assert handle["rrf"]["bm25"] == pytest.approx(0.5 / (60 + handle["lists"]["bm25"]["rank"]))


@pytest.mark.parametrize("budget", [250, 400, 800, 3000])
@pytest.mark.parametrize(
    "question",
    ["DocQLLexer", "createReadStream options", "how do I handle errors in a request handler"],
)
def test_context_pack_keeps_the_top_hit(balance_db: Path, question: str, budget: int) -> None:
    with docql_sqlite.open(balance_db) as idx:
        top = search(idx, question)[0]
        pack = context(idx, question, budget=budget)
    assert len(pack["text"]) <= budget
    whole = pack["blocks"][0]
    if whole["kind"] == "document":  # a short document: the top hit's, whole (not cut)
        assert whole["path"] == top["path"] and top["content"] in whole["text"]
        assert whole["line"] <= top["line"] <= top["end_line"] <= whole["end_line"]
        assert len(whole["text"]) <= budget // 3
        return
    first = pack["blocks"][[b["kind"] for b in pack["blocks"]].index("hit")]
    held = [(b["path"], b["line"]) for b in pack["blocks"] if b["kind"] == "hit"]
    assert (top["path"], top["line"]) in held, (top["location"], held)
    assert first["text"].startswith(top["content"][: len(first["text"]) - 20].rstrip()[:40])
    if budget >= 3000:  # room to spread: other documents' best hits come in too
        assert len({b["path"] for b in pack["blocks"]}) > 1


@pytest.mark.parametrize(
    "text, expected",
    [
        ("django.middleware.csrf.CsrfViewMiddleware", ("csrfviewmiddleware", "csrf")),
        ("std::io::Error", ("error", "io")),
        ("fs.readFile?", ("readfile", "fs")),
        ("QuerySet.filter", ("filter", "queryset")),
        ("Session.merge()", ("merge", "session")),  # as a call
        ("Array.prototype.includes", ("includes", "array")),  # JavaScript's member path
        ("Array.prototype.includes()", ("includes", "array")),
        ("Foo.prototype", None),  # a class's prototype object names no member
        ("Net::HTTP#start", ("start", "http")),  # Ruby's manuals' instance method
        ("Array#map", ("map", "array")),  # ... and JavaScript's, Javadoc's `{@link List#add}`
        ("C#", None),  # a language, no member
        ("issue#123", None),
        ("os.path", ("path", "os")),
        ("io.rs", None),  # a last part under 3 characters: no name to look for
        ("a.b", None),
        ("CsrfViewMiddleware", None),
        ("v1.2", None),
    ],
)
def test_a_query_that_is_one_qualified_name(text: str, expected: object) -> None:
    from docql_sqlite.search.query_names import qualified

    assert qualified(text) == expected


QUALIFIED_DOCS = {
    "pkg/http/routing.py": "class Router:\n    '''Routes requests.'''\n\n    def add(self, path):\n"
    "        return path\n",
    "pkg/cli/commands.py": "class Router:\n    '''Routes sub-commands.'''\n\n    def run(self):\n"
    "        return 0\n",
    "guide.md": "# Guide\n\n## Routing\n\nThe pkg.http.routing.Router class routes requests; "
    "one is made at start-up.\n\n## Commands\n\nThe CLI has its own router.\n",
}


@pytest.mark.parametrize("text", ["pkg.http.routing.Router", "routing.Router", "http.Router"])
def test_a_qualified_name_finds_its_symbol_under_the_part_before_its_name(
    tmp_index, text: str
) -> None:
    """A query that is one qualified name finds the symbol of its last name whose file or
    folder is the part before it (as an equal name: the bonus of a name equal to the
    query), beside the prose that holds the name as written; the other `Router`
    (pkg/cli/commands.py) is no such symbol. Before, neither `Router` was in the symbols
    list, and the definition ranked below every passage of the phrase."""
    tmp_index.write_many(QUALIFIED_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search(text, limit=5, explain=True)
        top = [h["location"] for h in hits[:2]]
        assert any("pkg/http/routing.py:1-" in location for location in top), top
        symbols = [h["location"] for h in hits if "symbols" in h["explain"]["lists"]]
        assert len(symbols) == 1 and "pkg/http/routing.py:1-" in symbols[0]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("how does HashMap resize", (("resize", "hashmap"),)),
        ("HashMap resize", (("resize", "hashmap"),)),
        ("where does ThreadPoolExecutor reject tasks", (("reject", "threadpoolexecutor"),)),
        ("Session close, Pool drain", (("close", "session"), ("drain", "pool"))),
        ("Explain caching", (("caching", "explain"),)),  # only if the index has it
        ("URL parse", ()),  # no small letter: a constant or an acronym, not a class
        ("HashMap is", ()),  # a stopword names no member
        ("resize HashMap", ()),  # the member after its class only
        # a class with its package path (Perl, Ruby, C++): its last part may be capitals
        ("what does Mojo::DOM find return", (("find", "mojo.dom"),)),
        ("Net::HTTP get", (("get", "net.http"),)),
        ("std::vector push_back", ()),  # a last part in small letters: no class
    ],
)
def test_a_class_and_a_member_written_as_two_words(text: str, expected: object) -> None:
    from docql_sqlite.search import terms
    from docql_sqlite.search.query_names import query_names

    assert query_names(terms.parse(text)).members == expected


CLASS_AND_MEMBER_DOCS = {
    "util/HashMap.java": (
        "package util;\n\n/** A hash table. The table grows when it is full. */\n"
        "public class HashMap {\n"
        "  /** The next size value at which to resize the HashMap. */\n  int threshold;\n\n"
        "  public HashMap() {\n    threshold = 12;\n  }\n\n"
        "  public HashMap(int capacity) {\n    threshold = capacity;\n  }\n\n"
        "  public HashMap(int capacity, float load) {\n    threshold = capacity;\n  }\n\n"
        "  /** Initializes or doubles table size. */\n"
        "  final int[] resize() {\n    return new int[threshold * 2];\n  }\n}\n"
    ),
    "util/WeakHashMap.java": (
        "package util;\n\npublic class WeakHashMap {\n"
        "  /** Rehashes the contents into a new array with a larger capacity. */\n"
        "  void resize(int capacity) {\n  }\n}\n"
    ),
}


@pytest.mark.parametrize("text", ["HashMap resize", "how does HashMap resize"])
def test_a_class_and_a_member_written_as_two_words_find_that_member(tmp_index, text: str) -> None:
    """On OpenJDK's java.util, "how does HashMap resize" ranked the class's constructors
    (named by "HashMap", in the symbols list and BM25) before `HashMap.resize`, which was
    not among the first ten: the symbol both words name is now the symbols list's first
    row, with the whole name bonus, and the class's rows answer one word (a shared
    bonus): it ranks above the constructors and `WeakHashMap.resize`."""
    tmp_index.write_many(CLASS_AND_MEMBER_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search(text, limit=6, explain=True)
    locations = [h["location"] for h in hits]
    method = next(i for i, h in enumerate(hits) if h["location"].endswith("HashMap.java:20-23"))
    assert method < 2, locations
    other = [i for i, loc in enumerate(locations) if "WeakHashMap" in loc]
    constructors = [
        i
        for i, loc in enumerate(locations)
        if loc.endswith(("HashMap.java:8-10", "HashMap.java:12-14", "HashMap.java:16-18"))
    ]
    assert all(method < i for i in other + constructors), locations
    symbols = [h["explain"]["lists"]["symbols"] for h in hits if "symbols" in h["explain"]["lists"]]
    pair = [found for found in symbols if found.get("class_and_member")]
    assert pair == [{"rank": 1, "match": "resize", "class_and_member": True}], symbols
    # the class's and its constructors' rows answer one of the two words
    assert all(found.get("one_word") for found in symbols if found not in pair), symbols


# A Rust crate unpacked as a release (`name-version/`, as Debian's and cargo's registries
# and sdists hold them): methods whose names hold the parts of `Arg::required`, and the
# one it names.
CRATE_DOCS = {
    "clap-4.0.32/src/builder/arg.rs": "pub struct Arg {\n    required: bool,\n}\n\n"
    "impl Arg {\n    /// Sets whether the argument must be present.\n"
    "    pub fn required(self, yes: bool) -> Self {\n        self\n    }\n}\n",
    "clap-4.0.32/src/builder/command.rs": "pub struct Command;\n\nimpl Command {\n"
    "    /// Exit with help when no arg is given: an arg is required else help.\n"
    "    pub fn arg_required_else_help(self, yes: bool) -> Self {\n        self\n    }\n\n"
    "    /// Whether arg_required_else_help is set: is the arg required?\n"
    "    pub fn is_arg_required_else_help_set(&self) -> bool {\n        true\n    }\n}\n",
    "clap-4.0.32/src/parser/validator.rs": "fn fails_arg_required_unless(arg: &str) -> bool {\n"
    "    // the arg is required unless another arg is present\n    arg.is_empty()\n}\n",
}


@pytest.mark.parametrize(
    "text, location",
    [
        ("Arg::required", "clap-4.0.32/src/builder/arg.rs:6-9"),
        ("clap::Arg", "clap-4.0.32/src/builder/arg.rs:1-3"),  # the crate: a versioned folder
        ("builder::Command", "clap-4.0.32/src/builder/command.rs:1"),
    ],
)
def test_a_qualified_name_is_its_symbol_not_the_symbols_holding_its_parts(
    tmp_index, text: str, location: str
) -> None:
    """`Arg::required` asks for one method. Before, the symbols list also held every
    symbol containing "arg" or "required" (`arg_required_else_help` …), which BM25 and
    the code words held too, and the method ranked 4th on clap's sources; `clap::Arg`
    found no symbol, as the crate's folder is `clap-4.0.32/`."""
    tmp_index.write_many(CRATE_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search(text, limit=5, explain=True)
    assert hits[0]["location"] == f"docs/{location}", [h["location"] for h in hits]
    lists = [h["explain"]["lists"] for h in hits]
    symbols = [found["symbols"]["match"] for found in lists if "symbols" in found]
    last = text.replace("::", ".").rsplit(".", 1)[-1].lower()
    assert symbols and all(m.lower() == last for m in symbols), symbols


MEMBER_DOCS = {
    # SQLAlchemy's shapes: the method, a proxy in another file of the same name whose
    # docstring names the method as the query does, and a test helper whose name joins
    # the query's parts
    "orm/session.py": "class Session:\n    def merge(self, instance):\n"
    '        """Copy the state of an instance onto the persistent instance."""\n'
    "        return instance\n",
    "ext/asyncio/session.py": "class AsyncSession:\n    def merge(self, instance):\n"
    '        """Proxied for the Session.merge method: see Session.merge."""\n'
    "        return instance\n",
    "engine/base.py": "class Connection:\n    def execute(self, statement):\n"
    '        """Run a statement and return its result."""\n        return statement\n',
    "testing/assertsql.py": "class Recorder:\n    def connection_execute(self, conn):\n"
    '        """Record each Connection.execute call: Connection.execute, execute."""\n'
    "        return conn\n",
}


@pytest.mark.parametrize(
    "text, location",
    [("Session.merge", "orm/session.py:2-4"), ("Connection.execute", "engine/base.py:2-4")],
)
def test_a_qualified_name_is_the_member_of_the_class_it_names(
    tmp_index, text: str, location: str
) -> None:
    """On SQLAlchemy, "Session.merge" found `AsyncSession.merge` first (its file is a
    `session.py`, its docstring names `Session.merge`), and "Connection.execute" the
    test helper `connection_execute` (the query's parts joined, a name "equal" to it):
    the member of the class the qualified name names is its answer."""
    tmp_index.write_many(MEMBER_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search(text, limit=5, explain=True)
    assert hits[0]["location"] == f"docs/{location}", [h["location"] for h in hits]
    symbols = [h["location"] for h in hits if "symbols" in h["explain"]["lists"]]
    assert symbols == [f"docs/{location}"], symbols  # not the proxy in a session.py


TS_LIB = {
    "lib/lib.es2016.array.include.d.ts": "interface Array<T> {\n"
    "    /** Determines whether an array includes a certain element. */\n"
    "    includes(searchElement: T, fromIndex?: number): boolean;\n}\n\n"
    + "".join(
        f"interface {kind}Array {{\n    /** Determines whether a {kind} array includes it. */\n"
        f"    includes(searchElement: number, fromIndex?: number): boolean;\n}}\n\n"
        for kind in ("Int8", "Uint8", "Int16", "Uint16", "Float32")
    ),
    "lib/typescript.d.ts": "declare namespace ts {\n"
    "    type CreateProgram<T> = (rootNames: string[]) => T;\n"
    "    /** Create a new Program from root file names. */\n"
    "    function createProgram(rootNames: string[]): Program;\n"
    "    interface Program {\n        getRootFileNames(): string[];\n    }\n}\n",
}


@pytest.mark.parametrize(
    "text, location",
    [
        # MDN's spelling of a method: the member `includes` of `Array`, not the last of
        # the five typed arrays' (the name defined again in its file, the last first)
        ("Array.prototype.includes", "lib/lib.es2016.array.include.d.ts:2-3"),
        ("Array.prototype.includes()", "lib/lib.es2016.array.include.d.ts:2-3"),
        # a last part typed with a capital is that spelling: the function, not the type
        ("ts.createProgram()", "lib/typescript.d.ts:3-4"),
        ("ts.CreateProgram", "lib/typescript.d.ts:2"),
    ],
)
def test_a_qualified_name_as_javascript_writes_it(tmp_index, text: str, location: str) -> None:
    """On TypeScript's own package "Array.prototype.includes" listed the five typed
    arrays' `includes` first and `Array`'s not at all, and "ts.createProgram()" the type
    `ts.CreateProgram` before the function."""
    tmp_index.write_many(TS_LIB)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search(text, limit=5)
    assert hits[0]["location"] == f"docs/{location}", [h["location"] for h in hits]


RUBY_HTTP = {
    "lib/net/http.rb": "module Net\n  class HTTP\n"
    "    # Creates a new object and opens its TCP connection and HTTP session.\n"
    "    def HTTP.start(address, port = nil)\n      new(address, port).start\n    end\n\n"
    "    # Opens a TCP connection and HTTP session.\n"
    "    def start\n      do_start\n    end\n\n"
    "    # Sends a HEAD request; see Net::HTTP#start for the session.\n"
    "    def head(path)\n      request(Head.new(path))\n    end\n  end\nend\n",
    "lib/net/http/request.rb": "class Net::HTTPRequest\n"
    "  # Net::HTTP#start opens the session a request is sent in.\n"
    "  def initialize(path)\n    @path = path\n  end\nend\n",
}


def test_a_member_named_with_a_hash_sign(tmp_index) -> None:
    """Ruby's standard library: "Net::HTTP#start", as its manuals name the instance
    method, was a phrase of three words, and the passages that quote it (a `head`
    method's comment) came first, the method nowhere: `#` separates a member too."""
    tmp_index.write_many(RUBY_HTTP)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("Net::HTTP#start", limit=3, explain=True)
    assert hits[0]["section"] == "start", [h["location"] for h in hits]
    assert "symbols" in hits[0]["explain"]["lists"]


def test_of_a_name_defined_again_in_its_file_the_last_comes_first(tmp_index) -> None:
    """SQLAlchemy's `Connection.execute` is two `@overload` signatures, then the method:
    the symbols list gave the first stub first, by line. The last definition is the one
    Python keeps (and TypeScript's implementation, a C function's body after its
    prototype)."""
    source = (
        "from typing import overload\n\n\nclass Connection:\n"
        "    @overload\n    def execute(self, statement: str) -> int: ...\n\n"
        "    @overload\n    def execute(self, statement: bytes) -> int: ...\n\n"
        "    def execute(self, statement):\n"
        '        """Run a statement and return its result."""\n'
        "        return len(statement)\n"
    )
    tmp_index.write_many({"engine/base.py": source})
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("Connection.execute", limit=3)
    assert [h["location"] for h in hits] == [
        "docs/engine/base.py:11-13",
        "docs/engine/base.py:8-9",
        "docs/engine/base.py:5-6",
    ]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("source of class Session", {"Session": ("class", "struct")}),
        ("the Session class", {"Session": ("class", "struct")}),
        ("function create_engine", {"create_engine": ("function", "method", "constructor")}),
        ("interface Handler", {"Handler": ("interface",)}),
        ("class session", {}),  # written as a plain word: no name
        ("how do I define a function", {}),
        ("Session close", {}),  # no kind word
        ("implements Interface for a []float64", {}),  # no name's characters
        # a sentence (more than KIND_QUERY words) describes, it does not look up
        ("returns the Cmd struct to execute the named program", {}),
        # the word typed next to the kind word: "type of Engine" names no type
        ("what type of Engine should I use", {}),
        ("the `Session` class?", {"Session": ("class", "struct")}),
    ],
)
def test_a_name_given_with_its_kind(text: str, expected: dict) -> None:
    from docql_sqlite.search import terms
    from docql_sqlite.search.query_names import query_names

    assert dict(query_names(terms.parse(text), text=text).kinded) == expected


def test_a_class_asked_for_by_its_kind_comes_before_prose_that_names_it(tmp_index) -> None:
    """On SQLAlchemy "source of class Session" found prose about sessions first (its
    words are in thousands of passages) and the class 7th: a plain word of a longer query
    names no symbol. "class Session" names the class: of that name as typed, of that
    kind (not the property `session`, nor a function `Session`)."""
    prose = {
        f"doc/page{i}.md": f"# Using the Session {i}\n\nThe source of a Session class "
        f"instance {i} is its engine; each Session is made by a sessionmaker.\n"
        for i in range(8)
    }
    code = {
        "lib/orm/session.py": "class Session:\n    '''Manages persistence operations.'''\n\n"
        "    def close(self):\n        return None\n",
        "lib/orm/scoping.py": "def Session():\n    return None\n\n\nclass Registry:\n"
        "    @property\n    def session(self):\n        return None\n",
    }
    tmp_index.write_many({**prose, **code})
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("source of class Session", limit=5)
    assert hits[0]["location"] == "docs/lib/orm/session.py:1-3", [h["location"] for h in hits]


def test_a_heading_named_by_the_questions_words_in_another_order(tmp_index) -> None:
    """commander's Readme: "how to make an option required" is its section "Required
    option" (the run "option required" in the other order); it was 4th, behind the
    `argRequired` code both words also name and the Readme's passage the document
    channel chose."""
    readme = (
        "# Commander\n\n## Options\n\nOptions are defined with `.option()`.\n\n"
        "### Required option\n\nYou may specify a required (mandatory) option using "
        "`.requiredOption()`. The option must then have a value after parsing.\n\n"
        "## Command-arguments\n\nYou may make an argument required: angle brackets make "
        "a required argument, square brackets an optional one.\n"
    )
    code = (
        "class Argument {\n  /** Make argument required. */\n  argRequired() {\n"
        "    this.required = true;\n    return this;\n  }\n}\n"
    )
    tmp_index.write_many({"Readme.md": readme, "lib/argument.js": code})
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("how to make an option required", limit=3, explain=True)
    assert hits[0]["section"] == "Required option", [h["location"] for h in hits]
    # named by the run "option required" (2 of the 3 words) in the headings list
    assert hits[0]["explain"]["lists"]["headings"]["match"] == "required option"


@pytest.mark.parametrize(
    "verb, forms",
    [
        ("add", {"adding"}),
        ("create", {"creating", "createing"}),  # a form no title holds finds nothing
        ("set", {"setting", "seting"}),
        ("stop", {"stopping", "stoping"}),
        ("tie", {"tying", "tieing"}),
        ("see", {"seeing"}),
        ("install", {"installing"}),
        ("x", set()),  # too short to be a verb
        ("a2b", set()),
    ],
)
def test_the_ing_forms_of_a_tasks_verb(verb: str, forms: set[str]) -> None:
    from docql_sqlite.search.query_names import gerunds

    assert gerunds(verb) == forms


def test_a_task_names_the_heading_of_its_ing_form(tmp_index) -> None:
    """python-docx's quickstart answers "how do I add a table" under "Adding a table": the
    section was not in the first five, behind API pages that hold "table" and "add" more
    often. A how-to's verb names a heading that opens with its -ing form."""
    quickstart = (
        "Quickstart\n==========\n\nOpening a document\n------------------\n\n"
        "You need a document to work on: ``document = Document()``.\n\n"
        "Adding a table\n--------------\n\nOne frequently encounters content that "
        "lends itself to tabular presentation::\n\n"
        "    table = document.add_table(rows=2, cols=2)\n\n"
        "Setting a style\n---------------\n\nApply a style by name.\n"
    )
    api = "".join(
        f"WD_TABLE_{kind}\n{'=' * (9 + len(kind))}\n\nSpecifies the {kind.lower()} of a "
        f"table. Add it to a table or a table row; a table add-in table setting.\n\n"
        for kind in ("ALIGNMENT", "DIRECTION", "ROW_HEIGHT", "WIDTH", "STYLE")
    )
    tmp_index.write_many({"user/quickstart.rst": quickstart, "api/enum/table.rst": api})
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("how do I add a table", limit=3, explain=True)
        assert hits[0]["section"] == "Adding a table", [h["location"] for h in hits]
        hits = idx.search("how to set a style", limit=3)
        assert hits[0]["section"] == "Setting a style", [h["location"] for h in hits]


def test_an_overload_signature_comes_after_the_function(tmp_index) -> None:
    """SQLAlchemy's `create_engine` is two `@overload` signatures, then the function
    (decorated): "where is create_engine defined" gave the second stub first, its short
    text ahead in BM25."""
    source = (
        "from typing import overload\n\n\n@overload\ndef create_engine(url: str) -> int: ...\n"
        "\n\n@deprecated_params(strategy='1.4')\ndef create_engine(url, **kwargs):\n"
        '    """Create a new Engine instance from a database URL and the engine\'s many\n'
        "    keyword arguments: pool size, echo, isolation level, execution options.\n"
        '    """\n'
        + "".join(f"    option_{i} = kwargs.pop('option_{i}', {i})\n" for i in range(30))
        + "    return Engine(url, kwargs)\n"
    )
    tmp_index.write_many({"engine/create.py": source})
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("where is create_engine defined", limit=2)
    assert [h["location"] for h in hits] == [
        "docs/engine/create.py:8-41",
        "docs/engine/create.py:4-5",
    ]


@pytest.mark.parametrize(
    "query, expected",
    [
        # runs of 2..6 consecutive content words holding more than half of the query's,
        # each with its share of the query
        (
            "where is the magic trailing comma explained",
            {
                "magic trailing comma": 0.75,
                "magic trailing comma explained": 1.0,
                "trailing comma explained": 0.75,
            },
        ),
        ("line length", {"line length": 1.0}),
        (
            "what is the code of conduct for the mailing lists",
            {
                "code conduct mailing": 0.75,
                "code conduct mailing lists": 1.0,
                "conduct mailing lists": 0.75,
            },
        ),
        ('"write ahead log"', {"write ahead log": 1.0}),  # one quoted term of 3 words
        ("createReadStream", {}),  # an identifier: a name the query equals, no run
        ("by_ref", {}),
        ("} from 'react'; import type { InputNumberProps } from 'antd';", {}),  # code
        ("timeout", {}),  # one word names no run
        ("b c d e f g h j k l m n o p", {}),  # 13 terms: a pasted passage, none
        ("如何配置主题", {}),  # CJK: the passage channels rank it (cjk.py)
    ],
)
def test_the_runs_a_heading_may_be_named_by(query: str, expected: dict[str, float]) -> None:
    from docql_sqlite.search import ranking
    from docql_sqlite.search.query_names import query_names

    assert query_names(ranking.query_terms(query)).phrases == expected


@pytest.mark.parametrize(
    "title, key",
    [
        ("The magic trailing comma", "magic trailing comma"),
        ("Write-Ahead Log", "write ahead log"),
        ("`fs.watch()` caveats", "fs watch caveats"),
        ("How to", ""),  # only stopwords: no words (no run is empty)
        # the number a title prints is no word of it (DocBook, numbered Sphinx, RFCs)
        ("6.3.1. The apt-cache policy Command", "apt cache policy command"),
        ("Chapter 6. Maintenance and Updates", "maintenance updates"),
        ("A.2. Ubuntu", "ubuntu"),
        ("1.2 Overview", "overview"),
        ("404 errors", "404 errors"),  # a number that is a word of the title
        ("2FA setup", "2fa setup"),
    ],
)
def test_a_headings_content_words(title: str, key: str) -> None:
    from docql_sqlite.search.query_names import content_key

    assert content_key(title) == key


NAMED_SECTION_DOCS = {
    # shaped like Black's docs: the style guide names each rule in a heading, while the
    # options and the FAQ repeat the rule's words more often
    "style.md": "# The Black code style\n\n## Line length\n\nBlack defaults to 88 characters "
    "per row, 10 % over 80.\n\n## 2.4. The magic trailing comma\n\nA comma at the end of a "
    "collection keeps it exploded, one item per row.\n",
    "options.md": "# Options\n\n## -C, --skip-magic-trailing-comma\n\nDo not use the magic "
    "trailing comma as a reason to split lines; a trailing comma is removed when the "
    "collection fits.\n\n## -l, --line-length\n\nHow many characters per line to allow: a "
    "line length of 88 unless the configuration sets another line length.\n",
    "faq.md": "# FAQ\n\n## The trailing comma is not removed\n\nA trailing comma, magic or "
    "not, stays: a trailing comma in a call keeps the call exploded.\n\n## Why those "
    "options?\n\nisort wraps imports at its own line length; set the line length of "
    "isort to Black's by default.\n",
}


@pytest.mark.parametrize(
    "question, section",
    [
        # (a numbered title: its number is no word of it)
        ("where is the magic trailing comma explained", "2.4. The magic trailing comma"),
        ("where is the line length explained", "Line length"),
        # named in full: the section is first in the exact list (`channels.named_exact`)
        ("what is the magic trailing comma?", "2.4. The magic trailing comma"),
    ],
)
def test_a_section_the_question_names_comes_first(tmp_index, question: str, section: str) -> None:
    tmp_index.write_many(NAMED_SECTION_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        top = search(idx, question, explain=True)[0]
    assert top["section"] == section, top
    assert top["explain"]["lists"]["headings"]["phrase"] > 0


@pytest.mark.parametrize(
    "headings, exact_weight, boost",
    [
        ([], None, 8.0),  # a question no passage holds word for word: meaning leads
        ([{"_phrase": 0.75}], None, 3.0),  # it names a section: a known item (the floor)
        ([{"_phrase": 0.6}], None, 3.8),  # 1 + 7 x (1 - 0.6)
        ([{}], None, 8.0),  # a heading equal to one word names no section
        ([{"_phrase": 0.6}], 2.0, 3.0),  # every word in a few passages: the floor anyway
    ],
)
def test_a_named_section_holds_the_vector_boost_back(
    headings: list[dict], exact_weight: float | None, boost: float
) -> None:
    from docql_sqlite.search import channels, fusion, ranking
    from docql_sqlite.search.query_names import query_names

    text = "where is the magic trailing comma explained"
    terms = ranking.query_terms(text)
    lists = [fusion.Ranked("headings", 0.8, headings)]
    if exact_weight is not None:
        lists.append(fusion.Ranked("exact", exact_weight, [{}]))
    got = channels.vector_boost(8.0, text, lists, len(terms), query_names(terms))
    assert got == pytest.approx(boost)


TESTS_AND_DOCS = {
    # the page that explains the feature, and tests whose names and literals repeat its words
    "docs/usage.md": "# Usage\n\n## Ignoring sections\n\nTo skip a block of code, start it "
    "with `# fmt: off` and end it with `# fmt: on`; a line ending in `# fmt: skip` is "
    "left alone too.\n",
    "tests/test_skip.py": "def test_skip_block():\n    '''skip a block of code'''\n"
    "    assert format('skip block code') == 'skip block code'\n\n\n"
    "def test_skip_line_in_block():\n    '''skip a line of code in a block'''\n"
    "    assert format('skip the block code') == 'skip the block code'\n",
    "src/formatter.py": "def format(source):\n    '''Format source code.'''\n    return source\n",
}


NOTES_AND_DOCS = {
    # the page that explains the feature, and release notes whose one-line entries hold
    # the question's words (without the share, the first entry ranked first)
    "docs/middleware.md": "# Middleware\n\n## Cross-origin requests\n\nTo allow "
    "cross-origin requests, add the middleware for CORS with the origins it accepts.\n",
    "docs/release-notes.md": "# Release notes\n\n"
    + "".join(f"## 0.{n}\n\n* Add CORS middleware option {n}.\n\n" for n in range(3)),
}


@pytest.mark.parametrize(
    "query, share",
    [
        ("what changed in version 8", 1.0),
        ("what changed in 4.2", 1.0),
        ("release notes of the parser", 1.0),
        ("CORS middleware", 0.7),
        # a task: a guide says how, an entry that a way was added (TASK_NOTES_SHARE)
        ("how do I add CORS middleware", 0.5),
        ("how do I spawn a task", 0.5),
        # an option or a code name names a feature, not a change (click's CHANGES.rst
        # came first for the --version question)
        ("how to add a --version option", 0.5),
        ("version_option", 0.7),
        ("--version 2.1", 1.0),  # a version number still asks
        ("what is new in the parser", 1.0),
        # "new" in a task says what it makes (Sphinx's `doc/changes/` came first for
        # "how to add a new builder"); a task about changes still asks
        ("how to add a new builder", 0.5),
        ("how do I migrate to the new parser", 1.0),
    ],
)
def test_release_notes_count_in_full_only_when_the_query_asks_about_changes(
    query: str, share: float
) -> None:
    from docql_sqlite.search import frames, fusion
    from docql_sqlite.search import terms as search_terms

    framed = frames.frame(query)
    task = framed is not None and framed.task
    text = framed.topic if framed is not None else query
    assert fusion.notes_share(search_terms.parse(text), task=task) == share


SHARED_KINDS = [
    # (files, a question about the feature, its page, the share's step, queries that ask
    # for that kind of file and count it in full, the last one's first hit)
    (
        TESTS_AND_DOCS,
        "how do I skip a block of code",
        "docs/usage.md",
        "passages of test files x0.7",
        ("which tests skip a block of code", "test_skip_block"),
        "tests/test_skip.py",
    ),
    (
        NOTES_AND_DOCS,
        "how do I add CORS middleware",
        "docs/middleware.md",
        "passages of release notes x0.5",
        ("CORS middleware in 0.2", "what changed in the CORS middleware"),
        "docs/release-notes.md",
    ),
]


@pytest.mark.parametrize(
    "files, question, page, step, asking, asked_page",
    SHARED_KINDS,
    ids=["tests", "release notes"],
)
def test_a_kind_of_file_counts_less_unless_the_query_asks_for_it(
    tmp_index,
    files: dict[str, str],
    question: str,
    page: str,
    step: str,
    asking: tuple[str, ...],
    asked_page: str,
) -> None:
    """Tests repeat the words of what they test; release notes name each feature in a
    line that holds a question's words: a question about the feature finds its page."""
    tmp_index.write_many(files)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, question, explain=True)
        assert hits[0]["path"].endswith(page), [h["path"] for h in hits]
        assert any(step in s for s in hits[0]["explain"]["plan"]["strategy"])
        for query in asking:
            hits = search(idx, query, explain=True)
            steps = hits[0]["explain"]["plan"]["strategy"]
            assert not any(step.rsplit(" x", 1)[0] in s for s in steps), query
        assert hits[0]["path"].endswith(asked_page), [h["path"] for h in hits]


# attrs and Flask in small: a parameter documented in the library's docstring and its
# manual, tests named after it, and a test's stand-in class of the library's class's name.
TESTS_NAMED_AFTER = {
    "src/lib/_make.py": "class Builder(Base):\n"
    '    """The builder object implements the methods and acts as the central\n'
    "    registry of its attributes. It is passed the class; once created it will act as\n"
    "    a central registry for the validators, the converters and much more.\n\n"
    + "".join(
        f"    Step {n} of the build: the methods, the slots, the hashes, the order.\n"
        for n in range(20)
    )
    + '    """\n\n'
    + "".join(f"    def step_{n}(self):\n        return {n}\n\n" for n in range(12))
    + "\n\ndef define(cls, kw_only=False, frozen=False):\n"
    '    """Decorate a class.\n\n    kw_only (bool): make every attribute keyword-only in the\n'
    '    generated __init__.\n    frozen (bool): instances are immutable.\n    """\n'
    "    return Builder()\n",
    "docs/examples.md": "# Examples\n\n## Keyword-only attributes\n\nPass `kw_only=True` to "
    "`define` and every attribute must be given by keyword.\n",
    **{
        f"docs/builder-{n}.md": f"# Builder {n}\n\nThe builder builds the class: builder "
        f"step {n}, a builder's slots, its builder hooks.\n"
        for n in range(40)
    },
    "tests/test_make.py": "".join(
        f"def test_kw_only{suffix}():\n    assert define(C, kw_only=True)\n\n\n"
        for suffix in ("", "_twice", "_default", "_inherited", "_ignored", "_frozen")
    )
    + "class KwOnlyAndDefault:\n    kw_only = True\n\n\n"
    + "def test_custom_builder():\n    class Builder(lib.Builder):\n        step = 1\n\n"
    "    assert Builder().step == 1\n",
}


@pytest.mark.parametrize(
    "query, first",
    [
        # tests named after `kw_only` took every place: the docstring that documents it
        # (no symbol bears the name) ranked below them
        ("what does kw_only do", "src/lib/_make.py"),
        ("kw_only", "src/lib/_make.py"),
        # a test's stand-in of the class, two lines, was first
        ("class Builder", "src/lib/_make.py"),
        # a query about tests still finds them
        ("tests of kw_only", "tests/test_make.py"),
        ("test_kw_only", "tests/test_make.py"),
    ],
)
def test_tests_named_after_a_name_are_not_its_names(tmp_index, query: str, first: str) -> None:
    tmp_index.write_many(TESTS_NAMED_AFTER)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, query, explain=True)
    assert hits[0]["path"].endswith(first), [(h["path"], h["line"]) for h in hits]
    steps = hits[0]["explain"]["plan"]["strategy"]
    named = any(s.startswith("tests named after the query left out") for s in steps)
    assert named is (first != "tests/test_make.py"), steps
    if query == "class Builder":  # the class, and not its test's stand-in (2nd before)
        assert hits[0]["line"] == 1
        assert all("/tests/" not in h["path"] for h in hits[:3]), [h["path"] for h in hits]
    elif first != "tests/test_make.py":
        # and the library's passages come before every test's
        paths = [h["path"] for h in hits]
        tests = [i for i, p in enumerate(paths) if "/tests/" in p]
        library = [i for i, p in enumerate(paths) if "/tests/" not in p]
        assert not tests or max(library) < min(tests), paths


SETTINGS_AND_DOCS = {
    # Sphinx's sdist in small: the project's own tool settings hold the question's words
    "pyproject.toml": (
        "[tool.coverage.report]\n# re-enable the autodoc pragma for the module\n"
        "exclude_lines = ['pragma: no cover']\n\n[tool.mypy]\n"
        "# enable autodoc stubs: module autodoc, enable strict module checks\n"
        "module = ['autodoc.module']\nenable_error_code = ['autodoc']\n"
    ),
    "docs/autodoc.md": "# Automatically document modules\n\nTo enable autodoc, add "
    "`sphinx.ext.autodoc` to the extensions in conf.py; then `automodule` documents your "
    "module.\n",
}


def test_a_settings_file_counts_as_code_in_a_how_to_question(tmp_index) -> None:
    """A project's build settings are no guide: in a question asking for prose their
    passages count as code's do (Sphinx 9.2.0's `pyproject.toml` came first for "how to
    enable autodoc for my module")."""
    tmp_index.write_many(SETTINGS_AND_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "how to enable autodoc for my module", explain=True)
    assert hits[0]["path"].endswith("docs/autodoc.md"), [h["path"] for h in hits]
    steps = hits[0]["explain"]["plan"]["strategy"]
    assert any("passages of code and settings files x0.5" in s for s in steps), steps


REPEATED_TITLE_DOCS = {
    # a changelog repeats the title under every release; the docs' page has it once
    "CHANGES.md": "# Changes\n\n"
    + "".join(
        f"## 1.{n}\n\n### Preview style\n\n- Wrap the return annotation of case {n}.\n\n"
        for n in range(6)
    ),
    "docs/future_style.md": "# The future style\n\n## Preview style\n\nExperimental "
    "changes are first released in the preview style, behind a flag.\n",
}


def test_a_title_repeated_in_its_document_names_no_section_in_particular(tmp_index) -> None:
    tmp_index.write_many(REPEATED_TITLE_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "what is the preview style", explain=True)
    assert hits[0]["path"].endswith("docs/future_style.md"), [h["location"] for h in hits]
    # the headings list names the page's section first, then the changelog's
    assert hits[0]["explain"]["lists"]["headings"]["rank"] == 1


@pytest.mark.parametrize(
    "text, topic, prose",
    [
        ("where is the application context explained?", "the application context", True),
        ("Where are signals documented", "signals", True),
        ("where is url routing described in the docs?", "url routing", True),
        ("where is Flask.route defined", "Flask.route", False),
        # where a thing is implemented: its code
        ("where is authentication implemented?", "authentication", False),
        ("which function implements the run command", "the run command", False),
        ("Which files of the code implements sessions", "sessions", False),
        ("which page implements sessions", None, None),  # a page implements nothing
        # one aspect of a name written as code: the name alone
        ("what are the parameters of FastMCP.tool?", "FastMCP.tool", False),
        ("What does Context.sample return", "Context.sample", False),
        ("what exceptions does Client.call_tool raise?", "Client.call_tool", False),
        ("which errors can parse_args raise", "parse_args", False),
        ("signature of fs.readFile()", "fs.readFile()", False),
        ("createReadStream options", "createReadStream", False),
        ("what does it return", None, None),  # no name
        ("what are the parameters of the function", None, None),
        ("what does Session return", None, None),  # a word with a capital: no code name
        ("which page explains the application context", "the application context", True),
        ("What section of the docs covers `url_for`?", "`url_for`", True),
        ("where can I read about blueprints?", "blueprints", True),
        ("Where do I find information on the test client", "the test client", True),
        # a task: what a guide explains
        ("how do I test a command?", "test a command", True),
        ("How can we set a timeout", "set a timeout", True),
        ("how to add a --version option", "add a --version option", True),
        # how X works: an explanation of X, "work" no word of it (tokio's "how do channels
        # work" found `steal_work` and `Worker` first, `sync`'s guide to channels not)
        ("how do channels work", "channels", True),
        ("How does autoloading work?", "autoloading", True),
        ("How do file names work in Windows?", "file names in Windows", True),
        ("how does the scheduler work internally", "the scheduler", True),
        ("how does it work", None, None),  # nothing left to search for
        ("where is it explained?", None, None),
        # the word is the topic, or the question is not framed so
        ("what happens when a variable is not defined?", None, None),
        ("how is the request context explained", None, None),
        ("how does routing work", "routing", True),  # (no task: an explanation)
        ("how to", None, None),
        ("where explained", None, None),
        ("documented options of the parser", None, None),
        ("which pages?", None, None),
        ("where can I find the config file", None, None),  # a file, not a text about it
        # a comparison: both things, and a text that compares them
        ("what is the difference between apt and aptitude?", "apt and aptitude", True),
        ("What are the differences between apt-get and dpkg?", "apt-get and dpkg", True),
        ("What are the differences between R and S?", None, None),  # letters alone
        ("difference between flush and commit", "flush and commit", True),
        ("flush vs commit", "flush commit", True),
        ("Session.flush versus Session.commit", "Session.flush Session.commit", True),
        # two sentences, or a description that says "vs." in passing: no comparison
        ("What is the difference between Debian and other distributions? Why Debian?", None, None),
        ("Returns the number of bytes read vs the number of bytes written to the file", None, None),
    ],
)
def test_the_frame_of_a_question_is_not_its_topic(
    text: str, topic: str | None, prose: bool | None
) -> None:
    from docql_sqlite.search import frames

    found = frames.frame(text)
    assert (found.topic, found.prose) == (topic, prose) if found else topic is None


@pytest.mark.parametrize(
    "text, topic, kind",
    [
        ("who calls parseArgs", "parseArgs", "call"),
        ("Who calls Session.merge?", "Session.merge", "call"),
        ("what calls fs.readFile()", "fs.readFile()", "call"),
        ("which functions call parse_args", None, None),  # "call": not the verb's form
        ("which functions invoke parse_args", None, None),
        ("callers of _execute_context", "_execute_context", "call"),
        ("show me all callers of std::io::read", "std::io::read", "call"),
        ("who calls select!", "select!", "call"),  # a Rust macro keeps its `!`
        ("where is tokio::pin! used", "tokio::pin!", "any"),
        ("where is create_engine called?", "create_engine", "call"),
        ("where is Config used", "Config", "any"),
        ("usages of Engine", "Engine", "any"),
        ("references to http.Client", "http.Client", "any"),
        ("who uses Engine", "Engine", "any"),
        # not one name: other questions
        ("who calls the police", None, None),
        ("where is the config used", None, None),
        ("how do I call a function", "call a function", None),
    ],
)
def test_a_question_about_a_names_uses(text: str, topic: str | None, kind: str | None) -> None:
    from docql_sqlite.search import frames

    found = frames.frame(text)
    if topic is None:
        assert found is None or found.uses is None, found
    else:
        assert found is not None and (found.topic, found.uses) == (topic, kind), found


USES_DOCS = {
    "cli/args.py": "def parse_args(argv):\n    '''Read the command line.'''\n"
    "    return list(argv)\n",
    "cli/main.py": "from cli.args import parse_args\n\n\ndef main(argv):\n"
    "    options = parse_args(argv)\n    return options\n",
    "cli/repl.py": "from cli.args import parse_args\n\n\ndef loop(lines):\n"
    "    for line in lines:\n        yield parse_args(line.split())\n",
    "cli/config.py": "class Config:\n    pass\n\n\ndef load(path) -> Config:\n"
    "    return Config()\n",
    "docs/usage.md": "# Usage\n\n## parse_args\n\nparse_args reads the command line: "
    "parse_args returns the options, and parse_args never exits.\n",
}


def test_who_calls_a_function_finds_its_call_sites(tmp_index) -> None:
    """On yargs "who calls parseArgs" found the function's own definition first, then
    passages naming neither it nor a call: the answer is its call sites, which
    `$.code.callers("parseArgs")` lists and search now finds first."""
    tmp_index.write_many(USES_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "who calls parse_args?", limit=4, explain=True)
        used = search(idx, "where is Config used", limit=4)
    assert [h["location"] for h in hits[:2]] == [
        "docs/cli/main.py:4-6",
        "docs/cli/repl.py:4-6",
    ], [h["location"] for h in hits]
    assert "uses" in hits[0]["explain"]["lists"]
    assert any("calls of parse_args in code: 2 passages" in s for s in plan(hits)["strategy"])
    # any use: the return annotation and the call of `load`, not the class itself first
    assert used[0]["location"] == "docs/cli/config.py:5-6", [h["location"] for h in used]


def test_who_calls_a_go_function_named_by_its_package(tmp_index) -> None:
    """Go names a package's function by the package (`io.Copy`), which is no part of its
    qualified name (`Copy`): its folder is, as for the symbols list's qualified names.
    A question about a name with no use in the index is searched for as any other."""
    tmp_index.write_many(
        {
            "io/io.go": "package io\n\n// Copy copies from src to dst.\n"
            "func Copy(dst Writer, src Reader) (int64, error) {\n\treturn 0, nil\n}\n",
            "tar/reader.go": 'package tar\n\nimport "io"\n\n'
            "func (tr *Reader) WriteTo(w io.Writer) (int64, error) {\n"
            "\treturn io.Copy(w, tr)\n}\n",
            "docs/copying.md": "# Copying\n\nio.Copy copies; io.Copy is the way to copy, "
            "and io.Copy returns the count.\n",
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "who calls io.Copy?", limit=3, explain=True)
        none = search(idx, "who calls CopyN?", limit=3, explain=True)
    assert hits[0]["location"] == "docs/tar/reader.go:5-7", [h["location"] for h in hits]
    assert "calls of CopyN in code: 0 passages" in plan(none)["strategy"]


def test_who_calls_a_method_finds_its_calls_written_after_the_class(tmp_index) -> None:
    """Rust's `Handle::spawn(h, f)` (and `handle.spawn(f)`) names the class, but which
    `spawn` it calls is undecided when two classes define one and no receiver's type is
    known: tokio's "who calls Handle::spawn" found no use. An undecided use written
    after the class's name, or a value named like it, is one (after the decided)."""
    tmp_index.write_many(
        {
            # two classes named Handle (tokio has five), each with a `spawn`
            "src/runtime/handle.rs": "pub struct Handle;\n\nimpl Handle {\n"
            "    pub fn spawn(&self, f: u32) -> u32 {\n        f\n    }\n}\n",
            "src/current_thread.rs": "pub struct Handle;\n\nimpl Handle {\n"
            "    pub fn spawn(&self, f: u32) -> u32 {\n        f + 1\n    }\n}\n",
            "src/builder.rs": "pub struct Builder;\n\nimpl Builder {\n"
            "    pub fn spawn(&self, f: u32) -> u32 {\n        f + 2\n    }\n}\n",
            "src/scheduler.rs": "pub fn run(h: &Handle, f: u32) -> u32 {\n"
            "    current_thread::Handle::spawn(h, f)\n}\n\n\n"
            "pub fn other(b: &Builder, f: u32) -> u32 {\n    b.spawn(f)\n}\n",
            "docs/spawning.md": "# Spawning\n\nHandle::spawn starts a task; Handle::spawn "
            "returns at once.\n",
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "who calls Handle::spawn?", limit=3, explain=True)
    assert hits[0]["location"] == "docs/src/scheduler.rs:1-3", [h["location"] for h in hits]
    assert "calls of Handle::spawn in code: 1 passages" in " ".join(plan(hits)["strategy"])


def test_a_where_question_finds_its_topic_not_the_frame_word(tmp_index, monkeypatch) -> None:
    # Shaped like Flask's docs: "application" and "context" are common, "explained" rare.
    # BM25's OR candidates come from the rare words (`stats.common_terms`), so with the
    # frame word kept its passages were the only candidates and the page about the
    # application context was no BM25 candidate at all.
    from docql_sqlite.search import stats

    docs = {
        f"p{i}.md": f"# Page {i}\n\nThe application pushes a context for request {i}.\n"
        for i in range(40)
    }
    docs["appcontext.md"] = (
        "# The Application Context\n\nThe application context keeps track of the "
        "application-level data during a request or a command.\n"
    )
    docs["uploads.md"] = "# Uploads\n\nThis page explained uploads to an application.\n"
    tmp_index.write_many(docs)
    tmp_index.index()
    monkeypatch.setattr(stats, "MIN_CHUNKS", 1)
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "where is the application context explained?", explain=True)
    assert hits[0]["path"].endswith("docs/appcontext.md"), [h["location"] for h in hits]
    assert "uploads.md" not in [h["path"].rsplit("/", 1)[-1] for h in hits[:3]]


DOCS_AND_CODE = {
    # a docs page on blueprints, and code whose names equal the question's word
    "docs/blueprints.md": "# Modular applications with blueprints\n\nBlueprints make the "
    "components of an application. Register blueprints on the application to run the "
    "operations they record.\n\n## The concept of blueprints\n\nThe basic concept of "
    "blueprints is that they record operations; blueprints are registered once or more.\n",
    "src/app.py": 'class Blueprint:\n    """A blueprint of routes."""\n\n\n'
    'def blueprints(app):\n    """The blueprints registered on the app."""\n'
    "    return app.blueprints\n",
}


def test_a_question_asking_where_a_thing_is_explained_prefers_prose(tmp_index) -> None:
    others = {f"docs/page{i}.md": f"# Page {i}\n\nText about topic {i}.\n" for i in range(12)}
    tmp_index.write_many({**DOCS_AND_CODE, **others})
    tmp_index.index()

    def ranked(question: str) -> tuple[list[str], list[str]]:
        with docql_sqlite.open(tmp_index.db) as idx:
            hits = search(idx, question, explain=True)
        return [h["path"] for h in hits], plan(hits)["strategy"]

    paths, steps = ranked("where are blueprints described?")
    assert paths[0].endswith("docs/blueprints.md"), paths
    assert any("code and settings files x0.5" in step for step in steps), steps
    # where a thing is defined is its code; other queries are left alone
    for question in ("where is blueprints defined", "blueprints"):
        paths, steps = ranked(question)
        assert paths[0].endswith("src/app.py"), (question, paths)
        assert not any("code and settings files" in step for step in steps), question


AUTH_DOCS_AND_CODE = {
    # pages whose sections are titled by the word, and the code that implements it
    **{
        f"docs/integrations/{name}.md": f"# {name.title()}\n\n## Authentication\n\n"
        f"Pass a bearer token to {name}: authentication is handled by the server.\n"
        for name in ("anthropic", "openai", "gemini", "cursor")
    },
    "src/server/auth.py": 'class AuthProvider:\n    """Base class of the authentication '
    'providers: verifies a request\'s token."""\n\n    def verify(self, token):\n'
    "        return token is not None\n",
}


def test_a_question_asking_where_a_thing_is_implemented_prefers_code(tmp_index) -> None:
    """FastMCP's "where is authentication implemented" listed six docs' sections titled
    "Authentication" and no code: the frame's word was searched for, or (with it taken
    out) the headings equal to the topic outranked the class that implements it."""
    others = {f"docs/page{i}.md": f"# Page {i}\n\nText about topic {i}.\n" for i in range(12)}
    tmp_index.write_many({**AUTH_DOCS_AND_CODE, **others})
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "where is authentication implemented?", explain=True)
        steps = plan(hits)["strategy"]
        assert hits[0]["path"].endswith("src/server/auth.py"), [h["location"] for h in hits]
        assert any("not code x0.25" in step for step in steps), steps
        # asked where it is explained, the docs come first
        hits = search(idx, "where is authentication explained?")
        assert "/integrations/" in hits[0]["path"], [h["location"] for h in hits]


API_ASPECT_DOCS = {
    # a method, and code and pages full of the aspect's word
    "src/server.py": "class Server:\n    def tool(self, name, description=None):\n"
    '        """Register a function as a tool."""\n        return name\n\n'
    "    def resource(self, uri):\n        return uri\n",
    "src/convert.py": "".join(
        f"def to_schema_{i}(parameters):\n    # the parameters of a tool as a schema\n"
        f"    return dict(parameters)\n\n\n"
        for i in range(4)
    ),
    **{
        f"docs/{name}.md": f"# {name.title()}\n\n## Parameters\n\nThe parameters of a "
        f"{name} are its arguments.\n"
        for name in ("prompts", "resources", "handlers")
    },
}


@pytest.mark.parametrize(
    "question",
    ["what are the parameters of Server.tool", "what does Server.tool return"],
)
def test_a_question_about_an_aspect_of_a_name_finds_the_name(tmp_index, question: str) -> None:
    """FastMCP's "what are the parameters of FastMCP.tool" put `to_mcp_tool` and three
    docs' "Parameters" sections first and `FastMCP.tool` in none of the first ten: the
    aspect's word is in every function, the name was one word of four."""
    others = {f"docs/page{i}.md": f"# Page {i}\n\nText about topic {i}.\n" for i in range(12)}
    tmp_index.write_many({**API_ASPECT_DOCS, **others})
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, question, explain=True)
    assert hits[0]["path"].endswith("src/server.py"), [h["location"] for h in hits]
    assert hits[0]["line"] <= 2 <= hits[0]["end_line"], hits[0]["location"]


TOKIO_SHAPED = {
    # a Rust crate whose guide is its doc comments, and its few prose files
    "src/task/mod.rs": "//! Asynchronous green-threads.\n//!\n//! ## Spawning tasks\n//!\n"
    "//! To spawn a task, call `task::spawn` with a future: the runtime runs the task\n"
    "//! in the background and returns a handle to await its output.\n//!\n"
    "//! ## Blocking and yielding\n//!\n//! A task that blocks stalls its worker.\n\n"
    "pub mod spawn;\n",
    "src/task/spawn.rs": "pub fn spawn<T>(future: T) -> JoinHandle<T> {\n"
    "    let id = task::Id::next();\n    spawn_inner(future, id)\n}\n",
    "README.md": "# Tokio\n\nA runtime for writing reliable asynchronous applications: a task "
    "scheduler, an I/O driver and timers.\n\n## Example\n\nA basic server that spawns a "
    "task for each connection.\n",
    "CHANGELOG.md": "# 1.24.0\n\n### Added\n\n- task: add a way to spawn a task with a name "
    "(#5000)\n\n# 1.23.0\n\n### Fixed\n\n- io: fix a deadlock (#4990)\n",
}


def test_a_question_asking_for_prose_reads_doc_comments_as_prose(tmp_index) -> None:
    """tokio's guide is its modules' `//!` comments: "how do I spawn a task" counted them
    as code (x0.5), below the README and the changelog."""
    others = {f"docs/page{i}.md": f"# Page {i}\n\nText about topic {i}.\n" for i in range(12)}
    tmp_index.write_many({**TOKIO_SHAPED, **others})
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "how do I spawn a task", explain=True)
    assert hits[0]["path"].endswith("src/task/mod.rs"), [h["location"] for h in hits]
    assert any("code and settings files x0.5" in s for s in plan(hits)["strategy"])


def test_a_name_holding_the_query_in_a_longer_compound_counts_its_share(tmp_index) -> None:
    """tokio's internal macro `tokio_thread_local` (three definitions, one per `#[cfg]`)
    came before its README's "Tokio" for "what is tokio" once macros were symbols: a
    symbol that holds the query's one word as one part of three is about more than it."""
    macro = (
        "#[cfg(loom)]\nmacro_rules! tokio_thread_local {\n    ($($tts:tt)+) => "
        "{ loom::thread_local!{ $($tts)+ } }\n}\n\n#[cfg(not(tokio_no_const))]\n"
        "macro_rules! tokio_thread_local {\n    ($($tts:tt)+) => { ::std::thread_local!"
        "{ $($tts)+ } }\n}\n"
    )
    tmp_index.write_many(
        {
            "README.md": "# Tokio\n\nA runtime for writing reliable, asynchronous "
            "applications with Rust.\n\n## Overview\n\nTokio is an event-driven platform.\n",
            "src/macros/thread_local.rs": macro,
            **{f"src/m{i}.rs": f"pub fn f{i}() -> u32 {{\n    {i}\n}}\n" for i in range(10)},
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "what is tokio", limit=3)
    assert hits[0]["path"].endswith("README.md"), [h["location"] for h in hits]


@pytest.mark.parametrize(
    "query, name, share",
    [
        ("tokio", "tokio_thread_local", 1 / 3),
        ("tokio", "Tokio", 1.0),
        ("spawn blocking", "spawn_blocking_inner", 2 / 3),
        ("spawn blocking", "spawn_blocking", 1.0),
        ("runtime", "RuntimeMetrics", 1 / 2),
        ("how do I handle errors in a request handler", "handle_request_error", 1.0),
    ],
)
def test_the_share_of_a_names_parts_a_query_makes(query: str, name: str, share: float) -> None:
    from docql_sqlite.search import terms as search_terms
    from docql_sqlite.search.query_names import query_names

    names = query_names(search_terms.parse(query), text=query)
    assert names.parts_share(name) == pytest.approx(share)


FRONT_MATTER_TITLED = {
    # Mintlify's, Docusaurus' and Hugo's pages: the title in the front matter, no `#` line
    "docs/patterns/tool-transformation.mdx": "---\ntitle: Tool Transformation\n"
    "description: Create enhanced tool variants.\n---\n\nimport { Badge } from "
    "'/snippets/badge.mdx'\n\nTool transformation creates new tools from existing "
    "ones: rename them, hide arguments, change their descriptions.\n\n"
    "## Why Transform Tools?\n\nAn existing tool is almost right.\n\n"
    "## Modifying Arguments\n\nRename an argument.\n",
    "src/tools/manager.py": "".join(
        f"def {verb}_tool_transformation(self, name):\n    # {verb} a tool transformation\n"
        f"    return name\n\n\n"
        for verb in ("add", "get", "remove")
    ),
    "docs/changelog.md": "# Changelog\n\n## 2.8.0\n\n### Tool Transformation\n\nThe "
    "highlight of this release is tool transformation.\n",
    # the blank line and the notice between the front matter and the text
    "docs/plugins.md": "---\ntitle: Metrics plugins\n---\n\n<!-- This file is maintained "
    "in another repository. -->\n\nA metrics plugin collects the engine's metrics.\n\n"
    "## Setup\n\nInstall it.\n",
    **{f"docs/page{i}.md": f"# Page {i}\n\nText about topic {i}.\n" for i in range(12)},
}


@pytest.mark.parametrize(
    "query, path, line",
    [
        ("what is tool transformation", "docs/patterns/tool-transformation.mdx", 8),
        ("Tool Transformation", "docs/patterns/tool-transformation.mdx", 8),
        ("metrics plugins", "docs/plugins.md", 7),
    ],
)
def test_a_page_titled_by_its_front_matter_is_named_by_its_title(
    tmp_index, query: str, path: str, line: int
) -> None:
    """A page whose title is its front matter's has no heading of it: its opening is
    the section that title names (before: the methods named after the words and the
    changelog's heading of that name came first, the page not in the first five)."""
    tmp_index.write_many(FRONT_MATTER_TITLED)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, query, explain=True)
    assert hits[0]["path"].endswith(path), [h["location"] for h in hits]
    # its first passage with words, not the blank line or the comment before it
    assert hits[0]["line"] <= line <= hits[0]["end_line"], hits[0]["location"]
    assert hits[0]["explain"]["lists"]["headings"]["rank"] == 1


def _click_shaped() -> dict[str, str]:
    """Click's sdist in small: tests named after the words of a how-to question, a
    manifest listing them, and the guide that answers it."""
    tests = {
        f"tests/test_{topic}.py": "import click\n\n\n"
        + "".join(
            f"def test_command_{topic}_{i}(runner):\n    # tests commands\n    @click.command()\n"
            f"    def cli():\n        pass\n\n    assert runner.invoke(cli).exit_code == {i}\n\n\n"
            for i in range(6)
        )
        for topic in ("basic", "options", "context", "parser", "groups")
    }
    pages = {
        f"docs/{name}.rst": f"{name.title()}\n{'=' * len(name)}\n\nHow {name} work in a "
        f"program: define them once and use them everywhere.\n"
        for name in ("options", "arguments", "prompts", "utilities", "parameters", "contexts")
    }
    guide = (
        "Testing Click Applications\n==========================\n\n"
        "For basic testing, Click provides the click.testing module which provides test "
        "functionality that helps you invoke command line applications and check their "
        "behavior.\n\nBasic Testing\n-------------\n\nThe basic functionality for testing "
        "is the CliRunner which can invoke commands as command line scripts. Testing a "
        "command: invoke it with the runner and check the result of the test.\n"
    )
    manifest = "CHANGES.rst\nREADME.rst\n" + "".join(f"{path}\n" for path in tests)
    return {**tests, **pages, "docs/testing.rst": guide, "src/click.egg-info/SOURCES.txt": manifest}


def test_a_how_to_question_finds_the_guide_not_names_made_of_its_words(
    tmp_index, monkeypatch
) -> None:
    """ "how do I test a command" on click's sdist: the tests `test_command*` (each a name
    equal to the words joined) and the manifest listing them filled the first 20, the
    guide "Testing Click Applications" in none: both words are in most passages, so the
    document channel (a question's) had no word left. A how-to question is framed (its
    topic a task in words, code at a share), no file list is a passage, and a framed
    question whose words are all common ranks whole documents by them."""
    from docql_sqlite.search import documents

    tmp_index.write_many(_click_shaped())
    tmp_index.index()
    monkeypatch.setattr(documents, "MIN_CHUNKS", 1)
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "how do I test a command", explain=True)
        looked_up = search(idx, "test command", explain=True)
        plural = search(idx, "how do I test commands", explain=True)
    paths = [h["path"].split("/src/", 1)[-1] for h in hits]
    assert paths[0].endswith("docs/testing.rst"), paths
    assert not any(p.endswith("SOURCES.txt") for p in paths), paths
    assert "every word of the question is common" in " ".join(plan(hits)["documents"])
    # a word with a stem prefix (commands → command) is common the same way
    assert "every word of the question is common" in " ".join(plan(plural)["documents"])
    assert any(h["path"].endswith("docs/testing.rst") for h in plural[:3]), plural
    # a look-up of the same words is a name's: the tests, as before
    assert looked_up[0]["path"].endswith(".py"), [h["location"] for h in looked_up]
    assert plan(looked_up)["documents"][0].startswith("not for a 2-word look-up")


def test_a_generated_search_index_is_no_passage(tmp_index, counting_model) -> None:
    """Sphinx's `searchindex.js` (Python's HTML docs: 3.6 MB on one line) holds every word
    of the docs: its 16 KB pieces ranked 2nd for "what new features in python 3.11 for
    error messages", above What's New. A line of data is no passage, and gets no vector;
    DocQL still reads it."""
    words = [f"word{i}" for i in range(3000)] + ["error", "messages", "features", "python"]
    index_line = "Search.setIndex({" + ", ".join(f'"{w}": [{i}, 7]' for i, w in enumerate(words))
    tmp_index.write("html/searchindex.js", index_line + "});\n")
    tmp_index.write(
        "html/whatsnew.md",
        "# What's New\n\nBetter error messages: the new features of this Python.\n",
    )
    tmp_index.write("html/other.md", "# Other\n\nNothing about the question here.\n")
    tmp_index.index()
    assert tmp_index.scalar("SELECT count(*) FROM chunks WHERE length(content) > 8192") >= 2
    with docql_sqlite.open(tmp_index.db) as idx:
        for mode in ("smart", "bm25"):
            hits = search(idx, "new features python error messages", mode=mode)
            assert [h["path"].rsplit("/", 1)[-1] for h in hits] == ["whatsnew.md"], mode
        assert idx.query('$.content.grep("word2999")')
    report = embed(tmp_index.db, "counting")
    assert not any(t.startswith("Search.setIndex") for t in counting_model.texts)
    assert report["nothing_to_embed"] >= 2


def test_two_words_the_index_writes_as_one_match_either_spelling(tmp_index) -> None:
    """gnuplot writes `set logscale`, SQLite `AUTOINCREMENT`: "set log scale" and "make a
    column auto increment" found the passages holding the two words apart (SQLite's
    `autoinc.html` was not in the first five). Each word matches the joined word too, and
    a passage holding one word of the pair still counts it ("throw an exception on
    deprecations": `--throw-deprecation` holds "throw" alone, and kept its first place)."""
    tmp_index.write_many(
        {
            "logscale.md": "# Logscale\n\nSyntax: set logscale <axes> {<base>}.\n",
            "scales.md": "# Scales\n\nSet the scale of the log file rotation.\n",
            "other.md": "# Other\n\nThe scale of a log is set elsewhere, in the log's scale.\n",
            "cli.md": "# --throw-deprecation\n\nThrow errors for deprecations.\n",
            "errors.md": "# Errors\n\nAn exception is thrown as the throwException hook says.\n",
            # the phrase is this index's usual spelling: no join (git's "fall back")
            "am.md": "# am\n\nAttempt a merge; fall back on a patch.\n",
            "apply.md": "# apply\n\nWhen it fails, fall back to the index.\n",
            "config.md": "# config\n\nThe fallback value of the option.\n",
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "set log scale", explain=True)
        assert hits[0]["path"].endswith("logscale.md"), [h["path"] for h in hits]
        assert '"log scale" also as "logscale"' in plan(hits)["strategy"]
        assert search(idx, "set log scale", mode="bm25")[0]["path"].endswith(
            ("scales.md", "other.md")
        )
        deprecations = search(idx, "throw an exception on deprecations")
        assert deprecations[0]["path"].endswith("cli.md"), [h["path"] for h in deprecations]
        fall_back = plan(search(idx, "fall back on a patch", explain=True))["strategy"]
        assert not any("also as" in step for step in fall_back), fall_back
        # one letter after a word is a name in a sentence, no half of a word ("string s")
        assert not any("also as" in s for s in plan(search(idx, "log s", explain=True))["strategy"])


REQUESTS_SHAPED = {
    # an sdist without docs: the code answers; the text files hold one word of the question
    "src/requests/sessions.py": 'class Session:\n    """A session: cookies persist across '
    'the requests made with it."""\n\n    def request(self, method, url):\n'
    '        """Send a request with the cookies the session keeps."""\n'
    "        return method, url\n",
    "src/requests.egg-info/requires.txt": "certifi\n\n[use_chardet_on_py3]\nchardet<6\n",
    "setup.cfg": "[metadata]\nprovides-extra = use_chardet_on_py3\n",
    "LICENSE": "Grant of license: use, reproduction and distribution of the Work.\n",
    "README.md": "# Requests\n\nAn HTTP library for humans.\n",
}


def test_a_how_to_question_s_documents_hold_two_of_its_words(tmp_index) -> None:
    """ "how to use a session to persist cookies" on requests' sdist ranked requires.txt,
    setup.cfg and LICENSE (the word "use" alone) above the class that answers: a how-to
    question's code counts 0.5 and the document channel gave them each a rank. Of three
    words or more, a document needs two."""
    tmp_index.write_many(REQUESTS_SHAPED)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "how to use a session to persist cookies", explain=True)
    paths = [h["path"].rsplit("/", 1)[-1] for h in hits]
    assert paths[:2] == ["sessions.py", "sessions.py"], paths
    assert "documents" not in hits[-1]["explain"]["lists"], hits[-1]["explain"]


TYPER_SHAPED = {
    # an sdist whose code answers; its Dockerfile's comment holds the verb alone
    "typer/main.py": "class Typer:\n    def add_typer(self, typer_instance, name=None):\n"
    '        """Add a subcommand group: another Typer app under a name."""\n'
    "        self.registered_groups.append((typer_instance, name))\n",
    "scripts/docker/Dockerfile": "FROM python:latest\n\n# Add Fish\nRUN apt-get install -y fish\n",
    "README.md": "# Typer\n\nBuild great CLIs. Easy to code. Based on Python type hints.\n\n"
    + "".join(f"## Feature {i}\n\nTyper does thing {i} for your program.\n\n" for i in range(12))
    + "## An example with two subcommands\n\nAdd two subcommands with `@app.command()`.\n",
}


def test_a_build_file_is_no_prose_for_a_how_to_question(tmp_index) -> None:
    """ "how do I add a subcommand" on typer's sdist ranked its Dockerfile ("# Add Fish",
    no "subcommand") third, above the README's section on subcommands: a build file
    counts as a settings file's passages do for a question asking for prose."""
    tmp_index.write_many(TYPER_SHAPED)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "how do I add a subcommand", explain=True)
    paths = [h["path"].rsplit("/", 1)[-1] for h in hits]
    assert paths.index("README.md") < paths.index("Dockerfile"), paths


def test_a_passage_found_in_two_files_is_shown_once(tmp_index) -> None:
    # R's refman.pdf and fullrefman.pdf hold the same pages: each answer took two places
    page = "# read.table\n\nReads a file in table format and creates a data frame from it.\n"
    docs = {"refman.md": page, "fullrefman.md": page}
    docs.update({f"topic{i}.md": f"# Topic {i}\n\nA frame of topic {i}.\n" for i in range(8)})
    tmp_index.write_many(docs)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "read a file into a data frame", limit=5, explain=True)
    texts = [h["content"] for h in hits]
    assert len(texts) == len(set(texts)) == 5  # no copy, and the limit still filled
    first = next(h for h in hits if h["section"] == "read.table")
    assert first["path"] == "docs/fullrefman.md"  # the first by path on a tie
    assert first["explain"]["copies"] == ["docs/refman.md:1-3"]
    assert any("same text as a better one" in step for step in plan(hits)["strategy"])


def test_the_same_text_elsewhere_in_another_document_is_not_a_copy(tmp_index) -> None:
    # a paragraph two pages include at different places (git's shared option texts):
    # another place to read it, kept
    para = "## --porcelain\n\nShow in a format designed for machine consumption.\n"
    docs = {
        "git-blame.md": "# git blame\n\nBlame lines.\n\n" + para,
        "git-annotate.md": "# git annotate\n\nAnnotate lines.\n\nMore text here.\n\n" + para,
    }
    tmp_index.write_many(docs)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "format designed for machine consumption", limit=5)
    assert [h["section"] for h in hits[:2]] == ["--porcelain", "--porcelain"], hits


def test_the_same_section_of_a_page_in_another_format_is_a_copy(tmp_index) -> None:
    # SQLAlchemy's sdist ships its manual as reST sources and as the HTML built from
    # them: "how to use a server side cursor" showed both as its first two answers.
    # The same section of another page (each dialect's "Server Side Cursors") and code
    # beside the page that documents it stay.
    text = (
        "Server side cursors stream results from the database in batches instead of "
        "fetching every row into memory first; pass stream_results to use them."
    )
    docs = {
        "build/core/connections.rst": (
            "Connections\n===========\n\nServer Side Cursors\n-------------------\n\n"
            f"{text} See :meth:`.Connection.execution_options`.\n"
        ),
        "core/connections.html": (
            "<html><body><h1>Connections</h1><h2>Server Side Cursors</h2>"
            f"<p>{text} See Connection.execution_options().</p></body></html>"
        ),
        "dialects/postgresql.html": (
            "<html><body><h1>PostgreSQL</h1><h2>Server Side Cursors</h2>"
            f"<p>{text} Psycopg names its cursors.</p></body></html>"
        ),
        "ref/fields.rst": (
            "Fields\n======\n\nDateField\n---------\n\n"
            "A date field validates a date typed as year, month and day.\n"
        ),
        "lib/fields.py": (
            'class DateField:\n    """A date field validates a date typed as year, month '
            'and day."""\n'
        ),
    }
    docs.update({f"topic{i}.md": f"# Topic {i}\n\nA cursor of topic {i}.\n" for i in range(6)})
    tmp_index.write_many(docs)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "server side cursors stream results", limit=6, explain=True)
    paths = [h["path"].removeprefix("docs/") for h in hits]
    twins = {"build/core/connections.rst", "core/connections.html"}
    assert len(twins & set(paths)) == 1, paths  # one of the two formats
    kept = next(h for h in hits if h["path"].removeprefix("docs/") in twins)
    (copy,) = kept["explain"]["copies"]
    assert copy.split(":")[0].removeprefix("docs/") in twins - {kept["path"].removeprefix("docs/")}
    assert "dialects/postgresql.html" in paths, paths
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "date field validates a date typed as year month day", limit=6)
    paths = [h["path"].removeprefix("docs/") for h in hits]
    assert {"ref/fields.rst", "lib/fields.py"} <= set(paths), paths


def test_a_sections_passages_in_another_format_chunked_otherwise_are_copies(tmp_index) -> None:
    """alembic's sdist ships its manual as reST and as the HTML built from it, each
    chunked at other lines: "what does autogenerate detect" listed the section's parts
    from both (each passage .24–.29 of the other's words, .96–.99 in the other's whole
    section). A passage of the same page's section in another format is a copy when
    nine in ten of its words are in the kept passage's whole section."""
    paragraphs = [
        "Autogenerate detects table additions and removals against the reflected database.",
        "Column additions and removals are found, as are nullable status changes.",
        "Basic changes in indexes and explicitly named unique constraints are noticed.",
        "Foreign key constraints come along when the backend reports their names.",
        "Server defaults render only when the comparison hook is switched on by config.",
        "Enumerated types on PostgreSQL stay invisible; their values need manual edits.",
        "Sequences, triggers and stored procedures never appear in the generated script.",
        "Renames look like a drop followed by an add, so review every migration file.",
    ]
    rst = (
        ".. _autogenerate-detects:\n\nAutogenerate\n============\n\nWhat it detects\n"
        "---------------\n\n.. _detects-table-additions-removals-column-changes:\n\n"
        + "".join(f"{p}\n\n" for p in paragraphs)
    )
    html = (
        "<html><body><h1>Autogenerate</h1><h2>What it detects</h2>"
        + "".join(f"<p>{p}</p>" for p in paragraphs)
        + "</body></html>"
    )
    docs = {"build/autogenerate.rst": rst, "autogenerate.html": html}
    docs.update({f"topic{i}.md": f"# Topic {i}\n\nA table of topic {i}.\n" for i in range(6)})
    tmp_index.write_many(docs)
    tmp_index.index(max_chars=400)
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(
            idx, "are server defaults and enumerated types detected", limit=8, explain=True
        )
    formats = {h["path"].rsplit(".", 1)[-1] for h in hits if h["section"] == "What it detects"}
    assert len(formats) == 1, [h["location"] for h in hits]
    assert any(h["explain"].get("copies") for h in hits)


@pytest.mark.parametrize(
    "query, cased",
    [
        ("Config", {"Config"}),  # the query's one word, typed with a capital
        ("HTTPServer", {"HTTPServer"}),
        ("what is DocQLLexer?", {"DocQLLexer"}),  # a word written like an identifier
        ("source of class MonkeyPatch", {"MonkeyPatch"}),
        ("config", set()),  # no capital: no case said
        ("How do I set the Environment", set()),  # a sentence's capitals say nothing
        ("Environment loader", set()),
        ("fs.readFile", set()),  # a qualified name: its own rule (`qualified`)
        ("__init__", set()),
    ],
)
def test_the_names_a_query_gives_a_case(query: str, cased: set[str]) -> None:
    from docql_sqlite.search.query_names import query_names
    from docql_sqlite.search.terms import parse

    assert query_names(parse(query)).cased == cased


CASED_DOCS = {
    # pytest in small: the class `Config`, whose first passage is a long docstring, and
    # short definitions whose names hold "config" in other cases.
    "pkg/config.py": (
        "class Config:\n"
        '    """Access to configuration values, pluginmanager and plugin hooks.\n\n'
        + "".join(
            f"    The {w} of a run is read from the command line, the ini file and the "
            f"environment, in that order; {w} values are cached per session.\n"
            for w in ("option", "setting", "value", "flag", "path", "marker", "hook", "plugin")
        )
        + '    """\n\n    def __init__(self, args):\n        self.args = args\n'
    ),
    "pkg/request.py": (
        "class Request:\n    @property\n    def config(self):\n"
        "        return self.session.config\n\n\n"
        "def get_config():\n    return None\n\n\ndef set_config(value):\n    return value\n\n\n"
        "def parse_config(text):\n    return text.split()\n"
    ),
}


def test_a_name_typed_with_its_capitals_finds_that_definition_first(tmp_index) -> None:
    """ "Config" on pytest put the property `config` (short, in the BM25 list and both
    name lists) first and `class Config` (a long docstring, far down BM25's) fifth;
    "Environment" on Jinja2 four functions named `*_environment` before the class. Code
    is case-sensitive: a capital typed in a name says which definition is meant, and the
    names spelled otherwise count half (`QueryNames.case_share`). Without a capital the
    query says nothing of case: `config` is a definition of it as much as `Config`."""
    tmp_index.write_many(CASED_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        first = idx.search("Config", limit=5)[0]
        assert (first["path"].rsplit("/", 1)[-1], first["line"]) == ("config.py", 1), first
        lower = [h["location"] for h in idx.search("config", limit=5)]
        assert any("request.py:2-" in location for location in lower[:2]), lower  # @property


def _ranked(name: str, chunks: list[int], **extra: float) -> Any:
    from docql_sqlite.search import fusion

    rows = [{"_chunk": c, "_path": f"p{c}.md", "_pos": 0, **extra} for c in chunks]
    return fusion.Ranked(name, 1.0, rows)


@pytest.mark.parametrize(
    "bm25, vector, agreed",
    [
        ([1, 2, 3], [3, 4, 5], {3}),  # third in both
        ([1, 2, 3, 4], [4, 5, 6], None),  # 4th in BM25: beyond the depth
        ([1, 1, 1, 2], [2, 7, 8], {2}),  # a list names a chunk once: 2 is BM25's second
        ([1, 2], [2, 1, 9], {1, 2}),
        ([], [1, 2, 3], None),
    ],
)
def test_agreement_is_the_first_three_of_both_bm25_and_vectors(
    bm25: list[int], vector: list[int], agreed: set[int] | None
) -> None:
    from docql_sqlite.search import fusion

    lists = [_ranked("bm25", bm25), _ranked("exact", [9, 8, 7]), _ranked("vector", vector)]
    got = fusion.agreement(lists)
    assert (None if got is None else set(got.chunks)) == agreed
    # the exact list (or any other) does not stand in for BM25
    assert fusion.agreement([_ranked("exact", bm25), _ranked("vector", vector)]) is None


def test_agreement_lifts_a_fragments_passage_over_many_weak_memberships() -> None:
    # "throw an exception on deprecations" on Node's docs: `--throw-deprecation` (9) was
    # first in BM25 and in the vector list, and ranked 4th behind passages each list
    # held lower down, one of them also the documents channel's passage of its page.
    from docql_sqlite.search import fusion, ranking
    from docql_sqlite.search.query_names import query_names

    names = query_names(ranking.query_terms("throw an exception on deprecations"))
    lists = [
        _ranked("bm25", [9, 2, 3, 4, 5, 1, 6, 7]),
        _ranked("documents", [8, 10, 11, 12, 13, 14, 15, 1]),
        _ranked("vector", [9, 16, 17, 18, 19, 20, 21, 22, 1]),
    ]

    def order(agreed: Any) -> list[int]:
        fused = fusion.rrf(lists)
        scored = sorted(fused, key=lambda f: -fusion.composite(f, names, agreed=agreed))
        return [f.row["_chunk"] for f in scored]

    assert order(None).index(9) > order(None).index(1)  # the weak memberships win
    assert order(fusion.agreement(lists))[0] == 9


def test_a_fragment_gets_the_agreement_and_a_question_the_boost(
    e5_db: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    database, env = e5_db
    monkeypatch.setenv("DOCQL_MODEL_CACHE", env["DOCQL_MODEL_CACHE"])
    with docql_sqlite.open(database) as idx:
        fragment = idx.search("knead the dough and bake it", explain=True)
        question = idx.search("how long do I bake the dough?", explain=True)
    steps = fragment[0]["explain"]["plan"]["strategy"]
    assert fragment[0]["path"].endswith("cooking.md")
    assert any(s.startswith("no question: 1 passages in the first 3 of both") for s in steps)
    steps = question[0]["explain"]["plan"]["strategy"]
    assert not any(s.startswith("no question") for s in steps)
    assert any("a strong encoder and a question" in s for s in steps)


REMINDERS = {
    # "remind" is in no passage as typed: its stem finds "reminders"
    "faq/follow-ups.md": "# Follow-ups\n\nGentle reminders in the contributors' channel "
    "are welcome after a week without an answer.\n",
    "faq/teams.md": "# Teams\n\nThe team reviews each change.\n",
    "faq/care.md": "# Care\n\nTake care of the release branch.\n",
    "faq/changes.md": "# Changes\n\nEvery change needs a test.\n",
}


def test_a_respelled_word_counts_as_a_word_of_the_question_in_the_vector_list(
    tmp_index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question's vector passages that hold none of its words count half
    (`channels.WORDLESS_WEIGHT`); a word no passage holds as typed is respelled by its
    stem (`remind` → `remind*`), and a passage holding that ("reminders") holds a word
    of the question. Found on Django's FAQ: the answer to "When and how might I remind
    the team of a change I care about?" was the vector list's 4th, halved, and out of
    the first ten."""
    from docql_sqlite.index import embed
    from docql_sqlite.search import channels

    tmp_index.write_many(REMINDERS)
    tmp_index.index()
    embed(tmp_index.db, "hash")
    # the hashing model as a strong encoder: its question's vector list is boosted
    monkeypatch.setitem(channels.STRONG_VECTORS, "hash:256", 8.0)
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("How might I remind the team of a change I care about?", explain=True)
    steps = hits[0]["explain"]["plan"]["strategy"]
    assert '"remind" is in no passage → "remind" *' in steps
    # every passage holds a word of the question: "reminders" the respelled one
    assert not any("hold none of the words" in s for s in steps), steps
    by_path = {h["path"]: h["explain"] for h in hits}
    held = by_path["docs/faq/follow-ups.md"]
    boost = next(float(s.rsplit("x", 1)[1]) for s in steps if "vector list weight" in s)
    rank = held["lists"]["vector"]["rank"]
    assert held["rrf"]["vector"] == pytest.approx(boost / (60 + rank), abs=1e-6)


def test_an_enums_member_is_found_by_its_qualified_name(tmp_index) -> None:
    """clap's `ArgAction::Count` was found only in examples that use it: the variant
    was no symbol. An enum's members are symbols under it (kind `enum_member`), so
    the qualified name finds the passage that defines the member first."""
    tmp_index.write_many(
        {
            "src/action.rs": "pub enum ArgAction {\n    /// Store the value.\n    Set,\n"
            + "".join(f"    /// Filler {n}.\n    Filler{n},\n" for n in range(40))
            + "    /// Increment a counter each time the flag is seen.\n    Count,\n}\n",
            "examples/count.rs": "fn main() {\n    // ArgAction::Count counts -v -v -v\n"
            "    let a = ArgAction::Count;\n    let b = ArgAction::Count;\n}\n",
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("ArgAction::Count", limit=3, explain=True)
        member = idx.query('$.code.symbols[?(@.qualified_name == "ArgAction.Count")]')
    assert [m["kind"] for m in member] == ["enum_member"]
    first = hits[0]
    assert first["path"] == "docs/src/action.rs", [h["location"] for h in hits]
    assert first["line"] <= member[0]["line"] <= first["end_line"]
    assert first["explain"]["lists"]["symbols"]["match"] == "Count"


LICENCE_AND_CODE = {
    # expo-modules-core in small: its prose is a README, a changelog and the MIT licence,
    # whose "IN NO EVENT" the documents channel matches for a question about events
    "LICENSE": "MIT License\n\nCopyright (c) 2015 650 Industries\n\n"
    "Permission is hereby granted, free of charge, to any person "
    "obtaining a copy of this software. IN NO EVENT SHALL THE AUTHORS BE LIABLE FOR ANY "
    "CLAIM, WHETHER IN AN ACTION OF CONTRACT OR OTHERWISE.\n",
    "README.md": "# expo-modules-core\n\nThe module API and the app context.\n",
    "CHANGELOG.md": "# Changelog\n\n## 1.2\n\n- Fixed events not sent when the app starts.\n",
    "ios/EventEmitter.swift": "/// Sends events to JavaScript listeners.\n"
    "public final class EventEmitter {\n  func sendEvent(_ name: String) {\n  }\n}\n",
    "ios/Module.swift": "public class Module {\n  /// Events the module sends.\n"
    "  func events() -> [String] { [] }\n}\n",
}


GENERATED_AND_CODE = {
    # sentencepiece in small: the generated message class repeats the field's name in
    # each accessor; the code that handles the symbols names them once
    "src/model.pb.h": "".join(
        f"inline int ModelSpec::{verb}user_defined_symbols() const "
        "{ return user_defined_symbols_; }\n"
        for verb in ("", "has_", "clear_", "add_", "mutable_", "set_", "release_")
    ),
    "src/model_interface.cc": "// Registers the user defined symbols; the matcher keeps them.\n"
    "void ModelInterface::InitializePieces() {\n"
    "  std::set<std::string> user_defined_symbols;\n"
    "  matcher_ = std::make_unique<PrefixMatcher>(user_defined_symbols);\n}\n",
}


@pytest.mark.parametrize(
    ("query", "share"),
    [
        ("how are user defined symbols handled", 0.5),
        ("protobuf accessor of user defined symbols", 1.0),
        ("the generated user_defined_symbols method", 1.0),
    ],
)
def test_generated_source_counts_half_unless_the_query_asks_for_it(
    tmp_index, monkeypatch: pytest.MonkeyPatch, query: str, share: float
) -> None:
    """On sentencepiece 0.2 "how are user defined symbols handled" found ten accessors of
    `sentencepiece_model.pb.h` and not the code that handles them."""
    from docql_sqlite.search import fusion
    from docql_sqlite.search import terms as search_terms

    assert fusion.generated_share(search_terms.parse(query)) == share
    tmp_index.write_many(GENERATED_AND_CODE)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        shared = search(idx, query, limit=20)
        monkeypatch.setattr(fusion, "GENERATED_SHARE", 1.0)
        whole = {h["path"]: h["score"] for h in search(idx, query, limit=20)}
    scores = {h["path"]: h["score"] for h in shared}
    generated = next(path for path in whole if path.endswith(".pb.h"))
    assert scores[generated] == pytest.approx(whole[generated] * share, rel=1e-4)
    if share != 1.0:
        assert shared[0]["path"].endswith("model_interface.cc")


@pytest.mark.parametrize(
    "query, share",
    [
        ("where are events sent to JavaScript", 0.5),
        ("what license covers the code", 1.0),
        ("is it MIT or Apache", 1.0),
        ("copyright holder", 1.0),
    ],
)
def test_a_licence_counts_half_unless_the_query_asks_about_licensing(
    tmp_index, monkeypatch: pytest.MonkeyPatch, query: str, share: float
) -> None:
    """A licence answers no question but a licensing one: on expo-modules-core the MIT
    licence was 4th for "where are events sent to JavaScript" (its "IN NO EVENT", in a
    package whose only prose is a README, a changelog and the licence). Its passages
    keep LEGAL_SHARE of their score unless the query asks about licensing."""
    from docql_sqlite.search import fusion
    from docql_sqlite.search import terms as search_terms

    assert fusion.legal_share(search_terms.parse(query)) == share
    tmp_index.write_many(LICENCE_AND_CODE)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        shared = {h["path"]: h["score"] for h in search(idx, query, limit=20)}
        monkeypatch.setattr(fusion, "LEGAL_SHARE", 1.0)
        whole = {h["path"]: h["score"] for h in search(idx, query, limit=20)}
    licence = next((path for path in whole if path.endswith("/LICENSE")), None)
    assert licence is not None, whole
    assert shared[licence] == pytest.approx(whole[licence] * share, rel=1e-4)


COMPARED_DOCS = {
    # the Debian Administrator's Handbook in small: the page that compares apt and
    # aptitude, and pages where "difference" is the rarest word of the question
    "apt.md": "# Package tools\n\n## aptitude, apt-get and apt\n\nThe apt command is for users "
    "at a terminal; aptitude adds a text interface, remembers which packages were installed "
    "as dependencies and offers to remove them.\n",
    "diff.md": "# diff\n\n## Showing the difference between two files\n\nThe diff tool prints "
    "the difference between two files, line by line: each difference is a hunk.\n",
    "math.md": "# Sets\n\n## Symmetric difference\n\nThe difference between two sets is what "
    "one holds and the other does not.\n",
    "install.md": "# Installing\n\nRun apt install to add a package; apt upgrade to upgrade.\n",
}


@pytest.mark.parametrize(
    "question", ["what is the difference between apt and aptitude?", "apt vs aptitude"]
)
def test_a_comparison_searches_for_both_things(tmp_index, question: str) -> None:
    """ "what is the difference between apt and aptitude" on the Handbook ranked a page on
    package relations first: "difference" was the question's rarest word. A comparison's
    topic is both things; the frame's word is none of it."""
    tmp_index.write_many(COMPARED_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, question, explain=True)
    assert hits[0]["path"].endswith("apt.md"), [h["path"] for h in hits]
    assert not any(h["path"].endswith(("diff.md", "math.md")) for h in hits), hits
    steps = hits[0]["explain"]["plan"]["strategy"]
    assert any("a question framed by" in s for s in steps), steps


def test_a_long_query_is_framed_in_linear_time() -> None:
    """A comparison's regexes have lazy parts: over a pasted run of blanks they took a time
    quadratic in its length (40,000 characters: 7 s). A comparison is short; a long text
    is not tried."""
    import time

    from docql_sqlite.search import frames

    started = time.process_time()
    for text in ("a" + " " * 100_000 + "b", "x" + " \t" * 50_000 + "vs y", "a vs " * 20_000):
        frames.frame(text)
    assert time.process_time() - started < 1.0


def _c_reference_page(title: str, prototypes: str, prose: str) -> str:
    return (
        f"<html><head><title>{title}</title></head><body><h2>{title}</h2>"
        f"<blockquote><pre>\n{prototypes}</pre></blockquote><p>{prose}</p></body></html>"
    )


def test_a_c_function_is_found_where_its_prototype_is_declared(tmp_index) -> None:
    """SQLite's C reference titles each page by what it does ("Compiling An SQL
    Statement") and shows the functions' prototypes in a <pre>: "sqlite3_prepare_v2"
    ranked `set_authorizer.html`'s passage that mentions it first, and
    "sqlite3_errmsg" a neighbouring function's page. A prototype in a code block is an
    API entity, and the one entity a look-up names is its answer."""
    prepare = "".join(
        f"int sqlite3_prepare{suffix}(\n  sqlite3 *db,            /* Database handle */\n"
        f"  const char *zSql,       /* SQL statement, UTF-8 encoded */\n"
        f"  int nByte,              /* Maximum length of zSql in bytes. */\n"
        f"  sqlite3_stmt **ppStmt,  /* OUT: Statement handle */\n"
        f"  const char **pzTail     /* OUT: Pointer to unused portion of zSql */\n);\n"
        for suffix in ("", "_v2", "_v3", "16", "16_v2", "16_v3")
    )
    pages = {
        "c3ref/prepare.html": _c_reference_page(
            "Compiling An SQL Statement",
            prepare,
            "To execute an SQL statement, it must first be compiled into a byte-code "
            "program. The preferred routine to use is sqlite3_prepare_v2().",
        ),
        "c3ref/errcode.html": _c_reference_page(
            "Error Codes And Messages",
            "int sqlite3_errcode(sqlite3 *db);\nconst char *sqlite3_errmsg(sqlite3*);\n",
            "If the most recent sqlite3_* API call failed, these return its error code "
            "and the English text that describes it.",
        ),
    }
    for n, name in enumerate(("set_authorizer", "unlock_notify", "stmt", "step", "db_handle")):
        pages[f"c3ref/{name}.html"] = _c_reference_page(
            f"Interface {n}",
            f"int sqlite3_{name}(sqlite3_stmt*);\n",
            f"When sqlite3_prepare_v2() is used, sqlite3_{name} follows; an error's text "
            "is read with sqlite3_errmsg().",
        )
    tmp_index.write_many(pages)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        for name, page in (("sqlite3_prepare_v2", "prepare"), ("sqlite3_errmsg", "errcode")):
            hits = idx.search(name, limit=3)
            assert hits[0]["path"] == f"docs/c3ref/{page}.html", [h["location"] for h in hits]


def test_a_books_section_in_its_pdf_and_its_html_is_shown_once(tmp_index) -> None:
    """The Debian Reference ships as chapter pages (`ch01.en.html`) and as one PDF of the
    whole book: "how do I change the default editor" showed the PDF's page and the
    HTML's section "1.4.7. Setting a default text editor" first and second. A section of
    the same title (its printed number aside) holding most of the same words, in a PDF
    and in another format, is one answer shown once; a section of that title over other
    words stays."""
    from test_parse_pdf import make_pdf

    text = (
        "The default text editor is chosen with update-alternatives; set EDITOR in your "
        "shell's profile to override it for your own account."
    )
    words = text.split()
    pdf_lines = ["Setting a default text editor"] + [
        " ".join(words[i : i + 8]) for i in range(0, len(words), 8)
    ]
    other = ["Unix text tools", "Many editors are packaged: vim, nano and emacs."]
    outline = [(0, "Unix text tools", 0), (0, "Setting a default text editor", 1)]
    tmp_index.write("book.en.pdf", make_pdf([other, pdf_lines], outline))
    tmp_index.write_many(
        {
            "ch01.en.html": "<html><body><h2>1.4.6. Unix text tools</h2><p>Many editors are "
            f"packaged.</p><h2>1.4.7. Setting a default text editor</h2><p>{text}</p>"
            "</body></html>",
            # the same title over other text: another section
            "ch09.en.html": "<html><body><h2>9.4.1. Setting a default text editor</h2><p>"
            "The text editor a user picked with select-editor is kept in ~/.selected_editor "
            "and read by sensible-editor.</p></body></html>",
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("how do I set the default text editor", limit=5, explain=True)
    paths = [h["path"].removeprefix("docs/") for h in hits]
    assert len({"book.en.pdf", "ch01.en.html"} & set(paths)) == 1, paths
    assert "ch09.en.html" in paths, paths


def test_a_project_manifest_answers_only_what_manifests_say(tmp_index) -> None:
    """express' `package.json` came second for "how does express set the content type":
    its dependencies `content-type` and `content-disposition` hold the question's words,
    and the documents channel ranks a small file that holds them all. A manifest's
    passage counts half unless the query asks about dependencies, versions, scripts."""
    manifest = (
        '{\n  "name": "express",\n  "version": "4.21.2",\n  "dependencies": {\n'
        '    "content-disposition": "0.5.4",\n    "content-type": "~1.0.4",\n'
        '    "type-is": "~1.6.18"\n  },\n  "scripts": {\n    "test": "mocha"\n  }\n}\n'
    )
    code = (
        "/**\n * Set the Content-Type of the response to `type`, looked up by mime.\n */\n"
        "res.type = function contentType(type) {\n"
        "  var ct = type.indexOf('/') === -1 ? mime.lookup(type) : type;\n"
        "  return this.set('Content-Type', ct);\n};\n"
    )
    tmp_index.write_many({"package.json": manifest, "lib/response.js": code})
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("how does express set the content type", limit=2, explain=True)
        assert hits[0]["path"] == "docs/lib/response.js", [h["location"] for h in hits]
        assert any("project manifests x0.5" in s for s in hits[0]["explain"]["plan"]["strategy"])
        hits = idx.search("which version of content-type does express depend on", limit=2)
        assert hits[0]["path"] == "docs/package.json", [h["location"] for h in hits]


PERL_AGENT = """\
package Mojo::UserAgent;
use Mojo::Base 'Mojo::EventEmitter';

has connect_timeout => sub { $ENV{MOJO_CONNECT_TIMEOUT} || 10 };
has request_timeout => sub { $ENV{MOJO_REQUEST_TIMEOUT} // 0 };

sub start {
  my ($self, $tx) = @_;
  if (my $t = $self->request_timeout) { $self->ioloop->timer($t => sub { 1 }) }
  return $self->connect_timeout;
}

1;

=head1 NAME

Mojo::UserAgent - Non-blocking I/O HTTP and WebSocket user agent

=head1 ATTRIBUTES

=head2 connect_timeout

  my $timeout = $ua->connect_timeout;

Maximum amount of time in seconds establishing a connection may take before getting
canceled, defaults to the value of the C<MOJO_CONNECT_TIMEOUT> environment variable
or C<10>.

=head2 request_timeout

  my $timeout = $ua->request_timeout;
  $ua         = $ua->request_timeout(5);

Maximum amount of time in seconds establishing a connection, sending the request and
receiving a whole response may take before getting canceled, defaults to the value
of the C<MOJO_REQUEST_TIMEOUT> environment variable or C<0>.

=cut
"""


def test_a_perl_modules_pod_heading_is_a_heading_its_attribute_a_method(tmp_index) -> None:
    """Mojolicious documents each attribute (`has request_timeout => …`) in the `.pm`'s
    POD: the POD's `=head2 request_timeout` was no heading (a code file's headings were
    taken for its symbols'), and the attribute no symbol."""
    others = {f"docs/page{i}.md": f"# Page {i}\n\nText about topic {i}.\n" for i in range(12)}
    tmp_index.write_many({"lib/Mojo/UserAgent.pm": PERL_AGENT, **others})
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "request_timeout", explain=True)
        callers = idx.query('$.code.callers("request_timeout").location')
    # the definition, then its manual's section, named by the headings list
    assert [h["location"] for h in hits[:2]] == [
        "docs/lib/Mojo/UserAgent.pm:1-6",
        "docs/lib/Mojo/UserAgent.pm:29-38",
    ], [h["location"] for h in hits]
    assert "symbols" in hits[0]["explain"]["lists"] and "headings" in hits[1]["explain"]["lists"]
    assert callers == ["docs/lib/Mojo/UserAgent.pm:9"]


PENLIGHT_SHAPED = {
    # Penlight in small: a library of Lua alone, its functions' doc comments the only prose
    "pl/utils.lua": (
        "local utils = {}\n\n"
        "--- split a string into a list of strings separated by a delimiter.\n"
        "-- @param s The input string\n-- @param re optional A Lua string pattern\n"
        "-- @return a list-like table\n"
        "function utils.split(s, re)\n"
        + "".join(f"    local v{i} = find(s, re, {i})\n" for i in range(10))
        + "    return ls\nend\n\n"
        "--- split into a number of return values.\n"
        "-- Identical to `split` but returns multiple values instead of\n"
        "-- a single list.\n-- @param s the text\n"
        "-- @param re A Lua pattern; defaults to '%s+'\n"
        "-- @param plain don't use Lua patterns\n-- @param n optional maximum number\n"
        "-- @usage first,next = splitv('user=jane=doe','=', false, 2)\n"
        "-- @see split\n"
        "function utils.splitv(s, re, plain, n)\n    return unpack(utils.split(s, re))\nend\n\n"
        "return utils\n"
    ),
    **{
        f"pl/m{i}.lua": f"local M = {{}}\nfunction M.f{i}(x)\n  return x\nend\nreturn M\n"
        for i in range(10)
    },
}


def test_a_how_to_among_code_alone_ranks_no_function_by_its_bodys_length(tmp_index) -> None:
    """Penlight's "how do I split a string": among passages of code alone, the prose
    frame's code share only favoured the function whose doc comment outweighs its body
    (`splitv`, whose comment says "split into a number of return values") over
    the answer (`split`, "split a string into a list of strings")."""
    tmp_index.write_many(PENLIGHT_SHAPED)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "how do I split a string", explain=True)
    assert hits[0]["section"] == "split", [h["location"] for h in hits]
    assert not any("code and settings files" in s for s in plan(hits)["strategy"])


def _man_page(name: str, summary: str, body: str, tail: str = "") -> str:
    return (
        f".TH {name.upper()} 1\n.SH NAME\n{name} \\- {summary}\n.SH SYNOPSIS\n.B {name}\n"
        f"[OPTION]...\n.SH DESCRIPTION\n{body}\n{tail}"
    )


MAN_PAGES = {
    "man1/chmod.1": _man_page("chmod", "change file mode bits", "Changes the mode of each file."),
    # another page that says the name more often than its own page does
    "man1/curl.1": _man_page(
        "curl",
        "transfer a URL",
        "Transfers data.\n.SH OPTIONS\n.TP\n.B \\-\\-ftp\\-create\\-dirs\n"
        + "Sets the chmod mode; chmod is applied after chmod rules, as chmod does.\n" * 3,
    ),
    # four names of one page (the same bytes: Debian's grep.1, egrep.1, fgrep.1, rgrep.1)
    **{
        f"man1/{n}.1": _man_page("grep", "print lines that match patterns", "Searches.")
        for n in ("grep", "egrep", "fgrep", "rgrep")
    },
    "man1/xzgrep.1": _man_page(
        "xzgrep",
        "search compressed files",
        "Calls grep.\n.SH ENVIRONMENT\n.TP\n.B GREP\nIf the GREP variable is set, grep is "
        "that grep instead of grep; GREP names the grep to run.\n",
    ),
    # git's pages each end with a section "GIT", its own page too
    **{
        f"man1/git-{c}.1": _man_page(
            f"git-{c}", f"the {c} command", "Runs it.", ".SH GIT\nPart of the git(1) suite\n"
        )
        for c in ("add", "am", "apply", "bisect", "blame", "branch", "clone", "commit")
    },
    # libcurl's: the function's page, and a guide that shows its prototype (an API entity)
    "man3/curl_easy_setopt.3": _man_page(
        "curl_easy_setopt", "set options for a curl easy handle", "Sets an option."
    ).replace(".TH CURL_EASY_SETOPT 1", ".TH CURL_EASY_SETOPT 3"),
    # (a guide whose code span `curl_easy_setopt()` is an API entity: the one an API
    # look-up names)
    "docs/WEBSOCKET.md": "# WebSocket\n\n## API\n\nSet `CURLOPT_CONNECT_ONLY` to 2L, "
    "which makes libcurl do an HTTP GET in the `curl_easy_perform()` call.\n\nThe new "
    "options to `curl_easy_setopt()`:\n\n- CURLOPT_WS_OPTIONS\n\n"
    + "".join(
        f"## Frames {i}\n\nA WebSocket frame {i} carries text or binary data, a ping or a "
        "pong, and the close code the peer sent when it ended the connection.\n\n"
        for i in range(12)
    ),
    "man1/git.1": _man_page(
        "git",
        "the stupid content tracker",
        "Git is a fast, scalable, distributed revision control system.",
        ".SH GIT\nPart of the git(1) suite\n",
    ),
}


@pytest.mark.parametrize(
    "query, page",
    [
        ("chmod", "man1/chmod.1"),
        ("grep", None),
        ("git", "man1/git.1"),
    ],
)
def test_a_manual_page_is_named_by_its_command(tmp_index, query: str, page: str | None) -> None:
    """On 17,931 pages of man1 "chmod" found curl's OPTIONS first, "git" 23 pages' "GIT"
    sections before git(1), and "grep" (a page four files hold) no grep(1) in the first
    three: a page titled `chmod(1)` is named `chmod`, its copies are one page, a query of
    that one name counts it twice, and a heading more than four pages bear names none."""
    tmp_index.write_many(MAN_PAGES)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, query, limit=3)
    first = hits[0]["path"].removeprefix("docs/")
    if page is None:  # one of the copies, shown once
        assert first in {f"man1/{n}.1" for n in ("grep", "egrep", "fgrep", "rgrep")}, first
    else:
        assert first == page, [h["location"] for h in hits]
    assert hits[0]["line"] == 1  # its opening, the NAME line


def _javadoc_class(name: str, methods: list[str]) -> str:
    members = "".join(
        f'<section class="detail"><h4>{m}</h4><div class="member-signature">public static '
        f"boolean {m}(int[] array, int valueToFind)</div>\n"
        f'<div class="block">Checks the given array.</div></section>\n'
        for m in methods
    )
    return f"<html><body><main><h1>Class {name}</h1>\n{members}</main></body></html>\n"


def _javadoc_source(lines: list[str]) -> str:
    body = "\n".join(f'<span class="sourceLineNo">{i}</span>{t}' for i, t in enumerate(lines, 1))
    return f"<html><body><main><pre>{body}</pre></main></body></html>\n"


JAVADOC = {
    "api/org/apache/commons/lang3/ArrayUtils.html": _javadoc_class(
        "ArrayUtils", ["add", "contains", "indexOf", "isEmpty"]
    ),
    "api/org/apache/commons/lang3/StringUtils.html": _javadoc_class(
        "StringUtils", ["contains", "isBlank"]
    ),
    # Javadoc's source listings (`-linksource`): calls of `ArrayUtils.contains(…)`
    **{
        f"api/src-html/org/apache/commons/lang3/builder/{b}.html": _javadoc_source(
            [f"final Field f{i} = fields[{i}]; // {b} field {i}" for i in range(12)]
            + ["if (ArrayUtils.contains(excludeFields, f.getName())) {", "    continue;", "}"]
        )
        for b in ("EqualsBuilder", "HashCodeBuilder", "CompareToBuilder")
    },
}


def test_a_qualified_name_finds_the_heading_in_the_page_of_its_class(tmp_index) -> None:
    """Commons Lang's Javadoc (Debian's `libcommons-lang3-java-doc`): "ArrayUtils.contains"
    listed four source listings that call it first and no `contains` of `ArrayUtils.html`:
    a heading of a qualified name's last part in a page whose file or folder the part
    before it names is an exact match, as for a symbol (not `StringUtils.html`'s)."""
    tmp_index.write_many(JAVADOC)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "ArrayUtils.contains", limit=3, explain=True)
    assert hits[0]["path"].endswith("lang3/ArrayUtils.html"), [h["location"] for h in hits]
    assert hits[0]["section"] == "contains"
    assert hits[0]["explain"]["lists"]["headings"]["match"] == "contains"
    # not StringUtils' `contains`
    assert not any(h["path"].endswith("StringUtils.html") for h in hits)


def _rustdoc_type(kind: str, path: str, methods: list[str]) -> str:
    members = "".join(
        f'<section id="method.{m}" class="method"><h4 class="code-header">pub fn {m}'
        f"&lt;F&gt;(&amp;mut self, f: F) where F: FnMut(&amp;T) -&gt; bool,</h4></section>\n"
        f'<div class="docblock"><p>Does {m} on the {path.rsplit("::", 1)[-1]}, keeping the '
        f"order.</p></div>\n"
        for m in methods
    )
    module, _, name = path.rpartition("::")
    impls = (
        f"<h3>impl&lt;T&gt; {name}&lt;T&gt;</h3><p>Methods of {name}.</p>\n"
        f"<h4>fn default() -&gt; {name}&lt;T&gt;</h4><p>An empty {name}.</p>\n"
    )
    return (
        f"<html><head><title>{name} in {module} - Rust</title></head><body><main>"
        f"<h1>{kind} {path}</h1>\n<p>A {name.lower()} of items, growable.</p>\n{impls}"
        f"{members}</main></body></html>\n"
    )


RUSTDOC = {
    "std/vec/struct.Vec.html": _rustdoc_type("Struct", "std::vec::Vec", ["push", "retain", "len"]),
    "std/collections/binary_heap/struct.BinaryHeap.html": _rustdoc_type(
        "Struct", "std::collections::binary_heap::BinaryHeap", ["retain", "retain", "peek"]
    ),
    "std/collections/hash_map/struct.HashMap.html": _rustdoc_type(
        "Struct", "std::collections::hash_map::HashMap", ["remove_entry", "entry", "raw_entry"]
    ),
    # the re-export path's copy, and the redirect rustdoc writes for another
    "std/collections/struct.HashMap.html": _rustdoc_type(
        "Struct", "std::collections::HashMap", ["remove_entry", "entry", "raw_entry"]
    ),
    # a primitive's page: `str - Rust`, "Primitive Type str", methods with lifetimes
    "std/primitive.str.html": (
        "<html><head><title>str - Rust</title></head><body><main><h1>Primitive Type str</h1>"
        '<p>String slices.</p><section id="method.split"><h4 class="code-header">pub fn '
        "split&lt;'a, P&gt;(&amp;'a self, pat: P) -&gt; Split&lt;'a, P&gt; where P: "
        "Pattern&lt;'a&gt;,</h4></section><p>An iterator over substrings of this string slice, "
        "separated by characters matched by a pattern.</p><h5>Examples</h5><p>let v: Vec of "
        "split parts, collected from a str slice split on a space.</p></main></body></html>\n"
    ),
    "std/collections/hash/map/struct.HashMap.html": (
        '<html><head><meta http-equiv="refresh" content="0;URL=../../hash_map/struct.HashMap'
        '.html"></head><body><p>Redirecting to <a href="../../hash_map/struct.HashMap.html">'
        "../../hash_map/struct.HashMap.html</a>...</p></body></html>\n"
    ),
}


@pytest.mark.parametrize(
    ("query", "location"),
    [
        # "Vec::retain" ran as a typed query document (`vec:` and ":retain"); then ranked
        # BinaryHeap's retain first: its heading is rustdoc's signature, no name
        ("Vec::retain", "std/vec/struct.Vec.html"),
        ("what does Vec::retain do", "std/vec/struct.Vec.html"),
        # every heading of the class's page matched (a condition's OR without its
        # parentheses), so `remove_entry` came first; the copy counted it twice
        ("HashMap::entry", "std/collections/hash_map/struct.HashMap.html"),
        # a type's name: its page's top, not `impl<T> Vec<T>` nor `fn default() -> Vec<T>`
        ("Vec", "std/vec/struct.Vec.html"),
        ("what is a BinaryHeap", "std/collections/binary_heap/struct.BinaryHeap.html"),
        ("what does str::split return", "std/primitive.str.html"),
    ],
)
def test_a_qualified_name_finds_rustdocs_method_in_its_types_page(
    tmp_index, query: str, location: str
) -> None:
    tmp_index.write_many(RUSTDOC)
    report = tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, query, limit=3, explain=True)
    assert hits[0]["path"].endswith(location), [h["location"] for h in hits]
    if "::" in query:
        member = query.split("::")[1].split()[0]
        assert hits[0]["section"].startswith(f"pub fn {member}<"), hits[0]["section"]
        assert hits[0]["explain"]["lists"]["entities"]["match"] == member
    else:  # the page's title and its `Struct std::vec::Vec`
        assert hits[0]["section"].startswith("Struct std::"), hits[0]["section"]
        assert hits[0]["line"] == 1
    assert report.skip_counts == {"a redirect page": 1}
    assert report.file_skip_counts() == {"a redirect page": 1}


def test_a_manuals_short_section_in_three_formats_is_shown_once(tmp_index) -> None:
    """Debian's `gnuplot-doc` ships its manual as a PDF, as latex2html pages
    (`node335.html`) and as an Info file: "set logscale" listed the section "Logscale"
    from the PDF, the HTML and the Info file ("3.29.45 logscale") first, second and
    third. A short title is a book's section too when most of the words are the same in
    another format; another file's "Logscale" over other words stays."""
    from test_parse_pdf import make_pdf

    text = (
        "The set logscale command allows logarithmic scaling of the x, y, z, cb, x2 and "
        "y2 axes; the base defaults to 10 and the default is no log scaling."
    )
    words = text.split()
    lines = ["Logscale"] + [" ".join(words[i : i + 8]) for i in range(0, len(words), 8)]
    other = ["Label", "The set label command places text on the plot."]
    tmp_index.write("gnuplot.pdf", make_pdf([other, lines], [(0, "Label", 0), (0, "Logscale", 1)]))
    tmp_index.write_many(
        {
            "htmldocs/node335.html": f"<html><body><h3>Logscale</h3><p>{text}</p></body></html>",
            "gnuplot.info": (
                "This is gnuplot.info, produced by makeinfo.\n\n\x1f\nFile: gnuplot.info,  "
                "Node: logscale,  Up: set\n\n3.29.45 logscale\n----------------\n\n"
                f"{text}\n"
            ),
            # the same title over other words: another manual's section
            "other/node12.html": "<html><body><h3>Logscale</h3><p>Our plotting library "
            "draws logarithmic axes when its scale option is set on a chart.</p></body></html>",
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search("set logscale", limit=5, explain=True)
    paths = [h["path"].removeprefix("docs/") for h in hits]
    twins = {"gnuplot.pdf", "htmldocs/node335.html", "gnuplot.info"}
    assert len(twins & set(paths)) == 1, paths
    assert "other/node12.html" in paths, paths


def test_a_class_written_with_its_package_path_and_a_member(tmp_index) -> None:
    """Mojolicious: "what does Mojo::DOM find return" named no `find` (a class word
    needed a small letter and no `::`), and a guide's overview that mentions Mojo::DOM
    came first; the member of the class both words name is the answer."""
    others = {
        f"docs/guide{i}.pod": f"=head1 Guide {i}\n\nMojo::UserAgent and Mojo::DOM make "
        f"web scraping {i} easy: find what you need.\n"
        for i in range(6)
    }
    tmp_index.write_many({"lib/Mojo/UserAgent.pm": PERL_AGENT, **others})
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "what does Mojo::UserAgent start return", limit=3, explain=True)
    assert hits[0]["location"] == "docs/lib/Mojo/UserAgent.pm:7-11", [h["location"] for h in hits]
    assert hits[0]["explain"]["lists"]["symbols"]["match"] == "start"


def test_a_qualified_name_typed_with_a_capital_takes_that_spelling(tmp_index) -> None:
    """anyhow 1.0.69 (Debian's `librust-anyhow-dev`): "what is anyhow::Error" listed
    `ErrorImpl::error` (in `error.rs`, before `lib.rs` by path) above the struct
    `Error`: both are symbols named "error" in the folder the path names; the one spelled
    as typed comes first."""
    tmp_index.write_many(
        {
            "anyhow-1.0.69/src/lib.rs": "/// The `Error` type, a wrapper around a dynamic "
            "error type.\npub struct Error {\n    inner: Own<ErrorImpl>,\n}\n",
            "anyhow-1.0.69/src/error.rs": "impl ErrorImpl {\n    pub(crate) unsafe fn "
            "error(this: Ref<Self>) -> &dyn StdError {\n        vtable(this)\n    }\n}\n",
            **{f"other/m{i}.rs": f"pub fn f{i}() -> u32 {{\n    {i}\n}}\n" for i in range(8)},
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        for query in ("anyhow::Error", "what is anyhow::Error"):
            hits = search(idx, query, limit=3, explain=True)
            assert hits[0]["path"].endswith("src/lib.rs"), [h["location"] for h in hits]
            assert hits[0]["explain"]["lists"]["symbols"]["rank"] == 1  # the list's first


TEXTUAL_SHAPED = {
    # textual's sdist in small: code alone, the API a how-to asks for named by its words
    "src/textual/app.py": (
        "class App:\n"
        "    def push_screen(self, screen):\n"
        '        """Push a new screen on the screen stack, making it the current screen."""\n'
        "        self._screen_stack.append(screen)\n"
        "        self.refresh()\n\n"
        "    async def action_push_screen(self, screen: str) -> None:\n"
        '        """An action to push a new screen on to the stack and make it active."""\n'
        "        self.push_screen(screen)\n"
    ),
    "tests/test_screens.py": (
        "def test_push_screen():\n    app = App()\n    app.push_screen(Screen())\n"
        "    assert app.screen_stack\n"
    ),
    **{
        f"src/textual/widgets/w{i}.py": f"class Widget{i}:\n    def render(self):\n"
        f"        return 'screen {i} push'\n"
        for i in range(8)
    },
}


def test_a_how_to_question_names_the_function_its_words_spell(tmp_index) -> None:
    """textual 0.86's sdist (code alone): "how do I push a screen" found no
    `App.push_screen`, `action_push_screen` first, because a task's words joined were
    no name (so that click's tests `test_command` would not answer "how do I test a
    command"). They are a name of the symbols list at a plain word's weight, and never
    a test's."""
    tmp_index.write_many(TEXTUAL_SHAPED)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "how do I push a screen", limit=3, explain=True)
    assert hits[0]["section"] == "push_screen", [h["location"] for h in hits]
    assert hits[0]["explain"]["lists"]["symbols"]["match"] == "push_screen"
    assert not any("symbols" in h["explain"]["lists"] for h in hits if "tests/" in h["path"])


RACK_SHAPED = {
    # rack's code beside a framework's README that mentions cookies and rack in passing
    "lib/rack/response.rb": (
        "module Rack\n  class Response\n"
        "    def set_header(key, value)\n      @headers[key] = value\n    end\n\n"
        "    def set_cookie(key, value)\n"
        "      cookie_header = get_header SET_COOKIE\n"
        "      set_header SET_COOKIE,\n"
        "        ::Rack::Utils.add_cookie_to_header(cookie_header, key, value)\n"
        "    end\n\n"
        "    def delete_cookie(key, value = {})\n"
        "      set_header SET_COOKIE, Utils.delete_cookie_header(get_header(SET_COOKIE), key)\n"
        "    end\n  end\nend\n"
    ),
    "lib/rack/session/cookie.rb": (
        "module Rack\n  module Session\n    # Rack::Session::Cookie stores the session in a"
        " cookie, set on each response.\n    class Cookie\n      def initialize(app)\n"
        "        @app = app\n      end\n    end\n  end\nend\n"
    ),
    "README.md": (
        "# Sinatra\n\n## Available Settings\n\n"
        "* sessions: enable cookie-based sessions support using `Rack::Session::Cookie`;"
        " set the cookie options through a hash. Rack middleware is set up for you.\n\n"
        "## Routes\n\nA route is an HTTP method paired with a URL-matching pattern.\n"
    ),
    **{
        f"lib/rack/m{i}.rb": f"module Rack\n  class M{i}\n    def call(env)\n"
        f"      @app.call(env) # rack {i}\n    end\n  end\nend\n"
        for i in range(6)
    },
}


def test_a_how_to_questions_action_names_the_code_that_does_it(tmp_index) -> None:
    """rack's gem beside Sinatra's README: "how to set a cookie in rack" ranked
    `Response#set_cookie` — first in BM25 and by its code words — 7th: the task's words
    ("set a cookie in rack") spelled no name. Its action, the words before "in", spells
    `set_cookie`, a name of the symbols list (4th there; prose that mentions cookies stays
    first, as a how-to asks for prose: tokio's internal `spawn_task` must not outrank its
    guide for "how do I spawn a task")."""
    tmp_index.write_many(RACK_SHAPED)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "how to set a cookie in rack", limit=3, explain=True)
        top = [h["section"] for h in hits[:2]]
        assert "set_cookie" in top, [h["location"] for h in hits]
        found = hits[top.index("set_cookie")]["explain"]["lists"]
        assert found["symbols"]["match"] == "set_cookie"
        assert hits[0]["path"].endswith("README.md")  # a how-to still asks for prose


@pytest.mark.parametrize(
    ("topic", "spelled"),
    [
        ("set a cookie in rack", {"set_cookie", "setcookie"}),
        ("read a file with tokio", {"read_file", "readfile"}),
        ("remove an item from the list", {"remove_item", "removeitem"}),
        ("push a screen", set()),  # no place: the whole task is spelled already
        ("run in parallel", set()),  # one word of action
        ("in memory databases", set()),  # a place word first opens no place
    ],
)
def test_a_tasks_action_before_its_place_is_spelled(topic: str, spelled: set[str]) -> None:
    from docql_sqlite.search.query_names import _action_spelled

    parts = [p for w in terms.parse(topic) for p in terms.split_identifier(w.text)]
    assert set(_action_spelled(topic, parts)) == spelled


def _html_pages(word: str, n: int = 6) -> dict[str, str]:
    """Unrelated HTML pages, so that the fixture's words are not in every document."""
    return {
        f"html/page{i}.html": f"<html><body><h1>Page {i}</h1><p>{word} {i}.</p></body></html>"
        for i in range(n)
    }


def _sphinx_method(qualified: str, signature: str, text: str) -> str:
    name = qualified.rsplit(".", 1)[1]
    return (
        f'<dl class="py method"><dt class="sig sig-object py" id="{qualified}">'
        f'<span class="sig-name descname">{name}</span>({signature})</dt>'
        f"<dd><p>{text}</p></dd></dl>\n"
    )


SPHINX_API = {
    "html/api.html": (
        "<html><body><div class='body' role='main'><section><h1>API</h1>"
        "<section><h2>High Level API</h2>"
        '<dl class="py class"><dt class="sig sig-object py" id="jinja2.Environment">'
        '<span class="sig-name descname">Environment</span>(**options)</dt><dd>'
        "<p>The core component of Jinja is the Environment.</p>"
        + "".join(
            _sphinx_method(
                f"jinja2.Environment.{m}",
                "name, parent=None",
                f"The {m} method of the environment: " + "words of its description. " * 12,
            )
            for m in ("compile", "from_string", "get_or_select_template", "get_template")
        )
        + "</dd></dl>"
        "<section><h3>Globals</h3><p>Defaults to Environment.globals unless extra values are "
        "passed to Environment.get_template().</p></section>"
        "</section></section></div></body></html>"
    ),
    **_html_pages("Templates"),
}


def test_a_qualified_name_is_the_api_entry_its_package_prefixes(tmp_index) -> None:
    """Jinja's Sphinx API page (Debian's `python-jinja2-doc`): "Environment.get_template"
    ranked a passage that quotes `Environment.get_template()` first and the entry
    `jinja2.Environment.get_template` 8th, and that entry's passage began with the methods
    above it. An API named by the query's qualified name after its package is the look-up's
    answer, and a passage starts at each description."""
    tmp_index.write_many(SPHINX_API)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "Environment.get_template", limit=3)
        text = idx.get(hits[0]["location"])
    assert "get_template(name, parent=None)" in text.lines[0][1], [h["location"] for h in hits]


def test_the_page_a_one_name_query_names_stands_for_the_whole_query(tmp_index) -> None:
    """libcurl's docs (Debian's `libcurl4-doc`): "curl_easy_setopt" ranked WEBSOCKET.md's
    API section first, where a code span `curl_easy_setopt()` is the one API entity of that
    name (a look-up's answer, with the bonus of a name that stands for the whole query),
    and the function's own page second: the page the name titles has that bonus too."""
    tmp_index.write_many(MAN_PAGES)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "curl_easy_setopt", limit=5, explain=True)
    page = next(h for h in hits if h["path"].endswith("man3/curl_easy_setopt.3"))
    assert page["line"] == 1
    assert page["explain"]["lists"]["headings"].get("class_and_member") is True


def _sqlite_statement_page(title: str, body: str) -> str:
    """A page of SQLite's docs in small: the title in `<title>` and in a `nosearch` banner
    (the site's chrome, no heading), a syntax diagram, then numbered sections."""
    return (
        f"<html><head><title>{title}</title></head><body><div class=nosearch>"
        f"<div class='fancy_title'>{title}</div></div><h1 id='overview'>"
        f"<span>1. </span>Overview</h1><p><b><a href='syntax/x.html'>stmt:</a></b></p>"
        f"<p>{body}</p><h1 id='details'><span>2. </span>Details</h1>"
        "<p>The schema-names 'main' and 'temp' refer to the main database.</p></body></html>"
    )


SQLITE_STATEMENTS = {
    "lang_attach.html": _sqlite_statement_page(
        "ATTACH DATABASE",
        "The ATTACH DATABASE statement adds another database file to the current "
        "connection. Files that were attached before can be removed using DETACH.",
    ),
    "lang_detach.html": _sqlite_statement_page(
        "DETACH",
        "This statement detaches an additional database connection previously attached "
        "using the ATTACH statement. In shared cache mode, attempting to attach the same "
        "database file more than once results in an error.",
    ),
    "inmemorydb.html": _sqlite_statement_page(
        "In-Memory Databases",
        "ATTACH DATABASE 'file::memory:' AS aux1; attaches a database held in memory.",
    ),
    **{
        f"lang_{name}.html": _sqlite_statement_page(
            name.upper(), f"The {name} statement changes the database."
        )
        for name in ("vacuum", "reindex", "analyze", "savepoint")
    },
}


@pytest.mark.parametrize(
    "query, path",
    [
        ("how do I attach a database", "lang_attach.html"),
        ("attach database", "lang_attach.html"),
        ("in-memory databases", "inmemorydb.html"),
    ],
)
def test_a_page_titled_by_its_title_alone_is_named_by_a_run_of_the_questions_words(
    tmp_index, query: str, path: str
) -> None:
    """SQLite's statement pages show their title ("ATTACH DATABASE") in a banner that is
    the site's chrome, no heading: "how do I attach a database" ranked DETACH's page
    first (it says "attach" and "database" more often) and ATTACH's 6th. A page title
    made of a run of the question's words names the page, as a heading would."""
    tmp_index.write_many(SQLITE_STATEMENTS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, query, explain=True)
    assert hits[0]["path"].endswith(path), [h["location"] for h in hits]
    assert hits[0]["explain"]["lists"]["headings"]["rank"] == 1


CELERY_RESULT_API = {
    "html/reference/celery.result.html": (
        "<html><body><div class='body' role='main'><section><h1>celery.result</h1>"
        '<dl class="py class"><dt class="sig sig-object py" id="celery.result.AsyncResult">'
        '<span class="sig-name descname">AsyncResult</span>(id, backend=None)</dt><dd>'
        "<p>Query task state.</p>"
        + "".join(
            _sphinx_method(
                f"celery.result.AsyncResult.{m}",
                "timeout=None, propagate=True" if m == "get" else "",
                f"The {m} method of the result: " + "words of its description. " * 12,
            )
            for m in ("forget", "get", "ready", "revoke")
        )
        + "</dd></dl></section></div></body></html>"
    ),
    **{
        f"html/internals/page{i}.html": f"<html><body><h1>Internals {i}</h1><p>join(timeout="
        f"None): wait for the thread; get the lock with a timeout. get(block=True, timeout="
        f"None): get an item from the queue, waiting up to timeout seconds.</p></body></html>"
        for i in range(4)
    },
}


@pytest.mark.parametrize("query", ["AsyncResult.get timeout", "AsyncResult.get"])
def test_a_qualified_name_among_a_short_querys_words_is_its_api_entry(
    tmp_index, query: str
) -> None:
    """Celery's reference (Debian's `python-celery-doc`): "AsyncResult.get timeout" found
    no entity (a qualified name counted as one only as the whole query) and listed three
    internals pages saying "get" and "timeout" first, the entry
    `celery.result.AsyncResult.get` 4th."""
    tmp_index.write_many(CELERY_RESULT_API)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, query, explain=True)
        text = idx.get(hits[0]["location"])
    assert "get(timeout=None, propagate=True)" in text.lines[0][1], [h["location"] for h in hits]
    assert hits[0]["explain"]["lists"]["entities"]["match"] == "celery.result.asyncresult.get"


FLASK_QUICKSTART = {
    "html/quickstart.html": (
        "<html><body><div class='body' role='main'><section><h1>Quickstart</h1>"
        "<p>Eager to get started? This page gives an introduction to Flask.</p>"
        "<section><h2>Accessing Request Data</h2><p>For web applications it is crucial to "
        "react to the data a client sends to the server. In Flask this information is "
        "provided by the global request object.</p>"
        "<section><h3>Context Locals</h3><p>Certain objects in Flask are global objects: "
        "proxies to objects that are local to a specific context. You access them as "
        "globals.</p></section>"
        "<section><h3>The Request Object</h3><p>To access form data (data transmitted in a "
        "POST or PUT request) you can use the form attribute of the request.</p></section>"
        "</section><section><h2>File Uploads</h2><p>To access uploaded files, look at the "
        "files attribute on the request object: the data of each file.</p></section>"
        "</section></div></body></html>"
    ),
    "html/testing.html": (
        "<html><body><div class='body' role='main'><section><h1>Testing Flask Applications"
        "</h1><section><h2>Accessing and Modifying the Session</h2><p>To access or modify "
        "the session data in a test, use the request data of the client: access the "
        "session in a request and read its data after the request.</p></section>"
        "</section></div></body></html>"
    ),
    "html/wtforms.html": (
        "<html><body><section><h1>Form Validation</h1><section><h2>In the View</h2><p>"
        "Access the form data of the request: the request data is passed to the form, "
        "and you access each field's data.</p></section></section></body></html>"
    ),
    **_html_pages("Templates"),
}


def test_a_section_the_whole_question_names_counts_in_full(tmp_index) -> None:
    """Flask's docs (Debian's `python-flask-doc`): "how do I access request data" has a
    section of that name ("Accessing Request Data", the quickstart's), a short opening
    before its subsections; it was first in the exact and headings lists but 8th, behind
    passages holding every word (a test page's session section first). Such a section is
    at a full list's first place in the exact list, whatever that list's weight, and is its
    page's passage in the documents list."""
    tmp_index.write_many(FLASK_QUICKSTART)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "how do I access request data", explain=True)
    assert hits[0]["section"] == "Accessing Request Data", [h["location"] for h in hits]
    assert {"exact", "headings", "documents"} <= set(hits[0]["explain"]["lists"])


def test_a_hyphenated_compounds_words_keep_their_order(tmp_index) -> None:
    """Django's docs: "where is many-to-one relationships explained?" counted the
    section "One-to-many relationships" as named by the whole question (the same words in
    another order)."""
    tmp_index.write_many(
        {
            "docs/queries.md": "# Queries\n\n## One-to-many relationships\n\nForward access "
            "to a related object.\n",
            "docs/many_to_one.md": "# Many-to-one relationships\n\nDefine one with a ForeignKey.\n",
            **{f"docs/page{i}.md": f"# Page {i}\n\nText about topic {i}.\n" for i in range(6)},
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "where is many-to-one relationships explained?", explain=True)
    named = [h["section"] for h in hits if "headings" in h["explain"]["lists"]]
    assert named == ["Many-to-one relationships"], named


def test_a_heading_equal_to_the_terms_as_typed_names_them(tmp_index) -> None:
    """SQLite's `pragma.html` heads each pragma "PRAGMA journal_mode": "what does PRAGMA
    journal_mode do" ranked the WAL page's passage saying `PRAGMA journal_mode=WAL;`
    first (the words joined were `pragma_journal_mode`, `pragma journal mode`, never the
    terms as typed) and the heading 2nd."""
    tmp_index.write_many(
        {
            "docs/pragma.md": "# Pragma statements\n\n"
            + "".join(
                f"## PRAGMA {name}\n\nPRAGMA schema.{name};\n\nThis pragma queries or sets "
                f"the {name.replace('_', ' ')} setting of the database.\n\n"
                for name in ("journal_mode", "synchronous", "cache_size", "foreign_keys")
            ),
            "docs/wal.md": "# Write-Ahead Logging\n\n## Activating WAL mode\n\nA database "
            "connection defaults to journal_mode=DELETE. To convert to WAL mode, use the "
            "following pragma: PRAGMA journal_mode=WAL; The journal_mode pragma returns a "
            "string which is the new journal mode. On success, the pragma will return the "
            'string "wal"; PRAGMA journal_mode stays WAL.\n',
            **{f"docs/page{i}.md": f"# Page {i}\n\nText about topic {i}.\n" for i in range(6)},
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "what does PRAGMA journal_mode do", explain=True)
    assert hits[0]["section"] == "PRAGMA journal_mode", [h["location"] for h in hits]
    assert hits[0]["explain"]["lists"]["headings"]["match"] == "pragma journal_mode"


def _doxygen_function(name: str, text: str) -> str:
    return (
        f'<h2 class="memtitle"><span class="permalink"><a href="#{name}">&#9670;&nbsp;</a>'
        f'</span>{name}()</h2><div class="memitem"><div class="memproto"><table '
        f'class="memname"><tr><td class="memname">int {name} </td><td>(</td><td '
        f'class="paramtype">int&#160;</td><td class="paramname"><em>flags</em></td><td>)'
        f'</td></tr></table></div><div class="memdoc"><p>{text}</p></div></div>\n'
    )


SDL_DOXYGEN = {
    "html/dc/d64/_s_d_l__video_8h.html": "<html><body><div class='contents'>"
    + _doxygen_function("SDL_CreateWindow", "Create a window with the specified flags.")
    + _doxygen_function("SDL_GetWindowID", "Get the numeric ID of a window.")
    + "</div></body></html>",
    "html/dc/dc7/_s_d_l__test__common_8h.html": "<html><body><div class='contents'>"
    + _doxygen_function(
        "SDLTest_CommonQuit",
        "Close test window: destroy the window the test harness created with create window "
        "flags, and quit. A window is created by the harness; to create a window call the "
        "common init.",
    )
    + "</div></body></html>",
    "html/dc/dc7/_s_d_l__test__common_8h_source.html": "<html><body><div class='fragment'>"
    "<pre>/* create a window for the test: create the window, the window flags */\n"
    "int SDLTest_CommonInit(SDLTest_CommonState *state); /* create window */</pre>"
    "</div></body></html>",
    "html/intro.html": "<html><body><h1>Introduction</h1><p>SDL is a library. Read "
    "the guide to create a window and draw into it.</p></body></html>",
    **_html_pages("Events"),
}


def test_a_tasks_words_spelled_after_a_c_librarys_prefix_name_its_api(tmp_index) -> None:
    """SDL 2's Doxygen reference (Debian's `libsdl2-doc`): "how do I create a window" listed
    the test harness' `SDLTest_CommonQuit` first and a header's source listing 3rd, the
    function `SDL_CreateWindow` not in the first five. A task's words joined as code
    spells a name are an API's name after its library's prefix (`SDL_`), and a generated
    page of a source file counts as code for a question asking for prose."""
    tmp_index.write_many(SDL_DOXYGEN)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "how do I create a window", explain=True)
    assert hits[0]["section"] == "SDL_CreateWindow()", [h["location"] for h in hits]
    assert hits[0]["explain"]["lists"]["entities"]["match"] == "sdl_createwindow"
    listing = [i for i, h in enumerate(hits) if h["path"].endswith("_source.html")]
    assert not listing or listing[0] > 2, [h["location"] for h in hits]


def test_a_short_top_document_is_in_the_pack_whole(tmp_index) -> None:
    """SQLite's page of `ATTACH DATABASE`: the hit is its 250-character overview, and the
    pack held it alone, without the page's "Details" (the AS name, `main` and `temp`,
    the limit on attached databases). A top document this short goes in whole; a longer
    one, or one over a third of the budget, as its hit."""
    details = "The name after the AS keyword is the schema name; main and temp are taken. "
    tmp_index.write_many(
        {
            "lang_attach.md": "# ATTACH DATABASE\n\n## Overview\n\nThe ATTACH DATABASE "
            "statement adds another database file to the connection.\n\n## Details\n\n"
            + details * 3
            + "\n",
            "lang_detach.md": "# DETACH\n\nThis statement detaches a database attached "
            "with ATTACH DATABASE.\n",
            "long.md": "# Long\n\n"
            + "".join(f"## Part {i}\n\n" + "Other words here. " * 40 + "\n\n" for i in range(12))
            + "## Attach\n\nTo attach a database file, run ATTACH DATABASE.\n",
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        top = search(idx, "how do I attach a database")[0]
        pack = context(idx, "how do I attach a database", budget=6000)
        small = context(idx, "how do I attach a database", budget=600)
        other = context(idx, "attach a database file run", budget=6000)
    assert top["path"] == "docs/lang_attach.md"
    first = pack["blocks"][0]
    assert (first["kind"], first["path"], first["line"]) == ("document", top["path"], 1)
    assert details in first["text"] and first["end_line"] == 9
    assert [b for b in pack["blocks"][1:] if b["path"] == top["path"]] == []
    assert small["blocks"][0]["kind"] == "hit"  # 600 // 3 is too little room for it
    assert all(b["kind"] != "document" for b in other["blocks"]), other["blocks"][0]["path"]
