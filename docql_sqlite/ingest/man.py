"""Manual pages (roff with the `man` or `mdoc` macros) → `Document`, as `man` shows them.

This module owns reading manual pages (`/usr/share/man/man1/ls.1.gz` with `index
--decompress`, a `*.1` … `*.9` file under a `man*` folder, a `.man` file) without troff:
the document's text is the page as a terminal shows it, unfilled — each source line of
text one line, requests dropped, font escapes and special characters resolved
(`\\fB\\-a\\fR` → `-a`, `\\(em` → `—`). So search snippets and `get` read words, not
macros; line numbers are the rendered page's, as for HTML.

- **Sections**: `.SH` (mdoc `.Sh`) at level 1, `.SS` (`.Ss`) at level 2; the page's
  title is `name(section)` from `.TH` (`.Dt`), its header fields the front matter.
- **Options and terms**: a tagged paragraph's tag (`.TP`, `.IP "tag"`, mdoc `.It`) is a
  `Term` whose definition is the paragraph; a tag that lists options (`-a, --all`,
  `--block-size=SIZE`) is a `Term` for each (`-a`, `--all`, `--block-size`), so
  `$.entities[?(@.name=="--all")]` finds ls's.
- **Examples**: unfilled regions (`.nf` … `.fi`, `.EX` … `.EE`, mdoc `.Bd -literal`) are
  code blocks.
- Nothing is read from elsewhere: `.so` (an alias page's "see that page") stays a line.
"""

from __future__ import annotations

import re

from docql_sqlite.ingest.entities import option_term, term_entity
from docql_sqlite.ingest.read import parse_decoded, plain_lines
from docql_sqlite.model import CodeBlock, Document, Entity, Heading, Source, split_lines

_SPECIAL = {
    "em": "—", "en": "–", "hy": "-", "mi": "-", "bu": "•", "aq": "'", "dq": '"',
    "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "co": "©", "rg": "®", "tm": "™",
    "de": "°", "+-": "±", "mu": "×", "di": "÷", "<=": "≤", ">=": "≥", "!=": "≠",
    "->": "→", "<-": "←", "ti": "~", "ha": "^", "rs": "\\", "sl": "/", "ba": "|",
    "Tm": "™", "R": "®", "ga": "`", "aa": "´", "pc": "·", "lB": "[", "rB": "]",
    "lC": "{", "rC": "}", "la": "⟨", "ra": "⟩", "Fo": "«", "Fc": "»", "fm": "′",
}  # fmt: skip
_ESCAPE = re.compile(
    r"\\(?:"
    r"f(?:\[[^\]]*\]|\(..|.)"  # font: \fB \f(CW \f[CR]
    r"|s[+-]?(?:\d|\(\d\d|\[\d+\])"  # size
    r"|\((?P<two>..)|\[(?P<name>[^\]]+)\]|\*(?:\((?P<str2>..)|\[(?P<strn>[^\]]*)\]|(?P<str1>.))"
    r"|[kmnz](?:\(..|\[[^\]]*\]|.)"  # registers, colours
    r"|[hvwlLNoxXYbDHSRZ]'[^']*'"  # motions and the like: \h'1n', \w'...'
    r"|(?P<one>.)"
    r")"
)
_ONE = {"-": "-", "e": "\\", "\\": "\\", " ": " ", "~": " ", "0": " ", "'": "´", "`": "`",
        ".": ".", '"': "", "%": "", "&": "", "|": "", "^": "", ",": "", "/": "", "c": "",
        ":": "", "p": "", "t": "\t", "{": "", "}": "", "!": "", "#": ""}  # fmt: skip
