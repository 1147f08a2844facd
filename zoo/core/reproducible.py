"""PyTensor settings under which a seed gives the same PyMC draws on a cold or a warm cache.

PyTensor 3 compiles PyMC programs with its Numba backend, with ``fastmath`` on by
default. Fast math lets LLVM reorder floating-point arithmetic as it sees fit, and what
it sees depends on how a function was compiled: a program compiled afresh (a cold
cache) and the same program loaded from PyTensor's cache gave log densities that
differed in the last bit, so NUTS's trajectories, hence the draws of ``zoo check``'s
Naive Bayes with the same seed, differed between a fresh clone and a second run
(``docs/design.md``, pitfalls). Fast math also lets the compiler assume no infinities
or NaN, which a log density of ``-inf`` outside the support contradicts.

:func:`ieee_arithmetic` turns it off for the duration of a PyMC run, in this process
(PyTensor's config) and in the processes PyMC starts for its chains (they read
``PYTENSOR_FLAGS`` when they recompile the functions they receive). A user who sets
``numba__fastmath`` in ``PYTENSOR_FLAGS`` keeps their choice.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["ieee_arithmetic"]

_FLAG = "numba__fastmath"


@contextmanager
def ieee_arithmetic() -> Iterator[None]:
    """Compile and run PyTensor functions without fast math, restoring everything after."""
    # deferred: PyTensor takes seconds to import, and a Gibbs run never needs it
    import pytensor

    flags = os.environ.get("PYTENSOR_FLAGS", "")
    if _FLAG in flags:
        yield
        return
    os.environ["PYTENSOR_FLAGS"] = f"{flags},{_FLAG}=False" if flags else f"{_FLAG}=False"
    try:
        with pytensor.config.change_flags(**{_FLAG: False}):
            yield
    finally:
        if flags:
            os.environ["PYTENSOR_FLAGS"] = flags
        else:
            del os.environ["PYTENSOR_FLAGS"]
