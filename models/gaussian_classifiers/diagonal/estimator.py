"""A scikit-learn classifier for Bayesian Gaussian naive Bayes (``gaussian-nb``).

A normal-inverse-gamma per class and feature; the predictive is a product of univariate
t's with ``nu_k`` degrees of freedom. As the prior weakens it tends to
:class:`sklearn.naive_bayes.GaussianNB`. ``nu0`` defaults to 3 and ``psi0`` is a vector
of scales (default ``var(X_j) / n_classes^(2 / n_features)``). Sample weights,
unlabelled rows (``-1``) and the enumeration or Gibbs sampling of their labelings are
the family's (:class:`~zoo.models.gaussian_classifiers.estimator.BayesianGaussianClassifier`).
"""

from __future__ import annotations

import numpy as np

from zoo.models.gaussian_classifiers.class_niw import class_niw, per_class_predictive_log_joint
from zoo.models.gaussian_classifiers.diagonal.gibbs import kernel
from zoo.models.gaussian_classifiers.diagonal.spec import DiagonalPrior
from zoo.models.gaussian_classifiers.estimator import BayesianGaussianClassifier

__all__ = ["BayesianGaussianNB"]


class BayesianGaussianNB(BayesianGaussianClassifier):
    """Bayesian Gaussian naive Bayes with a normal-inverse-gamma per class and feature.

    Parameters, attributes and notes as
    :class:`~zoo.models.gaussian_classifiers.estimator.BayesianGaussianClassifier`;
    ``psi0`` is one scale per feature, ``nu0`` defaults to 3, ``components_`` is a
    :class:`~zoo.models.gaussian_classifiers.class_niw.ClassNIW`.
    """

    _prior_type = DiagonalPrior
    _model_name = "Bayesian Gaussian naive Bayes"

    def _components(self, statistics, hyper, n_points):
        return class_niw(*statistics, hyper, diagonal=True)

    def _kernel(self):
        return kernel

    def _scale(self, scales: np.ndarray) -> np.ndarray:
        return scales

    def _predictive_log_joint(self, X: np.ndarray) -> np.ndarray:
        return per_class_predictive_log_joint(
            self.components_, self.weights_, self.hyper_.alpha, X
        )
