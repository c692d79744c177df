"""What a code chunk's vector is computed from (`ingest/vector_text.py`, issue 19 item 6):
the vector text of real parsed chunks, the cache that must not hand a code chunk a
vector of other text, the policy recorded in the index, and a search it changes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import apsw
import numpy as np
import pytest

import docql_sqlite
from docql_sqlite import embed
from docql_sqlite.embedders import decode, get_model
from docql_sqlite.ingest import vector_text
from docql_sqlite.ingest.embed import pending
from docql_sqlite.ingest.vector_text import Shape, Symbol, code_passage, words

GO = """package buffer

// A Buffer is a variable-sized buffer of bytes.
type Buffer struct {
\tbuf []byte
}

// Bytes returns a slice holding the unread portion of the buffer.
func (b *Buffer) Bytes() []byte { return b.buf }

// parseHTTPRequest reads one request line from the wire.
func parseHTTPRequest(line string) (string, error) {
\treturn line, nil
}
"""
PYTHON = '''class Lexer:
    """Split shell-like text into tokens."""

    def push_token(self, tok):
        "Push a token back onto the stack."
        self.stack.append(tok)


def read_all(stream):
    return stream.read()
'''
RUST = """/// Splits text into segments at blank lines.
pub fn split_segments(text: &str) -> Vec<String> {
    text.split("\\n\\n").map(String::from).collect()
}
"""
MARKDOWN = "# Guide\n\nRead the `Bytes` method of `Buffer` to see the unread portion.\n"
BYTES = (
    "// Bytes returns a slice holding the unread portion of the buffer.\n"
    "func (b *Buffer) Bytes() []byte { return b.buf }\n"
)
FILES = {"buffer.go": GO, "shell.py": PYTHON, "segment.rs": RUST, "guide.md": MARKDOWN}

# chunk text → the text its vector is computed from (None: the chunk's own text).
EXPECTED = {
    # Go: a declaration's chunk starts at its doc comment (the section does: code content
    # rules 36); the vector text names it in words, then says the comment once, without
    # its markers, then the declaration.
    "// A Buffer is a variable-sized buffer of bytes.\ntype Buffer struct {\n\tbuf []byte\n}\n": (
        "Buffer\nA Buffer is a variable-sized buffer of bytes.\n"
        "type Buffer struct {\n\tbuf []byte\n}\n"
    ),
    BYTES: (
        "Buffer bytes\nBytes returns a slice holding the unread portion of the buffer.\n"
        "func (b *Buffer) Bytes() []byte { return b.buf }\n"
    ),
    "// parseHTTPRequest reads one request line from the wire.\n"
    "func parseHTTPRequest(line string) (string, error) {\n\treturn line, nil\n}\n": (
        "parse HTTP request\nparseHTTPRequest reads one request line from the wire.\n"
        "func parseHTTPRequest(line string) (string, error) {\n\treturn line, nil\n}\n"
    ),
    # The package line declares nothing.
    "package buffer\n\n": None,
    # Rust: `///` doc comments, the same shape as Go.
    "/// Splits text into segments at blank lines.\n"
    'pub fn split_segments(text: &str) -> Vec<String> {\n    text.split("\\n\\n")'
    ".map(String::from).collect()\n}\n": (
        "split segments\nSplits text into segments at blank lines.\n"
        'pub fn split_segments(text: &str) -> Vec<String> {\n    text.split("\\n\\n")'
        ".map(String::from).collect()\n}\n"
    ),
    # Python: the docstring is in the chunk already, so only the name is added.
    'class Lexer:\n    """Split shell-like text into tokens."""\n\n': (
        'Lexer\nclass Lexer:\n    """Split shell-like text into tokens."""\n\n'
    ),
    '    def push_token(self, tok):\n        "Push a token back onto the stack."\n'
    "        self.stack.append(tok)\n": (
        'Lexer push token\n    def push_token(self, tok):\n        "Push a token back onto '
        'the stack."\n        self.stack.append(tok)\n'
    ),
    "def read_all(stream):\n    return stream.read()\n": (
        "read all\ndef read_all(stream):\n    return stream.read()\n"
    ),
    # Markdown is read as it is.
    MARKDOWN: None,
}


def _stored(tmp_index) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    """Each chunk's stored vector, by chunk text."""
    with docql_sqlite.open(tmp_index.db) as idx:
        return {
            content: decode(blob)
            for content, blob in idx.conn.execute(
                "SELECT c.content, v.embedding FROM chunks c JOIN chunks_vec v ON v.rowid = c.id"
            )
        }


