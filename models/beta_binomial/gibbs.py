"""Beta-Binomial: the collapsed Gibbs kernel.

Fixed ``(a, b)``: the state is empty and :func:`draw` returns independent draws of
``theta_j | y ~ Beta(a + y_j, b + n_j - y_j)``.

Hierarchical: the state is ``(u, v) = (log(a / b), log(a + b))``. One sweep updates
``u`` then ``v`` by univariate slice sampling with stepping out and shrinkage (Neal,
"Slice sampling", Annals of Statistics 31, 2003, figs. 3 and 5) on ``p(u, v | y)``
with every ``theta_j`` integrated out (BDA3 eq. 5.8 times the Jacobian ``a b``).
:func:`draw` then draws ``theta_j | a, b, y ~ Beta(a + y_j, b + n_j - y_j)``: the
theta draws are exact given ``(a, b)``, so only ``(u, v)`` carry autocorrelation.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from zoo.core.contract import Kernel
from zoo.models.beta_binomial.marginal_likelihood import (
    LikelihoodTerms,
    likelihood_terms,
    log_likelihood,
)
from zoo.models.beta_binomial.spec import Data, Prior

__all__ = ["State", "kernel", "make_kernel"]

# Initial slice widths on u and v. Posterior sds of u and v are 0.1 to 1 on data sets
# of 5 to 100 groups; stepping out and shrinkage adapt to either side of that within a
# few evaluations, and the width does not affect correctness.
_WIDTH = 1.0
_MAX_STEPS = 64


class State(NamedTuple):
    """State of the hierarchical chain (both NaN for fixed hyperparameters)."""

    logit_mean: float
    log_concentration: float


@numba.njit(cache=True)
def _log_expit(x):
    if x >= 0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


@numba.njit(cache=True)
def _log_target(u, v, terms, log_min_concentration, swap, jacobian):
    if v < log_min_concentration:
        return -math.inf
    log_s, log_1ms = _log_expit(u), _log_expit(-u)
    a = math.exp(v + log_s)
    b = math.exp(v + log_1ms)
    if not (math.isfinite(a) and math.isfinite(b)) or a <= 0.0 or b <= 0.0:
        return -math.inf
    if swap:
        a, b = b, a
    if not jacobian:
        # The bug: p(a, b) = (a + b)^(-5/2) used as a density on (u, v) as it stands.
        return log_likelihood(a, b, terms) - 2.5 * v
    # p(u, v) = p(a, b) |d(a, b) / d(u, v)| = e^(-5v/2) e^(2v) s (1 - s).
    return log_likelihood(a, b, terms) + log_s + log_1ms - 0.5 * v


@numba.njit(cache=True)
def _log_target_at(coordinate, x, u, v, terms, log_min_concentration, swap, jacobian):
    """The target with coordinate 0 (u) or 1 (v) set to ``x``, the other held fixed."""
    args = (terms, log_min_concentration, swap, jacobian)
    if coordinate == 0:
        return _log_target(x, v, *args)
    return _log_target(u, x, *args)


@numba.njit(cache=True)
def _slice_sweep(
    u,
    v,
    terms,
    log_min_concentration,
    swap,
    jacobian,
    uniform_level,
    rng,
):
    args = (terms, log_min_concentration, swap, jacobian)
    for coordinate in range(2):
        x0 = u if coordinate == 0 else v
        if uniform_level:
            # The bug: the level log f(x0) - U, U ~ Uniform(0, 1), where the log of a
            # uniform height, log f(x0) + log U = log f(x0) - Exp(1), belongs.
            level = _log_target_at(coordinate, x0, u, v, *args) - rng.random()
        else:
            level = _log_target_at(coordinate, x0, u, v, *args) - rng.exponential()
        # Stepping out (Neal 2003, fig. 3) with at most _MAX_STEPS widths in all.
        left = x0 - _WIDTH * rng.random()
        right = left + _WIDTH
        steps_left = math.floor(_MAX_STEPS * rng.random())
        steps_right = _MAX_STEPS - 1 - steps_left
        while steps_left > 0 and _log_target_at(coordinate, left, u, v, *args) > level:
            left -= _WIDTH
            steps_left -= 1
        while steps_right > 0 and _log_target_at(coordinate, right, u, v, *args) > level:
            right += _WIDTH
            steps_right -= 1
        # Shrinkage (fig. 5): always ends, since x0 itself lies in the slice.
        while True:
            proposal = left + (right - left) * rng.random()
            if _log_target_at(coordinate, proposal, u, v, *args) > level:
                break
            if proposal < x0:
                left = proposal
            else:
                right = proposal
        if coordinate == 0:
            u = proposal
        else:
            v = proposal
    return u, v


def make_kernel(
    *,
    swap_ab: bool = False,
    failures_as_trials: bool = False,
    jacobian: bool = True,
    truncation: bool = True,
    uniform_level: bool = False,
    theta_drawn: bool = True,
) -> Kernel:
    """Build the kernel; the flags plant classic derivation bugs (negative controls).

    All flags at their defaults give the correct sampler; :mod:`zoo.models.beta_binomial.faults`
    names the wrong ones.

    Parameters
    ----------
    swap_ab : bool
        Use ``Beta(b + y, a + n - y)``: the hyperparameters swapped.
    failures_as_trials : bool
        Count failures as ``n`` instead of ``n - y``.
    jacobian : bool
        False: slice-sample ``(u, v)`` under ``(a + b)^(-5/2)`` without the Jacobian
        ``|d(a, b) / d(u, v)| = (a + b)^2 s (1 - s)`` of the change of variables.
    truncation : bool
        False: the slice target leaves out the prior's truncation ``a + b >= c``
        (``Prior.min_concentration``): the chain samples the untruncated BDA3 posterior.
    uniform_level : bool
        True: the slice level drawn as ``log f(x0) - U``, ``U ~ Uniform(0, 1)``, instead
        of ``log f(x0) - E``, ``E ~ Exp(1)`` (the log of a uniform height under f).
    theta_drawn : bool
        False: ``theta_j`` recorded as its conditional mean ``(a + y_j) / (a + b + n_j)``
        in place of a draw from ``Beta(a + y_j, b + n_j - y_j)``.
    """

    def failures(data: Data) -> np.ndarray:
        return data.trials if failures_as_trials else data.failures

    # The likelihood's terms depend only on the data; build them once per data set
    # rather than once per sweep (the driver calls `step` with the same object).
    # One (data, terms) tuple, read once per call, so that threads sharing the kernel
    # never pair one data set with another's terms.
    cached = (None, None)

    def terms_for(data: Data) -> LikelihoodTerms:
        nonlocal cached
        entry = cached
        if entry[0] is not data:
            entry = (data, likelihood_terms(data.successes, data.successes + failures(data)))
            cached = entry
        return entry[1]

    def init(data: Data, prior: Prior, rng: np.random.Generator) -> State:
        if not prior.hierarchical:
            return State(np.nan, np.nan)
        pooled = (data.successes.sum() + 0.5) / (data.trials.sum() + 1.0)
        # Over-dispersed starts, so that R-hat can see chains that fail to mix.
        u = math.log(pooled / (1.0 - pooled)) + rng.normal()
        v = math.log(10.0) + 1.5 * rng.normal()
        if prior.min_concentration is not None:
            v = max(v, math.log(prior.min_concentration) + abs(rng.normal()))
        return State(float(u), float(v))

    def step(state: State, data: Data, prior: Prior, rng: np.random.Generator) -> State:
        if not prior.hierarchical:
            return state
        terms = terms_for(data)
        if prior.min_concentration is None or not truncation:
            floor = -math.inf  # (not truncation: the bug, the floor left out of the target)
        else:
            floor = math.log(prior.min_concentration)
        u, v = _slice_sweep(
            state.logit_mean,
            state.log_concentration,
            terms,
            floor,
            swap_ab,
            jacobian,
            uniform_level,
            rng,
        )
        return State(float(u), float(v))

    def draw(state: State, data: Data, prior: Prior, rng: np.random.Generator) -> dict:
        if prior.hierarchical:
            u, v = state.logit_mean, state.log_concentration
            a = math.exp(v + _log_expit(u))
            b = math.exp(v + _log_expit(-u))
        else:
            a, b = prior.a, prior.b
        first, second = (b, a) if swap_ab else (a, b)
        theta = rng.beta(first + data.successes, second + failures(data))
        if not theta_drawn:  # the bug: E[theta | a, b, y] recorded, the draw thrown away
            theta = (first + data.successes) / (first + second + data.successes + failures(data))
        if not prior.hierarchical:
            return {"theta": theta}
        return {
            "a": np.float64(a),
            "b": np.float64(b),
            "logit_mean": np.float64(u),
            "log_concentration": np.float64(v),
            "theta": theta,
        }

    return Kernel(init=init, step=step, draw=draw)


kernel = make_kernel()
