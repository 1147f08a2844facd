"""The collapsed Gibbs kernel against the exact posterior, and its planted bugs caught.

Tolerances are the agreement protocol's (MCSE z-scores, KS, Holm at a 1% family-wise
rate); seeds are fixed and were not tuned. Every agreement test has a twin that runs a
deliberately wrong kernel from ``MODEL.faults`` on the same problem and must be told
"disagree".
"""

import numpy as np
import pytest

import zoo
from tests.support.naive_bayes_problems import small_multinomial
from tests.support.seed_tables import REVIEW_CLASS, REVIEWS
from zoo.diagnostics import agreement
from zoo.models.naive_bayes import Data, Prior, simulate
from zoo.models.naive_bayes.datasets import digits_problem

SPEC = zoo.get("naive-bayes")
RUN = {"draws": 1000, "tune": 200, "chains": 4, "seed": 20261122}


def _problems():
    """Name -> (data, prior): simulated and real, both event models."""
    sim_prior = Prior(alpha=2.0, beta=4.0)
    sim_multinomial = small_multinomial(sim_prior)
    _, sim_three = simulate(
        sim_prior,
        np.random.default_rng(0),
        classes=3,
        features=4,
        documents=16,
        unlabelled=6,
        length=6,
    )
    bern_prior = Prior(alpha=2.0, beta=2.0)
    _, sim_bernoulli = simulate(
        bern_prior,
        np.random.default_rng(0),
        event_model="bernoulli",
        classes=2,
        features=6,
        documents=16,
        unlabelled=8,
    )
    # The review table (tests/support/seed_tables.py) with six more reviews whose class is hidden.
    reviews = Data(
        np.vstack(
            [
                REVIEWS,
                [
                    [1, 1, 1, 1, 1],
                    [0, 0, 0, 1, 0],
                    [1, 0, 1, 0, 1],
                    [0, 1, 0, 1, 0],
                    [1, 0, 0, 0, 1],
                    [0, 0, 1, 1, 0],
                ],
            ]
        ),
        np.r_[REVIEW_CLASS, np.full(6, -1)],
        classes=["positive", "negative"],
        features=["recommend", "great", "complain", "okay", "awful"],
        event_model="bernoulli",
    )
    return {
        "simulated-multinomial": (sim_multinomial, sim_prior),
        "simulated-three-classes": (sim_three, sim_prior),
        "simulated-bernoulli": (sim_bernoulli, bern_prior),
        "reviews-bernoulli": (reviews, Prior()),
        "digits-multinomial": SPEC.default_problem(),
        "digits-bernoulli": (
            digits_problem(classes=(1, 8), event_model="bernoulli", labelled_per_class=40),
            Prior(),
        ),
    }


PROBLEMS = _problems()
# (problem, fault) pairs: each agreement test's twin(s). A fault that makes the chains
# stick (the document left in its own class reinforces its label) can also end as
# "inconclusive" (R-hat / ESS gates) rather than "disagree"; the twins listed here are
# those whose planted bug the problem is built to expose.
TWINS = [
    ("simulated-multinomial", "normaliser-wrong-class"),
    ("simulated-multinomial", "normaliser-dropped"),
    ("simulated-three-classes", "normaliser-wrong-class"),
    ("simulated-bernoulli", "normaliser-wrong-class"),
    ("simulated-bernoulli", "normaliser-dropped"),
    ("reviews-bernoulli", "document-not-removed"),
    ("reviews-bernoulli", "normaliser-wrong-class"),
    # normaliser-wrong-class makes the chains stick on the digits (R-hat 1.5, bulk ESS
    # 7): with a slow mode anywhere every test is judged at that ESS, so it is
    # inconclusive there, never agreement; these faults leave the chains mixing.
    ("digits-multinomial", "normaliser-dropped"),
    ("digits-bernoulli", "weights-not-normalised"),
    ("simulated-multinomial", "total-not-decremented"),
    ("simulated-multinomial", "weights-not-normalised"),
    ("simulated-bernoulli", "weights-not-normalised"),
]
# Faults whose twin is the one-sweep invariance check (1% family-wise rate, Holm over the
# test functions): alpha - 1 moves the label prior's weight by one pseudo-count, which
# the exact check sees on few documents only in some seeds
# (bench/results/catalogue/validate_power*.jsonl), one sweep from exact draws every time.
INVARIANCE_TWINS = ["alpha-minus-one"]


