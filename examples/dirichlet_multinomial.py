"""A Dirichlet-Multinomial: the category probabilities of a die from its rolls.

Thirty rolls of a six-sided die (illustrative counts per face) and a Dirichlet prior on
the face probabilities:

    p ~ Dirichlet(ALPHA),   ALPHA = (2, ..., 2)
    counts | p ~ Multinomial(30, p)

The posterior is ``Dirichlet(ALPHA + counts)`` (conjugacy; e.g. BDA3 section 3.4), drawn
exactly by normalising independent ``Gamma(ALPHA_k + counts_k, 1)`` draws (Devroye 1986,
chapter XI.4). Each step of the kernel is one such independent draw.

Planted bugs (``BUG_KERNELS``, ``BUG_SAMPLERS``):

``alpha-minus-one`` (formula)
    ``Dirichlet(ALPHA + counts - 1)``: the exponents of the posterior density (its
    mode's formula) taken for its parameters.
``prior-ignored`` (prior)
    ``Dirichlet(counts)``: the prior's pseudo-counts dropped.
``stick-breaking-off-by-one`` (draw)
    the stick-breaking construction with ``V_k ~ Beta(a_k, sum_{j >= k} a_j)``, the
    current category counted in the rest of the stick (``sum_{j > k}`` is right).

    python examples/dirichlet_multinomial.py [--sampler] [--checks LIST] [--only NAMES] ...
    zoo validate --model examples.dirichlet_multinomial:model
                 --kernel examples.dirichlet_multinomial:kernel

References
----------
Devroye, L. (1986). Non-Uniform Random Variate Generation. Springer.
Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. & Rubin, D. B.
(2013). Bayesian Data Analysis, 3rd edition (BDA3). Chapman & Hall/CRC.
"""

import numpy as np

import zoo

if __package__:  # imported: `examples.dirichlet_multinomial`, from the root of the repository
    from . import harness
else:  # run as a script: Python puts examples/ first on the path
    import harness

#: Rolls showing each face 1-6, of 30 (illustrative).
COUNTS = np.array([3, 7, 4, 6, 2, 8])
#: Dirichlet prior of the face probabilities.
ALPHA = np.full(6, 2.0)
#: Steps discarded at the start of each chain (the draws are exact).
WARMUP = 2


def model(counts=COUNTS):
    """The PyMC program: the specification the sampler is checked against.

    Parameters
    ----------
    counts : array of int
        Rolls showing each face (observed); their total is the number of rolls.

    Returns
    -------
    pymc.Model
    """
    # deferred: PyMC takes seconds to import, and the sampler does not need it
    import pymc as pm

    counts = np.asarray(counts)
    with pm.Model(coords={"face": np.arange(1, counts.size + 1)}) as die:
        p = pm.Dirichlet("p", a=ALPHA, dims="face")
        pm.Multinomial("counts", n=int(counts.sum()), p=p, observed=counts, dims="face")
    return die


def _data(data):
    """The counts from a data dict, checked."""
    counts = np.asarray(data["counts"], dtype=float)
    if counts.shape != ALPHA.shape:
        raise ValueError(f"data: counts must have shape {ALPHA.shape}, got {counts.shape}")
    if (counts < 0).any() or (counts != np.floor(counts)).any():
        raise ValueError("data: counts must hold counts >= 0")
    return counts


def _dirichlet(a, rng):
    """A ``Dirichlet(a)`` draw: independent ``Gamma(a_k, 1)`` normalised."""
    g = rng.gamma(a)
    return g / g.sum()


def init(data, rng):
    """A starting state from the prior."""
    _data(data)
    return {"p": _dirichlet(ALPHA, rng)}


def step(state, data, rng):
    """An exact draw of ``p | counts ~ Dirichlet(ALPHA + counts)``."""
    return {"p": _dirichlet(ALPHA + _data(data), rng)}


def draw(state, data, rng):
    """The free variable ``p`` given the state (the state itself)."""
    return {"p": np.array(state["p"])}


kernel = zoo.Kernel(init, step, draw)


def sampler(data, *, draws, chains, seed, warmup=WARMUP):
    """Exact posterior draws of ``p`` by ``kernel``.

    ``data`` is ``{"counts": counts}``, as ``zoo validate`` passes it; ``p`` is drawn
    ``(chain, draw, face)``.

    The other arguments are those of :func:`harness.run` (same seed, same draws).
    """
    return harness.run(kernel, data, draws=draws, chains=chains, seed=seed, warmup=warmup)


def step_alpha_minus_one(state, data, rng):
    """Bug (formula): ``Dirichlet(ALPHA + counts - 1)``, the density's exponents."""
    return {"p": _dirichlet(ALPHA + _data(data) - 1.0, rng)}


def step_prior_ignored(state, data, rng):
    """Bug (prior): ``Dirichlet(counts)``, the prior's pseudo-counts dropped."""
    return {"p": _dirichlet(_data(data), rng)}


def step_stick_breaking_off_by_one(state, data, rng):
    """Bug (draw): stick-breaking with ``V_k ~ Beta(a_k, sum_{j >= k} a_j)``."""
    a = ALPHA + _data(data)
    p, stick = np.empty(a.size), 1.0
    for k in range(a.size - 1):
        v = rng.beta(a[k], a[k:].sum())  # right: a[k + 1:].sum()
        p[k], stick = stick * v, stick * (1.0 - v)
    p[-1] = stick
    return {"p": p}


BUG_KERNELS = {
    "alpha-minus-one": zoo.Kernel(init, step_alpha_minus_one, draw),
    "prior-ignored": zoo.Kernel(init, step_prior_ignored, draw),
    "stick-breaking-off-by-one": zoo.Kernel(init, step_stick_breaking_off_by_one, draw),
}
BUG_SAMPLERS = harness.bug_samplers(BUG_KERNELS, warmup=WARMUP)

#: The model with its correct forms and bugs, for the script and the tests.
EXAMPLES = [harness.Example("die rolls", model, kernel, sampler, BUG_KERNELS, BUG_SAMPLERS)]

if __name__ == "__main__":
    harness.main(__doc__.splitlines()[0], EXAMPLES)
