"""The exact LDA reference against brute force and Monte Carlo.

Brute force: the posterior over assignments from the scalar ``log_joint`` (a loop of
``math.lgamma``) for every one of the K^N assignments. Monte Carlo: draws from the exact
posterior (an assignment from its weight, then theta and phi from their Dirichlets)
and scipy.stats.dirichlet for the moment formula. Tolerances are 5 Monte Carlo standard
errors with fixed seeds.
"""

import itertools

import numpy as np
import pytest
from scipy import special, stats

import zoo
from zoo.diagnostics import NoReference
from zoo.models.lda import Data, Prior, posterior
from zoo.models.lda.posterior import doc_word_moments, log_joint

SPEC = zoo.get("lda")
CORPUS = [[0, 1, 1], [2, 0], [1, 2]]  # N = 7, V = 3
ASYMMETRIC = Prior(alpha=[1.5, 0.5], beta=[0.5, 1.0, 2.0])


def _brute_force(data, prior):
    assignments = np.array(list(itertools.product(range(data.n_topics), repeat=data.n_tokens)))
    log_w = np.array([log_joint(data, prior, z) for z in assignments])
    return assignments, np.exp(log_w - special.logsumexp(log_w))


@pytest.fixture(scope="module")
def problem():
    data = Data(CORPUS, topics=2)
    return data, posterior(data, ASYMMETRIC), *_brute_force(data, ASYMMETRIC)


def test_topic_and_coassignment_probabilities_match_brute_force(problem):
    data, reference, assignments, weights = problem
    onehot = assignments[:, :, None] == np.arange(2)
    np.testing.assert_allclose(reference.topic_probability, np.tensordot(weights, onehot, 1))
    same = assignments[:, :, None] == assignments[:, None, :]
    np.testing.assert_allclose(reference.coassignment_probability, np.tensordot(weights, same, 1))
    pairs = data.token_pairs
    expected = np.tensordot(weights, same, 1)[pairs[:, 0], pairs[:, 1]]
    mean = reference["coassignment"].mean
    tested = np.isfinite(mean)
    assert tested.sum() > len(mean) // 2
    np.testing.assert_allclose(mean[tested], expected[tested])
    assert np.isnan(reference["coassignment"].sd).all()  # no closed form: not tested


def test_exact_moments_match_draws_from_the_exact_posterior(problem):
    # Independent of the moment algebra: sample z, then theta and phi, then the variables.
    data, reference, assignments, weights = problem
    hyper = ASYMMETRIC.resolve(data)
    rng = np.random.default_rng(0)
    n = 20_000
    chosen = assignments[rng.choice(len(weights), size=n, p=weights)]
    onehot = (chosen[:, :, None] == np.arange(2)).astype(float)  # (n, N, K)
    doc_topic = np.einsum("nd,snk->sdk", data.token_document[:, None] == np.arange(3), onehot)
    word_topic = np.einsum("nw,snk->skw", data.token_word[:, None] == np.arange(3), onehot)
    # Dirichlet draws as normalised Gammas (all parameters >= 0.5: no underflow).
    theta = rng.standard_gamma(hyper.alpha + doc_topic)
    theta /= theta.sum(axis=2, keepdims=True)
    phi = rng.standard_gamma(hyper.beta + word_topic)
    phi /= phi.sum(axis=2, keepdims=True)
    pairs, tokens = data.doc_word_pairs, data.token_pairs
    r = theta[:, data.token_document, :] * np.swapaxes(phi[:, :, data.token_word], 1, 2)
    r /= r.sum(axis=2, keepdims=True)
    values = {
        "theta": theta,
        "phi": phi,
        "doc_word": np.einsum("spk,skp->sp", theta[:, pairs[:, 0]], phi[:, :, pairs[:, 1]]),
        "coassignment": np.sum(r[:, tokens[:, 0]] * r[:, tokens[:, 1]], axis=2),
    }
    for name, marginal in reference.marginals.items():
        x = values[name]
        se_mean = x.std(axis=0) / np.sqrt(n)
        tested = np.isfinite(marginal.mean)
        z = (x.mean(axis=0) - marginal.mean)[tested] / se_mean[tested]
        assert np.abs(z).max() < 5, (name, z)
        if np.isfinite(marginal.sd).any():
            centred = x - x.mean(axis=0)
            se_sd = np.sqrt(np.maximum(np.var(centred**2, axis=0), 1e-30) / n) / (2 * marginal.sd)
            z_sd = (x.std(axis=0) - marginal.sd) / se_sd
            assert np.abs(z_sd).max() < 5, (name, z_sd)


