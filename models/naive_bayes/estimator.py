"""A scikit-learn estimator for Dirichlet-prior Naive Bayes (fully labelled training).

:class:`DirichletNaiveBayes` predicts with the full Bayesian posterior predictive by
default, ``p(y = k | x, D) ∝ (alpha_k + n_k) DirMult(x | beta_k + N_k)`` (Murphy
2012, sections 3.4 and 3.5), where scikit-learn's ``MultinomialNB`` plugs in point
estimates. With ``predictive="plugin"`` and ``class_prior="empirical"`` it is
``MultinomialNB(alpha=beta)`` or ``BernoulliNB(alpha=beta)``. For the Bernoulli
event model the predictive and the plug-in with posterior means coincide: each
feature's Beta-Bernoulli predictive is its posterior mean.

Semi-supervised fitting (labels ``-1``) is not offered here: its posterior is a
mixture over labelings; use ``zoo.sample("naive-bayes", ...)`` or the exact
reference.
"""

from __future__ import annotations

import numpy as np
from scipy import special
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import _check_partial_fit_first_call, check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

__all__ = ["DirichletNaiveBayes"]


class DirichletNaiveBayes(ClassifierMixin, BaseEstimator):
    """Naive Bayes with Dirichlet priors and the Bayesian posterior predictive.

    Parameters
    ----------
    event_model : {"multinomial", "bernoulli"}
        Counts (bag of words) or binary features.
    alpha : float or array-like of shape (n_classes,)
        Dirichlet pseudo-counts of the class proportions.
    beta : float or array-like of shape (n_features,) or (n_classes, n_features)
        Dirichlet pseudo-counts of the words (multinomial) or Beta pseudo-count of
        "present" (Bernoulli).
    beta0 : float or array-like, optional
        Bernoulli only: Beta pseudo-count of "absent"; default ``beta``.
    predictive : {"bayes", "plugin"}
        Integrate pi and phi out (default), or plug in their posterior means.
    class_prior : {"posterior-mean", "empirical"}
        Plug-in only: pi at its posterior mean ``(alpha + n) / (sum alpha + N)`` or at the
        class frequencies ``n / N`` (scikit-learn's default).
    binarize : float or None
        Bernoulli only: features are ``x > binarize``; None takes X as already binary.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    feature_count_ : ndarray of shape (n_classes, n_features)
    n_features_in_ : int
    """

    def __init__(
        self,
        event_model="multinomial",
        alpha=1.0,
        beta=1.0,
        beta0=None,
        predictive="bayes",
        class_prior="posterior-mean",
        binarize=0.0,
    ):
        self.event_model = event_model
        self.alpha = alpha
        self.beta = beta
        self.beta0 = beta0
        self.predictive = predictive
        self.class_prior = class_prior
        self.binarize = binarize

    def __sklearn_tags__(self):
        """Multinomial counts must be non-negative (scikit-learn's checks honour this).

        ``poor_score`` for the multinomial model, as scikit-learn's ``MultinomialNB``
        declares: the common checks train on shifted Gaussian blobs, which are not
        counts, and a multinomial model need not reach their 0.83 accuracy on them.
        """
        tags = super().__sklearn_tags__()
        multinomial = self.event_model == "multinomial"
        tags.input_tags.positive_only = multinomial
        tags.classifier_tags.poor_score = multinomial
        return tags

    def _check_settings(self):
        choices = (
            ("event_model", self.event_model, ("multinomial", "bernoulli")),
            ("predictive", self.predictive, ("bayes", "plugin")),
            ("class_prior", self.class_prior, ("posterior-mean", "empirical")),
        )
        for field, value, allowed in choices:
            if value not in allowed:
                raise ValueError(f"{field}: must be one of {allowed}, got {value!r}")

    def _features(self, X, *, reset: bool) -> np.ndarray:
        X = validate_data(self, X, reset=reset, dtype=np.float64)
        if self.event_model == "multinomial":
            check_non_negative(X, "DirichletNaiveBayes (multinomial event model)")
        elif self.binarize is not None:
            X = (X > self.binarize).astype(np.float64)
        elif not np.isin(X, (0.0, 1.0)).all():
            raise ValueError("X: the Bernoulli event model with binarize=None takes 0/1 features")
        return X

    def fit(self, X, y):
        """Fit the conjugate posterior to fully labelled data."""
        self._check_settings()
        X, y = validate_data(self, X, y, dtype=np.float64, reset=True)
        check_classification_targets(y)
        for name in ("classes_", "class_count_", "feature_count_"):
            if hasattr(self, name):
                delattr(self, name)
        return self._accumulate(X, y, np.unique(y), reset=True)

    def partial_fit(self, X, y, classes=None):
        """Add a batch of labelled data to the posterior (conjugacy: counts just add)."""
        self._check_settings()
        first = _check_partial_fit_first_call(self, classes)
        X, y = validate_data(self, X, y, dtype=np.float64, reset=first)
        check_classification_targets(y)
        return self._accumulate(X, y, self.classes_, reset=first)

    def _accumulate(self, X, y, classes, *, reset: bool):
        X = self._features(X, reset=False)
        self.classes_ = np.asarray(classes)
        index = np.searchsorted(self.classes_, y)
        if np.any(index >= len(self.classes_)) or np.any(self.classes_[index] != y):
            raise ValueError("y: contains labels not in classes")
        k = len(self.classes_)
        if reset or not hasattr(self, "class_count_"):
            self.class_count_ = np.zeros(k)
            self.feature_count_ = np.zeros((k, X.shape[1]))
        self.class_count_ += np.bincount(index, minlength=k)
        np.add.at(self.feature_count_, index, X)
        self._hyperparameters()  # validate shapes now, not at predict time
        return self

    def _hyperparameters(self):
        k, v = self.feature_count_.shape

        def positive(field, value, shape):
            array = np.asarray(value, dtype=float)
            if not np.all(np.isfinite(array)) or np.any(array <= 0):
                raise ValueError(f"{field}: must be finite and > 0")
            try:
                return np.broadcast_to(array, shape)
            except ValueError as err:
                raise ValueError(f"{field}: shape {array.shape} does not fit {shape}") from err

        alpha = positive("alpha", self.alpha, (k,))
        beta = positive("beta", self.beta, (k, v))
        if self.event_model == "multinomial":
            if self.beta0 is not None:
                raise ValueError("beta0: only the Bernoulli event model uses it")
            return alpha, beta, None
        beta0 = beta if self.beta0 is None else positive("beta0", self.beta0, (k, v))
        return alpha, beta, beta0

    def predict_joint_log_proba(self, X):
        """``log p(y = k, x | D)`` up to a constant per row, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        X = self._features(X, reset=False)
        alpha, beta, beta0 = self._hyperparameters()
        a = alpha + self.class_count_
        if self.predictive == "plugin" and self.class_prior == "empirical":
            log_prior = np.log(self.class_count_) - np.log(self.class_count_.sum())
        else:
            log_prior = np.log(a) - np.log(a.sum())
        if self.event_model == "bernoulli":
            # Beta-Bernoulli predictive of each feature = its posterior mean, so the
            # Bayesian predictive and the plug-in coincide.
            on = beta + self.feature_count_
            off = beta0 + self.class_count_[:, None] - self.feature_count_
            log_on, log_off = np.log(on / (on + off)), np.log(off / (on + off))
            return log_prior + X @ log_on.T + (1.0 - X) @ log_off.T
        b = beta + self.feature_count_
        if self.predictive == "plugin":
            return log_prior + X @ (np.log(b) - np.log(b.sum(axis=1, keepdims=True))).T
        total = b.sum(axis=1)
        # log DirMult(x | b_k) without the multinomial coefficient (same for every k).
        joint = special.gammaln(total) - special.gammaln(total + X.sum(axis=1, keepdims=True))
        for k in range(b.shape[0]):
            joint[:, k] += np.sum(special.gammaln(b[k] + X) - special.gammaln(b[k]), axis=1)
        return log_prior + joint

    def predict_log_proba(self, X):
        """Log class probabilities, shape (n_samples, n_classes)."""
        joint = self.predict_joint_log_proba(X)
        return joint - special.logsumexp(joint, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """Most probable class of each sample."""
        joint = self.predict_joint_log_proba(X)
        return self.classes_[np.argmax(joint, axis=1)]