@pytest.mark.parametrize(
    ("identifier", "expected"),
    [
        ("parseHTTPRequest", "parse HTTP request"),
        ("read_all", "read all"),
        ("Buffer.Bytes", "Buffer bytes"),
        ("__init__", "init"),
        ("XMLHttpRequest2", "XML http request 2"),
        ("tryGrowByReslice", "try grow by reslice"),
        ("std::io::Read", "std io read"),
        ("größe_berechnen", "größe berechnen"),
    ],
)
def test_identifiers_become_words(identifier: str, expected: str) -> None:
    assert words(identifier) == expected


def test_vector_text_of_parsed_chunks(tmp_index, counting_model) -> None:  # type: ignore[no-untyped-def]
    tmp_index.write_many(FILES)
    tmp_index.index(workers=0)
    embed(tmp_index.db, "counting")
    chunks = [c for (c,) in tmp_index.query("SELECT content FROM chunks ORDER BY id")]
    assert set(EXPECTED) <= set(chunks)
    embedded = set(counting_model.texts)
    for chunk, expected in EXPECTED.items():
        assert (expected or chunk) in embedded, chunk
    # What the model read is exactly the chunks' vector texts, each once.
    assert len(counting_model.texts) == len(embedded)
    # The stored vectors are those of the vector texts; search still returns the chunk.
    model = get_model("counting")
    stored = _stored(tmp_index)
    for chunk, expected in EXPECTED.items():
        assert np.allclose(stored[chunk], model.embed([expected or chunk])[0], atol=1e-6)
    assert tmp_index.scalar("SELECT value FROM meta WHERE key = 'embedding_text'") == "code-v1"


@pytest.mark.parametrize(
    ("content", "first", "symbol", "expected"),
    [
        # Javadoc above an annotation: the comment said once, cleaned; the annotation kept
        (
            "/**\n * Says hello to\n * the world.\n */\n"
            '@GetMapping("/hi")\npublic String hi() {}\n',
            4,
            Symbol("hi", "G.hi", "public String hi()", "Says hello to\nthe world.", 9, 9),
            'G hi\nSays hello to the world.\n@GetMapping("/hi")\npublic String hi() {}\n',
        ),
        # Rust's `#[attr]` is no comment
        (
            "/// Splits.\n#[inline]\npub fn split() {}\n",
            1,
            Symbol("split", "split", "pub fn split()", "Splits.", 3, 3),
            "split\nSplits.\n#[inline]\npub fn split() {}\n",
        ),
        # Python: a comment above that is not the docstring, and a decorator, stay
        (
            '# Needs a session.\n@login_required\ndef page():\n    """Shows the page."""\n',
            1,
            Symbol("page", "page", "def page()", "Shows the page.", 3, 4),
            'page\n# Needs a session.\n@login_required\ndef page():\n    """Shows the page."""\n',
        ),
    ],
    ids=["javadoc", "rust-attribute", "python-decorator"],
)
def test_a_doc_comment_in_the_chunk_is_said_once(
    content: str, first: int, symbol: Symbol, expected: str
) -> None:
    assert code_passage(content, first, first + content.count("\n") - 1, [symbol]) == expected


def test_a_long_doc_comment_and_the_budget() -> None:
    symbol = Symbol("f", "f", "func f()", "word " * 400, 3, 3)
    text = code_passage("func f() {}\n" + "x\n" * 2000, 3, 2003, [symbol])
    assert len(text) == vector_text.BUDGET
    assert text.startswith("f\n" + "word " * 100)
    # A chunk inside a long body is named by the symbol it lies in; no doc repeated.
    inner = code_passage("x = 1\n", 10, 10, [Symbol("g", "C.g", "def g()", "Does g.", 5, 20)])
    assert inner == "C g\nx = 1\n"
    # Without names and docs the text is the chunk's own (the `raw` shape).
    raw = Shape(names=False, docs=False)
    assert code_passage("func f() {}\n", 3, 3, [symbol], shape=raw) == "func f() {}\n"


