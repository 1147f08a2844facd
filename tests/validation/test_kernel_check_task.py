"""Kernel checks run in pieces (Geweke chains, invariance replicate ranges), combined in order."""

import numpy as np
import pytest

import zoo
from examples import pump_failures
from tests.support import pymc_models
from tests.support.user_samplers import dict_state_kernel, own_state_kernel
from zoo.core.defaults import GEWEKE_PILOT
from zoo.diagnostics.findings import COULD_NOT_JUDGE
from zoo.diagnostics.geweke import geweke
from zoo.diagnostics.invariance import invariance
from zoo.diagnostics.sbc import SimulationFailed
from zoo.models.beta_binomial import Prior
from zoo.specification.adapter import specified_model
from zoo.validation import validate
from zoo.validation.kernel_check_task import describe_state


def test_the_battery_gives_the_values_of_one_geweke_run():
    """Stages included: the battery's chains double as the one run's do, to the same end."""
    result = validate(
        "gaussian-nb",
        checks=("geweke",),
        budgets={"geweke": {"iterations": 400, "max_iterations": 1600, "marginal_draws": 1500}},
        seed=3,
        workers=0,
    )
    (check,) = result.checks
    # The budget's marginal draws are those compared, beyond the pilot's.
    whole = geweke(
        zoo.get("gaussian-nb"),
        draws=GEWEKE_PILOT + 1500,
        iterations=400,
        max_iterations=1600,
        seed=3,
        alpha=check.alpha,
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


def test_the_battery_confirms_a_failure_as_one_geweke_run_does():
    """A first replicate that fails runs its confirmation as stages of the battery's own."""
    budget = {"iterations": 400, "max_iterations": 400, "marginal_draws": 1500}
    result = validate(
        "beta-binomial",
        fault="jacobian-omitted",
        checks=("geweke",),
        budgets={"geweke": budget},
        seed=3,
        workers=0,
    )
    (check,) = result.checks
    spec = zoo.get("beta-binomial")
    whole = geweke(
        spec,
        spec.faults["jacobian-omitted"],
        draws=GEWEKE_PILOT + 1500,
        iterations=400,
        max_iterations=400,
        seed=3,
        alpha=check.alpha,
    )
    assert check.verdict == whole.verdict == "fail"
    note = whole.table.attrs["confirmation"]
    assert note.startswith("confirmed: an independent replicate")
    assert check.details.table.attrs["confirmation"] == note
    assert note in check.head
    for column in ("expected", "observed", "se", "t", "p"):
        np.testing.assert_array_equal(
            check.details.table[column].values, whole.table[column].values
        )


def test_the_battery_gives_the_values_of_one_invariance_run():
    result = validate("beta-binomial", checks=("invariance",), seed=2, workers=0)
    (check,) = result.checks
    whole = invariance(zoo.get("beta-binomial"), seed=2, alpha=check.alpha)
    for column in ("expected", "observed", "se", "t", "p"):
        np.testing.assert_array_equal(
            check.details.table[column].values, whole.table[column].values
        )
    assert "4000 exact joint draws" in check.head
    # Its budget sets the replicates, split over tasks as the default's are.
    result = validate(
        "beta-binomial",
        checks=("invariance",),
        budgets={"invariance": {"replicates": 1500}},
        seed=2,
        workers=0,
    )
    (check,) = result.checks
    whole = invariance(zoo.get("beta-binomial"), replicates=1500, seed=2, alpha=check.alpha)
    for column in ("expected", "observed", "se", "t", "p"):
        np.testing.assert_array_equal(
            check.details.table[column].values, whole.table[column].values
        )
    assert "1500 exact joint draws" in check.head


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


def test_an_error_of_a_zoo_models_kernel_names_its_step_and_the_state_it_was_given():
    result = validate(
        "beta-binomial",
        kernel=dict_state_kernel,
        checks=("invariance",),
        sbc_setup=(Prior(a=2.0, b=3.0), {"groups": 12, "trials": 25}),
        workers=0,
    )
    (check,) = result.checks
    (finding,) = check.findings
    message = finding.message
    # invariance applies draw first
    assert "tests.support.user_samplers:dict_state_kernel: its draw" in message, message
    assert "tests.support.user_samplers:_dict_state_draw raised TypeError" in message
    assert "given the state State{logit_mean: float, log_concentration: float}" in message


def test_an_error_of_a_pymc_models_kernel_names_the_users_step_and_its_dict_state():
    for check_name in ("geweke", "invariance"):
        result = validate(
            pymc_models.beta_binomial,
            kernel=pymc_models.KERNEL_RAISING,
            label="tests.support.pymc_models:KERNEL_RAISING",
            checks=(check_name,),
            budgets={"geweke": {"iterations": 200}},
            workers=0,
        )
        (check,) = result.checks
        assert check.verdict == "fail"
        message = check.findings[0].message
        assert (
            "tests.support.pymc_models:KERNEL_RAISING: its step "
            "tests.support.pymc_models:step_reading_a_name_the_state_lacks raised "
            "KeyError: 'p', given the state {theta: float64 (4,)}"
        ) in message, message
        assert "kernel_checks" not in message


def test_a_state_is_described_by_names_shapes_and_dtypes():
    state = {"mu": np.float64(1.0), "eta": np.zeros(8, dtype=np.float32), "k": 3}
    assert describe_state(state) == "{mu: float64 (), eta: float32 (8,), k: int}"
    assert describe_state(object()) == "a builtins.object"


@pytest.mark.pymc
def test_a_model_whose_prior_data_cannot_be_drawn_is_never_the_kernels_failure():
    # Before: SimulationFailed's ValueError in a task was the kernel's error: FAIL.
    result = validate(
        "tests.support.bugs_pumps:unsimulable",
        kernel=pump_failures.kernel,
        checks=("geweke", "invariance"),
        budgets={"geweke": {"iterations": 200}, "invariance": {"replicates": 50}},
        seed=0,
        workers=0,
    )
    assert [c.verdict for c in result.checks] == [COULD_NOT_JUDGE, COULD_NOT_JUDGE], str(result)
    assert result.verdict == "inconclusive"
    for check in result.checks:
        (finding,) = check.findings
        assert "could not be drawn (unsimulable" in finding.gate
        assert finding.cure.startswith("a prior whose prior-predictive data")


def test_data_the_kernels_parameters_cannot_give_are_the_kernels_failure():
    # The twin: the chain's data given the parameters a kernel drew. A kernel that
    # drifts where the model cannot simulate is not excused as the model's simulation.
    model = specified_model("tests.support.bugs_pumps:model", kernel=_drifting_kernel())
    with pytest.raises(ValueError, match="given the parameters the kernel drew") as raised:
        geweke(model, model.kernel, draws=1100, chains=1, iterations=20, batches=2, seed=0)
    assert not isinstance(raised.value, SimulationFailed)


def _drifted_step(state, data, rng):
    """A wrong step: failure rates 1e30 times too large, beyond what int64 counts hold."""
    stepped = pump_failures.step(state, data, rng)
    return {**stepped, "theta": stepped["theta"] * 1e30}


def _drifting_kernel():
    return zoo.Kernel(pump_failures.init, _drifted_step, pump_failures.draw)
