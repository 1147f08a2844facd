"""Bayesian linear regression three ways: known noise, Normal-Inverse-Gamma, independent priors.

Anscombe's (1973) first data set, 11 points ``(x_i, y_i)``, with the design ``X = [1, x]``
(an intercept and a slope, strongly correlated a posteriori because ``x`` is not centred):

- **known noise** (``known_noise_model``): ``y ~ Normal(X beta, sigma^2 I)`` with
  ``sigma = SIGMA`` known and ``beta_j ~ Normal(0, sd S0)``. The posterior is Gaussian:
  ``beta | y ~ Normal(P^-1 X'y / sigma^2, P^-1)``, ``P = X'X / sigma^2 + I / S0^2``
  (e.g. Gelman et al. 2013, BDA3 section 14.2; Hoff 2009 section 9.2). The kernel draws
  it exactly each step, through the Cholesky factor ``P = L L'``: ``beta = m + L'^-1 e``.
- **Normal-Inverse-Gamma** (``nig_model``): ``sigma2 ~ InverseGamma(A, B)``, ``beta |
  sigma2 ~ Normal(0, sigma2 G^2 I)``. Conjugate: with ``V = (X'X + I / G^2)^-1`` and
  ``m = V X'y``, ``sigma2 | y ~ InverseGamma(A + n / 2, B + (y'y - m' V^-1 m) / 2)`` and
  ``beta | sigma2, y ~ Normal(m, sigma2 V)`` (BDA3 section 14.8; Murphy 2007). The kernel
  draws ``sigma2`` then ``beta`` given it, exactly.
- **independent priors** (``independent_model``): ``beta_j ~ Normal(0, sd S0)`` and
  ``sigma2 ~ InverseGamma(A, B)`` independently (semi-conjugate). A two-block Gibbs
  sampler: ``beta | sigma2`` as for known noise, ``sigma2 | beta ~ InverseGamma(A + n /
  2, B + |y - X beta|^2 / 2)`` (Hoff 2009 section 9.2.1).

Each model comes with its kernel (``<model>_kernel``), its sampler (``<model>_sampler``)
and planted bugs (``<MODEL>_BUG_KERNELS``, ``<MODEL>_BUG_SAMPLERS``), each bug's reason in
its step's docstring:

known noise
    ``prior-sd-as-variance`` (prior): the prior precision ``1 / S0``, the sd used as the
    variance. ``transposed-cholesky`` (draw): ``beta = m + L^-1 e``, the factor not
    transposed, so the draws' covariance is ``(L' L)^-1``, not ``P^-1``.
    ``noise-sd-as-variance`` (formula): ``X'X / sigma``, the noise sd where its square
    belongs.
Normal-Inverse-Gamma
    ``shape-not-halved`` (formula): ``A + n``. ``covariance-not-scaled`` (draw): ``beta
    ~ Normal(m, V)``, the factor ``sigma2`` forgotten. ``rate-as-scale`` (draw): numpy's
    ``gamma`` takes a scale; the rate passed as is.
independent priors
    ``squares-about-least-squares`` (formula): ``sigma2``'s rate from the residuals at
    the least-squares fit, not at the current ``beta``. ``variance-as-precision``
    (draw): the Gamma draw not inverted. ``prior-sd-as-variance`` (prior): as for known
    noise.

    python examples/linear_regression.py [--sampler] [--checks LIST] [--only NAMES] ...
    zoo validate --model examples.linear_regression:known_noise_model
                 --kernel examples.linear_regression:known_noise_kernel

References
----------
Anscombe, F. J. (1973). Graphs in statistical analysis. The American Statistician 27,
17-21.
Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. & Rubin, D. B.
(2013). Bayesian Data Analysis, 3rd edition (BDA3). Chapman & Hall/CRC.
Hoff, P. D. (2009). A First Course in Bayesian Statistical Methods. Springer.
Murphy, K. P. (2007). Conjugate Bayesian analysis of the Gaussian distribution.
Technical note, University of British Columbia.
"""

import numpy as np
from scipy import linalg

import zoo