# A doc comment longer than a chunk: the chunk that holds the declaration starts in the
# middle of it, so the vector text repeats the comment's opening.
LONG_DOC = (
    "package buffer\n\n// Grow grows the buffer's capacity to guarantee space for n more bytes.\n"
    + "".join(
        f"// Note {i}: after Grow(n), at least n bytes can be written without allocating.\n"
        for i in range(20)
    )
    + "func (b *Buffer) Grow(n int) { b.grow(n) }\n"
)


def test_an_edited_doc_comment_is_not_served_from_the_content_cache(
    tmp_index, counting_model
) -> None:  # type: ignore[no-untyped-def]
    """The declaration's chunk text is unchanged when only the opening of its long doc
    comment changes (that opening is in the chunk before), so the content-hash cache
    would keep the old vector."""
    tmp_index.write_many({**FILES, "grow.go": LONG_DOC})
    tmp_index.index(workers=0)
    embed(tmp_index.db, "counting")
    (declaration,) = [c for c in _stored(tmp_index) if "func (b *Buffer) Grow" in c]
    assert "Grow grows" not in declaration  # the opening is in the chunk before
    before = _stored(tmp_index)[declaration]
    tmp_index.write("grow.go", LONG_DOC.replace("to guarantee space for", "to make room for"))
    counting_model.texts = []
    tmp_index.index(workers=0)  # the index run embeds what changed
    after = _stored(tmp_index)[declaration]
    (expected,) = [t for t in counting_model.texts if t.endswith(declaration)]
    assert expected.startswith(
        "Buffer grow\nGrow grows the buffer's capacity to make room for n more bytes."
    )
    assert np.allclose(after, get_model("counting").embed([expected])[0], atol=1e-6)
    assert not np.allclose(before, after)
    # Markdown, Python and the other Go file were unchanged and not embedded again.
    assert not any("Guide" in t or "Lexer" in t or "Bytes" in t for t in counting_model.texts)


def test_twin_declarations_get_their_own_vectors(tmp_index, counting_model) -> None:  # type: ignore[no-untyped-def]
    """Two files with the same declaration chunk under different long doc comments: one
    content hash, two vector texts, two vectors (de-duplication is by vector text)."""
    twin = LONG_DOC.replace("to guarantee space for", "to make room for")
    tmp_index.write_many({"a/grow.go": LONG_DOC, "b/grow.go": twin})
    tmp_index.index(workers=0)
    embed(tmp_index.db, "counting")
    with docql_sqlite.open(tmp_index.db) as idx:
        rows = idx.conn.execute(
            "SELECT v.embedding FROM chunks c JOIN chunks_vec v ON v.rowid = c.id "
            "WHERE c.content LIKE '%func (b *Buffer) Grow%'"
        ).fetchall()
    assert len(rows) == 2 and not np.allclose(decode(rows[0][0]), decode(rows[1][0]))


