"""Quantiles of exact references where double precision runs out (zoo.core.reference)."""

import numpy as np
import pytest
from scipy import stats

from zoo.core.reference import Marginal, interior_quantile, quantile_by_bisection


@pytest.mark.parametrize("scale", ["log", "logit"])
def test_bisection_in_log_space_resolves_tiny_quantiles(scale):
    # Beta(0.05, 20): the 5% quantile is about 1e-27, far below any absolute tolerance.
    frozen = stats.beta(np.array([0.05, 2.0]), np.array([20.0, 3.0]))
    found = quantile_by_bisection(
        lambda x: frozen.cdf(x), 0.05, np.zeros(2), np.ones(2), scale=scale
    )
    np.testing.assert_allclose(found, frozen.ppf(0.05), rtol=1e-9)
    assert found[0] < 1e-20


def test_linear_bisection_cannot_resolve_them():
    # The defect it replaces: an absolute tolerance stops near 1e-12, where the CDF is 0.26.
    frozen = stats.beta(0.05, 20.0)
    found = quantile_by_bisection(lambda x: frozen.cdf(x), 0.05, np.zeros(1), np.ones(1))
    assert frozen.cdf(found)[0] > 0.1


def test_a_quantile_beyond_double_precision_is_nan():
    # Beta(1e-3, 10): about half the mass lies below the smallest normal double.
    frozen = stats.beta(np.array([1e-3, 2.0]), np.array([10.0, 3.0]))
    by_bisection = quantile_by_bisection(
        lambda x: frozen.cdf(x), 0.05, np.zeros(2), np.ones(2), scale="logit"
    )
    assert np.isnan(by_bisection[0]) and np.isfinite(by_bisection[1])
    from_scipy = interior_quantile(frozen, 0.05)
    assert np.isnan(from_scipy[0]) and np.isclose(from_scipy[1], frozen.ppf(0.05)[1])
    assert np.isnan(Marginal.from_scipy(frozen, ("group",)).ppf(0.05)[0])


def test_unbounded_supports_keep_their_quantiles():
    frozen = stats.norm(np.zeros(3), np.ones(3))
    np.testing.assert_allclose(interior_quantile(frozen, 0.05), frozen.ppf(0.05))
    gamma = stats.gamma(np.array([0.01, 5.0]))
    np.testing.assert_allclose(interior_quantile(gamma, 0.95), gamma.ppf(0.95))
