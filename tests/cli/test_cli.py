"""The `zoo` command."""

import dataclasses
import json
import subprocess
import sys

import pytest

import zoo
from zoo import registry
from zoo.cli import main


def test_list_names_every_model(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in zoo.names():
        assert name in out


def test_unknown_model_exits_2(capsys):
    assert main(["check", "no-such-model"]) == 2
    assert "unknown model" in capsys.readouterr().err


@pytest.mark.pymc
def test_check_json_agrees_and_exits_0(capsys):
    status = main(["check", "beta-binomial", "--json", "--seed", "1", "--quiet"])
    payload = json.loads(capsys.readouterr().out)
    assert status == 0, payload["models"][0]["verdict"]
    (model,) = payload["models"]
    assert model["model"] == "beta-binomial"
    assert model["verdict"] == "agree"
    for key in ("gibbs_vs_exact", "pymc_vs_exact", "gibbs_vs_pymc"):
        assert model[key]["verdict"] == "agree"
        assert model[key]["rows"]


@pytest.fixture
def broken_model():
    spec = zoo.get("beta-binomial")
    broken = dataclasses.replace(
        spec, name="beta-binomial-broken", kernel=spec.faults["failures-as-trials"]
    )
    zoo.register(broken)
    yield broken
    registry._registered.pop(broken.name)


@pytest.mark.pymc
def test_check_of_a_wrong_sampler_exits_1_and_names_it(broken_model, capsys):
    status = main(["check", broken_model.name, "--seed", "1", "--quiet"])
    out = capsys.readouterr().out
    assert status == 1
    assert "DISAGREE" in out
    assert "theta[group=" in out  # the failing quantities are listed


def test_console_script_is_installed():
    result = subprocess.run(
        [sys.executable, "-m", "zoo.cli", "list"], capture_output=True, text=True, check=True
    )
    assert "beta-binomial" in result.stdout


@pytest.mark.pymc
def test_progress_displays_work_for_both_engines():
    # PyMC's rich progress bar imports matplotlib without declaring it; a terminal run
    # of `zoo check` once crashed on that.
    from zoo.models.beta_binomial import Data, Prior

    data, prior = Data([3, 5], [10, 12]), Prior(a=1.0, b=1.0)
    for engine in ("gibbs", "pymc"):
        tree = zoo.sample(
            "beta-binomial",
            data,
            prior,
            engine=engine,
            draws=20,
            tune=20,
            chains=2,
            seed=0,
            progress=True,
        )
        assert tree["posterior"].sizes["draw"] == 20
