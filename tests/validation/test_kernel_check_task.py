"""Kernel checks run in pieces (Geweke chains, invariance replicate ranges), combined in order."""

import numpy as np

import zoo
from tests.support.user_samplers import own_state_kernel
from zoo.diagnostics.geweke import geweke
from zoo.diagnostics.invariance import invariance
from zoo.models.beta_binomial import Prior
from zoo.validation import validate


def test_the_battery_gives_the_values_of_one_geweke_run():
    """Stages included: the battery's chains double as the one run's do, to the same end."""
    result = validate(
        "gaussian-nb",
        checks=("geweke",),
        budgets={"geweke": {"iterations": 400, "max_iterations": 1600}},
        seed=3,
        workers=0,
    )
    (check,) = result.checks
    whole = geweke(
        zoo.get("gaussian-nb"), iterations=400, max_iterations=1600, seed=3, alpha=check.alpha
    )
    assert (
        check.details.table.attrs["settings"].split(";")[0]
        == (whole.table.attrs["settings"].split(";")[0])
    )
    for column in ("expected", "observed", "se", "t", "p"):
        np.testing.assert_array_equal(
            check.details.table[column].values, whole.table[column].values
        )
    assert check.verdict == whole.verdict


def test_the_battery_gives_the_values_of_one_invariance_run():
    result = validate("beta-binomial", checks=("invariance",), seed=2, workers=0)
    (check,) = result.checks
    whole = invariance(zoo.get("beta-binomial"), seed=2, alpha=check.alpha)
    for column in ("expected", "observed", "se", "t", "p"):
        np.testing.assert_array_equal(
            check.details.table[column].values, whole.table[column].values
        )
    assert "4000 exact joint draws" in check.head


def test_a_chain_that_raises_fails_the_check_once_with_the_state_hint():
    result = validate(
        "beta-binomial",
        kernel=own_state_kernel,
        checks=("geweke",),
        sbc_setup=(Prior(a=2.0, b=3.0), {"groups": 12, "trials": 25}),
        budgets={"geweke": {"iterations": 400, "max_iterations": 400}},
        workers=0,
    )
    (check,) = result.checks
    assert check.verdict == "fail"
    assert check.summary.count("model's own state type") == 1
