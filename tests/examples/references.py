"""Quadrature references for the example models: what their Gibbs samplers must reproduce.

None of the three has a closed-form posterior, but each has at most two dimensions left
once the conjugate parts are integrated out analytically, so the marginals follow from
the trapezoidal rule on a fine grid (exponentially accurate for a smooth density that
decays to nothing inside the grid):

- pumps: ``p(beta | y)`` on a grid in ``log beta`` (theta integrated out, Gamma-Poisson),
  and each ``theta_i`` as the mixture over it of ``Gamma(alpha + y_i, beta + t_i)``;
- semi-conjugate normal: ``p(mu | y)`` on a grid (sigma2 integrated out,
  Normal-InverseGamma), and ``sigma2`` as the mixture over it of its InverseGamma
  conditional;
- probit: ``p(beta | y)`` on a 2-d grid, marginals by summing out the other coefficient.

CDFs on a grid are cumulative Simpson sums with cubic Hermite interpolation between
nodes (for the mixtures, the mixture of exact CDFs); quantiles by bisection.
"""

import numpy as np
from scipy import integrate, interpolate, special

from zoo.core.reference import Marginal, Reference, quantile_by_bisection


def _trapezoid_weights(x):
    """Weights of the trapezoidal rule on the equally spaced nodes ``x``."""
    w = np.full(x.size, x[1] - x[0])
    w[[0, -1]] /= 2
    return w


def _normalised(log_density, weights):
    """Quadrature weights of a density known up to a constant, summing to one."""
    w = weights * np.exp(log_density - log_density.max())
    return w / w.sum()


def _moments(values, weights):
    """Mean, sd and kurtosis of a discrete distribution (values on the last axis)."""
    mean = np.sum(weights * values, axis=-1)
    centred = values - mean[..., None]
    variance = np.sum(weights * centred**2, axis=-1)
    kurtosis = np.sum(weights * centred**4, axis=-1) / variance**2
    return mean, np.sqrt(variance), kurtosis


def _grid_cdf(x, density):
    """CDF from a density at equally spaced nodes ``x``: cumulative Simpson, Hermite between.

    Both steps are accurate to ``O(h^4)``: Simpson's rule for the CDF at the nodes, and
    cubic Hermite interpolation between them with the density as the slope. Returns the
    CDF (any shape in, same shape out; 0 and 1 outside the nodes) and its inverse.
    """
    total = integrate.simpson(density, x=x)
    nodes = integrate.cumulative_simpson(density / total, x=x, initial=0.0)
    spline = interpolate.CubicHermiteSpline(x, nodes, density / total)

    def cdf(points):
        points = np.asarray(points, dtype=float)
        inside = np.clip(spline(np.clip(points, x[0], x[-1])), 0.0, 1.0)
        return np.where(points < x[0], 0.0, np.where(points > x[-1], 1.0, inside))

    def ppf(prob):
        start = np.interp(prob, nodes, x)
        step = x[1] - x[0]
        return quantile_by_bisection(cdf, prob, start - step, start + step, tol=1e-13)

    return cdf, ppf


def _grid_marginal(x, density, dims=()):
    """A scalar marginal from its (unnormalised) density on equally spaced nodes ``x``."""
    cdf, ppf = _grid_cdf(x, density)
    w = density * _trapezoid_weights(x)
    mean, sd, kurtosis = _moments(x, w / w.sum())
    return Marginal(
        dims=dims,
        mean=np.asarray(mean),
        sd=np.asarray(sd),
        cdf=cdf,
        ppf=ppf,
        kurtosis=np.asarray(kurtosis),
    )


def _mixture_marginal(mean, sd, kurtosis, cdf, lower, upper, dims):
    """A marginal whose CDF is a mixture of exact CDFs; quantiles by bisection."""
    return Marginal(
        dims=dims,
        mean=mean,
        sd=sd,
        cdf=cdf,
        ppf=lambda prob: quantile_by_bisection(cdf, prob, lower, upper, tol=1e-10),
        kurtosis=kurtosis,
    )


