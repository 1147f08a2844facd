"""The sampling driver: interruption keeps what was drawn; seeds are recorded."""

import numpy as np
import pytest

import zoo
from zoo.models.beta_binomial import Data, Prior

SPEC = zoo.get("beta-binomial")


def test_interrupted_run_keeps_completed_draws():
    calls = {"n": 0}

    def step(state, data, prior, rng):
        calls["n"] += 1
        if calls["n"] == 3 * 17 + 2:  # mid-way through the 18th sweep of 3 chains
            raise KeyboardInterrupt
        return SPEC.kernel.step(state, data, prior, rng)

    kernel = SPEC.kernel._replace(step=step)
    data, prior = Data([3, 4], [10, 12]), Prior()
    with pytest.warns(RuntimeWarning, match="interrupted"):
        tree = zoo.sample(SPEC, data, prior, draws=100, tune=5, chains=3, seed=1, kernel=kernel)
    posterior = tree["posterior"]
    assert posterior.sizes["draw"] == 17 - 5
    assert posterior.attrs["interrupted"]
    assert np.isfinite(posterior["theta"].values).all()
    # the kept draws are exactly those of an uninterrupted run with the same seed
    full = zoo.sample(SPEC, data, prior, draws=100, tune=5, chains=3, seed=1)
    np.testing.assert_array_equal(
        posterior["theta"].values, full["posterior"]["theta"].values[:, :12]
    )
    # ... with the log-likelihood of each kept draw
    assert tree["log_likelihood"]["y"].sizes["draw"] == 12
    np.testing.assert_array_equal(
        tree["log_likelihood"]["y"].values, full["log_likelihood"]["y"].values[:, :12]
    )
    assert tree["sample_stats"]["log_likelihood_total"].shape == (3, 12)


def test_interrupt_during_tuning_propagates():
    def step(state, data, prior, rng):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        zoo.sample(
            SPEC, Data([1], [2]), Prior(), draws=5, tune=5, kernel=SPEC.kernel._replace(step=step)
        )


def test_fresh_seed_is_recorded_and_replays():
    data, prior = Data([3, 4], [10, 12]), Prior(a=1, b=2)
    first = zoo.sample(SPEC, data, prior, draws=10, chains=2)
    seed = int(first["posterior"].attrs["seed"])
    again = zoo.sample(SPEC, data, prior, draws=10, chains=2, seed=seed)
    np.testing.assert_array_equal(
        first["posterior"]["theta"].values, again["posterior"]["theta"].values
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kernel": 42}, "kernel: needs callable init, step and draw.*int lacks init, step, draw"),
        ({"kernel": SPEC.kernel._replace(draw=None)}, "kernel: .* lacks draw"),
        ({"kernel": SPEC.kernel, "engine": "pymc"}, "kernel: only the gibbs engine"),
        ({"draws": 0}, "draws"),
        ({"cores": 2}, "cores: only the pymc engine"),
        ({"cores": 0, "engine": "pymc"}, "cores: must be an integer >= 1"),
    ],
)
def test_bad_arguments_are_refused_before_any_sweep(kwargs, message):
    with pytest.raises(ValueError, match=message):
        zoo.sample(SPEC, Data([1], [2]), Prior(), **kwargs)
