"""The built-in file formats: each names the module whose `parse` reads it (imported on
first use, so registering them imports no parser)."""

from __future__ import annotations

from collections.abc import Callable

from docql_sqlite.hookspecs import hookimpl

PARSERS = "docql_sqlite.ingest"


@hookimpl
def register_formats(register: Callable[..., None]) -> None:
    # Imported here, not at the top: the table of languages is only needed once the
    # formats are asked for, and the ingest package is heavy for an `embed` run.
    from docql_sqlite.ingest.formats import CODE_AS_TEXT
    from docql_sqlite.ingest.grammars import code_extensions

    register("markdown", f"{PARSERS}.markdown", ("md", "markdown", "mdown", "mkd", "mdx"))
    register("rst", f"{PARSERS}.rst", ("rst", "rest"))
    register("html", f"{PARSERS}.html", ("html", "htm", "xhtml"))
    register("pdf", f"{PARSERS}.pdf", ("pdf",))
    register("docx", f"{PARSERS}.docx", ("docx",))
    register("asciidoc", f"{PARSERS}.asciidoc", ("adoc", "asciidoc"))
    register("org", f"{PARSERS}.org", ("org",))
    register("latex", f"{PARSERS}.latex", ("tex", "latex", "ltx"))
    register("bibtex", f"{PARSERS}.bibtex", ("bib",))
    # (and `*.1` … `*.9` under a `man*` folder: `formats.format_for_path`)
    register("man", f"{PARSERS}.man", ("man",))
    register("info", f"{PARSERS}.info", ("info",))  # (and a split file's `.info-2`)
    register("pod", f"{PARSERS}.pod", ("pod",))
    register("rdoc", f"{PARSERS}.rdoc", ("rdoc",))
    # Configuration and API-description files are read as text: people ask where a port
    # or a route is defined. JSON is not (lock files and data dumps would drown the docs),
    # but for a project's manifests by name (`path_kinds.JSON_MANIFESTS`: `package.json`).
    # So are the other files a code base is made of that no grammar here parses (and
    # `Makefile`, `Dockerfile` by name: `path_kinds.BUILD_NAMES`): schemas and build files
    # ("where is the users table defined", "which port does the image expose"),
    # templates and single-file components. Not XML, CSV or `.env` (data, secrets).
    register(
        "text",
        f"{PARSERS}.plaintext",
        ("txt", "text", "log", "yaml", "yml", "toml", "ini", "cfg", "conf", *CODE_AS_TEXT),
    )
    register("notebook", f"{PARSERS}.notebook", ("ipynb",))
    register("code", f"{PARSERS}.code", code_extensions())
