"""QDA and Gaussian naive Bayes: the exact posterior against independent routes.

The per-class conjugate formulas (zoo.models.gaussian_classifiers.class_niw) against
scipy.stats: the evidence of one point is the prior predictive (a Student t), a fully labelled
posterior's marginals are scipy's inverse-Wishart / inverse-gamma / t, the evidence is
the product of sequential predictives (scipy's multivariate t), and the enumerated
mixture's class probabilities and weights follow from the closed form.
"""

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

import zoo
from tests.support.gaussian_problems import small_problem
from zoo.models.gaussian_classifiers import Data
from zoo.models.gaussian_classifiers.class_niw import class_niw
from zoo.models.gaussian_classifiers.diagonal import DiagonalPrior
from zoo.models.gaussian_classifiers.niw import class_statistics
from zoo.models.gaussian_classifiers.quadratic import PerClassPrior

STRUCTURES = ["qda", "gaussian-nb"]


def _log_evidence(name, x, labels, prior):
    data = Data(x, labels, classes=[0, 1])
    return zoo.get(name).posterior(data, prior).log_marginal_likelihood


@pytest.mark.parametrize("name", STRUCTURES)
def test_one_point_evidence_is_the_prior_predictive_t(name):
    """d = 1: p(x, y) = E[pi_y] t(x | nu0, m0, psi0 (kappa0 + 1) / (kappa0 nu0))."""
    prior = (PerClassPrior if name == "qda" else DiagonalPrior)(
        psi0=[[2.0]] if name == "qda" else [2.0], m0=[1.0], kappa0=0.5, nu0=3.0, alpha=[1.0, 3.0]
    )
    scale = np.sqrt(2.0 * 1.5 / (0.5 * 3.0))
    expected = np.log(3.0 / 4.0) + stats.t(3.0, 1.0, scale).logpdf(0.3)
    assert _log_evidence(name, np.array([[0.3]]), np.array([1]), prior) == pytest.approx(expected)


@pytest.mark.parametrize("name", STRUCTURES)
def test_evidence_is_the_product_of_sequential_predictives(name):
    """log p(D) = sum_i log p(x_i, y_i | D_<i), each predictive from scipy's t."""
    data, prior = small_problem(name, points=9, d=3)
    hyper = prior.resolve(data)
    total = 0.0
    for i in range(data.x.shape[0]):
        seen = data.labels[:i]
        onehot = (seen[:, None] == np.arange(2)).astype(float)[None]
        c = class_niw(*class_statistics(data.x[:i], onehot), hyper, diagonal=name != "qda")
        k = data.labels[i]
        df = c.df[0, k]
        shape = c.psi[0, k] * (c.kappa[0, k] + 1) / (c.kappa[0, k] * df)
        if name == "qda":
            density = stats.multivariate_t(c.mean[0, k], shape, df=df).logpdf(data.x[i])
        else:
            density = stats.t(df, c.mean[0, k], np.sqrt(shape)).logpdf(data.x[i]).sum()
        label = np.log((hyper.alpha[k] + c.counts[0, k]) / (hyper.alpha.sum() + i))
        total += density + label
    assert _log_evidence(name, data.x, data.labels, prior) == pytest.approx(total, rel=1e-10)


@pytest.mark.parametrize("name", STRUCTURES)
def test_enumerated_class_probability_is_the_predictive(name):
    """One unlabelled point: P(y_u = k | D) is the closed-form predictive given the rest."""
    data, prior = small_problem(name, unlabelled=1)
    exact = zoo.get(name).posterior(data, prior)
    rest = Data(data.x[1:], data.labels[1:], classes=data.classes)
    predictive = zoo.get(name).posterior(rest, prior).predict_proba(data.x[:1])
    np.testing.assert_allclose(exact.class_probability_exact, predictive)


@pytest.mark.parametrize("name", STRUCTURES)
def test_enumeration_weights_and_evidence(name):
    data, prior = small_problem(name, unlabelled=3)
    exact = zoo.get(name).posterior(data, prior)
    log_joint = []
    for code in range(8):
        labels = data.labels.copy()
        labels[:3] = [(code >> 2) & 1, (code >> 1) & 1, code & 1]
        log_joint.append(_log_evidence(name, data.x, labels, prior))
    assert exact.log_marginal_likelihood == pytest.approx(logsumexp(log_joint))
    np.testing.assert_allclose(exact.class_probability_exact.sum(axis=1), 1.0)


def test_one_diagonal_feature_is_qda_in_one_dimension():
    """With d = 1 the two per-class structures are the same model."""
    data, _ = small_problem("qda", d=1, unlabelled=2)
    settings = {"m0": [0.3], "kappa0": 0.7, "nu0": 2.5, "alpha": [1.0, 2.0]}
    full = zoo.get("qda").posterior(data, PerClassPrior(psi0=[[1.3]], **settings))
    diagonal = zoo.get("gaussian-nb").posterior(data, DiagonalPrior(psi0=[1.3], **settings))
    assert full.log_marginal_likelihood == pytest.approx(diagonal.log_marginal_likelihood)
    np.testing.assert_allclose(full["Sigma"].mean[:, :, 0], diagonal["variance"].mean)
    np.testing.assert_allclose(full["mu"].sd, diagonal["mu"].sd)
