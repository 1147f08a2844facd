"""Every table names an element the same way: by coordinate value where it is fixed."""

import numpy as np

import zoo
from tests.support import pymc_models
from zoo.diagnostics.draws import design_coords, element_labels
from zoo.diagnostics.geweke import kernel_checks_of, moment_functions
from zoo.diagnostics.sbc import quantity_labels
from zoo.specification.adapter import specified_model


def test_elements_are_named_by_coordinate_value_else_by_position():
    coords = {"group": np.array(["a", "b"])}
    assert element_labels("theta", ("group",), (2,), coords) == [
        "theta[group=a]",
        "theta[group=b]",
    ]
    assert element_labels("theta", ("group",), (2,), None) == ["theta[group=0]", "theta[group=1]"]
    # a coordinate of another length is not this dim's
    assert element_labels("theta", ("group",), (3,), coords)[2] == "theta[group=2]"


def test_a_pymc_models_sbc_and_kernel_check_quantities_name_its_coordinates():
    model = specified_model(pymc_models.beta_binomial, kernel=pymc_models.KERNEL)
    prior, size = model.simulation_setup()
    truth, data = model.simulate(prior, np.random.default_rng(0), **size)
    expected = [f"theta[group={g}]" for g in pymc_models.GROUPS]
    assert quantity_labels(model, prior, data)[:4] == expected
    checks = kernel_checks_of(model)
    latents = checks.latents(truth, data, prior, np.random.default_rng(1))
    functions = moment_functions(model, checks, prior, truth, data, latents)
    assert [label for label in functions.labels() if label.startswith("mean theta")] == [
        f"mean {name}" for name in expected
    ]


def test_a_zoo_models_unlabelled_items_are_named_by_position_in_every_simulation():
    model = zoo.get("naive-bayes")
    prior, size = model.simulation_setup()
    labels = []
    for seed in (0, 1):
        _, data = model.simulate(prior, np.random.default_rng(seed), **size)
        assert design_coords(data) == {}
        labels.append(quantity_labels(model, prior, data))
    assert labels[0] == labels[1]
    assert "class_probability[unlabelled=0,class=0]" in labels[0]
