"""The shared labelings machinery: cap and guard, decoding, pruning, near-certain rule."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from zoo.models.labelings import (
    MAX_LABELINGS,
    NEAR_CERTAIN,
    BetaMoments,
    Labelings,
    categorical,
    heaviest,
    probability_marginal,
)


def test_decoding_enumerates_every_labeling_once_in_base_k_order():
    space = Labelings(3, 4)
    assert space.enumerable and space.count == 81
    index = np.concatenate(list(space.chunks(per_labeling=10**6)))
    np.testing.assert_array_equal(index, np.arange(81))
    classes = space.classes(index)
    # Item 0 is the least significant digit.
    expected = [row[::-1] for row in itertools.product(range(3), repeat=4)]
    np.testing.assert_array_equal(classes, expected)
    onehot = space.onehot(index[:5])
    np.testing.assert_array_equal(onehot.argmax(axis=2), classes[:5])
    assert onehot.sum(axis=2).min() == 1.0


def test_no_latent_item_is_one_labeling():
    space = Labelings(2, 0)
    assert space.count == 1 and space.classes([0]).shape == (1, 0)


def test_the_cap_is_two_to_the_sixteen_and_compared_in_logs():
    assert MAX_LABELINGS == 2**16
    assert Labelings(2, 16).enumerable
    assert not Labelings(2, 17).enumerable
    # 10^400 labelings overflow no float: the comparison is made in logarithms.
    huge = Labelings(10, 400)
    assert not huge.enumerable and "10^400 labelings" in huge.too_many("tokens")


def test_guard_raises_a_clear_value_error():
    space = Labelings(2, 20, field="max_assignments")
    with pytest.raises(ValueError, match=r"^max_assignments: 2\^20 labelings exceed"):
        space.classes([0])
    with pytest.raises(ValueError, match=r"^max_assignments:"):
        next(space.chunks(per_labeling=1))
    with pytest.raises(ValueError, match=r"^max_labelings: must be an integer >= 1"):
        Labelings(2, 3, limit=0)
    with pytest.raises(ValueError, match=r"^index:"):
        Labelings(2, 3).classes([8])


def test_pruning_keeps_the_heaviest_and_bounds_the_dropped_mass():
    rng = np.random.default_rng(0)
    weights = rng.dirichlet(np.full(200, 0.05))
    kept, dropped = heaviest(weights, negligible=1e-6)
    assert np.all(np.diff(kept) > 0)
    assert dropped < 1e-6 and dropped == pytest.approx(1.0 - weights[kept].sum(), abs=1e-15)
    lightest_kept = weights[kept].min()
    assert np.all(np.delete(weights, kept) <= lightest_kept)
    capped, lost = heaviest(weights, negligible=1e-6, at_most=3)
    assert capped.size == 3 and lost == pytest.approx(1.0 - np.sort(weights)[-3:].sum())


def test_near_certain_probabilities_are_not_tested():
    probability = np.array([0.0, NEAR_CERTAIN / 2, NEAR_CERTAIN, 0.5, 1.0 - NEAR_CERTAIN, 1.0])
    marginal = probability_marginal(("u",), probability)
    np.testing.assert_array_equal(np.isnan(marginal.mean), [True, True, False, False, False, True])
    assert np.isnan(marginal.sd).all()
    assert NEAR_CERTAIN == 10.0 / 400.0


def test_categorical_follows_the_probabilities():
    rng = np.random.default_rng(3)
    probabilities = np.tile([0.2, 0.5, 0.3], (20_000, 1))
    counts = np.bincount(categorical(probabilities, rng), minlength=3) / 20_000
    np.testing.assert_allclose(counts, [0.2, 0.5, 0.3], atol=0.015)
    assert categorical(np.zeros((0, 3)), rng).shape == (0,)


def test_beta_moments_accumulated_in_chunks_are_the_mixture_moments():
    rng = np.random.default_rng(4)
    a = rng.uniform(0.5, 20.0, size=(50, 3))
    b = rng.uniform(0.5, 20.0, size=(50, 3))
    weights = rng.dirichlet(np.ones(50))
    moments = BetaMoments((3,))
    for chunk in np.array_split(np.arange(50), 4):
        moments.add(weights[chunk], a[chunk], b[chunk])
    mean, sd = moments.result()
    # E[x] and E[x^2] of the mixture from scipy's moments of each component.
    components = stats.beta(a, b)
    exact_mean = weights @ components.mean()
    second = weights @ (components.var() + components.mean() ** 2)
    np.testing.assert_allclose(mean, exact_mean, rtol=1e-12)
    np.testing.assert_allclose(sd, np.sqrt(second - exact_mean**2), rtol=1e-9)
