"""zoo.diagnostics.label_invariants: the quantities a relabelling leaves unchanged."""

import itertools

import numpy as np
import pytest

from zoo.diagnostics.label_invariants import (
    Exchangeable,
    coassignment_pairs,
    invariant_dims,
    invariant_draws,
    invariant_names,
    label_invariant_dataset,
)

BINARY = Exchangeable(("mu",), label="z", weights="w", binary=True)
CATEGORICAL = Exchangeable(("mu", "sigma"), label="z", weights="w")


def test_binary_labels_by_hand():
    draws = {
        "mu": np.array([[[-1.0, 2.0]]]),
        "z": np.array([[[0, 1, 1, 0]]]),
        "w": np.array([[0.3]]),
    }
    out = invariant_draws(BINARY, draws)
    assert out["mu_of_z"].tolist() == [[[-1.0, 2.0, 2.0, -1.0]]]
    # component 1 has weight w, component 0 has 1 - w
    np.testing.assert_allclose(out["w_of_z"], [[[0.7, 0.3, 0.3, 0.7]]])
    # pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
    assert out["coassignment_z"].tolist() == [[[0, 0, 1, 1, 0, 0]]]
    assert invariant_names(BINARY) == ["mu_of_z", "w_of_z", "coassignment_z"]


def test_categorical_labels_with_vector_components_by_hand():
    mu = np.array([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]])  # (K=3, d=2)
    draws = {
        "mu": mu[None],  # one sample axis
        "sigma": np.array([[0.1, 0.2, 0.3]]),
        "z": np.array([[2, 0, 2]]),
        "w": np.array([[0.5, 0.2, 0.3]]),
    }
    out = invariant_draws(CATEGORICAL, draws, lead=1)
    assert out["mu_of_z"][0].tolist() == [[3.0, 30.0], [1.0, 10.0], [3.0, 30.0]]
    assert out["sigma_of_z"][0].tolist() == [0.3, 0.1, 0.3]
    assert out["w_of_z"][0].tolist() == [0.3, 0.5, 0.3]
    assert out["coassignment_z"][0].tolist() == [0.0, 1.0, 0.0]
    dims = invariant_dims(
        CATEGORICAL, {"mu": ("component", "d"), "sigma": ("component",), "z": ("obs",)}
    )
    assert dims["mu_of_z"] == ("obs", "d")
    assert dims["coassignment_z"] == ("z_pair",)


def test_every_relabelling_leaves_them_unchanged():
    rng = np.random.default_rng(0)
    k, n = 3, 7
    draws = {
        "mu": rng.normal(size=(2, 5, k)),
        "sigma": rng.gamma(2.0, size=(2, 5, k)),
        "z": rng.integers(0, k, size=(2, 5, n)),
        "w": rng.dirichlet(np.ones(k), size=(2, 5)),
    }
    base = invariant_draws(CATEGORICAL, draws)
    for perm in itertools.permutations(range(k)):
        perm = np.array(perm)
        inverse = np.argsort(perm)
        relabelled = {
            "mu": draws["mu"][..., perm],
            "sigma": draws["sigma"][..., perm],
            "w": draws["w"][..., perm],
            "z": inverse[draws["z"]],  # label l now names old component perm[l]
        }
        moved = invariant_draws(CATEGORICAL, relabelled)
        for name, values in base.items():
            np.testing.assert_array_equal(moved[name], values)
    # and the raw variables are not invariant: the twin of the check above
    assert not np.array_equal(draws["mu"][..., [1, 0, 2]], draws["mu"])


def test_sorted_components_without_labels():
    spec = Exchangeable(("mu", "w"))
    draws = {"mu": np.array([[[2.0, -1.0, 0.5]]]), "w": np.array([[[0.2, 0.5, 0.3]]])}
    out = invariant_draws(spec, draws)
    assert out["mu_sorted"].tolist() == [[[-1.0, 0.5, 2.0]]]
    assert out["w_sorted"].tolist() == [[[0.5, 0.3, 0.2]]]


def test_pairs_and_dataset():
    assert coassignment_pairs(3).tolist() == [[0, 1], [0, 2], [1, 2]]
    draws = {
        "mu": np.zeros((2, 4, 2)),
        "z": np.ones((2, 4, 3), dtype=int),
        "w": np.full((2, 4), 0.5),
    }
    dataset = label_invariant_dataset(
        draws, [BINARY], {"mu": ("component",), "z": ("obs",), "w": ()}
    )
    assert dict(dataset["mu_of_z"].sizes) == {"chain": 2, "draw": 4, "obs": 3}
    assert dataset["coassignment_z"].values.all()


def test_describe_names_the_variables():
    assert BINARY.describe() == "components of mu (labels z)"
    assert BINARY.variables == ("mu", "z", "w")
    with pytest.raises(KeyError):
        invariant_draws(BINARY, {"mu": np.zeros((1, 1, 2))})
