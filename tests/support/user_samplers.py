"""Samplers as a user would write them, for the tests of ``zoo validate``.

Importable by Dask workers (tests/ is on their path): each is a plain module-level
function with the sampler protocol ``(data, prior, *, draws, chains, seed)``.
"""

import time
import warnings

import numpy as np

import zoo


def beta_binomial_conjugate(data, prior, *, draws, chains, seed):
    """Right for fixed (a, b): theta_j | y ~ Beta(a + y_j, b + n_j - y_j), as a dict."""
    rng = np.random.default_rng(seed)
    a = prior.a + data.successes
    b = prior.b + data.trials - data.successes
    return {"theta": rng.beta(a, b, size=(chains, draws, a.size))}


def beta_binomial_warns(data, prior, *, draws, chains, seed):
    """Right draws, with the warning a numba fallback to object mode gives on every fit."""
    warnings.warn("Compilation is falling back to object mode", UserWarning, stacklevel=1)
    return beta_binomial_conjugate(data, prior, draws=draws, chains=chains, seed=seed)


def beta_binomial_unseeded(data, prior, *, draws, chains, seed):
    """Right draws from fresh entropy: the seed is ignored."""
    return beta_binomial_conjugate(data, prior, draws=draws, chains=chains, seed=None)


def beta_binomial_chains_alike(data, prior, *, draws, chains, seed):
    """Right draws, but every chain from the same stream: one chain counted ``chains`` times."""
    one = beta_binomial_conjugate(data, prior, draws=draws, chains=1, seed=seed)["theta"]
    return {"theta": np.repeat(one, chains, axis=0)}


def beta_binomial_swapped(data, prior, *, draws, chains, seed):
    """The classic bug: Beta(a + n - y, b + y)."""
    rng = np.random.default_rng(seed)
    a = prior.a + data.trials - data.successes
    b = prior.b + data.successes
    return {"theta": rng.beta(a, b, size=(chains, draws, a.size))}


def zoo_gibbs(data, prior, *, draws, chains, seed):
    """The zoo's own Gibbs engine, called the way a user's wrapper would call it."""
    return zoo.sample(
        "beta-binomial",
        data,
        prior,
        draws=draws,
        tune=draws,
        chains=chains,
        seed=seed,
        progress=False,
    )


def wrong_name(data, prior, *, draws, chains, seed):
    """Returns the variable under a name the model does not have."""
    return {"p": np.full((chains, draws, data.successes.size), 0.5)}


def with_nan(data, prior, *, draws, chains, seed):
    """Returns a NaN among the draws."""
    theta = np.full((chains, draws, data.successes.size), 0.5)
    theta[0, 0, 0] = np.nan
    return {"theta": theta}


def raises(data, prior, *, draws, chains, seed):
    """Raises, as a sampler with a bug in its set-up would."""
    raise RuntimeError("my sampler broke")


def hangs(data, prior, *, draws, chains, seed):
    """Never returns."""
    while True:
        time.sleep(0.1)


# A kernel for fixed (a, b) whose state is theta itself, not the model's State.
def _theta_init(data, prior, rng):
    return rng.uniform(size=data.successes.size)


def _theta_step(theta, data, prior, rng):
    return rng.beta(prior.a + data.successes, prior.b + data.failures)


def _theta_draw(theta, data, prior, rng):
    return {"theta": np.array(theta, copy=True)}


own_state_kernel = zoo.Kernel(_theta_init, _theta_step, _theta_draw)


def _dict_state_step(state, data, prior, rng):
    # Written for a dict state: the model's State is not subscriptable.
    return {"theta": rng.beta(prior.a + data.successes * state["theta"], prior.b)}


def _dict_state_draw(state, data, prior, rng):
    return {"theta": np.array(state["theta"], copy=True)}


# A kernel whose step and draw raise on the model's State (TypeError: not subscriptable).
dict_state_kernel = zoo.Kernel(_theta_init, _dict_state_step, _dict_state_draw)
