"""The quadrature references have converged, and their CDFs and quantiles invert each other."""

import numpy as np
import pytest

from examples import probit_regression, pump_failures, semi_conjugate_normal
from tests.examples import references

IDS = ["pump_failures", "semi_conjugate_normal", "probit_regression"]


def _pairs():
    m, n, p = pump_failures, semi_conjugate_normal, probit_regression
    yield (
        lambda points: references.pumps(
            m.FAILURES,
            m.EXPOSURE,
            alpha=m.ALPHA,
            shape=m.BETA_SHAPE,
            rate=m.BETA_RATE,
            points=points,
        ),
        801,
    )
    yield (
        lambda points: references.semi_conjugate_normal(
            n.WING_LENGTHS, m0=n.M0, s0=n.S0, a=n.A, b=n.B, points=points
        ),
        2001,
    )
    yield (
        lambda points: references.probit(p.DAMAGE, p.design(), prior_sd=p.PRIOR_SD, points=points),
        801,
    )


@pytest.mark.parametrize(("build", "points"), list(_pairs()), ids=IDS)
def test_halving_the_grid_changes_nothing_that_matters(build, points):
    fine, coarse = build(points), build(points // 2 + 1)
    for name, marginal in fine.marginals.items():
        other = coarse[name]
        # far below any MCSE the tests can reach (posterior sd / sqrt(ESS) ~ 1e-2 sd)
        np.testing.assert_allclose(other.mean, marginal.mean, atol=1e-5 * marginal.sd.max())
        np.testing.assert_allclose(other.sd, marginal.sd, rtol=1e-5)
        for q in (0.05, 0.5, 0.95):
            assert np.all(np.abs(other.ppf(q) - marginal.ppf(q)) < 1e-4 * marginal.sd), q


@pytest.mark.parametrize(("build", "points"), list(_pairs()), ids=IDS)
def test_cdf_inverts_the_quantiles_and_the_mean_lies_inside(build, points):
    reference = build(points)
    for marginal in reference.marginals.values():
        for q in (0.05, 0.5, 0.95):
            np.testing.assert_allclose(marginal.cdf(marginal.ppf(q)[None])[0], q, atol=1e-6)
        assert np.all(marginal.ppf(0.05) < marginal.mean)
        assert np.all(marginal.mean < marginal.ppf(0.95))
        assert np.all(marginal.kurtosis > 1)
