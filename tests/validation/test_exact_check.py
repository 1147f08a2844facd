"""zoo.validation.exact_check on a mixture with exchangeable components.

A correct Gibbs sampler keeps one labelling of the two components, so its raw ``mu`` and
``z`` cannot agree with the exact, symmetric posterior; compared through the
label-invariant quantities it passes, and a sampler with a planted bug fails (the twin).
"""

import pytest

import zoo
from examples import gaussian_mixture
from zoo.validation import validate

#: Six of the example's observations: 64 labellings, a reference in about a second.
Y = gaussian_mixture.OBSERVATIONS[::2]
BUDGETS = {"exact": {"draws": 1000, "chains": 4}}


def _model():
    return gaussian_mixture.exchangeable_model(Y)


@pytest.mark.pymc
def test_a_correct_sampler_of_exchangeable_components_passes():
    result = validate(
        _model,
        kernel=gaussian_mixture.exchangeable_kernel,
        checks=("exact",),
        budgets=BUDGETS,
        workers=0,
    )
    (exact,) = result.checks
    assert exact.verdict == "pass", exact.summary
    assert "components of mu (labels z) are exchangeable: comparing label-invariant" in (
        exact.summary
    )
    judged = {row["variable"] for row in exact.details["data"].quantities()}
    assert judged == {"mu_of_z", "w_of_z", "coassignment_z"}


@pytest.mark.pymc
def test_a_wrong_sampler_of_exchangeable_components_fails():
    result = validate(
        _model,
        kernel=gaussian_mixture.EXCHANGEABLE_BUG_KERNELS["noise-sd-as-variance"],
        checks=("exact",),
        budgets=BUDGETS,
        workers=0,
    )
    (exact,) = result.checks
    assert exact.verdict == "fail", exact.summary


def _raw_reference(data):
    """The exact posterior of the raw variables only: no label-invariant marginals."""
    return zoo.exact_reference(_model())


@pytest.mark.pymc
def test_a_reference_without_the_invariants_cannot_judge():
    result = validate(
        _model,
        kernel=gaussian_mixture.exchangeable_kernel,
        reference=_raw_reference,
        checks=("exact",),
        budgets={"exact": {"draws": 100, "chains": 2}},
        workers=0,
    )
    (exact,) = result.checks
    assert exact.verdict == "could not judge", exact.summary
    assert "the reference has none of the compared variables" in exact.summary
