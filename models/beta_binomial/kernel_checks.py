"""Beta-Binomial: what Geweke's test and the invariance check need (zoo.KernelChecks).

The kernel's state is ``(logit_mean, log_concentration)`` (NaN, NaN for fixed
hyperparameters); ``theta`` is integrated out of the state and brought back by ``draw``.
Given the parameters the latents are a deterministic function of ``(a, b)`` and the
data are ``y_j ~ Binomial(n_j, theta_j)`` (BDA3 sec. 5.3).
"""

from __future__ import annotations

import numpy as np

from zoo.core.contract import KernelChecks
from zoo.models.beta_binomial.gibbs import State
from zoo.models.beta_binomial.spec import Data, Prior

__all__ = ["KERNEL_CHECKS"]


def latents(params, data: Data, prior: Prior, rng: np.random.Generator) -> dict:
    """The state's coordinates at the parameters (no randomness needed)."""
    if not prior.hierarchical:
        return {}
    return {
        "logit_mean": np.float64(params["logit_mean"]),
        "log_concentration": np.float64(params["log_concentration"]),
    }


def redraw(params, latents, data: Data, prior: Prior, rng: np.random.Generator) -> Data:
    """``y_j ~ Binomial(n_j, theta_j)``, same groups and trials."""
    return data.with_successes(rng.binomial(data.trials, np.asarray(params["theta"], dtype=float)))


def state(latents, data: Data, prior: Prior) -> State:
    """The kernel's state at ``latents``."""
    if not prior.hierarchical:
        return State(np.nan, np.nan)
    return State(float(latents["logit_mean"]), float(latents["log_concentration"]))


def read(state: State, data: Data) -> dict:
    """The latents a state holds (none for fixed hyperparameters)."""
    if np.isnan(state.logit_mean):
        return {}
    return {
        "logit_mean": np.float64(state.logit_mean),
        "log_concentration": np.float64(state.log_concentration),
    }


def setup() -> tuple[Prior, dict]:
    """The truncated BDA3 hyperprior (a + b >= 1) and 6 groups of 3 trials.

    ``a`` and ``b`` themselves are not test functions: under ``p(a, b) ∝ (a + b)^(-5/2)``
    their means are infinite. ``log(a + b) ~ Exponential(1/2)`` and ``logit(a / (a + b))``
    (logistic) have all moments, and enter as the state's latents.
    """
    return Prior(min_concentration=1.0), {"groups": 6, "trials": 3}


KERNEL_CHECKS = KernelChecks(
    latents=latents, redraw=redraw, state=state, read=read, setup=setup, variables=("theta",)
)
