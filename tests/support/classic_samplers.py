"""Hand-derived Gibbs samplers for the classic models, as a user would write them.

Each has the data-only sampler protocol ``(data, *, draws, chains, seed)`` of a PyMC-
specified model (``data`` a dict of the observed values).
"""

import numpy as np

from tests.support import classic_models as classic


def coal_gibbs(data, *, draws, chains, seed, late_count_bug=False):
    """Gibbs for the change point: rates given k (Gamma), then k given the rates.

    ``k`` given the rates is proportional to ``early^S_k e^(-early n_k) late^(S - S_k)
    e^(-late (N - n_k))`` over the years (a uniform prior), with ``S_k`` the disasters up
    to and including year ``k`` and ``n_k`` the number of those years.
    """
    rng = np.random.default_rng(seed)
    y = np.asarray(data["y"], dtype=float)
    years = classic.COAL_YEARS
    shape, rate = classic.COAL_RATE_PRIOR
    before = np.cumsum(y)  # S_k for k = each year
    count = np.arange(1, len(y) + 1)
    k = np.full(chains, len(y) // 2)
    out = {name: np.empty((chains, draws)) for name in ("k", "early", "late")}
    for step in range(2 * draws):
        late_years = len(y) - count[k]
        if late_count_bug:
            late_years = count[k]  # the bug: the early segment's length used for the late
        early = rng.gamma(shape + before[k], 1.0 / (rate + count[k]))
        late = rng.gamma(shape + y.sum() - before[k], 1.0 / (rate + late_years))
        log_p = (
            before[None, :] * np.log(early[:, None])
            - early[:, None] * count[None, :]
            + (y.sum() - before[None, :]) * np.log(late[:, None])
            - late[:, None] * (len(y) - count[None, :])
        )
        p = np.exp(log_p - log_p.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        u = rng.random(chains)[:, None]
        k = np.minimum((np.cumsum(p, axis=1) < u).sum(axis=1), len(y) - 1)
        if step >= draws:
            out["k"][:, step - draws] = years[k]
            out["early"][:, step - draws] = early
            out["late"][:, step - draws] = late
    out["k"] = out["k"].astype(np.int64)
    return out


def coal_gibbs_late_count_bug(data, *, draws, chains, seed):
    """The late rate's Gamma uses the early segment's number of years."""
    return coal_gibbs(data, draws=draws, chains=chains, seed=seed, late_count_bug=True)


# ---------------------------------------------------------------------------------------
# Eight schools, without the zoo: tau's posterior on a fine grid (mu and theta integrated
# in closed form), then mu and theta given tau (BDA3 section 5.4).

#: The grid over log tau: tau from 1e-13 to 3e3; below, the posterior of log tau falls
#: like tau, above like tau^-8 (eight observations and the Cauchy tail).
_LOG_TAU = np.linspace(np.log(1e-13), np.log(3e3), 20001)


def eight_schools_grid(y=classic.SCHOOL_EFFECTS, log_tau=_LOG_TAU):
    """``tau``, its normalised weights on the ``log tau`` grid, and ``mu | tau, y``.

    ``y | tau ~ Normal(0, D + m^2 11')`` with ``D = diag(s^2 + tau^2)``, ``m`` the prior
    sd of mu (Sherman-Morrison for the inverse and the determinant); ``mu | tau, y`` is
    Normal with precision ``1/m^2 + sum 1/d_j`` and mean ``sum(y_j / d_j)`` over it.

    Returns
    -------
    tau, weights, mu_mean, mu_var : ndarray
        Weights of the trapezoidal rule in ``log tau`` (the Jacobian included).
    """
    y = np.asarray(y, dtype=float)
    s, m = classic.SCHOOL_SDS, classic.SCHOOL_MU_SD
    tau = np.exp(log_tau)
    d = s[None, :] ** 2 + tau[:, None] ** 2
    inverse_sum = np.sum(1.0 / d, axis=1)
    weighted = np.sum(y / d, axis=1)
    log_det = np.sum(np.log(d), axis=1) + np.log1p(m**2 * inverse_sum)
    quadratic = np.sum(y**2 / d, axis=1) - m**2 * weighted**2 / (1.0 + m**2 * inverse_sum)
    log_evidence = -0.5 * (log_det + quadratic)
    log_prior = (
        np.log(2.0 / np.pi)
        - np.log(classic.SCHOOL_TAU_SCALE)
        - np.log1p((tau / classic.SCHOOL_TAU_SCALE) ** 2)
    )
    log_weight = log_evidence + log_prior + log_tau  # density in log tau
    weights = np.exp(log_weight - log_weight.max())
    weights[[0, -1]] *= 0.5  # trapezoid
    weights /= weights.sum()
    precision = 1.0 / m**2 + inverse_sum
    return tau, weights, weighted / precision, 1.0 / precision


def eight_schools_exact(data, *, draws, chains, seed, centred=True, tau_at_mode=False):
    """Exact draws: log tau from the grid (uniform within its cell), mu and theta given it.

    ``theta_j | mu, tau, y`` is Normal with precision ``1/s_j^2 + 1/tau^2`` and mean
    ``(y_j / s_j^2 + mu / tau^2)`` over it. With ``tau_at_mode`` (the bug) tau stays at
    the mode of log tau's posterior instead of being drawn: the spread tau brings to
    mu and theta is lost.
    """
    rng = np.random.default_rng(seed)
    y = np.asarray(data["y"], dtype=float)
    s = classic.SCHOOL_SDS
    weights = eight_schools_grid(y)[1]
    n = chains * draws
    if tau_at_mode:
        log_tau = np.full(n, _LOG_TAU[np.argmax(weights)])
    else:
        cell = rng.choice(len(weights), size=n, p=weights)
        step = _LOG_TAU[1] - _LOG_TAU[0]
        log_tau = _LOG_TAU[cell] + step * (rng.random(n) - 0.5)
    tau, _, mu_mean, mu_var = eight_schools_grid(y, log_tau)
    mu = mu_mean + np.sqrt(mu_var) * rng.standard_normal(n)
    precision = 1.0 / s[None, :] ** 2 + 1.0 / tau[:, None] ** 2
    mean = (y / s**2 + mu[:, None] / tau[:, None] ** 2) / precision
    theta = mean + rng.standard_normal((n, len(y))) / np.sqrt(precision)
    out = {"mu": mu.reshape(chains, draws), "tau": tau.reshape(chains, draws)}
    if centred:
        out["theta"] = theta.reshape(chains, draws, len(y))
    else:
        out["eta"] = ((theta - mu[:, None]) / tau[:, None]).reshape(chains, draws, len(y))
    return out


def eight_schools_tau_at_mode(data, *, draws, chains, seed):
    """The bug: tau held at the mode of its posterior (in log tau), never drawn."""
    return eight_schools_exact(data, draws=draws, chains=chains, seed=seed, tau_at_mode=True)
