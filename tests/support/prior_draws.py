"""Several parameter draws of one model, stacked with leading sample dims (chain, draw)."""

from __future__ import annotations

import numpy as np


def prior_draws(spec, size: dict, *, chains: int = 2, draws: int = 3, seed: int = 0, names=None):
    """``(params, data)``: ``chains x draws`` prior draws of the parameters, one data set.

    Each parameter draw comes from its own ``simulate`` call of the same sizes; the
    data set is the first call's; ``names`` (default: all) picks the parameters, for a
    model whose other variables' shapes depend on the data drawn. The pointwise
    log-likelihood is defined at any parameter value, so draws that did not generate
    the data test it as well.
    """
    prior = spec.simulation_setup()[0]
    rng = np.random.default_rng(seed)
    truths = []
    data = None
    for _ in range(chains * draws):
        truth, simulated = spec.simulate(prior, rng, **size)
        data = simulated if data is None else data
        truths.append(truth)
    params = {
        name: np.stack([truth[name] for truth in truths]).reshape(
            chains, draws, *np.shape(truths[0][name])
        )
        for name in names or truths[0]
    }
    return params, data


def draws_with_pointwise_totals(spec, params: dict, data):
    """Each ``(chain, draw)`` of ``params`` as one draw, with its pointwise terms' sum.

    What a model's one-draw ``log_likelihood`` must equal (its batched
    ``pointwise_log_likelihood`` summed over observations).
    """
    terms = spec.pointwise_log_likelihood(data, params)
    chains, draws = next(iter(params.values())).shape[:2]
    for c in range(chains):
        for s in range(draws):
            draw = {name: value[c, s] for name, value in params.items()}
            yield draw, sum(values[c, s].sum() for values, _ in terms.values())
