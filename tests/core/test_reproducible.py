"""PyMC draws that do not depend on the state of PyTensor's cache (zoo.core.reproducible)."""

import os
import subprocess
import sys

import numpy as np
import pytest

from zoo.core.reproducible import ieee_arithmetic


def test_fast_math_is_off_inside_and_restored_after(monkeypatch):
    import pytensor

    monkeypatch.delenv("PYTENSOR_FLAGS", raising=False)
    before = pytensor.config.numba__fastmath
    with ieee_arithmetic():
        assert pytensor.config.numba__fastmath is False
        # the processes PyMC starts for its chains read it from the environment
        assert os.environ["PYTENSOR_FLAGS"] == "numba__fastmath=False"
    assert pytensor.config.numba__fastmath == before
    assert "PYTENSOR_FLAGS" not in os.environ


def test_other_flags_are_kept_and_an_explicit_choice_wins(monkeypatch):
    import pytensor

    monkeypatch.setenv("PYTENSOR_FLAGS", "floatX=float64")
    with ieee_arithmetic():
        assert os.environ["PYTENSOR_FLAGS"] == "floatX=float64,numba__fastmath=False"
    assert os.environ["PYTENSOR_FLAGS"] == "floatX=float64"
    monkeypatch.setenv("PYTENSOR_FLAGS", "numba__fastmath=True")
    before = pytensor.config.numba__fastmath
    with ieee_arithmetic():
        assert pytensor.config.numba__fastmath == before
        assert os.environ["PYTENSOR_FLAGS"] == "numba__fastmath=True"


_DRAW = """
import sys, numpy as np, zoo
from zoo.models import naive_bayes as nb
data, prior = nb.default_problem()
tree = zoo.sample("naive-bayes", data, prior, engine="pymc", draws=50, tune=50, chains=2,
                  seed=3, progress=False)
np.save(sys.argv[1], tree.posterior["phi"].values)
"""


@pytest.mark.slow
def test_same_seed_same_pymc_draws_on_a_cold_and_a_warm_cache(tmp_path):
    # With fast math these differed (Naive Bayes: its log density by an ulp, then NUTS's
    # trajectories); the small Beta-Binomial program did not show it.
    env = {**os.environ, "PYTENSOR_FLAGS": f"base_compiledir={tmp_path / 'cache'}"}
    for name in ("cold", "warm"):
        subprocess.run(
            [sys.executable, "-c", _DRAW, str(tmp_path / f"{name}.npy")], env=env, check=True
        )
    np.testing.assert_array_equal(np.load(tmp_path / "cold.npy"), np.load(tmp_path / "warm.npy"))
