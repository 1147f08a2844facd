"""Pump failures: a hand-derived Gibbs sampler for a Poisson-Gamma model with a hyperprior.

The pump data of Gaver & O'Muircheartaigh (1987): failures ``y_i`` of 10 pumps at a
nuclear power plant over ``t_i`` thousand hours of operation, analysed with the Gibbs
sampler by Gelfand & Smith (1990, JASA 85:398-409):

    y_i | theta_i ~ Poisson(theta_i t_i)
    theta_i | beta ~ Gamma(alpha, rate beta)          alpha = 1.802
    beta ~ Gamma(6, rate 2.5)

Gelfand & Smith fix ``alpha`` at 1.802, a moment estimate, and give the other Gamma
parameter a conjugate hyperprior. Both full conditionals are Gamma:

    theta_i | beta, y ~ Gamma(alpha + y_i, rate beta + t_i)
    beta | theta ~ Gamma(6 + n alpha, rate 2.5 + sum_i theta_i)

The hyperprior of ``model()`` is proper and weakly informative (a prior mean failure
rate ``E[theta] = alpha E[1/beta] = 0.9`` per thousand hours), not the vaguer Gamma(0.1,
1.0) of the BUGS "Pumps" example, because SBC, Geweke's test and the invariance check
draw parameters and data from the prior. Under Gamma(0.1, 1.0) about 2% of draws have
``beta < 2e-17``, where the expected failures of the longest-running pump exceed
``2^63`` and the simulated count overflows a 64-bit integer, and ``theta`` has no prior
mean, so moment tests are undefined; Gamma(6, 2.5) gives ``theta`` four finite moments,
as the second-moment test functions of Geweke's test need.

BUGS's own hyperprior is a parameter of the model: ``bugs_model()`` is ``model(hyperprior=
BUGS_HYPERPRIOR)``, Gamma(0.1, rate 1.0) (Spiegelhalter et al. 1996, "Pumps"), for the
checks that do not simulate from the prior (exact, nuts). The hyperprior's shape and rate
are ``pm.Data`` (``beta_shape``, ``beta_rate``), so one kernel and one set of bugs serve
both: the sampler reads them from its data like the exposures.

What this module offers (the protocol of ``zoo validate --model``):

- ``model()``: the PyMC program; ``y`` is observed and the exposure ``t`` is a
  ``pm.Data``, both with dims ``("pump",)``, and so are the hyperprior's ``beta_shape``
  and ``beta_rate`` (scalars). Free variables: ``beta`` (scalar) and
  ``theta`` (``pump``).
- ``kernel = zoo.Kernel(init, step, draw)``: the state is ``{"beta": ..., "theta": ...}``;
  ``step`` returns a new state and never modifies its argument.
- ``sampler(data, *, draws, chains, seed)``: a thin loop over the kernel (warm-up
  sweeps discarded), returning ``{"beta": (chain, draw), "theta": (chain, draw, pump)}``.
  The same seed gives the same draws, bit for bit.
- Planted bugs, the negative controls: ``BUG_KERNELS[name]`` is a ``zoo.Kernel`` with
  the bug, and ``BUG_SAMPLERS[name]`` is the same loop as ``sampler`` around it (same
  names in both dicts):

  ``rate-as-scale``
      ``numpy.random.Generator.gamma`` takes a *scale*; ``beta + t_i`` passed as is.
  ``no-exposure``
      the exposure forgotten: ``theta_i | beta ~ Gamma(alpha + y_i, rate beta + 1)``.
  ``shape-update``
      ``beta``'s shape updated by ``n`` instead of ``n alpha``.
  ``no-prior-rate``
      ``beta``'s rate ``sum_i theta_i``, the prior's 2.5 dropped.

    python examples/pump_failures.py [--sampler] [--checks LIST] [--only NAMES]
        [--draws 1000] [--chains 4] [--simulations 100] [--seed 0] [--workers 0]

``main`` runs ``zoo.validate`` on the correct kernel and on each bug's kernel (all
checks that apply: nuts, sbc, geweke, invariance), or with ``--sampler`` on the sampler
functions (nuts, sbc), and prints one line per verdict. From the shell, at the root of
the repository, the same for the correct forms (each command on two lines here):

    zoo validate --model examples.pump_failures:model
                 --kernel examples.pump_failures:kernel
    zoo validate --model examples.pump_failures:model
                 --sampler examples.pump_failures:sampler

References
----------
Gaver, D. P. & O'Muircheartaigh, I. G. (1987). Robust empirical Bayes analyses of event
rates. Technometrics 29, 1-15.
Gelfand, A. E. & Smith, A. F. M. (1990). Sampling-based approaches to calculating
marginal densities. Journal of the American Statistical Association 85, 398-409.
Spiegelhalter, D., Thomas, A., Best, N. & Gilks, W. (1996). BUGS 0.5 Examples, Volume 1
("Pumps: conjugate gamma-Poisson hierarchical model"). MRC Biostatistics Unit, Cambridge.
"""

