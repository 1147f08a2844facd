"""zoo.validation.nuts_check: NUTS is a reference only when it is healthy."""

import numpy as np
import xarray as xr

from zoo.validation.nuts_check import ESS_MIN, RHAT_MAX, nuts_health


def _posterior(values: np.ndarray) -> xr.Dataset:
    return xr.Dataset({"mu": (("chain", "draw"), values)})


def test_independent_chains_of_one_distribution_are_healthy():
    rng = np.random.default_rng(0)
    assert nuts_health(_posterior(rng.normal(size=(4, 1000))), np.zeros((4, 1000), bool)) == []


def test_each_sign_of_ill_health_is_named():
    rng = np.random.default_rng(0)
    healthy = rng.normal(size=(4, 1000))
    diverging = np.zeros((4, 1000), bool)
    diverging[1, 5] = True
    assert nuts_health(_posterior(healthy), diverging) == ["1 divergent transition(s)"]
    stuck = healthy + np.array([0.0, 0.0, 0.0, 3.0])[:, None]
    reasons = nuts_health(_posterior(stuck), np.zeros((4, 1000), bool))
    assert any(r.startswith("mu: R-hat") and f"> {RHAT_MAX}" in r for r in reasons)
    short = rng.normal(size=(4, 50))
    reasons = nuts_health(_posterior(short), np.zeros((4, 50), bool))
    assert any(r.startswith("mu: bulk ESS") and f"< {ESS_MIN:g}" in r for r in reasons)
