"""The exact references kept per model object: derived once, never shared by copies."""

import dataclasses
import gc

from tests.support import pymc_models
from zoo.specification.adapter import specified_model
from zoo.validation import reference_cache, validate
from zoo.validation.problem_selection import model_problems
from zoo.validation.reference_cache import exact_reference, kept_references


class CountingReference:
    """The user's exact reference of ``which_mean``, counting the data sets it is asked for."""

    def __init__(self):
        self.calls = 0

    def __call__(self, data):
        self.calls += 1
        return pymc_models.which_mean_reference(data)


def test_one_validate_derives_each_reference_of_a_users_model_once():
    counting = CountingReference()
    result = validate(
        "tests.support.pymc_models:which_mean",
        pymc_models.which_mean_sampler,
        reference=counting,
        checks=("exact",),
        workers=0,
    )
    assert result.verdict == "pass", str(result)
    # Asked to choose the checks and again by the exact check: derived once.
    assert counting.calls == 1


def test_a_users_model_built_per_call_is_not_kept_after_it():
    before = len(reference_cache._KEPT)
    counting = CountingReference()
    for _ in range(2):
        validate(
            "tests.support.pymc_models:which_mean",
            pymc_models.which_mean_sampler,
            reference=counting,
            checks=("exact",),
            budgets={"exact": {"draws": 100}},
            workers=0,
        )
    gc.collect()
    # Each call built its own model: each derived its reference, and neither is kept.
    assert counting.calls == 2
    assert len(reference_cache._KEPT) == before


def test_a_changed_copy_never_answers_with_the_originals_reference():
    counting = CountingReference()
    model = specified_model(pymc_models.which_mean, reference=counting)
    (problem,) = model_problems(model)
    kept = exact_reference(model, problem)
    assert exact_reference(model, problem) is kept
    assert kept_references(model) == (problem.name,)
    other = CountingReference()
    copy = dataclasses.replace(model, posterior=lambda data, prior: other(data.as_dict()))
    assert kept_references(copy) == ()
    assert exact_reference(copy, problem) is not kept
    assert (counting.calls, other.calls) == (1, 1)


def test_a_collected_model_leaves_nothing_behind():
    model = specified_model(pymc_models.which_mean, reference=CountingReference())
    (problem,) = model_problems(model)
    exact_reference(model, problem)
    before = len(reference_cache._KEPT)
    del model
    gc.collect()
    assert len(reference_cache._KEPT) == before - 1
