"""Semi-conjugate normal model: a Gibbs sampler for a mean and a variance with independent priors.

Wing lengths (mm) of nine midges of the species *Amerohelea fasciata* (Grogan & Wirth
1981), the data of Hoff (2009, chapters 5 and 6):

    y_i | mu, sigma2 ~ Normal(mu, sd sqrt(sigma2))
    mu ~ Normal(1.9, sd 0.1)
    sigma2 ~ InverseGamma(5, 0.08)

The priors of ``mu`` and ``sigma2`` are independent, so unlike the conjugate
normal-inverse-gamma prior (BDA3, section 3.3) the joint posterior has no closed form,
but each full conditional does (semi-conjugacy; the Gibbs sampler of BDA3 section 11.1
and Hoff 2009, section 6.3):

    mu | sigma2, y ~ Normal(m, sd sqrt(v)),   v = 1 / (1 / s0^2 + n / sigma2),
                                              m = v (m0 / s0^2 + sum_i y_i / sigma2)
    sigma2 | mu, y ~ InverseGamma(a + n / 2, b + sum_i (y_i - mu)^2 / 2)

Hoff centres the prior of ``mu`` at 1.9 mm, typical of related species, with sd 0.95;
here its sd is 0.1, so that the prior carries weight and a sampler that drops it is
caught. The prior of ``sigma2`` (mean 0.02, wing-length sd about 0.14 mm) has a shape
above 4, so that ``sigma2`` has four finite moments: SBC and Geweke's test draw from
the prior, and Geweke's second-moment test functions need them.

What this module offers (the protocol of ``zoo validate --model``):

- ``model()``: the PyMC program; ``y`` is observed, with dims ``("midge",)``. Free
  variables: ``mu`` and ``sigma2``, both scalars.
- ``kernel = zoo.Kernel(init, step, draw)``: the state is ``{"mu": ..., "sigma2": ...}``;
  ``step`` returns a new state and never modifies its argument.
- ``sampler(data, *, draws, chains, seed)``: a thin loop over the kernel (warm-up
  sweeps discarded), returning ``{"mu": (chain, draw), "sigma2": (chain, draw)}``. The
  same seed gives the same draws, bit for bit.
- Planted bugs, the negative controls: ``BUG_KERNELS[name]`` is a ``zoo.Kernel`` with
  the bug, and ``BUG_SAMPLERS[name]`` is the same loop as ``sampler`` around it (same
  names in both dicts):

  ``variance-as-sd``
      ``mu`` drawn with the conditional *variance* ``v`` where numpy wants the sd.
  ``no-prior``
      ``mu`` from the flat-prior conditional ``Normal(ybar, sd sqrt(sigma2 / n))``
      (BDA3 section 3.2): the prior's precision and mean dropped.
  ``shape-not-halved``
      ``sigma2``'s shape updated by ``n`` instead of ``n / 2``.
  ``squares-about-ybar``
      the sum of squares taken about the sample mean, not about the current ``mu``.

    python examples/semi_conjugate_normal.py [--sampler] [--checks LIST] [--only NAMES]
        [--draws 1000] [--chains 4] [--simulations 100] [--seed 0] [--workers 0]

``main`` runs ``zoo.validate`` on the correct kernel and on each bug's kernel (all
checks that apply: nuts, sbc, geweke, invariance), or with ``--sampler`` on the sampler
functions (nuts, sbc), and prints one line per verdict. From the shell, at the root of
the repository, the same for the correct forms (each command on two lines here):

    zoo validate --model examples.semi_conjugate_normal:model
                 --kernel examples.semi_conjugate_normal:kernel
    zoo validate --model examples.semi_conjugate_normal:model
                 --sampler examples.semi_conjugate_normal:sampler

References
----------
Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. & Rubin, D. B.
(2013). Bayesian Data Analysis, 3rd edition (BDA3). Chapman & Hall/CRC.
Grogan, W. L. & Wirth, W. W. (1981). A new American genus of predaceous midges related
to Palpomyia and Bessia. Proceedings of the Biological Society of Washington 94,
1279-1305.
Hoff, P. D. (2009). A First Course in Bayesian Statistical Methods. Springer.
"""

import numpy as np

import zoo

if __package__:  # imported: `examples.semi_conjugate_normal`, from the root of the repository
    from . import harness
else:  # run as a script: Python puts examples/ first on the path
    import harness

#: Wing lengths of nine midges, mm (Grogan & Wirth 1981, as given by Hoff 2009).
WING_LENGTHS = np.array([1.64, 1.70, 1.72, 1.74, 1.82, 1.82, 1.82, 1.90, 2.08])
#: Prior of mu: Normal(M0, sd S0).
M0, S0 = 1.9, 0.1
#: Prior of sigma2: InverseGamma(A, B) (shape, scale).
A, B = 5.0, 0.08
#: Sweeps discarded at the start of each chain.
WARMUP = 200


def model(y=WING_LENGTHS):
    """The PyMC program: the specification the sampler is checked against.

    Parameters
    ----------
    y : array of float
        The observations.

    Returns
    -------
    pymc.Model
    """
    # deferred: PyMC takes seconds to import, and the sampler does not need it
    import pymc as pm

    y = np.asarray(y, dtype=float)
    with pm.Model(coords={"midge": np.arange(1, y.size + 1)}) as normal:
        mu = pm.Normal("mu", mu=M0, sigma=S0)
        sigma2 = pm.InverseGamma("sigma2", alpha=A, beta=B)
        pm.Normal("y", mu=mu, sigma=pm.math.sqrt(sigma2), observed=y, dims="midge")
    return normal


