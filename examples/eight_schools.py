"""Eight schools, centred and non-centred: Gibbs for theta and mu given tau, Metropolis on log tau.

The SAT coaching experiments of Rubin (1981), as tabulated in BDA3 (Gelman et al. 2013,
Table 5.2): the estimated effect ``y_j`` of coaching in school ``j`` and its standard
error ``sigma_j``:

    y_j | theta_j ~ Normal(theta_j, sigma_j^2)        (sigma_j known)
    theta_j | mu, tau ~ Normal(mu, tau^2)
    mu ~ Normal(0, 5^2),   tau ~ HalfCauchy(5)

written centred (``centred_model``: ``theta`` free) and non-centred
(``noncentred_model``: ``eta_j ~ Normal(0, 1)`` free, ``theta = mu + tau eta`` a
Deterministic), the priors of posteriordb's ``eight_schools`` posteriors.

The sampler follows BDA3 section 5.4. Given ``tau``, everything is Gaussian:

    y_j | mu, tau ~ Normal(mu, sigma_j^2 + tau^2)   (theta_j integrated out)
    mu | tau, y ~ Normal(b / P, 1 / P),   P = 1 / 5^2 + sum_j w_j,   b = sum_j w_j y_j,
                                          w_j = 1 / (sigma_j^2 + tau^2)
    theta_j | mu, tau, y ~ Normal((y_j / sigma_j^2 + mu / tau^2) / Q_j, 1 / Q_j),
                                          Q_j = 1 / sigma_j^2 + 1 / tau^2

and ``p(tau | y) = p(tau) int p(y | mu, tau) p(mu) dmu`` is known up to a constant:
``log p(y | tau) = -1/2 sum_j log(sigma_j^2 + tau^2) - 1/2 sum_j w_j y_j^2 - 1/2 log P +
b^2 / (2 P) + const``. Each sweep takes ``MH_STEPS`` random-walk Metropolis steps on
``u = log tau`` targeting ``p(tau | y)`` (the density of ``u`` carries the Jacobian
``tau``), then draws ``mu | tau, y`` and ``theta | mu, tau, y`` exactly; the non-centred
state keeps ``eta = (theta - mu) / tau``.

Planted bugs (``CENTRED_BUG_KERNELS``/``_SAMPLERS``, ``NONCENTRED_BUG_KERNELS``/``_SAMPLERS``,
the same three in both):

``jacobian-twice`` (formula)
    the Jacobian of ``u = log tau`` counted twice: once in the target density of ``u``
    and once more as the Hastings ratio ``tau' / tau`` of a multiplicative random walk
    on ``tau``, which is the same move. The walk then targets ``p(tau | y) tau``.
    (Leaving the Jacobian out altogether is the commoner slip, but under the half-Cauchy
    prior it targets ``p(tau | y)`` as a density of ``log tau``, which is flat as ``tau
    -> 0``: improper, so the chains drift to ``tau = 0`` and never converge, and the
    checks can only call that inconclusive.)
``mu-prior-sd-as-variance`` (prior)
    ``mu``'s conditional precision ``1 / 5 + sum_j w_j``: the prior sd used as its
    variance.
``theta-variance-as-sd`` (draw)
    ``theta_j`` drawn with its conditional variance ``1 / Q_j`` passed as the sd.

    python examples/eight_schools.py [--sampler] [--checks LIST] [--only NAMES] ...
    zoo validate --model examples.eight_schools:noncentred_model
                 --kernel examples.eight_schools:noncentred_kernel

References
----------
Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. & Rubin, D. B.
(2013). Bayesian Data Analysis, 3rd edition (BDA3), section 5.5 and Table 5.2.
Chapman & Hall/CRC.
Rubin, D. B. (1981). Estimation in parallel randomized experiments. Journal of
Educational Statistics 6, 377-401.
"""

import numpy as np

import zoo

if __package__:  # imported: `examples.eight_schools`, from the root of the repository
    from . import harness
