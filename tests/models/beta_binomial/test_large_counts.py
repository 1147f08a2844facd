"""Hierarchical Beta-Binomial at large trial counts: the likelihood's stated error bound,
its cost independent of the counts, and the kernel against the exact reference at 1e9.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

import zoo
from zoo.models.beta_binomial import Data, Prior
from zoo.models.beta_binomial.marginal_likelihood import (
    EXACT_FACTORS,
    error_scale,
    likelihood_terms,
    log_likelihood,
)

SPEC = zoo.get("beta-binomial")
EPS = np.finfo(float).eps
# The module's bound: every addend of the Stirling form carries a few roundings (at most
# four relative errors of eps each) and the correctly rounded reference sum below adds
# half an ulp per logarithm, both within the terms' magnitude `error_scale`; 8 eps per
# unit of it covers both with room, and is far below what a real error gives (the
# betaln form's cancellation exceeds it by orders of magnitude, twin below).
BOUND = 8 * EPS


def rising_factorial_sum(a, b, successes, trials):
    """``sum_j log (a)_y + log (b)_f - log (a + b)_n`` as a correctly rounded sum of logs."""
    parts = []
    for y, n in zip(successes, trials, strict=True):
        parts.append(np.log(a + np.arange(y)))
        parts.append(np.log(b + np.arange(n - y)))
        parts.append(-np.log(a + b + np.arange(n)))
    return math.fsum(np.concatenate(parts))


# Counts on both sides of the split at K0 = 16 and up to where the plain sum is cheap.
count = st.one_of(
    st.integers(0, 40),
    st.sampled_from([EXACT_FACTORS - 1, EXACT_FACTORS, EXACT_FACTORS + 1]),
    st.integers(0, 5000),
)
# Hyperparameters from 1e-3 to 1e12: small pseudo-counts and a + b where betaln cancels.
log_hyper = st.floats(math.log(1e-3), math.log(1e12))


@settings(max_examples=40, deadline=None)
@given(
    counts=st.lists(st.tuples(count, count), min_size=1, max_size=5),
    log_a=log_hyper,
    log_b=log_hyper,
    shift=st.tuples(st.floats(-1.0, 1.0), st.floats(-1.0, 1.0)),
)
def test_log_likelihood_and_its_differences_match_the_rising_factorial_sum(
    counts, log_a, log_b, shift
):
    y = np.array([c[0] for c in counts])
    n = y + np.array([c[1] for c in counts])
    terms = likelihood_terms(y, n)
    first = (math.exp(log_a), math.exp(log_b))
    second = (math.exp(log_a + shift[0]), math.exp(log_b + shift[1]))
    values, exact, scales = [], [], []
    for a, b in (first, second):
        values.append(log_likelihood(a, b, terms))
        exact.append(rising_factorial_sum(a, b, y, n))
        scales.append(error_scale(a, b, y, n))
        assert abs(values[-1] - exact[-1]) <= BOUND * scales[-1]
    # What the quadrature and the slice sampler use: the difference between two points,
    # whose error is the relative error of the likelihood ratio.
    difference_error = abs((values[0] - values[1]) - (exact[0] - exact[1]))
    assert difference_error <= BOUND * (scales[0] + scales[1])


def test_betaln_differences_break_the_bound():
    # Twin of the test above: the textbook form, betaln(a + y, b + f) - betaln(a, b),
    # cancels at large a + b, and the bound sees it.
    y, n = np.array([120, 700]), np.array([1000, 4000])
    a, b = 3e9, 7e9
    textbook = np.sum(special.betaln(a + y, b + n - y) - special.betaln(a, b))
    exact = rising_factorial_sum(a, b, y, n)
    assert abs(textbook - exact) > 1e3 * BOUND * error_scale(a, b, y, n)
    assert abs(log_likelihood(a, b, likelihood_terms(y, n)) - exact) <= BOUND * error_scale(
        a, b, y, n
    )


@pytest.mark.parametrize("scale", [1e3, 1e6, 1e9, 2.0**52])
def test_one_more_trial_adds_one_factor_at_every_scale(scale):
    # Where the plain sum is too long to compute, the recurrence (x)_(k+1) = (x)_k (x + k)
    # checks the same function: one more success adds log(a + y) - log(a + b + n).
    n = np.array([scale, 0.8 * scale, 1.2 * scale, 40]).astype(np.int64)
    y = (n // 10).astype(np.int64)
    more_y = y.copy()
    more_y[0] += 1
    more_n = n.copy()
    more_n[0] += 1
    for a, b in [(0.01, 0.2), (3.0, 27.0), (2e5, 1.8e6), (1e11, 9e11)]:
        step = log_likelihood(a, b, likelihood_terms(more_y, more_n)) - log_likelihood(
            a, b, likelihood_terms(y, n)
        )
        factor = math.log((a + y[0]) / (a + b + n[0]))
        tolerance = BOUND * (error_scale(a, b, y, n) + error_scale(a, b, more_y, more_n))
        assert abs(step - factor) <= tolerance, (a, b)


def test_likelihood_terms_do_not_grow_with_the_counts():
    small = likelihood_terms(np.array([3, 50, 7]), np.array([20, 400, 9]))
    huge = likelihood_terms(np.array([3, 5 * 10**14, 7]), np.array([20, 4 * 10**15, 9]))
    assert [np.shape(t) for t in small] == [np.shape(t) for t in huge]
    assert all(np.size(t) <= EXACT_FACTORS for t in huge)
    # Groups sharing their counts share one row: rows are distinct (y, n) with n > K0.
    repeated = likelihood_terms(np.array([30, 30, 30, 2]), np.array([100, 100, 100, 5]))
    assert repeated.large_trials.tolist() == [100.0]
    assert repeated.large_groups.tolist() == [3.0]


# --- the kernel against the exact reference at up to a billion trials ---------------------


def _scale_problems():
    """20 groups with n_j log-uniform in [1e6, 1e9]: spread rates, and one shared rate."""
    rng = np.random.default_rng(20260503)
    trials = np.round(10.0 ** rng.uniform(6.0, 9.0, 20)).astype(np.int64)
    spread = Data(rng.binomial(trials, rng.beta(10.0, 90.0, 20)), trials)
    shared = Data(rng.binomial(trials, 0.1), trials)
    return [("ab-tests-spread", spread, Prior()), ("ab-tests-shared", shared, Prior())]


@pytest.mark.slow
@pytest.mark.parametrize(("fault", "verdict"), [(None, "pass"), ("jacobian-omitted", "fail")])
def test_gibbs_against_the_exact_reference_at_a_billion_trials(fault, verdict):
    # The exact check at its 1% family-wise rate, on data whose likelihood tables would
    # have held 3e9 numbers: the correct kernel passes, its twin (the Jacobian of
    # (a, b) -> (log(a / b), log(a + b)) left out of the slice target) fails.
    result = zoo.validate(
        SPEC, fault=fault, checks=("exact",), problems=_scale_problems(), workers=0, seed=11
    )
    assert result.verdict == verdict, str(result)
