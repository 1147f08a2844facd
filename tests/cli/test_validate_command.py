"""What ``zoo validate`` says on standard error when it is not a terminal."""

from zoo.cli import main

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
