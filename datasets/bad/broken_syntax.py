"""Part of the Lumen admin tool; the end of this file has a syntax error on purpose."""

import json


class CollectionStats:
    """Document and byte counts for one collection."""

    def __init__(self, name, docs, size_bytes):
        self.name = name
        self.docs = docs
        self.size_bytes = size_bytes

    def to_json(self):
        return json.dumps({"name": self.name, "docs": self.docs, "bytes": self.size_bytes})


def human_size(n):
    """Formats a byte count as KiB/MiB/GiB."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024:
            return f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def print_report(stats):
    for s in stats:
        print(f"{s.name:20} {s.docs:>10} {human_size(s.size_bytes):>12}")


class Broken:
    def method_with_error(self):
        if True
            return 1

    def after_error(self):
        return 2
