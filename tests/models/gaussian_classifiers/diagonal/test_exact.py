"""Gaussian naive Bayes's exact posterior: inverse-gamma and t marginals, the loan table."""

import numpy as np
import pytest
from scipy import stats

import zoo
from tests.support.gaussian_problems import small_problem
from tests.support.seed_tables import LOAN
from zoo.models.gaussian_classifiers import Data
from zoo.models.gaussian_classifiers.diagonal import DiagonalPrior


def test_naive_bayes_marginals_are_inverse_gamma_and_t():
    data, prior = small_problem("gaussian-nb", d=3)
    exact = zoo.get("gaussian-nb").posterior(data, prior)
    c = exact.components
    variance = stats.invgamma(c.nu[0][:, None] / 2, scale=c.psi[0] / 2)
    np.testing.assert_allclose(exact["variance"].mean, variance.mean())
    np.testing.assert_allclose(exact["variance"].ppf(0.3), variance.ppf(0.3), rtol=1e-8)
    mu = stats.t(
        c.nu[0][:, None], c.mean[0], np.sqrt(c.psi[0] / (c.kappa[0][:, None] * c.nu[0][:, None]))
    )
    np.testing.assert_allclose(exact["mu"].sd, mu.std())


def test_loan_table_is_naive_bayes_in_its_plug_in_limit():
    """The loan table of the Bayes-decision-theory notes (section 3.1), by the model.

    In the weak-prior limit (kappa0, psi0, alpha -> 0, nu0 -> 0) the Bayesian Gaussian
    naive Bayes has E[mu_kj] = the class means, E[variance_kj] = S_kj / (n_k - 2), so
    (n_k - 2) / n_k E[variance] is the seed's n-divisor variance, and E[pi_k] = n_k / N.
    Plugged into normal densities they give the seed's scores. As in the GDA tests, the
    income sd of loan = 1 is 2756.81, not the claimed 2576.81 (transposed digits): the
    claimed score 2.1479e-6 follows from the typo, the right one is 2.0842e-6. Both the
    plug-in and the full Bayesian predictive (default prior) grant the loan.
    """
    x, y = LOAN[:, :2], LOAN[:, 2].astype(int)
    weak = DiagonalPrior(alpha=1e-9, kappa0=1e-9, nu0=1e-9, psi0=[1e-9, 1e-9], m0=x.mean(0))
    spec = zoo.get("gaussian-nb")
    exact = spec.posterior(Data(x, y), weak)
    means, pi = exact["mu"].mean, exact["pi"].mean
    sds = np.sqrt(exact["variance"].mean * 3 / 5)  # n_k = 5 in both classes
    np.testing.assert_allclose(means, [[21.4, 5900], [29.8, 10500]], rtol=1e-8)
    np.testing.assert_allclose(sds, [[2.42, 734.85], [8.38, 2756.81]], atol=0.01)
    np.testing.assert_allclose(pi, [0.5, 0.5], rtol=1e-8)
    scores = pi * np.prod(stats.norm(means, sds).pdf([24.0, 8500.0]), axis=1)
    assert scores[0] == pytest.approx(4.8079e-8, rel=2e-3)  # the seed rounded its sds
    assert scores[1] == pytest.approx(2.0842e-6, rel=1e-4)
    typo = 0.5 * stats.norm(29.8, 8.38).pdf(24) * stats.norm(10500, 2576.81).pdf(8500)
    assert typo == pytest.approx(2.1479e-6, rel=2e-3)
    assert np.argmax(scores) == 1
    predictive = spec.posterior(Data(x, y), DiagonalPrior()).predict_proba([[24.0, 8500.0]])
    assert predictive[0, 1] > 0.5
