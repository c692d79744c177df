"""The tools' structured output: one pydantic model per tool. The SDK publishes each as
the tool's `outputSchema` and checks every successful reply's `structuredContent`
against it; the text block carries the same answer for clients that read text."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class QueryOutput(BaseModel):
    query: str
    offset: int = Field(description="Where this page starts")
    found: int = Field(description="Results from offset (at most 1,000 are counted)")
    more_than_found: bool = Field(description="True when there are more than `found`")
    items: list[Any] = Field(
        description="The results on this page: objects with the item type's fields and a "
        "location, or plain values for a projection such as .title"
    )
    next_offset: int | None = Field(description="Call again with offset=this for the rest")


class Hit(BaseModel):
    rank: int
    location: str
    path: str | None
    section: str | None
    score: float
    text: str = Field(description="The passage (cut at 2,000 characters; get reads all)")


class SearchOutput(BaseModel):
    query: str
    mode: str
    hits: list[Hit]
    next_offset: int | None


class Document(BaseModel):
    path: str
    total_lines: int
    text: str


class LongDocument(BaseModel):
    path: str
    total_lines: int
    chars: int


class GetOutput(BaseModel):
    """`kind` "lines" (one location: the other fields but `documents`/`too_long`/
    `matched`) or "documents" (a glob)."""

    kind: Literal["lines", "documents"]
    path: str | None = None
    first: int | None = None
    last: int | None = None
    total_lines: int | None = None
    text: str | None = None
    next_from: int | None = Field(None, description="Call again with from=this for the rest")
    documents: list[Document] | None = None
    too_long: list[LongDocument] | None = Field(
        None, description="Matching documents longer than one reply: get each by itself"
    )
    matched: int | None = None
    next_offset: int | None = Field(None, description="Glob: call again with offset=this")


class Heading(BaseModel):
    path: str
    level: int
    number: str | None
    title: str
    line: int
    end_line: int
    location: str


class TocOutput(BaseModel):
    headings: list[Heading]
    next_offset: int | None


class Block(BaseModel):
    path: str | None
    line: int | None
    end_line: int | None
    section: str | None
    kind: str | None


class ContextOutput(BaseModel):
    question: str
    budget: int
    chars: int
    strategy: str
    blocks: list[Block]
    text: str


class StatusOutput(BaseModel):
    """The index's figures (`docql-sqlite status --json`), and more keys as it grows."""

    model_config = ConfigDict(extra="allow")

    documents: int
    has_vectors: bool
    embedding_model: str | None = None


class MapSymbol(BaseModel):
    model_config = ConfigDict(extra="allow")

    path: str
    name: str
    qualified_name: str | None
    kind: str
    signature: str | None
    line: int
    end_line: int
    location: str


class RepoMapOutput(BaseModel):
    """The repository map (`docql-sqlite map --json`): the text to read, and its parts."""

    model_config = ConfigDict(extra="allow")

    text: str
    tokens: int = Field(description="Tokens the text uses (never more than the budget)")
    budget: int
    focus: str | None
    files: list[Any] = Field(description="The files shown, most central first")
    symbols: list[MapSymbol] = Field(description="The symbols shown, with their signatures")
    left_out: int = Field(description="Ranked symbols that did not fit the budget")
