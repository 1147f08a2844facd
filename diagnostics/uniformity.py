"""Uniformity of normalised ranks: simultaneous ECDF bands and a p-value per quantity.

Simulation-based calibration reduces every test quantity to ``N`` numbers that are
independent and uniform on (0, 1) when the sampler is right. The test here is the one
behind the graphical test of Säilynoja, Bürkner & Vehtari ("Graphical test for discrete
uniformity and its applications in goodness-of-fit evaluation and multiple sample
comparison", Statistics and Computing 32, 2022, sec. 2): at the evaluation points
``z_j = j / J`` the ECDF count ``N F(z_j)`` is Binomial(N, z_j) under uniformity, and the
statistic is the smallest two-sided tail probability over all ``j``,

    s = min_j min( P(Bin(N, z_j) <= N F(z_j)),  P(Bin(N, z_j) >= N F(z_j)) ).

A quantity's p-value is ``P(S <= s)`` under uniformity, computed exactly
(:func:`exceedance_probability`): ``S <= s`` is the event that the count path leaves the
set of counts whose tail probabilities all exceed ``s``, and the counts at increasing
points form a Markov chain with binomial increments (given ``c_j`` values at or below
``z_j``, each of the other ``N - c_j`` is below ``z_{j+1}`` with probability
``(z_{j+1} - z_j) / (1 - z_j)``; Shorack & Wellner, "Empirical Processes with
Applications to Statistics", 1986, ch. 9), so the probability of leaving is a forward
recursion over the ``J`` points. The statistic is discrete (a function of the counts),
and the p-value counts the observed atom in full: ``P(p <= a) <= a`` at every ``a``.

The p-value used to be read from a simulated null table of 100,000 statistics per ``N``
(:func:`null_statistics`, kept as the check of the recursion). Its far tail rests on a
few table entries: at ``N = 100`` the measured size of ``p <= 1e-4`` was 1.4e-4 and that
of SBC's Holm decision at 0.2% over 17 quantities 0.25%
(``bench/results/sbc_false_alarms/``); the recursion has no such error.

The simultaneous band at level ``1 - alpha`` is the set of ECDF values whose tail
probabilities stay above ``gamma``, the largest value of the statistic with
``P(S <= gamma) <= alpha`` (the paper's adjusted pointwise level). The test and the band
are the same event: an ECDF leaves the band exactly when its p-value is at most ``alpha``.

``arviz_stats.ecdf_utils.simulate_confidence_bands`` estimates the same adjusted level by
simulation; the test suite checks that the two agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import bdtr, bdtrc, gammaln, xlog1py, xlogy

from zoo.core.arguments import as_int, as_probability

__all__ = [
    "EcdfBand",
    "critical_value",
    "ecdf_band",
    "exceedance_probability",
    "null_statistics",
    "statistic_atoms",
    "tail_statistic",
    "uniformity_pvalue",
]

# Null samples per N of the simulated table (the recursion's cross-check).
_NULL_SAMPLES = 100_000
_NULL_SEED = 20220001
_CHUNK = 2_000


def _grid(n_values: int) -> np.ndarray:
    # ArviZ's choice (ecdf_pit): one point per possible ECDF step, at most 100 points,
    # which keeps the band smooth and the null table small for large N.
    points = min(n_values, 100)
    return np.arange(1, points) / points


def tail_statistic(values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The smallest two-sided binomial tail probability of the ECDF over ``grid``.

    Parameters
    ----------
    values : ndarray, shape (..., N)
        Samples in [0, 1], one set per leading index.
    grid : ndarray, shape (J,)
        Evaluation points in (0, 1).

    Returns
    -------
    ndarray, shape (...)
    """
    values = np.asarray(values, dtype=float)
    n = values.shape[-1]
    flat = values.reshape(-1, n)
    counts = np.empty((flat.shape[0], grid.size), dtype=np.int64)
    for j, point in enumerate(grid):
        counts[:, j] = np.count_nonzero(flat <= point, axis=1)
    return _minimum_tail(counts, n, grid).reshape(values.shape[:-1])


def _minimum_tail(counts: np.ndarray, n: int, grid: np.ndarray) -> np.ndarray:
    lower, upper = _tail_tables(n, tuple(grid))
    columns = np.arange(grid.size)
    return np.minimum(lower[columns, counts], upper[columns, counts]).min(axis=1)


