"""BLAS threads: numpy's products on the calling thread only.

OpenBLAS starts a pool of one thread per core for a large enough product, and its idle
threads spin while they wait for the next one. Where docql-sqlite runs products (the
e5 numpy engine's layers on its own Python threads, the in-memory nearest-vector search
beside a search's other lists on a second thread) the other cores are already busy, so
the pool only burns them: `one_blas_thread()` makes BLAS calls from the current thread
run on that thread. OpenBLAS >= 0.3.27 keeps a count per calling thread; with another
BLAS, or an older OpenBLAS, nothing changes. Imports numpy: call it only where numpy is
already in use.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path


def one_blas_thread() -> None:
    """Make BLAS calls from this thread run on this thread only."""
    setter = _blas_thread_setter()
    if setter is not None:
        setter(1)


@functools.lru_cache(maxsize=1)
def _blas_thread_setter() -> Callable[[int], object] | None:
    import ctypes

    for path in _openblas_paths():
        try:
            return ctypes.CDLL(str(path)).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
    return None


def _openblas_paths() -> list[Path]:
    """The OpenBLAS numpy loaded: numpy's wheels bundle it beside the package."""
    import numpy as np

    root = Path(np.__file__).parent
    found = sorted(root.parent.glob("numpy.libs/*openblas*"))
    found += sorted(root.glob(".dylibs/*openblas*"))
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            found += sorted({Path(line.split()[-1]) for line in maps if "openblas" in line})
    except OSError:
        pass
    return found
