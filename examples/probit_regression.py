"""Probit regression by data augmentation: the Gibbs sampler of Albert & Chib (1993).

O-ring damage on the 23 space shuttle launches before the Challenger accident against
the launch temperature (Dalal, Fowlkes & Hoadley 1989), with temperature standardised:

    y_i | beta ~ Bernoulli(Phi(x_i' beta)),   x_i = (1, (temp_i - mean) / sd)
    beta ~ Normal(0, sd 1), independently per coefficient

Albert & Chib (1993, JASA 88:669-679) add one latent ``z_i ~ Normal(x_i' beta, 1)`` per
observation with ``y_i = 1`` exactly when ``z_i > 0``. Both full conditionals are then
standard:

    z_i | beta, y_i ~ Normal(x_i' beta, 1) truncated to (0, inf) if y_i = 1,
                      and to (-inf, 0] if y_i = 0
    beta | z ~ Normal(P^-1 X' z, P^-1),   P = I / s^2 + X' X

The truncated normal is drawn by inverting its CDF on the side where that is stable, and
``beta`` through the Cholesky factor ``P = L L'`` with triangular solves, no inverse.

What this module offers (the protocol of ``zoo validate --model``):

- ``model()``: the PyMC program; ``y`` is observed (dims ``("launch",)``) and the design
  ``X`` is a ``pm.Data`` (dims ``("launch", "coefficient")``). Free variable: ``beta``
  (``coefficient``: ``intercept``, ``temperature``).
- ``kernel = zoo.Kernel(init, step, draw)``: the state is ``{"beta": ...}``; the latent
  ``z`` is redrawn inside ``step`` from ``beta`` and never kept. ``step`` returns a new
  state and never modifies its argument.
  One step is ``SWEEPS = 2`` sweeps: data augmentation mixes slowly when the latent
  normals carry much of the information (here the lag-one autocorrelation of the
  intercept is about 0.6), and two sweeps per step let the checks' chains (the NUTS
  comparison, Geweke's test) reach their effective-sample-size gates at their default
  lengths.
- ``sampler(data, *, draws, chains, seed)``: a thin loop over the kernel (warm-up steps
  discarded), returning ``{"beta": (chain, draw, coefficient)}``. The same seed gives the
  same draws, bit for bit.
- Planted bugs, the negative controls: ``BUG_KERNELS[name]`` is a ``zoo.Kernel`` with
  the bug, and ``BUG_SAMPLERS[name]`` is the same loop as ``sampler`` around it (same
  names in both dicts):

  ``wrong-side``
      ``z_i`` truncated to the wrong side of 0 (positive for ``y_i = 0``).
  ``clipped``
      ``z_i`` drawn from the untruncated normal and clipped at 0 (``max(z, 0)`` where
      ``y_i = 1``): a point mass at the bound in place of the tail.
  ``precision-factor``
      ``beta = m + L e`` with ``L`` the Cholesky factor of the *precision*, as if it
      were the covariance's.
  ``no-prior-precision``
      ``P = X' X``: the prior's precision dropped (and so its shrinkage).

    python examples/probit_regression.py [--sampler] [--checks LIST] [--only NAMES]
        [--draws 1000] [--chains 4] [--simulations 100] [--seed 0] [--workers 0]

``main`` runs ``zoo.validate`` on the correct kernel and on each bug's kernel (all
checks that apply: nuts, sbc, geweke, invariance), or with ``--sampler`` on the sampler
functions (nuts, sbc), and prints one line per verdict. From the shell, at the root of
the repository, the same for the correct forms (each command on two lines here):

    zoo validate --model examples.probit_regression:model
                 --kernel examples.probit_regression:kernel
    zoo validate --model examples.probit_regression:model
                 --sampler examples.probit_regression:sampler

References
----------
Albert, J. H. & Chib, S. (1993). Bayesian analysis of binary and polychotomous response
data. Journal of the American Statistical Association 88, 669-679.
Dalal, S. R., Fowlkes, E. B. & Hoadley, B. (1989). Risk analysis of the space shuttle:
pre-Challenger prediction of failure. Journal of the American Statistical Association
84, 945-957.
"""

import numpy as np
from scipy import linalg, special

import zoo

if __package__:  # imported: `examples.probit_regression`, from the root of the repository
    from . import harness
else:  # run as a script: Python puts examples/ first on the path
    import harness

