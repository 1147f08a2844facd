"""Bayesian quadratic discriminant analysis (``qda``): the exact posterior.

One normal-inverse-Wishart per class given the labels, mixed over the labelings of the
unlabelled points (:func:`zoo.models.gaussian_classifiers.class_posterior.class_posterior`,
with the formulas of :mod:`zoo.models.gaussian_classifiers.class_niw`).
"""

from __future__ import annotations

from zoo.models.gaussian_classifiers.class_posterior import PerClassPosterior, class_posterior
from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.quadratic.spec import PerClassPrior

__all__ = ["PerClassPosterior", "posterior"]


def posterior(data: Data, prior: PerClassPrior):
    """Exact posterior of Bayesian QDA, or a NoReference past the enumeration limit.

    Marginals of ``pi``, ``mu``, ``Sigma`` (class, feature, feature_bis) and
    ``class_probability``, as :func:`zoo.models.gaussian_classifiers.linear.posterior.posterior`
    describes them.
    """
    return class_posterior(data, prior, PerClassPrior, diagonal=False)