if __package__:  # imported: `examples.linear_regression`, from the root of the repository
    from . import harness
else:  # run as a script: Python puts examples/ first on the path
    import harness

#: Anscombe's (1973) first data set.
X_VALUES = np.array([10.0, 8.0, 13.0, 9.0, 11.0, 14.0, 6.0, 4.0, 12.0, 7.0, 5.0])
Y_VALUES = np.array([8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68])
#: The known noise sd (near the least-squares residual sd, 1.24).
SIGMA = 1.25
#: Prior sd of each coefficient (known noise, independent priors).
S0 = 10.0
#: InverseGamma(A, B) prior of sigma2 (shape, scale).
A, B = 3.0, 2.0
#: Normal-Inverse-Gamma: beta | sigma2 ~ Normal(0, sigma2 G^2 I).
G = 10.0
#: Steps discarded at the start of each chain (two for the exact draws).
WARMUP = 2
#: Sweeps discarded by the two-block Gibbs sampler of the independent priors.
GIBBS_WARMUP = 100


def design(x=X_VALUES):
    """The design matrix ``[1, x]``."""
    x = np.asarray(x, dtype=float)
    return np.column_stack([np.ones_like(x), x])


def _model(variant, y, X):
    """The PyMC program of one variant: the specification its sampler is checked against."""
    # deferred: PyMC takes seconds to import, and the samplers do not need it
    import pymc as pm

    y = np.asarray(y, dtype=float)
    coords = {"point": np.arange(1, y.size + 1), "coefficient": ["intercept", "slope"]}
    with pm.Model(coords=coords) as regression:
        design_matrix = pm.Data("X", np.asarray(X, dtype=float), dims=("point", "coefficient"))
        if variant == "known noise":
            beta = pm.Normal("beta", 0.0, S0, dims="coefficient")
            sigma = SIGMA
        elif variant == "nig":
            sigma2 = pm.InverseGamma("sigma2", alpha=A, beta=B)
            sigma = pm.math.sqrt(sigma2)
            beta = pm.Normal("beta", 0.0, sigma * G, dims="coefficient")
        else:
            beta = pm.Normal("beta", 0.0, S0, dims="coefficient")
            sigma = pm.math.sqrt(pm.InverseGamma("sigma2", alpha=A, beta=B))
        pm.Normal("y", design_matrix @ beta, sigma, observed=y, dims="point")
    return regression


def known_noise_model(y=Y_VALUES, X=None):
    """Known noise: ``beta ~ Normal(0, S0^2 I)``, ``y ~ Normal(X beta, SIGMA^2 I)``."""
    return _model("known noise", y, design() if X is None else X)


def nig_model(y=Y_VALUES, X=None):
    """Normal-Inverse-Gamma: ``sigma2 ~ InvGamma(A, B)``, ``beta ~ Normal(0, sigma2 G^2 I)``."""
    return _model("nig", y, design() if X is None else X)


def independent_model(y=Y_VALUES, X=None):
    """Independent priors: ``beta ~ Normal(0, S0^2 I)``, ``sigma2 ~ InvGamma(A, B)``."""
    return _model("independent", y, design() if X is None else X)


def _data(data):
    """Responses and design from a data dict, checked."""
    y = np.asarray(data["y"], dtype=float)
    X = np.asarray(data["X"], dtype=float)
    if y.ndim != 1 or X.ndim != 2 or X.shape[0] != y.size:
        raise ValueError(
            f"data: y must be 1-d and X 2-d with len(y) rows, got {y.shape}, {X.shape}"
        )
    return y, X


def _gaussian(precision, linear, rng):
    """A draw of ``Normal(P^-1 b, P^-1)`` through ``P = L L'``: ``m + L'^-1 e``."""
    L = np.linalg.cholesky(precision)
    mean = linalg.cho_solve((L, True), linear)
    e = rng.standard_normal(linear.size)
    # L'^-1 e has covariance (L L')^-1 = P^-1.
    return mean + linalg.solve_triangular(L, e, lower=True, trans="T")


