"""Posterior SBC: calibration conditional on the observed data (Säilynoja et al. 2025).

Säilynoja, Schmitt, Bürkner & Vehtari, "Posterior SBC: simulation-based calibration
checking conditional on data", arXiv:2502.03279 (2025), sec. 2. Given observed data
``y``, draw ``theta' ~ p(theta | y)``, simulate new data ``y' ~ p(y' | theta')``, fit
the augmented data ``(y, y')`` with the sampler under test and rank ``theta'`` among
its draws. The pair ``(theta', y')`` is a draw of the joint ``p(theta, y' | y)``, whose
"prior" is ``p(theta | y)``; by Bayes' rule ``theta'`` is then a draw of
``p(theta | y, y')``, which is what the fit should sample, so every rank is uniform
(the theorem of Talts et al. 2018 with ``p(theta | y)`` for the prior). Where prior SBC
averages over data sets the prior could draw, this looks where the observed data put
the posterior: a bug whose effect is small beside the prior's spread (a dropped prior
term, a sufficient statistic taken about the wrong centre) is no longer averaged away.

Choices, and why:

- ``theta'`` comes from a long *reference* run on the observed data, not from the
  sampler under test (which may be wrong) and not from the zoo's exact references,
  which give each variable's marginal only while ``y'`` needs joint draws. The run is
  thinned to near independence (:func:`zoo.diagnostics.sbc.thinning_factor`) and the
  draws used are spread evenly over what is left (:func:`reference_draws`). The check
  gates the run's health as the nuts check gates NUTS: a reference run that has not
  mixed cannot speak for ``p(theta | y)``.
- ``y'`` has as many observations as ``y``, at the same design (the model's
  ``augment``), so the augmented posterior is about as far from ``p(theta | y)`` as
  ``p(theta | y)`` is from the prior.
- Ranks, thinning, ties and the uniformity test are SBC's own
  (:func:`zoo.diagnostics.sbc.truth_ranks`, :func:`zoo.diagnostics.sbc.sbc_result`);
  the log-likelihood quantity is that of the augmented data.
- Seeds: item 0 of the ``posterior-sbc`` stream seeds the reference run; simulation
  ``i`` draws from item ``i + 1`` (split three ways: new data, fit, ties), so a record
  depends on ``(seed, i)`` only.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import numpy as np
import xarray as xr

from zoo.core import streams
from zoo.core.arguments import as_int
from zoo.diagnostics.sbc import SIMULATION_ERROR, thinning_factor, truth_ranks

__all__ = [
    "PURPOSE",
    "ReferenceDraws",
    "posterior_simulation_ranks",
    "reference_draws",
    "reference_seed",
]

#: The stream of :mod:`zoo.core.streams`: item 0 the reference run, item ``i + 1``
#: simulation ``i``.
PURPOSE = "posterior-sbc"


def reference_seed(seed: int) -> int:
    """The seed of the reference run: item 0 of the check's stream."""
    return streams.integer(streams.item(seed, PURPOSE, 0))


class ReferenceDraws:
    """Draws of ``p(theta | y)`` from a reference run, thinned, to condition on.

    Attributes
    ----------
    draws : list of dict
        ``count`` draws, each ``{variable: value}`` (every variable of the run).
    available : int
        Draws left after thinning (at least ``count`` when ``draws`` is full).
    min_ess : float
        The smallest bulk or tail ESS of the run over its quantities.
    """

    def __init__(self, draws, available: int, min_ess: float):
        self.draws = draws
        self.available = available
        self.min_ess = min_ess


def reference_draws(run: xr.Dataset, count: int) -> ReferenceDraws:
    """``count`` near-independent draws of a reference run, spread evenly over it.

    The run (dims ``(chain, draw, ...)``) is thinned by ``ceil(n / ESS)``
    (:func:`zoo.diagnostics.sbc.thinning_factor` over every element of every variable)
    and the draws at ``count`` evenly spaced positions of the thinned sequence (chains
    one after the other) are returned; fewer are returned when fewer are left.
    Evenly spaced, not random: the same run gives the same draws.
    """
    count = as_int("count", count, minimum=1)
    chains, length = run.sizes["chain"], run.sizes["draw"]
    names = list(run.data_vars)
    values = np.concatenate(
        [np.asarray(run[n].values, dtype=float).reshape(chains, length, -1) for n in names],
        axis=2,
    )
    factor, min_ess = thinning_factor(values)
    kept = [(c, d) for c in range(chains) for d in range(0, length, factor)]
    chosen = np.linspace(0, len(kept) - 1, min(count, len(kept))).round().astype(int)
    draws = [
        {n: np.array(run[n].values[kept[i][0], kept[i][1]], copy=True) for n in names}
        for i in chosen
    ]
    return ReferenceDraws(draws, len(kept), min_ess)


def _seeds(seed: int, index: int):
    augment_seq, fit_seq, ties_seq = streams.item(seed, PURPOSE, index + 1).spawn(3)
    return (
        np.random.default_rng(augment_seq),
        streams.integer(fit_seq),
        np.random.default_rng(ties_seq),
    )


def posterior_simulation_ranks(
    model,
    fit,
    index: int,
    *,
    seed: int,
    data,
    prior,
    truth: Mapping[str, np.ndarray],
    draws: int,
    chains: int,
) -> dict:
    """Run simulation ``index``: augment ``data`` given ``truth``, fit, thin, rank.

    Parameters
    ----------
    model : Model
        With an ``augment``.
    fit : callable
        ``fit(data, prior, *, draws, chains, seed) -> xarray.Dataset``, as for
        :func:`zoo.diagnostics.sbc.simulation_ranks`.
    index, seed : int
        Fix the new data, the fit's seed and the tie-breaking.
    data, prior
        The observed data and its prior.
    truth : mapping
        ``theta'``: one draw of ``p(theta | data)`` (:func:`reference_draws`).
    draws, chains : int
        Per fit.

    Returns
    -------
    dict
        A record of :func:`zoo.diagnostics.sbc.sbc_result`'s form. When ``augment``
        raises, the status is ``simulation-error`` and nothing is fitted: the model's
        failure, never the sampler's. Raises whatever ``fit`` raises (a failed fit).
    """
    index = as_int("index", index, minimum=0)
    draws = as_int("draws", draws, minimum=1)
    chains = as_int("chains", chains, minimum=1)
    started = time.perf_counter()
    augment_rng, fit_seed, ties_rng = _seeds(seed, index)
    try:
        augmented = model.augment(data, truth, prior, augment_rng)
    except Exception as error:  # the model's own simulation: reported, never the sampler's
        return {
            "index": index,
            "status": SIMULATION_ERROR,
            "message": f"{type(error).__name__}: {error}",
            "redraws": 0,
            "seconds": time.perf_counter() - started,
        }
    posterior = fit(augmented, prior, draws=draws, chains=chains, seed=fit_seed)
    ranked = truth_ranks(model, prior, augmented, truth, posterior, ties_rng)
    return {
        "index": index,
        "status": "ok",
        **ranked,
        "redraws": 0,
        "seconds": time.perf_counter() - started,
    }
