"""What ``zoo validate`` says on standard error when it is not a terminal."""

import pytest

from zoo.cli import main
from zoo.cli.parser import build_parser
from zoo.cli.validate_command import fit_workers
from zoo.sampling.parallel import FitPool

COMMAND = [
    "validate",
    "--model",
    "tests.support.pymc_models:beta_binomial",
    "--sampler",
    "tests.support.pymc_models:right",
    "--checks",
    "exact,sbc",
    "--budget",
    "quick",
    "--simulations",
    "20",
    "--workers",
    "0",
]


def test_a_plan_line_first_then_a_line_as_each_check_starts_and_ends(capsys):
    assert main(COMMAND) == 0
    lines = capsys.readouterr().err.splitlines()
    plan = lines[0]
    assert plan.startswith("zoo validate: plan: exact (draws 250, chains 4, max_draws 2000)")
    assert "sbc (simulations 20, draws 200, chains 2)" in plan  # the option over the preset
    assert "(an estimate from two timed fits" in plan
    progress = [line for line in lines[1:] if line.startswith("zoo validate: ")]
    assert len(progress) == 4, lines
    assert progress[0] == "zoo validate: exact: started"
    assert progress[1].startswith("zoo validate: exact: pass in ")
    assert progress[2] == "zoo validate: sbc: started"
    assert progress[3].startswith("zoo validate: sbc: pass in ")
    assert progress[3].endswith(" s")


def test_quiet_says_nothing_on_standard_error(capsys):
    assert main([*COMMAND, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def _args(*options, user_code=False, supervised=False):
    """``zoo validate`` arguments as the program reads them (beta-binomial's)."""
    args = build_parser().parse_args(["validate", "beta-binomial", *options])
    args.user_code, args.supervised = user_code, supervised
    return args


def test_quick_runs_its_fits_in_the_battery_process_unless_told_otherwise():
    assert fit_workers(_args("--budget", "quick")) == 0
    assert fit_workers(_args("--budget", "quick", user_code=True, supervised=True)) == 0
    # Told otherwise: workers, a scheduler, or a timeout (which needs workers).
    assert fit_workers(_args("--budget", "quick", "--workers", "2")) == 2
    assert fit_workers(_args("--budget", "quick", "--timeout", "30")) is None
    assert fit_workers(_args("--budget", "quick", "--scheduler", "tcp://h:8786")) is None
    # --in-process keeps the user's sampler on workers unless --workers 0.
    assert fit_workers(_args("--budget", "quick", user_code=True, supervised=False)) is None
    # The other presets: one worker per core.
    assert fit_workers(_args()) is None
    assert fit_workers(_args("--budget", "thorough")) is None


def test_a_quick_run_starts_no_cluster(monkeypatch, capsys):
    def no_cluster(self):
        raise AssertionError("a quick run started a Dask cluster")

    monkeypatch.setattr(FitPool, "_start_local_cluster", no_cluster)
    command = ["validate", "beta-binomial", "--budget", "quick", "--checks", "exact", "--quiet"]
    assert main(command) == 0
    with pytest.raises(AssertionError, match="started a Dask cluster"):
        main([*command, "--workers", "1"])
