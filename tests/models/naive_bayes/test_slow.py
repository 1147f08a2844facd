"""Longer Naive Bayes studies (deselected by default; run with ``-m slow``)."""

import numpy as np
import pytest
from scipy import stats

import zoo
from zoo.diagnostics import agreement
from zoo.models.naive_bayes import Prior, simulate

SPEC = zoo.get("naive-bayes")


@pytest.mark.slow
@pytest.mark.pymc
def test_zoo_check_on_the_digits_default_problem():
    # All three forms on real data (digits 5 vs 9, 8 unlabelled images).
    from zoo.check import run_check

    result = run_check("naive-bayes", seed=0)
    assert result.verdict == "agree", result.to_dict()


@pytest.mark.slow
def test_false_alarm_rate_of_the_correct_sampler():
    # 60 fresh data sets from the prior predictive, each with its own seed: the correct
    # sampler must be flagged at most at the stated 1% family-wise rate. With 60 runs,
    # more than 3 "disagree" has probability < 0.3% if the true rate is 1%.
    prior = Prior(alpha=2.0, beta=4.0)
    disagree = 0
    for seed in range(60):
        _, data = simulate(
            prior,
            np.random.default_rng(1000 + seed),
            classes=2,
            features=4,
            documents=12,
            unlabelled=6,
            length=10,
        )
        draws = zoo.sample(SPEC, data, prior, draws=1000, tune=200, chains=4, seed=seed)
        disagree += agreement(draws, SPEC.posterior(data, prior)).verdict == "disagree"
    assert disagree <= stats.binom.ppf(0.997, 60, 0.01), disagree
