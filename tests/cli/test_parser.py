"""zoo validate's options come from the battery's table, each with its default."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from zoo.cli import main
from zoo.cli.parser import budget_options, build_parser, seed_option
from zoo.cli.validate_command import budgets_from_options
from zoo.core.defaults import BUDGET_PRESETS
from zoo.validation import CHECKS
from zoo.validation.plan import resolve_budgets


def test_every_setting_of_every_check_is_an_option_with_its_default(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["validate", "--help"])
    out = capsys.readouterr().out
    shown = " ".join(out.split())
    for check in CHECKS:
        for setting in check.budget:
            option = check.option(setting)
            assert f"--{option} N" in shown
            assert f"{check.name} {setting.name}" in shown
    for option, owners in budget_options(CHECKS).items():
        (default,) = {setting.default for _, setting in owners}
        where = ", ".join(f"{c.name} {s.name}" for c, s in owners)
        assert f"(governs {where}; default {default}" in shown, option
        for preset, settings in BUDGET_PRESETS.items():
            check, setting = owners[0]
            if setting.name in settings.get(check.name, {}):
                value = settings[check.name][setting.name]
                assert f"{preset} {value}" in shown.split(f"--{option} N", 1)[1], option
                # argparse may wrap a hyphenated name at a hyphen: compared unspaced
                budget_help = "".join(shown.split("--budget", 2)[2].split())
                assert f"--{option}{value}" in budget_help, option
    # argparse wraps a hyphenated name at its hyphen ("posterior-" / "sbc").
    assert f"subsetof{','.join(c.name for c in CHECKS)}" in "".join(shown.split())


def test_the_options_of_0_1_keep_their_names_and_defaults():
    args = build_parser().parse_args(["validate", "beta-binomial"])
    # Not given: None, so that a preset applies under them; validate resolves the
    # defaults of 0.1.
    assert budgets_from_options(args) == {}
    resolved = resolve_budgets(CHECKS, budgets_from_options(args))
    assert resolved["exact"] == {"draws": 1000, "chains": 4, "max_draws": 8000}
    assert resolved["sbc"] == {"simulations": 100, "draws": 200, "chains": 2}
    assert resolved["geweke"] == {
        "iterations": 10000,
        "max_iterations": 20000,
        "marginal_draws": 4000,
    }
    assert resolved["invariance"] == {"replicates": 4000}
    given = build_parser().parse_args(["validate", "beta-binomial", "--draws", "300"])
    assert budgets_from_options(given) == {"exact": {"draws": 300}, "nuts": {"draws": 300}}


def test_every_option_with_a_value_shows_its_default():
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name in ("check", "validate", "report"):
        command = commands.choices[name]
        command.format_help()  # adds zoo validate's options from the battery's table
        for action in command._actions:
            if not action.option_strings or action.nargs == 0:
                continue  # positional, --help, flags
            assert "default" in (action.help or ""), (name, action.option_strings)


def test_a_preset_sets_what_no_option_gives():
    args = build_parser().parse_args(
        ["validate", "beta-binomial", "--budget", "quick", "--simulations", "40"]
    )
    resolved = resolve_budgets(CHECKS, budgets_from_options(args), args.budget)
    assert resolved["sbc"] == {"simulations": 40, "draws": 200, "chains": 2}
    assert resolved["exact"] == {"draws": 250, "chains": 4, "max_draws": 2000}
    # A quarter of Geweke's independent draws and of the invariance replicates too
    assert resolved["geweke"] == {
        "iterations": 2500,
        "max_iterations": 5000,
        "marginal_draws": 1000,
    }
    assert resolved["invariance"] == {"replicates": 1000}
    thorough = resolve_budgets(CHECKS, None, "thorough")
    assert thorough["geweke"]["marginal_draws"] == 4000
    assert thorough["invariance"] == {"replicates": 4000}


def test_an_unknown_preset_exits_2_in_one_line_naming_the_option_and_the_presets(capsys):
    assert main(["validate", "beta-binomial", "--budget", "fast"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "--budget" in err and "'fast'" in err
    assert all(preset in err for preset in BUDGET_PRESETS), err


def test_one_option_sets_every_check_that_shares_it():
    (owners,) = [owners for option, owners in budget_options(CHECKS).items() if option == "draws"]
    assert [(c.name, s.name) for c, s in owners] == [("exact", "draws"), ("nuts", "draws")]


def test_zoo_list_does_not_import_the_battery():
    # The battery imports the checks and their diagnostics: zoo validate's options are
    # read from it only when zoo validate runs.
    code = (
        "import sys; from zoo.cli import main; main(['list']); "
        "print([m for m in sys.modules if m.startswith('zoo.validation')])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--sbc-chains", "0", "--sbc-chains: must be an integer >= 1, got 0"),
        ("--geweke-iterations", "199", "--geweke-iterations: must be an integer >= 200"),
        (
            "--geweke-max-iterations",
            "5000",
            "--geweke-max-iterations: must be >= iterations = 10000 (the chains' first "
            "length), got 5000",
        ),
    ],
)
def test_a_bad_budget_exits_2_naming_the_option(option, value, message, capsys):
    assert main(["validate", "beta-binomial", option, value, "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"zoo validate: {message}" or err.startswith(f"zoo validate: {message}")
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "seed"), [("0", 0), ("42", 42), (" 7 ", 7), ("9223372036854775807", 2**63 - 1)]
)
def test_seed_option_takes_decimal_digits_up_to_the_largest_seed(text, seed):
    # The refusals (1e23, 0x10, 1_000, 2**63, ...) are rows of docs/bad-inputs.md.
    assert seed_option(text) == seed
    assert build_parser().parse_args(["check", "--seed", text]).seed == seed
