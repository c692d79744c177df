"""Cut a document body into chunks that tile it (docql-spec §1.3).

Every line from `body_start_line` on is in exactly one chunk; a chunk never spans two
sections' own text; a section's own text is one chunk unless it is longer than
`max_chars`, in which case it is split at paragraph boundaries, and inside a code block
or table only when that block alone is too large, then at line boundaries.

A single line longer than `max_chars` stays one chunk (so a regex or a phrase within a
line always matches), up to `chunk_bound(max_chars)` = max(max_chars, MAX_LINE_CHARS)
characters: no chunk is longer than that, whatever the line structure. A longer line is
cut into pieces of about equal length, at most that size and at least 7/8 of half of it
(`split_long_line`: at whitespace where it can), so that search knows every piece for a
line of data (`passage_text.long_line`). Each piece carries the line's number as `line` and
`end_line`; only the last piece of a line ends in '\n'; offsets stay contiguous, so the
chunks still concatenate to the body. Cost is linear in the text and in the headings.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate, compress, count
from operator import not_

from ..model import Document, split_lines
from ..passage_text import LINK_DEFINITION
from .sections import SectionInfo, innermost_sections

DEFAULT_MAX_CHARS = 1500
_PLUS_ONE = (1).__add__  # len(line) + 1, the line with its '\n', without a Python frame
# Lines up to this long are kept whole in one chunk even when longer than max_chars (as
# before: minified code, long table rows); a 50 MB line must not become a 50 MB chunk.
MAX_LINE_CHARS = 16_384


def chunk_bound(max_chars: int) -> int:
    """The hard upper bound on a chunk's length for a given `max_chars`."""
    return max(max_chars, MAX_LINE_CHARS)


@dataclass(slots=True)
class ChunkInfo:
    index: int
    line: int
    end_line: int
    section: int | None  # ord of the innermost section, None for the preamble
    content: str  # lines line..end_line, each ending in '\n'
    start_offset: int
    end_offset: int
    page: int | None


LineTable = tuple[list[str], list[int]]


def line_table(text: str) -> LineTable:
    """(lines, offsets) of `text`: `split_lines(text)`, and offsets[n] = the character
    offset of line n (1-based; offsets[0] unused), offsets[len(lines) + 1] = the end (+1
    when the text does not end in '\n'). Summed in C (accumulate over len + 1): a Python
    loop here cost 2.5x as much. Made once a file: the chunker and `rows.prepare` (the
    code blocks' offsets, the line count) both read it."""
    lines = split_lines(text)
    return lines, [0, 0, *accumulate(map(_PLUS_ONE, map(len, lines)))]


def chunk_document(
    doc: Document,
    sections: list[SectionInfo],
    max_chars: int = DEFAULT_MAX_CHARS,
    table: LineTable | None = None,
) -> list[ChunkInfo]:
    """The chunks of `doc`; `table`: `line_table(doc.text)` when the caller has it."""
    text = doc.text
    lines, offsets = table if table is not None else line_table(text)
    ends_with_newline = text.endswith("\n")
    total = len(lines)
    first = doc.body_start_line
    if first > total:
        return []

    boundaries = {
        first,
        *(s.line for s in sections),
        *(s.end_line + 1 for s in sections),
        *doc.chunk_breaks,
    }
    inside, edges, sticky = _block_lines(doc, lines, offsets, max_chars)
    if doc.format == "markdown":
        boundaries.update(_definition_block_edges(doc.text, lines, first, inside))
    starts = sorted(n for n in boundaries if first <= n <= total)
    chunks: list[ChunkInfo] = []
    owners = innermost_sections(sections, starts)
    bound = chunk_bound(max_chars)
    for i, start in enumerate(starts):
        end = (starts[i + 1] - 1) if i + 1 < len(starts) else total
        owner = owners[i]
        pieces_of = _split(lines, offsets, start, end, max_chars, inside, edges, sticky)
        for piece_start, piece_end in pieces_of:
            page = doc.page_of(piece_start)
            if piece_start == piece_end and len(lines[piece_start - 1]) + 1 > bound:
                pieces = [
                    (offsets[piece_start] + a, part)
                    for a, part in split_long_line(lines[piece_start - 1], bound)
                ]
            else:  # lines piece_start..piece_end, each with its '\n': one slice of the text
                content = text[offsets[piece_start] : offsets[piece_end + 1]]
                if piece_end == total and not ends_with_newline:
                    content += "\n"
                pieces = [(offsets[piece_start], content)]
            for offset, content in pieces:
                chunks.append(
                    ChunkInfo(
                        index=len(chunks),
                        line=piece_start,
                        end_line=piece_end,
                        section=owner.ord if owner else None,
                        content=content,
                        start_offset=offset,
                        end_offset=offset + len(content),
                        page=page,
                    )
                )
    return chunks


