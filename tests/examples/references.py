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
from scipy import integrate, interpolate, linalg, special, stats

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


def _coefficient_coords(X):
    """The coefficient coordinates of the regression examples."""
    if X.shape[1] != 2:
        raise ValueError("X: the regression examples have an intercept and a slope")
    return {"coefficient": np.array(["intercept", "slope"])}


def _inverse(precision):
    """The covariance ``P^-1`` through the Cholesky factor of ``P``."""
    factor = linalg.cho_factor(precision, lower=True)
    return linalg.cho_solve(factor, np.eye(precision.shape[0]))


def regression_known_noise(y, X, *, sigma, s0):
    """Closed form: ``beta | y ~ Normal(P^-1 X'y / sigma^2, P^-1)``.

    ``P = X'X / sigma^2 + I / s0^2``: the posterior of a linear regression with known
    noise and independent Normal(0, s0^2) priors (BDA3 section 14.2); each coefficient's
    marginal is Normal.
    """
    y, X = np.asarray(y, dtype=float), np.asarray(X, dtype=float)
    precision = X.T @ X / sigma**2 + np.eye(X.shape[1]) / s0**2
    covariance = _inverse(precision)
    mean = covariance @ (X.T @ y) / sigma**2
    beta = stats.norm(mean, np.sqrt(np.diag(covariance)))
    return Reference(
        {"beta": Marginal.from_scipy(beta, ("coefficient",))},
        coords=_coefficient_coords(X),
        note="closed form: Gaussian posterior of beta",
    )


def regression_nig(y, X, *, a, b, g):
    """Closed form of the Normal-Inverse-Gamma regression (Murphy 2007, section 7.6).

    With ``sigma2 ~ InverseGamma(a, b)`` and ``beta | sigma2 ~ Normal(0, sigma2 g^2 I)``:
    ``V = (X'X + I / g^2)^-1``, ``m = V X'y``, ``sigma2 | y ~ InverseGamma(a + n / 2,
    b + (y'y - m' V^-1 m) / 2)`` and ``beta_j | y ~ t_{2 a_n}(m_j, sqrt(b_n / a_n V_jj))``.
    """
    y, X = np.asarray(y, dtype=float), np.asarray(X, dtype=float)
    precision = X.T @ X + np.eye(X.shape[1]) / g**2
    covariance = _inverse(precision)
    mean = covariance @ (X.T @ y)
    shape = a + y.size / 2
    rate = b + (y @ y - mean @ precision @ mean) / 2
    beta = stats.t(2 * shape, mean, np.sqrt(rate / shape * np.diag(covariance)))
    return Reference(
        {
            "beta": Marginal.from_scipy(beta, ("coefficient",)),
            "sigma2": Marginal.from_scipy(stats.invgamma(shape, scale=rate)),
        },
        coords=_coefficient_coords(X),
        note="closed form: Normal-Inverse-Gamma (Student-t and Inverse-Gamma marginals)",
    )


def dirichlet_multinomial(counts, *, alpha):
    """Closed form: ``p | counts ~ Dirichlet(alpha + counts)``, Beta marginals.

    Each ``p_k ~ Beta(a_k, sum(a) - a_k)`` with ``a = alpha + counts`` (BDA3 section 3.4).
    """
    a = np.asarray(alpha, dtype=float) + np.asarray(counts, dtype=float)
    p = stats.beta(a, a.sum() - a)
    return Reference(
        {"p": Marginal.from_scipy(p, ("face",))},
        coords={"face": np.arange(1, a.size + 1)},
        note="closed form: Dirichlet(alpha + counts), Beta marginals",
    )


def _gamma_mixture(shapes, rates, weights):
    """A scalar marginal: the mixture of ``Gamma(shapes, rates)`` with ``weights``."""
    raw = [np.sum(weights * special.poch(shapes, k) / rates**k) for k in range(1, 5)]
    m1, m2, m3, m4 = raw
    variance = m2 - m1**2
    fourth = m4 - 4 * m3 * m1 + 6 * m2 * m1**2 - 3 * m1**4

    def cdf(points):
        points = np.asarray(points, dtype=float)
        return special.gammainc(shapes, rates * points[..., None]) @ weights

    return _mixture_marginal(
        np.asarray(m1),
        np.asarray(np.sqrt(variance)),
        np.asarray(fourth / variance**2),
        cdf,
        np.asarray(0.0),
        np.asarray(m1 + 50 * np.sqrt(variance)),
        (),
    )