else:  # run as a script: Python puts examples/ first on the path
    import harness

#: Estimated coaching effects and their standard errors (BDA3, Table 5.2).
EFFECTS = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
STANDARD_ERRORS = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
#: Prior sd of mu (mean 0) and scale of tau's half-Cauchy prior.
MU_SD, TAU_SCALE = 5.0, 5.0
#: Random-walk Metropolis steps on log tau per sweep, and the proposal's sd.
MH_STEPS, PROPOSAL_SD = 4, 1.5
#: Sweeps discarded at the start of each chain.
WARMUP = 100


def _model(centred, y, sigma):
    """The PyMC program, centred or not."""
    # deferred: PyMC takes seconds to import, and the samplers do not need it
    import pymc as pm

    with pm.Model(coords={"school": np.arange(1, np.size(y) + 1)}) as schools:
        standard_errors = pm.Data("sigma", np.asarray(sigma, dtype=float), dims="school")
        mu = pm.Normal("mu", 0.0, MU_SD)
        tau = pm.HalfCauchy("tau", TAU_SCALE)
        if centred:
            theta = pm.Normal("theta", mu, tau, dims="school")
        else:
            eta = pm.Normal("eta", 0.0, 1.0, dims="school")
            theta = pm.Deterministic("theta", mu + tau * eta, dims="school")
        y = np.asarray(y, dtype=float)
        pm.Normal("y", theta, standard_errors, observed=y, dims="school")
    return schools


def centred_model(y=EFFECTS, sigma=STANDARD_ERRORS):
    """Centred: ``theta_j ~ Normal(mu, tau^2)`` free."""
    return _model(True, y, sigma)


def noncentred_model(y=EFFECTS, sigma=STANDARD_ERRORS):
    """Non-centred: ``eta_j ~ Normal(0, 1)`` free, ``theta = mu + tau eta``."""
    return _model(False, y, sigma)


def _data(data):
    """Effects and standard errors from a data dict, checked."""
    y = np.asarray(data["y"], dtype=float)
    sigma = np.asarray(data["sigma"], dtype=float)
    if y.shape != sigma.shape or y.ndim != 1:
        raise ValueError(
            f"data: y and sigma must be 1-d of one length, got {y.shape}, {sigma.shape}"
        )
    if not (sigma > 0).all():
        raise ValueError("data: sigma must be > 0")
    return y, sigma


def _mu_moments(tau, y, sigma, mu_prior_precision=1.0 / MU_SD**2):
    """``(P, b)``: ``mu | tau, y ~ Normal(b / P, 1 / P)`` (theta integrated out)."""
    w = 1.0 / (sigma**2 + tau**2)
    return mu_prior_precision + w.sum(), w @ y


def log_tau_target(u, y, sigma):
    """``log p(u | y) + const``, ``u = log tau``: prior, marginal likelihood, Jacobian ``tau``."""
    tau = np.exp(u)
    w = 1.0 / (sigma**2 + tau**2)
    precision, linear = _mu_moments(tau, y, sigma)
    log_likelihood = 0.5 * (np.log(w).sum() - w @ y**2 - np.log(precision)) + linear**2 / (
        2 * precision
    )
    log_prior = -np.log1p((tau / TAU_SCALE) ** 2)
    return log_prior + log_likelihood + u


def _metropolis_log_tau(tau, y, sigma, rng, *, jacobians=1):
    """``MH_STEPS`` random-walk Metropolis steps on ``u = log tau``; returns the new tau."""

    def target(v):
        # `jacobians` other than 1 plants a bug: the Jacobian tau counted that many times
        return log_tau_target(v, y, sigma) + (jacobians - 1) * v

    u = np.log(tau)
    current = target(u)
    for _ in range(MH_STEPS):
        proposal = u + PROPOSAL_SD * rng.standard_normal()
        log_ratio = target(proposal) - current
        # accept with probability min(1, ratio): log(uniform) < log ratio
        if np.log(rng.random()) < log_ratio:
            u, current = proposal, current + log_ratio
    return np.exp(u)


