"""PyMC models and samplers as a user of ``zoo validate --model`` would write them.

Module-level, so that Dask workers and ``MODULE:FUNCTION`` strings reach them
(``tests.support.pymc_models:beta_binomial``). The Beta-Binomial with fixed
hyperparameters has a closed-form posterior, ``theta_j | y ~ Beta(a + y_j, b + n_j -
y_j)`` (Gelman et al., BDA3, section 2.4), so the right sampler draws from it exactly
and the wrong one swaps the two counts, the classic bug.
"""

import os

import numpy as np
import pymc as pm

import zoo

A, B = 2.0, 3.0
TRIALS = np.array([10, 20, 5, 40])
SUCCESSES = np.array([3, 15, 1, 12])
GROUPS = ["a", "b", "c", "d"]


def beta_binomial(successes=SUCCESSES):
    """Independent Beta(2, 3) success rates of four groups, Binomial counts observed."""
    with pm.Model(coords={"group": GROUPS}) as model:
        trials = pm.Data("trials", TRIALS, dims="group")
        theta = pm.Beta("theta", A, B, dims="group")
        pm.Binomial("y", n=trials, p=theta, observed=successes, dims="group")
    return model


def two_data_sets():
    """The same model on two data sets, named."""
    # The successes reversed, capped at each group's trials so that both are valid.
    reversed_counts = np.minimum(SUCCESSES[::-1], TRIALS)
    return [("counts", beta_binomial()), ("reversed", beta_binomial(reversed_counts))]


def right(data, *, draws, chains, seed):
    """Exact posterior draws, as a dict of (chain, draw, group) arrays."""
    rng = np.random.default_rng(seed)
    y, n = data["y"], data["trials"]
    return {"theta": rng.beta(A + y, B + n - y, size=(chains, draws, y.size))}


def sticky(data, *, draws, chains, seed):
    """A right but slowly mixing chain: each draw keeps the last with probability 0.9,
    else is a fresh exact draw (an independence sampler's kernel, which leaves the
    posterior invariant): about 1 effective draw in 19, so a short fit cannot judge."""
    fresh = right(data, draws=draws, chains=chains, seed=seed)["theta"]
    rng = np.random.default_rng([seed, 1])
    keep = rng.uniform(size=(chains, draws)) < 0.9
    keep[:, 0] = False
    # each draw takes the fresh draw of the last step that did not keep
    last = np.maximum.accumulate(np.where(keep, 0, np.arange(draws)), axis=1)
    return {"theta": np.take_along_axis(fresh, last[..., None], axis=1)}


def right_noting_its_process(data, *, draws, chains, seed):
    """``right``, appending the id of the process it runs in to $ZOO_TEST_PIDS."""
    with open(os.environ["ZOO_TEST_PIDS"], "a") as pids:
        pids.write(f"{os.getpid()}\n")
    return right(data, draws=draws, chains=chains, seed=seed)


def swapped(data, *, draws, chains, seed):
    """The classic bug: successes paired with b."""
    rng = np.random.default_rng(seed)
    y, n = data["y"], data["trials"]
    return {"theta": rng.beta(A + n - y, B + y, size=(chains, draws, y.size))}


def misnamed(data, *, draws, chains, seed):
    """Returns the right draws under the wrong name."""
    return {"p": right(data, draws=draws, chains=chains, seed=seed)["theta"]}


def modifies_its_data(data, *, draws, chains, seed):
    """Writes into the arrays it was given (which must not reach the user's model)."""
    data["y"][:] = 0
    return right(data, draws=draws, chains=chains, seed=seed)


def _init(data, rng):
    return {"theta": rng.uniform(size=data["y"].size)}


def _step(state, data, rng):
    y, n = data["y"], data["trials"]
    return {"theta": rng.beta(A + y, B + n - y)}


def _step_swapped(state, data, rng):
    y, n = data["y"], data["trials"]
    return {"theta": rng.beta(A + n - y, B + y)}


def _draw(state, data, rng):
    return {"theta": np.array(state["theta"], copy=True)}


def step_reading_a_name_the_state_lacks(state, data, rng):
    """A step written for a state of its own: it reads ``p``, which the state lacks."""
    y, n = data["y"], data["trials"]
    return {"theta": rng.beta(A + y * state["p"], B + n - y)}


#: A Gibbs kernel on the free variables (here one exact conditional per sweep).
KERNEL = zoo.Kernel(_init, _step, _draw)
KERNEL_SWAPPED = zoo.Kernel(_init, _step_swapped, _draw)
#: A kernel whose step raises KeyError on every state the checks give it.
KERNEL_RAISING = zoo.Kernel(_init, step_reading_a_name_the_state_lacks, _draw)


