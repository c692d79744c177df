"""The fields of each DocQL item type, read from the compiler's item definitions
(`items.py`), so that a guide written from them cannot drift from what a filter takes."""

from __future__ import annotations

from . import items


def item_fields() -> dict[str, list[str]]:
    """Every item type's fields (the union of its variants, in definition order)."""
    merged: dict[str, list[str]] = {}
    for value in vars(items).values():
        if isinstance(value, items.ItemType):
            names = merged.setdefault(value.name, [])
            names += [name for name in value.field_names if name not in names]
    return merged
