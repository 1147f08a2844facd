"""Convergence gates: when a quantity's Monte Carlo standard errors can be trusted.

Vehtari, Gelman, Simpson, Carpenter & Bürkner (Bayesian Analysis 16, 2021) recommend
rank-normalised split R-hat <= 1.01 and bulk and tail ESS >= 400 before any estimate is
trusted. Both are kept, with one refinement (``docs/design.md``, "Gates"): R-hat is an
estimate too, and at the ESS the second gate allows it exceeds 1.01 by chance alone. With
``M = 2 * chains`` split halves of ``h = draws / 2`` draws each, a stationary chain with
integrated autocorrelation time ``tau = M h / ESS`` gives half means whose variance is
``sigma^2 tau / h * chi^2_{M-1} / (M - 1)``, so (Gelman & Rubin 1992's decomposition of
R-hat; Vats & Knudson, Statistical Science 36, 2021, for R-hat as a function of ESS)

    X = (R-hat^2 - 1 + 1 / h) * ESS / M   ~   chi^2_{M-1} / (M - 1),

with ESS the *within-chain* effective size (the sum of each chain's own ESS): the null
is that of stationary chains, whose between-chain variance their within-chain
autocorrelation alone predicts. ArviZ's pooled ESS would not do: it takes the
between-chain variance into its autocorrelations, so a chain that sits apart lowers it
and raises the noise allowed, and the rule would not see that chain.

AR(1) chains of 4 x 1,000 draws at an ESS of about 450 exceed R-hat 1.01 in 30% of
quantities (``bench/rhat_gate.py``); over the hundreds of quantities of one model, a
correct sampler was judged inconclusive on the default Naive Bayes problem for that
reason alone. So a quantity fails the R-hat gate only when R-hat is above ``rhat_max``
*and* ``X`` is beyond its ``1 - level`` quantile, with ``level`` the family's rate
shared over the quantities (Bonferroni) and over ArviZ's two R-hats (bulk and folded,
of which it reports the larger). The benchmark measures how often each rule gates out
well-mixing quantities and catches one chain shifted by a fraction of a posterior sd.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = [
    "ESS_MIN",
    "RHAT_MAX",
    "passes",
    "rhat_beyond_noise",
    "rhat_gate_level",
    "within_chain_ess",
]

#: Vehtari et al. (2021)'s thresholds.
RHAT_MAX = 1.01
ESS_MIN = 400.0


def rhat_gate_level(alpha: float, quantities: int) -> float:
    """Per-quantity level of the R-hat noise test: ``alpha`` over quantities and both R-hats."""
    return alpha / (2.0 * max(int(quantities), 1))


def within_chain_ess(values: np.ndarray) -> np.ndarray:
    """Sum over chains of each chain's own bulk ESS; ``values`` (chains, draws, quantities)."""
    # deferred: arviz_stats takes about 0.5 s to import; `zoo list` needs none of it
    import arviz_stats as azs

    return sum(np.atleast_1d(azs.ess(chain[np.newaxis], method="bulk")) for chain in values)


def rhat_beyond_noise(
    rhat: np.ndarray, ess_within: np.ndarray, *, chains: int, draws: int, level: float
) -> np.ndarray:
    """Whether each R-hat is larger than stationary chains with that ESS give at ``level``.

    ``ess_within`` is the within-chain ESS (:func:`within_chain_ess`). NaN (constant
    draws, a single chain) counts as beyond.
    """
    rhat = np.asarray(rhat, dtype=float)
    ess_within = np.asarray(ess_within, dtype=float)
    halves = 2 * chains
    half_length = draws // 2
    if halves < 2 or half_length < 1:
        return np.ones(rhat.shape, dtype=bool)
    statistic = (rhat**2 - 1.0 + 1.0 / half_length) * ess_within / halves
    bound = stats.chi2.isf(level, halves - 1) / (halves - 1)
    with np.errstate(invalid="ignore"):
        return ~(statistic <= bound)


def passes(
    rhat: np.ndarray,
    ess_bulk: np.ndarray,
    ess_tail: np.ndarray,
    *,
    chains: int,
    draws: int,
    rhat_max: float = RHAT_MAX,
    ess_min: float = ESS_MIN,
    level: float = 0.0,
    ess_within: np.ndarray | None = None,
) -> np.ndarray:
    """Which quantities pass the gates.

    Bulk and tail ESS at least ``ess_min``, and R-hat at most ``rhat_max`` or, above it,
    within its noise at ``level`` given the within-chain ESS ``ess_within``
    (:func:`rhat_beyond_noise`); ``level=0`` is the plain ``R-hat <= rhat_max`` rule.
    NaN fails every gate.
    """
    rhat = np.asarray(rhat, dtype=float)
    ess_ok = (np.asarray(ess_bulk) >= ess_min) & (np.asarray(ess_tail) >= ess_min)
    rhat_ok = rhat <= rhat_max
    if level > 0:
        if ess_within is None:
            raise ValueError("ess_within: needed with level > 0")
        noisy = ~rhat_beyond_noise(rhat, ess_within, chains=chains, draws=draws, level=level)
        rhat_ok = rhat_ok | (np.isfinite(rhat) & noisy)
    return rhat_ok & ess_ok
