"""Bayesian Gaussian discriminant analysis: hyperparameters, data and simulation.

The model (linear discriminant analysis with one covariance shared by all classes):

``pi ~ Dirichlet(alpha)``, ``y_i ~ Categorical(pi)``,
``Sigma ~ InvWishart(nu0, Psi0)``, ``mu_k | Sigma ~ N(m0, Sigma / kappa0)``,
``x_i | y_i = k ~ N(mu_k, Sigma)``,

with the inverse-Wishart parametrised as in Murphy (2007, "Conjugate Bayesian analysis
of the Gaussian distribution", section 7) and Gelman et al. (BDA3, section 3.6):
``E[Sigma] = Psi0 / (nu0 - d - 1)``, proper for ``nu0 > d - 1``.

Labels may be missing: the marker is ``-1`` (:data:`zoo.models.labelings.MISSING`, the
scikit-learn convention for unlabelled points in semi-supervised learning), as in Naive
Bayes.

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

from zoo.core.arguments import (
    as_finite_array,
    as_int,
    as_positive_array,
    as_positive_scalar,
    check_generator,
)
from zoo.models.arrays import read_only
from zoo.models.gda.conditional import class_probability
from zoo.models.gda.linalg import draw_inverse_wishart
from zoo.models.labelings import MISSING, LabelledData, as_labels, check_label_range
from zoo.models.memo import LastResolved
from zoo.models.simplex import dirichlet

__all__ = [
    "Data",
    "Hyperparameters",
    "Prior",
    "SimulationDesign",
    "class_concentrations",
    "default_scales",
    "prior_mean",
    "simulate",
    "simulation_design",
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
        constant (no scale to derive).
    """
    n_points, d = data.x.shape
    if n_points <= d:
        raise ValueError(
            f"psi0: cannot be derived from {n_points} points in {d} dimensions "
            "(d >= N and no prior scale to regularise): pass psi0"
        )
    variances = data.x.var(axis=0, ddof=1)
    if not np.all(variances > 0):
        j = int(np.argmin(variances))
        raise ValueError(
            f"psi0: cannot be derived from the data, feature {j} is constant: pass psi0"
        )
    return variances / data.n_classes ** (2.0 / d)


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
                self._check_nu0(nu0, dims[0][1])
            if nu0 <= 0:
                raise ValueError(f"nu0: must be > 0, got {nu0:g}")
            object.__setattr__(self, "nu0", nu0)

    # The hooks below are what the diagonal structure's prior changes
    # (zoo.models.gda.per_class_spec.DiagonalPrior): the shape of psi0 and the rule of nu0.

    def _checked_scale(self, value) -> np.ndarray:
        """``psi0`` as given, checked: a symmetric positive definite matrix."""
        return _spd("psi0", value)[0]

    def _check_nu0(self, nu0: float, d: int) -> None:
        if nu0 <= d - 1:
            raise ValueError(
                f"nu0: must be > d - 1 = {d - 1} for a proper inverse-Wishart, got {nu0:g}"
            )

    def _default_nu0(self, d: int) -> float:
        return float(d + 2)

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
            raise ValueError(f"data: expected gda.Data, got {type(data).__name__}")
        d = data.x.shape[1]
        alpha = class_concentrations(self.alpha, data.n_classes)
        m0 = prior_mean(self.m0, data)
        nu0 = self._default_nu0(d) if self.nu0 is None else self.nu0
        self._check_nu0(nu0, d)
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


