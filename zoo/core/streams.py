"""Every random stream of the zoo, derived from one root seed in one place.

A run (``zoo check``, ``zoo validate``, :func:`zoo.sample`) takes one root seed. Each
*purpose* below gets its own stream, and item ``i`` of a purpose (chain ``i``,
simulation ``i``, problem ``i``) its own child of that stream:

==========================  ==========================================================
purpose                     used for
==========================  ==========================================================
``gibbs-chains``            the Gibbs engine, chain ``i`` (initial state and sweeps)
``pymc``                    PyMC's ``random_seed`` (one integer per chain)
``exact-fits``              the sampler under test on validation problem ``i``
``nuts-fits``               the nuts check: the sampler under test on data set ``i``
                            (item ``2 i``), PyMC's NUTS on it (item ``2 i + 1``)
``sbc-simulations``         SBC simulation ``i``: parameters and data, the fit, ties
``geweke-chains``           Geweke's marginal-conditional side (item 0) and
                            successive-conditional chain ``i`` (item ``i + 1``)
``invariance-replicates``   the one-sweep invariance check
==========================  ==========================================================

The stream of a purpose is ``SeedSequence(seed, spawn_key=(key,))`` and item ``i`` is
``SeedSequence(seed, spawn_key=(key, i))``, where ``key`` is the CRC-32 of the purpose's
name. NumPy's ``SeedSequence`` hashes the spawn key together with the entropy, so two
purposes, or two items of one purpose, never share a stream, and a result depends on
``(seed, purpose, i)`` only: not on which worker ran it, in which order, or how many
other items there were. (Before 0.2 the checks spawned children of the bare root, so
Geweke chain ``i`` and SBC simulation ``i`` started from the same node; see
``CHANGELOG.md``.)
"""

from __future__ import annotations

import zlib

import numpy as np

from zoo.core.arguments import as_int, as_seed

__all__ = ["PURPOSES", "integer", "item", "items", "root", "stream"]

#: The purposes a stream can be drawn for (see the module docstring).
PURPOSES = (
    "gibbs-chains",
    "pymc",
    "exact-fits",
    "nuts-fits",
    "sbc-simulations",
    "geweke-chains",
    "invariance-replicates",
)
_KEYS = {purpose: zlib.crc32(purpose.encode()) for purpose in PURPOSES}


def root(seed) -> np.random.SeedSequence:
    """The root ``SeedSequence`` of ``seed`` (an integer >= 0, None, or a SeedSequence).

    ``None`` draws fresh entropy from the operating system, as NumPy does.
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return np.random.SeedSequence(as_seed("seed", seed, allow_none=True))


def stream(seed, purpose: str) -> np.random.SeedSequence:
    """The stream of ``purpose`` under the root ``seed``."""
    if purpose not in _KEYS:
        raise ValueError(f"purpose: must be one of {PURPOSES}, got {purpose!r}")
    parent = root(seed)
    return np.random.SeedSequence(
        parent.entropy, spawn_key=(*parent.spawn_key, _KEYS[purpose]), pool_size=parent.pool_size
    )


def item(seed, purpose: str, index: int) -> np.random.SeedSequence:
    """Item ``index`` (chain, simulation, problem) of the stream of ``purpose``."""
    index = as_int("index", index, minimum=0)
    parent = stream(seed, purpose)
    return np.random.SeedSequence(
        parent.entropy, spawn_key=(*parent.spawn_key, index), pool_size=parent.pool_size
    )


def items(seed, purpose: str, count: int) -> list[np.random.SeedSequence]:
    """Items ``0 .. count - 1`` of the stream of ``purpose``."""
    return [item(seed, purpose, index) for index in range(count)]


def integer(sequence: np.random.SeedSequence) -> int:
    """A 32-bit integer seed from ``sequence``, for APIs that take an int (PyMC, users)."""
    return int(sequence.generate_state(1, np.uint32)[0])