def _definition_block_edges(text: str, lines: list[str], first: int, inside: set[int]) -> set[int]:
    """The first line of each block of Markdown link reference definitions (blank lines
    may separate them) and the line after it: such a block is a chunk of its own, not
    the tail of the passage before it, so search can leave it out (`passage_text`)."""
    edges: set[int] = set()
    n, total = first, len(lines)
    for start in _definition_lines(text):
        if start < n or start in inside or start > total:
            continue
        end = start
        m = start + 1
        while m <= total and m not in inside:
            line = lines[m - 1]
            if LINK_DEFINITION.match(line):
                end = m
            elif line.strip():
                break
            m += 1
        edges.update((start, end + 1))
        n = end + 1
    return edges


# A definition line found by the newline before it: a pattern that opens with a literal
# is searched for that character first, where `^` in MULTILINE mode (or a match per line)
# is tried at every position or line (~7x the CPU on prose).
_DEFINITION_AFTER_NEWLINE = re.compile("\n" + LINK_DEFINITION.pattern.removeprefix("^"))


def _definition_lines(text: str) -> list[int]:
    """The numbers of the lines `LINK_DEFINITION` matches, in order."""
    found = [1] if LINK_DEFINITION.match(text) else []
    line, counted = 1, 0
    for match in _DEFINITION_AFTER_NEWLINE.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        found.append(line + 1)  # the match starts at the newline that ends `line`
    return found


