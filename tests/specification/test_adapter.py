"""zoo.specification.adapter: a user's PyMC model as a zoo.Model."""

import pickle

import numpy as np
import pymc as pm
import pytest

from tests.support import pymc_models
from zoo.core.contract import CannotAugment, Model
from zoo.specification.adapter import (
    FIXED,
    DataOnlySampler,
    SpecifiedData,
    data_only_kernel,
    specified_model,
)


@pytest.fixture(scope="module")
def model():
    return specified_model(pymc_models.two_data_sets, kernel=pymc_models.KERNEL)


def test_the_model_offers_the_contract(model):
    assert isinstance(model, Model)
    assert model.name == "two_data_sets"
    assert model.variables(FIXED) == {"theta": ("group",)}
    names = [name for name, _, _ in model.validation_problems()]
    assert names == ["counts", "reversed"]
    data, prior = model.default_problem()
    assert prior is FIXED
    assert np.array_equal(data.values["y"], pymc_models.SUCCESSES)
    assert model.kernel_checks is not None


def test_a_location_string_names_the_model():
    model = specified_model("tests.support.pymc_models:beta_binomial")
    assert model.name == "tests.support.pymc_models:beta_binomial"


def test_data_are_read_only_and_the_sampler_gets_writable_copies(model):
    data, _ = model.default_problem()
    with pytest.raises(ValueError, match="read-only"):
        data.values["y"][0] = 0
    sampler = DataOnlySampler(pymc_models.modifies_its_data)
    sampler(data, FIXED, draws=2, chains=1, seed=0)
    assert np.array_equal(data.values["y"], pymc_models.SUCCESSES)
    assert sampler.__qualname__ == "modifies_its_data"


def test_program_swaps_the_data_and_leaves_the_users_model_alone():
    user = pymc_models.beta_binomial()
    model = specified_model(user)
    data, _ = model.default_problem()
    other = data.replaced({"y": np.array([0, 0, 0, 0]), "trials": np.array([1, 2, 3, 4])})
    program = model.program(other, FIXED)
    assert np.array_equal(program.rvs_to_values[program["y"]].data, [0, 0, 0, 0])
    assert np.array_equal(program["trials"].get_value(), [1, 2, 3, 4])
    assert np.array_equal(user.rvs_to_values[user["y"]].data, pymc_models.SUCCESSES)
    assert np.array_equal(user["trials"].get_value(), pymc_models.TRIALS)


def test_simulated_data_keep_the_design(model):
    truth, data = model.simulate(FIXED, np.random.default_rng(0))
    assert set(truth) == {"theta"}
    assert isinstance(data, SpecifiedData)
    assert np.array_equal(data.values["trials"], pymc_models.TRIALS)
    assert np.all(data.values["y"] <= pymc_models.TRIALS)
    assert np.isfinite(model.log_likelihood(data, truth))


def test_the_kernel_runs_on_a_dict_of_free_variables(model):
    rng = np.random.default_rng(0)
    data, _ = model.default_problem()
    state = model.kernel.init(data, FIXED, rng)
    state = model.kernel.step(state, data, FIXED, rng)
    assert set(model.kernel.draw(state, data, FIXED, rng)) == {"theta"}
    with pytest.raises(ValueError, match=r"missing \['theta'\]"):
        model.kernel_checks.read({"p": 1}, data)


def test_the_model_pickles_and_simulates_the_same(model):
    copy = pickle.loads(pickle.dumps(model))
    first = model.simulate(FIXED, np.random.default_rng(5))
    second = copy.simulate(FIXED, np.random.default_rng(5))
    assert np.array_equal(first[0]["theta"], second[0]["theta"])
    assert np.array_equal(first[1].values["y"], second[1].values["y"])


def _raises():
    raise RuntimeError("no data today")


