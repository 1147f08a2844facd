"""scikit-learn API of Bayesian GDA, and its agreement with LDA as the prior weakens."""

import numpy as np
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.utils.estimator_checks import parametrize_with_checks

from zoo.models import gda
from zoo.models.gda.estimator import BayesianGDAClassifier


@parametrize_with_checks([BayesianGDAClassifier()])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def weak_prior(d):
    # The limit kappa0 -> 0, Psi0 -> 0, nu0 -> d - 1, alpha -> 0, approached to 1e-9.
    return gda.Prior(
        alpha=1e-9, kappa0=1e-9, nu0=d - 1 + 1e-9, psi0=1e-9 * np.eye(d), m0=np.zeros(d)
    )


@pytest.mark.parametrize("points", [100, 1000, 10000])
def test_weak_prior_limit_is_lda(points):
    """Posterior means and predictive tend to LDA's estimates, at rate O(1/N).

    With kappa0, Psi0, alpha ~ 0 and nu0 ~ d - 1: E[mu_k] = xbar_k exactly;
    E[Sigma] = W / (N - 2) with W the pooled scatter, and LDA's covariance_ is W / N (class
    covariances with the n divisor, weighted by class frequency), so (N - 2) / N E[Sigma]
    must match it; E[pi_k] = n_k / N = LDA's priors_. The predictive differs from LDA's
    plug-in Gaussian by the t densities' extra spread, of relative order d / N and
    (1 + Mahalanobis^2) / n_k: we ask |p - p_LDA| <= 2 / n_min, a tolerance that shrinks
    with the data (seen: 0.038, 0.0033, 0.00033 at N = 100, 1000, 10000), and the moments
    to 1e-6 relative (the 1e-9 prior's own effect).
    """
    rng = np.random.default_rng(points)
    d = 3
    means = np.array([[0.0, 0.0, 0.0], [1.5, 0.5, -0.5], [0.0, 2.0, 1.0]])
    cov = np.array([[1.0, 0.3, 0.0], [0.3, 1.0, -0.2], [0.0, -0.2, 0.5]])
    y = rng.choice(3, size=points, p=[0.3, 0.3, 0.4])
    x = means[y] + rng.standard_normal((points, d)) @ np.linalg.cholesky(cov).T
    lda = LinearDiscriminantAnalysis(solver="lsqr", store_covariance=True).fit(x, y)
    post = gda.posterior(gda.Data(x, y), weak_prior(d))
    assert np.allclose(post["mu"].mean, lda.means_, rtol=1e-6, atol=1e-8)
    assert np.allclose((points - 2) / points * post["Sigma"].mean, lda.covariance_, rtol=1e-6)
    assert np.allclose(post["pi"].mean, lda.priors_, rtol=1e-6)
    test_points = means[rng.choice(3, size=200)] + rng.standard_normal((200, d))
    gap = np.abs(post.predict_proba(test_points) - lda.predict_proba(test_points)).max()
    n_min = np.bincount(y).min()
    assert gap <= 2.0 / n_min, (gap, 2.0 / n_min)


def test_estimator_matches_posterior_predictive():
    from sklearn.datasets import load_wine

    wine = load_wine()
    x, y = wine.data[:, [0, 6, 9]], wine.target
    estimator = BayesianGDAClassifier().fit(x, wine.target_names[y])
    exact = gda.posterior(gda.Data(x, y), gda.Prior())
    assert np.allclose(estimator.predict_proba(x), exact.predict_proba(x))
    assert (estimator.predict(x) == wine.target_names[y]).mean() > 0.85
