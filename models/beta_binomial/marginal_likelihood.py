"""The Beta-Binomial likelihood of ``(a, b)`` with every ``theta_j`` integrated out.

``p(y | a, b) ∝ prod_j B(a + y_j, b + f_j) / B(a, b)`` with ``f_j = n_j - y_j``
(BDA3 eq. 5.8). Written as ``betaln(a + y, b + f) - betaln(a, b)`` it cancels
catastrophically when ``a + b`` is large (both terms are about ``-(a + b) log(a + b)``),
and under the BDA3 hyperprior the posterior has a heavy tail in ``a + b``. For integer
counts the ratio is a ratio of rising factorials,

    B(a + y, b + f) / B(a, b) = (a)_y (b)_f / (a + b)_n,   (x)_k = x (x + 1) ... (x + k - 1),

and each ``log (x)_k`` is split at ``K0 = 16`` (:data:`EXACT_FACTORS`):

    log (x)_k = sum_{i < min(k, K0)} log(x + i)  +  [k > K0] D(x + K0, k - K0),
    D(z, m) = log Gamma(z + m) - log Gamma(z).

The first part, summed over groups, is ``sum_{i < K0} T_i log(x + i)`` with ``T_i`` the
number of groups whose count exceeds ``i``: exact logarithms, ``O(K0)`` work whatever
the number of groups. The second part uses Stirling's series (DLMF 5.11.1,
``log Gamma(z) = (z - 1/2) log z - z + log(2 pi) / 2 + S(z)``) at ``z >= K0``, written so
that nothing large cancels:

    D(z, m) = (z - 1/2) log1p(m / z) + m log(z + m) - m + S(z + m) - S(z).

Six terms of ``S`` (through ``z^-11``) leave a remainder below the first neglected
term, ``1 / (156 z^13) < 1.4e-18`` at ``z >= 16`` (DLMF 5.11(ii): for real ``z > 0``
the remainder is bounded by the first neglected term and has its sign). The three
``D`` of one group are then summed together: with ``N = a + b + n`` the
``m log(z + m)`` terms become ``m_y log((a + y) / N) + m_f log((b + f) / N)`` plus
``e (log N - 1)``, where ``e = m_y + m_f - m_n`` (each ``m`` only where its count exceeds
``K0``) is an integer with ``|e| <= K0``, so the ``O(n log n)`` terms of the three
factorials cancel exactly instead of in floating point.

Cost: ``O(K0 + G)`` per evaluation, with ``G`` the number of distinct ``(y_j, n_j)``
among groups with ``n_j > K0``; memory ``O(J)``. Neither depends on the size of the
counts. Accuracy (tested against the plain sum of logarithms, correctly rounded):
the error of ``log p(y | a, b)`` is a few units of ``eps = 2.2e-16`` times the
magnitude of the terms summed, at most
``sum_j [2 n_j + m_y |log((a + y_j) / N_j)| + m_f |log((b + f_j) / N_j)|] +
3 K0 J max(|log a|, |log b|, log(a + b + K0))`` (:func:`error_scale`). The plain sum
of logarithms has the larger scale ``sum_j [log (a)_y + log (b)_f + log (a + b)_n]``,
about ``n log(a + b + n)`` per group, and costs ``O(max n_j)``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

__all__ = [
    "EXACT_FACTORS",
    "LikelihoodTerms",
    "error_scale",
    "likelihood_terms",
    "log_likelihood",
    "log_likelihood_grid",
]

#: Factors ``log(x + i)``, ``i < K0``, of each rising factorial summed exactly; the rest
#: of a longer factorial goes through Stirling's series at ``z >= K0``.
EXACT_FACTORS = 16


class LikelihoodTerms(NamedTuple):
    """What :func:`log_likelihood` needs of a data set, of size ``O(K0 + J)``.

    ``head_*[i]`` is the number of groups whose count exceeds ``i``, for
    ``i < min(K0, largest count)`` (successes, failures, trials). ``large_*`` are the
    distinct ``(y, f, n)`` among groups with ``n > K0`` and ``large_groups`` how many
    groups share each. All float64 (counts up to ``2^53`` are exact).
    """

    head_successes: np.ndarray
    head_failures: np.ndarray
    head_trials: np.ndarray
    large_successes: np.ndarray
    large_failures: np.ndarray
    large_trials: np.ndarray
    large_groups: np.ndarray


def likelihood_terms(successes: np.ndarray, trials: np.ndarray) -> LikelihoodTerms:
    """The :class:`LikelihoodTerms` of ``successes`` out of ``trials`` (integer arrays)."""
    successes = np.asarray(successes, dtype=np.int64)
    trials = np.asarray(trials, dtype=np.int64)
    failures = trials - successes
    large = trials > EXACT_FACTORS
    if large.any():
        pairs, groups = np.unique(
            np.stack([successes[large], trials[large]], axis=1), axis=0, return_counts=True
        )
        pairs = pairs.reshape(-1, 2)
    else:
        # No factorial longer than K0. Spelled out because ``np.unique`` of an empty
        # array cost more than the rest of this function: Geweke's test builds the terms
        # of a new small data set at every one of its 40,000 steps.
        pairs, groups = np.empty((0, 2), dtype=np.int64), np.empty(0, dtype=np.int64)
    return LikelihoodTerms(
        head_successes=_head_counts(successes),
        head_failures=_head_counts(failures),
        head_trials=_head_counts(trials),
        large_successes=pairs[:, 0].astype(np.float64),
        large_failures=(pairs[:, 1] - pairs[:, 0]).astype(np.float64),
        large_trials=pairs[:, 1].astype(np.float64),
        large_groups=groups.astype(np.float64),
    )


def _head_counts(counts: np.ndarray) -> np.ndarray:
    # T_i = number of groups with count > i, for i < min(K0, largest count): all groups
    # but those with count <= i, from one histogram.
    length = min(EXACT_FACTORS, int(counts.max()) if counts.size else 0)
    at_most = np.cumsum(np.bincount(np.minimum(counts, length), minlength=length + 1))
    return (counts.size - at_most[:length]).astype(np.float64)


@numba.njit(cache=True)
def _stirling_series(z):
    """``S(z) = log Gamma(z) - (z - 1/2) log z + z - log(2 pi) / 2`` for ``z >= 16``.

    DLMF 5.11.1: ``S(z) ~ sum_k B_2k / (2k (2k - 1) z^(2k - 1))``, six terms (Bernoulli
    numbers 1/6, -1/30, 1/42, -1/30, 5/66, -691/2730), Horner in ``1 / z^2``.
    """
    r = 1.0 / (z * z)
    series = -691.0 / 360360.0
    series = 1.0 / 1188.0 + r * series
    series = -1.0 / 1680.0 + r * series
    series = 1.0 / 1260.0 + r * series
    series = -1.0 / 360.0 + r * series
    series = 1.0 / 12.0 + r * series
    return series / z


@numba.njit(cache=True)
def _long_factorials(a, b, y, f, n):
    """``[log (a)_y + log (b)_f - log (a + b)_n]`` minus the head factors, for ``n > K0``.

    Each factorial longer than ``K0`` contributes ``D(x + K0, k - K0)`` (module
    docstring); the three are summed with their ``m log(z + m)`` terms taken relative
    to ``log(a + b + n)`` so that the large parts cancel in integers.
    """
    k0 = float(EXACT_FACTORS)
    c = a + b
    total_n = c + n
    value = 0.0
    excess = 0.0  # m_y + m_f - m_n over the factorials longer than K0: |excess| <= K0
    if y > k0:
        m, z = y - k0, a + k0
        value += (z - 0.5) * math.log1p(m / z) + m * math.log((a + y) / total_n)
        value += _stirling_series(a + y) - _stirling_series(z)
        excess += m
    if f > k0:
        m, z = f - k0, b + k0
        value += (z - 0.5) * math.log1p(m / z) + m * math.log((b + f) / total_n)
        value += _stirling_series(b + f) - _stirling_series(z)
        excess += m
    m, z = n - k0, c + k0
    value -= (z - 0.5) * math.log1p(m / z) + _stirling_series(total_n) - _stirling_series(z)
    excess -= m
    return value + excess * (math.log(total_n) - 1.0)


@numba.njit(cache=True)
def log_likelihood(a, b, terms):
    """``log prod_j B(a + y_j, b + f_j) / B(a, b)`` for one ``(a, b)``.

    Parameters
    ----------
    a, b : float
        Positive hyperparameters; ``-inf`` is returned if ``a + b`` overflows.
    terms : LikelihoodTerms
        From :func:`likelihood_terms` of the data set.
    """
    if not math.isfinite(a + b):
        return -math.inf
    total = 0.0
    for i in range(terms.head_successes.shape[0]):
        total += terms.head_successes[i] * math.log(a + i)
    for i in range(terms.head_failures.shape[0]):
        total += terms.head_failures[i] * math.log(b + i)
    for i in range(terms.head_trials.shape[0]):
        total -= terms.head_trials[i] * math.log(a + b + i)
    for g in range(terms.large_trials.shape[0]):
        total += terms.large_groups[g] * _long_factorials(
            a, b, terms.large_successes[g], terms.large_failures[g], terms.large_trials[g]
        )
    return total


@numba.njit(cache=True)
def log_likelihood_grid(a, b, terms):
    """:func:`log_likelihood` at every pair ``(a[k], b[k])`` of two equal-shape arrays."""
    flat_a, flat_b = a.ravel(), b.ravel()
    out = np.empty(flat_a.shape[0])
    for k in range(flat_a.shape[0]):
        if math.isfinite(flat_a[k]) and math.isfinite(flat_b[k]):
            out[k] = log_likelihood(flat_a[k], flat_b[k], terms)
        else:
            out[k] = -math.inf
    return out.reshape(a.shape)


def error_scale(a: float, b: float, successes, trials) -> float:
    """Magnitude of the terms :func:`log_likelihood` sums at ``(a, b)``.

    The rounding error of :func:`log_likelihood` is a small multiple of ``eps`` times
    this number (module docstring); a bound on the Stirling remainder adds
    ``1.4e-18`` per factorial.
    """
    y = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    f = n - y
    total_n = a + b + n
    k0 = float(EXACT_FACTORS)
    m_y = np.maximum(y - k0, 0.0)
    m_f = np.maximum(f - k0, 0.0)
    long_part = np.where(
        n > k0,
        2.0 * n
        + m_y * np.abs(np.log((a + y) / total_n))
        + m_f * np.abs(np.log((b + f) / total_n))
        + k0 * (np.log(total_n) + 1.0),
        0.0,
    )
    head = 3.0 * k0 * max(abs(math.log(a)), abs(math.log(b)), math.log(a + b + k0))
    return float(np.sum(long_part) + y.size * head)
