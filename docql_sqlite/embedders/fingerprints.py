"""Model fingerprints: whether the model a search loads gives the vectors an index holds.

A fingerprint is written into `meta` when an index is embedded and checked on every
search. It is `v2:<model>:<signs>.<signs>`: a hash of the model id and dimensions, then
the sign of every component of each probe text's vector (`base.PROBE_TEXTS`), in hex.
Two fingerprints match when the model part is the same and, for each probe, at most
SIGN_TOLERANCE of the signs differ. Another engine, CPU or thread count moves the last
float bits and flips the sign of a component near zero (e5-small: at most 4 of 384
between its three engines; the order of the strongest components, the fingerprint before
v2, changed from one CPU to another and refused a good index); another model or other
weights flip about half of them.

No numpy here: the numpy-free query path (`search/e5_query.py`) compares fingerprints
too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

PREFIX = "v2:"
# The share of a probe's component signs that may differ between two fingerprints of one
# model (measured: 1 %; another model: ~50 %).
SIGN_TOLERANCE = 0.05


def of_signs(model_id: str, dimensions: int, probes: Sequence[Sequence[float]]) -> str:
    """The fingerprint of `probes` (each probe text's vector) from the model `model_id`."""
    parts = []
    for vector in probes:
        bits = 0
        for i, value in enumerate(vector):
            if value >= 0:
                bits |= 1 << i
        parts.append(f"{bits:0{(len(vector) + 3) // 4}x}")
    return f"{PREFIX}{_model_part(model_id, dimensions)}:{'.'.join(parts)}"


def is_signs(fingerprint: str) -> bool:
    """Whether `fingerprint` is one `of_signs` wrote (not an older kind of fingerprint)."""
    return fingerprint.startswith(PREFIX) and fingerprint.count(":") == 2


def signs_match(stored: str, current: str) -> bool:
    """Whether two `of_signs` fingerprints come from one model: the same model part and
    probes, each with at most SIGN_TOLERANCE of its signs different."""
    if not (is_signs(stored) and is_signs(current)):
        return False
    _, model_a, signs_a = stored.split(":")
    _, model_b, signs_b = current.split(":")
    probes_a, probes_b = signs_a.split("."), signs_b.split(".")
    if model_a != model_b or len(probes_a) != len(probes_b):
        return False
    for a, b in zip(probes_a, probes_b):
        if len(a) != len(b):
            return False
        try:
            differing = bin(int(a, 16) ^ int(b, 16)).count("1")
        except ValueError:
            return False
        if differing > SIGN_TOLERANCE * len(a) * 4:
            return False
    return True


def _model_part(model_id: str, dimensions: int) -> str:
    return hashlib.sha256(f"{model_id}\n{dimensions}\n".encode()).hexdigest()[:8]
