"""Marginals of finite mixtures of scipy distributions, element by element.

An exact posterior that is a mixture (over the labelings of
:mod:`zoo.models.labelings`, or over the quadrature nodes of the Beta-Binomial
hyperposterior) reports each variable's marginal as the weighted sum of its components'
CDFs, with moments by the law of total variance: one builder for all of them.
"""

from __future__ import annotations

import numpy as np
import scipy
from scipy import special

from zoo.core import reference
from zoo.core.disk_cache import cached_arrays
from zoo.core.reference import (
    Marginal,
    TabulatedCDF,
    interior_quantile,
    quantile_by_bisection,
)

__all__ = ["mixture_marginal"]

# Tail probability of the components that brackets every quantile of an unbounded mixture.
_BRACKET_TAIL = 1e-12
# Mixtures of at most this many (component x element) terms keep their exact CDF; larger
# ones get a table (KS evaluates the CDF at thousands of points).
_EXACT_CDF_TERMS = 8192
# Nodes of a tabulated CDF by scale, and the tail mass left out of the table at each
# end (below and above it the CDF is taken as 0 and 1, an error of at most that mass).
# Beta mixtures use a logit grid, which follows the power-law edges of Beta densities
# at 0 and 1: over the few dozen logit units between a Beta mixture's 1e-10 quantiles
# 257 nodes interpolate to about 1e-6 (the rat tumour posterior: 9e-7), far below KS
# resolution; a smaller tail mass would widen the grid and coarsen it. On a linear grid
# (t and inverse-gamma mixtures) 1025 nodes between the 1e-6 quantiles do as well.
_TABLES = {"logit": (257, 1e-10), "linear": (1025, 1e-6)}
# A normal mixture's table needs fewer nodes, by a bound rather than by measurement: the
# cubic Hermite interpolant with exact slopes errs by at most h^4 max|F''''| / 384 on a
# step h (Burden & Faires, "Numerical Analysis", section 3.4, Hermite interpolation), and
# for F = sum_c w_c Phi((x - m_c) / s_c), |F''''| <= max|phi'''| sum_c w_c / s_c^4, where
# max|phi'''| = |phi'''(sqrt(3 - sqrt 6))| ~ 0.5506. The nodes are the fewest (at most
# the linear table's) for which that bound is at most _NORMAL_TABLE_ERROR, a tenth of
# the table's tail mass: the tabulated CDF stays within 1.1e-6 of the exact one.
_NORMAL_TABLE_ERROR = 1e-7
_PHI_THIRD_MAX = 0.550587839500820
_NORMAL_TABLE_MIN_POINTS = 65


