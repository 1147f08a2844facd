"""zoo.specification.gaussian_engine: the linear-Gaussian posterior as an inner engine.

Its evidence ``log p(y | outer)`` is compared with integrals computed here by
scipy.integrate (quad, and a double integral for the normal-inverse-gamma) and with the
closed form of a Gaussian marginal, with scipy.stats densities (the normal's written out
where quad calls it 10^5 times, and checked against scipy.stats): nothing of the engine's
own formulas is reused. The normal-Normal and normal-inverse-gamma evidence the pairwise
rules had on the exact-outer branch is this engine's (one implementation of each idea).
"""

import math

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from scipy import integrate, stats

from zoo.specification.gaussian_engine import LinearGaussianEngine

Y_REAL = np.array([0.3, -1.1, 0.8])


def test_normal_normal_evidence_matches_quadrature():
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.5, 2.0)
        pm.Normal("y", 1.5 * mu, 0.8, observed=Y_REAL)

    def density(m):
        return stats.norm(0.5, 2.0).pdf(m) * np.prod(stats.norm(1.5 * m, 0.8).pdf(Y_REAL))

    value, error = integrate.quad(density, -np.inf, np.inf, epsabs=0, epsrel=1e-11)
    assert error < 1e-8 * value
    found = LinearGaussianEngine(model, None).condition({}).log_evidence
    np.testing.assert_allclose(found, [np.log(value)], rtol=0, atol=1e-8)


def test_normal_inverse_gamma_evidence_matches_a_double_integral():
    with pm.Model() as model:
        s2 = pm.InverseGamma("s2", 2.5, 1.5)
        mu = pm.Normal("mu", 0.4, 2.0 * pt.sqrt(s2))
        pm.Normal("y", mu, 0.7 * pt.sqrt(s2), observed=Y_REAL)

    def over_mean(v):
        # the mean's conditional sd is below sqrt(v): +-40 sqrt(v) about 0.4 holds it all
        half = 40.0 * np.sqrt(v)
        # The normal densities by their textbook formula: scipy.stats' per-call overhead
        # made this integral 20 s of the test run (quad evaluates it some 10^5 times).
        log_prior_v = stats.invgamma(2.5, scale=1.5).logpdf(v)

        def density(m):
            return np.exp(
                log_prior_v
                + _normal_logpdf(m, 0.4, 2 * np.sqrt(v))
                + sum(_normal_logpdf(y, m, 0.7 * np.sqrt(v)) for y in Y_REAL)
            )

        return integrate.quad(density, 0.4 - half, 0.4 + half, epsrel=1e-10)[0]

    value, _ = integrate.quad(over_mean, 0, 200, points=[0.5, 2.0], epsrel=1e-9, limit=200)
    engine = LinearGaussianEngine(model, None)
    assert set(engine.inner) == {"mu", "s2"}
    conditional = engine.condition({})
    np.testing.assert_allclose(conditional.log_evidence, [np.log(value)], rtol=0, atol=1e-6)
    # s2's conditional is its inverse gamma, as a scipy distribution the mixture stacks
    assert conditional.marginals["s2"].dist.name == "invgamma"


def _normal_logpdf(x: float, mean: float, sd: float) -> float:
    """log N(x | mean, sd^2), written out (checked against scipy.stats below)."""
    return -0.5 * ((x - mean) / sd) ** 2 - math.log(sd) - 0.5 * math.log(2 * math.pi)


def test_the_written_out_normal_density_is_scipys():
    for x, mean, sd in [(0.3, -1.0, 0.2), (4.0, 0.4, 3.5), (-2.0, 0.0, 1e-3)]:
        assert math.isclose(
            _normal_logpdf(x, mean, sd), stats.norm.logpdf(x, mean, sd), rel_tol=1e-13
        )


def test_evidence_stays_exact_when_a_hierarchical_scale_nears_zero():
    # theta ~ Normal(mu, tau), y ~ Normal(theta, s), mu ~ Normal(0, 5): y | tau is
    # Normal(0, 25 11' + diag(s^2 + tau^2)). At tau = 1e-15 the prior rows of theta are
    # 1e15 beside the data's 0.1: W'W loses the data's share; QR of the sorted rows not.
    y, s = np.array([28.0, 8.0, -3.0]), np.array([15.0, 10.0, 16.0])
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 5.0)
        tau = pm.HalfNormal("tau", 5.0)
        theta = pm.Normal("theta", mu, tau, shape=3)
        pm.Normal("y", theta, s, observed=y)
    taus = np.array([1e-15, 1e-9, 1e-6, 3.0])
    engine = LinearGaussianEngine(model, None, outer=("tau",))
    conditional = engine.condition({"tau": taus})
    expected = [
        stats.multivariate_normal(np.zeros(3), 25.0 + np.diag(s**2 + t**2)).logpdf(y) for t in taus
    ]
    np.testing.assert_allclose(conditional.log_evidence, expected, rtol=0, atol=1e-9)
    # mu | tau, y: precision 1/25 + sum 1/(s^2 + tau^2)
    precision = 1 / 25 + np.sum(1 / (s[None] ** 2 + taus[:, None] ** 2), axis=1)
    mean = np.sum(y / (s[None] ** 2 + taus[:, None] ** 2), axis=1) / precision
    np.testing.assert_allclose(conditional.marginals["mu"].mean(), mean, rtol=1e-9)
    np.testing.assert_allclose(conditional.marginals["mu"].std(), precision**-0.5, rtol=1e-9)
