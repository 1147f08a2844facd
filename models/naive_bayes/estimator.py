"""A scikit-learn estimator for Dirichlet-prior Naive Bayes, sparse, weighted, semi-supervised.

:class:`DirichletNaiveBayes` predicts with the full Bayesian posterior predictive by
default, ``p(y = k | x, D) ∝ (alpha_k + n_k) DirMult(x | beta_k + N_k)`` (Murphy
2012, sections 3.4 and 3.5), where scikit-learn's ``MultinomialNB`` plugs in point
estimates. With ``predictive="plugin"`` and ``class_prior="empirical"`` it is
``MultinomialNB(alpha=beta)`` or ``BernoulliNB(alpha=beta)``. For the Bernoulli
event model the predictive and the plug-in with posterior means coincide: each
feature's Beta-Bernoulli predictive is its posterior mean.

Rows labelled ``-1`` are unlabelled. The labelled rows' posterior is conjugate, so it
becomes the prior of the unlabelled part (``alpha + n_L``, ``beta + N_L``): the
posterior is then a mixture over the labelings of the unlabelled rows alone
(:mod:`zoo.models.semi_supervised`), enumerated exactly when there are at most
``max_labelings`` of them, otherwise sampled by the model's collapsed Gibbs kernel
(:data:`zoo.models.naive_bayes.gibbs.kernel`).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse, special
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import binarize as binarized
from sklearn.utils.multiclass import _check_partial_fit_first_call, check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

from zoo.core.arguments import as_int
from zoo.models.labelings import MISSING, Labelings, heaviest
from zoo.models.naive_bayes.gibbs import kernel
from zoo.models.naive_bayes.posterior import log_labeling_weight
from zoo.models.naive_bayes.spec import Data, Prior
from zoo.models.semi_supervised import (
    check_enumeration,
    checked_weights,
    distinct_labelings,
    generator,
    labeling_draws,
    unlabelled_rows,
)

__all__ = ["DirichletNaiveBayes"]

_SPARSE_FORMATS = ("csr", "csc")


class DirichletNaiveBayes(ClassifierMixin, BaseEstimator):
    """Naive Bayes with Dirichlet priors and the Bayesian posterior predictive.

    Parameters
    ----------
    event_model : {"multinomial", "bernoulli"}, default="multinomial"
        Counts (bag of words) or binary features.
    alpha : float or array-like of shape (n_classes,), default=1.0
        Dirichlet pseudo-counts of the class proportions.
    beta : float or array-like of shape (n_features,) or (n_classes, n_features), \
