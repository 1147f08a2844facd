"""zoo.specification.graph: names, dims and data read from a user's PyMC model."""

import numpy as np
import pymc as pm
import pytest

from tests.support import pymc_models
from zoo.specification.graph import model_parts, observed_values


def test_parts_of_a_model_with_dims_and_data():
    parts = model_parts(pymc_models.beta_binomial())
    assert parts.free == ("theta",)
    assert parts.observed == ("y",)
    assert parts.data == ("trials",)
    assert parts.dims == {"theta": ("group",)}
    assert parts.shapes == {"theta": (4,)}
    assert list(parts.coords["group"]) == pymc_models.GROUPS
    assert parts.value_dims == {"y": ("group",), "trials": ("group",)}
    assert parts.discrete == ()


def test_variables_without_dims_get_pymcs_default_names():
    with pm.Model() as model:
        pm.Poisson("k", 3.0, shape=2)
        pm.Normal("y", 0.0, 1.0, observed=np.zeros(3))
    parts = model_parts(model)
    assert parts.dims == {"k": ("k_dim_0",)}
    assert list(parts.coords["k_dim_0"]) == [0, 1]
    assert parts.discrete == ("k",)


def test_shapes_known_when_built_and_shapes_known_only_by_evaluating():
    with pm.Model(coords={"group": ["a", "b", "c"]}) as model:
        covariate = pm.Data("covariate", np.zeros(5))
        pm.Normal("fixed", 0.0, 1.0, shape=(2, 3))
        pm.Normal("scalar", 0.0, 1.0)
        pm.Normal("grouped", 0.0, 1.0, dims="group")
        pm.Normal("sized_by_data", 0.0, 1.0, size=covariate.shape[0])
        pm.Normal("y", 0.0, 1.0, observed=np.zeros(3))
    assert model["sized_by_data"].type.shape == (None,)  # the evaluated branch is used
    expected = {"fixed": (2, 3), "scalar": (), "grouped": (3,), "sized_by_data": (5,)}
    assert model_parts(model).shapes == expected
    assert expected == {rv.name: tuple(rv.shape.eval()) for rv in model.free_RVs}


def test_observed_values_are_copies():
    model = pymc_models.beta_binomial()
    values = observed_values(model)
    values["y"][:] = -1
    assert np.array_equal(observed_values(model)["y"], pymc_models.SUCCESSES)


@pytest.mark.parametrize(
    ("builder", "message"),
    [
        (pymc_models.unobserved, "no observed variable"),
        (pymc_models.reserved_name, "'log_likelihood' is reserved"),
    ],
)
def test_models_the_battery_cannot_use_are_refused_by_name(builder, message):
    with pytest.raises(ValueError, match=message):
        model_parts(builder())


def test_something_else_than_a_model_is_refused():
    with pytest.raises(ValueError, match=r"model: expected a pymc\.Model, got dict"):
        model_parts({"y": 1})
