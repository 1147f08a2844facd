"""Naive Bayes closed forms: conjugate updates, smoothing, the seeds' worked tables."""

from fractions import Fraction

import numpy as np
import pytest
from scipy import special

from tests.support.seed_tables import REVIEW_CLASS, REVIEWS
from zoo.diagnostics import NoReference
from zoo.models.naive_bayes import Data, Prior, posterior


def review_reference():
    data = Data(REVIEWS, REVIEW_CLASS, classes=["positive", "negative"], event_model="bernoulli")
    return posterior(data, Prior(alpha=1.0, beta=1.0))


def test_review_table_laplace_conditionals():
    phi = review_reference().posterior_mean()[1]  # P(x_v = 1 | class), Laplace smoothed
    claimed_absent = {  # (word, class): the seed's P(x = 0 | class)
        (0, 0): Fraction(1, 3),
        (0, 1): Fraction(5, 8),
        (1, 0): Fraction(1, 3),
        (1, 1): Fraction(5, 8),
        (2, 0): Fraction(5, 6),
        (2, 1): Fraction(1, 4),
        (4, 0): Fraction(5, 6),
        (4, 1): Fraction(1, 4),
    }
    for (word, k), value in claimed_absent.items():
        assert 1.0 - phi[k, word] == pytest.approx(float(value), abs=1e-12)
    assert phi[0, 3] == pytest.approx(1 / 2)  # P(okay | positive): claimed 1/2, right
    # The seed claims P(okay | negative) = 1/8. One of the six negative reviews says
    # "okay", so Laplace smoothing gives (1 + 1) / (6 + 2) = 1/4: the claim is wrong.
    assert phi[1, 3] == pytest.approx(1 / 4)
    assert phi[1, 3] != pytest.approx(1 / 8)


def test_review_table_scores_and_decision():
    reference = review_reference()
    okay_only = np.array([[0, 0, 0, 1, 0]])
    phi = reference.posterior_mean()[1]
    empirical = np.array([4, 6]) / 10  # the seed's P(class): 2/5 and 3/5, unsmoothed
    likelihood = np.prod(np.where(okay_only == 1, phi, 1.0 - phi), axis=1)
    scores = empirical * likelihood
    assert scores[0] == pytest.approx(5 / 324)  # the seed's positive score: right
    # The seed's negative score 3/4096 follows neither from its own conditionals
    # (3/5 * 5/8 * 5/8 * 1/4 * 1/8 * 1/4 = 15/8192) nor from the correct 1/4 for
    # "okay" (15/4096): the decision "positive" stands either way.
    assert scores[1] == pytest.approx(15 / 4096)
    assert scores[1] != pytest.approx(3 / 4096)
    plugin = reference.plugin_proba(okay_only, class_prior="empirical")[0]
    np.testing.assert_allclose(plugin, scores / scores.sum())
    # The full Bayesian predictive (pi integrated out too) also says positive.
    assert reference.predict_proba(okay_only)[0].argmax() == 0


# "Meet" table (the Bayes-decision-theory notes, section 3.2): civil servant and master's degree as
# binary features; the income column did not survive extraction.
MEET_FEATURES = np.array(
    [[1, 0], [1, 0], [0, 0], [0, 0], [1, 1], [0, 0], [1, 0], [0, 1], [0, 1], [0, 1]]
)
MEET = np.array([1, 1, 0, 1, 1, 0, 1, 0, 0, 1])


def test_meet_table():
    data = Data(MEET_FEATURES, MEET, classes=["no", "yes"], event_model="bernoulli")
    phi = posterior(data, Prior(beta=1.0)).posterior_mean()[1]
    assert phi[0, 0] == pytest.approx(1 / 6)  # P(civil servant | 0): right
    assert phi[1, 0] == pytest.approx(5 / 8)  # P(civil servant | 1): right
    assert phi[0, 1] == pytest.approx(3 / 6)  # P(master | 0): right
    assert phi[1, 1] == pytest.approx(3 / 8)  # P(master | 1): right
    # Income has three levels (high / medium / low), so the seed's own formula
    # (N_ik + 1) / (N_i + 3) has denominators 4 + 3 = 7 and 6 + 3 = 9; its 1/6 and 4/8
    # are not of that form for any count, so they do not follow from the formula
    # (they would with two levels). Only the scores built from them can be checked.
    assert not any(Fraction(n + 1, 7) == Fraction(1, 6) for n in range(5))
    assert not any(Fraction(n + 1, 9) == Fraction(4, 8) for n in range(7))
    income_high = np.array([1 / 6, 4 / 8])
    empirical = np.array([0.4, 0.6])  # claimed P(meet): right (4 and 6 of 10)
    np.testing.assert_allclose(np.bincount(MEET) / 10, empirical)
    scores = empirical * phi[:, 0] * phi[:, 1] * income_high
    np.testing.assert_allclose(scores, [1 / 180, 18 / 256])  # the seed's scores: right
    assert scores.argmax() == 1


def test_laplace_smoothing_is_the_posterior_mean_under_dir_1():
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 5, size=(30, 6))
    counts[:, 0] += 1
    labels = rng.integers(0, 3, size=30)
    data = Data(counts, labels, classes=3)
    pi, phi = posterior(data, Prior(alpha=1.0, beta=1.0)).posterior_mean()
    totals = data.feature_counts()
    np.testing.assert_allclose(phi, (totals + 1) / (totals.sum(1, keepdims=True) + 6))
    n = data.class_counts()
    np.testing.assert_allclose(pi, (n + 1) / (n.sum() + 3))


