"""The references have converged, their CDFs and quantiles invert each other, and eight
schools' quadrature agrees with posteriordb's Stan draws."""

import numpy as np
import pytest

from examples import (
    eight_schools,
    linear_regression,
    probit_regression,
    pump_failures,
    semi_conjugate_normal,
)
from tests.examples import references
from tests.examples.conftest import REFERENCES
from tests.specification.posteriordb import models as posteriordb

IDS = [
    "pump_failures",
    "semi_conjugate_normal",
    "probit_regression",
    "eight_schools_centred",
    "eight_schools_noncentred",
    "regression_independent",
]


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
    e = eight_schools
    for centred in (True, False):
        yield (
            lambda points, centred=centred: references.eight_schools(
                e.EFFECTS,
                e.STANDARD_ERRORS,
                mu_sd=e.MU_SD,
                tau_scale=e.TAU_SCALE,
                centred=centred,
                points=points,
            ),
            1401,
        )
    r = linear_regression
    yield (
        lambda points: references.regression_independent(
            r.Y_VALUES, r.design(), s0=r.S0, a=r.A, b=r.B, points=points
        ),
        1201,
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


@pytest.mark.parametrize("name", list(REFERENCES))
def test_cdf_inverts_the_quantiles_and_the_mean_lies_inside(name):
    reference = REFERENCES[name]()
    for marginal in reference.marginals.values():
        for q in (0.05, 0.5, 0.95):
            at = marginal.cdf(marginal.ppf(q)[None])[0]
            if marginal.discrete:  # the least value whose CDF reaches q
                assert np.all(at >= q - 1e-12)
                assert np.all(marginal.cdf(marginal.ppf(q)[None] - 0.5)[0] < q)
            else:
                np.testing.assert_allclose(at, q, atol=1e-6)
        assert np.all(marginal.ppf(0.05) <= marginal.mean)
        assert np.all(marginal.mean <= marginal.ppf(0.95))
        if marginal.kurtosis is not None:
            assert np.all(marginal.kurtosis > 1)


def test_eight_schools_quadrature_agrees_with_posteriordbs_stan_draws():
    # The same model and data as posteriordb's eight_schools_noncentered (mu ~ N(0, 5),
    # tau ~ HalfCauchy(5)): an outside check of the quadrature, within 5 Monte Carlo
    # standard errors of its 10,000 Stan draws (30 moments: a false alarm ~2e-5).
    e = eight_schools
    centred = references.eight_schools(
        e.EFFECTS, e.STANDARD_ERRORS, mu_sd=e.MU_SD, tau_scale=e.TAU_SCALE, centred=True
    )
    record = posteriordb.record("eight_schools-eight_schools_noncentered")
    assert record["data"]["y"] == list(e.EFFECTS) and record["data"]["sigma"] == list(
        e.STANDARD_ERRORS
    )
    for parameter, summary in record["reference"].items():
        variable, index = posteriordb.pymc_name(parameter)
        where = () if index is None else index
        marginal = centred[variable]
        z_mean = (np.asarray(marginal.mean)[where] - summary["mean"]) / summary["mcse_mean"]
        z_sd = (np.asarray(marginal.sd)[where] - summary["sd"]) / summary["mcse_sd"]
        assert abs(z_mean) < 5 and abs(z_sd) < 5, (parameter, z_mean, z_sd)