def pumps(y, t, *, alpha, shape, rate, points=801):
    """Reference of the pump-failure model: ``beta`` by quadrature, ``theta`` its mixtures.

    Integrating ``theta_i ~ Gamma(alpha, beta)`` against ``Poisson(y_i; theta_i t_i)``
    leaves ``beta^alpha / (beta + t_i)^(alpha + y_i)`` per pump, so
    ``log p(beta | y) = (shape + n alpha - 1) log beta - rate beta
    - sum_i (alpha + y_i) log(beta + t_i) + const``.
    """
    y, t = np.asarray(y, dtype=float), np.asarray(t, dtype=float)

    def log_density(u):  # in u = log beta, with the Jacobian beta
        beta = np.exp(u)
        log_terms = np.log(beta[:, None] + t[None, :])
        return (shape + y.size * alpha) * u - rate * beta - log_terms @ (alpha + y)

    # Locate the bulk on a coarse grid, then integrate on a fine one around it.
    coarse = np.linspace(-15.0, 10.0, 5001)
    mode = coarse[np.argmax(log_density(coarse))]
    u = np.linspace(mode - 6.0, mode + 6.0, points)
    log_u = log_density(u)
    if log_u.max() - max(log_u[0], log_u[-1]) < 60:
        raise RuntimeError("the grid is too narrow: the density at its edge is not negligible")
    w = _normalised(log_u, _trapezoid_weights(u))
    beta = np.exp(u)

    beta_mean, beta_sd, beta_kurtosis = _moments(beta, w)
    # The CDF of beta is that of log beta at log beta.
    log_cdf, log_ppf = _grid_cdf(u, np.exp(log_u - log_u.max()))
    beta_marginal = Marginal(
        dims=(),
        mean=np.asarray(beta_mean),
        sd=np.asarray(beta_sd),
        cdf=lambda points: log_cdf(np.log(np.maximum(points, 1e-300))),
        ppf=lambda prob: np.exp(log_ppf(prob)),
        kurtosis=np.asarray(beta_kurtosis),
    )

    a = (alpha + y)[:, None]  # (pump, node)
    r = beta[None, :] + t[:, None]
    raw = [special.poch(a, k) / r**k for k in range(1, 5)]  # E[theta^k | beta]
    m1, m2, m3, m4 = (np.sum(w * moment, axis=-1) for moment in raw)
    variance = m2 - m1**2
    fourth = m4 - 4 * m3 * m1 + 6 * m2 * m1**2 - 3 * m1**4

    def theta_cdf(points):
        points = np.asarray(points, dtype=float)  # (n, pump)
        out = np.empty(points.shape)
        for start in range(0, points.shape[0], 256):  # (chunk, pump, node) at a time
            chunk = points[start : start + 256, :, None]
            out[start : start + 256] = special.gammainc(a, r * chunk) @ w
        return out

    theta = _mixture_marginal(
        m1,
        np.sqrt(variance),
        fourth / variance**2,
        theta_cdf,
        np.zeros(y.size),
        m1 + 50 * np.sqrt(variance),
        ("pump",),
    )
    return Reference(
        {"beta": beta_marginal, "theta": theta},
        coords={"pump": np.arange(1, y.size + 1)},
        note="quadrature in log beta (801 nodes), theta as Gamma mixtures",
    )


def semi_conjugate_normal(y, *, m0, s0, a, b, points=2001):
    """Reference of the semi-conjugate normal model: ``mu`` by quadrature, ``sigma2`` mixed.

    Integrating ``sigma2 ~ InverseGamma(a, b)`` against the normal likelihood leaves
    ``(b + S(mu) / 2)^-(a + n / 2)``, ``S(mu) = sum_i (y_i - mu)^2``, times the prior of mu.
    """
    y = np.asarray(y, dtype=float)
    n = y.size
    shape = a + n / 2

    def log_density(mu):
        squares = np.sum((y[None, :] - mu[:, None]) ** 2, axis=1)
        return -0.5 * ((mu - m0) / s0) ** 2 - shape * np.log(b + squares / 2)

    # The posterior of mu lies between the prior and the data; its sd is below both.
    spread = min(s0, np.sqrt((b + np.sum((y - y.mean()) ** 2)) / n))
    low = min(m0, y.mean()) - 12 * spread
    high = max(m0, y.mean()) + 12 * spread
    mu = np.linspace(low, high, points)
    log_mu = log_density(mu)
    if log_mu.max() - max(log_mu[0], log_mu[-1]) < 60:
        raise RuntimeError("the grid is too narrow: the density at its edge is not negligible")
    mu_marginal = _grid_marginal(mu, np.exp(log_mu - log_mu.max()))

    w = _normalised(log_mu, _trapezoid_weights(mu))
    rate = b + np.sum((y[None, :] - mu[:, None]) ** 2, axis=1) / 2
    # E[sigma2^k | mu] = rate^k Gamma(shape - k) / Gamma(shape), shape > 4 here.
    raw = [
        rate**k * np.exp(special.gammaln(shape - k) - special.gammaln(shape)) for k in (1, 2, 3, 4)
    ]
    m1, m2, m3, m4 = (np.sum(w * moment) for moment in raw)
    variance = m2 - m1**2
    fourth = m4 - 4 * m3 * m1 + 6 * m2 * m1**2 - 3 * m1**4

    def sigma2_cdf(points):
        points = np.asarray(points, dtype=float)
        return np.sum(special.gammaincc(shape, rate / points[..., None]) * w, axis=-1)

    sigma2 = _mixture_marginal(
        np.asarray(m1),
        np.asarray(np.sqrt(variance)),
        np.asarray(fourth / variance**2),
        sigma2_cdf,
        np.asarray(1e-12),
        np.asarray(m1 + 100 * np.sqrt(variance)),
        (),
    )
    return Reference(
        {"mu": mu_marginal, "sigma2": sigma2},
        note="quadrature in mu (2001 nodes), sigma2 as InverseGamma mixtures",
    )