@pytest.mark.parametrize("eta", [0.5, 1.0, 2.0])
def test_eta_smoothing_is_the_map_under_dir_eta_plus_1(eta):
    # Eta-smoothing's (t + eta) / (S + V eta) for P(X = x | Y = c) is the
    # mode of the posterior Dir(eta + 1 + N_k).
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 4, size=(20, 5)) + 1
    labels = rng.integers(0, 2, size=20)
    data = Data(counts, labels, classes=2)
    components = posterior(data, Prior(beta=eta + 1.0)).components
    b = components.beta[0]
    mode = (b - 1.0) / (b.sum(axis=1, keepdims=True) - b.shape[1])
    totals = data.feature_counts()
    np.testing.assert_allclose(mode, (totals + eta) / (totals.sum(1, keepdims=True) + 5 * eta))


def test_fully_labelled_posterior_is_conjugate():
    data = Data([[2, 0, 1], [0, 3, 1], [1, 1, 1], [4, 0, 0]], [0, 1, 1, 0], classes=2)
    prior = Prior(alpha=[1.0, 2.0], beta=[[0.5, 1.0, 2.0], [1.0, 1.0, 1.0]])
    reference = posterior(data, prior)
    alpha = np.array([1.0 + 2, 2.0 + 2])
    beta = np.array([[0.5 + 6, 1.0, 2.0 + 1], [1.0 + 1, 1.0 + 4, 1.0 + 2]])
    np.testing.assert_allclose(reference.components.alpha[0], alpha)
    np.testing.assert_allclose(reference.components.beta[0], beta)
    phi = reference.marginals["phi"]
    total = beta.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(phi.mean, beta / total)
    np.testing.assert_allclose(
        phi.sd, np.sqrt(beta * (total - beta) / (total**2 * (total + 1))), rtol=1e-12
    )
    # CDFs: Beta marginals of the Dirichlet (tabulated, interpolated to about 1e-7).
    x = np.full((1, 2, 3), 0.3)
    np.testing.assert_allclose(phi.cdf(x)[0], special.betainc(beta, total - beta, 0.3), atol=1e-6)


def test_predictive_is_dirichlet_multinomial_not_plugin():
    data = Data([[2, 0, 1], [0, 3, 1], [1, 1, 1], [4, 0, 0]], [0, 1, 1, 0], classes=2)
    reference = posterior(data, Prior())
    new = np.array([[3, 1, 0]])
    b = 1.0 + data.feature_counts()
    a = 1.0 + data.class_counts()
    log_dm = special.gammaln(b.sum(1)) - special.gammaln(b.sum(1) + 4)
    log_dm += np.sum(special.gammaln(b + new) - special.gammaln(b), axis=1)
    expected = a * np.exp(log_dm)
    np.testing.assert_allclose(reference.predict_proba(new)[0], expected / expected.sum())
    assert not np.allclose(reference.predict_proba(new), reference.plugin_proba(new))


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
def test_one_unlabelled_document_gets_the_predictive_of_the_rest(event_model):
    # Two code paths: the enumeration over labelings of one unlabelled document must
    # give that document the posterior predictive computed from the labelled ones.
    rng = np.random.default_rng(2)
    counts = rng.integers(0, 2 if event_model == "bernoulli" else 4, size=(9, 4))
    counts[:, 0] = np.maximum(counts[:, 0], 1)
    labels = np.array([0, 1, 2, 0, 1, 2, 0, 1, -1])
    prior = Prior(alpha=[1.0, 2.0, 0.5], beta=0.7)
    mixed = posterior(Data(counts, labels, classes=3, event_model=event_model), prior)
    known = Data(counts[:8], labels[:8], classes=3, event_model=event_model)
    np.testing.assert_allclose(
        mixed.class_probability[0], posterior(known, prior).predict_proba(counts[8:])[0]
    )


def test_mixture_moments_by_brute_force():
    # K^U = 2^2 labelings, summed by hand from the conjugate posteriors.
    counts = np.array([[2, 1], [0, 3], [1, 1], [2, 2]])
    labels = np.array([0, 1, -1, -1])
    data = Data(counts, labels, classes=2)
    reference = posterior(data, Prior())
    weights, means = [], []
    for z in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        full = np.array([0, 1, *z])
        n = np.bincount(full, minlength=2)
        totals = np.zeros((2, 2))
        np.add.at(totals, full, counts)
        b = 1.0 + totals
        log_w = special.gammaln(1.0 + n).sum() + special.gammaln(b).sum()
        log_w -= special.gammaln(b.sum(1)).sum()
        weights.append(np.exp(log_w))
        means.append(b / b.sum(1, keepdims=True))
    weights = np.array(weights) / np.sum(weights)
    np.testing.assert_allclose(
        reference.marginals["phi"].mean, np.tensordot(weights, means, axes=1)
    )
    np.testing.assert_allclose(reference.class_probability[0, 0], weights[0] + weights[1])


def test_beyond_the_enumeration_limit_there_is_no_reference():
    counts = np.ones((20, 3), dtype=int)
    labels = np.r_[0, 1, 2, np.full(17, -1)]
    result = posterior(Data(counts, labels, classes=3), Prior())
    assert isinstance(result, NoReference)
    assert "3^17" in result.reason
