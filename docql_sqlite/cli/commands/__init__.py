"""The click commands of `docql-sqlite`, one module per group of commands: `documents`
(index, status, toc, get), `docql` (query, explain), `search` (search, embed, context),
`repomap` (map), `serve` (Datasette), `mcp` (the MCP server), `copy` (between engines).

The group (`cli/group.py`) imports a module when one of its commands is named, so a module
here imports what its commands need and never another module of this package (shared
code lives in `cli/console.py` and `cli/click_options.py`).
"""