def _inverse_gamma(shape, rate, rng):
    """A draw of ``InverseGamma(shape, rate)``: ``1 / Gamma(shape, rate)``; numpy takes a scale."""
    return 1.0 / rng.gamma(shape, 1.0 / rate)


# Known noise -------------------------------------------------------------------------


def _beta_known_noise(y, X, rng, *, prior_precision=1.0 / S0**2, noise_variance=SIGMA**2):
    """``beta | y``: precisions add, ``P = X'X / sigma^2 + I / S0^2``."""
    precision = X.T @ X / noise_variance + prior_precision * np.eye(X.shape[1])
    return _gaussian(precision, X.T @ y / noise_variance, rng)


def known_noise_init(data, rng):
    """A starting state: beta from its prior."""
    _, X = _data(data)
    return {"beta": rng.normal(0.0, S0, X.shape[1])}


def known_noise_step(state, data, rng):
    """An exact draw of ``beta | y`` (the state is not needed)."""
    y, X = _data(data)
    return {"beta": _beta_known_noise(y, X, rng)}


def draw_beta(state, data, rng):
    """The free variable ``beta`` given the state (the state itself)."""
    return {"beta": np.array(state["beta"])}


known_noise_kernel = zoo.Kernel(known_noise_init, known_noise_step, draw_beta)


def known_noise_sampler(data, *, draws, chains, seed, warmup=WARMUP):
    """Exact posterior draws of ``beta`` under known noise, by ``known_noise_kernel``.

    ``data`` is ``{"y": responses, "X": design}``, as ``zoo validate`` passes it; ``beta``
    is drawn ``(chain, draw, coefficient)``.

    The other arguments are those of :func:`harness.run` (same seed, same draws).
    """
    return harness.run(
        known_noise_kernel, data, draws=draws, chains=chains, seed=seed, warmup=warmup
    )


def step_prior_sd_as_variance(state, data, rng):
    """Bug (prior): the prior precision ``1 / S0``, the sd used where the variance belongs."""
    y, X = _data(data)
    return {"beta": _beta_known_noise(y, X, rng, prior_precision=1.0 / S0)}


def step_transposed_cholesky(state, data, rng):
    """Bug (draw): ``m + L^-1 e``, the Cholesky factor of the precision not transposed."""
    y, X = _data(data)
    precision = X.T @ X / SIGMA**2 + np.eye(X.shape[1]) / S0**2
    L = np.linalg.cholesky(precision)
    mean = linalg.cho_solve((L, True), X.T @ y / SIGMA**2)
    e = rng.standard_normal(X.shape[1])
    return {"beta": mean + linalg.solve_triangular(L, e, lower=True)}


def step_noise_sd_as_variance(state, data, rng):
    """Bug (formula): ``X'X / sigma`` and ``X'y / sigma``, the noise sd for its square."""
    y, X = _data(data)
    return {"beta": _beta_known_noise(y, X, rng, noise_variance=SIGMA)}


KNOWN_NOISE_BUG_KERNELS = {
    "prior-sd-as-variance": zoo.Kernel(known_noise_init, step_prior_sd_as_variance, draw_beta),
    "transposed-cholesky": zoo.Kernel(known_noise_init, step_transposed_cholesky, draw_beta),
    "noise-sd-as-variance": zoo.Kernel(known_noise_init, step_noise_sd_as_variance, draw_beta),
}
KNOWN_NOISE_BUG_SAMPLERS = harness.bug_samplers(
    KNOWN_NOISE_BUG_KERNELS, warmup=WARMUP, collection="KNOWN_NOISE_BUG_SAMPLERS"
)


# Normal-Inverse-Gamma ----------------------------------------------------------------


def _nig_posterior(y, X):
    """``(V^-1, m, shape, rate)`` of the Normal-Inverse-Gamma posterior (Murphy 2007)."""
    precision = X.T @ X + np.eye(X.shape[1]) / G**2
    m = linalg.cho_solve((np.linalg.cholesky(precision), True), X.T @ y)
    # y'y - m' V^-1 m is the residual sum of squares plus the prior's penalty, >= 0
    rate = B + (y @ y - m @ precision @ m) / 2
    return precision, m, A + y.size / 2, rate


