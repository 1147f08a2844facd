"""The exact posterior of a Gaussian classifier with missing labels: its labelings enumerated.

Every covariance structure has the same shape of exact answer (the labelings machinery
of :mod:`zoo.models.labelings`): given a complete labeling the posterior is conjugate,
so the posterior is the mixture over the ``K^U`` labelings of the ``U`` unlabelled
points, each weighted by ``p(X | y) p(y)``. This module enumerates the labelings in
chunks, pools the labelled points' class statistics with each labeling's
(:func:`zoo.models.gaussian_classifiers.niw.merge_statistics`), lets the structure
build its conjugate posterior from them, and returns the weights, the exact class
probabilities of the unlabelled points and the heaviest components
(:func:`zoo.models.labelings.heaviest`). :func:`mixture_reference` makes the
:class:`MixturePosterior` every member's ``posterior`` returns from them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import special

from zoo.core.reference import Reference
from zoo.models.gaussian_classifiers.niw import class_statistics, merge_statistics
from zoo.models.gaussian_classifiers.prior import Hyperparameters
from zoo.models.labelings import Labelings, heaviest, probability_marginal

__all__ = [
    "Enumerated",
    "MixturePosterior",
    "checked_new_points",
    "enumerate_labelings",
    "mixture_note",
    "mixture_reference",
    "take_components",
]


class Enumerated(NamedTuple):
    """The mixture over labelings, its light components pruned.

    Attributes
    ----------
    components
        The structure's conjugate posterior under each kept labeling (batch axis first).
    weights : ndarray, shape (C,)
        Posterior probability of each kept labeling, renormalised.
    labelings : ndarray of int, shape (C, U)
    log_evidence : float
        ``log p(X, y_observed)``, over every labeling.
    class_probability : ndarray, shape (U, K)
        ``P(y_u = k | D)``, over every labeling.
    count : int
        ``K^U``, the labelings enumerated.
    """

    components: object
    weights: np.ndarray
    labelings: np.ndarray
    log_evidence: float
    class_probability: np.ndarray
    count: int


def take_components(components, index):
    """The components at ``index`` (batch axis first); fields that are not arrays kept."""
    return dataclasses.replace(
        components,
        **{
            f.name: getattr(components, f.name)[index]
            for f in dataclasses.fields(components)
            if isinstance(getattr(components, f.name), np.ndarray)
        },
    )


def _concatenate(parts: list):
    first = parts[0]
    return dataclasses.replace(
        first,
        **{
            f.name: np.concatenate([getattr(p, f.name) for p in parts])
            for f in dataclasses.fields(first)
            if isinstance(getattr(first, f.name), np.ndarray)
        },
    )


def enumerate_labelings(data, build: Callable) -> Enumerated | Labelings:
    """Every labeling of ``data``'s unlabelled points, with its conjugate posterior.

    Parameters
    ----------
    data
        A Gaussian classifier's ``Data`` (``x``, ``labels``, ``labelled``,
        ``unlabelled``, ``n_classes``).
    build : callable
        ``build(counts, means, scatter)`` (batched class statistics of all points under
        a chunk of labelings) returns the structure's components, a dataclass with
        ``log_likelihood`` and ``log_label_probability`` of shape (B,).

    Returns
    -------
    Enumerated, or the :class:`~zoo.models.labelings.Labelings` when there are too many
    to enumerate (for its ``too_many`` message).
    """
    n_classes = data.n_classes
    hidden = data.unlabelled
    space = Labelings(n_classes, hidden.shape[0])
    if not space.enumerable:
        return space
    onehot_seen = data.labels[data.labelled][:, np.newaxis] == np.arange(n_classes)
    seen = class_statistics(data.x[data.labelled], onehot_seen.astype(float)[np.newaxis])
    x_hidden = data.x[hidden]
    d = data.x.shape[1]
    labels, parts = [], []
    # Per labeling: the one-hot labels and K scatter matrices.
    for index in space.chunks(hidden.shape[0] * n_classes + n_classes * d * d):
        extra = class_statistics(x_hidden, space.onehot(index))
        labels.append(space.classes(index))
        parts.append(build(*merge_statistics(*seen, *extra)))
    labels = np.concatenate(labels)
    components = _concatenate(parts)
    log_joint = components.log_likelihood + components.log_label_probability
    log_evidence = float(special.logsumexp(log_joint))
    weights = np.exp(log_joint - log_evidence)
    # Class probabilities of unlabelled points use every labeling; the rest only those
    # carrying all but a negligible share of the mass.
    class_probability = np.einsum(
        "c,cuk->uk", weights, labels[..., np.newaxis] == np.arange(n_classes)
    )
    keep, _ = heaviest(weights)
    return Enumerated(
        take_components(components, keep),
        weights[keep] / weights[keep].sum(),
        labels[keep],
        log_evidence,
        class_probability,
        space.count,
    )


def mixture_note(data, mixture: Enumerated, closed_form: str) -> str:
    """The reference's note: the closed form's name, or how many labelings were enumerated."""
    n_hidden = data.unlabelled.shape[0]
    if n_hidden == 0:
        return f"closed form: {closed_form}"
    return f"exact mixture over {mixture.count} labelings of {n_hidden} unlabelled points"


@dataclass(frozen=True)
class MixturePosterior(Reference):
    """Exact posterior of a Gaussian classifier: a mixture of conjugate posteriors over labelings.

    Fully labelled data give a single component. Each member says how a component
    predicts (``_log_joint``).

    Attributes
    ----------
    components
        The member's conjugate posterior under each retained labeling (batch axis =
        components): a :class:`~zoo.models.gaussian_classifiers.niw.NIW` or a
        :class:`~zoo.models.gaussian_classifiers.class_niw.ClassNIW`.
    weights : ndarray, shape (C,)
        Posterior probability of each retained labeling.
    labelings : ndarray of int, shape (C, U)
        Classes of the unlabelled points under each retained labeling.
    log_marginal_likelihood : float
        ``log p(X, y_observed)``: features of all points and the observed labels.
    hyper : Hyperparameters
        The hyperparameters used (defaults resolved).
    class_probability_exact : ndarray, shape (U, K)
        ``P(y_u = k | D)`` for every unlabelled point.
    """

    components: object = None
    weights: np.ndarray = None
    labelings: np.ndarray = None
    log_marginal_likelihood: float = np.nan
    hyper: Hyperparameters = None
    class_probability_exact: np.ndarray = None

    def predict_log_proba(self, x_new) -> np.ndarray:
        """Log posterior predictive class probabilities of new points.

        ``p(y* = k | x*, D) ∝ sum_z w_z E[pi_k | z] p(x* | y* = k, D, z)``, the member's
        Student t predictive per class (Murphy 2007, eq. 258) times the Dirichlet
        predictive ``(alpha_k + n_k) / (sum(alpha) + N)`` of the label.

        Parameters
        ----------
        x_new : array-like, shape (M, d)

        Returns
        -------
        ndarray, shape (M, K)
        """
        joint = self._log_joint(x_new)
        return joint - special.logsumexp(joint, axis=1, keepdims=True)

    def predict_proba(self, x_new) -> np.ndarray:
        """Posterior predictive class probabilities, shape (M, K)."""
        return np.exp(self.predict_log_proba(x_new))

    def _log_joint(self, x_new) -> np.ndarray:
        """``log p(y* = k, x* | D)``, shape (M, K): each member's own."""
        raise NotImplementedError