import numpy as np

import zoo

if __package__:  # imported: `examples.pump_failures`, from the root of the repository
    from . import harness
else:  # run as a script: Python puts examples/ first on the path
    import harness

#: Thousands of hours each pump ran (Gaver & O'Muircheartaigh 1987).
EXPOSURE = np.array([94.3, 15.7, 62.9, 126.0, 5.24, 31.4, 1.05, 1.05, 2.1, 10.5])
#: Failures of each pump over its exposure.
FAILURES = np.array([5, 1, 5, 14, 3, 19, 1, 1, 4, 22])
#: Shape of the pumps' Gamma distribution of failure rates (Gelfand & Smith 1990).
ALPHA = 1.802
#: Shape and rate of the Gamma hyperprior of beta.
BETA_SHAPE, BETA_RATE = 6.0, 2.5
#: The BUGS example's hyperprior of beta: Gamma(0.1, rate 1.0).
BUGS_HYPERPRIOR = (0.1, 1.0)
#: Sweeps discarded at the start of each chain.
WARMUP = 200


def model(failures=FAILURES, exposure=EXPOSURE, hyperprior=(BETA_SHAPE, BETA_RATE)):
    """The PyMC program: the specification the sampler is checked against.

    Parameters
    ----------
    failures : array of int
        Failures ``y_i`` of each pump (observed).
    exposure : array of float
        Operating time ``t_i`` of each pump, thousands of hours (a ``pm.Data``).
    hyperprior : (float, float)
        Shape and rate of the Gamma prior of ``beta`` (``pm.Data`` ``beta_shape`` and
        ``beta_rate``).

    Returns
    -------
    pymc.Model
    """
    # deferred: PyMC takes seconds to import, and the sampler does not need it
    import pymc as pm

    failures = np.asarray(failures)
    coords = {"pump": np.arange(1, failures.size + 1)}
    with pm.Model(coords=coords) as pumps:
        t = pm.Data("t", np.asarray(exposure, dtype=float), dims="pump")
        shape = pm.Data("beta_shape", float(hyperprior[0]))
        rate = pm.Data("beta_rate", float(hyperprior[1]))
        beta = pm.Gamma("beta", alpha=shape, beta=rate)
        theta = pm.Gamma("theta", alpha=ALPHA, beta=beta, dims="pump")
        pm.Poisson("y", mu=theta * t, observed=failures, dims="pump")
    return pumps


def bugs_model():
    """:func:`model` under the BUGS example's hyperprior Gamma(0.1, rate 1.0)."""
    return model(hyperprior=BUGS_HYPERPRIOR)


def _hyperprior(data):
    """Shape and rate of beta's Gamma prior from a data dict, checked."""
    shape, rate = float(data["beta_shape"]), float(data["beta_rate"])
    if not (shape > 0 and rate > 0):
        raise ValueError(f"data: beta_shape and beta_rate must be > 0, got {shape}, {rate}")
    return shape, rate


def _data(data):
    """Failures and exposure from a data dict, checked."""
    y = np.asarray(data["y"], dtype=float)
    t = np.asarray(data["t"], dtype=float)
    if y.shape != t.shape or y.ndim != 1:
        raise ValueError(f"data: y and t must be 1-d of one length, got {y.shape}, {t.shape}")
    if (y < 0).any() or (y != np.floor(y)).any():
        raise ValueError("data: y must hold counts >= 0")
    if not (t > 0).all():
        raise ValueError("data: t must be > 0")
    return y, t


def init(data, rng):
    """A starting state: beta from Exp(1), theta from its conditional given that beta."""
    y, t = _data(data)
    beta = rng.gamma(1.0)
    return {"beta": np.asarray(beta), "theta": rng.gamma(ALPHA + y, 1.0 / (beta + t))}


