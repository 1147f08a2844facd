"""Fixed hyperparameters: the closed form, checked by algebra, quadrature and the seeds."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from zoo.models.beta_binomial import Data, Prior, posterior

counts = st.integers(min_value=0, max_value=60)
positive = st.floats(min_value=0.05, max_value=50, allow_nan=False)


def test_seed_pseudo_counts_one_boy_four_girls():
    # Seed 004, 5.3.3.4: 1 boy, 4 girls, pseudo-counts 5 and 5 -> 0.4 and 0.6.
    boys = posterior(Data([1], [5]), Prior(a=5, b=5))
    assert boys["theta"].mean[0] == pytest.approx(0.4, abs=1e-15)
    girls = posterior(Data([4], [5]), Prior(a=5, b=5))
    assert girls["theta"].mean[0] == pytest.approx(0.6, abs=1e-15)
    assert 1 / 5 == pytest.approx(0.2)  # the MLE it shrinks from


def test_seed_order_statistic_is_beta_7_4():
    # Seed 004, 5.3.3.1-3: the 7th smallest of 10 uniforms has density Beta(7, 4).
    x = np.linspace(0.01, 0.99, 50)
    claimed = math.factorial(10) / (math.factorial(6) * math.factorial(3)) * x**6 * (1 - x) ** 3
    np.testing.assert_allclose(stats.beta(7, 4).pdf(x), claimed, rtol=1e-12)
    draws = np.sort(np.random.default_rng(0).uniform(size=(20000, 10)), axis=1)[:, 6]
    assert stats.kstest(draws, stats.beta(7, 4).cdf).pvalue > 1e-3


@settings(max_examples=60, deadline=None)
@given(a=positive, b=positive, y1=counts, extra1=counts, y2=counts, extra2=counts)
def test_sequential_updating_equals_batch(a, b, y1, extra1, y2, extra2):
    n1, n2 = y1 + extra1, y2 + extra2
    first = posterior(Data([y1], [n1]), Prior(a=a, b=b))
    second = posterior(Data([y2], [n2]), Prior(a=first.alpha[0], b=first.beta[0]))
    batch = posterior(Data([y1 + y2], [n1 + n2]), Prior(a=a, b=b))
    np.testing.assert_allclose([second.alpha[0], second.beta[0]], [batch.alpha[0], batch.beta[0]])
    # and the evidence factorises: p(y1, y2) = p(y1) p(y2 | y1), up to the binomial
    # coefficients, which differ between one batch of n1 + n2 and two of n1, n2.
    log_choose = (
        special.gammaln(n1 + 1)
        - special.gammaln(y1 + 1)
        - special.gammaln(extra1 + 1)
        + special.gammaln(n2 + 1)
        - special.gammaln(y2 + 1)
        - special.gammaln(extra2 + 1)
        - special.gammaln(n1 + n2 + 1)
        + special.gammaln(y1 + y2 + 1)
        + special.gammaln(extra1 + extra2 + 1)
    )
    assert first.log_marginal_likelihood + second.log_marginal_likelihood == pytest.approx(
        batch.log_marginal_likelihood + log_choose, rel=1e-10, abs=1e-9
    )


@settings(max_examples=100, deadline=None)
@given(a=positive, b=positive, y=counts, extra=st.integers(min_value=0, max_value=60))
def test_posterior_mean_between_prior_mean_and_mle(a, b, y, extra):
    n = y + extra
    if n == 0:
        return
    mean = posterior(Data([y], [n]), Prior(a=a, b=b))["theta"].mean[0]
    prior_mean, mle = a / (a + b), y / n
    assert min(prior_mean, mle) - 1e-12 <= mean <= max(prior_mean, mle) + 1e-12


def test_marginal_likelihood_matches_numerical_integration():
    data, prior = Data([3, 0, 7], [10, 4, 9]), Prior(a=2.5, b=1.5)
    exact = posterior(data, prior).log_marginal_likelihood
    total = 0.0
    for y, n in zip(data.successes, data.trials, strict=True):
        value, _ = integrate.quad(
            lambda t, y=y, n=n: stats.binom.pmf(y, n, t) * stats.beta.pdf(t, 2.5, 1.5),
            0,
            1,
            epsabs=1e-14,
        )
        total += math.log(value)
    assert exact == pytest.approx(total, rel=1e-9)


def test_predictive_is_beta_binomial_with_posterior_parameters():
    reference = posterior(Data([3, 12], [10, 20]), Prior(a=1.0, b=1.0))
    predictive = reference.predictive([5, 5])
    support = np.arange(6)[:, None]
    np.testing.assert_allclose(predictive.pmf(support).sum(axis=0), 1.0)
    np.testing.assert_allclose(predictive.mean(), 5 * reference["theta"].mean)
    # p(y_new = 5 | y) = E[theta^5] under the Beta posterior
    alpha, beta = reference.alpha, reference.beta
    np.testing.assert_allclose(
        predictive.pmf([5, 5]),
        np.exp(special.betaln(alpha + 5, beta) - special.betaln(alpha, beta)),
    )
