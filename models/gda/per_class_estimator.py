"""scikit-learn classifiers for Bayesian QDA and Bayesian Gaussian naive Bayes.

The machinery of :class:`zoo.models.gda.estimator.BayesianGDAClassifier` (sample
weights as a power likelihood, rows labelled ``-1`` as unlabelled rows whose labelings
are enumerated up to ``max_labelings`` and otherwise sampled by the collapsed Gibbs
kernel), with one covariance per class:

- :class:`BayesianQDAClassifier`: a normal-inverse-Wishart per class; ``predict_proba``
  is the posterior predictive, a multivariate t per class with ``nu_k - d + 1`` degrees
  of freedom (Murphy 2007, eq. 258). As the prior weakens it tends to
  :class:`sklearn.discriminant_analysis.QuadraticDiscriminantAnalysis`.
- :class:`BayesianGaussianNB`: a normal-inverse-gamma per class and feature; the
  predictive is a product of univariate t's with ``nu_k`` degrees of freedom. As the
  prior weakens it tends to :class:`sklearn.naive_bayes.GaussianNB`.

The parameters, fitted attributes and notes are those of
:class:`~zoo.models.gda.estimator.BayesianGDAClassifier`; ``components_`` is a
:class:`~zoo.models.gda.per_class.ClassNIW`. For naive Bayes ``nu0`` defaults to 3 and
``psi0`` is a vector of scales (default ``var(X_j) / n_classes^(2 / n_features)``).
"""

from __future__ import annotations

import numpy as np

from zoo.models.gda.estimator import BayesianGDAClassifier
from zoo.models.gda.per_class import class_niw, per_class_predictive_log_joint
from zoo.models.gda.per_class_gibbs import make_per_class_kernel
from zoo.models.gda.per_class_spec import DiagonalPrior, PerClassPrior

__all__ = ["BayesianGaussianNB", "BayesianQDAClassifier"]

#: The collapsed Gibbs kernels that sample unlabelled rows' labelings.
FULL_KERNEL = make_per_class_kernel(diagonal=False)
DIAGONAL_KERNEL = make_per_class_kernel(diagonal=True)


class BayesianQDAClassifier(BayesianGDAClassifier):
    """Bayesian quadratic discriminant analysis with a conjugate prior per class.

    Parameters and attributes as :class:`~zoo.models.gda.estimator.BayesianGDAClassifier`
    (module docstring).
    """

    _prior_type = PerClassPrior
    _model_name = "Bayesian QDA"
    _diagonal = False

    def _components(self, statistics, hyper, n_points):
        return class_niw(*statistics, hyper, diagonal=self._diagonal)

    def _kernel(self):
        return DIAGONAL_KERNEL if self._diagonal else FULL_KERNEL

    def _predictive_log_joint(self, X: np.ndarray) -> np.ndarray:
        return per_class_predictive_log_joint(
            self.components_, self.weights_, self.hyper_.alpha, X
        )


class BayesianGaussianNB(BayesianQDAClassifier):
    """Bayesian Gaussian naive Bayes with a normal-inverse-gamma per class and feature.

    Parameters and attributes as :class:`~zoo.models.gda.estimator.BayesianGDAClassifier`
    (module docstring); ``psi0`` is one scale per feature, ``nu0`` defaults to 3.
    """

    _prior_type = DiagonalPrior
    _model_name = "Bayesian Gaussian naive Bayes"
    _diagonal = True

    def _scale(self, scales: np.ndarray) -> np.ndarray:
        return scales