def _sweep(tau, y, sigma, rng, *, jacobians=1, mu_prior_precision=None, theta_sd_power=0.5):
    """One sweep: tau by Metropolis, then ``mu | tau, y`` and ``theta | mu, tau, y`` exactly.

    The options plant bugs; ``theta_sd_power`` is the power of ``1 / Q_j`` taken as
    ``theta_j``'s sd.
    """
    tau = _metropolis_log_tau(tau, y, sigma, rng, jacobians=jacobians)
    precision, linear = _mu_moments(
        tau, y, sigma, 1.0 / MU_SD**2 if mu_prior_precision is None else mu_prior_precision
    )
    mu = rng.normal(linear / precision, 1.0 / np.sqrt(precision))
    theta_precision = 1.0 / sigma**2 + 1.0 / tau**2
    theta_mean = (y / sigma**2 + mu / tau**2) / theta_precision
    theta = rng.normal(theta_mean, (1.0 / theta_precision) ** theta_sd_power)
    return np.asarray(mu), np.asarray(tau), theta


def _prior_state(data, rng):
    """``(mu, tau, theta)`` from the prior."""
    y, _ = _data(data)
    mu = rng.normal(0.0, MU_SD)
    tau = np.abs(TAU_SCALE * rng.standard_cauchy())
    return np.asarray(mu), np.asarray(tau), rng.normal(mu, tau, y.size)


def centred_init(data, rng):
    """A starting state from the prior."""
    mu, tau, theta = _prior_state(data, rng)
    return {"mu": mu, "tau": tau, "theta": theta}


def noncentred_init(data, rng):
    """A starting state from the prior."""
    mu, tau, theta = _prior_state(data, rng)
    return {"mu": mu, "tau": tau, "eta": (theta - mu) / tau}


def centred_step(state, data, rng):
    """One sweep: Metropolis on log tau, then mu and theta given tau, exactly."""
    mu, tau, theta = _sweep(state["tau"], *_data(data), rng)
    return {"mu": mu, "tau": tau, "theta": theta}


def noncentred_step(state, data, rng):
    """One sweep of :func:`centred_step`, kept as ``eta = (theta - mu) / tau``."""
    mu, tau, theta = _sweep(state["tau"], *_data(data), rng)
    return {"mu": mu, "tau": tau, "eta": (theta - mu) / tau}


def draw_state(state, data, rng):
    """The free variables given the state (the state itself)."""
    return {name: np.array(value) for name, value in state.items()}


centred_kernel = zoo.Kernel(centred_init, centred_step, draw_state)
noncentred_kernel = zoo.Kernel(noncentred_init, noncentred_step, draw_state)


def centred_sampler(data, *, draws, chains, seed, warmup=WARMUP):
    """Posterior draws of ``mu``, ``tau`` and ``theta`` by ``centred_kernel``.

    ``data`` is ``{"y": effects, "sigma": standard errors}``, as ``zoo validate`` passes
    it; ``mu`` and ``tau`` are drawn ``(chain, draw)``, ``theta`` ``(chain, draw,
    school)``.

    The other arguments are those of :func:`harness.run` (same seed, same draws).
    """
    return harness.run(centred_kernel, data, draws=draws, chains=chains, seed=seed, warmup=warmup)


def noncentred_sampler(data, *, draws, chains, seed, warmup=WARMUP):
    """Posterior draws of ``mu``, ``tau`` and ``eta`` by ``noncentred_kernel``.

    As :func:`centred_sampler`, with ``eta`` in place of ``theta``.
    """
    return harness.run(
        noncentred_kernel, data, draws=draws, chains=chains, seed=seed, warmup=warmup
    )


# The planted bugs: each differs from `_sweep` by one slip, in both parametrisations.


def _bug_sweep(state, data, rng, **options):
    """``_sweep`` from ``state`` with the options that plant a bug."""
    return _sweep(state["tau"], *_data(data), rng, **options)


