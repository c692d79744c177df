"""The flags of the `query` command and the output flags, written once as data.

click builds its options from these (`cli/click_options.py`), and `cli/fastpath.py` parses a
plain `docql-sqlite query` with them without importing click (~50M instructions, a third
of that command's start-up: docs/benchmarks.md). This module imports nothing: keep it so.
"""

from __future__ import annotations


class Flag:
    """One click option: its declarations (`--name` strings, then the parameter name) and
    how it takes its value: `flag_value` (a constant, several flags may share one
    parameter), `is_flag` (True when given), or a value that `kind` converts ("text";
    "count": a whole number ≥ 0; "fields": `output.parse_fields`)."""

    __slots__ = ("decls", "help", "flag_value", "is_flag", "kind", "multiple", "metavar")

    def __init__(
        self,
        *decls: str,
        help: str,  # noqa: A002 - click's own keyword
        flag_value: str | None = None,
        is_flag: bool = False,
        kind: str = "text",
        multiple: bool = False,
        metavar: str | None = None,
    ) -> None:
        self.decls, self.help, self.flag_value, self.is_flag = decls, help, flag_value, is_flag
        self.kind, self.multiple, self.metavar = kind, multiple, metavar

    @property
    def switches(self) -> tuple[str, ...]:
        return tuple(d for d in self.decls if d.startswith("-"))

    @property
    def dest(self) -> str:
        """The parameter name, as click derives it: the declared name, else the longest
        switch without its dashes."""
        named = [d for d in self.decls if not d.startswith("-")]
        if named:
            return named[0]
        longest = max(self.switches, key=len)
        return longest.lstrip("-").replace("-", "_").lower()

    @property
    def takes_value(self) -> bool:
        return self.flag_value is None and not self.is_flag


def output_flags(text: str | None = None) -> list[Flag]:
    """--json / --nl / --csv / -t/--table / --md / --fields, named as in sqlite-utils; with
    `text`, a --text flag first (its help) and the table no longer a terminal's default."""
    flags = [
        Flag("--json", "fmt", flag_value="json", help="Output a JSON array (default when piped)"),
        Flag("--nl", "fmt", flag_value="nl", help="Output newline-delimited JSON"),
        Flag("--csv", "fmt", flag_value="csv", help="Output CSV"),
        Flag(
            "-t",
            "--table",
            "fmt",
            flag_value="table",
            help="Output a table" + ("" if text else " (default on a terminal)"),
        ),
        Flag("--md", "fmt", flag_value="md", help="Output a Markdown table"),
        FIELDS,
    ]
    if text:
        flags.insert(0, Flag("--text", "fmt", flag_value="text", help=text))
    return flags


FIELDS = Flag(
    "--fields",
    "fields",
    metavar="A,B,C",
    kind="fields",
    help="Show only these fields, in this order (in every output format)",
)
PATHS = Flag(
    "--path",
    "paths",
    multiple=True,
    metavar="GLOB",
    help="Only documents whose path matches this gitignore-style glob (repeatable)",
)

# `docql-sqlite query DATABASE QUERY [flags]`, in the order `--help` lists them.
QUERY_ARGUMENTS = ("database", "query")
QUERY_FLAGS = [
    PATHS,
    Flag("--limit", kind="count", help="At most N results"),
    Flag("--sql", "show_sql", is_flag=True, help="Print the SQL instead of running it"),
    Flag(
        "--inline",
        is_flag=True,
        help="Print the SQL with the values in it (runs as is in sqlite3); implies --sql",
    ),
    *output_flags(),
]