@pytest.fixture(scope="module")
def references():
    return {name: SPEC.posterior(*problem) for name, problem in PROBLEMS.items()}


@pytest.mark.parametrize("name", list(PROBLEMS))
def test_gibbs_agrees_with_exact(name, references):
    data, prior = PROBLEMS[name]
    draws = zoo.sample(SPEC, data, prior, **RUN)
    result = agreement(draws, references[name])
    assert result.verdict == "agree", str(result)


@pytest.mark.parametrize(("name", "fault"), TWINS)
def test_wrong_kernel_disagrees(name, fault, references):
    data, prior = PROBLEMS[name]
    draws = zoo.sample(SPEC, data, prior, kernel=SPEC.faults[fault], **RUN)
    assert agreement(draws, references[name]).verdict == "disagree"


@pytest.mark.parametrize("fault", [None, *INVARIANCE_TWINS])
def test_invariance_twin(fault):
    from zoo.diagnostics.invariance import invariance

    kernel = None if fault is None else SPEC.faults[fault]
    result = invariance(SPEC, kernel, seed=1, replicates=2000)
    assert result.verdict == ("pass" if fault is None else "fail"), str(result)


def test_a_kernel_that_sticks_is_never_agreement_on_the_digits(references):
    # The document left in its own class reinforces its label. On the small simulated
    # multinomial problem that moved the posterior too little at this budget (3 of 12
    # seeds disagreed); on the digits (multinomial) the chains stick: 8 of 8 seeds were
    # inconclusive or disagreed, none agreed. Its strict twin is reviews-bernoulli's.
    data, prior = PROBLEMS["digits-multinomial"]
    draws = zoo.sample(SPEC, data, prior, kernel=SPEC.faults["document-not-removed"], **RUN)
    assert agreement(draws, references["digits-multinomial"]).verdict != "agree"


def test_every_fault_has_a_twin():
    assert {fault for _, fault in TWINS} | set(INVARIANCE_TWINS) == set(SPEC.faults)
    assert {name for name, _ in TWINS} == set(PROBLEMS)


def test_step_resamples_only_the_unlabelled_and_is_pure():
    data, prior = PROBLEMS["reviews-bernoulli"]
    rng = np.random.default_rng(0)
    state = SPEC.kernel.init(data, prior, rng)
    before = state.labels.copy()
    for _ in range(20):
        new = SPEC.kernel.step(state, data, prior, rng)
        np.testing.assert_array_equal(state.labels, before)
        np.testing.assert_array_equal(new.labels[data.labelled], data.labels[data.labelled])
        state, before = new, new.labels.copy()


def test_fresh_random_numbers_every_sweep():
    data, prior = PROBLEMS["simulated-multinomial"]
    rng = np.random.default_rng(1)
    state = SPEC.kernel.init(data, prior, rng)
    visited = {tuple(SPEC.kernel.step(state, data, prior, rng).labels) for _ in range(50)}
    assert len(visited) > 1


def test_fully_labelled_data_draw_the_conjugate_posterior():
    # No latent labels: draw() alone is exact, and the unlabelled dim is empty.
    data = Data([[2, 1, 0], [0, 2, 2], [1, 1, 1], [3, 0, 1]], [0, 1, 1, 0], classes=2)
    tree = zoo.sample(SPEC, data, Prior(), draws=1000, tune=0, chains=4, seed=5)
    assert tree["posterior"]["class_probability"].shape == (4, 1000, 0, 2)
    assert agreement(tree, SPEC.posterior(data, Prior())).verdict == "agree"
