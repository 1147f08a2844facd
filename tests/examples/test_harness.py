"""The examples' shared harness: importable as a script's sibling and as ``examples.harness``."""

import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from examples import harness, pump_failures
from tests.test_examples import OUTSIDE_EXAMPLES

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = OUTSIDE_EXAMPLES


def _python(*args, cwd):
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


@pytest.mark.parametrize("script", SCRIPTS)
def test_an_example_run_as_a_script_finds_the_harness_beside_it(script, tmp_path):
    # From elsewhere than the root: only examples/ (the script's folder) is on the path.
    # An unknown --only name stops before any fit, after the harness parsed the arguments.
    result = _python(str(ROOT / "examples" / script), "--only", "no-such-bug", cwd=tmp_path)
    assert result.returncode == 1
    assert "--only: unknown ['no-such-bug']; choose from" in result.stderr
    assert "correct" in result.stderr


def test_an_example_imported_by_location_from_the_root_uses_the_package_harness():
    # As `zoo validate --model examples.pump_failures:model` loads it, in a fresh process.
    code = (
        "from zoo.core.loading import load_object\n"
        "kernel = load_object('examples.pump_failures:kernel', field='kernel')\n"
        "bug = load_object('examples.pump_failures:BUG_SAMPLERS', field='sampler')\n"
        "import sys\n"
        "print(type(next(iter(bug.values()))).__module__, 'harness' in sys.modules)\n"
    )
    result = _python("-c", code, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["examples.harness", "False"]


def test_bug_sampler_names_the_example_and_pickles_with_its_kernel():
    bug = pump_failures.BUG_SAMPLERS["no-exposure"]
    assert bug.__module__ == "examples.pump_failures"
    assert bug.__qualname__ == "BUG_SAMPLERS['no-exposure']"
    restored = pickle.loads(pickle.dumps(bug))
    assert restored.kernel.step is pump_failures.step_no_exposure
    assert restored.warmup == pump_failures.WARMUP


def test_run_keeps_draws_after_warmup_on_one_stream_per_chain():
    data = {"y": pump_failures.FAILURES, "t": pump_failures.EXPOSURE}
    data.update(beta_shape=pump_failures.BETA_SHAPE, beta_rate=pump_failures.BETA_RATE)
    kernel = pump_failures.kernel
    out = harness.run(kernel, data, draws=3, chains=2, seed=7, warmup=2)
    # chain 1 by hand: its own spawned stream, two warm-up steps, then three kept
    rng = np.random.default_rng(7).spawn(2)[1]
    state = kernel.init(data, rng)
    for _ in range(2):
        state = kernel.step(state, data, rng)
    for d in range(3):
        state = kernel.step(state, data, rng)
        np.testing.assert_array_equal(out["theta"][1, d], state["theta"])
    assert out["beta"].shape == (2, 3)


@pytest.mark.parametrize(
    ("bad", "field"),
    [({"draws": 0}, "draws"), ({"chains": 2.0}, "chains"), ({"warmup": -1}, "warmup")],
)
def test_run_refuses_bad_settings_naming_them(bad, field):
    settings = {"draws": 2, "chains": 1, "seed": 0, "warmup": 0, **bad}
    with pytest.raises(ValueError, match=field):
        harness.run(pump_failures.kernel, {}, **settings)


def test_settings_take_defaults_from_the_environment_and_flags_over_them(monkeypatch):
    monkeypatch.setenv("ZOO_EXAMPLE_DRAWS", "250")
    monkeypatch.setenv("ZOO_EXAMPLE_SEED", "9")
    args = harness.settings("d", ["--seed", "4", "--only", "correct", "--sampler"])
    assert (args.draws, args.chains, args.seed, args.simulations) == (250, 4, 4, 100)
    assert args.only == "correct" and args.sampler and args.checks is None


def test_main_refuses_an_unknown_name_before_any_fit():
    example = harness.Example(
        "pumps", pump_failures.model, pump_failures.kernel, pump_failures.sampler
    )
    with pytest.raises(SystemExit, match=r"unknown \['typo'\]"):
        harness.main("d", [example], ["--only", "correct,typo"])
