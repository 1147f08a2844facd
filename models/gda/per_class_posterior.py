"""Per-class covariances: the exact posterior of QDA and of Gaussian naive Bayes.

Fully labelled, one conjugate factor per class (:mod:`zoo.models.gda.per_class`); with
``U`` unlabelled points, the mixture over their ``K^U`` labelings
(:mod:`zoo.models.gda.enumeration`), enumerated up to
:data:`zoo.models.labelings.MAX_LABELINGS` and otherwise a
:class:`~zoo.core.reference.NoReference`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zoo.core.reference import NoReference
from zoo.models.gda.enumeration import enumerate_labelings
from zoo.models.gda.per_class import class_niw, per_class_marginals, per_class_predictive_log_joint
from zoo.models.gda.per_class_spec import DiagonalPrior, PerClassPrior
from zoo.models.gda.posterior import GDAPosterior, checked_new_points, mixture_reference
from zoo.models.gda.spec import Data
from zoo.models.labelings import Labelings

__all__ = ["PerClassPosterior", "diagonal_posterior", "full_posterior"]


@dataclass(frozen=True)
class PerClassPosterior(GDAPosterior):
    """Exact posterior with one covariance per class: a mixture over labelings.

    The attributes of :class:`~zoo.models.gda.posterior.GDAPosterior`, with
    ``components`` a :class:`~zoo.models.gda.per_class.ClassNIW`.
    """

    def _log_joint(self, x_new) -> np.ndarray:
        x_new = checked_new_points(x_new, self.components.mean.shape[-1])
        return per_class_predictive_log_joint(
            self.components, self.weights, self.hyper.alpha, x_new
        )


def _posterior(data: Data, prior, prior_type: type, diagonal: bool):
    if not isinstance(data, Data):
        raise ValueError(f"data: expected gda.Data, got {type(data).__name__}")
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


def full_posterior(data: Data, prior: PerClassPrior):
    """Exact posterior of Bayesian QDA; see :func:`zoo.models.gda.posterior`.

    Marginals of ``pi``, ``mu``, ``Sigma`` (class, feature, feature_bis) and
    ``class_probability``.
    """
    return _posterior(data, prior, PerClassPrior, diagonal=False)


def diagonal_posterior(data: Data, prior: DiagonalPrior):
    """Exact posterior of Bayesian Gaussian naive Bayes; see :func:`zoo.models.gda.posterior`.

    Marginals of ``pi``, ``mu``, ``variance`` (class, feature) and ``class_probability``.
    """
    return _posterior(data, prior, DiagonalPrior, diagonal=True)
