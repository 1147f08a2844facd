"""zoo.specification.conjugate_engine: the closed-form evidence of every conjugate rule.

Each rule's ``log p(y)`` (read from a PyMC graph, every normalising constant kept) is
compared with the integral of prior times likelihood computed here by
scipy.integrate.quad, with scipy.stats
densities: nothing of the engine's own formulas is reused.
"""

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
from scipy import integrate, special, stats

from zoo.specification.conjugate_engine import ConjugateRules
from zoo.specification.conjugate_graph import read_data
from zoo.specification.graph import model_parts


def log_evidence(model, outer=(), values=None):
    parts = model_parts(model)
    data, replacements = read_data(model, parts, None)
    engine = ConjugateRules(model, parts, data, replacements, outer=outer)
    return engine.condition(values or {}).log_evidence


def quad_log(density, low, high):
    value, error = integrate.quad(density, low, high, epsabs=0, epsrel=1e-11, limit=200)
    assert error < 1e-8 * value
    return np.log(value)


Y_COUNTS = np.array([2, 0, 3])
EXPOSURE = np.array([1.5, 0.5, 2.0])
Y_POSITIVE = np.array([0.7, 1.9, 0.4])
Y_REAL = np.array([0.3, -1.1, 0.8])


def _beta_binomial():
    with pm.Model() as model:
        theta = pm.Beta("theta", 2.0, 3.0)
        pm.Binomial("y", n=[5, 4, 6], p=theta, observed=Y_COUNTS)

    def density(t):
        return stats.beta(2, 3).pdf(t) * np.prod(stats.binom([5, 4, 6], t).pmf(Y_COUNTS))

    return model, density, (0, 1)


def _beta_bernoulli():
    with pm.Model() as model:
        theta = pm.Beta("theta", 0.5, 1.5)
        pm.Bernoulli("y", p=theta, observed=[1, 0, 1, 1])

    def density(t):
        return stats.beta(0.5, 1.5).pdf(t) * t**3 * (1 - t)

    return model, density, (0, 1)


def _gamma_poisson_exposure():
    with pm.Model() as model:
        lam = pm.Gamma("lam", 2.0, 1.5)
        pm.Poisson("y", lam * EXPOSURE, observed=Y_COUNTS)

    def density(x):
        return stats.gamma(2, scale=1 / 1.5).pdf(x) * np.prod(
            stats.poisson(x * EXPOSURE).pmf(Y_COUNTS)
        )

    return model, density, (0, np.inf)


def _gamma_exponential():
    with pm.Model() as model:
        lam = pm.Exponential("lam", 0.7)
        pm.Exponential("y", lam / EXPOSURE, observed=Y_POSITIVE)

    def density(x):
        return stats.expon(scale=1 / 0.7).pdf(x) * np.prod(
            stats.expon(scale=EXPOSURE / x).pdf(Y_POSITIVE)
        )

    return model, density, (0, np.inf)


def _gamma_gamma():
    with pm.Model() as model:
        lam = pm.Gamma("lam", 3.0, 2.0)
        pm.Gamma("y", alpha=2.5, beta=lam / EXPOSURE, observed=Y_POSITIVE)

    def density(x):
        return stats.gamma(3, scale=0.5).pdf(x) * np.prod(
            stats.gamma(2.5, scale=EXPOSURE / x).pdf(Y_POSITIVE)
        )

    return model, density, (0, np.inf)


def _inverse_gamma_normal():
    with pm.Model() as model:
        s2 = pm.InverseGamma("s2", 3.0, 2.0)
        pm.Normal("y", 0.2, 1.3 * pt.sqrt(s2), observed=Y_REAL)

    def density(v):
        return stats.invgamma(3, scale=2).pdf(v) * np.prod(
            stats.norm(0.2, 1.3 * np.sqrt(v)).pdf(Y_REAL)
        )

    return model, density, (0, np.inf)


def _gamma_normal_precision():
    with pm.Model() as model:
        tau = pm.Gamma("tau", 2.0, 1.0)
        pm.Normal("y", -0.1, tau=tau / 0.5, observed=Y_REAL)

    def density(t):
        return stats.gamma(2).pdf(t) * np.prod(stats.norm(-0.1, np.sqrt(0.5 / t)).pdf(Y_REAL))

    return model, density, (0, np.inf)