#: Launch temperature (degrees F) of the 23 flights before Challenger, in increasing order.
TEMPERATURE = np.array(
    [53, 57, 58, 63, 66, 67, 67, 67, 68, 69, 70, 70, 70, 70, 72, 73, 75, 75, 76, 76, 78, 79, 81],
    dtype=float,
)
#: 1 when a field joint's O-rings showed damage on that flight.
DAMAGE = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0])
#: Prior sd of each coefficient.
PRIOR_SD = 1.0
#: Albert-Chib sweeps per step of the kernel.
SWEEPS = 2
#: Steps discarded at the start of each chain.
WARMUP = 100


def design(temperature=TEMPERATURE):
    """The design matrix: an intercept and the standardised temperature."""
    temperature = np.asarray(temperature, dtype=float)
    scaled = (temperature - temperature.mean()) / temperature.std()
    return np.column_stack([np.ones_like(scaled), scaled])


def model(y=DAMAGE, X=None):
    """The PyMC program: the specification the sampler is checked against.

    Parameters
    ----------
    y : array of {0, 1}
        The binary responses (observed).
    X : array, shape (n, 2), optional
        The design (a ``pm.Data``); default :func:`design` of the launch temperatures.

    Returns
    -------
    pymc.Model
    """
    # deferred: PyMC takes seconds to import, and the sampler does not need it
    import pymc as pm

    X = design() if X is None else np.asarray(X, dtype=float)
    y = np.asarray(y)
    coords = {"launch": np.arange(1, y.size + 1), "coefficient": ["intercept", "temperature"]}
    with pm.Model(coords=coords) as probit:
        design_matrix = pm.Data("X", X, dims=("launch", "coefficient"))
        beta = pm.Normal("beta", mu=0.0, sigma=PRIOR_SD, dims="coefficient")
        p = pm.math.invprobit(design_matrix @ beta)
        pm.Bernoulli("y", p=p, observed=y, dims="launch")
    return probit


def _data(data):
    """Responses and design from a data dict, checked."""
    y = np.asarray(data["y"], dtype=float)
    X = np.asarray(data["X"], dtype=float)
    if y.ndim != 1 or X.ndim != 2 or X.shape[0] != y.size:
        raise ValueError(
            f"data: y must be 1-d and X 2-d with len(y) rows, got {y.shape}, {X.shape}"
        )
    if not np.isin(y, (0.0, 1.0)).all():
        raise ValueError("data: y must hold 0s and 1s")
    return y, X


def _truncated_z(mean, y, rng):
    """Latents ``z_i ~ Normal(mean_i, 1)`` truncated to ``z_i > 0`` if ``y_i = 1``, else ``<= 0``.

    With ``s = 2 y - 1``, ``s (z - mean)`` is a standard normal truncated below at
    ``-s mean``, and ``-s (z - mean)`` one truncated above at ``s mean``, whose inverse
    CDF is ``Phi^-1(u Phi(s mean))`` for ``u`` uniform on (0, 1]. It is evaluated in logs
    (``log_ndtr``, ``ndtri_exp``), so it stays accurate however far in a tail the bound lies.
    """
    s = 2.0 * y - 1.0
    u = 1.0 - rng.random(mean.shape)  # in (0, 1]: log(0) would be -inf
    return mean - s * special.ndtri_exp(np.log(u) + special.log_ndtr(s * mean))


def _beta_given(z, X, rng, prior_precision=1.0 / PRIOR_SD**2):
    """A draw of ``beta | z ~ Normal(P^-1 X'z, P^-1)`` through ``P = L L'``."""
    precision = prior_precision * np.eye(X.shape[1]) + X.T @ X
    L = np.linalg.cholesky(precision)
    mean = linalg.cho_solve((L, True), X.T @ z)
    # L'^-1 e has covariance (L L')^-1 = P^-1.
    return mean + linalg.solve_triangular(
        L, rng.standard_normal(X.shape[1]), lower=True, trans="T"
    )


def init(data, rng):
    """A starting state: beta from its prior."""
    _, X = _data(data)
    return {"beta": rng.normal(0.0, PRIOR_SD, X.shape[1])}


def sweep(beta, y, X, rng):
    """One Gibbs sweep: the latent z given beta and y, then beta given z (Albert & Chib 1993)."""
    z = _truncated_z(X @ beta, y, rng)
    return _beta_given(z, X, rng)