def centred_step_jacobian_twice(state, data, rng):
    """Bug (formula): the Jacobian ``tau`` of ``u = log tau`` counted twice."""
    mu, tau, theta = _bug_sweep(state, data, rng, jacobians=2)
    return {"mu": mu, "tau": tau, "theta": theta}


def centred_step_mu_prior_sd_as_variance(state, data, rng):
    """Bug (prior): ``mu``'s prior precision ``1 / 5``, the sd used as the variance."""
    mu, tau, theta = _bug_sweep(state, data, rng, mu_prior_precision=1.0 / MU_SD)
    return {"mu": mu, "tau": tau, "theta": theta}


def centred_step_theta_variance_as_sd(state, data, rng):
    """Bug (draw): ``theta_j`` drawn with its conditional variance as the sd."""
    mu, tau, theta = _bug_sweep(state, data, rng, theta_sd_power=1.0)
    return {"mu": mu, "tau": tau, "theta": theta}


def noncentred_step_jacobian_twice(state, data, rng):
    """Bug (formula): the Jacobian ``tau`` of ``u = log tau`` counted twice."""
    mu, tau, theta = _bug_sweep(state, data, rng, jacobians=2)
    return {"mu": mu, "tau": tau, "eta": (theta - mu) / tau}


def noncentred_step_mu_prior_sd_as_variance(state, data, rng):
    """Bug (prior): ``mu``'s prior precision ``1 / 5``, the sd used as the variance."""
    mu, tau, theta = _bug_sweep(state, data, rng, mu_prior_precision=1.0 / MU_SD)
    return {"mu": mu, "tau": tau, "eta": (theta - mu) / tau}


def noncentred_step_theta_variance_as_sd(state, data, rng):
    """Bug (draw): ``theta_j`` drawn with its conditional variance as the sd."""
    mu, tau, theta = _bug_sweep(state, data, rng, theta_sd_power=1.0)
    return {"mu": mu, "tau": tau, "eta": (theta - mu) / tau}


CENTRED_BUG_KERNELS = {
    "jacobian-twice": zoo.Kernel(centred_init, centred_step_jacobian_twice, draw_state),
    "mu-prior-sd-as-variance": zoo.Kernel(
        centred_init, centred_step_mu_prior_sd_as_variance, draw_state
    ),
    "theta-variance-as-sd": zoo.Kernel(
        centred_init, centred_step_theta_variance_as_sd, draw_state
    ),
}
CENTRED_BUG_SAMPLERS = harness.bug_samplers(
    CENTRED_BUG_KERNELS, warmup=WARMUP, collection="CENTRED_BUG_SAMPLERS"
)
NONCENTRED_BUG_KERNELS = {
    "jacobian-twice": zoo.Kernel(noncentred_init, noncentred_step_jacobian_twice, draw_state),
    "mu-prior-sd-as-variance": zoo.Kernel(
        noncentred_init, noncentred_step_mu_prior_sd_as_variance, draw_state
    ),
    "theta-variance-as-sd": zoo.Kernel(
        noncentred_init, noncentred_step_theta_variance_as_sd, draw_state
    ),
}
NONCENTRED_BUG_SAMPLERS = harness.bug_samplers(
    NONCENTRED_BUG_KERNELS, warmup=WARMUP, collection="NONCENTRED_BUG_SAMPLERS"
)

#: The two parametrisations, for the script and the tests.
EXAMPLES = [
    harness.Example(
        "eight schools, centred",
        centred_model,
        centred_kernel,
        centred_sampler,
        CENTRED_BUG_KERNELS,
        CENTRED_BUG_SAMPLERS,
    ),
    harness.Example(
        "eight schools, non-centred",
        noncentred_model,
        noncentred_kernel,
        noncentred_sampler,
        NONCENTRED_BUG_KERNELS,
        NONCENTRED_BUG_SAMPLERS,
    ),
]

if __name__ == "__main__":
    harness.main(__doc__.splitlines()[0], EXAMPLES)