def _data(data):
    """The observations from a data dict, checked."""
    y = np.asarray(data["y"], dtype=float)
    if y.ndim != 1 or y.size == 0 or not np.isfinite(y).all():
        raise ValueError(f"data: y must be a non-empty 1-d array of finite numbers, got {y!r}")
    return y


def _mu_given(sigma2, y, rng):
    """A draw of ``mu | sigma2, y``: precisions add, the mean is precision-weighted."""
    v = 1.0 / (1.0 / S0**2 + y.size / sigma2)
    m = v * (M0 / S0**2 + y.sum() / sigma2)
    return rng.normal(m, np.sqrt(v))


def _sigma2_given(mu, y, rng):
    """A draw of ``sigma2 | mu, y``: 1 / Gamma(shape, rate) is InverseGamma(shape, rate)."""
    shape = A + y.size / 2
    rate = B + np.sum((y - mu) ** 2) / 2
    return 1.0 / rng.gamma(shape, 1.0 / rate)


def init(data, rng):
    """A starting state: mu from its prior, sigma2 from its conditional given that mu."""
    y = _data(data)
    mu = rng.normal(M0, S0)
    return {"mu": np.asarray(mu), "sigma2": np.asarray(_sigma2_given(mu, y, rng))}


def step(state, data, rng):
    """One Gibbs sweep: mu given sigma2, then sigma2 given mu."""
    y = _data(data)
    mu = _mu_given(state["sigma2"], y, rng)
    sigma2 = _sigma2_given(mu, y, rng)
    return {"mu": np.asarray(mu), "sigma2": np.asarray(sigma2)}


def draw(state, data, rng):
    """The free variables of the model given the state (here the state itself)."""
    return {"mu": np.array(state["mu"]), "sigma2": np.array(state["sigma2"])}


kernel = zoo.Kernel(init, step, draw)


def sampler(data, *, draws, chains, seed, warmup=WARMUP):
    """Posterior draws of ``mu`` and ``sigma2`` by the Gibbs sampler of ``kernel``.

    Parameters
    ----------
    data : dict
        ``{"y": observations}``, as ``zoo validate`` passes them.
    draws, chains : int
        Draws kept per chain, and chains.
    seed : int or None
        Seed of ``numpy.random.default_rng``; the same seed gives the same draws.
    warmup : int
        Sweeps discarded at the start of each chain.

    Returns
    -------
    dict of str to ndarray
        ``mu`` and ``sigma2``, each shaped ``(chain, draw)``.
    """
    return harness.run(kernel, data, draws=draws, chains=chains, seed=seed, warmup=warmup)


# The planted bugs: each step below differs from `step` by one classic derivation slip.


def step_variance_as_sd(state, data, rng):
    """Bug: ``mu`` drawn with its conditional variance passed as the sd."""
    y = _data(data)
    v = 1.0 / (1.0 / S0**2 + y.size / state["sigma2"])
    m = v * (M0 / S0**2 + y.sum() / state["sigma2"])
    mu = rng.normal(m, v)
    return {"mu": np.asarray(mu), "sigma2": np.asarray(_sigma2_given(mu, y, rng))}


def step_no_prior(state, data, rng):
    """Bug: ``mu`` from the flat-prior conditional ``Normal(ybar, sigma2 / n)``."""
    y = _data(data)
    mu = rng.normal(y.mean(), np.sqrt(state["sigma2"] / y.size))
    return {"mu": np.asarray(mu), "sigma2": np.asarray(_sigma2_given(mu, y, rng))}


def step_shape_not_halved(state, data, rng):
    """Bug: ``sigma2``'s shape is ``a + n``, not ``a + n / 2``."""
    y = _data(data)
    mu = _mu_given(state["sigma2"], y, rng)
    rate = B + np.sum((y - mu) ** 2) / 2
    sigma2 = 1.0 / rng.gamma(A + y.size, 1.0 / rate)
    return {"mu": np.asarray(mu), "sigma2": np.asarray(sigma2)}


def step_squares_about_ybar(state, data, rng):
    """Bug: the sum of squares about the sample mean instead of the current ``mu``."""
    y = _data(data)
    mu = _mu_given(state["sigma2"], y, rng)
    rate = B + np.sum((y - y.mean()) ** 2) / 2
    sigma2 = 1.0 / rng.gamma(A + y.size / 2, 1.0 / rate)
    return {"mu": np.asarray(mu), "sigma2": np.asarray(sigma2)}


BUG_KERNELS = {
    "variance-as-sd": zoo.Kernel(init, step_variance_as_sd, draw),
    "no-prior": zoo.Kernel(init, step_no_prior, draw),
    "shape-not-halved": zoo.Kernel(init, step_shape_not_halved, draw),
    "squares-about-ybar": zoo.Kernel(init, step_squares_about_ybar, draw),
}
BUG_SAMPLERS = harness.bug_samplers(BUG_KERNELS, warmup=WARMUP)


#: The model with its correct forms and bugs, for the script and the tests.
EXAMPLES = [
    harness.Example("midge wing lengths", model, kernel, sampler, BUG_KERNELS, BUG_SAMPLERS)
]

if __name__ == "__main__":
    harness.main(__doc__.splitlines()[0], EXAMPLES)