def _steps(sweep, state, data, rng):
    """``SWEEPS`` sweeps from ``state``; the latent z never leaves the sweep."""
    y, X = _data(data)
    beta = state["beta"]
    for _ in range(SWEEPS):
        beta = sweep(beta, y, X, rng)
    return {"beta": beta}


def step(state, data, rng):
    """One step of the kernel: ``SWEEPS`` Gibbs sweeps."""
    return _steps(sweep, state, data, rng)


def draw(state, data, rng):
    """The free variables of the model given the state (here the state itself)."""
    return {"beta": np.array(state["beta"])}


kernel = zoo.Kernel(init, step, draw)


def sampler(data, *, draws, chains, seed, warmup=WARMUP):
    """Posterior draws of ``beta`` by the Albert-Chib Gibbs sampler of ``kernel``.

    Parameters
    ----------
    data : dict
        ``{"y": responses, "X": design}``, as ``zoo validate`` passes them.
    draws, chains : int
        Draws kept per chain, and chains.
    seed : int or None
        Seed of ``numpy.random.default_rng``; the same seed gives the same draws.
    warmup : int
        Steps discarded at the start of each chain.

    Returns
    -------
    dict of str to ndarray
        ``beta`` shaped ``(chain, draw, coefficient)``.
    """
    return harness.run(kernel, data, draws=draws, chains=chains, seed=seed, warmup=warmup)


# The planted bugs: each sweep below differs from `sweep` by one classic derivation slip.


def sweep_wrong_side(beta, y, X, rng):
    """Bug: ``z_i`` truncated to the wrong side of 0 (``y`` read as ``1 - y``)."""
    z = _truncated_z(X @ beta, 1.0 - y, rng)
    return _beta_given(z, X, rng)


def sweep_clipped(beta, y, X, rng):
    """Bug: ``z_i`` drawn untruncated and clipped at 0, a point mass where a tail belongs."""
    z = rng.normal(X @ beta, 1.0)
    z = np.where(y == 1.0, np.maximum(z, 0.0), np.minimum(z, 0.0))
    return _beta_given(z, X, rng)


def sweep_precision_factor(beta, y, X, rng):
    """Bug: the Cholesky factor of the precision used as if it were the covariance's."""
    z = _truncated_z(X @ beta, y, rng)
    L = np.linalg.cholesky(np.eye(X.shape[1]) / PRIOR_SD**2 + X.T @ X)
    mean = linalg.cho_solve((L, True), X.T @ z)
    return mean + L @ rng.standard_normal(X.shape[1])


def sweep_no_prior_precision(beta, y, X, rng):
    """Bug: ``P = X'X``, the prior's precision dropped."""
    z = _truncated_z(X @ beta, y, rng)
    return _beta_given(z, X, rng, prior_precision=0.0)


def step_wrong_side(state, data, rng):
    """``step`` with the sweeps of :func:`sweep_wrong_side`."""
    return _steps(sweep_wrong_side, state, data, rng)


def step_clipped(state, data, rng):
    """``step`` with the sweeps of :func:`sweep_clipped`."""
    return _steps(sweep_clipped, state, data, rng)


def step_precision_factor(state, data, rng):
    """``step`` with the sweeps of :func:`sweep_precision_factor`."""
    return _steps(sweep_precision_factor, state, data, rng)


def step_no_prior_precision(state, data, rng):
    """``step`` with the sweeps of :func:`sweep_no_prior_precision`."""
    return _steps(sweep_no_prior_precision, state, data, rng)


BUG_KERNELS = {
    "wrong-side": zoo.Kernel(init, step_wrong_side, draw),
    "clipped": zoo.Kernel(init, step_clipped, draw),
    "precision-factor": zoo.Kernel(init, step_precision_factor, draw),
    "no-prior-precision": zoo.Kernel(init, step_no_prior_precision, draw),
}
BUG_SAMPLERS = harness.bug_samplers(BUG_KERNELS, warmup=WARMUP)


#: The model with its correct forms and bugs, for the script and the tests.
EXAMPLES = [harness.Example("O-ring damage", model, kernel, sampler, BUG_KERNELS, BUG_SAMPLERS)]

if __name__ == "__main__":
    harness.main(__doc__.splitlines()[0], EXAMPLES)
