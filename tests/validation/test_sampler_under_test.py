"""The sampler under test: one value, checked once, that crosses to a worker as it is."""

import pickle

import numpy as np
import pytest

import zoo
from zoo.core.loading import load_object
from zoo.validation import SamplerUnderTest, validate

SPEC = zoo.get("beta-binomial")
DATA = SPEC.Data([1, 2, 3], [10, 10, 10])
PRIOR = SPEC.Prior(a=1.0, b=1.0)


def _forms():
    """Each form, built the way zoo validate builds it from the user's arguments."""
    return {
        "gibbs engine": SamplerUnderTest(SPEC),
        "pymc engine": SamplerUnderTest(SPEC, engine="pymc"),
        "fault": SamplerUnderTest(SPEC, fault="swapped-a-b"),
        "kernel by location": SamplerUnderTest(
            SPEC,
            kernel=load_object("tests.support.user_samplers:own_state_kernel", field="kernel"),
        ),
        "function by location": SamplerUnderTest(
            SPEC, sampler=load_object("tests.support.user_samplers:beta_binomial_conjugate")
        ),
    }


@pytest.mark.parametrize("form", sorted(_forms()))
def test_every_form_round_trips_through_pickle(form):
    tested = _forms()[form]
    back = pickle.loads(pickle.dumps(tested))
    assert back == tested
    # The model arrives as itself (by its location), not as a copy.
    assert back.model is SPEC
    assert back.label == tested.label
    assert back.kernel_under_test == tested.kernel_under_test


def test_a_fault_travels_as_its_name_and_is_resolved_through_the_model():
    tested = SamplerUnderTest(SPEC, fault="failures-as-trials")
    # The fault's kernel is a closure: pickle could not carry it.
    with pytest.raises((AttributeError, pickle.PicklingError, TypeError)):
        pickle.dumps(SPEC.faults["failures-as-trials"])
    back = pickle.loads(pickle.dumps(tested))
    assert back.kernel_under_test is SPEC.faults["failures-as-trials"]


def test_which_forms_have_a_kernel_to_check():
    forms = _forms()
    assert forms["gibbs engine"].kernel_under_test is SPEC.kernel
    assert forms["fault"].kernel_under_test is SPEC.faults["swapped-a-b"]
    assert forms["pymc engine"].kernel_under_test is None
    assert forms["function by location"].kernel_under_test is None


def test_the_same_seed_gives_the_same_draws_after_a_round_trip():
    tested = _forms()["fault"]
    back = pickle.loads(pickle.dumps(tested))
    first = tested.fit(DATA, PRIOR, draws=20, chains=2, seed=4)
    second = back.fit(DATA, PRIOR, draws=20, chains=2, seed=4)
    np.testing.assert_array_equal(first["theta"].values, second["theta"].values)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"model": "beta-binomial"}, "model: expected a zoo.Model"),
        ({"engine": "stan"}, "engine: must be one of"),
        ({"fault": "nope"}, "fault: beta-binomial has no fault 'nope'"),
        ({"fault": "swapped-a-b", "engine": "pymc"}, "engine: a kernel or fault runs on"),
        ({"fault": "swapped-a-b", "kernel": SPEC.kernel}, "kernel: give a kernel or a fault"),
        ({"sampler": print, "fault": "swapped-a-b"}, "sampler: give a sampler, or a kernel"),
        ({"kernel": object()}, "kernel: needs callable init, step and draw"),
        ({"sampler": 3}, "sampler: must be callable"),
    ],
)
def test_bad_combinations_are_refused_when_built(kwargs, message):
    kwargs = {"model": SPEC, **kwargs}
    with pytest.raises(ValueError, match=message):
        SamplerUnderTest(**kwargs)


def test_a_users_kernel_is_named_by_its_step():
    tested = _forms()["kernel by location"]
    assert "tests.support.user_samplers:_theta_step" in tested.label


def _factory(scale):
    """Builds a sampler: its qualified name is ``_factory.<locals>.sampler``."""

    def sampler(data, prior, *, draws, chains, seed):
        return {"theta": scale * np.ones((chains, draws, len(data.trials)))}

    return sampler


built = _factory(0.5)


def test_labels_name_the_sampler_as_the_user_passed_it():
    # A factory-built sampler by the name it is bound to, not _factory.<locals>.sampler.
    assert SamplerUnderTest(SPEC, sampler=built).label == f"{__name__}:built"
    # A kernel by its own name and its step's; the driver runs Gibbs and
    # Metropolis-Hastings kernels alike, so the label does not say "gibbs".
    kernel = _forms()["kernel by location"].label
    assert kernel == (
        "kernel tests.support.user_samplers:own_state_kernel "
        "(step tests.support.user_samplers:_theta_step), run by the zoo's driver"
    )
    # The location given on the command line wins.
    named = SamplerUnderTest(SPEC, sampler=built, name="my_pkg.samplers:fast")
    assert named.label == "my_pkg.samplers:fast"


def test_validate_names_the_sampler_by_its_label():
    options = {
        "checks": ("exact",),
        "problems": ["informative-fixed"],
        "budgets": {"exact": {"draws": 200}},
    }
    result = validate(SPEC, built, label="mine:built", workers=0, **options)
    assert result.sampler == "mine:built"
    with pytest.raises(ValueError, match="label: must be a str"):
        validate(SPEC, built, label=3, workers=0, **options)


def test_validate_refuses_the_same_combinations_before_any_fit():
    with pytest.raises(ValueError, match="engine: a kernel or fault runs on"):
        validate(SPEC, fault="swapped-a-b", engine="pymc", workers=0)
    with pytest.raises(ValueError, match="checks: choose at least one"):
        validate(SPEC, checks=(), workers=0)
    with pytest.raises(ValueError, match="sbc_setup: expected"):
        validate(SPEC, checks=("sbc",), sbc_setup=({"a": 1.0}, {"groups": 3}), workers=0)