@lru_cache(maxsize=32)
def _tail_tables(n: int, grid: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``P(Bin(n, z_j) <= c)`` and ``P(Bin(n, z_j) >= c)`` for every point and count."""
    points = np.asarray(grid)[:, np.newaxis]
    count = np.arange(n + 1)[np.newaxis, :]
    lower = bdtr(count, n, points)
    # P(Bin >= 0) = 1; bdtr(-1, ...) is NaN, not 0.
    upper = np.where(count > 0, 1.0 - bdtr(np.maximum(count - 1, 0), n, points), 1.0)
    return lower, upper


def statistic_atoms(n_values: int) -> np.ndarray:
    """Every value :func:`tail_statistic` can take for ``n_values`` values, sorted."""
    n = as_int("n_values", n_values, minimum=1)
    lower, upper = _tail_tables(n, tuple(_grid(n)))
    return np.unique(np.minimum(lower, upper))


def critical_value(n_values: int, alpha: float, atoms: np.ndarray) -> float:
    """The largest of ``atoms`` whose exceedance probability is at most ``alpha`` (0 if none).

    ``P(S <= t)`` grows with ``t``, so a bisection over the sorted ``atoms`` finds it;
    the test's exact size at ``alpha`` is then ``exceedance_probability`` of it.
    """
    low, high = -1, atoms.size
    while high - low > 1:
        middle = (low + high) // 2
        if exceedance_probability(n_values, float(atoms[middle])) <= alpha:
            low = middle
        else:
            high = middle
    return float(atoms[low]) if low >= 0 else 0.0


@lru_cache(maxsize=32)
def null_statistics(n_values: int) -> np.ndarray:
    """Sorted null distribution of :func:`tail_statistic` for ``n_values`` uniform values."""
    as_int("n_values", n_values, minimum=1)
    rng = np.random.default_rng([_NULL_SEED, n_values])
    grid = _grid(n_values)
    points = grid.size + 1
    out = np.empty(_NULL_SAMPLES)
    for start in range(0, _NULL_SAMPLES, _CHUNK):
        rows = min(start + _CHUNK, _NULL_SAMPLES) - start
        # The ECDF counts at j / points from a histogram over the grid's cells: O(N) per
        # sample instead of O(N J) comparisons (ties with grid points have probability 0).
        cell = np.minimum((rng.random((rows, n_values)) * points).astype(np.int64), points - 1)
        offset = cell + points * np.arange(rows)[:, np.newaxis]
        histogram = np.bincount(offset.ravel(), minlength=rows * points).reshape(rows, points)
        counts = np.cumsum(histogram[:, :-1], axis=1)
        out[start : start + rows] = _minimum_tail(counts, n_values, grid)
    out.sort()
    out.flags.writeable = False
    return out


# Two values of the statistic closer than this (relative) are one atom: the tail tables
# give the same probability at mirrored points (z, c) and (1 - z, N - c) up to rounding.
_SAME_ATOM = 1e-9


def _staying_counts(n: int, grid: np.ndarray, threshold: float):
    """Per point, the counts whose tail probabilities both exceed ``threshold``.

    An interval ``lo[j]..hi[j]`` (empty when ``lo > hi``): the lower tail increases with
    the count and the upper tail decreases.
    """
    lower, upper = _tail_tables(n, tuple(grid))
    inside = np.minimum(lower, upper) > threshold * (1.0 + _SAME_ATOM)
    some = inside.any(axis=1)
    lo = np.where(some, inside.argmax(axis=1), n + 1)
    hi = np.where(some, n - inside[:, ::-1].argmax(axis=1), -1)
    return lo, hi


def _log_binomial_pmf(k: np.ndarray, trials: np.ndarray, q: float) -> np.ndarray:
    """``log P(Bin(trials, q) = k)`` by lgamma; ``-inf`` outside ``0..trials``."""
    k, trials = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(trials, dtype=float))
    valid = (k >= 0) & (k <= trials)
    kk, nn = np.where(valid, k, 0.0), np.where(valid, trials, 0.0)
    log_pmf = (
        gammaln(nn + 1)
        - gammaln(kk + 1)
        - gammaln(nn - kk + 1)
        + xlogy(kk, q)
        + xlog1py(nn - kk, -q)
    )
    return np.where(valid, log_pmf, -np.inf)


def _binomial_outside(lo: np.ndarray, hi: np.ndarray, trials: np.ndarray, q: float) -> np.ndarray:
    """``P(Bin(trials, q) < lo) + P(Bin(trials, q) > hi)``, elementwise."""
    # scipy's bdtr is NaN below 0 and bdtrc at or above the number of trials.
    below = np.where(lo > 0, bdtr(np.maximum(lo - 1, 0), trials, q), 0.0)
    above = np.where(hi < 0, 1.0, np.where(hi < trials, bdtrc(np.maximum(hi, 0), trials, q), 0.0))
    return below + above


@lru_cache(maxsize=65_536)
def exceedance_probability(n_values: int, threshold: float) -> float:
    """``P(S <= threshold)`` for the statistic ``S`` of ``n_values`` uniform values, exactly.

    The forward recursion of the module notes: ``mass[c]`` is the probability that the
    ECDF count path stayed inside the allowed counts up to point ``j`` and has count
    ``c`` there; the probability of leaving at ``j + 1`` is accumulated term by term
    (no ``1 - P(stay)`` cancellation), so p-values far below 1e-10 keep their digits.
    Cost: ``J`` products of matrices of at most ``(N + 1)^2``.
    """
    n = as_int("n_values", n_values, minimum=1)
    grid = _grid(n)
    if grid.size == 0:
        return 1.0
    lo, hi = _staying_counts(n, grid, threshold)
    if np.any(lo > hi):
        return 1.0
    counts = np.arange(n + 1)
    previous, mass = 0.0, np.zeros(n + 1)
    mass[0] = 1.0
    left = 0.0
    for j, point in enumerate(grid):
        q = (point - previous) / (1.0 - previous)
        source = np.flatnonzero(mass)
        trials = n - counts[source]
        left += float(
            mass[source]
            @ _binomial_outside(lo[j] - counts[source], hi[j] - counts[source], trials, q)
        )
        targets = np.arange(lo[j], hi[j] + 1)
        step = np.exp(
            _log_binomial_pmf(targets - counts[source][:, np.newaxis], trials[:, np.newaxis], q)
        )
        stayed = np.zeros(n + 1)
        stayed[targets] = mass[source] @ step
        mass, previous = stayed, point
    return left


def uniformity_pvalue(values) -> float:
    """P-value of uniformity on (0, 1) for independent ``values`` (see module notes).

    ``P(S <= s)`` for the observed statistic ``s``, exact
    (:func:`exceedance_probability`): ``P(p <= a) <= a`` at every ``a``.
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"values: expected a non-empty 1-d array, got shape {values.shape}")
    if np.any(~np.isfinite(values)) or np.any((values < 0) | (values > 1)):
        raise ValueError("values: must lie in [0, 1]")
    grid = _grid(values.size)
    if grid.size == 0:
        return 1.0
    observed = float(tail_statistic(values, grid))
    return exceedance_probability(values.size, observed)