default=1.0
        Dirichlet pseudo-counts of the words (multinomial) or Beta pseudo-count of
        "present" (Bernoulli).
    beta0 : float or array-like, default=None
        Bernoulli only: Beta pseudo-count of "absent"; default ``beta``.
    predictive : {"bayes", "plugin"}, default="bayes"
        Integrate pi and phi out, or plug in their posterior means.
    class_prior : {"posterior-mean", "empirical"}, default="posterior-mean"
        Plug-in only: pi at its posterior mean ``(alpha + n) / (sum alpha + N)`` or at the
        labelled rows' class frequencies ``n / N`` (scikit-learn's default).
    binarize : float or None, default=0.0
        Bernoulli only: features are ``x > binarize``; None takes X as already binary.
    max_labelings : int, default=1024
        With ``U`` unlabelled rows (``y == -1``) and ``K`` classes, the posterior is a
        mixture over ``K^U`` labelings: enumerated exactly up to this many, otherwise
        sampled by the collapsed Gibbs kernel. An enumeration of more than 2^24
        labelings (:data:`zoo.models.semi_supervised.MAX_ENUMERATED`) is refused at fit
        with its size and the time it would take.
    n_draws : int, default=500
        Gibbs sweeps kept when the labelings are sampled; the Monte Carlo error of the
        predictive probabilities shrinks as ``1 / sqrt(effective draws)``.
    n_tune : int, default=100
        Gibbs sweeps discarded before the kept ones.
    random_state : int, RandomState instance or None, default=None
        Seed of the Gibbs sampler (only used when the labelings are sampled); an
        integer gives the same draws on every fit.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels seen, without ``-1``.
    class_count_ : ndarray of shape (n_classes,)
        Summed sample weights of the labelled rows of each class.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted feature sums of the labelled rows of each class (Bernoulli: of the
        binarised features).
    n_features_in_ : int
    n_unlabelled_ : int
        Unlabelled rows in the mixture, each counted as often as its weight (rows of
        weight 0, and for the multinomial model rows without a word, carry no
        information about the parameters and are left out).
    labelings_ : ndarray of shape (n_components, n_unlabelled_)
        Class index of each unlabelled row under each mixture component (an empty
        second axis when every row is labelled).
    labeling_weights_ : ndarray of shape (n_components,)
        Posterior probability of each component: exact, or the share of Gibbs draws.
    draw_labeling_ : ndarray of shape (n_draws,)
        Sampled mixture only (empty when exact): the Gibbs chain in sweep order, as
        indices into ``labelings_``.
    exact_ : bool
        True when the predictive is exact (closed form or enumeration), False when it
        is a Monte Carlo average over Gibbs draws.

    Notes
    -----
    **Sample weights.** A weighted fit uses the weighted likelihood ``prod_d p(x_d,
    y_d | pi, phi)^{w_d}``: every count becomes a weighted sum (``n_k = sum_{d: y_d = k}
    w_d``, ``N_kv = sum_{d: y_d = k} w_d x_dv``), as in scikit-learn's ``MultinomialNB``.
    The posterior stays conjugate, and an integer weight is exactly the row repeated.
    It is a power likelihood, not a model of the data: a weight of 2 claims the row
    was seen twice, so weights that do not sum to the number of observations make the
    posterior over- or under-confident. Unlabelled rows take integer weights only
    (:func:`zoo.models.semi_supervised.checked_weights`).

    **Unlabelled rows** (``y == -1``). The posterior given the labelled rows is
    conjugate and serves as the prior of the rest; the remaining posterior is a mixture
    over the labelings ``z`` of the unlabelled rows, ``p(z | D) ∝ prod_k
    Gamma(a_k + n_k(z)) prod_k [prod_v Gamma(b_kv + N_kv(z)) / Gamma(B_k + T_k(z))]``
    (Nigam et al. 2000; Resnik & Hardisty 2010), and the predictive is the mixture of
    the conjugate predictives. When ``K^U <= max_labelings`` every labeling is
    enumerated (pruned as :func:`zoo.models.labelings.heaviest` bounds) and the
    predictive is exact. Otherwise ``n_draws`` sweeps of the model's collapsed Gibbs
    kernel (pi and phi integrated out) give labelings ``z_s`` and the predictive is
    ``p(y = k, x | D) ≈ (1/S) sum_s p(y = k, x | D, z_s)``, normalised over k: a
    Rao-Blackwellised Monte Carlo average with error of order ``1 / sqrt(ESS)``. The
    Gibbs kernel models counts, so the multinomial model's unlabelled rows must then
    hold integer counts; the kernel's data are dense, so those rows (only they) are
    densified, over the words they use (the others merged into one column, which is
    exact by the Dirichlet's aggregation property; the Bernoulli model needs every
    feature). The fitted mixture stores each component's labeling, and prediction
    costs one ``(n_classes, n_features)`` table per component.

    **Sparse input.** ``X`` may be a ``scipy.sparse`` matrix or array (CSR or CSC;
    other formats are converted to CSR); counts are summed with sparse products and
    the log-likelihood of a row is evaluated on its non-zero entries only.
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
        max_labelings=1024,
        n_draws=500,
        n_tune=100,
        random_state=None,
    ):
        self.event_model = event_model
        self.alpha = alpha
        self.beta = beta
        self.beta0 = beta0
        self.predictive = predictive
        self.class_prior = class_prior
        self.binarize = binarize
        self.max_labelings = max_labelings
        self.n_draws = n_draws
        self.n_tune = n_tune
        self.random_state = random_state

    def __sklearn_tags__(self):
        """Sparse input accepted; multinomial counts must be non-negative.

        ``poor_score`` for the multinomial model, as scikit-learn's ``MultinomialNB``
        declares: the common checks train on shifted Gaussian blobs, which are not
        counts, and a multinomial model need not reach their 0.83 accuracy on them.
        """
        tags = super().__sklearn_tags__()
        multinomial = self.event_model == "multinomial"
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = multinomial
        tags.classifier_tags.poor_score = multinomial
        return tags

    # -- checks ------------------------------------------------------------------------

    def _check_settings(self):
        choices = (
            ("event_model", self.event_model, ("multinomial", "bernoulli")),
            ("predictive", self.predictive, ("bayes", "plugin")),
            ("class_prior", self.class_prior, ("posterior-mean", "empirical")),
        )
        for field, value, allowed in choices:
            if value not in allowed:
                raise ValueError(f"{field}: must be one of {allowed}, got {value!r}")
        as_int("max_labelings", self.max_labelings, minimum=1)
        as_int("n_draws", self.n_draws, minimum=1)
        as_int("n_tune", self.n_tune, minimum=0)

    def _features(self, X) -> sparse.csr_array:
        """Validated features as a canonical CSR array (a new one if anything changes).

        Non-negativity is checked on the stored entries only (``.data`` of a sparse
        matrix), so a sparse input is never densified.
        """
        if self.event_model == "multinomial":
            check_non_negative(X, "DirichletNaiveBayes (multinomial event model)")
        elif self.binarize is not None:
            X = binarized(X, threshold=self.binarize, copy=True)
        else:
            values = X.data if sparse.issparse(X) else X
            if not np.isin(values, (0.0, 1.0)).all():
                raise ValueError(
                    "X: the Bernoulli event model with binarize=None takes 0/1 features"
                )
        X = sparse.csr_array(X)  # a new container; the caller's matrix is not touched
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        return X

    # -- fitting -----------------------------------------------------------------------

    def fit(self, X, y, sample_weight=None):
        """Fit the posterior to labelled and (``y == -1``) unlabelled rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Counts (multinomial) or features to binarise (Bernoulli).
        y : array-like of shape (n_samples,)
            Class labels; ``-1`` marks an unlabelled row.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of a weighted likelihood (class Notes); integers on
            unlabelled rows.

        Returns
        -------
        self : DirichletNaiveBayes
        """
        self._check_settings()
        X, y = validate_data(
            self, X, y, accept_sparse=_SPARSE_FORMATS, dtype=np.float64, reset=True
        )
        check_classification_targets(y)
        unlabelled = unlabelled_rows(y)
        weights = checked_weights(sample_weight, X, unlabelled)
        for name in ("classes_", "class_count_", "feature_count_", "_unlabelled"):
            if hasattr(self, name):
                delattr(self, name)
        return self._accumulate(X, y, unlabelled, weights, np.unique(y[~unlabelled]))

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch to the posterior.

        Labelled rows add to the counts (conjugacy). Unlabelled rows are kept, and the
        mixture over their labelings is recomputed from all of them after each batch,
        so the result is that of one ``fit`` on all batches (a sampled mixture: the same
        chain for the same ``random_state`` whenever the summed counts are exact, as
        with integer counts and weights).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels; ``-1`` marks an unlabelled row.
        classes : array-like of shape (n_classes,), default=None
            Every class, required on the first call (without ``-1``).
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : DirichletNaiveBayes
        """
        self._check_settings()
        first = _check_partial_fit_first_call(self, classes)
        if first and np.any(np.asarray(classes, dtype=object) == MISSING):
            raise ValueError(f"classes: {MISSING} marks unlabelled rows, it is not a class")
        X, y = validate_data(
            self, X, y, accept_sparse=_SPARSE_FORMATS, dtype=np.float64, reset=first
        )
        check_classification_targets(y)
        unlabelled = unlabelled_rows(y)
        weights = checked_weights(sample_weight, X, unlabelled)
        return self._accumulate(X, y, unlabelled, weights, self.classes_)

    def _accumulate(self, X, y, unlabelled, weights, classes):
        X = self._features(X)
        self.classes_ = np.asarray(classes)
        k = len(self.classes_)
        labelled = np.flatnonzero(~unlabelled)
        index = np.searchsorted(self.classes_, y[labelled])
        if np.any(index >= k) or np.any(self.classes_[np.minimum(index, k - 1)] != y[labelled]):
            raise ValueError("y: contains labels not in classes")
        if not hasattr(self, "class_count_"):
            self.class_count_ = np.zeros(k)
            self.feature_count_ = np.zeros((k, X.shape[1]))
            self._unlabelled = (sparse.csr_array((0, X.shape[1])), np.zeros(0, dtype=np.int64))
        # Weighted one-hot labels: the counts are weighted sums (sparse @ dense).
        onehot = np.zeros((labelled.size, k))
        onehot[np.arange(labelled.size), index] = weights[labelled]
        self.class_count_ = self.class_count_ + onehot.sum(axis=0)
        self.feature_count_ = self.feature_count_ + (X[labelled].T @ onehot).T
        rows, repeats = self._unlabelled
        hidden = np.flatnonzero(unlabelled)
        self._unlabelled = (
            sparse.vstack([rows, X[hidden]], format="csr"),
            np.concatenate([repeats, weights[hidden].astype(np.int64)]),
        )
        self._posterior_given_labels()  # validate the hyperparameters' shapes now
        self._fit_mixture()
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

    def _posterior_given_labels(self):
        """``(alpha + n, beta + N, beta0 + n - N)``: the posterior of the labelled rows."""
        alpha, beta, beta0 = self._hyperparameters()
        a = alpha + self.class_count_
        b = beta + self.feature_count_
        b0 = None if beta0 is None else beta0 + self.class_count_[:, None] - self.feature_count_
        return a, b, b0

    def _mixture_rows(self) -> sparse.csr_array:
        """The unlabelled rows that inform the parameters, each repeated by its weight."""
        rows, repeats = self._unlabelled
        if self.event_model == "multinomial":
            # A row without a word has likelihood sum_k pi_k * 1 = 1: no information.
            repeats = np.where(np.asarray(rows.sum(axis=1)).ravel() > 0, repeats, 0)
        return rows[np.repeat(np.arange(rows.shape[0]), repeats)]

    def _fit_mixture(self):
        rows = self._mixture_rows()
        k, u = len(self.classes_), rows.shape[0]
        space = Labelings(k, u, limit=as_int("max_labelings", self.max_labelings, minimum=1))
        self.n_unlabelled_ = u
        if space.enumerable:
            labelings, weights = self._enumerate(rows, space)
            index = np.zeros(0, dtype=np.int64)
        else:
            labelings, weights, index = distinct_labelings(self._sample(rows))
        self.labelings_, self.labeling_weights_ = labelings, weights
        self.draw_labeling_, self.exact_ = index, bool(space.enumerable)

    def _component(self, rows, labeling, base):
        """Conjugate posterior ``(a, b, b0)`` given the labeling of the unlabelled rows."""
        a, b, b0 = base
        k = a.shape[0]
        onehot = np.zeros((labeling.size, k))
        onehot[np.arange(labeling.size), labeling] = 1.0
        n = onehot.sum(axis=0)
        counts = (rows.T @ onehot).T
        return a + n, b + counts, None if b0 is None else b0 + n[:, None] - counts

    def _enumerate(self, rows, space: Labelings):
        a, b, b0 = self._posterior_given_labels()
        # K^U <= max_labelings keeps U small (U <= log2(max_labelings)): dense is cheap.
        dense = rows.toarray()

        def labeling_log_weights(index):
            onehot = space.onehot(index)  # (C, U, K)
            n = onehot.sum(axis=1)
            counts = np.einsum("cuk,uv->ckv", onehot, dense)
            return log_labeling_weight(
                a + n, b + counts, None if b0 is None else b0 + n[:, :, None] - counts
            )

        check_enumeration(space, labeling_log_weights, b.size)
        log_weights = np.empty(space.count)
        for index in space.chunks(b.size):
            log_weights[index] = labeling_log_weights(index)
        weights = np.exp(log_weights - special.logsumexp(log_weights))
        kept, _ = heaviest(weights)
        return space.classes(kept), weights[kept] / weights[kept].sum()

    def _sample(self, rows) -> np.ndarray:
        if self.event_model == "multinomial" and not np.all(rows.data == np.floor(rows.data)):
            raise ValueError(
                "X: the unlabelled rows must hold integer counts when their labelings are "
                f"sampled (more than max_labelings={self.max_labelings}): the Gibbs kernel "
                "models counts. Raise max_labelings or label those rows"
            )
        a, b, b0 = self._posterior_given_labels()
        if self.event_model == "multinomial":
            # Words absent from every unlabelled row enter the collapsed conditional only
            # through the class's total pseudo-count, so they merge into one column of
            # zero counts (the Dirichlet's aggregation property; exact). The kernel's
            # dense counts are then U x (words used + 1), not U x V.
            used = np.zeros(b.shape[1], dtype=bool)
            used[rows.indices] = True
            counts = rows[:, np.flatnonzero(used)].toarray()
            if not used.all():
                b = np.column_stack([b[:, used], b[:, ~used].sum(axis=1)])
                counts = np.column_stack([counts, np.zeros(rows.shape[0])])
        else:
            counts = rows.toarray()  # every Bernoulli feature counts, present or absent
        data = Data(
            counts.astype(np.int64),
            np.full(rows.shape[0], MISSING),
            classes=a.shape[0],
            event_model=self.event_model,
        )
        prior = Prior(alpha=a, beta=b, beta0=b0)
        return labeling_draws(
            kernel,
            data,
            prior,
            n_draws=as_int("n_draws", self.n_draws, minimum=1),
            n_tune=as_int("n_tune", self.n_tune, minimum=0),
            rng=generator(self.random_state),
        )

    # -- prediction --------------------------------------------------------------------

    def _components(self):
        """Yield ``(log weight, a, b, b0)`` of each mixture component."""
        rows = self._mixture_rows()
        base = self._posterior_given_labels()
        for labeling, weight in zip(self.labelings_, self.labeling_weights_, strict=True):
            yield (np.log(weight), *self._component(rows, labeling, base))

    def predict_joint_log_proba(self, X):
        """``log p(y = k, x | D)`` up to a constant per row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The multinomial coefficient of each row (the same for every class) is left
            out.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse=_SPARSE_FORMATS, dtype=np.float64, reset=False)
        X = self._features(X)
        if self.predictive == "plugin":
            return self._plugin_joint(X)
        joints = [
            log_weight + _log_predictive(X, a, b, b0)
            for log_weight, a, b, b0 in self._components()
        ]
        return special.logsumexp(np.stack(joints), axis=0)

    def _plugin_joint(self, X):
        # Posterior means of pi and phi, mixed over the components.
        mean_pi, mean_phi = 0.0, 0.0
        for log_weight, a, b, b0 in self._components():
            weight = np.exp(log_weight)
            mean_pi = mean_pi + weight * a / a.sum()
            total = b.sum(axis=1, keepdims=True) if b0 is None else b + b0
            mean_phi = mean_phi + weight * b / total
        if self.class_prior == "empirical":
            mean_pi = self.class_count_ / self.class_count_.sum()
        log_prior = np.log(mean_pi)
        if self.event_model == "bernoulli":
            log_on, log_off = np.log(mean_phi), np.log1p(-mean_phi)
            return log_prior + X @ (log_on - log_off).T + log_off.sum(axis=1)
        return log_prior + X @ np.log(mean_phi).T

    def predict_log_proba(self, X):
        """Log class probabilities.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        joint = self.predict_joint_log_proba(X)
        return joint - special.logsumexp(joint, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Class probabilities.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """Most probable class of each sample.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        joint = self.predict_joint_log_proba(X)
        return self.classes_[np.argmax(joint, axis=1)]


