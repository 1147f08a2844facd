"""Every random stream of the zoo, derived from one root seed in one place.

A run (``zoo check``, ``zoo validate``, :func:`zoo.sample`) takes one root seed. Each
*purpose* gets its own stream, and item ``i`` of a purpose (chain ``i``, simulation
``i``, problem ``i``) its own child of that stream. The engines' purposes are here:

==========================  ==========================================================
purpose                     used for
==========================  ==========================================================
``gibbs-chains``            the Gibbs engine, chain ``i`` (initial state and sweeps)
``pymc``                    PyMC's ``random_seed`` (one integer per chain)
==========================  ==========================================================

Each check of ``zoo validate`` names its own in its entry of the battery's table
(``Check.purpose`` in :data:`zoo.validation.CHECKS`; ``zoo validate`` refuses a table in
which two share one): ``exact-fits`` (problem ``i``), ``nuts-fits`` (the sampler under
test on data set ``i`` is item ``2 i``, NUTS item ``2 i + 1``), ``sbc-simulations``
(simulation ``i``: parameters and data, the fit, ties), ``geweke-chains`` (the
marginal-conditional side item 0, successive-conditional chain ``i`` item ``i + 1``) and
``invariance-replicates`` (replicate ``i``). A diagnostic that draws for a check names
the purpose in its module (``zoo.diagnostics.sbc.PURPOSE``), and the check's entry
refers to it.

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

import re
import zlib

import numpy as np

from zoo.core.arguments import as_int, as_seed

__all__ = ["PURPOSES", "integer", "item", "items", "key", "root", "stream"]

#: The engines' purposes (the checks' are in their entries: see the module docstring).
PURPOSES = ("gibbs-chains", "pymc")
#: A purpose's name: lower-case words joined by hyphens.
_PURPOSE = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


def key(purpose: str) -> int:
    """The spawn key of ``purpose``'s stream: the CRC-32 of its name.

    Raises
    ------
    ValueError
        Unless ``purpose`` is lower-case words joined by hyphens (``"sbc-simulations"``).
    """
    if not isinstance(purpose, str) or not _PURPOSE.fullmatch(purpose):
        raise ValueError(
            f"purpose: lower-case words joined by hyphens (such as {PURPOSES[0]!r}), "
            f"got {purpose!r}"
        )
    return zlib.crc32(purpose.encode())


def root(seed) -> np.random.SeedSequence:
    """The root ``SeedSequence`` of ``seed`` (an integer >= 0, None, or a SeedSequence).

    ``None`` draws fresh entropy from the operating system, as NumPy does.
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return np.random.SeedSequence(as_seed("seed", seed, allow_none=True))


def stream(seed, purpose: str) -> np.random.SeedSequence:
    """The stream of ``purpose`` under the root ``seed``."""
    spawn = key(purpose)
    parent = root(seed)
    return np.random.SeedSequence(
        parent.entropy, spawn_key=(*parent.spawn_key, spawn), pool_size=parent.pool_size
    )


def item(seed, purpose: str, index: int, *within: int) -> np.random.SeedSequence:
    """Item ``index`` (chain, simulation, problem) of the stream of ``purpose``.

    ``within`` names a part of the item, ``SeedSequence(seed, spawn_key=(key, index,
    *within))``: the exact check's refit of problem ``i`` at its ``k``-th look is
    ``item(seed, "exact-fits", i, k)``. Without it, the item itself.
    """
    index = as_int("index", index, minimum=0)
    within = tuple(as_int("within", part, minimum=0) for part in within)
    parent = stream(seed, purpose)
    return np.random.SeedSequence(
        parent.entropy,
        spawn_key=(*parent.spawn_key, index, *within),
        pool_size=parent.pool_size,
    )


def items(seed, purpose: str, count: int) -> list[np.random.SeedSequence]:
    """Items ``0 .. count - 1`` of the stream of ``purpose``."""
    return [item(seed, purpose, index) for index in range(count)]


def integer(sequence: np.random.SeedSequence) -> int:
    """A 32-bit integer seed from ``sequence``, for APIs that take an int (PyMC, users)."""
    return int(sequence.generate_state(1, np.uint32)[0])
