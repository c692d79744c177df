"""The SQLite file as the engine of an index (apsw; the only package that imports it)."""
