"""The ECDF-band uniformity test: its false-alarm rate, its power, and ArviZ's band."""

import itertools

import numpy as np
import pytest
from arviz_stats.ecdf_utils import simulate_confidence_bands
from scipy import stats

from zoo.diagnostics import holm
from zoo.diagnostics.uniformity import (
    _grid,
    ecdf_band,
    exceedance_probability,
    null_statistics,
    tail_statistic,
    uniformity_pvalue,
)

N = 100
# The false-alarm rate of each calibration test below (binomial tests of rejection counts).
CALIBRATION_ALARM = 1e-4


def _sbc_ranks(rng, shape, thinned):
    """Ranks as SBC makes them from exact posterior draws: r uniform on 0..L, spread."""
    rank = rng.integers(0, thinned + 1, size=shape)
    return (rank + rng.random(shape)) / (thinned + 1)


def _p_values(values):
    """uniformity_pvalue of each row, each distinct statistic computed once."""
    observed = tail_statistic(values, _grid(values.shape[-1]))
    atoms, where = np.unique(observed, return_inverse=True)
    n = values.shape[-1]
    p = np.array([exceedance_probability(n, float(a)) for a in atoms])[where]
    return p.reshape(observed.shape)


def test_the_recursion_is_the_enumerated_null_distribution():
    # N = 5 values, grid 1/5..4/5: every way of putting 5 values into the 5 cells,
    # weighted by its multinomial probability, gives P(S <= t) with no recursion.
    n = 5
    grid = _grid(n)
    cells = len(grid) + 1
    statistics, weights = [], []
    for split in itertools.product(range(n + 1), repeat=cells):
        if sum(split) != n:
            continue
        weights.append(stats.multinomial.pmf(split, n, [1.0 / cells] * cells))
        # One value in the middle of each occupied cell stands for the cell's values.
        values = np.repeat((np.arange(cells) + 0.5) / cells, split)
        statistics.append(float(tail_statistic(values, grid)))
    statistics, weights = np.array(statistics), np.array(weights)
    for t in np.unique(statistics):
        enumerated = weights[statistics <= t * (1 + 1e-9)].sum()
        assert exceedance_probability(n, float(t)) == pytest.approx(enumerated, rel=1e-12)


def test_the_recursion_agrees_with_the_simulated_null_table():
    null = null_statistics(N)
    for index in (100, 1_000, 10_000, 50_000):
        t = float(null[index])
        exact = exceedance_probability(N, t)
        share = np.searchsorted(null, t, side="right") / null.size
        # The table's share is Binomial(100,000, exact) / 100,000; |z| > 4.4 has 1e-5.
        se = np.sqrt(exact * (1 - exact) / null.size)
        assert abs(share - exact) < 4.4 * se, (index, share, exact)


@pytest.mark.parametrize("level", [0.05, 0.01, 0.002, 1e-4, 0.002 / 17])
def test_the_size_at_each_level_is_at_most_the_level_and_close_to_it(level):
    # No simulation: p <= a exactly when the statistic is at most the band's gamma, and
    # P(S <= gamma) is the recursion's. The statistic is discrete, so the size sits a
    # little below the level (at N = 100, within 5% of it at these levels).
    gamma = (1.0 - ecdf_band(N, level).pointwise_level) / 2.0
    size = exceedance_probability(N, gamma)
    assert 0.95 * level <= size <= level


@pytest.mark.parametrize("thinned", [9, 100])
def test_exact_uniform_ranks_are_rejected_at_the_stated_rate(thinned):
    # Ranks among L thinned draws of the exact posterior, as simulation_ranks makes them.
    rng = np.random.default_rng(thinned)
    p = _p_values(_sbc_ranks(rng, (2_000, N), thinned))
    for level in (0.05, 0.01):
        k = int(np.count_nonzero(p <= level))
        # The statistic is discrete: the size may be a little below the level, never above.
        test = stats.binomtest(k, p.size, level, alternative="greater")
        assert test.pvalue > CALIBRATION_ALARM, (level, k)
        assert k > 0.5 * level * p.size, (level, k)


@pytest.mark.slow
def test_sbcs_decision_on_exact_uniform_ranks_holds_its_rate():
    # The check's decision as it is made: 17 quantities (the beta-binomial's and naive
    # Bayes's count), 100 simulations, Holm at 0.2%; 100,000 runs, and each quantity's
    # p-value at 1e-4, where the simulated table failed (1.4e-4; docs/power.md).
    rng = np.random.default_rng(20261126)
    p = _p_values(_sbc_ranks(rng, (100_000, 17, N), 100))
    single = int(np.count_nonzero(p <= 1e-4))
    assert stats.binomtest(single, p.size, 1e-4, alternative="greater").pvalue > CALIBRATION_ALARM
    family = int(sum(holm(row).min() < 0.002 for row in p))
    assert stats.binomtest(family, p.shape[0], 0.002, alternative="greater").pvalue > (
        CALIBRATION_ALARM
    )


def test_p_values_of_uniform_samples_are_uniform():
    rng = np.random.default_rng(11)
    p = np.array([uniformity_pvalue(rng.random(N)) for _ in range(400)])
    # Rejections at 5% among 400 true nulls: Binomial(400, 0.05); fail only below 1e-4.
    rejections = int(np.count_nonzero(p < 0.05))
    assert stats.binomtest(rejections, 400, 0.05).pvalue > 1e-4, rejections
    assert stats.kstest(p, "uniform").pvalue > 1e-4


@pytest.mark.parametrize(
    "draw",
    [
        lambda rng: rng.beta(0.5, 0.5, N),  # under-dispersed posterior: U-shaped ranks
        lambda rng: rng.beta(3.0, 3.0, N),  # over-dispersed: humped ranks
        lambda rng: rng.random(N) ** 1.6,  # biased
    ],
)
def test_it_detects_non_uniform_ranks(draw):
    rng = np.random.default_rng(5)
    p = np.array([uniformity_pvalue(draw(rng)) for _ in range(20)])
    assert np.mean(p < 0.01) >= 0.8


def test_the_adjusted_level_matches_arviz():
    band = ecdf_band(N, 0.05)
    theirs = simulate_confidence_bands(N, 1, _grid(N), 0.95, 4000, np.random.default_rng(3))
    # Both estimate the 5% quantile of the same statistic by simulation: theirs from
    # 4000 samples, whose quantile has a relative sd near 0.08 here.
    assert (1 - band.pointwise_level) == pytest.approx(1 - theirs, rel=0.35)


def test_leaving_the_band_is_rejecting():
    rng = np.random.default_rng(8)
    alpha = 0.05
    band = ecdf_band(N, alpha)
    for _ in range(200):
        values = rng.beta(1.3, 1.3, N)
        p = uniformity_pvalue(values)
        ecdf = np.searchsorted(np.sort(values), band.grid, side="right") / N
        outside = np.any((ecdf < band.lower) | (ecdf > band.upper))
        if p < alpha / 2:
            assert outside
        elif p > 2 * alpha:
            assert not outside


def test_null_table_is_a_constant():
    assert np.array_equal(null_statistics(N), null_statistics.__wrapped__(N))


@pytest.mark.parametrize(
    ("values", "message"),
    [([], "non-empty"), ([0.5, np.nan], "lie in"), ([0.5, 1.5], "lie in"), ([[0.5]], "1-d")],
)
def test_bad_values(values, message):
    with pytest.raises(ValueError, match=message):
        uniformity_pvalue(np.array(values, dtype=float))