def probit(y, X, *, prior_sd, points=801, width=16.0):
    """Reference of a probit regression with two coefficients: a 2-d grid.

    ``log p(beta | y) = sum_i log Phi(s_i x_i' beta) - |beta|^2 / (2 prior_sd^2)``,
    ``s_i = 2 y_i - 1``, on a ``points`` x ``points`` grid of ``width`` approximate
    posterior sds either side of the mode.
    """
    y, X = np.asarray(y, dtype=float), np.asarray(X, dtype=float)
    if X.shape[1] != 2:
        raise ValueError("X: the grid reference handles two coefficients")
    signed = X * (2 * y - 1)[:, None]

    def log_density(b0, b1):
        eta = signed[:, 0, None, None] * b0 + signed[:, 1, None, None] * b1
        return special.log_ndtr(eta).sum(axis=0) - (b0**2 + b1**2) / (2 * prior_sd**2)

    # Mode and curvature by Newton steps on the log density.
    beta = np.zeros(2)
    for _ in range(50):
        eta = signed @ beta
        ratio = np.exp(_log_mills(eta))  # phi(eta) / Phi(eta)
        gradient = signed.T @ ratio - beta / prior_sd**2
        weight = ratio * (eta + ratio)
        hessian = -(signed.T * weight) @ signed - np.eye(2) / prior_sd**2
        beta = beta - np.linalg.solve(hessian, gradient)
    sd = np.sqrt(np.diag(np.linalg.inv(-hessian)))
    b0 = np.linspace(beta[0] - width * sd[0], beta[0] + width * sd[0], points)
    b1 = np.linspace(beta[1] - width * sd[1], beta[1] + width * sd[1], points)
    log_grid = log_density(b0[:, None], b1[None, :])
    edge = max(log_grid[[0, -1], :].max(), log_grid[:, [0, -1]].max())
    if log_grid.max() - edge < 30:
        raise RuntimeError("the grid is too narrow: the density at its edge is not negligible")
    density = np.exp(log_grid - log_grid.max())
    first = _grid_marginal(b0, density @ _trapezoid_weights(b1))
    second = _grid_marginal(b1, _trapezoid_weights(b0) @ density)

    def stacked(attribute):
        return np.array([getattr(first, attribute), getattr(second, attribute)])

    def cdf(points):
        points = np.asarray(points, dtype=float)
        return np.stack([first.cdf(points[..., 0]), second.cdf(points[..., 1])], axis=-1)

    marginal = Marginal(
        dims=("coefficient",),
        mean=stacked("mean"),
        sd=stacked("sd"),
        cdf=cdf,
        ppf=lambda prob: np.array([first.ppf(prob), second.ppf(prob)]),
        kurtosis=stacked("kurtosis"),
    )
    return Reference(
        {"beta": marginal},
        coords={"coefficient": np.array(["intercept", "temperature"])},
        note=f"2-d trapezoidal quadrature, {points} x {points} nodes",
    )


def _log_mills(eta):
    """``log(phi(eta) / Phi(eta))``, stable in both tails."""
    return -0.5 * eta**2 - 0.5 * np.log(2 * np.pi) - special.log_ndtr(eta)
