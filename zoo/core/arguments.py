"""Argument checks, written once for the whole zoo.

Every check raises :class:`ValueError` whose message starts with the field name and
states the rule, before any work is done. Arrays are copied, so nothing a user passes
is modified or aliased by the zoo. Data checks (``as_*_array``) serve the models;
option checks (``as_int``, ``as_probability``, ``as_seed``) serve the diagnostics, the
application and the command line, which turns the message into one line and exit 2.
"""

from __future__ import annotations

import numbers
import os

import numpy as np

__all__ = [
    "as_count_array",
    "as_finite_array",
    "as_int",
    "as_kernel",
    "as_positive_array",
    "as_positive_scalar",
    "as_probability",
    "as_seed",
    "check_generator",
    "require_distinct",
    "require_draws_fit_memory",
    "require_fits_memory",
    "require_same_length",
]


def _as_array(field: str, value, *, ndim: int | None) -> np.ndarray:
    try:
        array = np.array(value, dtype=float, copy=True)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{field}: expected numbers, got {value!r}") from err
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{field}: expected a {ndim}-dimensional array, got shape {array.shape}")
    return array


def _at(where: tuple) -> str:
    """Where in an array a bad entry is; nothing for a single number (``--timeout -1``)."""
    return f" at index {where}" if where else ""


def as_finite_array(field: str, value, *, ndim: int | None = None) -> np.ndarray:
    """Return a float copy of ``value``; raise if any entry is NaN or infinite."""
    array = _as_array(field, value, ndim=ndim)
    bad = ~np.isfinite(array)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{field}: must be finite, found {array[where]}{_at(where)}")
    return array


#: The largest count accepted: float64, in which the models compute, holds every integer
#: up to 2^53 exactly and no further (2^53 + 1 successes compared with 2^53 trials as
#: floats passed the y <= n check, and 2^63 wrapped to a negative int64).
MAX_COUNT = 2**53


def as_count_array(field: str, value, *, ndim: int | None = 1) -> np.ndarray:
    """Return an ``int64`` copy of ``value``; raise unless every entry is a count in [0, 2^53].

    Integers (Python's, of any size, or NumPy's) are checked exactly, without passing
    through float64; floats must be whole.
    """
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{field}: expected numbers, got {value!r}") from err
    exact = raw.dtype.kind in "iub" or (
        raw.dtype.kind == "O"
        and raw.size > 0
        and all(isinstance(v, int | np.integer) for v in raw.ravel())
    )
    if not exact:
        array = as_finite_array(field, value, ndim=ndim)
        fractional = array != np.floor(array)
        if fractional.any():
            where = tuple(int(i) for i in np.argwhere(fractional)[0])
            raise ValueError(
                f"{field}: counts must be integers, found {array[where]:g}{_at(where)}"
            )
        raw = array
    if ndim is not None and raw.ndim != ndim:
        raise ValueError(f"{field}: expected a {ndim}-dimensional array, got shape {raw.shape}")
    if raw.dtype.kind == "O":  # Python integers of any size: compared exactly, one by one
        too_small = np.array([v < 0 for v in raw.ravel()], dtype=bool).reshape(raw.shape)
        too_large = np.array([v > MAX_COUNT for v in raw.ravel()], dtype=bool).reshape(raw.shape)
    else:  # int, uint or whole floats: NumPy compares without rounding below 2^63
        too_small, too_large = raw < 0, raw > MAX_COUNT
    for bad, rule in (
        (too_small, "counts must be >= 0"),
        (too_large, f"counts must be at most 2^53 ({MAX_COUNT})"),
    ):
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueError(f"{field}: {rule}, found {raw[where]}{_at(where)}")
    return np.array(raw, dtype=np.int64)


def as_positive_array(field: str, value, *, ndim: int | None = None) -> np.ndarray:
    """Return a float copy of ``value``; raise unless every entry is finite and > 0."""
    array = as_finite_array(field, value, ndim=ndim)
    if (array <= 0).any():
        where = tuple(int(i) for i in np.argwhere(array <= 0)[0])
        raise ValueError(f"{field}: must be > 0, found {array[where]:g}{_at(where)}")
    return array


