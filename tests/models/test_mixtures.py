"""Mixture marginals: one builder for Beta, t and inverse-gamma mixtures."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from zoo.core.reference import TabulatedCDF
from zoo.models.mixtures import mixture_marginal


@pytest.mark.parametrize("per_element", [False, True])
def test_beta_mixture_marginal_matches_the_mixture(per_element):
    rng = np.random.default_rng(1)
    a = rng.uniform(0.3, 5.0, size=(4, 3))
    b = rng.uniform(0.3, 5.0, size=(4, 3))
    weights = rng.dirichlet(np.ones(4), size=3).T if per_element else rng.dirichlet(np.ones(4))
    marginal = mixture_marginal(("x",), weights, stats.beta(a, b), scale="logit")
    w = weights if per_element else weights[:, None]
    x = np.array([[0.1, 0.5, 0.9], [0.3, 0.01, 0.99]])
    brute = np.stack([np.sum(w * stats.beta.cdf(row, a, b), axis=0) for row in x])
    np.testing.assert_allclose(marginal.cdf(x), brute, atol=1e-12)
    mean = np.sum(w * a / (a + b), axis=0)
    np.testing.assert_allclose(marginal.mean, mean, rtol=1e-12)
    median = marginal.ppf(0.5)
    np.testing.assert_allclose(marginal.cdf(median[None])[0], 0.5, atol=1e-9)


def test_large_mixtures_get_a_table_accurate_far_below_ks_resolution():
    rng = np.random.default_rng(2)
    a = rng.uniform(0.5, 30.0, size=(3000, 4))
    b = rng.uniform(0.5, 30.0, size=(3000, 4))
    weights = rng.dirichlet(np.ones(3000))
    marginal = mixture_marginal(("x",), weights, stats.beta(a, b), scale="logit")
    x = rng.uniform(size=(50, 4))
    # Components with a < 1 (an infinite density at 0) are the hardest case; KS on n
    # draws resolves about 1 / sqrt(n), 0.01 at best for the zoo's draw counts.
    np.testing.assert_allclose(marginal.cdf(x), marginal.cdf.exact(x), atol=1e-4)


def test_single_component_is_scipy_itself():
    frozen = stats.t(5.0, loc=np.array([[1.0, -2.0]]), scale=np.array([[0.5, 2.0]]))
    marginal = mixture_marginal(("k",), np.ones(1), frozen)
    np.testing.assert_allclose(marginal.mean, [1.0, -2.0])
    np.testing.assert_allclose(marginal.sd, np.sqrt(5.0 / 3.0) * np.array([0.5, 2.0]))
    np.testing.assert_allclose(marginal.ppf(0.9), frozen.ppf(0.9)[0])


def test_moments_that_do_not_exist_are_nan():
    frozen = stats.t(np.array([[1.5], [1.5]]), loc=[[0.0], [1.0]])
    marginal = mixture_marginal(("k",), np.array([0.5, 0.5]), frozen)
    assert np.isnan(marginal.sd).all() and np.isfinite(marginal.mean).all()


@pytest.mark.parametrize("components", [2, 3000], ids=["exact-cdf", "tabulated-cdf"])
def test_tiny_quantiles_of_a_beta_mixture_are_resolved(components):
    # A Naive Bayes posterior with pseudo-counts of 0.05: each component's 5% quantile
    # is near 1e-27. The bisection once stopped at about 1e-12, where the CDF is 0.26.
    rng = np.random.default_rng(0)
    weights = rng.dirichlet(np.ones(components))
    a = 0.05 + rng.integers(0, 2, size=(components, 1)) * 0.0
    b = 5.0 + rng.integers(0, 3, size=(components, 1)).astype(float)
    marginal = mixture_marginal(("x",), weights, stats.beta(a, b), scale="logit")
    for prob in (0.05, 0.95):
        quantile = marginal.ppf(prob)
        assert np.isfinite(quantile).all()
        np.testing.assert_allclose(marginal.cdf(quantile[np.newaxis])[0], prob, rtol=1e-6)
    assert marginal.ppf(0.05)[0] < 1e-20


def test_repeated_components_are_merged_without_moving_the_cdf():
    # An enumeration repeats components (a weight's Beta depends on the counts only):
    # the merged mixture is the same distribution, and its normal CDF (scipy.special
    # directly) is scipy.stats' own.
    rng = np.random.default_rng(5)
    loc = rng.normal(size=(40, 2))
    scale = rng.uniform(0.2, 2.0, size=(40, 2))
    index = rng.integers(0, 40, size=9000)
    weights = rng.dirichlet(np.ones(9000))
    merged = mixture_marginal(("k",), weights, stats.norm(loc[index], scale[index]))
    x = rng.normal(scale=2.0, size=(30, 2))
    expected = np.sum(
        weights[None, :, None] * stats.norm(loc[index], scale[index]).cdf(x[:, None]), axis=1
    )
    # 40 distinct components: small enough for the exact CDF (18,000 terms are tabulated)
    assert not hasattr(merged.cdf, "exact")
    np.testing.assert_allclose(merged.cdf(x), expected, rtol=0, atol=1e-12)


def test_a_large_normal_mixture_table_meets_its_hermite_bound_with_fewer_nodes():
    # 9,000 components on 2 elements: beyond the exact-CDF limit, so tabulated; scales
    # from 0.1 to 1 as a mixture posterior's means given each labelling.
    rng = np.random.default_rng(3)
    loc = rng.normal(0.0, 1.0, size=(9000, 2))
    scale = rng.uniform(0.1, 1.0, size=(9000, 2))
    weights = rng.dirichlet(np.ones(9000))
    marginal = mixture_marginal(("x",), weights, stats.norm(loc, scale), with_cdf=True)
    table = marginal.cdf
    assert 65 <= table.points < 1025
    # strictly inside the table: the interpolation alone, against its bound of 1e-7
    x = np.stack(
        [np.linspace(lo, hi, 3001)[1:-1] for lo, hi in zip(table.lower, table.upper, strict=True)],
        1,
    )
    error = np.max(np.abs(table(x) - table.exact(x)))
    assert error <= 1e-7
    # the bound is what sets the nodes: a table of a quarter of them errs beyond it
    coarse = TabulatedCDF(
        table.exact,
        lambda v: np.sum(
            weights[:, None, None] * stats.norm.pdf(v[None], loc[:, None], scale[:, None]), axis=0
        ),
        table.lower,
        table.upper,
        points=(table.points - 1) // 4 + 1,
    )
    assert np.max(np.abs(coarse(x) - table.exact(x))) > 1e-7


def test_a_table_of_components_whose_scipy_pdf_overflows_is_built():
    # scipy's beta pdf raises OverflowError (Boost's policy) near x = 0 for a small a
    # and a large b, where the density itself is finite (Beta(0.11, 6700) at the
    # smallest normal float: exp(630)); a simulated beta-binomial data set with many
    # zero counts put such components in the posterior of theta and the exact
    # reference raised.
    tiny = np.finfo(float).tiny
    with pytest.raises(OverflowError):
        stats.beta.pdf(tiny, 0.11, 6700.0)
    rng = np.random.default_rng(3)
    # Hyperparameters spread over orders of magnitude, as a hierarchical posterior's
    # grid puts them (a from 1e-3 to 1e10): the table reaches down to the smallest float.
    a = 10.0 ** rng.uniform(-3.0, 5.0, size=(3000, 4))
    b = a * 10.0 ** rng.uniform(0.5, 1.5, size=(3000, 4)) + 13.0
    weights = rng.dirichlet(np.ones(3000))
    marginal = mixture_marginal(("x",), weights, stats.beta(a, b), scale="logit")
    x = np.repeat(np.array([[1e-300], [1e-12], [1e-5], [1e-2]]), 4, axis=1)
    # Components this narrow (b up to 3e4) strain the table more than the test above;
    # a tenth of the best KS resolution (0.01) is what the reference must meet.
    np.testing.assert_allclose(marginal.cdf(x), marginal.cdf.exact(x), atol=1e-3)