def _discrete_marginal(values, pmf, dims=()):
    """A marginal on the sorted ``values`` (last axis) with probabilities ``pmf``."""
    cumulative = np.cumsum(pmf, axis=-1)
    mean = np.sum(pmf * values, axis=-1)
    variance = np.sum(pmf * (values - mean[..., None]) ** 2, axis=-1)

    def cdf(points):
        points = np.asarray(points, dtype=float)
        below = points[..., None] >= values  # (n, *shape, value)
        return np.sum(below * pmf, axis=-1)

    def ppf(prob):
        index = np.argmax(cumulative >= prob - 1e-12, axis=-1)
        return np.take_along_axis(
            np.broadcast_to(values, cumulative.shape), index[..., None], axis=-1
        )[..., 0].astype(float)

    return Marginal(
        dims=dims,
        mean=np.asarray(mean),
        sd=np.asarray(np.sqrt(variance)),
        cdf=cdf,
        ppf=ppf,
        discrete=True,
    )


def change_point(y, years, *, a, b):
    """Exact reference of the coal-mining change point, by enumerating the switch year.

    Given ``m`` early years, the rates integrate out (Gamma-Poisson):
    ``log p(m | y) = lgamma(a + S_m) - (a + S_m) log(b + m) + lgamma(a + S - S_m) - (a + S
    - S_m) log(b + n - m) + const`` under the uniform prior; each rate's marginal is the
    mixture over ``m`` of its Gamma conditional.
    """
    y = np.asarray(y, dtype=float)
    n, m = y.size, np.arange(1, y.size + 1)
    before = np.cumsum(y)
    after = y.sum() - before
    log_p = (
        special.gammaln(a + before)
        - (a + before) * np.log(b + m)
        + special.gammaln(a + after)
        - (a + after) * np.log(b + n - m)
    )
    weights = np.exp(log_p - log_p.max())
    weights /= weights.sum()
    return Reference(
        {
            "switch": _discrete_marginal(np.asarray(years, dtype=float), weights),
            "early": _gamma_mixture(a + before, b + m, weights),
            "late": _gamma_mixture(a + after, b + n - m, weights),
        },
        note=f"enumeration of the {n} switch years, rates as Gamma mixtures",
    )


def _from_raw_moments(raw, cdf, lower, upper, dims):
    """A mixture marginal from its first four raw moments and its CDF."""
    m1, m2, m3, m4 = (np.asarray(moment, dtype=float) for moment in raw)
    variance = m2 - m1**2
    fourth = m4 - 4 * m3 * m1 + 6 * m2 * m1**2 - 3 * m1**4
    return _mixture_marginal(m1, np.sqrt(variance), fourth / variance**2, cdf, lower, upper, dims)


