"""Exact posterior references that the agreement diagnostics test draws against.

A reference describes, for each variable, its exact marginal posterior element by
element: mean and standard deviation (NaN where the moment does not exist), and, where
known, the CDF and the quantile function. Models build one with :class:`Marginal`
(from scipy.stats frozen distributions, or from their own mixtures) and wrap them in a
:class:`Reference`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "JointMoments",
    "Marginal",
    "NoReference",
    "Reference",
    "TabulatedCDF",
    "interior_quantile",
    "quantile_by_bisection",
]


@dataclass(frozen=True)
class Marginal:
    """Exact marginal posterior of one variable, element by element.

    Parameters
    ----------
    dims : tuple of str
        Names of the variable's own dimensions (no ``chain`` or ``draw``).
    mean, sd : ndarray
        Posterior mean and standard deviation with the variable's shape. NaN marks a
        moment that does not exist (for example the mean of a heavy-tailed marginal):
        no moment test is run for it.
    cdf : callable, optional
        ``cdf(x)`` with ``x`` of shape ``(n, *shape)`` returns the CDF of each element
        at each of its ``n`` points, same shape.
    ppf : callable, optional
        ``ppf(prob)`` for a scalar probability returns the quantile of every element.
    discrete : bool
        True when the marginal has atoms: Kolmogorov-Smirnov is then not run.
    kurtosis : ndarray, optional
        ``E[(x - mean)^4] / sd^4`` (3 for a normal). When given, the MCSE of the sd is
        computed under the null from it and the exact sd, so that only the ESS is
        estimated from the draws.
    """

    dims: tuple[str, ...]
    mean: np.ndarray
    sd: np.ndarray
    cdf: Callable[[np.ndarray], np.ndarray] | None = None
    ppf: Callable[[float], np.ndarray] | None = None
    discrete: bool = False
    kurtosis: np.ndarray | None = None

    @classmethod
    def from_scipy(cls, frozen, dims: tuple[str, ...] = (), *, discrete: bool = False):
        """Build a marginal from a scipy.stats frozen distribution with array parameters."""
        return cls(
            dims=tuple(dims),
            mean=np.asarray(frozen.mean(), dtype=float),
            sd=np.asarray(frozen.std(), dtype=float),
            cdf=frozen.cdf,
            ppf=(lambda prob: np.asarray(frozen.ppf(prob), dtype=float))
            if discrete
            else (lambda prob: interior_quantile(frozen, prob)),
            discrete=discrete,
            kurtosis=np.asarray(frozen.stats(moments="k"), dtype=float) + 3.0,
        )

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of one draw of the variable."""
        return np.shape(self.mean)


@dataclass(frozen=True)
class JointMoments:
    """The joint posterior mean and covariance of some variables, flattened together.

    For quantities that need cross-covariances (a contrast ``beta[1] - beta[0]``, a
    prediction ``X @ beta``): correlated coefficients have them, element-wise marginals
    do not.

    Parameters
    ----------
    layout : mapping of str to (int, tuple of int)
        Each variable's offset in the flattened vector and its shape (C order).
    mean : ndarray, shape (d,)
    covariance : ndarray, shape (d, d)
        NaN where a second moment does not exist (a Student t with 2 degrees of freedom
        or fewer).
    """

    layout: Mapping[str, tuple[int, tuple[int, ...]]]
    mean: np.ndarray
    covariance: np.ndarray

    def block(self, first: str, second: str) -> np.ndarray:
        """``Cov(first, second)`` with shape ``first.shape + second.shape``."""
        (i, shape_i), (j, shape_j) = self.layout[first], self.layout[second]
        size_i, size_j = int(np.prod(shape_i, dtype=int)), int(np.prod(shape_j, dtype=int))
        return self.covariance[i : i + size_i, j : j + size_j].reshape(*shape_i, *shape_j)


