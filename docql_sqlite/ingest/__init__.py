"""Ingest: walk → read → parse → sections → chunks → store (see `run.index_paths`)."""

from ..options import IngestOptions
from .run import IngestReport, index_paths

__all__ = ["IngestOptions", "IngestReport", "index_paths"]
