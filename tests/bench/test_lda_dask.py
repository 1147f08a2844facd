"""bench.lda_dask's measures of a partitioned kernel's distance, on draws of known bias."""

import numpy as np
from scipy import stats

from bench.lda_dask import _bias_beyond_noise
from zoo.diagnostics import Marginal, Reference, agreement

SHAPE = (3,)
# Independent draws: 4 chains x 20,000, so each mean's MCSE is 1 / sqrt(80,000) = 0.0035
# posterior sds; the bounds below are 5 MCSEs wide (two-sided 6e-7 each).
DRAWS = (4, 20_000, *SHAPE)
MCSE = 1 / np.sqrt(4 * 20_000)


def reference():
    frozen = stats.norm(np.zeros(SHAPE), np.full(SHAPE, 2.0))
    return Reference({"x": Marginal.from_scipy(frozen, ("item",))}, coords={"item": list("abc")})


def test_exact_draws_show_no_bias_beyond_their_noise():
    draws = {"x": 2.0 * np.random.default_rng(0).normal(size=DRAWS)}
    bias, z_squared = _bias_beyond_noise([agreement(draws, reference())])
    # Each mean's error is about N(0, MCSE^2): what is left of it after the noise is
    # taken away is below 5 MCSEs.
    assert 0.0 <= bias < 5 * MCSE
    # Three z^2 of chi-square(1): their mean exceeds 10 with probability below 1e-6.
    assert z_squared < 10


def test_a_shifted_sampler_shows_its_shift_in_posterior_sds():
    # Every mean off by 0.1 posterior sd (0.2 on a scale of sd 2): the measure reads 0.1,
    # and the mean z^2 about (0.1 / MCSE)^2 = 800, where the exact draws give about 1.
    draws = {"x": 2.0 * np.random.default_rng(1).normal(size=DRAWS) + 0.2}
    bias, z_squared = _bias_beyond_noise([agreement(draws, reference())])
    assert abs(bias - 0.1) < 5 * MCSE
    assert z_squared > 400