@dataclass(frozen=True)
class Reference:
    """The exact posterior of a model: one :class:`Marginal` per variable.

    Parameters
    ----------
    marginals : mapping of str to Marginal
        The variables with an exact marginal.
    coords : mapping of str to array-like
        Coordinate values of the dims the marginals use.
    note : str
        How the reference was obtained (closed form, quadrature, enumeration...).
    joint : JointMoments, optional
        The joint mean and covariance of correlated variables, when known (a
        linear-Gaussian posterior): the checks read the marginals, a quantity of
        several variables reads this.
    """

    marginals: Mapping[str, Marginal]
    coords: Mapping[str, np.ndarray] = field(default_factory=dict)
    note: str = ""
    joint: JointMoments | None = None

    available = True

    def __getitem__(self, name: str) -> Marginal:
        return self.marginals[name]

    def __iter__(self):
        return iter(self.marginals)

    def __len__(self) -> int:
        return len(self.marginals)


@dataclass(frozen=True)
class NoReference:
    """An explicit answer that no exact reference is feasible, and why."""

    reason: str
    available = False
    marginals: Mapping[str, Marginal] = field(default_factory=dict)
    coords: Mapping[str, np.ndarray] = field(default_factory=dict)


def interior_quantile(frozen, prob: float) -> np.ndarray:
    """Scipy's quantile of a continuous distribution, NaN where it is an end of the support.

    A continuous quantile at a probability inside (0, 1) is never an end of the
    support; scipy returns one when the quantile underflows (a Beta with a pseudo-count
    of 1e-3 and no successes has its 5% quantile far below the smallest double), and a
    tail test there would count every draw that underflowed as well. NaN: not
    resolvable in double precision, so no test is made at it.
    """
    value = np.asarray(frozen.ppf(prob), dtype=float)
    low, high = (np.asarray(end, dtype=float) for end in frozen.support())
    # Within one step of the smallest normal double (scipy clamps there) or of the top.
    with np.errstate(invalid="ignore"):
        at_low = np.isfinite(low) & (
            value <= low + np.finfo(float).tiny * np.maximum(1.0, np.abs(low))
        )
        at_high = np.isfinite(high) & (value >= high - np.finfo(float).epsneg * np.abs(high))
    return np.where(at_low | at_high, np.nan, value)


def quantile_by_bisection(
    cdf: Callable[[np.ndarray], np.ndarray],
    prob: float,
    lower: np.ndarray,
    upper: np.ndarray,
    *,
    tol: float = 1e-12,
    max_iter: int = 200,
    scale: str = "linear",
) -> np.ndarray:
    """Invert a monotone element-wise CDF by vectorised bisection.

    ``cdf`` follows the :class:`Marginal` convention (leading axis of points). The
    bracket ``[lower, upper]`` must contain the quantile of every element.

    ``scale`` is the coordinate bisected: ``"linear"``, ``"log"`` (a support on
    ``[0, inf)``) or ``"logit"`` (``[0, 1]``). In ``x`` itself the absolute tolerance
    stops at about ``tol``, so a Beta posterior with a pseudo-count of 0.05 had its 5%
    quantile put at 4.5e-13 where its CDF is 0.26 (the quantile is about 3e-27); in
    ``log x`` or ``logit x`` the tolerance is relative, down to the smallest normal
    double. A quantile that lies beyond that (the bisection ends at a clamped end of
    the bracket) is NaN: not resolvable in double precision, so no test is made at it.
    """
    to_z, from_z, _ = _SCALES[scale]
    tiny = np.finfo(float).tiny
    lower = np.array(lower, dtype=float, copy=True)
    upper = np.array(upper, dtype=float, copy=True)
    if scale in ("log", "logit"):
        lower = np.maximum(lower, tiny)
    if scale == "logit":
        upper = np.minimum(upper, 1.0 - np.finfo(float).epsneg)
    with np.errstate(divide="ignore"):
        z_lower, z_upper = to_z(lower), to_z(upper)
    start_lower, start_upper = z_lower.copy(), z_upper.copy()
    for _ in range(max_iter):
        middle = 0.5 * (z_lower + z_upper)
        below = cdf(from_z(middle)[np.newaxis])[0] < prob
        z_lower = np.where(below, middle, z_lower)
        z_upper = np.where(below, z_upper, middle)
        if np.all(z_upper - z_lower <= tol * np.maximum(1.0, np.abs(middle))):
            break
    quantile = from_z(0.5 * (z_lower + z_upper))
    if scale in ("log", "logit"):
        # Converged onto a clamped end: the quantile is beyond double precision there.
        at_end = (z_upper <= start_lower + tol * np.maximum(1.0, np.abs(start_lower))) | (
            (z_lower >= start_upper - tol * np.maximum(1.0, np.abs(start_upper)))
            & (scale == "logit")
        )
        quantile = np.where(at_end, np.nan, quantile)
    return quantile