def _differs():
    with pm.Model() as other:
        pm.Beta("theta", 1.0, 1.0, shape=3)
        pm.Binomial("y", 10, other["theta"], observed=np.array([1, 2, 3]))
    return [("a", pymc_models.beta_binomial()), ("b", other)]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (pymc_models.not_a_model, "expected a pymc.Model, a list of"),
        (_raises, r"calling '_raises'\(\) raised RuntimeError: no data today"),
        ([("a", 1)], r"a list must hold \(name, pymc.Model\) pairs"),
        (
            lambda: [("a", pymc_models.beta_binomial()), ("a", pymc_models.beta_binomial())],
            r"data set names must differ; repeated \['a'\]",
        ),
        (_differs, "data set 'b' has free variables"),
        ("tests.support.pymc_models:nothing_here", "has no attribute 'nothing_here'"),
        (pymc_models.unobserved, "no observed variable"),
    ],
)
def test_bad_models_are_refused_naming_the_field(value, message):
    with pytest.raises(ValueError, match=f"model.*{message}"):
        specified_model(value)


def test_a_kernel_without_its_parts_is_refused():
    with pytest.raises(ValueError, match=r"kernel: needs callable init, step and draw"):
        data_only_kernel(object())


def test_a_reference_must_be_callable():
    with pytest.raises(ValueError, match="reference: must be callable"):
        specified_model(pymc_models.beta_binomial, reference=3)


# ---------------------------------------------------------------------------------------
# Exchangeable mixture components: the label-invariant quantities as variables.


def _exchangeable_mixture():
    import pymc as pm

    y = np.array([-1.0, -0.6, 0.4, 1.1])
    with pm.Model(coords={"obs": [10, 11, 12, 13], "component": [0, 1]}) as model:
        w = pm.Beta("w", 2.0, 2.0)
        z = pm.Bernoulli("z", p=w, dims="obs")
        mu = pm.Normal("mu", mu=0.0, sigma=1.0, dims="component")
        pm.Normal("y", mu=mu[z], sigma=0.6, observed=y, dims="obs")
    return model


def test_exchangeable_components_are_compared_through_invariants():
    from zoo.specification.adapter import exchangeable_note

    model = specified_model(_exchangeable_mixture)
    variables = model.variables(None)
    assert variables["mu_of_z"] == ("obs",)
    assert variables["coassignment_z"] == ("z_pair",)
    assert model.comparable_variables(None) == ["mu_of_z", "w_of_z", "coassignment_z"]
    data, _ = model.default_problem()
    assert list(data.coords["z_pair"][:2]) == ["10-11", "10-12"]
    truth, _ = model.simulate(None, np.random.default_rng(0))
    np.testing.assert_array_equal(truth["mu_of_z"], truth["mu"][truth["z"]])
    draws = {
        "mu": np.array([[[-1.0, 1.0]]]),
        "z": np.array([[[0, 0, 1, 1]]]),
        "w": np.array([[0.25]]),
    }
    computed = model.derived.compute(data, None, draws)
    assert computed["mu_of_z"].tolist() == [[[-1.0, -1.0, 1.0, 1.0]]]
    assert computed["coassignment_z"].tolist() == [[[1.0, 0.0, 0.0, 0.0, 0.0, 1.0]]]
    assert "components of mu (labels z) are exchangeable" in exchangeable_note(model)
    # the twin: with the symmetry turned off, the raw variables are compared
    raw = specified_model(_exchangeable_mixture, exchangeable=False)
    assert raw.comparable is None and raw.derived is None
    assert exchangeable_note(raw) is None