_STRINGS = {"lq": "“", "rq": "”", "R": "®", "Tm": "™", "Aq": "'", "Q": '"', "dq": '"'}
# Macros whose arguments alternate between two fonts, printed with no space between.
_ALTERNATING = frozenset({"BR", "RB", "BI", "IB", "IR", "RI"})
_FONT_MACROS = frozenset({"B", "I", "SM", "SB", "CW", "R"})
_BREAKS = frozenset({"PP", "LP", "P", "sp", "Pp", "Lp", "HP", "PD"})
_NOFILL = {"nf": "fi", "EX": "EE"}
_SECTIONS = frozenset({"SH", "SS", "Sh", "Ss"})
_DEFINE_STRING = re.compile(r"[.']\s*ds\s+(?P<name>\S+)[ \t]?(?P<value>.*)$")
_OPTION = re.compile(
    r"(?P<name>--?[\w][\w?.-]*|-[?#@])(?:\[?=[^,\s]*\]?|\s+[<\[]?[A-Za-z][\w.-]*[>\]]?)?"
)
# mdoc: macros whose name is dropped and whose arguments are text; `Fl` makes a flag.
_MDOC_CALLABLE = frozenset(
    "Ad An Ap Aq Ar At Bq Brq Bx Cd Cm Dq Dv Em Er Ev Fa Fl Fn Ft Fx Ic Li Ms Mt Nm No Ns "
    "Nx Oo Oc Op Ox Pa Pq Ql Qq Sq St Sx Sy Tn Ux Va Vt Xr Bo Bc Do Dc Po Pc Qo Qc So Sc "
    "Eo Ec Lk".split()
)
_MDOC_QUOTES = {
    "Dq": ("“", "”"), "Sq": ("‘", "’"), "Pq": ("(", ")"), "Op": ("[", "]"),
    "Bq": ("[", "]"), "Aq": ("⟨", "⟩"), "Qq": ('"', '"'), "Brq": ("{", "}"),
}  # fmt: skip


def parse(source: Source) -> Document:
    """The manual page parser (`formats.PARSERS`): decode, then `parse_man`."""
    return parse_decoded(source, parse_man)


def parse_man(text: str, path: str) -> Document:
    """Render a manual page's text and read its structure; never raises."""
    text = plain_lines(text)
    return _Renderer(split_lines(text), path).document()


