"""A scikit-learn classifier for Bayesian GDA (fully labelled, closed form).

``predict_proba`` is the exact posterior predictive: for each class a multivariate t
density with ``nu_N - d + 1`` degrees of freedom, location ``m_k`` and scale
``Psi_N (kappa_k + 1) / (kappa_k (nu_N - d + 1))``, weighted by the Dirichlet
predictive ``(alpha_k + n_k) / (sum(alpha) + N)`` (Murphy 2007, eq. 258). As the prior
weakens (``kappa0 -> 0``, ``psi0 -> 0``, ``nu0 -> d - 1``, ``alpha -> 0``) it tends to
:class:`sklearn.discriminant_analysis.LinearDiscriminantAnalysis`'s ``predict_proba``.

Semi-supervised fits (labels ``-1``) are for the zoo's samplers (``zoo.sample``), not
this estimator: scikit-learn's own checks use ``-1`` as an ordinary class label.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from zoo.models.gda.posterior import posterior, predictive_log_joint
from zoo.models.gda.spec import Data, Prior

__all__ = ["BayesianGDAClassifier"]


class BayesianGDAClassifier(ClassifierMixin, BaseEstimator):
    """Bayesian linear discriminant analysis with a conjugate prior.

    Parameters
    ----------
    alpha : float or array-like of shape (n_classes,), default=1.0
        Dirichlet concentration of the class proportions.
    kappa0 : float, default=0.01
        Prior pseudo-observations on each class mean.
    nu0 : float, optional
        Inverse-Wishart degrees of freedom (``> n_features - 1``); default
        ``n_features + 2``.
    psi0 : array-like of shape (n_features, n_features), optional
        Inverse-Wishart scale; default ``diag(var(X)) / n_classes^(2 / n_features)``.
    m0 : array-like of shape (n_features,), optional
        Prior mean of the class means; default the mean of ``X``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    components_, weights_, hyper_
        The exact posterior (closed form): see
        :func:`zoo.models.gda.posterior.predictive_log_joint`.
    """

    def __init__(self, alpha=1.0, kappa0=0.01, nu0=None, psi0=None, m0=None):
        self.alpha = alpha
        self.kappa0 = kappa0
        self.nu0 = nu0
        self.psi0 = psi0
        self.m0 = m0

    def fit(self, X, y):
        """Compute the exact posterior from labelled training data."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        classes, encoded = np.unique(y, return_inverse=True)
        if classes.shape[0] < 2:
            raise ValueError(
                "y: Bayesian GDA needs samples of at least 2 classes, "
                f"got {classes.shape[0]} class"
            )
        prior = Prior(
            alpha=self.alpha, m0=self.m0, kappa0=self.kappa0, nu0=self.nu0, psi0=self.psi0
        )
        data = Data(X, encoded, classes=np.arange(classes.shape[0]))
        exact = posterior(data, prior)
        # The reference's marginals hold closures (not picklable): keep the arrays only.
        self.components_ = exact.components
        self.weights_ = exact.weights
        self.hyper_ = exact.hyper
        self.classes_ = classes
        return self

    def predict_log_proba(self, X):
        """Log posterior predictive class probabilities."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        joint = predictive_log_joint(self.components_, self.weights_, self.hyper_, X)
        return joint - logsumexp(joint, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Posterior predictive class probabilities, shape (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The class of highest posterior predictive probability."""
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_log_proba(X), axis=1)]