def _log_predictive(X: sparse.csr_array, a, b, b0) -> np.ndarray:
    """``log p(y = k, x | a, b[, b0])`` for each row of ``X``, shape (n_samples, K).

    Multinomial: ``log(a_k / sum a) + log DirMult(x | b_k)`` without the multinomial
    coefficient, ``Gamma(B_k) / Gamma(B_k + L) prod_{v: x_v > 0} Gamma(b_kv + x_v) /
    Gamma(b_kv)`` (Minka, "Estimating a Dirichlet distribution", 2000), the product
    over the stored entries of the row only. Bernoulli: each feature's Beta-Bernoulli
    predictive is its posterior mean ``b / (b + b0)``, so ``x log p + (1 - x) log(1 - p)``,
    written as ``x (log p - log(1 - p)) + sum log(1 - p)`` to stay sparse.
    """
    log_prior = np.log(a) - np.log(a.sum())
    if b0 is not None:
        log_on, log_off = np.log(b) - np.log(b + b0), np.log(b0) - np.log(b + b0)
        return log_prior + X @ (log_on - log_off).T + log_off.sum(axis=1)
    total = b.sum(axis=1)
    lengths = np.asarray(X.sum(axis=1)).ravel()
    joint = special.gammaln(total) - special.gammaln(total + lengths[:, None])
    present = b[:, X.indices]  # (K, nnz)
    terms = special.gammaln(present + X.data) - special.gammaln(present)
    # Row sums of the per-entry terms: an (n_samples, nnz) indicator times (nnz, K).
    rows = sparse.csr_array(
        (np.ones(X.nnz), np.arange(X.nnz), X.indptr), shape=(X.shape[0], X.nnz)
    )
    return log_prior + joint + rows @ terms.T
