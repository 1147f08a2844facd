"""Adaptive trapezoidal quadrature over one or two outer scalars, with an error estimate.

Each outer scalar is moved to an unbounded axis ``z`` (:class:`Axis`: ``log x`` for a
positive variable, ``logit`` of its position for a bounded one, ``x`` itself on the
real line), where the posterior is smooth and decays at both ends. There the
trapezoidal rule on a uniform grid converges geometrically (Trefethen & Weideman,
"The exponentially convergent trapezoidal rule", SIAM Review 56, 2014): for a
Gaussian of sd ``s`` its relative error at step ``h`` is about ``2 exp(-2 pi^2 s^2 /
h^2)``, 5e-9 at ``h = s``. Two outer scalars use the tensor-product grid.

:func:`adaptive_grid`:

1. finds the mode ``c`` of the log density in ``z`` and its Laplace scale ``s``
   (finite-difference Hessian), and lays the nodes uniformly in ``u`` with
   ``z = c + s sinh(u)``: about one node per ``s`` near the mode, ever sparser in the
   tails, so that a slowly decaying tail (the pumps' ``log beta`` falls by less than
   one unit of log density per unit of ``z``) is reached with a few dozen nodes, and
   the map being smooth, the rule stays geometrically convergent (the rats reference
   of :mod:`zoo.models.beta_binomial.posterior` does the same);
2. lays a coarse grid (unit steps in ``u``) over a box that grows until the log
   density at its edges is :data:`EDGE_DROP` below the peak (the mass left out is
   below ``e^-EDGE_DROP`` times the number of edge nodes);
3. halves the step, starting at half a unit, until the estimated error is below
   ``tolerance``. The estimate is the change of every reported mean and sd (the outer
   variables' and the inner variables' mixtures, by the law of total variance) between
   the rule on all nodes and on every second node, in units of each posterior sd: the
   error of the coarser rule, an overestimate of the finer one's by the geometric rate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from zoo.core.numerics import central_hessian

__all__ = ["EDGE_DROP", "Axis", "Grid", "adaptive_grid"]

#: Log density below the peak at which the grid's box ends (e^-40 ~ 4e-18 per node).
EDGE_DROP = 40.0
#: Largest number of halvings of the step.
_MAX_LEVELS = 6
#: Largest half-width of the box in Laplace scales (a heavier tail is still covered
#: there to e^-EDGE_DROP, or the grid refuses).
_MAX_REACH = 1e4


@dataclass(frozen=True)
class Axis:
    """The unbounded coordinate ``z`` of one outer scalar.

    Attributes
    ----------
    name : str
    kind : {"log", "logit", "real"}
        ``z = log(x - lower)``, ``z = logit((x - lower) / (upper - lower))`` or ``z = x``.
    lower, upper : float
        The support's ends (``-inf`` / ``inf`` where open).
    """

    name: str
    kind: str
    lower: float = -np.inf
    upper: float = np.inf

    @classmethod
    def for_support(cls, name: str, lower: float, upper: float) -> Axis:
        """The axis that unbends a support ``[lower, upper]``."""
        if np.isfinite(lower) and np.isfinite(upper):
            return cls(name, "logit", float(lower), float(upper))
        if np.isfinite(lower):
            return cls(name, "log", float(lower), np.inf)
        if np.isfinite(upper):
            raise ValueError(f"{name}: a support bounded above only is not an axis here")
        return cls(name, "real")

    def value(self, z):
        """``x`` at ``z``."""
        z = np.asarray(z, dtype=float)
        if self.kind == "log":
            return self.lower + np.exp(z)
        if self.kind == "logit":
            return self.lower + (self.upper - self.lower) * special.expit(z)
        return z

    def to_z(self, x):
        """``z`` at ``x`` (``-inf``/``inf`` at the support's ends)."""
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.kind == "log":
                return np.log(x - self.lower)
            if self.kind == "logit":
                return special.logit((x - self.lower) / (self.upper - self.lower))
        return x

    def log_jacobian(self, z):
        """``log dx/dz``."""
        z = np.asarray(z, dtype=float)
        if self.kind == "log":
            return z
        if self.kind == "logit":
            return np.log(self.upper - self.lower) + special.log_expit(z) + special.log_expit(-z)
        return np.zeros_like(z)


@dataclass(frozen=True)
class Grid:
    """The final quadrature grid.

    Attributes
    ----------
    axes : tuple of Axis
    ticks : tuple of ndarray
        The ``u`` nodes of each axis, uniform with steps ``steps``.
    steps : tuple of float
    centers, scales : ndarray
        ``z = centers[k] + scales[k] sinh(u)`` on axis ``k``.
    log_density : ndarray
        Unnormalised log posterior density in ``u`` on the tensor grid (one axis per
        outer scalar).
    weights : ndarray
        Normalised quadrature weights, same shape.
    payload : object
        What ``evaluate`` returned for the evaluated nodes ``kept``.
    error : float
        Estimated error of every reported mean and sd, in posterior sds.
    kept : ndarray of int
        Flat (C order) indices of the evaluated nodes; the others are negligible and
        have weight 0.
    """

    axes: tuple
    ticks: tuple
    steps: tuple
    centers: np.ndarray
    scales: np.ndarray
    log_density: np.ndarray
    weights: np.ndarray
    payload: object
    error: float
    kept: np.ndarray

    def z(self, k: int, u):
        """``z`` on axis ``k`` at ``u``."""
        return self.centers[k] + self.scales[k] * np.sinh(u)

    def u(self, k: int, z):
        """``u`` on axis ``k`` at ``z``."""
        return np.arcsinh((np.asarray(z, dtype=float) - self.centers[k]) / self.scales[k])


def adaptive_grid(evaluate: Callable, axes: tuple[Axis, ...], *, tolerance: float = 1e-3) -> Grid:
    """Integrate over ``axes`` until every reported moment is within ``tolerance`` sds.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(z) -> (log_density, means, variances, payload)`` for nodes ``z`` of
        shape ``(n, d)``: the unnormalised log posterior density in ``z`` (Jacobian
        included), and for each of ``m`` reported quantities its conditional mean and
        variance at each node, shapes ``(n, m)``.
    axes : tuple of Axis
        One or two.
    tolerance : float
        Largest estimated error of a reported mean or sd, in posterior sds.

    Raises
    ------
    ValueError
        When the posterior does not decay within the reach of the box (improper), or
        the rule does not reach ``tolerance`` in :data:`_MAX_LEVELS` halvings.
    """
    d = len(axes)
    center, scale = _mode_and_scale(lambda z: evaluate(z)[0], d)
    # 2. the box, on a coarse grid
    reach = np.full((d, 2), 3.0)
    while True:
        ticks = [np.arange(-reach[k, 0], reach[k, 1] + 0.5, 1.0) for k in range(d)]
        log_density = _on_grid(evaluate, center, scale, ticks)[0]
        peak = np.max(log_density)
        grown = False
        for k in range(d):
            moved = np.moveaxis(log_density, k, 0)
            for side, row in ((0, moved[0]), (1, moved[-1])):
                if np.max(row) > peak - EDGE_DROP:
                    reach[k, side] += 1.0
                    grown = True
        if not grown:
            break
        if np.any(np.sinh(reach) > _MAX_REACH):
            names = ", ".join(a.name for a in axes)
            raise ValueError(
                f"{names}: the posterior does not decay to e^-{EDGE_DROP:g} of its peak "
                f"within {_MAX_REACH:g} Laplace scales of its mode; it may be improper"
            )
    keep = log_density > peak - EDGE_DROP
    box = []
    for k in range(d):
        other = tuple(i for i in range(d) if i != k)
        rows = np.flatnonzero(np.any(keep, axis=other) if other else keep)
        box.append((ticks[k][max(rows[0] - 1, 0)], ticks[k][min(rows[-1] + 1, len(ticks[k]) - 1)]))
    # 3. halving the step; only nodes next to a node of the coarser grid that carries
    # weight are evaluated (the others are set to zero: below e^-(EDGE_DROP + 10))
    starts = [int(np.searchsorted(ticks[k], box[k][0])) for k in range(d)]
    coarse = log_density[
        tuple(slice(starts[k], starts[k] + round(box[k][1] - box[k][0]) + 1) for k in range(d))
    ]
    step = 0.5
    for _ in range(_MAX_LEVELS):
        ticks = [np.arange(lo, hi + step / 2, step) for lo, hi in box]
        envelope = coarse
        for k in range(d):
            envelope = _refined(envelope, k)
        needed = envelope > np.max(coarse) - EDGE_DROP - 10.0
        log_density, means, variances, payload = _on_grid(evaluate, center, scale, ticks, needed)
        coarse = log_density
        weights = np.exp(log_density - np.max(log_density))
        weights /= weights.sum()
        error = _half_grid_error(weights, means, variances)
        if error <= tolerance:
            return Grid(
                tuple(axes),
                tuple(ticks),
                (step,) * d,
                center,
                scale,
                log_density,
                weights,
                payload,
                float(error),
                np.flatnonzero(needed),
            )
        step /= 2.0
    raise ValueError(
        f"{', '.join(a.name for a in axes)}: the quadrature's estimated error {error:.1e} sd "
        f"is above {tolerance:g} after {_MAX_LEVELS} halvings of its step"
    )


def _on_grid(evaluate, center, scale, ticks, needed=None):
    """``evaluate`` on the tensor grid of ``u`` ticks; the log density per unit of ``u``.

    Only the nodes ``needed`` (all by default) are evaluated; the others get a log
    density of ``-inf`` and zero moments, and ``payload`` covers the evaluated ones.
    """
    mesh = np.meshgrid(*ticks, indexing="ij")
    shape = mesh[0].shape
    u = np.stack([m.ravel() for m in mesh], axis=1)
    kept = np.arange(len(u)) if needed is None else np.flatnonzero(needed)
    z = center + scale * np.sinh(u[kept])
    found, found_means, found_variances, payload = evaluate(z)
    log_density = np.full(len(u), -np.inf)
    log_density[kept] = found + np.sum(np.log(scale) + np.log(np.cosh(u[kept])), axis=1)
    means = np.zeros((len(u), found_means.shape[1]))
    variances = np.zeros_like(means)
    means[kept], variances[kept] = found_means, found_variances
    log_density = np.where(np.isfinite(log_density), log_density, -np.inf).reshape(shape)
    return log_density, means, variances, payload


def _refined(values, k):
    """An envelope on the grid with half the step along axis ``k``.

    Each new node gets the larger of its two neighbours' values (for pruning).
    """
    moved = np.moveaxis(values, k, 0)
    fine = np.empty((2 * len(moved) - 1, *moved.shape[1:]))
    fine[0::2] = moved
    fine[1::2] = np.maximum(moved[:-1], moved[1:])
    return np.moveaxis(fine, 0, k)


def _moments(weights, means, variances):
    """Mixture mean and sd of each quantity, by the law of total variance."""
    w = weights.ravel()[:, None]
    mean = np.sum(w * means, axis=0)
    var = np.sum(w * (variances + (means - mean) ** 2), axis=0)
    return mean, np.sqrt(np.maximum(var, 0.0))


def _half_grid_error(weights, means, variances) -> float:
    """Largest change of a mean or sd between all nodes and every second one, in sds."""
    mean, sd = _moments(weights, means, variances)
    even = np.zeros(weights.shape, dtype=bool)
    even[tuple(slice(0, None, 2) for _ in range(weights.ndim))] = True
    half = np.where(even, weights, 0.0)
    half /= half.sum()
    mean2, sd2 = _moments(half, means, variances)
    with np.errstate(invalid="ignore", divide="ignore"):
        changes = np.concatenate([np.abs(mean2 - mean) / sd, np.abs(sd2 - sd) / sd])
    changes = changes[np.isfinite(changes)]
    return float(np.max(changes)) if changes.size else 0.0


def _mode_and_scale(log_density, d):
    """Mode of ``log_density`` in ``z`` and the Laplace scale of each axis."""

    def negative(point):
        value = log_density(np.asarray(point, dtype=float).reshape(1, d))[0]
        return 1e300 if not np.isfinite(value) else -float(value)

    best = None
    for start in (np.zeros(d), np.full(d, -2.0), np.full(d, 2.0)):
        found = optimize.minimize(
            negative, start, method="Nelder-Mead", options={"xatol": 1e-6, "fatol": 1e-9}
        )
        if best is None or found.fun < best.fun:
            best = found
    center = best.x
    hessian = central_hessian(negative, center)
    # The conditional sds 1 / sqrt(H_kk), not the marginal ones: with correlated outer
    # scalars (the pumps' log alpha and log beta) the posterior is narrower across the
    # diagonal than along each axis, and the grid must resolve that width.
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = 1.0 / np.sqrt(np.diag(hessian))
    if not np.all(np.isfinite(scale)) or np.any(scale <= 0):
        scale = np.ones(d)
    return center, scale
