"""The Gaussian classifiers' hyperparameters and their data-scaled defaults.

Every member draws ``pi ~ Dirichlet(alpha)`` and gives each class mean the prior
``mu_k | Sigma ~ N(m0, Sigma / kappa0)`` under a covariance with an inverse-Wishart (or,
diagonal, inverse-gamma) prior of ``nu0`` degrees of freedom and scale ``psi0``, with
the inverse-Wishart parametrised as in Murphy (2007, "Conjugate Bayesian analysis of
the Gaussian distribution", section 7) and Gelman et al. (BDA3, section 3.6):
``E[Sigma] = Psi0 / (nu0 - d - 1)``, proper for ``nu0 > d - 1``.

:class:`Prior` is the shared covariance's (``gda``) and the base of the per-class
members' (:class:`~zoo.models.gaussian_classifiers.quadratic.spec.PerClassPrior`,
:class:`~zoo.models.gaussian_classifiers.diagonal.spec.DiagonalPrior`), which change
only the shape of ``psi0``, the rule and default of ``nu0``, and what a data-derived
``psi0`` needs (the hooks below).

Default hyperparameters are derived from the data scale, following Fraley & Raftery
(2007, "Bayesian regularization for normal mixture estimation and model-based
clustering", J. Classification 24): ``m0`` the mean of all features, ``kappa0 = 0.01``
(the prior on each class mean is worth one hundredth of an observation), ``nu0 = d + 2``
(the smallest integer with a finite prior mean of Sigma) and
``Psi0 = diag(var(x)) / K^(2/d)``, the feature variances shrunk by the volume a class
takes up when K classes share the space; ``alpha = 1`` (uniform on the simplex).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from zoo.core.arguments import as_finite_array, as_positive_array, as_positive_scalar
from zoo.models.arrays import read_only
from zoo.models.gaussian_classifiers.data import Data
from zoo.models.memo import LastResolved

__all__ = [
    "DEFAULT_KAPPA0",
    "Hyperparameters",
    "Prior",
    "check_class_sizes",
    "class_concentrations",
    "default_scales",
    "no_scale",
    "prior_mean",
]

# Fraley & Raftery (2007), section 3: the prior on each class mean is worth 1/100 of a
# point, weak enough to leave the class means to the data.
DEFAULT_KAPPA0 = 0.01


class Hyperparameters(NamedTuple):
    """Hyperparameters with every default resolved against one data set.

    Attributes
    ----------
    alpha : ndarray, shape (K,)
    m0 : ndarray, shape (d,)
    kappa0 : float
    nu0 : float
    psi0 : ndarray, shape (d, d), or (d,) for the diagonal structure
    psi0_chol : ndarray, shape (d, d), or (d,)
        Lower Cholesky factor of ``psi0`` (the square roots of the scales, diagonal).
    """

    alpha: np.ndarray
    m0: np.ndarray
    kappa0: float
    nu0: float
    psi0: np.ndarray
    psi0_chol: np.ndarray


def _spd(field: str, value) -> tuple[np.ndarray, np.ndarray]:
    matrix = as_finite_array(field, value, ndim=2)
    if matrix.shape[0] != matrix.shape[1] or matrix.shape[0] == 0:
        raise ValueError(f"{field}: must be a non-empty square matrix, got shape {matrix.shape}")
    scale = max(1.0, float(np.max(np.abs(matrix))))
    if not np.allclose(matrix, matrix.T, rtol=0.0, atol=1e-12 * scale):
        raise ValueError(f"{field}: must be symmetric")
    matrix = 0.5 * (matrix + matrix.T)
    try:
        chol = np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError as err:
        raise ValueError(f"{field}: must be positive definite") from err
    if not np.all(np.diag(chol) > 0):
        raise ValueError(f"{field}: must be positive definite")
    return matrix, chol


def class_concentrations(alpha: np.ndarray, n_classes: int) -> np.ndarray:
    """``alpha`` as one Dirichlet concentration per class (a scalar is repeated), a copy."""
    if alpha.ndim == 0:
        return np.full(n_classes, float(alpha))
    if alpha.shape != (n_classes,):
        raise ValueError(
            f"alpha: expected {n_classes} concentrations (one per class), got {alpha.shape[0]}"
        )
    return alpha.copy()


def prior_mean(m0: np.ndarray | None, data: Data) -> np.ndarray:
    """``m0`` checked against the data's features, or by default the mean of every point."""
    d = data.x.shape[1]
    if m0 is None:
        return data.x.mean(axis=0)
    if m0.shape != (d,):
        raise ValueError(f"m0: expected {d} entries (one per feature), got {m0.shape[0]}")
    return m0.copy()


