"""zoo.specification.symmetry: exchangeable mixture components, found or declared."""

import numpy as np
import pymc as pm
import pytest

from zoo.diagnostics.label_invariants import Exchangeable
from zoo.specification.graph import model_parts
from zoo.specification.symmetry import (
    declared_mixtures,
    find_mixtures,
    model_symmetry,
    parse,
)

Y = np.array([-1.2, -1.0, -0.8, 0.5, 0.8, 1.3])


def mixture(prior_means=(0.0, 0.0), a=2.0, b=2.0, categorical=False, fixed=None, sds=(1.0, 1.0)):
    coords = {"obs": np.arange(Y.size), "component": [0, 1]}
    with pm.Model(coords=coords) as model:
        if fixed is not None:
            z = (
                pm.Categorical("z", p=np.asarray(fixed), dims="obs")
                if categorical
                else pm.Bernoulli("z", p=fixed, dims="obs")
            )
        elif categorical:
            w = pm.Dirichlet("w", a=np.array([a, b]), dims="component")
            z = pm.Categorical("z", p=w, dims="obs")
        else:
            w = pm.Beta("w", a, b)
            z = pm.Bernoulli("z", p=w, dims="obs")
        mu = pm.Normal("mu", mu=np.asarray(prior_means), sigma=np.asarray(sds), dims="component")
        pm.Normal("y", mu=mu[z], sigma=0.6, observed=Y, dims="obs")
    return model


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"categorical": True},
        {"fixed": 0.5},
        {"fixed": [0.5, 0.5], "categorical": True},
        {"prior_means": 1.5},  # a scalar prior mean broadcast to both components
    ],
)
def test_symmetric_mixtures_are_found(options):
    (found,) = find_mixtures(mixture(**options))
    assert found.exchangeable, found.reason
    assert found.spec.parameters == ("mu",)
    assert found.spec.label == "z"
    assert found.spec.binary == ("categorical" not in options)


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"prior_means": (-2.0, 2.0)}, "mu: its prior differs between components"),
        ({"sds": (1.0, 3.0)}, "mu: its prior differs between components"),
        ({"a": 2.0, "b": 3.0}, "w ~ Beta has unequal concentrations"),
        ({"a": 1.0, "b": 2.0, "categorical": True}, "w ~ Dirichlet has unequal concentrations"),
        ({"fixed": 0.3}, "unequal fixed weights"),
    ],
)
def test_asymmetric_mixtures_are_not_flagged(options, reason):
    (found,) = find_mixtures(mixture(**options))
    assert not found.exchangeable
    assert reason in found.reason


def test_a_model_without_labels_has_no_mixture():
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 1.0, shape=2)
        pm.Normal("y", mu=mu[np.array([0, 1, 1])], sigma=1.0, observed=[0.1, 0.2, 0.3])
    assert find_mixtures(model) == []


def test_declaration_adds_what_the_graph_cannot_show():
    model = mixture(prior_means=(-2.0, 2.0))
    parts = model_parts(model)
    assert model_symmetry(model, parts) == ()
    (spec,) = model_symmetry(model, parts, ["mu:z:w"])
    assert spec == Exchangeable(("mu",), label="z", weights="w", binary=True)
    # False turns the graph's own finding off
    assert model_symmetry(mixture(), model_parts(mixture()), False) == ()
    assert len(model_symmetry(mixture(), model_parts(mixture()))) == 1


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        (["nu:z"], r"exchangeable: \['nu'\] are not free variables"),
        (["mu:y"], r"exchangeable: \['y'\] are not free variables"),
        (["mu:w"], "the label 'w' must be an integer free variable"),
        (["mu:z:mu"], "a variable may be in one declaration once"),
        (["mu:z", "mu:z"], "a variable may be in one declaration once"),
        (["mu::w"], "must be 'PARAMS"),
        (["mu:z:w:x"], "must be 'PARAMS"),
        (["w"], "first axes must all be the components"),
        ([3], "each entry must be"),
        (7, "must be a list"),
        (["mu:z:z"], "a variable may be in one declaration once"),
    ],
)
def test_bad_declarations_name_the_field_and_rule(declared, message):
    model = mixture()
    with pytest.raises(ValueError, match=message):
        declared_mixtures(model, model_parts(model), declared)


def test_categorical_declaration_and_weights_without_label():
    model = mixture(categorical=True)
    parts = model_parts(model)
    (spec,) = declared_mixtures(model, parts, ["mu:z:w"])
    assert not spec.binary
    # weights without a label (only the object form can say it)
    with pytest.raises(ValueError, match="weights need a label variable"):
        declared_mixtures(model, parts, [Exchangeable(("mu",), weights="w")])


def test_parse_forms():
    assert parse("mu, sigma : z : w") == (("mu", "sigma"), "z", "w")
    assert parse("mu") == (("mu",), None, None)
    assert parse(Exchangeable(("a",), "b")) == (("a",), "b", None)


def normal_mixture(sds=(2.0, 2.0), a=(1.0, 1.0)):
    with pm.Model() as model:
        w = pm.Dirichlet("w", a=np.asarray(a))
        mu = pm.Normal("mu", 0.0, np.asarray(sds), shape=2)
        sigma = pm.HalfNormal("sigma", 1.0, shape=2)
        pm.NormalMixture("y", w=w, mu=mu, sigma=sigma, observed=Y)
    return model


def test_a_normal_mixture_is_compared_sorted():
    (found,) = find_mixtures(normal_mixture())
    assert found.exchangeable, found.reason
    assert found.spec == Exchangeable(("mu", "sigma", "w"))
    (found,) = find_mixtures(normal_mixture(sds=(1.0, 2.0)))
    assert not found.exchangeable
    assert "mu: its prior differs between components" in found.reason
    (found,) = find_mixtures(normal_mixture(a=(1.0, 3.0)))
    assert "unequal concentrations" in found.reason
