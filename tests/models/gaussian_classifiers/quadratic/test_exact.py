"""QDA's exact posterior: its marginals are scipy's inverse-Wishart, multivariate t and Beta."""

import numpy as np
from scipy import stats

import zoo
from tests.support.gaussian_problems import small_problem


def test_qda_marginals_are_scipy_distributions():
    """Sigma_k: inverse-Wishart moments per class; mu_k: multivariate t; pi: Beta."""
    data, prior = small_problem("qda", d=3)
    exact = zoo.get("qda").posterior(data, prior)
    c = exact.components
    for k in range(2):
        iw = stats.invwishart(c.nu[0, k], c.psi[0, k])
        np.testing.assert_allclose(exact["Sigma"].mean[k], iw.mean())
        np.testing.assert_allclose(exact["Sigma"].sd[k], np.sqrt(iw.var()))
        df = c.df[0, k]
        shape = c.psi[0, k] / (c.kappa[0, k] * df)
        # A multivariate t's covariance is its shape times df / (df - 2).
        np.testing.assert_allclose(exact["mu"].sd[k], np.sqrt(np.diag(shape) * df / (df - 2)))
    # Diagonal quantiles: Sigma_k,jj ~ InvGamma((nu_k - d + 1) / 2, Psi_k,jj / 2).
    draws = stats.invwishart(c.nu[0, 1], c.psi[0, 1]).rvs(100_000, random_state=3)
    q = exact["Sigma"].ppf(0.9)
    np.testing.assert_allclose(
        np.diag(q[1]), np.quantile(draws, 0.9, axis=0).diagonal(), rtol=0.02
    )