class _Renderer:
    def __init__(self, source: list[str], path: str) -> None:
        self.source = source
        self.path = path
        self.out: list[str] = []
        self.headings: list[Heading] = []
        self.codeblocks: list[CodeBlock] = []
        self.entities: list[Entity] = []
        self.header: dict[str, str] = {}
        self.title: str | None = None
        self.name: str | None = None  # mdoc's `.Nm`
        self.pending_heading: int | None = None  # `.SH` with its title on the next line
        self.pending_tag = False  # `.TP`: the next text line is the tag
        self.tag: tuple[str, int] | None = None  # the open tagged paragraph (tag, line)
        self.body: list[str] = []
        self.indent = 0
        self.url = ""  # `.UR` … `.UE`
        self.strings: dict[str, str] = {}  # `.ds name value`
        self.last_condition = False  # the last `.ie`'s, for its `.el`

    def document(self) -> Document:
        i, n = 0, len(self.source)
        while i < n:
            line = self.source[i]
            i += 1
            if line.startswith((".", "'")):
                i = self._request(line, i)
            else:
                self._text(self._inline(line))
        self._end_tag()
        doc = Document(format="man", text="\n".join(self.out) + ("\n" if self.out else ""))
        doc.headings = self.headings
        doc.codeblocks = self.codeblocks
        doc.entities = self.entities
        doc.frontmatter = self.header or None
        base = self.path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        doc.title = self.title or base or None
        return doc

    # -- output ------------------------------------------------------------------------
    def _emit(self, text: str) -> int:
        self.out.append(text)
        return len(self.out)

    def _blank(self) -> None:
        if self.out and self.out[-1] != "":
            self.out.append("")

    def _text(self, text: str) -> None:
        if self.pending_heading is not None:
            self._heading(self.pending_heading, text)
            self.pending_heading = None
            return
        if self.pending_tag:
            self.pending_tag = False
            self._open_tag(text)
            return
        if not text.strip() and not self.out:
            return
        self._emit(" " * self.indent + text if text else "")
        if self.tag is not None and text.strip():
            self.body.append(text.strip())

    def _heading(self, level: int, title: str) -> None:
        self._end_tag()
        self.pending_tag = False  # (`.TP` then `.SH`: kill(1)'s NOTES is no tag)
        title = " ".join(title.split())
        if not title:
            return
        self._blank()
        line = self._emit(title)
        self.headings.append(Heading(level=level, title=title, line=line))
        self.indent = 0

    def _open_tag(self, tag: str) -> None:
        self._end_tag()
        line = self._emit(" " * self.indent + tag)
        self.tag = (tag.strip(), line)

    def _end_tag(self) -> None:
        if self.tag is None:
            return
        tag, line = self.tag
        definition = " ".join(self.body) or None
        end = max(line, len(self.out))
        names = [m["name"] for m in _OPTION.finditer(tag)] if tag.startswith("-") else []
        for name in names or [tag]:
            make = option_term if name.startswith("-") else term_entity  # `--all`
            if (entity := make(name, definition, line, end)) is not None:
                self.entities.append(entity)
        self.tag, self.body = None, []

    # -- requests ----------------------------------------------------------------------
    def _request(self, line: str, i: int) -> int:
        """Handle the request or macro `line` (the source line before index `i`); returns
        the index of the next source line to read."""
        if line.startswith(('.\\"', "'\\\"", ".\\#")) or line.strip() in (".", "'"):
            return i  # a comment, an empty request
        name, args = _split_request(line)
        if name in ("TH", "Dt"):
            fields = ["name", "section", "date", "source", "manual"]
            values = [self._inline(a) for a in args]
            self.header = {k: v for k, v in zip(fields, values, strict=False) if v}
            if values:
                self.title = f"{values[0].lower() if name == 'TH' else values[0]}" + (
                    f"({values[1]})" if len(values) > 1 else ""
                )
        elif name in ("SH", "Sh"):
            self._section(1, args)
        elif name in ("SS", "Ss"):
            self._section(2, args)
        elif name in _BREAKS:
            self._end_tag()
            self._blank()
        elif name in ("Bl", "El", "Ed"):
            self._end_tag()  # a list's end ends its last item
        elif name == "TP":
            self._blank()
            self.pending_tag = True
        elif name in ("IP", "TQ"):
            self._blank()
            if args and self._inline(args[0]).strip():
                self._open_tag(self._inline(args[0]))
        elif name == "It":
            self._blank()
            self._open_tag(self._mdoc(args))
        elif name == "RS":
            self.indent += 4
        elif name == "RE":
            self.indent = max(0, self.indent - 4)
        elif name in _NOFILL or (name == "Bd" and ("-literal" in args or "-unfilled" in args)):
            return self._nofill(i, _NOFILL.get(name, "Ed"))
        elif name == "de" or name == "ig":
            return _skip_definition(self.source, i)
        elif name == "ds" and args:
            value = _DEFINE_STRING.match(line)
            if value is not None:
                text = value["value"]
                self.strings[value["name"]] = self._inline(text[1:] if text[:1] == '"' else text)
        elif name in ("if", "ie", "el"):
            return self._conditional(name, line, i)
        elif name in _ALTERNATING:
            self._text("".join(self._inline(a) for a in args))
        elif name in _FONT_MACROS:
            if args:
                self._text(" ".join(self._inline(a) for a in args))
        elif name in ("UR", "MT"):
            self.url = self._inline(args[0]) if args else ""
        elif name in ("UE", "ME"):
            if self.url:
                self._text(f"<{self.url}>" + "".join(self._inline(a) for a in args))
            self.url = ""
        elif name == "so":
            self._text(f"(see {args[0]})" if args else "")
        elif name == "Nm":
            if args and self.name is None:
                self.name = self._inline(args[0])
            self._text(self._mdoc(["Nm", *args]))
        elif name == "Nd":
            self._text("— " + self._mdoc(args))
        elif name in _MDOC_CALLABLE:
            self._text(self._mdoc([name, *args]))
        return i

    def _conditional(self, name: str, line: str, i: int) -> int:
        """`.if COND body`, `.ie COND body` / `.el body`, the body on the line or in a
        `\\{` … `\\}` block: a page is read as `man` reads it on a terminal (`n` true, `t`
        false, any other condition false, so its `.el` branch is taken)."""
        rest = line[1:].lstrip()[len(name) :].lstrip()
        if name == "el":
            taken, body = not self.last_condition, rest
        else:
            condition, _, body = rest.partition(" ")
            if condition.startswith("\\{"):  # (no space before the block)
                condition, body = condition[2:], "\\{" + body
            taken = condition in ("n", "!t")
            if name == "ie":
                self.last_condition = taken
        body = body.lstrip()
        lines = [body]
        if body.startswith("\\{"):
            lines = [body[2:].lstrip("\\").strip()]
            depth = body.count("\\{") - body.count("\\}")
            while depth > 0 and i < len(self.source):
                block = self.source[i]
                i += 1
                depth += block.count("\\{") - block.count("\\}")
                lines.append(block.replace("\\}", "").rstrip("\\").rstrip())
        if taken:
            for text in lines:
                if text.startswith((".", "'")):
                    self._request(text, i)  # (a block's requests read no line after it)
                elif text:
                    self._text(self._inline(text))
        return i

    def _section(self, level: int, args: list[str]) -> None:
        if args:
            self._heading(level, " ".join(self._inline(a) for a in args))
        else:
            self.pending_heading = level  # `.SH` alone: the title is the next line

    def _nofill(self, i: int, end_request: str) -> int:
        """An unfilled region from source index `i` to its `end_request`: its lines as
        they are, a code block; returns the index after the end."""
        self._end_tag()
        start = len(self.out) + 1
        lines: list[str] = []
        n = len(self.source)
        while i < n:
            line = self.source[i]
            i += 1
            if line.startswith((".", "'")):
                name, args = _split_request(line)
                if name == end_request:
                    break
                if name in _SECTIONS:  # an `.nf` never closed ends at the next section
                    i -= 1
                    break
                if name in _ALTERNATING:
                    lines.append("".join(self._inline(a) for a in args))
                elif name in _FONT_MACROS and args:
                    lines.append(" ".join(self._inline(a) for a in args))
                continue
            lines.append(self._inline(line))
        for text in lines:
            self._emit(" " * self.indent + text)
        if lines:
            self.codeblocks.append(CodeBlock(None, "\n".join(lines), start, start + len(lines) - 1))
        return i

    # -- text --------------------------------------------------------------------------
    def _inline(self, text: str) -> str:
        """A text line with its escapes resolved and its comment cut."""
        if "\\" not in text:
            return text
        cut = text.find('\\"')
        if cut >= 0:
            text = text[:cut].rstrip()
        return _ESCAPE.sub(self._escape, text)

    def _escape(self, match: re.Match[str]) -> str:
        for group in ("str2", "strn", "str1"):
            if match[group] is not None:  # `\*(xT`: a string the page defined, or roff's
                name = match[group]
                return self.strings.get(name, _STRINGS.get(name, ""))
        return _escape(match)

    def _mdoc(self, args: list[str]) -> str:
        """An mdoc macro line's text: macro names dropped, `Fl x` a flag, `Xr ls 1`
        `ls(1)`, `Nm` the page's name, `Ns` no space."""
        out: list[str] = []
        closers: list[str] = []
        no_space = False
        k = 0
        while k < len(args):
            word = args[k]
            k += 1
            piece: str | None
            if word == "Fl":
                flag = args[k] if k < len(args) and args[k] not in _MDOC_CALLABLE else ""
                k += 1 if flag else 0
                piece = "-" + self._inline(flag)
            elif word == "Xr" and k + 1 < len(args):
                piece = f"{self._inline(args[k])}({args[k + 1]})"
                k += 2
            elif word == "Nm":
                if k < len(args) and args[k] not in _MDOC_CALLABLE:
                    piece = self._inline(args[k])
                    k += 1
                else:
                    piece = self.name or ""
            elif word == "Ns":
                no_space = True
                continue
            elif word in _MDOC_QUOTES:
                opening, closing = _MDOC_QUOTES[word]
                out.append(opening)
                no_space = True
                closers.append(closing)
                continue
            elif word in _MDOC_CALLABLE:
                continue
            else:
                piece = self._inline(word)
            if piece:
                if no_space and out:
                    out[-1] += piece
                else:
                    out.append(piece)
            no_space = False
        text = " ".join(out)
        return text + "".join(reversed(closers))