def _dirichlet_categorical():
    with pm.Model() as model:
        p = pm.Dirichlet("p", np.array([1.5, 0.7]))
        pm.Categorical("y", p=p, observed=[0, 1, 1, 1, 0])

    def density(q):
        return stats.beta(1.5, 0.7).pdf(q) * q**2 * (1 - q) ** 3

    return model, density, (0, 1)


def _dirichlet_multinomial():
    with pm.Model() as model:
        p = pm.Dirichlet("p", np.array([2.0, 1.0]))
        pm.Multinomial("y", n=6, p=p, observed=[[2, 4], [5, 1]])

    def density(q):
        pmf = stats.multinomial(6, [q, 1 - q]).pmf
        return stats.beta(2, 1).pdf(q) * pmf([2, 4]) * pmf([5, 1])

    return model, density, (0, 1)


@pytest.mark.parametrize(
    "builder",
    [
        _beta_binomial,
        _beta_bernoulli,
        _gamma_poisson_exposure,
        _gamma_exponential,
        _gamma_gamma,
        _inverse_gamma_normal,
        _gamma_normal_precision,
        _dirichlet_categorical,
        _dirichlet_multinomial,
    ],
)
def test_each_rule_evidence_matches_quadrature(builder):
    model, density, (low, high) = builder()
    expected = quad_log(density, low, high)
    np.testing.assert_allclose(log_evidence(model), [expected], rtol=0, atol=1e-8)


def test_held_fixed_values_enter_as_inputs_of_one_compiled_function():
    # The hyperparameter b is an input: the engine evaluates the same graph at three
    # values of it, each matching its own quadrature.
    with pm.Model() as model:
        b = pm.Gamma("b", 1.0, 1.0)
        lam = pm.Gamma("lam", 2.0, b)
        pm.Poisson("y", lam, observed=Y_COUNTS)
    rates = np.array([0.3, 1.0, 4.0])
    expected = [
        quad_log(
            lambda x, r=r: (
                stats.gamma(2, scale=1 / r).pdf(x) * np.prod(stats.poisson(x).pmf(Y_COUNTS))
            ),
            0,
            np.inf,
        )
        for r in rates
    ]
    np.testing.assert_allclose(
        log_evidence(model, outer=("b",), values={"b": rates}), expected, rtol=0, atol=1e-8
    )


def test_stacked_updates_over_latent_labels_are_the_one_at_a_time_updates():
    # w | z is Beta-Bernoulli with z absorbed: every labeling's update is one stacked
    # update (the graph's numbers do not read z); forced one at a time, the same.
    with pm.Model() as model:
        w = pm.Beta("w", 2.0, 3.0)
        mu = pm.Normal("mu", np.array([-2.0, 2.0]), 1.0)
        z = pm.Bernoulli("z", w, shape=6)
        pm.Normal("y", mu[z], 0.6, observed=np.linspace(-1.0, 1.0, 6))
    parts = model_parts(model)
    values, replacements = read_data(model, parts, None)
    engine = ConjugateRules(
        model, parts, values, replacements, outer=("z",), variables=("w",), direct=False
    )
    labels = np.random.default_rng(1).integers(0, 2, size=(40, 6))
    stacked = engine.condition({"z": labels})
    engine._shared_numbers = False  # the per-value path
    single = engine.condition({"z": labels})
    np.testing.assert_allclose(stacked.log_evidence, single.log_evidence, rtol=0, atol=1e-12)
    for key in ("a", "b"):
        np.testing.assert_allclose(
            stacked.marginals["w"].args[0 if key == "a" else 1],
            single.marginals["w"].args[0 if key == "a" else 1],
        )
    # and the closed form: log B(2 + n1, 3 + n0) - log B(2, 3)
    n1 = labels.sum(axis=1)
    expected = special.betaln(2.0 + n1, 3.0 + 6 - n1) - special.betaln(2.0, 3.0)
    np.testing.assert_allclose(stacked.log_evidence, expected, rtol=0, atol=1e-12)
