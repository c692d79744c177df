"""The `query` command's work once its flags are parsed: without click, so that
`cli/fastpath.py` can run it without importing click (the click command in
`cli/queries.py` calls the same function)."""

from __future__ import annotations

from .. import output
from ..options import QueryOptions
from .console import default_format, echo, emit, handle_errors, open_index


@handle_errors
def run_query(
    database: str,
    query: str,
    paths: tuple[str, ...],
    limit: int | None,
    show_sql: bool,
    inline: bool,
    fmt: str | None,
    fields: tuple[str, ...] | None,
) -> None:
    """Run the DocQL `query` (the caller checked that it starts with '$')."""
    options = QueryOptions(paths=paths, limit=limit)
    with open_index(database) as idx:
        if show_sql or inline:
            compiled = idx.compile(query, options)
            if inline:
                echo(compiled.inline_sql() + ";")
            else:
                echo(compiled.sql + ";")
                if compiled.params:
                    echo("-- params: " + output.dumps(compiled.params))
            return
        result = idx.query(query, options)
    if result.compiled.post == "structure" and default_format(fmt) == "table" and not fields:
        from .. import structure_text

        echo(structure_text(result), nl=False)
        return
    emit(result, fmt, fields, database)


def is_docql(query: str) -> bool:
    return query.lstrip().startswith("$")