@dataclass(frozen=True)
class EcdfBand:
    """A simultaneous ECDF band for N uniform values.

    Attributes
    ----------
    grid : ndarray, shape (J,)
        Evaluation points ``z_j``.
    lower, upper : ndarray, shape (J,)
        The band for the ECDF at ``grid``; plot ``lower - grid`` and ``upper - grid`` for
        the ECDF-difference view.
    level : float
        Simultaneous coverage ``1 - alpha``.
    pointwise_level : float
        The adjusted pointwise level ``1 - 2 gamma`` that makes the band simultaneous.
    n_values : int
    """

    grid: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    level: float
    pointwise_level: float
    n_values: int


def ecdf_band(n_values: int, alpha: float) -> EcdfBand:
    """The simultaneous ``1 - alpha`` band for the ECDF of ``n_values`` uniform values.

    ``gamma`` is the largest value of the statistic with ``P(S <= gamma) <= alpha``
    (bisection over the statistic's values, each probability exact), and the band holds
    the counts whose tail probabilities both exceed it: an ECDF leaves the band exactly
    when :func:`uniformity_pvalue` is at most ``alpha``.
    """
    as_probability("alpha", alpha)
    n = as_int("n_values", n_values, minimum=1)
    grid = _grid(n)
    gamma = critical_value(n, alpha, statistic_atoms(n))
    lo, hi = _staying_counts(n, grid, gamma)
    return EcdfBand(grid, lo / n, np.minimum(hi / n, 1.0), 1.0 - alpha, 1.0 - 2.0 * gamma, n)
