"""Each example follows the protocol of ``zoo validate --model``: names, shapes, seeds, purity."""

import copy
import pickle

import numpy as np
import pytest

import zoo
from examples import harness

SMALL = {"draws": 50, "chains": 2, "seed": 3}


def test_sampler_returns_every_free_variable_with_its_model_shape(example):
    _, forms, pm_model, data = example
    out = forms.sampler(data, **SMALL)
    free = {rv.name for rv in pm_model.free_RVs}
    assert set(out) == free
    for name in free:
        dims = pm_model.named_vars_to_dims.get(name, ())
        shape = tuple(len(pm_model.coords[d]) for d in dims)
        assert out[name].shape == (2, 50, *shape), name
        assert np.isfinite(out[name]).all(), name


def test_data_holds_exactly_the_observed_and_data_variables(example):
    _, forms, pm_model, data = example
    names = {rv.name for rv in pm_model.observed_RVs} | {d.name for d in pm_model.data_vars}
    assert set(data) == names
    # every name is read: without one, the sampler cannot run
    for name in data:
        partial = {k: v for k, v in data.items() if k != name}
        with pytest.raises(KeyError, match=name):
            forms.sampler(partial, **SMALL)


def test_same_seed_gives_the_same_draws_bit_for_bit(example):
    _, forms, _, data = example
    first, again = forms.sampler(data, **SMALL), forms.sampler(data, **SMALL)
    other = forms.sampler(data, **{**SMALL, "seed": 4})
    for name in first:
        np.testing.assert_array_equal(first[name], again[name])
        assert not np.array_equal(first[name], other[name])
    # the chains are distinct streams
    for name in first:
        assert not np.array_equal(first[name][0], first[name][1])


def test_kernel_is_a_zoo_kernel_whose_step_leaves_its_argument_alone(example):
    _, forms, pm_model, data = example
    kernels = {"correct": forms.kernel, **forms.bug_kernels}
    for name, kernel in kernels.items():
        assert isinstance(kernel, zoo.Kernel), name
        rng = np.random.default_rng(0)
        state = kernel.init(data, rng)
        assert set(state) == {rv.name for rv in pm_model.free_RVs}
        before = copy.deepcopy(state)
        after = kernel.step(state, data, rng)
        for key in state:
            np.testing.assert_array_equal(state[key], before[key])
            assert after[key] is not state[key]
        drawn = kernel.draw(after, data, rng)
        assert set(drawn) == set(state)


def test_bug_samplers_are_the_bug_kernels_looped_and_pickle_by_reference(example):
    _, forms, _, data = example
    assert list(forms.bug_samplers) == list(forms.bug_kernels)
    assert len(forms.bug_kernels) >= 3
    for name, bug in forms.bug_samplers.items():
        restored = pickle.loads(pickle.dumps(bug))
        assert repr(restored) == f"{bug.collection}[{name!r}]"
        direct = harness.run(forms.bug_kernels[name], data, **SMALL, warmup=bug.warmup)
        looped = restored(data, **SMALL)
        for variable in direct:
            np.testing.assert_array_equal(direct[variable], looped[variable])


def test_bad_settings_are_refused_before_any_work(example):
    _, forms, _, data = example
    for bad in ({"draws": 0}, {"chains": 1.5}, {"draws": True}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            forms.sampler(data, **{**SMALL, **bad})