def test_an_index_embedded_under_the_raw_policy_is_re_embedded(tmp_index, counting_model) -> None:  # type: ignore[no-untyped-def]
    tmp_index.write_many(FILES)
    tmp_index.index(workers=0)
    embed(tmp_index.db, "counting")
    code_chunks = tmp_index.scalar(
        "SELECT count(*) FROM chunks WHERE doc_id IN (SELECT doc_id FROM symbols)"
    )
    # As an index embedded before the policy was recorded (vectors of the raw chunk).
    conn = apsw.Connection(str(tmp_index.db))
    conn.execute("DELETE FROM meta WHERE key = 'embedding_text'")
    conn.close()
    assert pending(tmp_index.db) == ("counting", code_chunks)
    # Searching it still works meanwhile.
    with docql_sqlite.open(tmp_index.db) as idx:
        assert idx.search("unread portion", mode="vector")
    counting_model.texts = []
    report = embed(tmp_index.db)
    # Every code chunk again: the seven that declare something embedded anew, the
    # others (comments, read as they are) from the cache, blank ones given no vector (no
    # search passage); no Markdown chunk.
    blank = tmp_index.scalar(
        "SELECT count(*) FROM chunks WHERE doc_id IN (SELECT doc_id FROM symbols) "
        "AND trim(content, ' ' || char(9) || char(10)) = ''"
    )
    assert blank > 0 and report["nothing_to_embed"] == blank
    assert report["reused"] + report["embedded"] + blank == code_chunks
    assert report["embedded"] == len(counting_model.texts) == 7
    assert not any("Guide" in t for t in counting_model.texts)
    assert "Buffer bytes\nBytes returns" in "".join(counting_model.texts)
    assert tmp_index.scalar("SELECT value FROM meta WHERE key = 'embedding_text'") == "code-v1"
    assert pending(tmp_index.db) == ("counting", 0)
    counting_model.texts = []
    assert embed(tmp_index.db)["embedded"] == 0 and counting_model.texts == []


def test_a_paraphrased_doc_comment_finds_the_declaration_by_vector(tmp_index) -> None:  # type: ignore[no-untyped-def]
    """The declaration `func (b *Buffer) Bytes()` shares almost no word with a question
    about it; its chunk holds its doc comment (and its name in words), so a paraphrase
    of that comment finds it first, above the helpers about buffers and slices."""
    filler = "".join(
        f"// helper{i} copies the pending bytes of the buffer into the slice.\n"
        f"func helper{i}(dst, src []byte) int {{\n\treturn copy(dst, src)\n}}\n\n"
        for i in range(6)
    )
    tmp_index.write("buffer.go", GO + "\n" + filler)
    tmp_index.index(workers=0)
    embed(tmp_index.db, "hash")
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = idx.search(
            "gives back a slice with the unread portion of a buffer", mode="vector", limit=5
        )
    texts = [h["content"] for h in hits]
    assert texts[0] == BYTES, texts


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    from pg_server import start_server

    yield from start_server()


def test_postgres_computes_the_same_code_vectors(pg_server: Any, tmp_index) -> None:  # type: ignore[no-untyped-def]
    """The store reads behind the vector text (`Writer.code_outlines`, `code_chunks`) are
    one SQL for both engines: pgvector holds the file index's vectors, and a policy
    change re-embeds the code chunks there too."""
    from pg_rows import postgres_runner
    from pg_server import fresh_database

    tmp_index.write_many(FILES)
    url = fresh_database(pg_server)
    docql_sqlite.index(tmp_index.db, ["docs"], embed="hash:64")
    report = docql_sqlite.index(url, ["docs"], embed="hash:64")
    assert report.embedding is not None, report.embedding_error
    with docql_sqlite.open(tmp_index.db) as index:
        file_vectors = {
            r["content"]: decode(r["embedding"])
            for r in index.rows(
                "SELECT c.content, v.embedding FROM chunks_vec v JOIN chunks c ON c.id = v.rowid"
            )
        }
    run = postgres_runner(url)
    pg_vectors = {
        text: np.array(vector, dtype=np.float32)
        for text, vector in run(
            "SELECT c.content, v.embedding::real[] FROM chunks_vec v "
            "JOIN chunks c ON c.id = v.rowid"
        )
    }
    assert set(pg_vectors) == set(file_vectors)
    for text, vector in file_vectors.items():
        assert np.allclose(pg_vectors[text], vector, atol=1e-6), text
    declaration = BYTES
    assert not np.allclose(pg_vectors[declaration], get_model("hash:64").embed([declaration])[0])
    import psycopg

    with psycopg.connect(url) as conn:  # as an index embedded before the policy
        conn.execute(b"DELETE FROM meta WHERE key = 'embedding_text'")
    code_chunks = run("SELECT count(*) FROM chunks WHERE doc_id IN (SELECT doc_id FROM symbols)")
    assert pending(url) == ("hash:64", code_chunks[0][0])
    again = docql_sqlite.embed(url)
    assert again["embedded"] == 7 and pending(url) == ("hash:64", 0)
