"""The stages and the stopping rule of a sequential validation, on real results."""

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from zoo.core.defaults import ALPHA
from zoo.diagnostics.findings import COULD_NOT_JUDGE, Finding
from zoo.diagnostics.kernel_result import KernelCheckResult
from zoo.testing.sequential import (
    CLEAR,
    FIRST,
    GROWTH,
    RATE,
    SPENDING,
    check_step,
    evidence,
    stages,
)
from zoo.validation.results import CheckOutcome, ValidationResult


def _kernel_result(p_values, alpha):
    """A real KernelCheckResult over tests with these raw p-values (Holm inside)."""
    n = len(p_values)
    rows = {
        "function": [f"f{i}" for i in range(n)],
        "part": ["step"] * n,
        "p": np.asarray(p_values, dtype=float),
    }
    return KernelCheckResult.build("geweke", rows, alpha=alpha, settings="")


def _battery(p_lists, rate, verdicts=None, findings=None):
    """A ValidationResult of checks whose tests have these raw p-values."""
    share = rate / len(p_lists)
    result = ValidationResult("m", "s", rate)
    for i, p_values in enumerate(p_lists):
        details = _kernel_result(p_values, share)
        verdict = details.table.attrs["verdict"] if verdicts is None else verdicts[i]
        found = [] if findings is None else findings[i]
        name = ("exact", "sbc", "geweke")[i]
        result.checks.append(CheckOutcome(name, verdict, "", share, found, details))
    return result


def test_the_stages_spend_the_rate_exactly_and_grow_the_budget():
    plan = stages(1e-4, "quick", seed=3)
    assert math.isclose(sum(s.alpha for s in plan), 1e-4, rel_tol=1e-12)
    assert [s.alpha for s in plan] == [1e-4 * share for share in SPENDING]
    assert [s.scale for s in plan] == [FIRST * GROWTH**k for k in range(len(plan))]
    assert len({s.seed for s in plan}) == len(plan)


def test_the_same_seed_gives_the_same_stages_and_another_seed_others():
    assert stages(RATE, "default", 7) == stages(RATE, "default", 7)
    assert [s.seed for s in stages(RATE, "default", 7)] != [
        s.seed for s in stages(RATE, "default", 8)
    ]


def test_an_unknown_budget_is_refused_naming_the_field():
    with pytest.raises(ValueError, match="budget: must be one of quick, default, thorough"):
        stages(RATE, "huge", 0)


def test_evidence_is_the_smallest_rate_at_which_the_battery_would_fail():
    # Two checks: Holm's smallest adjusted p of [0.001, 0.5, 0.9] is 0.003; times 2 checks.
    result = _battery([[0.001, 0.5, 0.9], [0.2, 0.4]], 0.01)
    assert math.isclose(evidence(result), 0.006)
    # At exactly that rate the battery would fail; just below it, it would not.
    assert (_battery([[0.001, 0.5, 0.9], [0.2, 0.4]], 0.0061).checks[0].verdict) == "fail"
    assert (_battery([[0.001, 0.5, 0.9], [0.2, 0.4]], 0.0059).checks[0].verdict) == "pass"


def test_a_check_split_over_data_sets_counts_each_set_once_per_share():
    share = 0.01
    result = ValidationResult("m", "s", share)
    details = {"a": _kernel_result([0.002], share / 2), "b": _kernel_result([0.5], share / 2)}
    result.checks.append(CheckOutcome("exact", "pass", "", share, [], details))
    assert math.isclose(evidence(result), 0.004)


def test_unreadable_details_count_against_a_clear_pass():
    result = ValidationResult("m", "s", 0.01)
    result.checks.append(CheckOutcome("exact", "pass", "", 0.01, [], {"a": "error: raised"}))
    assert evidence(result) == 0.0


def test_a_failing_check_ends_the_run_and_a_clear_pass_ends_the_check():
    plan = stages(RATE, "default", 0)
    failing = _battery([[1e-12, 0.5]], plan[0].alpha)
    assert check_step(failing.checks[0], 1, last=False) == "fail"
    clear = _battery([[0.9, 0.95], [0.8]], plan[0].alpha)
    assert evidence(clear) >= CLEAR
    assert [check_step(c, 2, last=False) for c in clear.checks] == ["pass", "pass"]


def test_an_ambiguous_check_goes_on_alone_and_the_last_stage_stands():
    plan = stages(RATE, "default", 0)
    mixed = _battery([[0.001, 0.9], [0.9]], plan[0].alpha)
    assert mixed.verdict == "pass"
    # 0.002 (Holm) x 2 checks < CLEAR: the first goes on; the second is clear.
    assert [check_step(c, 2, last=False) for c in mixed.checks] == ["continue", "pass"]
    assert check_step(mixed.checks[0], 2, last=True) == "pass"


