"""Every model's log_likelihood against scipy.stats, labels summed out by brute force."""

import itertools

import numpy as np
import pytest
from scipy import stats

import zoo


@pytest.mark.parametrize("name", zoo.names())
def test_every_model_has_a_finite_log_likelihood_at_the_truth(name):
    spec = zoo.get(name)
    prior, size = spec.simulation_setup()
    truth, data = spec.simulate(prior, np.random.default_rng(3), **size)
    assert spec.log_likelihood is not None
    value = spec.log_likelihood(data, truth)
    assert np.isfinite(value)


def _labelings(labels, n_classes):
    missing = np.flatnonzero(labels < 0)
    for fill in itertools.product(range(n_classes), repeat=missing.size):
        full = labels.copy()
        full[missing] = fill
        yield missing, full


def test_beta_binomial_is_a_sum_of_binomial_log_pmfs():
    spec = zoo.get("beta-binomial")
    prior, size = spec.simulation_setup()
    truth, data = spec.simulate(prior, np.random.default_rng(1), **size)
    expected = stats.binom.logpmf(data.successes, data.trials, truth["theta"]).sum()
    assert spec.log_likelihood(data, truth) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
def test_naive_bayes_sums_the_missing_labels_out(event_model):
    spec = zoo.get("naive-bayes")
    prior, size = spec.simulation_setup()
    size = {**size, "event_model": event_model}
    truth, data = spec.simulate(prior, np.random.default_rng(2), **size)
    pi, phi = truth["pi"], truth["phi"]

    def document(x, k):
        if event_model == "multinomial":
            return stats.multinomial.logpmf(x, x.sum(), phi[k])
        return stats.bernoulli.logpmf(x, phi[k]).sum()

    terms = []
    for _, full in _labelings(data.labels, pi.size):
        terms.append(
            sum(np.log(pi[k]) + document(x, k) for x, k in zip(data.counts, full, strict=True))
        )
    expected = np.logaddexp.reduce(terms)
    assert spec.log_likelihood(data, truth) == pytest.approx(expected, rel=1e-10)


def test_gda_sums_the_missing_labels_out():
    spec = zoo.get("gda")
    prior, size = spec.simulation_setup()
    truth, data = spec.simulate(prior, np.random.default_rng(4), **{**size, "points": 12})
    pi, mu, sigma = truth["pi"], truth["mu"], truth["Sigma"]
    terms = []
    for _, full in _labelings(data.labels, pi.size):
        terms.append(
            sum(
                np.log(pi[k]) + stats.multivariate_normal.logpdf(x, mu[k], sigma)
                for x, k in zip(data.x, full, strict=True)
            )
        )
    expected = np.logaddexp.reduce(terms)
    assert spec.log_likelihood(data, truth) == pytest.approx(expected, rel=1e-10)


def test_lda_sums_each_tokens_topic_out():
    spec = zoo.get("lda")
    prior, size = spec.simulation_setup()
    truth, data = spec.simulate(prior, np.random.default_rng(6), **size)
    theta, phi = truth["theta"], truth["phi"]
    expected = 0.0
    for d in range(data.n_documents):
        for i in range(data.doc_start[d], data.doc_start[d + 1]):
            expected += np.log(np.dot(theta[d], phi[:, data.token_word[i]]))
    assert spec.log_likelihood(data, truth) == pytest.approx(expected, rel=1e-12)
