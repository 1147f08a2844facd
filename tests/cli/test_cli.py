"""The `zoo` command."""

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import zoo
from zoo import registry
from zoo.cli import main
from zoo.cli.stdout_guard import CAP

ROOT = Path(__file__).resolve().parents[2]


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
@pytest.mark.slow  # 28 s: the default run stays under 10 minutes on 2 cores, cold
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


def test_a_reader_that_stops_early_gets_no_traceback():
    # `zoo list --faults | head -1`: the pipe closes under the command's output.
    reader = subprocess.Popen(
        [sys.executable, "-m", "zoo.cli", "list", "--faults"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )
    # Closed before the command has started up (imports take a good part of a second),
    # so that its first write meets the closed pipe, as a `head` that has had enough.
    reader.stdout.close()
    _, err = reader.communicate(timeout=60)
    assert err == b""
    assert reader.returncode == 141


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


def test_json_stdout_holds_only_the_json_whatever_the_sampler_prints(tmp_path):
    # A user's module that prints on import and on every fit, in a Dask worker: the
    # text goes to stderr, capped, and stdout parses as JSON. (In the zoo's own process,
    # --workers 0, test_stdout_guard checks the same with writes from a thread and at
    # exit; one guard caps both, zoo.cli.stdout_guard.)
    (tmp_path / "chatty.py").write_text(
        "import print_helper\n"
        "from tests.support.user_samplers import beta_binomial_conjugate\n"
        "print('chatty imported')\n"
        "def sampler(data, prior, *, draws, chains, seed):\n"
        "    print('chatty fit')\n"
        "    import os\n"
        "    os.write(1, b'chatty at the file descriptor\\n')\n"
        "    print('x' * 100_000)  # far beyond the cap\n"
        "    return beta_binomial_conjugate(data, prior, draws=draws, chains=chains, seed=seed)\n"
    )
    (tmp_path / "print_helper.py").write_text("print('a helper module prints too')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "zoo.cli", "validate", "beta-binomial", "--sampler",
         "chatty:sampler", "--problems", "informative-fixed", "--checks", "exact",
         "--json", "--quiet", "--workers", "1"],
        capture_output=True, text=True, env=env, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdict"] == "pass"
    assert "chatty fit" in done.stderr and "chatty at the file descriptor" in done.stderr
    # Capped: the first 64 KiB, then a word on what was not shown.
    assert len(done.stderr) < CAP + 1000
    assert "bytes of the sampler's output were not shown" in done.stderr


def test_an_interrupted_run_says_what_it_kept_and_which_engine_did_not_run():
    # zoo report of an interrupted run once showed the draws asked for and an AGREE
    # that read as a full check although PyMC never ran.
    from tests.support.report_problems import gibbs_check
    from zoo.cli.terminal import _drawn

    check = gibbs_check(draws=300)
    check.run.interrupted = True
    assert _drawn(check) == (
        "interrupted: gibbs 2 chains x 300 draws, pymc not run; asked draws 300 x 2 chains"
    )