def mixture_marginal(
    dims,
    weights: np.ndarray,
    components,
    *,
    mean: np.ndarray | None = None,
    sd: np.ndarray | None = None,
    with_cdf: bool = True,
    scale: str = "linear",
) -> Marginal:
    """Marginal of a finite mixture of scipy distributions, element by element.

    Parameters
    ----------
    dims : tuple of str
    weights : ndarray, shape (C,) or (C, *shape)
        Mixture weights summing to 1: shared by every element, or one set per element
        (a component of weight 0 must still have valid parameters).
    components : scipy.stats frozen distribution
        With array parameters of shape (C, *shape): component ``c`` of each element.
    mean, sd : ndarray, optional
        Exact moments of the mixture when the caller has them from more components than
        it keeps for the CDF (every labeling, by the law of total variance). Default:
        computed from ``components``; NaN where a component's moment does not exist.
    with_cdf : bool
        False gives the moments only (too many components for a cheap CDF).
    scale : {"linear", "logit"}
        Grid of the tabulated CDF of a large mixture: ``"logit"`` for distributions on
        (0, 1) such as Betas, ``"linear"`` otherwise.

    Notes
    -----
    A single component keeps scipy's own CDF and quantiles. Otherwise the CDF is the
    weighted sum of the components' CDFs, exact for up to 8192 (component x element)
    terms and tabulated beyond (:class:`~zoo.core.reference.TabulatedCDF`, between the
    mixture's quantiles at the table's tail mass); quantiles are found by bisection on
    that CDF, bracketed by the support or, where it is unbounded, by the components'
    1e-12 quantiles.
    """
    if scale not in _TABLES:
        raise ValueError(f"scale: must be one of {sorted(_TABLES)}, got {scale!r}")
    dims = tuple(dims)
    weights = np.asarray(weights, dtype=float)
    if mean is None or sd is None:
        means = np.asarray(components.mean(), dtype=float)
        variances = np.asarray(components.var(), dtype=float)
        w = weights.reshape(weights.shape + (1,) * (means.ndim - weights.ndim))
        mixed = np.sum(w * means, axis=0)
        second = np.sum(w * (variances + means**2), axis=0)
        with np.errstate(invalid="ignore"):
            spread = np.sqrt(np.maximum(second - mixed**2, 0.0))
        sd = np.where(np.isfinite(second), spread, np.nan)
        mean = np.where(np.all(np.isfinite(means), axis=0), mixed, np.nan)
    if not with_cdf:
        return Marginal(dims, mean, sd)
    weights, components = _merged(weights, components)
    if weights.shape == (1,):
        return Marginal(
            dims,
            mean,
            sd,
            cdf=lambda x: components.cdf(np.asarray(x, dtype=float)[:, np.newaxis])[:, 0],
            ppf=lambda prob: interior_quantile(components, prob)[0],
        )
    w = weights.reshape(weights.shape + (1,) * (np.ndim(mean) + 1 - weights.ndim))

    def cdf(x):
        return _weighted(w, components, np.asarray(x, dtype=float), "cdf")

    def pdf(x):
        return _weighted(w, components, np.asarray(x, dtype=float), "pdf")

    lower, upper = _bracket(components)
    # Quantiles are bisected in log x or logit x where the support allows (relative
    # precision: a small pseudo-count puts the 5% quantile of a Beta near 1e-27).
    if np.all(lower >= 0.0) and np.all(upper <= 1.0):
        coordinate = "logit"
    elif np.all(lower >= 0.0):
        coordinate = "log"
    else:
        coordinate = "linear"
    elements = int(np.prod(np.shape(mean))) or 1
    if weights.shape[0] * elements <= _EXACT_CDF_TERMS:
        element_cdf = cdf
    else:
        points, tail = _TABLES[scale]
        normal = components.dist.name == "norm" and weights.ndim == 1 and scale == "linear"

        def tabulate() -> dict[str, np.ndarray]:
            low = quantile_by_bisection(cdf, tail, lower, upper, tol=1e-14, scale=coordinate)
            high = quantile_by_bisection(
                cdf, 1.0 - tail, lower, upper, tol=1e-14, scale=coordinate
            )
            # Beyond double precision (NaN): the table starts at the bracket's end.
            low = np.where(np.isnan(low), lower, low)
            high = np.where(np.isnan(high), upper, high)
            if scale == "logit":
                # The logit of 0 or 1 is infinite: keep the table's ends inside (0, 1).
                low = np.maximum(low, np.finfo(float).tiny)
                high = np.minimum(high, 1.0 - 1e-16)
            nodes = points
            if normal:
                nodes = _normal_table_points(weights, components, high - low, points)
            table = TabulatedCDF(cdf, pdf, low, high, points=nodes, scale=scale)
            return {"low": low, "high": high, "values": table.values, "slopes": table.slopes}

        # The seconds of a large reference are here (an incomplete beta function per
        # component, element and node): kept on disk, keyed by the mixture itself.
        kept = cached_arrays(
            "mixture-cdf",
            (__file__, reference.__file__),
            (
                scipy.__version__,
                scale,
                weights,
                components.dist.name,
                tuple(np.asarray(arg, dtype=float) for arg in components.args),
                tuple(
                    (key, np.asarray(value, dtype=float))
                    for key, value in sorted(components.kwds.items())
                ),
            ),
            tabulate,
        )
        element_cdf = TabulatedCDF(
            cdf,
            pdf,
            kept["low"],
            kept["high"],
            points=kept["values"].shape[0],
            scale=scale,
            table=(kept["values"], kept["slopes"]),
        )
    return Marginal(
        dims,
        mean,
        sd,
        cdf=element_cdf,
        ppf=lambda prob: quantile_by_bisection(element_cdf, prob, lower, upper, scale=coordinate),
    )


def _normal_table_points(weights, components, width, most: int) -> int:
    """Nodes of a normal mixture's CDF table whose Hermite error bound meets the target.

    ``width`` is each element's tabulated range; the bound (the module's constants) is
    taken at the element that needs the most nodes. Never more than ``most`` (the
    general table's), never fewer than :data:`_NORMAL_TABLE_MIN_POINTS`.
    """
    scale = np.broadcast_to(np.asarray(components.std(), dtype=float), np.shape(components.mean()))
    w = weights.reshape(weights.shape + (1,) * (scale.ndim - 1))
    fourth = _PHI_THIRD_MAX * np.sum(w / scale**4, axis=0)
    # the step h at which h^4 max|F^(4)| / 384 meets the target
    step = (384.0 * _NORMAL_TABLE_ERROR / np.maximum(fourth, np.finfo(float).tiny)) ** 0.25
    needed = np.max(np.ceil(np.asarray(width, dtype=float) / step)) + 1
    if not np.isfinite(needed):
        return most
    return int(min(most, max(_NORMAL_TABLE_MIN_POINTS, needed)))


