"""Longer LDA studies (deselected by default; run with ``-m slow``)."""

import numpy as np
import pytest
from scipy import stats

import zoo
from zoo.diagnostics import agreement
from zoo.models.lda import simulate

SPEC = zoo.get("lda")


@pytest.mark.slow
@pytest.mark.pymc
def test_zoo_check_on_the_default_problem():
    # All three forms on the bank corpus: Gibbs and PyMC against the exact reference,
    # and against each other.
    from zoo.check import run_check

    result = run_check("lda", seed=0)
    assert result.verdict == "agree", result.to_dict()


@pytest.mark.slow
def test_false_alarm_rate_of_the_correct_sampler():
    # 60 fresh corpora from the prior predictive (symmetric prior: label-invariant
    # variables only), each with its own seed: the correct sampler must be flagged at
    # most at the stated 1% family-wise rate. With 60 runs, more than 3 "disagree" has
    # probability < 0.3% if the true rate is 1%.
    prior, size = SPEC.simulation_setup()
    disagree = 0
    for seed in range(60):
        _, data = simulate(prior, np.random.default_rng(1000 + seed), **size)
        draws = zoo.sample(SPEC, data, prior, draws=1000, tune=200, chains=4, seed=seed)
        disagree += agreement(draws, SPEC.posterior(data, prior)).verdict == "disagree"
    assert disagree <= stats.binom.ppf(0.997, 60, 0.01), disagree


@pytest.mark.slow
@pytest.mark.parametrize("fault", list(SPEC.faults))
def test_detection_rate_of_each_fault(fault):
    # The planted bugs on the default problem over 20 seeds: each must be flagged in
    # most runs (the single-seed twins in test_lda_gibbs.py are not a lucky draw).
    data, prior = SPEC.default_problem()
    reference = SPEC.posterior(data, prior)
    flagged = sum(
        agreement(
            zoo.sample(
                SPEC,
                data,
                prior,
                kernel=SPEC.faults[fault],
                draws=1000,
                tune=200,
                chains=4,
                seed=seed,
            ),
            reference,
        ).verdict
        == "disagree"
        for seed in range(20)
    )
    assert flagged >= 15, flagged
