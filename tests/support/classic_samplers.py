"""Hand-derived Gibbs samplers for the classic models, as a user would write them.

Each has the data-only sampler protocol ``(data, *, draws, chains, seed)`` of a PyMC-
specified model (``data`` a dict of the observed values).
"""

import numpy as np

from tests.support import classic_models as classic


def coal_gibbs(data, *, draws, chains, seed, late_count_bug=False):
    """Gibbs for the change point: rates given k (Gamma), then k given the rates.

    ``k`` given the rates is proportional to ``early^S_k e^(-early n_k) late^(S - S_k)
    e^(-late (N - n_k))`` over the years (a uniform prior), with ``S_k`` the disasters up
    to and including year ``k`` and ``n_k`` the number of those years.
    """
    rng = np.random.default_rng(seed)
    y = np.asarray(data["y"], dtype=float)
    years = classic.COAL_YEARS
    shape, rate = classic.COAL_RATE_PRIOR
    before = np.cumsum(y)  # S_k for k = each year
    count = np.arange(1, len(y) + 1)
    k = np.full(chains, len(y) // 2)
    out = {name: np.empty((chains, draws)) for name in ("k", "early", "late")}
    for step in range(2 * draws):
        late_years = len(y) - count[k]
        if late_count_bug:
            late_years = count[k]  # the bug: the early segment's length used for the late
        early = rng.gamma(shape + before[k], 1.0 / (rate + count[k]))
        late = rng.gamma(shape + y.sum() - before[k], 1.0 / (rate + late_years))
        log_p = (
            before[None, :] * np.log(early[:, None])
            - early[:, None] * count[None, :]
            + (y.sum() - before[None, :]) * np.log(late[:, None])
            - late[:, None] * (len(y) - count[None, :])
        )
        p = np.exp(log_p - log_p.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        u = rng.random(chains)[:, None]
        k = np.minimum((np.cumsum(p, axis=1) < u).sum(axis=1), len(y) - 1)
        if step >= draws:
            out["k"][:, step - draws] = years[k]
            out["early"][:, step - draws] = early
            out["late"][:, step - draws] = late
    out["k"] = out["k"].astype(np.int64)
    return out


def coal_gibbs_late_count_bug(data, *, draws, chains, seed):
    """The late rate's Gamma uses the early segment's number of years."""
    return coal_gibbs(data, draws=draws, chains=chains, seed=seed, late_count_bug=True)
