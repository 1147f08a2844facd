"""A scikit-learn classifier for Bayesian quadratic discriminant analysis (``qda``).

A normal-inverse-Wishart per class; ``predict_proba`` is the posterior predictive, a
multivariate t per class with ``nu_k - d + 1`` degrees of freedom (Murphy 2007, eq.
258). As the prior weakens it tends to
:class:`sklearn.discriminant_analysis.QuadraticDiscriminantAnalysis`. Sample weights,
unlabelled rows (``-1``) and the enumeration or Gibbs sampling of their labelings are
the family's (:class:`~zoo.models.gaussian_classifiers.estimator.BayesianGaussianClassifier`).
"""

from __future__ import annotations

import numpy as np

from zoo.models.gaussian_classifiers.class_niw import class_niw, per_class_predictive_log_joint
from zoo.models.gaussian_classifiers.estimator import BayesianGaussianClassifier
from zoo.models.gaussian_classifiers.quadratic.gibbs import kernel
from zoo.models.gaussian_classifiers.quadratic.spec import PerClassPrior

__all__ = ["BayesianQDAClassifier"]


class BayesianQDAClassifier(BayesianGaussianClassifier):
    """Bayesian quadratic discriminant analysis with a conjugate prior per class.

    Parameters, attributes and notes as
    :class:`~zoo.models.gaussian_classifiers.estimator.BayesianGaussianClassifier`;
    ``components_`` is a :class:`~zoo.models.gaussian_classifiers.class_niw.ClassNIW`.
    """

    _prior_type = PerClassPrior
    _model_name = "Bayesian QDA"

    def _components(self, statistics, hyper, n_points):
        return class_niw(*statistics, hyper, diagonal=False)

    def _kernel(self):
        return kernel

    def _predictive_log_joint(self, X: np.ndarray) -> np.ndarray:
        return per_class_predictive_log_joint(
            self.components_, self.weights_, self.hyper_.alpha, X
        )
