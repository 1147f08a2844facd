"""The exact samplers of SBC's null study agree with the zoo's exact posteriors.

Each posterior mean the reference states (a finite one) is compared with the mean of
4,000 independent draws: ``z = (mean - exact) / (sd / sqrt(n))``, standard normal when
the draws are exact; the bound is Bonferroni over the compared elements at a
family-wise 1e-3. The twin feeds prior draws (the data ignored) through the same
comparison and asserts that it fails.
"""

import numpy as np
import pytest
from scipy import stats

from bench import exact_draws
from zoo.registry import get

FAMILY_RATE = 1e-3
DRAWS = 2_000  # per chain, two chains


def _data(name: str, seed: int):
    model = get(name)
    prior, size = model.simulation_setup()
    _, data = model.simulate(prior, np.random.default_rng(seed), **size)
    return model, prior, data


def _largest_z(model, prior, data, draws: dict) -> tuple[float, float]:
    """The largest |z| of a posterior mean over the elements of ``draws``, and its bound."""
    reference = model.posterior(data, prior)
    z = []
    for name, marginal in reference.marginals.items():
        if name not in draws:
            continue
        values = np.asarray(draws[name], dtype=float).reshape(2 * DRAWS, -1)
        mean, sd = np.ravel(marginal.mean), np.ravel(marginal.sd)
        usable = np.isfinite(mean) & np.isfinite(sd) & (sd > 0)
        z.extend((values.mean(axis=0)[usable] - mean[usable]) / (sd[usable] / np.sqrt(2 * DRAWS)))
    z = np.abs(np.array(z))
    return float(z.max()), float(stats.norm.isf(FAMILY_RATE / (2 * z.size)))


@pytest.mark.parametrize("name", sorted(exact_draws.SAMPLERS))
@pytest.mark.parametrize("seed", [5, 8])
def test_exact_draws_have_the_exact_posteriors_means(name, seed):
    model, prior, data = _data(name, seed)
    draws = exact_draws.SAMPLERS[name](data, prior, draws=DRAWS, chains=2, seed=seed)
    largest, bound = _largest_z(model, prior, data, draws)
    assert largest < bound, f"{name}: a posterior mean |z| = {largest:.2f} >= {bound:.2f}"


@pytest.mark.parametrize("name", sorted(exact_draws.SAMPLERS))
def test_the_twin_prior_draws_are_told_apart(name):
    """Draws of the prior (each simulated truth of a fresh data set) are not the posterior."""
    model, prior, data = _data(name, 8)
    rng = np.random.default_rng(0)
    truths = [
        model.simulate(prior, rng, **model.simulation_setup()[1])[0] for _ in range(2 * DRAWS)
    ]
    draws = {key: np.stack([t[key] for t in truths]) for key in truths[0]}
    # The prior's class probabilities belong to other documents: left out.
    draws.pop("class_probability", None)
    largest, bound = _largest_z(model, prior, data, draws)
    assert largest >= bound
