"""A model travels between processes as itself: by location when it has one."""

from __future__ import annotations

import dataclasses
import pickle

import zoo


def test_a_built_in_model_pickles_as_a_reference_to_itself():
    model = zoo.get("gda")
    assert model.location == "zoo.models.gaussian_classifiers.linear:MODEL"
    assert pickle.loads(pickle.dumps(model)) is model
    # Its faults are closures pickle cannot carry by value; by reference they arrive.
    assert set(pickle.loads(pickle.dumps(model)).faults) == set(model.faults)


def _init(data, prior, rng):
    return 0


def _step(state, data, prior, rng):
    return state


def _draw(state, data, prior, rng):
    return {}


def test_a_changed_copy_travels_with_its_changes():
    # dataclasses.replace keeps `location`; the copy must not come back as the original.
    model = zoo.get("beta-binomial")
    # Building the PyMC program first: its module must not shadow the package's
    # `program` function, which the copy pickles by reference.
    model.program(*model.default_problem())
    copy = dataclasses.replace(
        model,
        summary="changed",
        kernel=zoo.Kernel(_init, _step, _draw),
        faults={},
        kernel_checks=None,
    )
    back = pickle.loads(pickle.dumps(copy))
    assert back is not model
    assert back.summary == "changed"
    assert back.kernel.step is _step
