"""One covariance per class: the exact posterior of QDA and of Gaussian naive Bayes.

Fully labelled, one conjugate factor per class
(:mod:`zoo.models.gaussian_classifiers.class_niw`); with ``U`` unlabelled points, the
mixture over their ``K^U`` labelings (:mod:`zoo.models.gaussian_classifiers.enumeration`),
enumerated up to :data:`zoo.models.labelings.MAX_LABELINGS` and otherwise a
:class:`~zoo.core.reference.NoReference`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zoo.core.reference import NoReference
from zoo.models.gaussian_classifiers.class_niw import (
    class_niw,
    per_class_marginals,
    per_class_predictive_log_joint,
)
from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.enumeration import (
    MixturePosterior,
    checked_new_points,
    enumerate_labelings,
    mixture_reference,
)
from zoo.models.labelings import Labelings

__all__ = ["PerClassPosterior", "class_posterior"]


@dataclass(frozen=True)
class PerClassPosterior(MixturePosterior):
    """Exact posterior with one covariance per class: a mixture over labelings.

    The attributes of :class:`~zoo.models.gaussian_classifiers.enumeration.MixturePosterior`,
    with ``components`` a :class:`~zoo.models.gaussian_classifiers.class_niw.ClassNIW`.
    """

    def _log_joint(self, x_new) -> np.ndarray:
        x_new = checked_new_points(x_new, self.components.mean.shape[-1])
        return per_class_predictive_log_joint(
            self.components, self.weights, self.hyper.alpha, x_new
        )


def class_posterior(data: Data, prior, prior_type: type, *, diagonal: bool):
    """The exact posterior of a per-class member, or a NoReference past the enumeration limit.

    Parameters
    ----------
    data : Data
    prior
        Checked to be a ``prior_type`` (the member's prior class).
    prior_type : type
    diagonal : bool
        One variance per class and feature (naive Bayes), or a full covariance (QDA).
    """
    if not isinstance(data, Data):
        raise ValueError(f"data: expected gaussian_classifiers.Data, got {type(data).__name__}")
    if not isinstance(prior, prior_type):
        raise ValueError(f"prior: expected {prior_type.__name__}, got {type(prior).__name__}")
    hyper = prior.resolve(data)
    mixture = enumerate_labelings(data, lambda *stats: class_niw(*stats, hyper, diagonal=diagonal))
    if isinstance(mixture, Labelings):
        return NoReference(mixture.too_many("unlabelled points"))
    marginals = per_class_marginals(mixture.components, mixture.weights, hyper.alpha)
    family = "per-class normal-inverse-gamma" if diagonal else "per-class normal-inverse-Wishart"
    return mixture_reference(
        PerClassPosterior, data, hyper, mixture, marginals, f"{family} and Dirichlet"
    )
