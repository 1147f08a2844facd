"""A scikit-learn classifier for Bayesian linear discriminant analysis (``gda``).

``predict_proba`` is the posterior predictive: for each class a multivariate t density
with ``nu_N - d + 1`` degrees of freedom, location ``m_k`` and scale ``Psi_N (kappa_k +
1) / (kappa_k (nu_N - d + 1))``, weighted by the Dirichlet predictive ``(alpha_k + n_k)
/ (sum(alpha) + N)`` (Murphy 2007, eq. 258). As the prior weakens (``kappa0 -> 0``,
``psi0 -> 0``, ``nu0 -> d - 1``, ``alpha -> 0``) it tends to
:class:`sklearn.discriminant_analysis.LinearDiscriminantAnalysis`'s ``predict_proba``.

Rows labelled ``-1`` are unlabelled: the posterior is then a mixture over their
labelings, enumerated exactly up to ``max_labelings`` labelings and otherwise sampled
by the model's collapsed Gibbs kernel
(:data:`zoo.models.gaussian_classifiers.linear.gibbs.kernel`); the machinery is the
family's (:class:`~zoo.models.gaussian_classifiers.estimator.BayesianGaussianClassifier`).
"""

from __future__ import annotations

import numpy as np

from zoo.models.gaussian_classifiers.estimator import BayesianGaussianClassifier
from zoo.models.gaussian_classifiers.linear.gibbs import kernel
from zoo.models.gaussian_classifiers.linear.posterior import (
    niw_from_statistics,
    predictive_log_joint,
)
from zoo.models.gaussian_classifiers.prior import Hyperparameters, Prior

__all__ = ["BayesianGDAClassifier"]


class BayesianGDAClassifier(BayesianGaussianClassifier):
    """Bayesian linear discriminant analysis with a conjugate prior.

    One covariance shared by the classes, ``Sigma ~ InvWishart(nu0, psi0)``. Parameters,
    attributes and notes as
    :class:`~zoo.models.gaussian_classifiers.estimator.BayesianGaussianClassifier`;
    ``components_`` is an :class:`~zoo.models.gaussian_classifiers.niw.NIW`.
    """

    _prior_type = Prior
    _model_name = "Bayesian GDA"

    def _components(self, statistics, hyper: Hyperparameters, n_points: float):
        return niw_from_statistics(*statistics, hyper, n_points)

    def _kernel(self):
        return kernel

    def _predictive_log_joint(self, X: np.ndarray) -> np.ndarray:
        return predictive_log_joint(self.components_, self.weights_, self.hyper_, X)