def checked_new_points(x_new, d: int) -> np.ndarray:
    """New points as a float array of shape (M, d), finite; ValueError naming ``x_new``."""
    x_new = np.asarray(x_new, dtype=float)
    if x_new.ndim == 1 and d == 1:
        x_new = x_new[:, np.newaxis]
    if x_new.ndim != 2 or x_new.shape[1] != d:
        raise ValueError(f"x_new: expected shape (M, {d}), got {x_new.shape}")
    if not np.all(np.isfinite(x_new)):
        raise ValueError("x_new: must be finite")
    return x_new


def mixture_reference(kind, data, hyper, mixture: Enumerated, marginals: dict, family: str):
    """The reference of type ``kind`` from an enumerated mixture and its marginals.

    Adds the ``class_probability`` marginal (exact means, not tested near 0 or 1) and
    the note (``family`` names the closed form's posteriors).
    """
    marginals["class_probability"] = probability_marginal(
        ("unlabelled", "class"), mixture.class_probability
    )
    return kind(
        marginals=marginals,
        coords=data.coords,
        note=mixture_note(data, mixture, f"{family} posteriors"),
        components=mixture.components,
        weights=mixture.weights,
        labelings=mixture.labelings,
        log_marginal_likelihood=mixture.log_evidence,
        hyper=hyper,
        class_probability_exact=mixture.class_probability,
    )