@dataclass(frozen=True, init=False)
class Data(LabelledData):
    """Points with class labels, some possibly missing.

    Parameters
    ----------
    x : array-like, shape (N, d)
        Features; finite. A 1-D array is read as ``d = 1``.
    labels : array-like of int, shape (N,)
        Class index in ``0 .. K-1``, or ``-1`` (:data:`MISSING`) for an unlabelled point.
    classes : array-like, shape (K,), optional
        Class names (coordinate ``class``); their number fixes ``K``. Default
        ``0 .. max(labels)``.
    features : array-like, shape (d,), optional
        Feature names (coordinates ``feature`` and ``feature_bis``).

    Notes
    -----
    Arrays are copied and made read-only: nothing the caller passed is modified.
    """

    x: np.ndarray
    labels: np.ndarray
    classes: np.ndarray
    features: np.ndarray

    def __init__(self, x, labels, *, classes=None, features=None):
        x = as_finite_array("x", x)
        if x.ndim == 1:
            x = x[:, np.newaxis]
        if x.ndim != 2:
            raise ValueError(f"x: expected shape (N, d), got {x.shape}")
        if x.shape[0] == 0 or x.shape[1] == 0:
            raise ValueError(f"x: need at least one point and one feature, got shape {x.shape}")
        labels = as_labels(labels, x.shape[0], item="row of x")
        if classes is None:
            if labels.max() < 1:
                raise ValueError("labels: need labels of at least two classes, or pass classes")
            classes = np.arange(labels.max() + 1)
        else:
            classes = np.array(classes, copy=True)
            if classes.ndim != 1:
                raise ValueError(
                    f"classes: expected a 1-D array of names, got shape {classes.shape}"
                )
            if len(np.unique(classes)) != classes.shape[0]:
                raise ValueError("classes: names must be unique")
        n_classes = classes.shape[0]
        if n_classes < 2:
            raise ValueError(f"classes: need K >= 2 classes, got {n_classes}")
        check_label_range(labels, n_classes)
        d = x.shape[1]
        features = np.arange(d) if features is None else np.array(features, copy=True)
        if features.shape != (d,):
            raise ValueError(f"features: expected {d} names, got shape {features.shape}")
        if len(np.unique(features)) != d:
            raise ValueError("features: names must be unique")
        object.__setattr__(self, "x", read_only(x))
        object.__setattr__(self, "labels", read_only(labels))
        object.__setattr__(self, "classes", read_only(classes))
        object.__setattr__(self, "features", read_only(features))

    @property
    def coords(self) -> dict[str, np.ndarray]:
        """Coordinates of the model's dims."""
        return {
            "class": self.classes,
            "feature": self.features,
            "feature_bis": self.features,
            "unlabelled": self.unlabelled,
            "labelled": self.labelled,
            "point": np.arange(self.x.shape[0]),
        }

    @property
    def observed_data(self) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
        """Observed variables with their dims, as the PyMC program names them.

        The labelled points and their labels, and the unlabelled points (their labels
        summed out); a part with no point is left out (PyMC cannot observe an empty
        array).
        """
        observed = {}
        labelled, unlabelled = self.labelled, self.unlabelled
        if labelled.size:
            observed["labels"] = (self.labels[labelled], ("labelled",))
            observed["x_labelled"] = (self.x[labelled], ("labelled", "feature"))
        if unlabelled.size:
            observed["x_unlabelled"] = (self.x[unlabelled], ("unlabelled", "feature"))
        return observed

    @property
    def constant_data(self) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
        """Fixed inputs with their dims (none: every point is observed data)."""
        return {}


def simulate(prior: Prior, rng: np.random.Generator, **size):
    """Draw ``(truth, data)`` from the prior predictive distribution.

    Parameters
    ----------
    prior : Prior
        ``m0`` and ``psi0`` default to ``0`` and the identity here (there are no data
        to derive them from).
    rng : numpy.random.Generator
    **size
        ``points``, ``classes``, ``features`` (N, K and d; default 50, 2 and 2),
        ``unlabelled`` and ``hidden`` (below), checked by :func:`simulation_design`.

    Notes
    -----
    ``unlabelled`` (float, default 0): each label is hidden (marked ``-1``) with this
    probability. ``hidden`` (int, optional): instead, hide exactly the last ``hidden``
    labels, so that every data set has the same design (Geweke's test compares
    fixed-shape test functions).

    Returns
    -------
    truth : dict of str to ndarray
        ``pi``, ``mu``, ``Sigma`` and ``class_probability`` (of the hidden points, under
        the true parameters): the posterior variables, under the names both engines use.
    data : Data
    """
    design = simulation_design(prior, rng, **size)
    d = design.features
    psi0 = np.eye(d) if prior.psi0 is None else prior.psi0
    if psi0.shape != (d, d):
        raise ValueError(f"features: the prior is for {psi0.shape[0]} features, asked for {d}")
    nu0 = float(d + 2) if prior.nu0 is None else prior.nu0
    if nu0 <= d - 1:
        raise ValueError(f"nu0: must be > d - 1 = {d - 1}, got {nu0:g}")
    sigma = draw_inverse_wishart(nu0, np.linalg.cholesky(psi0), rng)
    sigma_chol = np.linalg.cholesky(sigma)
    mu = design.m0 + rng.standard_normal((design.classes, d)) @ sigma_chol.T / np.sqrt(
        prior.kappa0
    )
    y = design.labels(rng)
    x = mu[y] + rng.standard_normal((design.points, d)) @ sigma_chol.T
    hide = design.hide(rng)
    truth = {
        "pi": design.pi,
        "mu": mu,
        "Sigma": sigma,
        "class_probability": class_probability(x[hide], design.pi, mu, sigma),
    }
    return truth, design.data(x, y, hide)