def nig_init(data, rng):
    """A starting state from the prior."""
    _, X = _data(data)
    sigma2 = _inverse_gamma(A, B, rng)
    return {"beta": rng.normal(0.0, np.sqrt(sigma2) * G, X.shape[1]), "sigma2": np.asarray(sigma2)}


def _nig_draw(precision, m, sigma2, rng):
    """``beta | sigma2 ~ Normal(m, sigma2 V)``: ``m + sqrt(sigma2) L'^-1 e``."""
    L = np.linalg.cholesky(precision)
    e = rng.standard_normal(m.size)
    return m + np.sqrt(sigma2) * linalg.solve_triangular(L, e, lower=True, trans="T")


def nig_step(state, data, rng):
    """An exact joint draw: ``sigma2 | y``, then ``beta | sigma2, y``."""
    precision, m, shape, rate = _nig_posterior(*_data(data))
    sigma2 = _inverse_gamma(shape, rate, rng)
    return {"beta": _nig_draw(precision, m, sigma2, rng), "sigma2": np.asarray(sigma2)}


def draw_beta_sigma2(state, data, rng):
    """The free variables ``beta`` and ``sigma2`` given the state (the state itself)."""
    return {"beta": np.array(state["beta"]), "sigma2": np.array(state["sigma2"])}


nig_kernel = zoo.Kernel(nig_init, nig_step, draw_beta_sigma2)


def nig_sampler(data, *, draws, chains, seed, warmup=WARMUP):
    """Exact posterior draws of ``beta`` and ``sigma2`` by ``nig_kernel``.

    Arguments and return as for :func:`known_noise_sampler`, with ``sigma2`` shaped
    ``(chain, draw)``.
    """
    return harness.run(nig_kernel, data, draws=draws, chains=chains, seed=seed, warmup=warmup)


def step_shape_not_halved(state, data, rng):
    """Bug (formula): ``sigma2``'s shape ``A + n``, not ``A + n / 2``."""
    y, X = _data(data)
    precision, m, _, rate = _nig_posterior(y, X)
    sigma2 = _inverse_gamma(A + y.size, rate, rng)
    return {"beta": _nig_draw(precision, m, sigma2, rng), "sigma2": np.asarray(sigma2)}


def step_covariance_not_scaled(state, data, rng):
    """Bug (draw): ``beta ~ Normal(m, V)``, the factor ``sigma2`` of the covariance forgotten."""
    precision, m, shape, rate = _nig_posterior(*_data(data))
    sigma2 = _inverse_gamma(shape, rate, rng)
    return {"beta": _nig_draw(precision, m, 1.0, rng), "sigma2": np.asarray(sigma2)}


def step_rate_as_scale(state, data, rng):
    """Bug (draw): ``1 / gamma(shape, rate)``: numpy's second argument is the scale."""
    precision, m, shape, rate = _nig_posterior(*_data(data))
    sigma2 = 1.0 / rng.gamma(shape, rate)
    return {"beta": _nig_draw(precision, m, sigma2, rng), "sigma2": np.asarray(sigma2)}


NIG_BUG_KERNELS = {
    "shape-not-halved": zoo.Kernel(nig_init, step_shape_not_halved, draw_beta_sigma2),
    "covariance-not-scaled": zoo.Kernel(nig_init, step_covariance_not_scaled, draw_beta_sigma2),
    "rate-as-scale": zoo.Kernel(nig_init, step_rate_as_scale, draw_beta_sigma2),
}
NIG_BUG_SAMPLERS = harness.bug_samplers(
    NIG_BUG_KERNELS, warmup=WARMUP, collection="NIG_BUG_SAMPLERS"
)


# Independent priors ------------------------------------------------------------------


def _sigma2_given(beta, y, X, rng):
    """``sigma2 | beta, y ~ InverseGamma(A + n / 2, B + |y - X beta|^2 / 2)``."""
    residual = y - X @ beta
    return _inverse_gamma(A + y.size / 2, B + residual @ residual / 2, rng)