def test_a_check_that_could_not_judge_is_done_without_a_verdict_on_the_sampler():
    plan = stages(RATE, "default", 0)
    reason = Finding("prior", COULD_NOT_JUDGE, gate="the prior is not simulable")
    result = _battery([[0.5], [0.5]], plan[0].alpha, ["pass", COULD_NOT_JUDGE], [[], [reason]])
    assert check_step(result.checks[1], 2, last=False) == COULD_NOT_JUDGE
    assert result.verdict == "pass"


def test_an_inconclusive_check_goes_on_only_when_more_draws_can_cure_it():
    plan = stages(RATE, "default", 0)
    curable = Finding("x", "inconclusive", gate="bulk ESS 212 < 400", draws_per_chain=2400)
    stuck = Finding("x", "inconclusive", gate="R-hat 1.2", draws_per_chain=None)
    for finding, expected in ((curable, "continue"), (stuck, "inconclusive")):
        result = _battery([[0.5]], plan[0].alpha, ["inconclusive"], [[finding]])
        assert check_step(result.checks[0], 1, last=False) == expected


def _z(p):
    """The two-sided normal quantile of ``p``."""
    return stats.norm.isf(p / 2)


def _power(plan, shift, tests):
    """The chance the stages fail a bug whose most sensitive test has z-shift ``shift``
    at the preset's budget (one test of ``tests``, Bonferroni-Holm over all): the
    normal approximation of the module docstring; a stage at ``scale`` times the budget
    shifts it by ``sqrt(scale)``, a stage fails it past the quantile of its rate over
    ``tests`` (later stages, with fewer checks sharing the rate, only do better) and
    stops it as a clear pass below the quantile of ``CLEAR`` over ``tests``."""
    going_on, caught = 1.0, 0.0
    for stage in plan:
        mean = shift * math.sqrt(stage.scale)
        fails = stats.norm.sf(_z(stage.alpha / tests) - mean)
        caught += going_on * fails
        clear = stats.norm.cdf(_z(CLEAR / tests) - mean)
        going_on *= max(0.0, 1.0 - fails - clear)
    return caught


@pytest.mark.parametrize("tests", [1, 5, 20, 100, 300, 1000])
def test_the_stages_lose_no_power_to_the_fixed_battery_they_undercut(tests):
    # A bug that the fixed 1% battery at the preset catches with probability q is caught
    # by the stages, which spend three quarters of that budget on a correct sampler,
    # with probability at least q - 0.01 (the design of the module docstring).
    plan = stages(RATE, "default", 0)
    for q in (0.5, 0.7, 0.9, 0.95, 0.99):
        shift = _z(ALPHA / tests) + stats.norm.ppf(q)
        assert _power(plan, shift, tests) >= q - 0.01


def test_a_first_stage_of_half_the_preset_would_lose_power_at_that_boundary():
    # the twin: the computation above can tell a schedule that undercuts the fixed
    # battery's power (a battery of 100 tests, a bug it catches 9 times in 10)
    plan = stages(RATE, "default", 0)
    half = [dataclasses.replace(stage, scale=stage.scale * 0.5 / FIRST) for stage in plan]
    shift = _z(ALPHA / 100) + stats.norm.ppf(0.9)
    assert _power(half, shift, 100) < 0.9 - 0.01 < _power(plan, shift, 100)


@pytest.mark.parametrize("p", [0.004, 0.009, 0.02, 0.03, 0.1, 0.2])
def test_no_draws_the_fixed_battery_would_fail_on_stop_as_a_clear_pass(p):
    # A check whose draws would fail the fixed 1% battery (evidence below ALPHA) goes
    # on to the larger stages, never stops as a clear pass: the futility boundary lies
    # above the fixed battery's rate; so does evidence up to CLEAR.
    assert CLEAR > ALPHA
    plan = stages(RATE, "default", 0)
    # one check over tests with a single raw p-value: its evidence is 2 p (two checks)
    result = _battery([[p], [0.9]], plan[0].alpha)
    assert math.isclose(evidence(result), 2 * p)
    expected = "continue" if 2 * p < CLEAR else "pass"
    assert check_step(result.checks[0], 2, last=False) == expected
    if 2 * p <= ALPHA:  # the twin: the fixed battery fails these very draws
        assert _battery([[p], [0.9]], ALPHA).verdict == "fail"