def as_positive_scalar(field: str, value) -> float:
    """Return ``value`` as a float; raise unless it is one finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real | np.ndarray):
        raise ValueError(f"{field}: expected a positive number, got {value!r}")
    array = as_positive_array(field, value)
    if array.ndim != 0:
        raise ValueError(f"{field}: expected a scalar, got shape {array.shape}")
    return float(array)


def require_same_length(**fields: np.ndarray) -> int:
    """Raise unless all arrays have the same leading length; return it."""
    lengths = {name: len(array) for name, array in fields.items()}
    if len(set(lengths.values())) > 1:
        described = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"{' and '.join(lengths)}: must have the same length ({described})")
    return next(iter(lengths.values()))


def as_int(field: str, value, *, minimum: int | None = None, allow_none: bool = False):
    """Return ``value`` as a Python int; raise unless it is an integer >= ``minimum``.

    NumPy integers are accepted (``zoo.sample`` and ``zoo.validate`` alike); booleans,
    floats and strings are not, even when they hold a whole number.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        rule = "an integer" if minimum is None else f"an integer >= {minimum}"
        if allow_none:
            rule += " or None"
        raise ValueError(f"{field}: must be {rule}, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{field}: must be an integer >= {minimum}, got {value!r}")
    return int(value)


def as_probability(field: str, value) -> float:
    """Return ``value`` as a float; raise unless it lies strictly inside (0, 1)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise ValueError(f"{field}: must be a probability in (0, 1), got {value!r}")
    return float(value)


def as_seed(field: str, value, *, allow_none: bool = False):
    """Return ``value`` as a seed: an integer >= 0 (or None where fresh entropy is wanted)."""
    return as_int(field, value, minimum=0, allow_none=allow_none)


def check_generator(field: str, value) -> np.random.Generator:
    """Return ``value``; raise unless it is a ``numpy.random.Generator``.

    The zoo never draws from NumPy's global state: every random draw is from a
    generator the caller passes (``docs/design.md``, "Random streams").
    """
    if not isinstance(value, np.random.Generator):
        raise ValueError(f"{field}: expected a numpy.random.Generator, got {type(value).__name__}")
    return value


def require_distinct(field: str, values, rule: str = "") -> None:
    """Raise unless no value of ``values`` is named twice (``rule`` says why it matters)."""
    values = list(values)
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise ValueError(f"{field}: {repeated} named more than once{rule}")


def as_kernel(field: str, value):
    """Return ``value``; raise unless it has callable ``init``, ``step`` and ``draw``.

    The :class:`zoo.Kernel` protocol (``docs/design.md``, "Protocols"); checked before any
    sweep, so that ``kernel=42`` is a ValueError naming the field, not an AttributeError
    from inside the driver.
    """
    missing = [
        part for part in ("init", "step", "draw") if not callable(getattr(value, part, None))
    ]
    if missing:
        raise ValueError(
            f"{field}: needs callable init, step and draw (see zoo.Kernel); "
            f"{type(value).__name__} lacks {', '.join(missing)}"
        )
    return value


def _physical_memory() -> int | None:
    """Bytes of RAM of this machine, or None where the OS does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):  # not POSIX
        return None


def require_draws_fit_memory(field: str, draws: int, chains: int) -> None:
    """Raise when ``chains x draws`` float64 values of a single scalar exceed the RAM.

    A lower bound on what a run keeps (every variable has at least one value per draw),
    so a run refused here could never finish; checked before any sweep, so that
    ``--draws 10000000000`` is a message, not a MemoryError after the warm-up.
    """
    require_fits_memory(field, int(draws) * int(chains), f"{chains} chain(s) x {draws} draws")


def require_fits_memory(field: str, values: int, what: str) -> None:
    """Raise when ``values`` float64 values (``what`` they are, said) exceed the RAM."""
    memory = _physical_memory()
    needed = 8 * int(values)
    if memory is not None and needed > memory:
        raise ValueError(
            f"{field}: {what} of even one float64 need {needed / 2**30:.0f} GiB; this "
            f"machine has {memory / 2**30:.0f} GiB"
        )
