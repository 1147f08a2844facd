"""The scikit-learn estimator: scikit-learn's own checks, and agreement with its NB."""

import numpy as np
import pytest
from sklearn.naive_bayes import BernoulliNB, MultinomialNB
from sklearn.utils.estimator_checks import parametrize_with_checks

from zoo.models.naive_bayes import Data, Prior, posterior
from zoo.models.naive_bayes.datasets import digits
from zoo.models.naive_bayes.estimator import DirichletNaiveBayes


@parametrize_with_checks(
    [
        DirichletNaiveBayes(),
        DirichletNaiveBayes(predictive="plugin"),
        DirichletNaiveBayes(event_model="bernoulli"),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def digit_split():
    counts, target, _ = digits()
    return counts[:1200], target[:1200], counts[1200:], target[1200:]


@pytest.mark.parametrize("beta", [1.0, 0.3])
def test_plugin_with_empirical_prior_is_multinomial_nb(digit_split, beta):
    x, y, x_new, _ = digit_split
    reference = posterior(Data(x, y, classes=10), Prior(beta=beta))
    ours = reference.plugin_proba(x_new, class_prior="empirical")
    theirs = MultinomialNB(alpha=beta).fit(x, y).predict_proba(x_new)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    estimator = DirichletNaiveBayes(beta=beta, predictive="plugin", class_prior="empirical")
    np.testing.assert_allclose(estimator.fit(x, y).predict_proba(x_new), theirs, atol=1e-12)


@pytest.mark.parametrize("beta", [1.0, 0.3])
def test_plugin_with_empirical_prior_is_bernoulli_nb(beta):
    counts, y, _ = digits(event_model="bernoulli")
    x, y, x_new = counts[:1200], y[:1200], counts[1200:]
    reference = posterior(Data(x, y, classes=10, event_model="bernoulli"), Prior(beta=beta))
    ours = reference.plugin_proba(x_new, class_prior="empirical")
    theirs = BernoulliNB(alpha=beta).fit(x, y).predict_proba(x_new)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


def test_estimator_default_is_the_bayesian_predictive(digit_split):
    x, y, x_new, _ = digit_split
    reference = posterior(Data(x, y, classes=10), Prior(alpha=1.0, beta=1.0))
    fitted = DirichletNaiveBayes().fit(x, y)
    np.testing.assert_allclose(
        fitted.predict_log_proba(x_new[:50]), reference.predict_log_proba(x_new[:50]), atol=1e-8
    )
    # ... which is not the plug-in: the Dirichlet-multinomial is less confident.
    plugin = reference.plugin_proba(x_new[:50])
    assert np.abs(fitted.predict_proba(x_new[:50]) - plugin).max() > 1e-6


def test_partial_fit_equals_fit(digit_split):
    x, y, x_new, _ = digit_split
    whole = DirichletNaiveBayes().fit(x, y)
    parts = DirichletNaiveBayes()
    for start in range(0, len(y), 400):
        parts.partial_fit(x[start : start + 400], y[start : start + 400], classes=np.arange(10))
    np.testing.assert_allclose(parts.predict_proba(x_new), whole.predict_proba(x_new))