def _bracket(components) -> tuple[np.ndarray, np.ndarray]:
    """Per element, an interval holding every quantile of the mixture that matters.

    The support where it is finite (a Beta's [0, 1]: no quantile function needed, which
    is slow in the far tails), else the extreme components' 1e-12 quantiles. nanmin and
    nanmax: scipy's quantile can fail (NaN) for extreme parameters of one component; the
    others still bracket the mixture.
    """
    low, high = (np.asarray(end, dtype=float) for end in components.support())
    if np.all(np.isfinite(low)):
        lower = np.min(low, axis=0)
    else:
        lower = np.nanmin(components.ppf(_BRACKET_TAIL), axis=0)
    if np.all(np.isfinite(high)):
        upper = np.max(high, axis=0)
    else:
        upper = np.nanmax(components.ppf(1.0 - _BRACKET_TAIL), axis=0)
    return lower, upper


#: Decimals of the binary mantissa (in [0.5, 1)) to which two components' parameters
#: must agree to be merged.
_MERGE_DIGITS = 12
#: Component x element x point terms evaluated at once (bounds the memory of a CDF).
_BLOCK_TERMS = 1 << 21


def _merged(weights, components):
    """The mixture with equal components merged, their weights added.

    An enumeration repeats components: a mixture's weight given its labels depends on
    the counts only (17 distinct Betas over 2^16 labelings of 16 points), a mean on the
    counts and the sum of the data it owns. Components whose parameters agree to
    :data:`_MERGE_DIGITS` decimals of their binary mantissas (equal but for the order
    of a sum's rounding) are one, with the first one's parameters: the CDF moves by less than that
    relative precision. Weights per element (not shared) are left as they are.
    """
    if weights.ndim != 1 or weights.shape[0] < 2:
        return weights, components
    count = weights.shape[0]
    args = [np.asarray(a, dtype=float) for a in components.args]
    kwds = {k: np.asarray(v, dtype=float) for k, v in components.kwds.items()}
    shape = np.broadcast_shapes(*(a.shape for a in (*args, *kwds.values())))
    if not shape or shape[0] != count:
        return weights, components
    columns = np.concatenate(
        [np.broadcast_to(a, shape).reshape(count, -1) for a in (*args, *kwds.values())], axis=1
    )
    mantissa, exponent = np.frexp(columns)
    key = np.concatenate([np.round(mantissa, _MERGE_DIGITS), exponent], axis=1)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    if first.size == count:
        return weights, components
    merged = np.bincount(inverse.ravel(), weights=weights, minlength=first.size)
    rebuilt = components.dist(
        *[np.broadcast_to(a, shape)[first] for a in args],
        **{k: np.broadcast_to(v, shape)[first] for k, v in kwds.items()},
    )
    return merged, rebuilt


def _weighted(w, components, x, what):
    """``sum_c w_c F_c(x)`` per element (``F`` the components' cdf or pdf), in blocks.

    Normal components with shared weights through ``scipy.special`` directly, laid out
    ``(point, element, component)`` so that the weighted sum is one matrix product
    (scipy.stats' argument checks and a strided sum cost more than the function itself
    on 2^16 components); others through scipy.stats.
    """
    args = [np.asarray(a, dtype=float) for a in components.args]
    kwds = {k: np.asarray(v, dtype=float) for k, v in components.kwds.items()}
    shape = np.broadcast_shapes(*(a.shape for a in (*args, *kwds.values())))
    shared = w.ndim >= 1 and all(size == 1 for size in w.shape[1:])
    normal = components.dist.name == "norm" and shared and len(shape) >= 1
    if normal:
        loc = args[0] if args else kwds.get("loc", np.zeros(()))
        scale = args[1] if len(args) > 1 else kwds.get("scale", np.ones(()))
        # (element..., component): the component axis last and contiguous
        loc = np.ascontiguousarray(np.moveaxis(np.broadcast_to(loc, shape), 0, -1))
        scale = np.ascontiguousarray(np.moveaxis(np.broadcast_to(scale, shape), 0, -1))
        weights = w.reshape(-1)
    terms = max(int(np.prod(shape, dtype=int)), 1)
    step = max(1, _BLOCK_TERMS // terms)
    x = np.asarray(x, dtype=float)
    parts = []
    for start in range(0, x.shape[0], step):
        block = x[start : start + step]
        if normal:
            u = block[..., np.newaxis] - loc
            u /= scale
            if what == "cdf":
                special.ndtr(u, out=u)
            else:
                np.square(u, out=u)
                u *= -0.5
                np.exp(u, out=u)
                u /= _SQRT_2PI * scale
            parts.append(u @ weights)
        elif what == "pdf":
            # Through the log density: scipy's beta pdf raises OverflowError (Boost's
            # policy) near x = 0 for a small a and a large b, where the density itself
            # is finite (Beta(0.11, 6700) at the smallest float: exp(630)).
            values = np.exp(components.logpdf(block[:, np.newaxis]))
            parts.append(np.sum(w * values, axis=1))
        else:
            values = getattr(components, what)(block[:, np.newaxis])
            parts.append(np.sum(w * values, axis=1))
    return np.concatenate(parts) if parts else np.zeros((0, *shape[1:]))


_SQRT_2PI = float(np.sqrt(2.0 * np.pi))