def _escape(match: re.Match[str]) -> str:
    if match["two"] is not None:
        return _SPECIAL.get(match["two"], "")
    if match["name"] is not None:
        name = match["name"]
        if name.startswith("u") and re.fullmatch(r"u[0-9A-Fa-f]{4,6}", name):
            return chr(int(name[1:], 16))
        return _SPECIAL.get(name, "")
    for group in ("str2", "strn", "str1"):
        if match[group] is not None:
            return _STRINGS.get(match[group], "")
    if match["one"] is not None:
        return _ONE.get(match["one"], match["one"])
    return ""  # fonts, sizes, motions


def _split_request(line: str) -> tuple[str, list[str]]:
    """A request line's name and arguments (double quotes group words)."""
    body = line[1:].lstrip()
    name, _, rest = body.partition(" ")
    if "\t" in name:
        name, _, more = name.partition("\t")
        rest = more + " " + rest
    args: list[str] = []
    for match in re.finditer(r'"((?:[^"]|"")*)"?|(\S+)', rest):
        if match[1] is not None:
            args.append(match[1].replace('""', '"'))
        else:
            args.append(match[2])
    return name, args


def _skip_definition(source: list[str], i: int) -> int:
    """The index after a macro definition (`.de xx` … `..`) that starts before `i`."""
    while i < len(source) and source[i].strip() != "..":
        i += 1
    return i + 1
