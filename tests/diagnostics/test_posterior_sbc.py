"""zoo.diagnostics.posterior_sbc: reference draws, one simulation's record."""

import dataclasses

import numpy as np
import xarray as xr

from zoo.diagnostics.posterior_sbc import posterior_simulation_ranks, reference_draws
from zoo.diagnostics.sbc import SIMULATION_ERROR
from zoo.models.beta_binomial import MODEL
from zoo.validation.sampler_under_test import SamplerUnderTest


def _ar1(chains=2, length=2000, rho=0.95, seed=0):
    rng = np.random.default_rng(seed)
    x = np.zeros((chains, length))
    for t in range(1, length):
        x[:, t] = rho * x[:, t - 1] + np.sqrt(1 - rho**2) * rng.standard_normal(chains)
    return xr.Dataset({"x": (("chain", "draw"), x)})


def test_reference_draws_are_thinned_to_the_ess_and_spread_evenly():
    run = _ar1()
    chosen = reference_draws(run, 20)
    # rho = 0.95: ESS about n (1 - rho) / (1 + rho), so far fewer draws are kept than run.
    assert 20 <= chosen.available < 400
    assert chosen.min_ess < 400
    assert len(chosen.draws) == 20
    values = run["x"].values.ravel()
    assert all(np.isin(draw["x"], values) for draw in chosen.draws)
    # Evenly spread: from both chains, not the first 20 of one.
    first_chain = run["x"].values[0]
    assert not all(np.isin(draw["x"], first_chain) for draw in chosen.draws)


def test_reference_draws_say_when_fewer_are_left_than_asked():
    chosen = reference_draws(_ar1(length=300, rho=0.99), 500)
    assert len(chosen.draws) == chosen.available < 500


def _simulation(index, seed, model=MODEL):
    problems = {name: (data, prior) for name, data, prior in model.validation_problems()}
    data, prior = problems["informative-fixed"]
    truth = {"theta": np.full(data.trials.shape, 0.4)}
    fit = SamplerUnderTest(model).fit
    return posterior_simulation_ranks(
        model, fit, index, seed=seed, data=data, prior=prior, truth=truth, draws=50, chains=2
    )


def test_a_simulation_depends_on_seed_and_index_only():
    first = _simulation(2, seed=7)
    assert first["status"] == "ok"
    assert set(first["ranks"]) >= {"theta[group=0]", "log_likelihood"}
    assert all(0 < u < 1 for u in first["ranks"].values())
    again = _simulation(2, seed=7)
    assert again["ranks"] == first["ranks"]
    assert _simulation(3, seed=7)["ranks"] != first["ranks"]


def _raises(data, params, prior, rng):
    raise FloatingPointError("overflow in the model's own draw")


def test_an_error_of_augment_is_the_models_never_a_failed_fit():
    record = _simulation(0, seed=0, model=dataclasses.replace(MODEL, augment=_raises))
    assert record["status"] == SIMULATION_ERROR
    assert "FloatingPointError: overflow" in record["message"]
