"""zoo.specification.enumeration: supports, mixed-radix configurations and the bound."""

import numpy as np
import pymc as pm
import pytest

from zoo.specification.conjugate_graph import NotRecognised
from zoo.specification.enumeration import MAX_CONFIGURATIONS, configurations, support
from zoo.specification.exact import derive_reference


def test_configurations_run_in_mixed_radix_first_element_fastest():
    supports = {"k": [np.array([3, 4, 5])], "z": [np.array([0, 1])] * 2}
    found = configurations(supports, {"k": (), "z": (2,)})
    assert found["k"].shape == (12,) and found["z"].shape == (12, 2)
    assert list(found["k"][:4]) == [3, 4, 5, 3]
    assert list(found["z"][:7, 0]) == [0, 0, 0, 1, 1, 1, 0]
    # every joint configuration once
    rows = {(k, *z) for k, z in zip(found["k"], found["z"], strict=True)}
    assert len(rows) == 12


def test_more_configurations_than_the_bound_are_refused_with_the_count():
    supports = {"z": [np.array([0, 1])] * 17}
    with pytest.raises(NotRecognised, match=f"z: 1.311e\\+05 joint .* limit {MAX_CONFIGURATIONS}"):
        configurations(supports, {"z": (17,)})


def test_supports_of_the_bounded_families():
    with pm.Model() as model:
        k = pm.DiscreteUniform("k", 2, 5)
        b = pm.Binomial("b", 3, 0.4, shape=2)
        c = pm.Categorical("c", p=np.ones(4) / 4)
        f = pm.Bernoulli("f", 0.3)
    free = {rv: rv.name for rv in model.free_RVs}
    assert list(support(k, free, {}, ())[0]) == [2, 3, 4, 5]
    assert [list(s) for s in support(b, free, {}, (2,))] == [[0, 1, 2, 3]] * 2
    assert list(support(c, free, {}, ())[0]) == [0, 1, 2, 3]
    assert list(support(f, free, {}, ())[0]) == [0, 1]


def test_an_unbounded_discrete_variable_is_refused_by_name():
    with pm.Model() as model:
        n = pm.Poisson("n", 3.0)
        pm.Normal("y", n, 1.0, observed=[1.0, 2.0])
    reference = derive_reference(model)
    assert not reference.available
    assert "n: a Poisson free variable has no finite support to enumerate" in reference.reason
