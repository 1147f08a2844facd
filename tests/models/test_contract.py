"""Every registered model honours the whole contract (later models get this for free)."""

import copy

import numpy as np
import pytest
import xarray as xr

import zoo
from zoo.core.contract import Kernel
from zoo.diagnostics import NoReference, Reference

MODELS = zoo.names()


def _sizes(data, dims):
    return tuple(len(data.coords[d]) for d in dims)


@pytest.fixture(scope="module", params=MODELS)
def model(request):
    spec = zoo.get(request.param)
    data, prior = spec.default_problem()
    return spec, data, prior


def test_default_problem_types(model):
    spec, data, prior = model
    assert isinstance(data, spec.Data)
    assert isinstance(prior, spec.Prior)
    assert set(spec.variables(prior)), "a model declares at least one variable"


def test_comparable_variables_are_variables(model):
    spec, _, prior = model
    comparable = spec.comparable_variables(prior)
    assert comparable, "a model compares at least one variable"
    assert set(comparable) <= set(spec.variables(prior))


def test_simulate_matches_variables(model):
    spec, _, _ = model
    prior, size = spec.simulation_setup()
    truth, data = spec.simulate(prior, np.random.default_rng(0), **size)
    assert isinstance(data, spec.Data)
    assert set(truth) == set(spec.variables(prior))
    for name, dims in spec.variables(prior).items():
        assert np.shape(truth[name]) == _sizes(data, dims), name
    again, _ = spec.simulate(prior, np.random.default_rng(0), **size)
    for name in truth:
        np.testing.assert_array_equal(truth[name], again[name])


def test_posterior_reference_shapes(model):
    spec, data, prior = model
    reference = spec.posterior(data, prior)
    assert isinstance(reference, Reference | NoReference)
    variables = spec.variables(prior)
    for name, marginal in reference.marginals.items():
        assert name in variables
        assert marginal.dims == variables[name]
        assert marginal.shape == _sizes(data, marginal.dims)


def test_kernel_is_pure_and_draws_every_variable(model):
    spec, data, prior = model
    assert isinstance(spec.kernel, Kernel)
    rng = np.random.default_rng(1)
    state = spec.kernel.init(data, prior, rng)
    before = copy.deepcopy(state)
    new_state = spec.kernel.step(state, data, prior, rng)
    for old, kept in zip(before, state, strict=True):
        np.testing.assert_array_equal(old, kept)  # step must not modify its input
    values = spec.kernel.draw(new_state, data, prior, rng)
    for name, dims in spec.variables(prior).items():
        assert np.shape(values[name]) == _sizes(data, dims), name
        assert np.all(np.isfinite(values[name])), name
    for fault in spec.faults.values():
        assert isinstance(fault, Kernel)


def test_gibbs_output_is_shaped_like_pymc(model):
    spec, data, prior = model
    tree = zoo.sample(spec, data, prior, draws=30, tune=10, chains=2, seed=3)
    assert isinstance(tree, xr.DataTree)
    assert {"posterior", "sample_stats", "observed_data"} <= set(tree.children)
    posterior = tree["posterior"]
    assert posterior.sizes["chain"] == 2 and posterior.sizes["draw"] == 30
    for name, dims in spec.variables(prior).items():
        assert posterior[name].dims == ("chain", "draw", *dims)
        for d in dims:
            np.testing.assert_array_equal(posterior[d].values, data.coords[d])
    assert posterior.attrs["engine"] == "gibbs"
    assert posterior.attrs["zoo_model"] == spec.name


def test_gibbs_same_seed_same_draws_bit_for_bit(model):
    spec, data, prior = model
    first = zoo.sample(spec, data, prior, draws=25, tune=5, chains=2, seed=11)
    second = zoo.sample(spec, data, prior, draws=25, tune=5, chains=2, seed=11)
    other = zoo.sample(spec, data, prior, draws=25, tune=5, chains=2, seed=12)
    for name in spec.variables(prior):
        a, b = first["posterior"][name].values, second["posterior"][name].values
        assert a.tobytes() == b.tobytes(), name
    assert any(
        not np.array_equal(first["posterior"][n].values, other["posterior"][n].values)
        for n in spec.variables(prior)
    )


def test_program_declares_the_same_variables(model):
    spec, data, prior = model
    pymc_model = spec.program(data, prior)
    named = pymc_model.named_vars
    for name, dims in spec.variables(prior).items():
        assert name in named, name
        assert tuple(pymc_model.named_vars_to_dims.get(name, ())) == dims, name


@pytest.mark.pymc
@pytest.mark.parametrize(
    "name",
    # The mixture programs' layouts are also checked by their own test_pymc modules;
    # here with -m slow, to keep the default run under its 10 minutes.
    [pytest.param(n, marks=() if n == "beta-binomial" else pytest.mark.slow) for n in MODELS],
)
def test_pymc_output_matches_gibbs_layout(name):
    spec = zoo.get(name)
    data, prior = spec.default_problem()
    gibbs = zoo.sample(spec, data, prior, draws=20, tune=10, chains=2, seed=0)
    pymc = zoo.sample(spec, data, prior, engine="pymc", draws=20, tune=20, chains=2, seed=0)
    for name in spec.variables(prior):
        assert pymc["posterior"][name].dims == gibbs["posterior"][name].dims
        assert pymc["posterior"][name].shape == gibbs["posterior"][name].shape
    assert set(pymc["observed_data"].data_vars) == set(gibbs["observed_data"].data_vars)
    assert pymc["posterior"].attrs["engine"] == "pymc"
