"""``assert_valid`` on a user's PyMC model: a right sampler passes, its buggy twin fails."""

import pytest

from tests.support import pymc_models
from zoo.core.defaults import BUDGET_PRESETS
from zoo.testing import assert_valid
from zoo.testing.assertion import stage_budgets
from zoo.testing.sequential import BUDGETS, FIRST, GROWTH, RATE, stages
from zoo.validation import CHECKS
from zoo.validation.plan import resolve_budgets
from zoo.validation.results import ValidationResult

FAST = {"checks": ("exact", "sbc"), "budget": "quick"}


@pytest.mark.pymc
def test_a_right_sampler_passes_and_the_same_seed_gives_the_same_run():
    records = []
    result = assert_valid(
        pymc_models.beta_binomial, pymc_models.right, seed=5, on_record=records.append, **FAST
    )
    assert isinstance(result, ValidationResult)
    assert result.verdict == "pass"
    again = []
    assert_valid(
        pymc_models.beta_binomial, pymc_models.right, seed=5, on_record=again.append, **FAST
    )
    first, second = records[0], again[0]
    assert [s for s, _ in first.stages] == [s for s, _ in second.stages]
    assert first.draws == second.draws
    assert (
        first.result.to_dict()["checks"][0]["summary"]
        == (second.result.to_dict()["checks"][0]["summary"])
    )
    assert first.line().startswith("PASS ")


@pytest.mark.pymc
def test_the_swapped_counts_fail_with_the_findings_table():
    with pytest.raises(AssertionError) as caught:
        assert_valid(pymc_models.beta_binomial, pymc_models.swapped, **FAST)
    message = str(caught.value)
    assert "FAIL after 1 stage(s)" in message
    header = message.splitlines()[1].split()
    assert header == ["check", "quantity", "statistic", "estimate", "reference", "mcse", "z", "p"]
    assert "theta[group=" in message
    # the run ended at the first failing check: SBC, after it, did not run
    assert message.splitlines()[-1] == "sbc: not run: exact failed first"


@pytest.mark.pymc
def test_a_kernel_is_checked_with_the_kernel_checks():
    result = assert_valid(
        pymc_models.beta_binomial,
        kernel=pymc_models.KERNEL,
        checks=("exact", "invariance"),
        budget="quick",
    )
    assert [c.name for c in result.checks] == ["exact", "invariance"]
    with pytest.raises(AssertionError, match="invariance"):
        assert_valid(
            pymc_models.beta_binomial,
            kernel=pymc_models.KERNEL_SWAPPED,
            checks=("invariance",),
            budget="quick",
        )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"rate": 2.0}, "rate: must be a probability"),
        ({"budget": "huge"}, "budget: must be one of"),
        ({"draws": 10}, "draws: set by the sequential stages"),
        ({"alpha": 0.01}, "alpha: set by the sequential stages"),
        ({"budgets": {}}, "budgets: set by the sequential stages"),
        ({"stop_at_failure": False}, "stop_at_failure: set by the sequential stages"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_arguments_are_refused_before_any_fit(options, message):
    with pytest.raises(ValueError, match=message):
        assert_valid(pymc_models.beta_binomial, pymc_models.right, **options)


def test_the_first_stage_spends_three_quarters_of_the_preset_and_later_ones_grow_it():
    assert BUDGETS is BUDGET_PRESETS
    first = stages(RATE, "default", 0)[0].scale
    assert first == FIRST < 1  # less than the fixed battery at the preset spends
    for preset in BUDGETS:
        assert stage_budgets(preset, 1.0) == resolve_budgets(CHECKS, None, preset)
        fixed, staged = resolve_budgets(CHECKS, None, preset), stage_budgets(preset, first)
        assert staged["exact"]["draws"] == round(fixed["exact"]["draws"] * FIRST)
        assert staged["sbc"]["simulations"] == round(fixed["sbc"]["simulations"] * FIRST)
        # Every test's evidence on both its sides: Geweke's chains and the independent
        # draws they are compared with, the invariance check's replicates.
        for check, setting in [
            ("geweke", "iterations"),
            ("geweke", "max_iterations"),
            ("geweke", "marginal_draws"),
            ("invariance", "replicates"),
        ]:
            assert staged[check][setting] == round(fixed[check][setting] * FIRST)
    grown = stage_budgets("quick", GROWTH)
    quick = resolve_budgets(CHECKS, None, "quick")
    assert grown["sbc"]["simulations"] == quick["sbc"]["simulations"] * GROWTH
    assert grown["sbc"]["draws"] == quick["sbc"]["draws"]  # thinned to its ESS: not grown
    assert grown["exact"]["chains"] == quick["exact"]["chains"]
    assert grown["geweke"]["marginal_draws"] == quick["geweke"]["marginal_draws"] * GROWTH
    assert grown["invariance"]["replicates"] == quick["invariance"]["replicates"] * GROWTH


@pytest.mark.pymc
def test_a_run_of_several_stages_is_the_same_run_again_from_the_same_seed():
    # A right sampler that mixes slowly: the first stage's fits cannot judge it even at
    # their most draws (curable), so it goes on to the second stage.
    def run():
        records = []
        assert_valid(
            pymc_models.beta_binomial,
            pymc_models.sticky,
            seed=5,
            checks=("exact",),
            budget="quick",
            on_record=records.append,
        )
        (record,) = records
        return record

    first, second = run(), run()
    assert len(first.stages) > 1
    assert (first.verdict, first.draws) == (second.verdict, second.draws)
    # The draws are those the fits grew to, not the ones each stage started from: the
    # record, its summary line and the result all say them.
    started = [r.settings["budgets"]["exact"]["draws"] for _, r in first.stages]
    grown = [
        max(a.table.attrs["draws"] for a in r.checks[0].details.values()) for _, r in first.stages
    ]
    assert grown[0] > started[0]
    assert first.draws == sum(grown) > sum(started)
    assert f"{first.draws} draws per chain" in first.line()
    assert first.result.settings["draws_per_chain"] == first.draws
    for (stage, result), (again, repeated) in zip(first.stages, second.stages, strict=True):
        assert stage == again
        assert [c.summary for c in result.checks] == [c.summary for c in repeated.checks]
