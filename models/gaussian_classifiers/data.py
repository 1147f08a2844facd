"""The Gaussian classifiers' data: points with class labels, some missing, and their simulation.

Every member takes the same :class:`Data`. Labels may be missing: the marker is ``-1``
(:data:`zoo.models.labelings.MISSING`, the scikit-learn convention for unlabelled points
in semi-supervised learning), as in Naive Bayes.

Simulation from the prior predictive draws in one order for every member
(:func:`simulation_design`, then the member's covariances, then
:func:`simulate_points`), so that the members' ``simulate`` differ only in how a
covariance is drawn.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from zoo.core.arguments import as_finite_array, as_int, check_generator
from zoo.models.arrays import read_only
from zoo.models.gaussian_classifiers.conditional import per_class_probability
from zoo.models.labelings import MISSING, LabelledData, as_labels, check_label_range
from zoo.models.simplex import dirichlet

__all__ = ["Data", "SimulationDesign", "simulate_points", "simulation_design"]


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


class SimulationDesign(NamedTuple):
    """What every member's ``simulate`` checks and draws the same way.

    The random draws come in the order ``pi`` (on construction), the member's
    covariances, :meth:`labels`, the features, :meth:`hide`.

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

    Parameters
    ----------
    prior
        A member's prior; needs ``alpha``, ``m0`` and ``kappa0``.
    rng : numpy.random.Generator
    points, classes, features : int
        N, K and d; default 50, 2 and 2.
    unlabelled : float
        Each label is hidden (marked ``-1``) with this probability; default 0.
    hidden : int, optional
        Instead, hide exactly the last ``hidden`` labels, so that every data set has the
        same design (Geweke's test compares fixed-shape test functions).
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


def simulate_points(
    design: SimulationDesign,
    kappa0: float,
    covariance: np.ndarray,
    root: np.ndarray,
    name: str,
    rng: np.random.Generator,
):
    """Class means, labels and points given one covariance per class: ``(truth, data)``.

    The per-class members' draws after their covariances: ``mu_k = m0 + R_k z_k /
    sqrt(kappa0)``, every point's class from ``pi``, ``x_i = mu_{y_i} + R_{y_i} z_i``,
    then the hidden labels (:class:`SimulationDesign`'s order).

    Parameters
    ----------
    design : SimulationDesign
    kappa0 : float
    covariance : ndarray, shape (K, d, d) or (K, d)
        The drawn covariances (full) or variances (diagonal), reported in ``truth``.
    root : ndarray, shape (K, d, d)
        A square root ``R_k`` of each class's covariance (``R_k R_k^T = Sigma_k``).
    name : str
        The covariance's name among the posterior variables, ``Sigma`` or ``variance``.
    rng : numpy.random.Generator

    Returns
    -------
    truth : dict of str to ndarray
        ``pi``, ``mu``, the covariance and ``class_probability`` (of the hidden points,
        under the true parameters).
    data : Data
    """
    n_classes, d = design.classes, design.features
    noise = rng.standard_normal((n_classes, d))
    mu = design.m0 + np.einsum("kde,ke->kd", root, noise) / np.sqrt(kappa0)
    y = design.labels(rng)
    x = mu[y] + np.einsum("nde,ne->nd", root[y], rng.standard_normal((design.points, d)))
    hide = design.hide(rng)
    truth = {
        "pi": design.pi,
        "mu": mu,
        name: covariance,
        "class_probability": per_class_probability(x[hide], design.pi, mu, covariance),
    }
    return truth, design.data(x, y, hide)
