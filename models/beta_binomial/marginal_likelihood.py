"""The Beta-Binomial likelihood of ``(a, b)`` with every ``theta_j`` integrated out.

``p(y | a, b) ∝ prod_j B(a + y_j, b + f_j) / B(a, b)`` with ``f_j = n_j - y_j``
(BDA3 eq. 5.8). Written as ``betaln(a + y, b + f) - betaln(a, b)`` it cancels
catastrophically when ``a + b`` is large (both terms are about ``-(a + b) log(a + b)``),
and under the BDA3 hyperprior the posterior has a heavy tail in ``a + b``. For integer
counts the ratio is a ratio of rising factorials,

    B(a + y, b + f) / B(a, b) = (a)_y (b)_f / (a + b)_n,   (x)_k = x (x + 1) ... (x + k - 1),

so ``log p(y | a, b) = sum_i T^y_i log(a + i) + T^f_i log(b + i) - T^n_i log(a + b + i)``
where ``T^y_i`` counts the groups with ``y_j > i``. Every term is a plain logarithm:
no cancellation at any scale, and ``O(max n_j)`` work per evaluation, independent of J.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["LikelihoodTables", "log_likelihood", "log_likelihood_grid"]


class LikelihoodTables:
    """Tail counts ``T_i = #{j: count_j > i}`` of successes, failures and trials."""

    def __init__(self, successes: np.ndarray, trials: np.ndarray):
        self.successes = _tail_counts(successes)
        self.failures = _tail_counts(trials - successes)
        self.trials = _tail_counts(trials)


def _tail_counts(counts: np.ndarray) -> np.ndarray:
    largest = int(counts.max()) if counts.size else 0
    histogram = np.bincount(counts, minlength=largest + 1)
    # T_i = number of groups with count > i, for i = 0 .. largest - 1
    return (counts.size - np.cumsum(histogram))[:largest].astype(np.float64)


@numba.njit(cache=True)
def log_likelihood(a, b, tail_successes, tail_failures, tail_trials):
    """``log prod_j B(a + y_j, b + f_j) / B(a, b)`` for one ``(a, b)``."""
    total = 0.0
    for i in range(tail_successes.shape[0]):
        total += tail_successes[i] * math.log(a + i)
    for i in range(tail_failures.shape[0]):
        total += tail_failures[i] * math.log(b + i)
    for i in range(tail_trials.shape[0]):
        total -= tail_trials[i] * math.log(a + b + i)
    return total


@numba.njit(cache=True)
def log_likelihood_grid(a, b, tail_successes, tail_failures, tail_trials):
    """:func:`log_likelihood` at every pair ``(a[k], b[k])`` of two equal-shape arrays."""
    flat_a, flat_b = a.ravel(), b.ravel()
    out = np.empty(flat_a.shape[0])
    for k in range(flat_a.shape[0]):
        if math.isfinite(flat_a[k]) and math.isfinite(flat_b[k]):
            out[k] = log_likelihood(
                flat_a[k], flat_b[k], tail_successes, tail_failures, tail_trials
            )
        else:
            out[k] = -math.inf
    return out.reshape(a.shape)
