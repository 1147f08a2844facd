"""Bad input gets a ValueError naming the field, before any work; input is never mutated."""

import numpy as np
import pytest

import zoo
from zoo.models.beta_binomial import Data, Prior

SPEC = zoo.get("beta-binomial")


@pytest.mark.parametrize(
    ("successes", "trials", "field", "rule"),
    [
        ([1, -2], [5, 5], "successes", ">= 0"),
        ([1, 2], [5, -5], "trials", ">= 0"),
        ([1, 6], [5, 5], "successes", "must not exceed trials"),
        ([1.5, 2], [5, 5], "successes", "integers"),
        ([1, np.nan], [5, 5], "successes", "finite"),
        ([1, 2], [5, np.inf], "trials", "finite"),
        ([1, 2, 3], [5, 5], "successes and trials", "same length"),
        ([], [], "successes", "at least one group"),
        ([[1, 2]], [[5, 5]], "successes", "1-dimensional"),
        (["a", 2], [5, 5], "successes", "expected numbers"),
    ],
)
def test_bad_data(successes, trials, field, rule):
    with pytest.raises(ValueError, match=rf"^{field}:.*{rule}"):
        Data(successes, trials)


def test_bad_group_labels():
    with pytest.raises(ValueError, match=r"^groups: expected 2 labels"):
        Data([1, 2], [5, 5], groups=["a"])
    with pytest.raises(ValueError, match=r"^groups: labels must be unique"):
        Data([1, 2], [5, 5], groups=["a", "a"])


@pytest.mark.parametrize(
    ("kwargs", "field", "rule"),
    [
        ({"a": 0.0, "b": 1.0}, "a", "> 0"),
        ({"a": 1.0, "b": -1.0}, "b", "> 0"),
        ({"a": np.nan, "b": 1.0}, "a", "finite"),
        ({"a": 1.0}, "a, b", "both"),
        ({"a": "x", "b": 1.0}, "a", "positive number"),
        ({"a": np.array([1.0, 2.0]), "b": 1.0}, "a", "scalar"),
        ({"a": [1.0, 2.0], "b": 1.0}, "a", "positive number"),
        ({"min_concentration": 0.0}, "min_concentration", "> 0"),
        ({"a": 1.0, "b": 1.0, "min_concentration": 1.0}, "min_concentration", "hierarchical"),
    ],
)
def test_bad_prior(kwargs, field, rule):
    with pytest.raises(ValueError, match=rf"^{field}:.*{rule}"):
        Prior(**kwargs)


def test_data_copies_and_freezes_its_arrays():
    successes, trials = np.array([1, 2]), np.array([5, 6])
    data = Data(successes, trials)
    successes[0] = 4
    assert data.successes[0] == 1
    with pytest.raises(ValueError):
        data.successes[0] = 3


def test_with_successes_checks_the_new_successes_and_keeps_the_rest():
    data = Data([1, 2], [5, 5], groups=["a", "b"])
    new = data.with_successes([5, 0])
    np.testing.assert_array_equal(new.successes, [5, 0])
    assert new.trials is data.trials and new.groups is data.groups
    np.testing.assert_array_equal(data.successes, [1, 2])
    assert not new.successes.flags.writeable
    with pytest.raises(ValueError, match=r"^successes:.*must not exceed trials"):
        data.with_successes([6, 0])
    with pytest.raises(ValueError, match=r"^successes: expected shape \(2,\)"):
        data.with_successes([1, 2, 3])
    with pytest.raises(ValueError, match=r"^successes:.*>= 0"):
        data.with_successes([-1, 0])


def test_simulate_needs_a_proper_prior():
    with pytest.raises(ValueError, match=r"^prior: .*improper"):
        SPEC.simulate(Prior(), np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^rng:"):
        SPEC.simulate(Prior(a=1, b=1), 42)
    with pytest.raises(ValueError, match=r"^groups:"):
        SPEC.simulate(Prior(a=1, b=1), np.random.default_rng(0), groups=0)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"draws": 0}, "draws"),
        ({"tune": -1}, "tune"),
        ({"chains": 1.5}, "chains"),
        ({"engine": "hmc"}, "engine"),
        ({"seed": -3}, "seed"),
        ({"seed": "abc"}, "seed"),
    ],
)
def test_bad_sampling_settings(kwargs, field):
    data, prior = Data([1], [3]), Prior(a=1, b=1)
    with pytest.raises(ValueError, match=f"^{field}:"):
        zoo.sample(SPEC, data, prior, **kwargs)


def test_data_and_prior_must_belong_to_the_model():
    with pytest.raises(ValueError, match=r"^data: expected beta-binomial Data"):
        zoo.sample(SPEC, {"y": [1]}, Prior(a=1, b=1))
    with pytest.raises(ValueError, match=r"^prior: expected beta-binomial Prior"):
        zoo.sample(SPEC, Data([1], [3]), {"a": 1})


def test_a_kernel_that_returns_the_wrong_shape_is_named():
    def draw(state, data, prior, rng):
        return {"theta": np.zeros(len(data.successes) + 1)}

    broken = SPEC.kernel._replace(draw=draw)
    with pytest.raises(ValueError, match=r"^kernel.draw: variable 'theta' has shape"):
        zoo.sample(SPEC, Data([1, 2], [3, 4]), Prior(a=1, b=1), draws=3, kernel=broken)
    missing = SPEC.kernel._replace(draw=lambda *args: {})
    with pytest.raises(ValueError, match=r"^kernel.draw: missing variables \['theta'\]"):
        zoo.sample(SPEC, Data([1, 2], [3, 4]), Prior(a=1, b=1), draws=3, kernel=missing)