class SimulationDesign(NamedTuple):
    """What every covariance structure's ``simulate`` checks and draws the same way.

    The random draws come in the order ``pi`` (on construction), the structure's
    parameters, :meth:`labels`, the features, :meth:`hide`.

    Attributes
    ----------
    points, classes, features : int
        N, K and d, checked.
    m0 : ndarray, shape (d,)
        The prior's ``m0``, or 0 when it is derived from data.
    pi : ndarray, shape (K,)
        Class proportions drawn from the prior.
    unlabelled : float
    hidden : int or None
        As given to ``simulate``.
    """

    points: int
    classes: int
    features: int
    m0: np.ndarray
    pi: np.ndarray
    unlabelled: float
    hidden: int | None

    def labels(self, rng: np.random.Generator) -> np.ndarray:
        """Every point's class, drawn from ``pi``."""
        return rng.choice(self.classes, size=self.points, p=self.pi)

    def hide(self, rng: np.random.Generator) -> np.ndarray:
        """Which labels are hidden: each with chance ``unlabelled``, or the last ``hidden``."""
        if self.hidden is None:
            return rng.random(self.points) < self.unlabelled
        return np.arange(self.points) >= self.points - int(self.hidden)

    def data(self, x: np.ndarray, y: np.ndarray, hide: np.ndarray) -> Data:
        """The simulated data set, the hidden labels marked missing."""
        observed = y.copy()
        observed[hide] = MISSING
        return Data(x, observed, classes=np.arange(self.classes))


def simulation_design(
    prior,
    rng: np.random.Generator,
    *,
    points: int = 50,
    classes: int = 2,
    features: int = 2,
    unlabelled: float = 0.0,
    hidden: int | None = None,
) -> SimulationDesign:
    """Check a simulation's size against the prior, then draw ``pi``.

    The checks and draws :func:`simulate` shares with the per-class structures; see its
    parameters. ``prior`` needs ``alpha``, ``m0`` and ``kappa0``.
    """
    check_generator("rng", rng)
    points = as_int("points", points, minimum=1)
    classes = as_int("classes", classes, minimum=2)
    features = as_int("features", features, minimum=1)
    if not 0.0 <= unlabelled < 1.0:
        raise ValueError(f"unlabelled: must be a fraction in [0, 1), got {unlabelled!r}")
    if hidden is not None and (
        isinstance(hidden, bool)
        or not isinstance(hidden, numbers.Integral)
        or not 0 <= hidden < points
    ):
        raise ValueError(f"hidden: must be an integer in [0, points), got {hidden!r}")
    m0 = np.zeros(features) if prior.m0 is None else prior.m0
    if m0.shape != (features,):
        raise ValueError(
            f"features: the prior is for {m0.shape[0]} features, asked for {features}"
        )
    alpha = np.broadcast_to(prior.alpha, (classes,)) if prior.alpha.ndim == 0 else prior.alpha
    if alpha.shape != (classes,):
        raise ValueError(
            f"classes: the prior's alpha has {alpha.shape[0]} classes, asked for {classes}"
        )
    pi = dirichlet(rng, alpha)
    return SimulationDesign(
        int(points), int(classes), int(features), m0, pi, float(unlabelled), hidden
    )