def two_component_mixture(y, *, a, b, prior_means, prior_sd, sigma):
    """Exact reference of the two-component mixture with known noise, by enumeration.

    For each of the ``2^n`` labellings ``z`` (``n <= 16``), with ``w`` and the means
    integrated out: ``log p(z) = log B(a + n_1, b + n_0) - log B(a, b)``, and the
    observations of component ``k`` are jointly ``Normal(M_k 1, sigma^2 I + s^2 1 1')``,
    whose log density is ``-n_k / 2 log(2 pi sigma^2) - 1/2 log(1 + n_k s^2 / sigma^2) -
    (Q_k - s^2 D_k^2 / (sigma^2 + n_k s^2)) / (2 sigma^2)`` with ``D_k = sum (y_i - M_k)``
    and ``Q_k = sum (y_i - M_k)^2`` over its observations (the matrix determinant lemma
    and Sherman-Morrison). Given ``z``: ``mu_k ~ Normal`` (precisions add), ``w ~ Beta(a +
    n_1, b + n_0)``; the marginals are mixtures over the labellings, and each label's
    probability is the sum of the labellings' where it is 1.
    """
    y = np.asarray(y, dtype=float)
    n = y.size
    if n > 16:
        raise ValueError(f"y: at most 16 observations are enumerated, got {n}")
    labels = (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1  # (labelling, obs)
    members = np.stack([labels == 0, labels == 1], axis=-1)  # (labelling, obs, component)
    counts = members.sum(axis=1).astype(float)  # (labelling, component)
    deviations = y[None, :, None] - np.asarray(prior_means)[None, None, :]
    d = np.sum(members * deviations, axis=1)
    q = np.sum(members * deviations**2, axis=1)
    s2, v = prior_sd**2, sigma**2
    log_likelihood = np.sum(
        -counts / 2 * np.log(2 * np.pi * v)
        - 0.5 * np.log1p(counts * s2 / v)
        - (q - s2 * d**2 / (v + counts * s2)) / (2 * v),
        axis=1,
    )
    n1 = counts[:, 1]
    log_prior = special.betaln(a + n1, b + n - n1) - special.betaln(a, b)
    log_weights = log_prior + log_likelihood
    weights = np.exp(log_weights - log_weights.max())
    weights /= weights.sum()

    precision = 1.0 / s2 + counts / v  # (labelling, component)
    sums = np.sum(members * y[None, :, None], axis=1)
    mean = (np.asarray(prior_means) / s2 + sums / v) / precision
    mu = _normal_mixture(mean, 1.0 / precision, weights, ("component",))
    alpha, beta = a + n1, b + n - n1
    w = _from_raw_moments(
        [weights @ (special.poch(alpha, k) / special.poch(alpha + beta, k)) for k in range(1, 5)],
        lambda points: special.betainc(alpha, beta, np.asarray(points)[..., None]) @ weights,
        np.asarray(0.0),
        np.asarray(1.0),
        (),
    )
    p1 = weights @ labels  # P(z_i = 1)
    z = _discrete_marginal(np.array([0.0, 1.0]), np.stack([1 - p1, p1], axis=-1), ("obs",))
    return Reference(
        {"w": w, "mu": mu, "z": z},
        coords={"obs": np.arange(1, n + 1), "component": np.array([0, 1])},
        note=f"enumeration of the {2**n} labellings, w and mu as mixtures",
    )


def _normal_mixture(mean, var, weights, dims):
    """The mixture over nodes (first axis) of ``Normal(mean, var)``, element by element."""
    w = weights.reshape((-1,) + (1,) * (mean.ndim - 1))
    raw = [
        np.sum(w * moment, axis=0)
        for moment in (
            mean,
            mean**2 + var,
            mean**3 + 3 * mean * var,
            mean**4 + 6 * mean**2 * var + 3 * var**2,
        )
    ]
    sd = np.sqrt(var)

    def cdf(points):
        points = np.asarray(points, dtype=float)  # (n, *shape)
        out = np.empty(points.shape)
        for start in range(0, points.shape[0], 64):  # (chunk, node, *shape) at a time
            chunk = points[start : start + 64, None]
            out[start : start + 64] = np.tensordot(
                special.ndtr((chunk - mean) / sd), weights, axes=([1], [0])
            ).reshape(chunk.shape[:1] + mean.shape[1:])
        return out

    spread = sd.max(axis=0)
    return _from_raw_moments(
        raw, cdf, mean.min(axis=0) - 40 * spread, mean.max(axis=0) + 40 * spread, dims
    )


def _log_grid_marginal(u, log_density, weights):
    """The marginal of ``exp(u)`` from its log density on equally spaced ``u`` (with weights).

    Its CDF is that of ``u`` at ``log x`` (cumulative Simpson on the grid); its moments
    are the quadrature's.
    """
    log_cdf, log_ppf = _grid_cdf(u, np.exp(log_density - log_density.max()))
    mean, sd, kurtosis = _moments(np.exp(u), weights)
    return Marginal(
        dims=(),
        mean=np.asarray(mean),
        sd=np.asarray(sd),
        cdf=lambda x: log_cdf(np.log(np.maximum(x, 1e-300))),
        ppf=lambda prob: np.exp(log_ppf(prob)),
        kurtosis=np.asarray(kurtosis),
    )


def eight_schools(y, sigma, *, mu_sd, tau_scale, centred, points=1401):
    """Reference of eight schools: ``tau`` by quadrature in ``log tau``, the rest mixtures.

    ``log p(tau | y) = log p(tau) - 1/2 sum_j log(sigma_j^2 + tau^2) - 1/2 sum_j w_j
    y_j^2 - 1/2 log P + b^2 / (2 P) + const``, ``w_j = 1 / (sigma_j^2 + tau^2)``, ``P =
    1 / mu_sd^2 + sum_j w_j``, ``b = sum_j w_j y_j`` (BDA3 section 5.4, with a proper
    prior on mu), on a grid in ``log tau``. Given ``tau``, ``mu ~ Normal(b / P, 1 / P)``
    and ``theta_j = y_j / (sigma_j^2 Q_j) + c_j mu + Normal(0, 1 / Q_j)`` with ``Q_j = 1 /
    sigma_j^2 + 1 / tau^2`` and ``c_j = 1 / (tau^2 Q_j)``; the non-centred ``eta_j =
    (theta_j - mu) / tau`` is Normal too.
    """
    y, sigma = np.asarray(y, dtype=float), np.asarray(sigma, dtype=float)
    u = np.linspace(-14.0, 7.0, points)
    tau = np.exp(u)[:, None]  # (node, 1)
    w = 1.0 / (sigma**2 + tau**2)  # (node, school)
    precision = 1.0 / mu_sd**2 + w.sum(axis=1)
    linear = w @ y
    log_density = (
        -np.log1p((tau[:, 0] / tau_scale) ** 2)
        + 0.5 * (np.log(w).sum(axis=1) - w @ y**2 - np.log(precision))
        + linear**2 / (2 * precision)
        + u  # the Jacobian of tau = exp(u)
    )
    if log_density.max() - log_density[-1] < 30 or log_density.max() - log_density[0] < 10:
        raise RuntimeError("the grid is too narrow: the density at its edge is not negligible")
    weights = _normalised(log_density, _trapezoid_weights(u))

    tau_marginal = _log_grid_marginal(u, log_density, weights)
    mu_mean, mu_var = linear / precision, 1.0 / precision
    mu = _normal_mixture(mu_mean, mu_var, weights, ())
    q = 1.0 / sigma**2 + 1.0 / tau**2
    c = 1.0 / (tau**2 * q)
    own = y / (sigma**2 * q)
    if centred:
        name = "theta"
        mean = own + c * mu_mean[:, None]
        var = 1.0 / q + c**2 * mu_var[:, None]
    else:
        name = "eta"
        mean = (own + (c - 1.0) * mu_mean[:, None]) / tau
        var = (1.0 / q + (c - 1.0) ** 2 * mu_var[:, None]) / tau**2
    return Reference(
        {"mu": mu, "tau": tau_marginal, name: _normal_mixture(mean, var, weights, ("school",))},
        coords={"school": np.arange(1, y.size + 1)},
        note=f"quadrature in log tau ({points} nodes), mu and {name} as Normal mixtures",
    )


def regression_independent(y, X, *, s0, a, b, points=1201):
    """Reference of the regression with independent priors: ``sigma2`` by quadrature.

    With ``beta ~ Normal(0, s0^2 I)`` integrated out, ``y | sigma2 ~ Normal(0, sigma2 I +
    s0^2 X X')``, so ``log p(sigma2 | y) = log InverseGamma(sigma2; a, b) + log Normal(y;
    0, sigma2 I + s0^2 X X') + const``, on a grid in ``log sigma2`` (the log density via
    the Cholesky factor of the covariance). Given ``sigma2``, ``beta`` is Normal with
    precision ``X'X / sigma2 + I / s0^2``; its marginal is the mixture over the nodes.
    """
    y, X = np.asarray(y, dtype=float), np.asarray(X, dtype=float)
    least_squares = np.linalg.lstsq(X, y, rcond=None)[0]
    centre = np.log(np.sum((y - X @ least_squares) ** 2) / y.size)
    u = np.linspace(centre - 8.0, centre + 8.0, points)
    sigma2 = np.exp(u)
    gram = s0**2 * X @ X.T
    log_density = np.empty(points)
    for i, variance in enumerate(sigma2):
        factor = linalg.cho_factor(variance * np.eye(y.size) + gram, lower=True)
        log_det = 2 * np.log(np.diag(factor[0])).sum()
        quadratic = y @ linalg.cho_solve(factor, y)
        log_density[i] = -0.5 * (log_det + quadratic)
    # the InverseGamma(a, b) prior, and the Jacobian sigma2 of u = log sigma2
    log_density += -(a + 1) * u - b / sigma2 + u
    if log_density.max() - max(log_density[0], log_density[-1]) < 30:
        raise RuntimeError("the grid is too narrow: the density at its edge is not negligible")
    weights = _normalised(log_density, _trapezoid_weights(u))
    precision = X.T @ X / sigma2[:, None, None] + np.eye(X.shape[1]) / s0**2  # (node, 2, 2)
    covariance = np.array([_inverse(node) for node in precision])
    mean = np.einsum("nij,j,n->ni", covariance, X.T @ y, 1.0 / sigma2)
    var = np.diagonal(covariance, axis1=1, axis2=2)
    return Reference(
        {
            "beta": _normal_mixture(mean, var, weights, ("coefficient",)),
            "sigma2": _log_grid_marginal(u, log_density, weights),
        },
        coords=_coefficient_coords(X),
        note=f"quadrature in log sigma2 ({points} nodes), beta as Normal mixtures",
    )