def improper():
    """A HalfFlat prior: no prior predictive to simulate from."""
    with pm.Model() as model:
        sigma = pm.HalfFlat("sigma")
        pm.Normal("y", 0.0, sigma, observed=np.array([0.3, -1.2, 0.8]))
    return model


def with_potential():
    """A Potential term: a density forward sampling cannot draw."""
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Potential("soft_constraint", -(mu**2))
        pm.Normal("y", mu, 1.0, observed=np.array([0.3, -1.2, 0.8]))
    return model


def unobserved():
    """No observed variable: no data to check on."""
    with pm.Model() as model:
        pm.Normal("mu", 0.0, 1.0)
    return model


def reserved_name():
    """A free variable named like the zoo's log-likelihood test quantity."""
    with pm.Model() as model:
        value = pm.Normal("log_likelihood", 0.0, 1.0)
        pm.Normal("y", value, 1.0, observed=np.array([0.5]))
    return model


def not_a_model():
    """What a builder must not return."""
    return {"y": np.array([1, 2])}


def funnel():
    """Neal's funnel with one observation: NUTS diverges, so it is no reference there."""
    with pm.Model() as model:
        log_scale = pm.Normal("log_scale", 0.0, 3.0)
        x = pm.Normal("x", 0.0, pm.math.exp(log_scale / 2), shape=9)
        pm.Normal("y", x[0], 10.0, observed=np.array([0.0]))
    return model


def funnel_prior(data, *, draws, chains, seed):
    """Prior draws of the funnel (the one observation is nearly uninformative)."""
    rng = np.random.default_rng(seed)
    log_scale = rng.normal(0.0, 3.0, size=(chains, draws))
    x = rng.normal(0.0, np.exp(log_scale / 2)[..., None], size=(chains, draws, 9))
    return {"log_scale": log_scale, "x": x}


LOGISTIC_X = np.array([[1.0, -0.5, 0.3], [1.0, 0.2, -1.1], [1.0, 1.4, 0.6], [1.0, -0.9, 0.8]])
LOGISTIC_Y = np.array([0, 1, 1, 0])


def logistic():
    """A logistic regression on a 3-vector: no closed form, even given one scalar."""
    with pm.Model() as model:
        beta = pm.Normal("beta", 0.0, 1.0, shape=3)
        pm.Bernoulli("y", logit_p=pm.math.dot(LOGISTIC_X, beta), observed=LOGISTIC_Y)
    return model


def logistic_prior(data, *, draws, chains, seed):
    """Prior draws of the logistic regression's coefficients."""
    rng = np.random.default_rng(seed)
    return {"beta": rng.normal(0.0, 1.0, size=(chains, draws, 3))}


MEANS = np.array([-2.0, 0.0, 3.0])
WEIGHTS = np.array([0.2, 0.3, 0.5])
READINGS = np.array([2.1, 3.4, 1.7])


def which_mean():
    """A discrete free variable: which of three known means produced the readings."""
    with pm.Model() as model:
        k = pm.Categorical("k", p=WEIGHTS)
        pm.Normal("y", pm.math.constant(MEANS)[k], 1.0, observed=READINGS)
    return model


def _which_mean_posterior(y):
    # p(k | y) is proportional to w_k prod_i N(y_i; m_k, 1): computed in log space.
    log_post = np.log(WEIGHTS) - 0.5 * ((y[:, None] - MEANS[None, :]) ** 2).sum(axis=0)
    return np.exp(log_post - np.logaddexp.reduce(log_post))


def which_mean_reference(data):
    """The exact posterior of ``k``, as a user passes it with ``reference=``."""
    from scipy import stats

    probabilities = _which_mean_posterior(np.asarray(data["y"], dtype=float))
    frozen = stats.rv_discrete(values=(np.arange(3), probabilities))
    return zoo.Reference({"k": zoo.Marginal.from_scipy(frozen, (), discrete=True)})


def which_mean_sampler(data, *, draws, chains, seed):
    """Exact draws of ``k`` given the readings."""
    rng = np.random.default_rng(seed)
    probabilities = _which_mean_posterior(np.asarray(data["y"], dtype=float))
    return {"k": rng.choice(3, p=probabilities, size=(chains, draws))}


def which_mean_prior(data, *, draws, chains, seed):
    """The bug: the prior weights returned as the posterior."""
    rng = np.random.default_rng(seed)
    return {"k": rng.choice(3, p=WEIGHTS, size=(chains, draws))}