def default_scales(data: Data) -> np.ndarray:
    """The data-scaled prior scale of each feature, ``var(x_j) / K^(2/d)`` (Fraley & Raftery).

    The feature variances (``ddof=1``, over every point) shrunk by the volume one class
    takes up when K classes share the d-dimensional space: the diagonal of the default
    ``psi0`` of every covariance structure.

    Raises
    ------
    ValueError
        Naming ``psi0``, when there are no more points than features or a feature is
        constant (no scale to derive); naming ``x``, when its values are so large that
        their variance overflows, or differ so little that it underflows to 0.
    """
    n_points, d = data.x.shape
    if n_points <= d:
        raise ValueError(
            f"psi0: cannot be derived from {n_points} points in {d} dimensions "
            "(d >= N and no prior scale to regularise): pass psi0"
        )
    with np.errstate(over="ignore", invalid="ignore"):
        variances = data.x.var(axis=0, ddof=1)
    if not np.all(np.isfinite(variances)):
        raise ValueError(
            f"x: values up to {np.max(np.abs(data.x)):.3g} make the data-scaled prior scale "
            "psi0 overflow; rescale x, or pass psi0"
        )
    if not np.all(variances > 0):
        raise ValueError(no_scale(data.x, int(np.argmin(variances)), "x"))
    return variances / data.n_classes ** (2.0 / d)


def no_scale(x: np.ndarray, j: int, field: str) -> str:
    """Why feature ``j`` of ``x`` (the rows that count) gives the default ``psi0`` no scale.

    A constant feature has none; one whose values differ by amounts too small to square
    (a spread near 1e-160 or less) has a variance that underflows to 0: then the message
    names the user's input, ``field``, and its spread, not a parameter never passed.
    """
    column = x[:, j]
    spread = float(np.max(column) - np.min(column)) if column.size else 0.0
    if spread > 0:
        return (
            f"{field}: the values of feature {j} differ by at most {spread:.3g}, too little "
            "for the data-scaled prior scale psi0 (their variance underflows to 0); "
            f"rescale {field}, or pass psi0"
        )
    return f"psi0: cannot be derived from the data, feature {j} is constant: pass psi0"


def check_class_sizes(data: Data, needed: int, why: str) -> None:
    """Refuse a data-derived ``psi0`` when a class has fewer than ``needed`` labelled points.

    For the per-class structures, whose covariance of a class is informed by that class
    only; ``why`` says what the points are for. Raises ValueError naming ``labels``.
    """
    counts = np.bincount(data.labels[data.labelled], minlength=data.n_classes)
    small = np.flatnonzero(counts < needed)
    if small.size:
        k = int(small[0])
        raise ValueError(
            f"labels: class {data.classes[k]!r} has {counts[k]} labelled points; {why} "
            f"needs at least {needed} to derive psi0 from the data: pass psi0, or use "
            "gda (one covariance shared by the classes)"
        )