_SCALES = {
    # name: (to z, from z, dx/dz as a function of x)
    "linear": (lambda x: x, lambda z: z, lambda x: np.ones_like(x)),
    "log": (np.log, np.exp, lambda x: x),
    "logit": (
        lambda x: np.log(x) - np.log1p(-x),
        lambda z: 1.0 / (1.0 + np.exp(-z)),
        lambda x: x * (1.0 - x),
    ),
}


class TabulatedCDF:
    """An element-wise CDF tabulated once and interpolated by cubic Hermite splines.

    For references whose CDF is expensive (mixtures over many components), the CDF and
    density of each element are evaluated on ``points`` nodes equally spaced in
    ``z = scale(x)`` between ``lower`` and ``upper`` (below and above which the CDF is
    taken as 0 and 1). The Hermite interpolant in ``z`` uses the exact density times
    ``dx/dz`` as slope, so its error is of order ``h^4``. A scale that unbends the
    support (``"logit"`` for (0, 1), ``"log"`` for (0, ∞)) keeps the CDF smooth in
    ``z`` even where the density has a power-law edge at the boundary.

    Parameters
    ----------
    cdf, pdf : callable
        Exact element-wise CDF and density (``(n, *shape)`` in, same shape out).
    lower, upper : ndarray
        Per-element range holding all but a negligible mass.
    points : int
        Nodes per element.
    scale : {"linear", "log", "logit"}
        Coordinate in which the nodes are equally spaced.
    table : (values, slopes), optional
        The CDF and its slope in ``z`` at the nodes, as a table built before from the
        same arguments holds them (``values`` and ``slopes``): ``cdf`` and ``pdf`` are
        then not evaluated (:mod:`zoo.core.disk_cache`).

    Attributes
    ----------
    exact : callable
        The exact CDF it was built from (for checking the interpolation).
    """

    def __init__(
        self, cdf, pdf, lower, upper, points: int = 129, scale: str = "linear", *, table=None
    ):
        if scale not in _SCALES:
            raise ValueError(f"scale: must be one of {sorted(_SCALES)}, got {scale!r}")
        self._to_z, from_z, dx_dz = _SCALES[scale]
        self.lower = np.asarray(self._to_z(np.asarray(lower, dtype=float)))
        self.upper = np.asarray(self._to_z(np.asarray(upper, dtype=float)))
        self.step = (self.upper - self.lower) / (points - 1)
        z = self.lower + self.step * np.arange(points).reshape((-1,) + (1,) * self.lower.ndim)
        if table is None:
            x = from_z(z)
            self.values = np.asarray(cdf(x), dtype=float)
            self.slopes = np.asarray(pdf(x), dtype=float) * dx_dz(x)
        else:
            self.values, self.slopes = (np.asarray(part, dtype=float) for part in table)
            if self.values.shape != z.shape or self.slopes.shape != z.shape:
                raise ValueError(f"table: expected values and slopes of shape {z.shape}")
        self.points = points
        self.exact = cdf

    def __call__(self, x) -> np.ndarray:
        """Evaluate the CDF element-wise; ``x`` has shape ``(n, *shape)``."""
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.asarray(self._to_z(np.asarray(x, dtype=float)))
        position = np.clip(np.nan_to_num((z - self.lower) / self.step), 0.0, self.points - 1.0)
        k = np.minimum(position.astype(int), self.points - 2)
        t = position - k
        element = np.indices(self.lower.shape)
        y0 = self.values[(k, *element)]
        y1 = self.values[(k + 1, *element)]
        d0 = self.slopes[(k, *element)] * self.step
        d1 = self.slopes[(k + 1, *element)] * self.step
        t2, t3 = t * t, t * t * t
        inside = (2 * t3 - 3 * t2 + 1) * y0 + (t3 - 2 * t2 + t) * d0
        inside += (-2 * t3 + 3 * t2) * y1 + (t3 - t2) * d1
        below, above = ~(z > self.lower), ~(z < self.upper)
        return np.clip(np.where(below, 0.0, np.where(above, 1.0, inside)), 0.0, 1.0)