def test_theta_and_phi_cdfs_match_the_brute_force_mixture(problem):
    data, reference, assignments, weights = problem
    hyper = ASYMMETRIC.resolve(data)
    marginal = reference["phi"]
    points = np.array([0.1, 0.3, 0.6, 0.9])
    x = np.broadcast_to(points[:, None, None], (4, 2, data.n_words))
    expected = np.zeros_like(x)
    for z, w in zip(assignments, weights, strict=True):
        word_topic = np.zeros((2, data.n_words))
        np.add.at(word_topic, (z, data.token_word), 1)
        a = hyper.beta + word_topic
        expected += w * stats.beta.cdf(x, a, a.sum(axis=1, keepdims=True) - a)
    np.testing.assert_allclose(marginal.cdf(x), expected, atol=1e-6)
    np.testing.assert_allclose(marginal.cdf(marginal.ppf(0.95)[None])[0], 0.95, atol=1e-6)
    theta = reference["theta"]
    q = theta.ppf(0.05)
    np.testing.assert_allclose(theta.cdf(q[None])[0], 0.05, atol=1e-6)


def test_doc_word_moment_formula_against_scipy_dirichlet():
    # One document, two topics, one word: E[x] and E[x^2] of x = sum_k theta_k phi_kw.
    a = np.array([[0.7, 2.3, 1.1]])
    b = np.array([[0.4, 1.5, 3.0, 0.8], [2.0, 0.3, 0.6, 1.2], [1.0, 1.0, 0.5, 2.5]])
    pairs = np.array([[0, 0], [0, 1], [0, 3]])
    mean, second = doc_word_moments(a, b, pairs)
    n = 200_000
    theta = stats.dirichlet(a[0]).rvs(size=n, random_state=1)
    phi = np.stack(
        [stats.dirichlet(row).rvs(size=n, random_state=2 + k) for k, row in enumerate(b)], axis=1
    )
    x = np.einsum("nk,nkp->np", theta, phi[:, :, pairs[:, 1]])
    for j in range(len(pairs)):
        se_1 = x[:, j].std() / np.sqrt(n)
        se_2 = (x[:, j] ** 2).std() / np.sqrt(n)
        assert abs(x[:, j].mean() - mean[j]) < 5 * se_1
        assert abs((x[:, j] ** 2).mean() - second[j]) < 5 * se_2


def test_symmetric_prior_reports_only_label_invariant_variables():
    data = Data(CORPUS, topics=2)
    prior = Prior(alpha=0.7, beta=0.5)
    reference = posterior(data, prior)
    assert set(reference.marginals) == {"doc_word", "coassignment"}
    assert SPEC.comparable_variables(prior) == ["doc_word", "coassignment"]
    assert set(SPEC.comparable_variables(ASYMMETRIC)) == set(SPEC.variables(ASYMMETRIC))
    # Symmetric prior: every token is in either topic with probability 1/2.
    np.testing.assert_allclose(reference.topic_probability, 0.5)


def test_beyond_the_enumeration_limit_there_is_no_reference():
    data = Data([[0, 1] * 9], topics=2)  # 2^18 assignments
    answer = posterior(data, Prior())
    assert isinstance(answer, NoReference)
    assert "2^18" in answer.reason
    assert isinstance(posterior(Data(CORPUS, topics=2), Prior(), max_assignments=100), NoReference)


def test_one_topic_is_the_dirichlet_multinomial_closed_form():
    data = Data(CORPUS, topics=1)
    prior = Prior(alpha=1.0, beta=[0.5, 1.0, 2.0])
    reference = posterior(data, prior)
    counts = np.bincount(data.token_word, minlength=3) + np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(reference["doc_word"].mean[:3], counts / counts.sum())
    expected_sd = stats.beta(counts, counts.sum() - counts).std()
    np.testing.assert_allclose(reference["doc_word"].sd[:3], expected_sd)
