"""Marginals of finite mixtures of scipy distributions, element by element.

An exact posterior that is a mixture (over the labelings of
:mod:`zoo.models.labelings`, or over the quadrature nodes of the Beta-Binomial
hyperposterior) reports each variable's marginal as the weighted sum of its components'
CDFs, with moments by the law of total variance: one builder for all of them.
"""

from __future__ import annotations

import numpy as np
import scipy

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
        return np.sum(w * components.cdf(np.asarray(x, dtype=float)[:, np.newaxis]), axis=1)

    def pdf(x):
        return np.sum(w * components.pdf(np.asarray(x, dtype=float)[:, np.newaxis]), axis=1)

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
            table = TabulatedCDF(cdf, pdf, low, high, points=points, scale=scale)
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
            points=points,
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