def test_sbc_says_label_switching_on_a_raw_mixture_and_only_there():
    from zoo.diagnostics.findings import Finding
    from zoo.specification.adapter import label_switching_note

    def wide(quantity, estimate):
        return Finding(quantity, "fail", "rank sd", estimate, 0.2887, 0.01, 9.0, 1e-6, "uniform")

    raw = specified_model(_exchangeable_mixture, exchangeable=False)
    # turned off on purpose: the user knows, nothing to say
    assert label_switching_note(raw, [wide("mu[component=0]", 0.40)]) is None
    asymmetric = specified_model(_asymmetric_mixture)
    note = label_switching_note(asymmetric, [wide("mu[component=0]", 0.40), wide("z[obs=1]", 0.4)])
    assert note.startswith("label switching? rank sd too wide on 2 quantities")
    assert "--exchangeable mu:z:w" in note
    assert "mu: its prior differs between components" in note
    # a rank sd below uniform's (too wide posteriors), or another variable: not this
    assert label_switching_note(asymmetric, [wide("mu[component=0]", 0.2)]) is None
    assert label_switching_note(asymmetric, [wide("sigma", 0.4)]) is None
    # declared: compared through invariants, nothing raw left to say it of
    declared = specified_model(_asymmetric_mixture, exchangeable=["mu:z:w"])
    assert label_switching_note(declared, [wide("mu[component=0]", 0.4)]) is None


def _asymmetric_mixture():
    y = np.array([-1.0, -0.6, 0.4, 1.1])
    with pm.Model(coords={"obs": [10, 11, 12, 13], "component": [0, 1]}) as model:
        w = pm.Beta("w", 2.0, 2.0)
        z = pm.Bernoulli("z", p=w, dims="obs")
        mu = pm.Normal("mu", mu=np.array([-0.5, 0.5]), sigma=1.0, dims="component")
        pm.Normal("y", mu=mu[z], sigma=0.6, observed=y, dims="obs")
    return model


# -- augment: posterior SBC's data -----------------------------------------------------


def _regression():
    x = np.array([[1.0, 0.5], [1.0, -1.0], [1.0, 2.0]])
    with pm.Model(coords={"obs": range(3), "coef": range(2)}) as regression:
        design = pm.Data("X", x, dims=("obs", "coef"))
        beta = pm.Normal("beta", 0.0, 1.0, dims="coef")
        pm.Normal("y", mu=design @ beta, sigma=0.5, observed=[0.2, -1.0, 1.5], dims="obs")
    return regression


def test_augment_appends_a_replicate_with_its_covariates():
    model = specified_model(_regression)
    data, prior = model.default_problem()
    params = {"beta": np.array([0.3, -0.2])}
    joined = model.augment(data, params, prior, np.random.default_rng(0))
    np.testing.assert_array_equal(joined.values["X"], np.concatenate([data.values["X"]] * 2))
    np.testing.assert_array_equal(joined.values["y"][:3], data.values["y"])
    assert joined.values["y"].shape == (6,)
    assert data.values["y"].shape == (3,)  # the observed data set is left as it was
    # The log-likelihood of the joined data is that of its two pieces.
    new = data.replaced({"y": joined.values["y"][3:]})
    expected = model.log_likelihood(data, params) + model.log_likelihood(new, params)
    assert model.log_likelihood(joined, params) == pytest.approx(expected, rel=1e-12)
    assert pickle.loads(pickle.dumps(joined)).pieces[1].values["y"].shape == (3,)
    with pytest.raises(ValueError, match="the PyMC engine fits the user's model at its own"):
        model.program(joined, prior)


def _scalar():
    with pm.Model() as scalar:
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Normal("y", mu=mu, sigma=1.0, observed=0.3)
    return scalar


def _latent_per_observation():
    with pm.Model(coords={"obs": range(3)}) as latent:
        z = pm.Normal("z", 0.0, 1.0, dims="obs")
        pm.Normal("y", mu=z, sigma=1.0, observed=[0.1, 0.2, 0.3], dims="obs")
    return latent


@pytest.mark.parametrize(
    ("builder", "why", "cure"),
    [
        (_scalar, "y is one scalar observation", "as a vector"),
        (
            _latent_per_observation,
            "free variable 'z' has one value per observation",
            "marginalise z",
        ),
    ],
)
def test_data_without_an_observation_axis_cannot_be_augmented(builder, why, cure):
    model = specified_model(builder)
    data, prior = model.default_problem()
    truth, _ = model.simulate(prior, np.random.default_rng(0))
    with pytest.raises(CannotAugment, match=why) as raised:
        model.augment(data, truth, prior, np.random.default_rng(0))
    assert cure in raised.value.cure
