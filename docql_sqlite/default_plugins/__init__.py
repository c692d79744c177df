"""The built-in formats, embedders and rerankers, registered through the same hooks as a
third-party plugin (`docql_sqlite.plugins.DEFAULT_PLUGINS`), as llm's `default_plugins`.

Each module is cheap to import: the parsers and models it names load on first use.
"""
