"""Bayesian Gaussian naive Bayes (``gaussian-nb``): the exact posterior.

One normal-inverse-gamma per class and feature given the labels, mixed over the
labelings of the unlabelled points
(:func:`zoo.models.gaussian_classifiers.class_posterior.class_posterior`, with the
formulas of :mod:`zoo.models.gaussian_classifiers.class_niw`).
"""

from __future__ import annotations

from zoo.models.gaussian_classifiers.class_posterior import PerClassPosterior, class_posterior
from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.diagonal.spec import DiagonalPrior

__all__ = ["PerClassPosterior", "posterior"]


def posterior(data: Data, prior: DiagonalPrior):
    """Exact posterior of Bayesian Gaussian naive Bayes, or a NoReference past the limit.

    Marginals of ``pi``, ``mu``, ``variance`` (class, feature) and ``class_probability``.
    """
    return class_posterior(data, prior, DiagonalPrior, diagonal=True)
