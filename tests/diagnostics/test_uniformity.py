"""The ECDF-band uniformity test: its false-alarm rate, its power, and ArviZ's band."""

import numpy as np
import pytest
from arviz_stats.ecdf_utils import simulate_confidence_bands
from scipy import stats

from zoo.diagnostics.uniformity import _grid, ecdf_band, null_statistics, uniformity_pvalue

N = 100


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
