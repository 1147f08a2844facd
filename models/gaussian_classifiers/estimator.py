"""The Gaussian classifiers' scikit-learn estimator: weighted, semi-supervised, exact or sampled.

:class:`BayesianGaussianClassifier` is what the members' estimators share
(``BayesianGDAClassifier``, ``BayesianQDAClassifier``, ``BayesianGaussianNB``, each in
its member's ``estimator`` module): the checks of ``X``, ``y`` and ``sample_weight``,
the data-scaled default prior with frequency weights, the mixture over the labelings
of unlabelled rows (enumerated exactly up to ``max_labelings`` labelings, otherwise
sampled by the member's collapsed Gibbs kernel; :mod:`zoo.models.semi_supervised`), and
prediction. A member supplies its prior type, its conjugate posterior from pooled class
statistics, its Gibbs kernel and its posterior predictive.

``predict_proba`` is the posterior predictive: for each class a Student t density
(multivariate for a full covariance, a product of univariate ones when diagonal)
weighted by the Dirichlet predictive ``(alpha_k + n_k) / (sum(alpha) + N)`` (Murphy
2007, eq. 258).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from zoo.core.arguments import as_int
from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.niw import class_statistics, merge_statistics
from zoo.models.gaussian_classifiers.prior import Hyperparameters, no_scale
from zoo.models.labelings import MISSING, Labelings, heaviest
from zoo.models.logspace import logsumexp
from zoo.models.semi_supervised import (
    check_enumeration,
    checked_weights,
    distinct_labelings,
    generator,
    labeling_draws,
    unlabelled_rows,
)

__all__ = ["BayesianGaussianClassifier"]


class BayesianGaussianClassifier(ClassifierMixin, BaseEstimator):
    """A Bayesian Gaussian classifier with a conjugate prior: the members' shared estimator.

    Not used on its own: ``BayesianGDAClassifier``, ``BayesianQDAClassifier`` and
    ``BayesianGaussianNB`` (``zoo.sklearn``) subclass it with their covariance
    structure.

    Parameters
    ----------
    alpha : float or array-like of shape (n_classes,), default=1.0
        Dirichlet concentration of the class proportions.
    kappa0 : float, default=0.01
        Prior pseudo-observations on each class mean.
    nu0 : float, default=None
        Inverse-Wishart degrees of freedom (``> n_features - 1``); default
        ``n_features + 2`` (naive Bayes: inverse-gamma, ``> 0``, default 3).
    psi0 : array-like of shape (n_features, n_features), default=None
        Inverse-Wishart scale (naive Bayes: one scale per feature); default
        ``diag(var(X)) / n_classes^(2 / n_features)`` (weighted variance with frequency
        weights when ``sample_weight`` is given).
    m0 : array-like of shape (n_features,), default=None
        Prior mean of the class means; default the (weighted) mean of ``X``.
    max_labelings : int, default=1024
        With ``U`` unlabelled rows (``y == -1``) and ``K`` classes the posterior is a
        mixture over ``K^U`` labelings: enumerated exactly up to this many, otherwise
        sampled by the collapsed Gibbs kernel. An enumeration of more than 2^24
        labelings (:data:`zoo.models.semi_supervised.MAX_ENUMERATED`) is refused at fit
        with its size and the time it would take.
    n_draws : int, default=500
        Gibbs sweeps kept when the labelings are sampled.
    n_tune : int, default=100
        Gibbs sweeps discarded before the kept ones.
    random_state : int, RandomState instance or None, default=None
        Seed of the Gibbs sampler (only used when the labelings are sampled).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels seen, without ``-1``.
    n_features_in_ : int
    components_ : NIW or ClassNIW
        The conjugate posterior of each mixture component (one when every row is
        labelled): :class:`~zoo.models.gaussian_classifiers.niw.NIW` for a shared
        covariance, :class:`~zoo.models.gaussian_classifiers.class_niw.ClassNIW` for one
        per class.
    weights_ : ndarray of shape (n_components,)
        Posterior probability of each component: exact, or the share of Gibbs draws.
    hyper_ : Hyperparameters
        The hyperparameters used, defaults resolved.
    labelings_ : ndarray of shape (n_components, n_unlabelled_)
        Class index of each unlabelled row (repeated by its weight) per component.
    n_unlabelled_ : int
    draw_labeling_ : ndarray of shape (n_draws,)
        Sampled mixture only (empty when exact): the Gibbs chain in sweep order, as
        indices into ``labelings_``.
    exact_ : bool
        True when the predictive is exact (closed form or enumeration), False when it
        is a Monte Carlo average over Gibbs draws.

    Notes
    -----
    **Sample weights.** A weighted fit uses the weighted likelihood ``prod_i N(x_i |
    mu_{y_i}, Sigma_{y_i})^{w_i}``, which keeps the normal-inverse-Wishart update with the
    weighted count ``n_k = sum w_i``, weighted mean ``xbar_k = sum w_i x_i / n_k`` and
    weighted scatter ``S_k = sum w_i (x_i - xbar_k)(x_i - xbar_k)^T``, and
    ``nu_N = nu0 + sum w_i``; the Dirichlet counts are weighted sums too. An integer
    weight is exactly the row repeated (the default ``m0`` and ``psi0`` use the same
    frequency weights). It is a power likelihood: weights that do not sum to the number
    of observations make the posterior over- or under-confident. Unlabelled rows take
    integer weights only, and so do labelled rows when the labelings are sampled (the
    Gibbs kernel updates one unweighted point at a time).

    **Unlabelled rows** (``y == -1``). The posterior is a mixture over the labelings
    ``z`` of the unlabelled rows, weighted by ``p(X | y, z) p(y, z)`` (Murphy 2007, eq.
    266, with the Dirichlet-multinomial of the labels), and the predictive is the
    mixture of the conjugate predictives. With ``K^U <= max_labelings`` every labeling
    is enumerated (pruned as :func:`zoo.models.labelings.heaviest` bounds): exact.
    Otherwise the collapsed Gibbs kernel (pi, mu and Sigma integrated out) gives
    ``n_draws`` labelings ``z_s`` after ``n_tune`` sweeps, and the predictive is
    ``p(y = k, x | D) ≈ (1/S) sum_s p(y = k, x | D, z_s)``: Rao-Blackwellised, with
    Monte Carlo error of order ``1 / sqrt(ESS)``.

    **Scale of X.** The posterior sums squared deviations of the rows from their
    means; an ``X`` whose values lie so far from their column's mean (beyond about
    ``1e153``) that these sums overflow a double is refused at fit, naming ``X``:
    rescale it.
    """

    def __init__(
        self,
        alpha=1.0,
        kappa0=0.01,
        nu0=None,
        psi0=None,
        m0=None,
        max_labelings=1024,
        n_draws=500,
        n_tune=100,
        random_state=None,
    ):
        self.alpha = alpha
        self.kappa0 = kappa0
        self.nu0 = nu0
        self.psi0 = psi0
        self.m0 = m0
        self.max_labelings = max_labelings
        self.n_draws = n_draws
        self.n_tune = n_tune
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Compute the posterior from labelled and (``y == -1``) unlabelled rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels; ``-1`` marks an unlabelled row.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of a weighted likelihood (class Notes).

        Returns
        -------
        self : estimator
        """
        limit = as_int("max_labelings", self.max_labelings, minimum=1)
        n_draws = as_int("n_draws", self.n_draws, minimum=1)
        n_tune = as_int("n_tune", self.n_tune, minimum=0)
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        unlabelled = unlabelled_rows(y)
        weights = checked_weights(sample_weight, X, unlabelled)
        self._check_scale(X, weights)
        classes, encoded = np.unique(y[~unlabelled], return_inverse=True)
        if classes.shape[0] < 2:
            raise ValueError(
                f"y: {self._model_name} needs samples of at least 2 classes, "
                f"got {classes.shape[0]} class"
            )
        k = classes.shape[0]
        hyper = self._hyperparameters(X, weights, k)
        x_seen, w_seen = X[~unlabelled], weights[~unlabelled]
        onehot = np.zeros((x_seen.shape[0], k))
        onehot[np.arange(x_seen.shape[0]), encoded] = w_seen
        seen = class_statistics(x_seen, onehot[np.newaxis])
        hidden = np.flatnonzero(unlabelled)
        x_hidden = np.repeat(X[hidden], weights[hidden].astype(np.int64), axis=0)
        n_points = float(w_seen.sum()) + x_hidden.shape[0]

        def components(labelings):
            labelled = (labelings[..., np.newaxis] == np.arange(k)).astype(float)
            extra = class_statistics(x_hidden, labelled)
            return self._components(merge_statistics(*seen, *extra), hyper, n_points)

        def labeling_log_weights(index):
            niw = components(space.classes(index))
            return niw.log_likelihood + niw.log_label_probability

        space = Labelings(k, x_hidden.shape[0], limit=limit)
        if space.enumerable:
            # Numbers per labeling: its one-hot labels and K scatter matrices.
            per_labeling = x_hidden.shape[0] * k + k * X.shape[1] ** 2
            check_enumeration(space, labeling_log_weights, per_labeling)
            # p(z | D) ∝ p(X | y, z) p(y, z), chunk by chunk (memory of the scatters).
            log_weights = np.empty(space.count)
            for index in space.chunks(per_labeling):
                log_weights[index] = labeling_log_weights(index)
            exact = np.exp(log_weights - logsumexp(log_weights))
            kept, _ = heaviest(exact)
            labelings, mixture = space.classes(kept), exact[kept] / exact[kept].sum()
            index = np.zeros(0, dtype=np.int64)
        else:
            data, prior = self._gibbs_problem(X, encoded, unlabelled, weights, x_hidden, hyper)
            draws = labeling_draws(
                self._kernel(),
                data,
                prior,
                n_draws=n_draws,
                n_tune=n_tune,
                rng=generator(self.random_state),
            )
            labelings, mixture, index = distinct_labelings(draws)
        self.components_ = components(labelings)
        self.weights_ = mixture
        self.hyper_ = hyper
        self.labelings_ = labelings
        self.draw_labeling_ = index
        self.n_unlabelled_ = x_hidden.shape[0]
        self.exact_ = bool(space.enumerable)
        self.classes_ = classes
        return self

    def _hyperparameters(self, X, weights, n_classes) -> Hyperparameters:
        """Resolve the prior, defaults from the weighted data (frequency weights).

        With unit weights these are
        :meth:`zoo.models.gaussian_classifiers.prior.Prior.resolve`'s defaults (mean,
        ``ddof=1`` variances); with integer weights, those of the repeated rows.
        """
        n, d = float(weights.sum()), X.shape[1]
        m0, psi0 = self.m0, self.psi0
        mean = weights @ X / n
        if m0 is None:
            m0 = mean
        if psi0 is None:
            if n <= d:
                raise ValueError(
                    f"psi0: cannot be derived from {n:g} (weighted) points in {d} dimensions "
                    "(d >= N and no prior scale to regularise): pass psi0"
                )
            variances = weights @ (X - mean) ** 2 / (n - 1.0)
            if not np.all(variances > 0):
                raise ValueError(no_scale(X[weights > 0], int(np.argmin(variances)), "X"))
            psi0 = self._scale(variances / n_classes ** (2.0 / d))
        prior = self._prior_type(
            alpha=self.alpha, m0=m0, kappa0=self.kappa0, nu0=self.nu0, psi0=psi0
        )
        # Only the number of classes and features of the data matter once m0 and psi0
        # are given: a one-row stand-in of the right shape.
        shape = Data(np.zeros((1, d)), [MISSING], classes=np.arange(n_classes))
        return prior.resolve(shape)

    def _check_scale(self, X: np.ndarray, weights: np.ndarray) -> None:
        """Refuse ``X`` whose squared deviations overflow, naming ``X`` and its largest value.

        The default prior scale ``psi0`` and the class scatter matrices are sums of
        weighted squared deviations of the rows from a mean, each at most ``(2 r)^2``
        where ``r`` is the largest distance of a value from its column's weighted mean;
        when that bound times the total weight is not a finite double, they may
        overflow to infinity (a "psi0: must be finite" about a parameter the user never
        passed, or a meaningless posterior), so the fit stops here, before any work.
        """
        total = max(float(weights.sum()), 1.0)
        with np.errstate(over="ignore", invalid="ignore"):
            mean = weights @ X / total
            reach = np.max(np.abs(X - mean), initial=0.0)
            bound = np.square(2.0 * reach) * total
        if np.isfinite(bound):
            return
        overflows = (
            "the data-scaled prior scale psi0"
            if self.psi0 is None
            else "the class scatter matrices"
        )
        raise ValueError(
            f"X: values up to {float(np.max(np.abs(X))):.3g} make {overflows} overflow; rescale X"
        )

    def _gibbs_problem(self, X, encoded, unlabelled, weights, x_hidden, hyper):
        """The kernel's ``(Data, Prior)``: rows repeated by their (integer) weights."""
        fractional = weights != np.floor(weights)
        if fractional.any():
            where = int(np.argmax(fractional))
            raise ValueError(
                f"sample_weight: with more than max_labelings={self.max_labelings} labelings "
                "of the unlabelled rows they are sampled by the Gibbs kernel, which takes "
                f"integer weights (repeated rows); found {weights[where]:g} at row {where}"
            )
        seen = np.flatnonzero(~unlabelled)
        repeats = weights[seen].astype(np.int64)
        x = np.concatenate([np.repeat(X[seen], repeats, axis=0), x_hidden])
        labels = np.concatenate([np.repeat(encoded, repeats), np.full(x_hidden.shape[0], MISSING)])
        data = Data(x, labels, classes=np.arange(hyper.alpha.shape[0]))
        prior = self._prior_type(
            alpha=hyper.alpha, m0=hyper.m0, kappa0=hyper.kappa0, nu0=hyper.nu0, psi0=hyper.psi0
        )
        return data, prior

    # The hooks of a covariance structure: each member's estimator sets or overrides them.
    #: The member's prior class (``Prior``, ``PerClassPrior`` or ``DiagonalPrior``).
    _prior_type: type
    #: The member's name in messages.
    _model_name: str

    def _components(self, statistics, hyper: Hyperparameters, n_points: float):
        """The conjugate posterior from pooled class statistics (batched over labelings)."""
        raise NotImplementedError

    def _kernel(self):
        """The collapsed Gibbs kernel that samples the labelings."""
        raise NotImplementedError

    def _scale(self, scales: np.ndarray) -> np.ndarray:
        """The default ``psi0`` from the default scale of each feature: a diagonal matrix."""
        return np.diag(scales)

    def _predictive_log_joint(self, X: np.ndarray) -> np.ndarray:
        """``log p(y = k, x | D)`` of each row of ``X``, shape (n_samples, n_classes)."""
        raise NotImplementedError

    def predict_log_proba(self, X):
        """Log posterior predictive class probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        joint = self._predictive_log_joint(X)
        return joint - logsumexp(joint, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Posterior predictive class probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The class of highest posterior predictive probability.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_log_proba(X), axis=1)]