def split_long_line(line: str, max_chars: int) -> list[tuple[int, str]]:
    """(offset in the line, text) pieces of `line` + '\\n', each at most `max_chars` long.

    The pieces are of about equal length: n of them, n the fewest that keeps their mean
    within 8/9 of `max_chars`, each cut at the last whitespace within an eighth of the
    mean before its aim (so words stay whole for full-text search), else exactly at its
    aim. A piece then lies within an eighth of the mean on either side: never longer
    than `max_chars`, never shorter than 7/8 of half the bound (7,168 characters at the
    16 KB bound), so every piece is recognisably a line of data (`passage_text.long_line`)
    — the last piece of a line cut at fixed windows could be a few characters long.
    """
    text = line + "\n"
    if len(text) <= max_chars:
        return [(0, text)]
    pieces_needed = -(-len(text) * 9 // (max_chars * 8))  # ceil(len / (8/9 max_chars))
    mean = len(text) / pieces_needed
    slack = int(mean / 8)
    pieces: list[tuple[int, str]] = []
    start = 0
    for k in range(1, pieces_needed):
        aim = round(k * mean)
        space = max(text.rfind(" ", aim - slack, aim), text.rfind("\t", aim - slack, aim))
        stop = space + 1 if space >= 0 else aim
        pieces.append((start, text[start:stop]))
        start = stop
    pieces.append((start, text[start:]))
    return pieces


def _block_lines(
    doc: Document, lines: list[str], offsets: list[int], max_chars: int
) -> tuple[set[int], set[int], set[int]]:
    """(inside, edges, sticky) for code blocks, tables and HTML blocks.

    `inside`: lines that continue a block; splitting before them would cut the block.
    `edges`: the first line of a block and the non-blank line right after one. A block
    can follow a paragraph line with no blank line between them, so without these cuts a
    too-large paragraph+block run would be cut line by line, through a block that fits.
    `sticky`: lines no cut may start at even when that makes a chunk longer than
    `max_chars` (see `_glued`).
    """
    inside: set[int] = set()
    edges: set[int] = set()
    ranges = [(b.line, b.end_line) for b in doc.codeblocks] + [
        (t.line, t.end_line) for t in doc.tables
    ]
    block_ends: dict[int, int] = {}
    for start, end in ranges + list(doc.keep_together):
        inside.update(range(start + 1, end + 1))
        edges.add(start)
        block_ends[start] = max(end, block_ends.get(start, end))
        if end < len(lines) and lines[end].strip():
            edges.add(end + 1)
    glued, sticky = _glued(doc, lines, offsets, block_ends, max_chars)
    inside |= glued
    return inside, edges, sticky


def _glued(
    doc: Document,
    lines: list[str],
    offsets: list[int],
    block_ends: dict[int, int],
    max_chars: int,
) -> tuple[set[int], set[int]]:
    """(glued, sticky): a heading and an HTML comment block (Node's `<!-- YAML ... -->`
    history) stick to the block that follows them.

    `glued`: when the heading (or comment), the comments after it and the whole next
    block fit in `max_chars`, no cut inside that run. `sticky` (not for code): when they
    do not but the block alone fits, they still make one chunk, longer than `max_chars`
    (up to `chunk_bound(max_chars)`); a block that is cut anyway keeps its first piece
    with them. A comment with no text after it in its section stays with the text before
    it. Without this a long section came out as a heading-only chunk, then a chunk of the
    comment alone, neither of which answers anything (72 heading-only chunks in Node's
    docs).
    """
    total = len(lines)
    heading_lines = {h.line for h in doc.headings}
    bound = chunk_bound(max_chars)

    def comment_end(n: int) -> int:  # a comment opening on line n closes on the line returned
        while n < total and "-->" not in lines[n - 1]:
            n += 1
        return n

    blank_lines: list[int] = []  # the numbers of the blank lines, then total + 1

    def block_end(n: int) -> int:  # a code block, table or paragraph starting on line n
        if n in block_ends:
            return block_ends[n]
        if n >= total:
            return n
        if not blank_lines:
            # Found once, on first use, in C (no Python step per line): walking the
            # paragraph from every heading was quadratic in code files (a symbol per line
            # of one long run). The run after line n ends before the next blank line.
            blank_lines.extend(compress(count(1), map(not_, map(str.strip, lines))))
            blank_lines.append(total + 1)
        return blank_lines[bisect_right(blank_lines, n)] - 1

    def chars(first: int, last: int) -> int:  # characters of lines first..last with their '\n'
        return offsets[last + 1] - offsets[first]

    comments: list[tuple[int, int]] = []  # (first line, last line)
    n = 1
    for first in _comment_lines(doc.text):
        if first >= n:  # not inside the comment before
            comments.append((first, comment_end(first)))
            n = comments[-1][1] + 1
    glued: set[int] = set()
    sticky: set[int] = set()
    prose = doc.format != "code"
    for first, after in [(h.line, h.line) for h in doc.headings] + comments:
        # Blank lines and further comments, then the first line of the next block.
        n, run = after + 1, set[int]()
        while n <= total:
            text = lines[n - 1].strip()
            if text.startswith("<!--"):
                end = comment_end(n)
                run.update(range(n, end + 1))
                n = end + 1
                continue
            if text and n in heading_lines:
                # No text before the next section: a trailing comment stays with the
                # text before it (a heading needs nothing, its section ends here).
                if prose and first not in heading_lines and chars(first, n - 1) <= max_chars:
                    sticky.update(range(first, after + 1))
                break
            run.add(n)
            if text:
                end = block_end(n)
                if chars(first, end) <= max_chars:
                    glued |= run
                elif prose and chars(n, end) <= max_chars and chars(first, end) <= bound:
                    sticky |= run | set(range(n + 1, end + 1))  # the whole block comes along
                elif prose and chars(first, n) <= bound:
                    sticky |= run  # a block cut anyway: its first piece comes along
                break
            n += 1
        else:
            if prose and first not in heading_lines and chars(first, total) <= max_chars:
                sticky.update(range(first, after + 1))  # a comment at the end of the document
    return glued, sticky


# A line opening an HTML comment (`line.lstrip().startswith("<!--")`), found by the newline
# before it (a pattern that opens with a literal is searched for that character first).
_COMMENT_START = re.compile(r"[^\S\n]*<!--")
_COMMENT_AFTER_NEWLINE = re.compile(r"\n[^\S\n]*<!--")


def _comment_lines(text: str) -> list[int]:
    """The numbers of the lines that open an HTML comment, in order."""
    if "<!--" not in text:  # most documents have no comment at all
        return []
    found = [1] if _COMMENT_START.match(text) else []
    line, counted = 1, 0
    for match in _COMMENT_AFTER_NEWLINE.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        found.append(line + 1)
    return found


def _split(
    lines: list[str],
    offsets: list[int],
    start: int,
    end: int,
    max_chars: int,
    inside: set[int],
    edges: set[int],
    sticky: set[int],
) -> list[tuple[int, int]]:
    size = lambda a, b: offsets[b + 1] - offsets[a]  # noqa: E731 - chars of lines a..b
    if size(start, end) <= max_chars:
        return [(start, end)]
    # Paragraph starts (a non-blank line after a blank one) and block edges, outside blocks.
    cuts = [
        n
        for n in range(start + 1, end + 1)
        if n not in inside
        and n not in sticky
        and (n in edges or (not lines[n - 2].strip() and lines[n - 1].strip()))
    ]
    pieces = _greedy(start, end, cuts, max_chars, size)
    result: list[tuple[int, int]] = []
    for a, b in pieces:
        if size(a, b) > max_chars and b > a:
            # One paragraph or block alone is too large: cut it at line boundaries.
            # (no cut in the blank lines that end the piece: a chunk of blank lines alone)
            last_text = next((n for n in range(b, a, -1) if lines[n - 1].strip()), a)
            lines_cuts = [n for n in range(a + 1, last_text + 1) if n not in sticky]
            result.extend(_greedy(a, b, lines_cuts, max_chars, size))
        else:
            result.append((a, b))
    bound = chunk_bound(max_chars)
    if any(size(a, b) > bound and b > a for a, b in result):
        # Sticky lines never make a chunk longer than the hard bound: cut anywhere then.
        result = [
            piece
            for a, b in result
            for piece in (
                _greedy(a, b, list(range(a + 1, b + 1)), max_chars, size)
                if size(a, b) > bound and b > a
                else [(a, b)]
            )
        ]
    return result


def _greedy(
    start: int, end: int, cuts: list[int], max_chars: int, size: Callable[[int, int], int]
) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    piece_start = start
    previous_cut = None
    for cut in cuts + [end + 1]:
        if (
            size(piece_start, cut - 1) > max_chars
            and previous_cut is not None
            and previous_cut > piece_start
        ):
            pieces.append((piece_start, previous_cut - 1))
            piece_start = previous_cut
        previous_cut = cut
    pieces.append((piece_start, end))
    return pieces
