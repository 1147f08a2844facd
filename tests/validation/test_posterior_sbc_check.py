"""The posterior SBC check: a correct kernel passes, a wrong one fails, it says why not.

Budgets are small (30 augmented data sets of the beta-binomial's informative fixed-prior
problem, a Gibbs reference run): each run takes about a second. The correct kernel's
pass is at the check's stated rate (``alpha``, 1%): a seed of the 1% that fail would be
a false alarm of the rate stated, not a tuned seed.
"""

import dataclasses

import numpy as np
import pytest

from examples import semi_conjugate_normal as normal
from zoo.core.contract import CannotAugment
from zoo.diagnostics.findings import COULD_NOT_JUDGE
from zoo.models.beta_binomial import MODEL
from zoo.validation import validate
from zoo.validation.battery import CHECKS
from zoo.validation.posterior_sbc_check import POSTERIOR_SBC

SMALL = {"simulations": 30, "draws": 100, "reference_draws": 500, "reference_chains": 2}


def _run(model="beta-binomial", seed=0, **kwargs):
    return validate(
        model,
        checks=["posterior-sbc"],
        problems=["informative-fixed"],
        budgets={"posterior-sbc": SMALL},
        workers=0,
        seed=seed,
        **kwargs,
    ).checks[0]


def test_it_is_one_entry_of_the_table():
    assert POSTERIOR_SBC in CHECKS
    assert POSTERIOR_SBC.purpose == "posterior-sbc"


def test_the_correct_kernel_passes():
    outcome = _run()
    assert outcome.verdict == "pass", outcome.summary
    assert outcome.details.n_simulations == 30
    assert "conditional on 'informative-fixed'" in outcome.summary


def test_a_wrong_kernel_fails():
    outcome = _run(fault="failures-as-trials")
    assert outcome.verdict == "fail", outcome.summary
    assert outcome.findings[0].p_adjusted < outcome.alpha


def test_the_same_seed_gives_the_same_ranks():
    first, again, other = _run(seed=3), _run(seed=3), _run(seed=4)
    np.testing.assert_array_equal(first.details.ranks, again.details.ranks)
    assert not np.array_equal(first.details.ranks, other.details.ranks)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"simulations": 0},
            r"budgets\['posterior-sbc'\]\['simulations'\]: must be an integer >= 1",
        ),
        ({"reference_chains": 1}, r"\['reference_chains'\]: must be an integer >= 2"),
        (
            {"simulations": 50, "reference_draws": 10, "reference_chains": 2},
            r"\['reference_draws'\]: reference_draws x reference_chains \(20\) must be at "
            r"least the simulations \(50\)",
        ),
        ({"draws": "many"}, r"\['draws'\]: must be an integer"),
    ],
)
def test_bad_budgets_are_refused_before_any_fit(settings, message):
    with pytest.raises(ValueError, match=message):
        validate("beta-binomial", checks=["posterior-sbc"], budgets={"posterior-sbc": settings})


def test_a_model_without_augment_could_not_judge_and_says_the_cure():
    outcome = _run(dataclasses.replace(MODEL, augment=None))
    assert outcome.verdict == COULD_NOT_JUDGE
    (finding,) = outcome.findings
    assert "has no augment" in finding.gate
    assert "zoo.Model.augment" in finding.cure


def _no_axis(data, params, prior, rng):
    raise CannotAugment("y is one scalar observation", "observe a vector")


def test_data_that_cannot_be_augmented_could_not_judge_with_the_models_cure():
    outcome = _run(dataclasses.replace(MODEL, augment=_no_axis))
    assert outcome.verdict == COULD_NOT_JUDGE
    (finding,) = outcome.findings
    assert "y is one scalar observation" in finding.gate
    assert finding.cure == "observe a vector"


def test_a_reference_run_too_short_for_the_simulations_could_not_judge():
    outcome = validate(
        "beta-binomial",
        checks=["posterior-sbc"],
        problems=["informative-fixed"],
        budgets={"posterior-sbc": {**SMALL, "simulations": 900}},
        workers=0,
    ).checks[0]
    assert outcome.verdict == COULD_NOT_JUDGE
    assert "near-independent draws" in outcome.findings[0].gate
    assert "--posterior-sbc-reference-draws" in outcome.findings[0].cure


def _users(sampler):
    return validate(
        normal.model,
        sampler=sampler if sampler != "correct" else normal.sampler,
        checks=["posterior-sbc"],
        budgets={"posterior-sbc": {**SMALL, "simulations": 40}},
        workers=0,
    ).checks[0]


def test_a_users_pymc_model_and_sampler_pass_and_a_wrong_sampler_fails():
    outcome = _users("correct")
    assert outcome.verdict == "pass", outcome.summary
    assert "reference: pymc" in outcome.summary
    wrong = _users(normal.BUG_SAMPLERS["variance-as-sd"])
    assert wrong.verdict == "fail", wrong.summary


def test_nuts_on_a_users_model_is_the_reference_itself_and_is_not_judged():
    outcome = validate(normal.model, engine="pymc", checks=["posterior-sbc"], workers=0).checks[0]
    assert outcome.verdict == COULD_NOT_JUDGE
    assert "reference run itself" in outcome.findings[0].gate