def independent_init(data, rng):
    """A starting state: beta and sigma2 from their priors."""
    _, X = _data(data)
    return {
        "beta": rng.normal(0.0, S0, X.shape[1]),
        "sigma2": np.asarray(_inverse_gamma(A, B, rng)),
    }


def independent_step(state, data, rng):
    """One Gibbs sweep: ``beta | sigma2``, then ``sigma2 | beta`` (Hoff 2009, 9.2.1)."""
    y, X = _data(data)
    beta = _beta_known_noise(y, X, rng, noise_variance=state["sigma2"])
    return {"beta": beta, "sigma2": np.asarray(_sigma2_given(beta, y, X, rng))}


independent_kernel = zoo.Kernel(independent_init, independent_step, draw_beta_sigma2)


def independent_sampler(data, *, draws, chains, seed, warmup=GIBBS_WARMUP):
    """Posterior draws of ``beta`` and ``sigma2`` by the Gibbs sampler ``independent_kernel``.

    Arguments and return as for :func:`nig_sampler`; ``warmup`` sweeps are discarded.
    """
    return harness.run(
        independent_kernel, data, draws=draws, chains=chains, seed=seed, warmup=warmup
    )


def step_squares_about_least_squares(state, data, rng):
    """Bug (formula): ``sigma2``'s rate from the least-squares residuals, not ``y - X beta``."""
    y, X = _data(data)
    beta = _beta_known_noise(y, X, rng, noise_variance=state["sigma2"])
    fitted, *_ = np.linalg.lstsq(X, y, rcond=None)
    residual = y - X @ fitted
    sigma2 = _inverse_gamma(A + y.size / 2, B + residual @ residual / 2, rng)
    return {"beta": beta, "sigma2": np.asarray(sigma2)}


def step_variance_as_precision(state, data, rng):
    """Bug (draw): the Gamma draw kept as ``sigma2``, not inverted."""
    y, X = _data(data)
    beta = _beta_known_noise(y, X, rng, noise_variance=state["sigma2"])
    residual = y - X @ beta
    sigma2 = rng.gamma(A + y.size / 2, 1.0 / (B + residual @ residual / 2))
    return {"beta": beta, "sigma2": np.asarray(sigma2)}


def step_independent_prior_sd_as_variance(state, data, rng):
    """Bug (prior): ``beta``'s prior precision ``1 / S0``, the sd used as the variance."""
    y, X = _data(data)
    beta = _beta_known_noise(y, X, rng, prior_precision=1.0 / S0, noise_variance=state["sigma2"])
    return {"beta": beta, "sigma2": np.asarray(_sigma2_given(beta, y, X, rng))}


INDEPENDENT_BUG_KERNELS = {
    name: zoo.Kernel(independent_init, step, draw_beta_sigma2)
    for name, step in (
        ("squares-about-least-squares", step_squares_about_least_squares),
        ("variance-as-precision", step_variance_as_precision),
        ("prior-sd-as-variance", step_independent_prior_sd_as_variance),
    )
}
INDEPENDENT_BUG_SAMPLERS = harness.bug_samplers(
    INDEPENDENT_BUG_KERNELS, warmup=GIBBS_WARMUP, collection="INDEPENDENT_BUG_SAMPLERS"
)

#: The three models, for the script and the tests.
EXAMPLES = [
    harness.Example(
        "linear regression, known noise",
        known_noise_model,
        known_noise_kernel,
        known_noise_sampler,
        KNOWN_NOISE_BUG_KERNELS,
        KNOWN_NOISE_BUG_SAMPLERS,
    ),
    harness.Example(
        "linear regression, Normal-Inverse-Gamma",
        nig_model,
        nig_kernel,
        nig_sampler,
        NIG_BUG_KERNELS,
        NIG_BUG_SAMPLERS,
    ),
    harness.Example(
        "linear regression, independent priors",
        independent_model,
        independent_kernel,
        independent_sampler,
        INDEPENDENT_BUG_KERNELS,
        INDEPENDENT_BUG_SAMPLERS,
    ),
]

if __name__ == "__main__":
    harness.main(__doc__.splitlines()[0], EXAMPLES)
