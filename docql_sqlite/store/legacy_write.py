"""TEMPORARY (issue 21, `core` branch): the write entry points by location, until the
`writer` branch merges. There `ingest.index_paths` and `ingest.embed.embed_index` take a
path or a URL and open the store themselves (`open_store(location, readonly=False)`);
then `docql_sqlite.index`/`embed` call them directly and this module goes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import is_url

if TYPE_CHECKING:
    from ..ingest import IngestReport
    from ..options import EmbedOptions, IngestOptions


def index_paths(location: str, paths: list[str], options: IngestOptions) -> IngestReport:
    if is_url(location):
        from . import _needs_psycopg

        with _needs_psycopg():
            from .postgres.ingest import index_paths as index_url
        return index_url(location, paths, options)
    from ..ingest import index_paths as index_file

    return index_file(location, paths, options)


def embed_index(location: str, options: EmbedOptions) -> dict[str, Any]:
    if is_url(location):
        from . import _needs_psycopg

        with _needs_psycopg():
            from .postgres.embed import embed_index as embed_url
        return embed_url(location, options)
    from ..ingest.embed import embed_index as embed_file

    return embed_file(location, options)