@dataclass(frozen=True)
class Prior:
    """Hyperparameters of Bayesian GDA; ``None`` means "derived from the data".

    Parameters
    ----------
    alpha : float or array-like, shape (K,)
        Dirichlet concentration of the class proportions ``pi``; one number is used for
        every class. Default 1.
    m0 : array-like, shape (d,), optional
        Prior mean of every class mean. Default: the mean of all features.
    kappa0 : float
        Prior pseudo-observations on each class mean (``mu_k | Sigma ~ N(m0, Sigma /
        kappa0)``). Default 0.01.
    nu0 : float, optional
        Inverse-Wishart degrees of freedom, ``> d - 1``. Default ``d + 2``.
    psi0 : array-like, shape (d, d), optional
        Inverse-Wishart scale matrix, symmetric positive definite. Default
        ``diag(var(x)) / K^(2/d)`` (needs more points than features).

    Notes
    -----
    The defaults follow Fraley & Raftery (2007); see the module docstring. Use
    :meth:`resolve` to get the numbers used for a given data set.
    """

    alpha: float | np.ndarray = 1.0
    m0: np.ndarray | None = None
    kappa0: float = DEFAULT_KAPPA0
    nu0: float | None = None
    psi0: np.ndarray | None = None

    def __post_init__(self):
        alpha = as_positive_array("alpha", self.alpha)
        if alpha.ndim > 1:
            raise ValueError(f"alpha: expected a number or a vector, got shape {alpha.shape}")
        object.__setattr__(self, "alpha", read_only(alpha))
        object.__setattr__(self, "kappa0", as_positive_scalar("kappa0", self.kappa0))
        dims = []
        if self.m0 is not None:
            m0 = as_finite_array("m0", self.m0, ndim=1)
            object.__setattr__(self, "m0", read_only(m0))
            dims.append(("m0", m0.shape[0]))
        if self.psi0 is not None:
            psi0 = self._checked_scale(self.psi0)
            object.__setattr__(self, "psi0", read_only(psi0))
            dims.append(("psi0", psi0.shape[0]))
        if len({d for _, d in dims}) > 1:
            raise ValueError(f"m0, psi0: dimensions disagree ({dims[0][1]} and {dims[1][1]})")
        if self.nu0 is not None:
            if isinstance(self.nu0, bool) or not isinstance(self.nu0, numbers.Real):
                raise ValueError(f"nu0: expected a number, got {self.nu0!r}")
            nu0 = float(self.nu0)
            if not np.isfinite(nu0):
                raise ValueError(f"nu0: must be finite, got {nu0}")
            if dims:
                self.check_nu0(nu0, dims[0][1])
            if nu0 <= 0:
                raise ValueError(f"nu0: must be > 0, got {nu0:g}")
            object.__setattr__(self, "nu0", nu0)

    # The methods below are what the per-class priors change: the rule and default of
    # nu0, the shape of psi0 and what a data-derived psi0 needs.

    def check_nu0(self, nu0: float, d: int) -> None:
        """Raise ValueError naming ``nu0`` unless it gives a proper prior in ``d`` dimensions."""
        if nu0 <= d - 1:
            raise ValueError(
                f"nu0: must be > d - 1 = {d - 1} for a proper inverse-Wishart, got {nu0:g}"
            )

    def default_nu0(self, d: int) -> float:
        """``nu0`` when not given: ``d + 2``, the smallest integer with a finite E[Sigma]."""
        return float(d + 2)

    def simulation_hyperparameters(self, d: int) -> tuple[float, np.ndarray]:
        """``nu0`` and ``psi0`` to simulate ``d`` features from (the identity where not given).

        There are no data to derive ``psi0`` from when simulating: unit scales stand in.
        """
        psi0 = self._unit_scale(d) if self.psi0 is None else self.psi0
        if psi0.shape[0] != d:
            raise ValueError(f"features: the prior is for {psi0.shape[0]} features, asked for {d}")
        nu0 = self.default_nu0(d) if self.nu0 is None else self.nu0
        self.check_nu0(nu0, d)
        return nu0, psi0

    def _unit_scale(self, d: int) -> np.ndarray:
        return np.eye(d)

    def _checked_scale(self, value) -> np.ndarray:
        """``psi0`` as given, checked: a symmetric positive definite matrix."""
        return _spd("psi0", value)[0]

    def _scale(self, data: Data) -> np.ndarray:
        """``psi0`` for ``data``: the given one checked against d, or the default."""
        d = data.x.shape[1]
        if self.psi0 is None:
            scales = default_scales(data)
            self._check_derivable(data)
            return np.diag(scales)
        if self.psi0.shape != (d, d):
            raise ValueError(f"psi0: expected shape ({d}, {d}), got {self.psi0.shape}")
        return self.psi0.copy()

    def _check_derivable(self, data: Data) -> None:
        """Further conditions on the data for a data-derived ``psi0`` (none when shared)."""

    def resolve(self, data: Data) -> Hyperparameters:
        """Return the hyperparameters for ``data``, defaults filled in and checked.

        The last result is remembered (:class:`~zoo.models.memo.LastResolved`): the
        Gibbs kernels resolve on every sweep.

        Raises
        ------
        ValueError
            If a hyperparameter does not fit the data's number of classes or features,
            ``nu0`` is out of range, or ``psi0`` must be derived but the data cannot give
            it (no more points than features, a constant feature; with per-class
            covariances also too few labelled points in a class, or collinear features).
        """
        return _LAST_RESOLVED(self, data, self._resolve)

    def _resolve(self, data: Data) -> Hyperparameters:
        if not isinstance(data, Data):
            raise ValueError(
                f"data: expected gaussian_classifiers.Data, got {type(data).__name__}"
            )
        d = data.x.shape[1]
        alpha = class_concentrations(self.alpha, data.n_classes)
        m0 = prior_mean(self.m0, data)
        nu0 = self.default_nu0(d) if self.nu0 is None else self.nu0
        self.check_nu0(nu0, d)
        psi0 = self._scale(data)
        # The scale's square root: a Cholesky factor (a matrix), or elementwise (scales).
        psi0_chol = np.linalg.cholesky(psi0) if psi0.ndim == 2 else np.sqrt(psi0)
        return Hyperparameters(
            alpha=read_only(alpha),
            m0=read_only(m0),
            kappa0=self.kappa0,
            nu0=nu0,
            psi0=read_only(psi0),
            psi0_chol=read_only(psi0_chol),
        )


_LAST_RESOLVED = LastResolved()
