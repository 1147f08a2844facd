"""A check describes itself: adding one is its module and one entry in a table.

The tiny check here is written as a check of the battery would be (its run, its
:class:`Check` entry with a budget and a stream of its own) and put in a copy of the
table: the command line's options, ``validate(budgets=...)`` and the report pick it
up with no other file touched.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from zoo.cli.parser import build_parser
from zoo.cli.validate_command import budgets_from_options
from zoo.core import streams
from zoo.core.defaults import BUDGET_PRESETS
from zoo.reports.validation_report import validation_report
from zoo.sampling.parallel import Task
from zoo.validation import CHECKS, Check, Setting, validate
from zoo.validation.plan import resolve_budgets
from zoo.validation.results import CheckOutcome
from zoo.validation.sampler_under_test import fit_task


def _finite_draws_run(plan, pool, alpha):
    """Fit the first data set once; pass when every draw is finite."""
    started = time.perf_counter()
    problem = plan.problems[0]
    seed = streams.integer(streams.item(plan.seed, FINITE.purpose, 0))
    arguments = (plan.tested, problem.data, problem.prior, plan.budget["draws"], 2, seed)
    (outcome,) = pool.run([Task("finite-0", fit_task, arguments)])
    finite = outcome.status == "ok" and all(
        np.isfinite(outcome.value[name].values).all() for name in outcome.value.data_vars
    )
    head = f"{problem.name}: 2 x {plan.budget['draws']} draws"
    return CheckOutcome(
        "finite",
        "pass" if finite else "fail",
        head,
        alpha,
        details={"draws": outcome.value.sizes["draw"] if outcome.status == "ok" else 0},
        seconds=time.perf_counter() - started,
        head=head,
    )


FINITE = Check(
    "finite",
    "Finite draws",
    _finite_draws_run,
    "finite-fits",
    budget=(Setting("draws", 50, "draws per chain of the one fit", minimum=10),),
    description="One fit of the first data set: every draw must be a finite number.",
)
TABLE = (*CHECKS, FINITE)


def test_a_check_in_a_copy_of_the_table_gets_its_option_with_its_default():
    parser = build_parser(TABLE)
    validate_help = parser._subparsers._group_actions[0].choices["validate"].format_help()
    assert "--finite-draws N" in validate_help
    assert "draws per chain of the one fit (governs finite draws; default 50; at least 10)" in (
        " ".join(validate_help.split())
    )
    # The help's list of checks is the table's, whatever the battery holds.
    assert ",".join(check.name for check in TABLE) in "".join(validate_help.split())
    args = parser.parse_args(["validate", "beta-binomial", "--finite-draws", "30"])
    assert budgets_from_options(args, TABLE)["finite"] == {"draws": 30}
    args = parser.parse_args(["validate", "beta-binomial", "--finite-draws", "3"])
    with pytest.raises(ValueError, match="--finite-draws: must be an integer >= 10, got 3"):
        budgets_from_options(args, TABLE)


def test_a_check_of_ones_own_runs_with_its_budget_stream_and_report_section():
    result = validate(
        "beta-binomial", checks=("exact", FINITE), budgets={"finite": {"draws": 40}}, workers=0
    )
    assert [c.name for c in result.checks] == ["exact", "finite"]
    assert result.checks[1].verdict == "pass"
    assert result.checks[1].details == {"draws": 40}
    assert result.settings["budgets"]["finite"] == {"draws": 40}
    report = validation_report(result, table=TABLE)
    (section,) = [s for s in report.sections if s.title == "Finite draws"]
    assert FINITE.description in " ".join(section.paragraphs)


def test_a_check_on_another_checks_stream_is_refused():
    copycat = Check("copycat", "Copycat", _finite_draws_run, "sbc-simulations")
    with pytest.raises(ValueError, match="'sbc-simulations' is the stream of check sbc"):
        validate("beta-binomial", checks=(copycat,), workers=0)
    engine = Check("engine", "Engine", _finite_draws_run, "pymc")
    with pytest.raises(ValueError, match="the pymc engine stream"):
        validate("beta-binomial", checks=(engine,), workers=0)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "Exact Check"}, "Check.name: lower-case words"),
        ({"purpose": "fits_2"}, "Check.purpose: lower-case words"),
        ({"default_on": ("stan",)}, "Check.default_on"),
        ({"budget": (Setting("n", 1, "n"), Setting("n", 2, "n"))}, "names a setting twice"),
    ],
)
def test_a_malformed_entry_is_refused_when_written(fields, message):
    entry = {"name": "ok", "title": "OK", "run": _finite_draws_run, "purpose": "ok-fits"}
    with pytest.raises(ValueError, match=message):
        Check(**{**entry, **fields})


def test_every_check_of_the_battery_has_a_stream_and_a_title_of_its_own():
    assert len({c.purpose for c in CHECKS}) == len({c.title for c in CHECKS}) == len(CHECKS)
    assert not {c.purpose for c in CHECKS} & set(streams.PURPOSES)


def test_budgets_default_to_the_entries_and_take_overrides():
    resolved = resolve_budgets(CHECKS, {"sbc": {"simulations": 200}, "exact": {"draws": 2000}})
    assert resolved["sbc"] == {"simulations": 200, "draws": 200, "chains": 2}
    assert resolved["exact"] == {"draws": 2000, "chains": 4, "max_draws": 8000}
    assert resolved["nuts"] == {"draws": 1000, "chains": 4}
    assert resolved["geweke"] == {
        "iterations": 10000,
        "max_iterations": 20000,
        "marginal_draws": 4000,
    }
    assert resolved["invariance"] == {"replicates": 4000}


def test_every_preset_names_checks_and_settings_of_the_battery_within_their_rules():
    for preset in BUDGET_PRESETS:
        resolved = resolve_budgets(CHECKS, None, preset)
        for check_name, settings in BUDGET_PRESETS[preset].items():
            assert resolved[check_name] == {**resolved[check_name], **settings}
    assert resolve_budgets(CHECKS, None, "default") == resolve_budgets(CHECKS, None)


def test_a_budget_overrides_its_setting_of_the_preset_only():
    resolved = resolve_budgets(CHECKS, {"sbc": {"draws": 100}}, "thorough")
    assert resolved["sbc"] == {"simulations": 400, "draws": 100, "chains": 2}
    assert resolved["exact"]["draws"] == 4000


def test_an_unknown_preset_is_refused_naming_budget_and_the_presets():
    with pytest.raises(ValueError, match=r"budget: must be one of quick, default, thorough"):
        resolve_budgets(CHECKS, None, "fast")
    with pytest.raises(ValueError, match=r"budget: must be one of .*got 'fast'"):
        validate("beta-binomial", budget="fast", workers=0)
