"""The closed form and the enumerated reference of Bayesian GDA, against independent routes."""

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from tests.support.seed_tables import LOAN
from zoo.models.gaussian_classifiers import linear
from zoo.models.gaussian_classifiers.linear import Data, Prior
from zoo.models.gaussian_classifiers.linear.posterior import log_marginal_likelihood, niw_posterior


def small_problem(seed=0, points=12, unlabelled=2, d=2):
    rng = np.random.default_rng(seed)
    y = np.arange(points) % 2
    x = np.array([[0.0] * d, [2.0] + [1.0] * (d - 1)])[y] + rng.standard_normal((points, d))
    y = y.copy()
    y[:unlabelled] = -1
    return Data(x, y), Prior(psi0=np.eye(d), m0=np.zeros(d), kappa0=0.5, nu0=d + 1.5)


def test_scatter_form_stays_positive_definite():
    """Psi_N from the scatter matrices survives a huge offset; outer products do not."""
    rng = np.random.default_rng(1)
    x = 1e8 + 1e-3 * rng.standard_normal((40, 2))
    y = np.arange(40) % 2
    prior = Prior(psi0=1e-8 * np.eye(2), m0=np.full(2, 1e8), kappa0=1.0, nu0=3.0)
    hyper = prior.resolve(Data(x, y))
    psi = niw_posterior(x, y, hyper).psi[0]
    # Reference: the same formula on centred data (exact in exact arithmetic).
    centred = niw_posterior(x - 1e8, y, hyper._replace(m0=np.zeros(2))).psi[0]
    assert np.allclose(psi, centred, rtol=1e-6)
    assert np.all(np.linalg.eigvalsh(psi) > 0)
    # The difference-of-outer-products form: Psi0 + sum x x^T + sum_k (k0 m0 m0^T - k_k m_k m_k^T).
    naive = hyper.psi0 + x.T @ x
    for k in range(2):
        n_k = (y == k).sum()
        kappa = hyper.kappa0 + n_k
        m_k = (hyper.kappa0 * hyper.m0 + x[y == k].sum(0)) / kappa
        naive = naive + hyper.kappa0 * np.outer(hyper.m0, hyper.m0) - kappa * np.outer(m_k, m_k)
    assert not np.allclose(naive, centred, rtol=1e-2)


@pytest.mark.parametrize("last", [5, 8, 12])
def test_marginal_likelihood_chain_rule(last):
    """log p(D) = log p(D without the last point) + log p(x_N, y_N | rest), the predictive."""
    data, prior = small_problem(points=last, unlabelled=0)
    hyper = prior.resolve(data)
    full = log_marginal_likelihood(data.x, data.labels, hyper)
    rest = Data(data.x[:-1], data.labels[:-1], classes=data.classes)
    post = linear.posterior(rest, prior)
    predictive = post._log_joint(data.x[-1:])[0, data.labels[-1]]
    assert full == pytest.approx(log_marginal_likelihood(rest.x, rest.labels, hyper) + predictive)


def test_marginal_likelihood_one_point_d1():
    """One point, d = 1: p(x, y) = E[pi_y] times the Student-t prior predictive."""
    prior = Prior(psi0=[[2.0]], m0=[1.0], kappa0=0.5, nu0=3.0, alpha=[1.0, 3.0])
    hyper = prior.resolve(Data([[0.3], [0.0]], [1, 0]))
    df = hyper.nu0
    scale = np.sqrt(2.0 * (0.5 + 1) / (0.5 * df))
    expected = np.log(3.0 / 4.0) + stats.t(df, 1.0, scale).logpdf(0.3)
    assert log_marginal_likelihood(np.array([[0.3]]), np.array([1]), hyper) == pytest.approx(
        expected
    )


def test_enumerated_class_probability_is_the_predictive():
    """One unlabelled point: P(y_u = k | D) is the closed-form predictive given the rest."""
    data, prior = small_problem(unlabelled=1)
    exact = linear.posterior(data, prior)
    rest = Data(data.x[1:], data.labels[1:], classes=data.classes)
    predictive = linear.posterior(rest, prior).predict_proba(data.x[:1])
    assert np.allclose(exact.class_probability_exact, predictive)


def test_enumeration_weights_and_evidence():
    data, prior = small_problem(unlabelled=3)
    exact = linear.posterior(data, prior)
    hyper = exact.hyper
    log_joint = []
    for code in range(8):
        labels = data.labels.copy()
        labels[:3] = [(code >> 2) & 1, (code >> 1) & 1, code & 1]
        log_joint.append(log_marginal_likelihood(data.x, labels, hyper))
    assert exact.log_marginal_likelihood == pytest.approx(logsumexp(log_joint))
    assert np.allclose(exact.class_probability_exact.sum(axis=1), 1.0)


