"""zoo validate's options come from the battery's table, each with its default."""

from __future__ import annotations

import subprocess
import sys

import pytest

from zoo.cli import main
from zoo.cli.parser import budget_options, build_parser
from zoo.validation import CHECKS


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
        assert f"({where}; default {default}," in shown, option
    # argparse wraps a hyphenated name at its hyphen ("posterior-" / "sbc").
    assert f"subsetof{','.join(c.name for c in CHECKS)}" in "".join(out.split())


def test_the_options_of_0_1_keep_their_names_and_defaults():
    args = build_parser().parse_args(["validate", "beta-binomial"])
    assert (args.draws, args.chains) == (1000, 4)
    assert (args.simulations, args.sbc_draws, args.sbc_chains) == (100, 200, 2)
    assert args.geweke_iterations == 10000
    assert args.geweke_max_iterations == 80000


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
