"""The plan line: each check with its budget, and time estimated from timed fits."""

import pytest

from tests.support import bugs_pumps, pymc_models
from zoo.core.defaults import CHAINS, GEWEKE_DRAWS, INVARIANCE_REPLICATES
from zoo.specification.adapter import DataOnlySampler, specified_model
from zoo.validation import CHECKS
from zoo.validation.estimate import (
    FitCost,
    check_seconds,
    most_check_seconds,
    plan_line,
    timed_fits,
)
from zoo.validation.plan import resolve_budgets
from zoo.validation.problem_selection import choose_problems
from zoo.validation.sampler_under_test import SamplerUnderTest

BY_NAME = {check.name: check for check in CHECKS}
COST = FitCost(per_fit=0.5, per_draw=0.001, per_simulation=0.01)


def test_each_check_is_costed_by_its_budget_settings():
    budgets = resolve_budgets(CHECKS, None)
    exact = check_seconds(BY_NAME["exact"], budgets["exact"], 3, COST)
    assert exact == pytest.approx(3 * (0.5 + 0.001 * 1000 * 4))
    sbc = check_seconds(BY_NAME["sbc"], budgets["sbc"], 3, COST)
    assert sbc == pytest.approx(100 * (0.5 + 0.001 * 200 * 2 + 0.01))
    geweke = check_seconds(BY_NAME["geweke"], budgets["geweke"], 3, COST)
    steps = CHAINS * 10000
    assert geweke == pytest.approx(steps * (0.0005 + 0.01) + GEWEKE_DRAWS * 0.01)
    invariance = check_seconds(BY_NAME["invariance"], budgets["invariance"], 3, COST)
    assert invariance == pytest.approx(INVARIANCE_REPLICATES * (1.5 * 0.0005 + 0.01))


def test_gewekes_chains_growing_to_their_most_are_estimated_too():
    # The first stage alone undershot runs whose chains grew to max_iterations
    # (twofold at the default preset, eightfold when its maximum was 80,000).
    budgets = resolve_budgets(CHECKS, None)
    geweke = BY_NAME["geweke"]
    first = check_seconds(geweke, budgets["geweke"], 1, COST)
    most = most_check_seconds(geweke, budgets["geweke"], 1, COST)
    steps = CHAINS * budgets["geweke"]["max_iterations"]
    assert most == pytest.approx(steps * (0.0005 + 0.01) + GEWEKE_DRAWS * 0.01)
    assert most > 1.8 * first
    line = plan_line([BY_NAME["sbc"], geweke], budgets, 1, COST, workers=2)
    assert (
        "geweke (iterations 10000, max_iterations 20000, marginal_draws 4000) about 4 min "
        "(up to 7 min" in line
    )
    assert "in all about 5 min to 8 min on 2 worker(s)" in line
    # A check that does not grow has one figure, and so has a line of such checks.
    fixed = {**budgets, "geweke": {**budgets["geweke"], "max_iterations": 10000}}
    assert "up to" not in plan_line([geweke], fixed, 1, COST, workers=2)
    assert " to " not in plan_line([BY_NAME["sbc"]], budgets, 1, COST, workers=2).split("(an")[0]


def test_the_exact_checks_fits_growing_to_max_draws_are_estimated_too():
    # Each data set may be fitted again at every doubled length: 1,000, 2,000, 4,000
    # and 8,000 draws per chain at the default preset.
    budgets = resolve_budgets(CHECKS, None)
    exact = BY_NAME["exact"]
    most = most_check_seconds(exact, budgets["exact"], 3, COST)
    lengths = (1000, 2000, 4000, 8000)
    assert most == pytest.approx(3 * sum(0.5 + 0.001 * n * 4 for n in lengths))
    assert "(up to" in plan_line([exact], budgets, 3, COST, workers=1)
    once = {**budgets, "exact": {**budgets["exact"], "max_draws": 1000}}
    assert most_check_seconds(exact, once["exact"], 3, COST) == check_seconds(
        exact, once["exact"], 3, COST
    )
    assert "up to" not in plan_line([exact], once, 3, COST, workers=1)


def test_the_plan_line_lists_checks_budgets_and_the_estimate_shared_by_the_workers():
    chosen = [BY_NAME["exact"], BY_NAME["sbc"]]
    budgets = resolve_budgets(CHECKS, None, "quick")
    line = plan_line(chosen, budgets, 1, COST, workers=2)
    assert "\n" not in line
    assert line.startswith(
        "plan: exact (draws 250, chains 4, max_draws 2000) under 1 s (up to 8 s if it draws "
        "more); sbc (simulations 25"
    )
    # sbc: 25 x (0.5 + 0.4 + 0.01) s on 2 workers
    assert "sbc (simulations 25, draws 200, chains 2) about 10 s" in line
    assert "in all about 10 s to 20 s on 2 worker(s) (an estimate" in line
    assert "about" not in plan_line(chosen, budgets, 1, None, workers=2)
    # In the battery's process (workers 0): one worker's time, said as such.
    alone = plan_line(chosen, budgets, 1, COST, workers=0)
    assert "in all about 20 s to 40 s in one process (an estimate" in alone


def test_timed_fits_of_a_real_sampler_give_a_nonnegative_line():
    model = specified_model(pymc_models.beta_binomial)
    (problem,) = choose_problems(model, None)
    tested = SamplerUnderTest(model, sampler=DataOnlySampler(pymc_models.right))
    cost = timed_fits(tested, problem.data, problem.prior, 0, model.simulation_setup())
    assert cost.per_fit >= 0 and cost.per_draw >= 0 and cost.per_simulation > 0


def test_timing_a_simulation_redraws_data_outside_their_support_as_sbc_does():
    # every prior-predictive count of this model overflows: the plan line keeps its
    # estimate of a simulation's cost (timing raised OutsideSupport before)
    model = specified_model("tests.support.bugs_pumps:unsimulable")
    (problem,) = choose_problems(model, None)
    tested = SamplerUnderTest(model, sampler=DataOnlySampler(bugs_pumps.sampler))
    cost = timed_fits(tested, problem.data, problem.prior, 0, model.simulation_setup())
    assert cost.per_simulation > 0