def test_fully_labelled_marginals_are_scipy_distributions():
    """mu_k: Student t; Sigma: inverse-Wishart moments (scipy.stats.invwishart); pi: Beta."""
    data, prior = small_problem(unlabelled=0, d=3)
    exact = linear.posterior(data, prior)
    c = exact.components
    iw = stats.invwishart(c.nu, c.psi[0])
    assert np.allclose(exact["Sigma"].mean, iw.mean())
    assert np.allclose(exact["Sigma"].sd, np.sqrt(iw.var()))
    # Diagonal quantiles: Sigma_jj ~ InvGamma((nu - d + 1) / 2, Psi_jj / 2); by simulation.
    draws = iw.rvs(200_000, random_state=np.random.default_rng(2))
    q = exact["Sigma"].ppf(0.9)
    assert np.allclose(np.diag(q), np.quantile(draws, 0.9, axis=0).diagonal(), rtol=0.01)
    df = c.nu - 3 + 1
    mvt = stats.multivariate_t(c.mean[0, 1], c.psi[0] / (c.kappa[0, 1] * df), df=df)
    sample = mvt.rvs(200_000, random_state=np.random.default_rng(3))
    assert np.allclose(exact["mu"].sd[1], sample.std(axis=0), rtol=0.01)
    a = prior.resolve(data).alpha + c.counts[0]
    assert np.allclose(exact["pi"].mean, a / a.sum())


def gaussian_naive_bayes_scores(x, y, new):
    """The seed's Gaussian naive Bayes: per-class, per-feature normal with n-divisor sds."""
    scores = []
    for k in np.unique(y):
        rows = x[y == k]
        prior = rows.shape[0] / x.shape[0]
        scores.append(prior * np.prod(stats.norm(rows.mean(0), rows.std(0)).pdf(new)))
    return np.array(scores)


def test_loan_table_seed_numbers():
    """The loan table of the Bayes-decision-theory notes (section 3.1), above.

    The means, priors and age sds are right. The income sd of loan = 1 is 2756.81, not the
    claimed 2576.81 (transposed digits), so the claimed score 2.1479e-6 for loan = 1 follows
    from the typo; the correct score is 2.0842e-6. The decision (grant) is the same.
    """
    x, y = LOAN[:, :2], LOAN[:, 2].astype(int)
    means = [x[y == k].mean(0) for k in (0, 1)]
    sds = [x[y == k].std(0) for k in (0, 1)]
    assert np.allclose(means, [[21.4, 5900], [29.8, 10500]])
    assert np.allclose(sds, [[2.42, 734.85], [8.38, 2756.81]], atol=0.01)
    assert not np.isclose(sds[1][1], 2576.81, atol=1.0)
    scores = gaussian_naive_bayes_scores(x, y, np.array([24.0, 8500.0]))
    assert scores[0] == pytest.approx(4.8079e-8, rel=2e-3)  # the seed rounded its sds
    assert scores[1] == pytest.approx(2.0842e-6, rel=1e-4)
    typo = 0.5 * stats.norm(29.8, 8.38).pdf(24) * stats.norm(10500, 2576.81).pdf(8500)
    assert typo == pytest.approx(2.1479e-6, rel=2e-3)
    assert np.argmax(scores) == 1


def test_loan_table_shared_covariance():
    """How the naive-Bayes numbers relate to GDA's shared covariance.

    Naive Bayes keeps one variance per class and feature and no correlation; GDA (LDA) has
    one full covariance for both classes. In the weak-prior limit its posterior mean times
    (N - 2) / N is the pooled maximum-likelihood covariance, whose diagonal is the
    class-frequency-weighted average of the seed's squared n-divisor sds. GDA grants the
    loan too.
    """
    x, y = LOAN[:, :2], LOAN[:, 2].astype(int)
    weak = Prior(alpha=1e-9, kappa0=1e-9, nu0=1 + 1e-9, psi0=1e-9 * np.eye(2), m0=x.mean(0))
    exact = linear.posterior(Data(x, y), weak)
    pooled = sum((y == k).mean() * x[y == k].var(0) for k in (0, 1))
    assert np.allclose(np.diag(exact["Sigma"].mean) * 8 / 10, pooled, rtol=1e-6)
    proba = linear.posterior(Data(x, y), Prior()).predict_proba([[24.0, 8500.0]])
    assert proba[0, 1] > 0.5
