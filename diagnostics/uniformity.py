"""Uniformity of normalised ranks: simultaneous ECDF bands and a p-value per quantity.

Simulation-based calibration reduces every test quantity to ``N`` numbers that are
independent and uniform on (0, 1) when the sampler is right. The test here is the one
behind the graphical test of Säilynoja, Bürkner & Vehtari ("Graphical test for discrete
uniformity and its applications in goodness-of-fit evaluation and multiple sample
comparison", Statistics and Computing 32, 2022, sec. 2): at the evaluation points
``z_j = j / J`` the ECDF count ``N F(z_j)`` is Binomial(N, z_j) under uniformity, and the
statistic is the smallest two-sided tail probability over all ``j``,

    s = min_j min( P(Bin(N, z_j) <= N F(z_j)),  P(Bin(N, z_j) >= N F(z_j)) ).

Its null distribution is simulated once per ``(N, J)`` (seeded, so it is a constant of
the package). A quantity's p-value is the simulated probability of a statistic at most
as small as the one observed; the simultaneous band at level ``1 - alpha`` is the set of
ECDF values whose tail probabilities stay above the ``alpha`` quantile of the null
statistic at every point (the paper's adjusted pointwise level ``gamma``). The test and
the band are the same event: an ECDF leaves the band exactly when its p-value is below
``alpha`` (up to the Monte Carlo resolution of the null table).

``arviz_stats.ecdf_utils.simulate_confidence_bands`` computes the same adjusted level by
the same simulation; the test suite checks that the two agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import bdtr, bdtrik

from zoo.core.arguments import as_int, as_probability

__all__ = ["EcdfBand", "ecdf_band", "null_statistics", "tail_statistic", "uniformity_pvalue"]

# Null samples per (N, J). Holm at a 1% family-wise rate over ~50 quantities judges the
# smallest p-value against 2e-4; 100,000 samples resolve p-values down to 1e-5.
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


def uniformity_pvalue(values) -> float:
    """P-value of uniformity on (0, 1) for independent ``values`` (see module notes).

    ``(1 + #{null <= observed}) / (1 + samples)``: never zero, valid at the resolution of
    the null table.
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"values: expected a non-empty 1-d array, got shape {values.shape}")
    if np.any(~np.isfinite(values)) or np.any((values < 0) | (values > 1)):
        raise ValueError("values: must lie in [0, 1]")
    null = null_statistics(values.size)
    observed = tail_statistic(values, _grid(values.size))
    below = np.searchsorted(null, observed, side="right")
    return float((1 + below) / (1 + null.size))


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
    """The simultaneous ``1 - alpha`` band for the ECDF of ``n_values`` uniform values."""
    as_probability("alpha", alpha)
    null = null_statistics(n_values)
    gamma = float(np.quantile(null, alpha))
    grid = _grid(n_values)
    # Counts whose lower and upper tail probabilities are both above gamma: from the
    # gamma-quantile of the binomial up to its (1 - gamma)-quantile.
    lower = np.ceil(bdtrik(gamma, n_values, grid)) / n_values
    upper = np.ceil(bdtrik(1.0 - gamma, n_values, grid)) / n_values
    return EcdfBand(grid, lower, np.minimum(upper, 1.0), 1.0 - alpha, 1.0 - 2.0 * gamma, n_values)