def step(state, data, rng):
    """One Gibbs sweep: theta given beta, then beta given theta (Gelfand & Smith 1990)."""
    y, t = _data(data)
    # numpy's gamma takes the shape and the *scale*, 1 / rate.
    theta = rng.gamma(ALPHA + y, 1.0 / (state["beta"] + t))
    shape, rate = _hyperprior(data)
    beta = rng.gamma(shape + y.size * ALPHA, 1.0 / (rate + theta.sum()))
    return {"beta": np.asarray(beta), "theta": theta}


def draw(state, data, rng):
    """The free variables of the model given the state (here the state itself)."""
    return {"beta": np.array(state["beta"]), "theta": np.array(state["theta"])}


kernel = zoo.Kernel(init, step, draw)


def sampler(data, *, draws, chains, seed, warmup=WARMUP):
    """Posterior draws of ``beta`` and ``theta`` by the Gibbs sampler of ``kernel``.

    Parameters
    ----------
    data : dict
        ``{"y": failures, "t": exposure, "beta_shape": ..., "beta_rate": ...}``, as
        ``zoo validate`` passes them.
    draws, chains : int
        Draws kept per chain, and chains.
    seed : int or None
        Seed of ``numpy.random.default_rng``; the same seed gives the same draws.
    warmup : int
        Sweeps discarded at the start of each chain.

    Returns
    -------
    dict of str to ndarray
        ``beta`` shaped ``(chain, draw)`` and ``theta`` shaped ``(chain, draw, pump)``.
    """
    return harness.run(kernel, data, draws=draws, chains=chains, seed=seed, warmup=warmup)


# The planted bugs: each step below differs from `step` by one classic derivation slip.


def step_rate_as_scale(state, data, rng):
    """Bug: the Gamma rate ``beta + t_i`` passed where numpy wants the scale."""
    y, t = _data(data)
    theta = rng.gamma(ALPHA + y, state["beta"] + t)
    shape, rate = _hyperprior(data)
    beta = rng.gamma(shape + y.size * ALPHA, 1.0 / (rate + theta.sum()))
    return {"beta": np.asarray(beta), "theta": theta}


def step_no_exposure(state, data, rng):
    """Bug: the exposure forgotten, as if ``y_i ~ Poisson(theta_i)``."""
    y, _ = _data(data)
    theta = rng.gamma(ALPHA + y, 1.0 / (state["beta"] + 1.0))
    shape, rate = _hyperprior(data)
    beta = rng.gamma(shape + y.size * ALPHA, 1.0 / (rate + theta.sum()))
    return {"beta": np.asarray(beta), "theta": theta}


def step_shape_update(state, data, rng):
    """Bug: ``beta``'s shape updated by ``n``, one per pump, instead of ``n alpha``."""
    y, t = _data(data)
    theta = rng.gamma(ALPHA + y, 1.0 / (state["beta"] + t))
    shape, rate = _hyperprior(data)
    beta = rng.gamma(shape + y.size, 1.0 / (rate + theta.sum()))
    return {"beta": np.asarray(beta), "theta": theta}


def step_no_prior_rate(state, data, rng):
    """Bug: ``beta``'s rate is ``sum_i theta_i``, the prior's rate dropped."""
    y, t = _data(data)
    theta = rng.gamma(ALPHA + y, 1.0 / (state["beta"] + t))
    shape, _ = _hyperprior(data)
    beta = rng.gamma(shape + y.size * ALPHA, 1.0 / theta.sum())
    return {"beta": np.asarray(beta), "theta": theta}


BUG_KERNELS = {
    "rate-as-scale": zoo.Kernel(init, step_rate_as_scale, draw),
    "no-exposure": zoo.Kernel(init, step_no_exposure, draw),
    "shape-update": zoo.Kernel(init, step_shape_update, draw),
    "no-prior-rate": zoo.Kernel(init, step_no_prior_rate, draw),
}
BUG_SAMPLERS = harness.bug_samplers(BUG_KERNELS, warmup=WARMUP)


#: The model with its correct forms and bugs, for the script and the tests.
EXAMPLES = [
    harness.Example("pump failures", model, kernel, sampler, BUG_KERNELS, BUG_SAMPLERS),
    harness.Example(
        "pump failures, BUGS hyperprior", bugs_model, kernel, sampler, BUG_KERNELS, BUG_SAMPLERS
    ),
]

if __name__ == "__main__":
    harness.main(__doc__.splitlines()[0], EXAMPLES)
