"""Geweke's test functions: bounded, centred on the pilot, sensitive to scale."""

import numpy as np
import pytest
from scipy import special, stats

from zoo.diagnostics.geweke import _compare
from zoo.diagnostics.geweke_functions import QUANTILES, TestFunctions


def _functions(pilot):
    return TestFunctions(["x", "y"], pilot)


def test_labels_follow_the_values_order():
    functions = _functions(np.arange(20.0).reshape(10, 2))
    assert len(functions) == 10
    assert functions.labels() == [
        "normal score x",
        "normal score y",
        "squared normal score x",
        "squared normal score y",
        "P(x <= q10) x",
        "P(x <= q10) y",
        "P(x <= q50) x",
        "P(x <= q50) y",
        "P(x <= q90) x",
        "P(x <= q90) y",
    ]


def test_values_are_mid_rank_normal_scores_and_indicators_at_pilot_values():
    pilot = np.column_stack([np.arange(1.0, 11.0), np.ones(10)])
    functions = _functions(pilot)
    values = functions(np.array([[0.0, 1.0], [5.0, 2.0], [99.0, 0.0]]))
    n = 10
    # Below every pilot value: rank 0; equal to the 5th: mid-rank 4.5; above all: 10.
    expected_x = special.ndtri((np.array([0.0, 4.5, 10.0]) + 0.5) / (n + 1))
    # y's pilot is all ones: 1 ties all ten (mid-rank 5), 2 is above, 0 below.
    expected_y = special.ndtri((np.array([5.0, 10.0, 0.0]) + 0.5) / (n + 1))
    np.testing.assert_allclose(values[:, 0], expected_x)
    np.testing.assert_allclose(values[:, 1], expected_y)
    np.testing.assert_allclose(values[:, 2], expected_x**2)
    # The cuts are pilot values (inverted CDF): 1, 5 and 9 for x, 1 for y.
    np.testing.assert_array_equal(values[:, 4], [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(values[:, 6], [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(values[:, 8], [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(values[:, 5], [1.0, 0.0, 1.0])


def test_heavy_tails_give_bounded_functions_with_their_joint_means():
    """Cauchy scalars: every function bounded and at its stated mean on fresh draws."""
    rng = np.random.default_rng(3)
    n_pilot, n = 1000, 20000
    pilot = stats.cauchy.rvs(size=(n_pilot, 2), random_state=rng)
    functions = _functions(pilot)
    values = functions(stats.cauchy.rvs(size=(n, 2), random_state=rng) * 1e6)
    bound = special.ndtri(1 - 0.5 / (n_pilot + 1))
    assert np.abs(values[:, :2]).max() <= bound + 1e-12
    fresh = functions(stats.cauchy.rvs(size=(n, 2), random_state=rng))
    means = fresh.mean(axis=0)
    # The pilot's own error (its quantile estimate) dominates: sd of P(x <= q_p) about
    # sqrt(p (1 - p) / n_pilot); 5 of them, plus the fresh draws' own.
    for k, p in enumerate(QUANTILES):
        sd = np.sqrt(p * (1 - p) / n_pilot + p * (1 - p) / n)
        np.testing.assert_allclose(means[4 + 2 * k : 6 + 2 * k], p, atol=5 * sd)
    np.testing.assert_allclose(means[:2], 0.0, atol=5 * np.sqrt(1 / n_pilot + 1 / n))
    np.testing.assert_allclose(means[2:4], 1.0, atol=5 * np.sqrt(2 / n_pilot + 2 / n))


def test_a_wider_spread_at_the_same_location_moves_the_scale_functions():
    rng = np.random.default_rng(4)
    pilot = rng.normal(50.0, 1.0, size=(1000, 2))
    functions = _functions(pilot)
    wide = functions(rng.normal(50.0, 1.5, size=(20000, 2))).mean(axis=0)
    # Far from 1 (squared score) and from 0.1 and 0.9 (the outer indicators), where a
    # raw second moment (about 2,500 either way) would not see it.
    assert (wide[2:4] > 1.8).all()
    assert (wide[4:6] > 0.18).all() and (wide[8:10] < 0.82).all()
    assert np.abs(wide[:2]).max() < 0.1 and np.abs(wide[6:8] - 0.5).max() < 0.05


@pytest.mark.parametrize(
    ("pilot", "values", "message"),
    [
        (np.zeros((10, 3)), np.zeros((2, 2)), r"pilot: expected shape \(draws, 2\)"),
        (np.zeros((1, 2)), np.zeros((2, 2)), "pilot: needs at least 2 draws"),
        (np.full((10, 2), np.nan), np.zeros((2, 2)), "pilot: the marginal-conditional"),
        (np.zeros((10, 2)), np.zeros((2, 3)), r"values: expected shape \(draws, 2\)"),
    ],
)
def test_bad_shapes_are_refused(pilot, values, message):
    with pytest.raises(ValueError, match=message):
        _functions(pilot)(values)


def test_a_chain_stuck_where_the_marginal_varies_must_clear_the_ess_gate():
    # An indicator the chains never crossed in 4 x 2,500 steps: MCSE 0, t infinite.
    # It is below the gate (ESS 0), not a failure; constant on both sides it passes.
    rng = np.random.default_rng(0)
    marginal = np.column_stack([rng.uniform(size=4000) < 0.1, np.zeros(4000)]).astype(float)
    chains = np.zeros((4, 2500, 2))
    rows, message, _, slowest = _compare(marginal, chains, batches=20, segment=125)
    assert rows["gates_passed"].tolist() == [False, True]
    assert rows["ess_bulk"][0] == 0.0
    assert "1 test functions" in message
    # A stuck row gives no rate: no row that moved is below the gate.
    assert slowest == np.inf
