"""Dirichlet-prior Naive Bayes: the exact posterior.

Fully labelled, conjugacy gives (Murphy 2012, sections 3.4 and 3.5)

    pi | y ~ Dir(alpha + n),            n_k = #{d: y_d = k}
    phi_k | X, y ~ Dir(beta_k + N_k)    (multinomial; N_kv = sum_{d: y_d = k} x_dv)
    phi_kv | X, y ~ Beta(beta1_kv + N_kv, beta0_kv + n_k - N_kv)   (Bernoulli)

and the posterior predictive class probability of a new document is
``p(y = k | x, D) ∝ (alpha_k + n_k) DirMult(x | beta_k + N_k)`` (Murphy 2012,
sections 3.4 and 3.5), not the plug-in ``pi_k prod_v phi_kv^x_v``.

With ``U`` unlabelled documents the posterior is a finite mixture over all ``K^U``
labelings ``z`` of them, each weighted by its marginal likelihood with pi and phi
integrated out (Resnik & Hardisty, "Gibbs sampling for the uninitiated", 2010,
Nigam et al., Machine Learning 39, 2000):

    p(z | X, y_L) ∝ prod_k Gamma(alpha_k + n_k(z))
                    * prod_k [prod_v Gamma(beta_kv + N_kv(z)) / Gamma(B_k + T_k(z))]

(multinomial; ``B_k = sum_v beta_kv``, ``T_k`` the words of class k; the
Bernoulli model has one Beta function per feature instead). Every marginal of pi_k
and phi_kv is then a mixture of Betas: exact moments from all components, and a
tabulated CDF from the heaviest components (all but 1e-12 of the mass, at most 4096).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from zoo.core.arguments import as_count_array
from zoo.core.reference import NoReference, Reference
from zoo.models.labelings import (
    MAX_LABELINGS,
    BetaMoments,
    Labelings,
    heaviest,
    probability_marginal,
)
from zoo.models.mixtures import mixture_marginal
from zoo.models.naive_bayes.conditional import class_probability
from zoo.models.naive_bayes.spec import Data, Prior

__all__ = ["MAX_LABELINGS", "NaiveBayesPosterior", "log_labeling_weight", "posterior"]

# CDF tabulation evaluates (257 nodes + ~45 bisection steps) x components x elements
# incomplete beta functions; beyond this many component-elements it is not cheap.
_CDF_BUDGET = 250_000
# At most this many components are stored (for CDFs and predictions); the moments
# always use every labeling.
_MAX_COMPONENTS = 4096


@dataclass(frozen=True)
class Components:
    """A mixture of conjugate posteriors, one per labeling of the unlabelled documents.

    Attributes
    ----------
    weights : ndarray, shape (C,)
        Posterior probabilities of the labelings (summing to 1).
    alpha : ndarray, shape (C, K)
        ``pi | z ~ Dir(alpha[c])``.
    beta, beta0 : ndarray, shape (C, K, V)
        Multinomial: ``phi_k | z ~ Dir(beta[c, k])`` (beta0 is None). Bernoulli:
        ``phi_kv | z ~ Beta(beta[c, k, v], beta0[c, k, v])``.
    """

    weights: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray
    beta0: np.ndarray | None

    def phi_beta_parameters(self) -> tuple[np.ndarray, np.ndarray]:
        """Parameters ``(a, b)`` of the Beta marginal of each phi_kv in each component."""
        if self.beta0 is not None:
            return self.beta, self.beta0
        return self.beta, self.beta.sum(axis=2, keepdims=True) - self.beta

    def pi_beta_parameters(self) -> tuple[np.ndarray, np.ndarray]:
        """Parameters ``(a, b)`` of the Beta marginal of each pi_k in each component."""
        return self.alpha, self.alpha.sum(axis=1, keepdims=True) - self.alpha


@dataclass(frozen=True)
class NaiveBayesPosterior(Reference):
    """Exact posterior of Naive Bayes: closed form, or a mixture over labelings.

    Attributes
    ----------
    event_model : str
    components : Components
        The heaviest labelings, up to all but 1e-12 of the posterior mass and at most
        4096 of them (one when every document is labelled).
    labelings : int
        ``K^U``, the number of labelings enumerated.
    class_probability : ndarray, shape (U, K)
        ``P(y_u = k | X, y_L)`` for every unlabelled document.
    class_counts : ndarray, shape (K,)
        Labelled documents per class (for the empirical class prior).
    """

    event_model: str = "multinomial"
    components: Components | None = None
    labelings: int = 1
    class_probability: np.ndarray | None = None
    class_counts: np.ndarray | None = None

    def posterior_mean(self) -> tuple[np.ndarray, np.ndarray]:
        """Posterior means ``(E[pi], E[phi])``; with beta = 1 the latter is Laplace smoothing."""
        return np.asarray(self.marginals["pi"].mean), np.asarray(self.marginals["phi"].mean)

    def predict_log_proba(self, counts) -> np.ndarray:
        """Log posterior predictive class probabilities of new documents, shape (N, K).

        ``log p(y = k | x, D)`` with pi and phi integrated out: a Dirichlet-multinomial
        (or Beta-Bernoulli) per class, mixed over the labelings of the unlabelled
        training documents (Murphy 2012, section 3.4).
        """
        counts = _new_documents(counts, self.components.beta.shape[2], self.event_model)
        c = self.components
        log_pi = np.log(c.alpha) - np.log(c.alpha.sum(axis=1, keepdims=True))  # (C, K)
        if self.event_model == "multinomial":
            log_x = _log_dirichlet_multinomial(counts, c.beta)  # (N, C, K)
        else:
            total = c.beta + c.beta0
            log_on = np.log(c.beta) - np.log(total)
            log_off = np.log(c.beta0) - np.log(total)
            log_x = np.einsum("nv,ckv->nck", counts, log_on) + np.einsum(
                "nv,ckv->nck", 1.0 - counts, log_off
            )
        joint = special.logsumexp(np.log(c.weights)[None, :, None] + log_pi + log_x, axis=1)
        return joint - special.logsumexp(joint, axis=1, keepdims=True)

    def predict_proba(self, counts) -> np.ndarray:
        """Posterior predictive class probabilities of new documents, shape (N, K)."""
        return np.exp(self.predict_log_proba(counts))

    def plugin_proba(self, counts, *, class_prior: str = "posterior-mean") -> np.ndarray:
        """Plug-in class probabilities with phi at its posterior mean, shape (N, K).

        Parameters
        ----------
        class_prior : {"posterior-mean", "empirical"}
            pi at its posterior mean, or at the labelled documents' class frequencies
            (what scikit-learn's ``MultinomialNB`` / ``BernoulliNB`` use by default).
        """
        pi, phi = self.posterior_mean()
        if class_prior == "empirical":
            pi = self.class_counts / self.class_counts.sum()
        elif class_prior != "posterior-mean":
            raise ValueError(
                f"class_prior: must be 'posterior-mean' or 'empirical', got {class_prior!r}"
            )
        counts = _new_documents(counts, phi.shape[1], self.event_model)
        return class_probability(counts, pi, phi, event_model=self.event_model)


def _new_documents(counts, n_features: int, event_model: str) -> np.ndarray:
    counts = as_count_array("counts", counts, ndim=2)
    if counts.shape[1] != n_features:
        raise ValueError(f"counts: expected {n_features} feature columns, got {counts.shape[1]}")
    if event_model == "bernoulli" and (counts > 1).any():
        raise ValueError("counts: the Bernoulli event model takes 0/1 features")
    return counts.astype(float)


def _log_dirichlet_multinomial(counts: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """``log DirMult(x_n | beta[c, k])`` without the multinomial coefficient, (N, C, K).

    ``Gamma(B) / Gamma(B + L) * prod_v Gamma(beta_v + x_v) / Gamma(beta_v)``
    (Minka, "Estimating a Dirichlet distribution", 2000).
    """
    total = beta.sum(axis=2)  # (C, K)
    lengths = counts.sum(axis=1)  # (N,)
    out = special.gammaln(total)[None] - special.gammaln(total[None] + lengths[:, None, None])
    for n in range(counts.shape[0]):
        present = counts[n] > 0
        b = beta[:, :, present]
        out[n] += np.sum(special.gammaln(b + counts[n, present]) - special.gammaln(b), axis=2)
    return out


def log_labeling_weight(alpha, beta, beta0=None) -> np.ndarray:
    """Log posterior weight of each labeling, up to one constant, from its conjugate posterior.

    With pi and phi integrated out, ``p(z | X, y_L)`` is proportional to the product of
    the normalisers of the posterior Dirichlets (module docstring). Terms that do not
    depend on the labeling (``Gamma(sum alpha + D)``, the prior normalisers, the
    multinomial coefficients) are left out, so only differences between labelings of
    the same data mean anything.

    Parameters
    ----------
    alpha : ndarray, shape (C, K)
        ``alpha + n(z)`` of each labeling.
    beta : ndarray, shape (C, K, V)
        ``beta + N(z)`` (Bernoulli: ``beta1 + N(z)``).
    beta0 : ndarray, shape (C, K, V), optional
        Bernoulli only: ``beta0 + n(z) - N(z)``; None for the multinomial model.

    Returns
    -------
    ndarray, shape (C,)
    """
    weight = special.gammaln(alpha).sum(axis=1)
    if beta0 is not None:
        weight += np.sum(
            special.gammaln(beta) + special.gammaln(beta0) - special.gammaln(beta + beta0),
            axis=(1, 2),
        )
    else:
        weight += special.gammaln(beta).sum(axis=(1, 2))
        weight -= special.gammaln(beta.sum(axis=2)).sum(axis=1)
    return weight


def posterior(data: Data, prior: Prior, *, max_labelings: int = MAX_LABELINGS):
    """Exact posterior of Dirichlet-prior Naive Bayes.

    Parameters
    ----------
    data : Data
    prior : Prior
    max_labelings : int
        Enumerate the ``K^U`` labelings of the unlabelled documents only up to this
        many (default 2^16).

    Returns
    -------
    NaiveBayesPosterior or NoReference
        Marginals of ``pi`` (class), ``phi`` (class, feature) and ``class_probability``
        (unlabelled, class). The last is ``p(y_u = k | pi, phi, x_u)`` per draw, whose
        posterior mean is ``P(y_u = k | X, y_L)`` (all of them in the attribute
        ``class_probability``); its sd has no closed form and is NaN, and so is the mean
        of an element within ``NEAR_CERTAIN`` (0.025) of 0 or 1, which draws cannot estimate
        reliably (:data:`zoo.models.labelings.NEAR_CERTAIN`).
    """
    if not isinstance(data, Data):
        raise ValueError(f"data: expected naive_bayes.Data, got {type(data).__name__}")
    if not isinstance(prior, Prior):
        raise ValueError(f"prior: expected naive_bayes.Prior, got {type(prior).__name__}")
    hyper = prior.resolve(data)
    k, u = data.n_classes, data.unlabelled.size
    space = Labelings(k, u, limit=max_labelings)
    if not space.enumerable:
        return NoReference(space.too_many("unlabelled documents"))
    labelings = space.count
    base_n = data.class_counts().astype(float)
    base_counts = data.feature_counts().astype(float)
    unlabelled = data.counts[data.unlabelled].astype(float)
    bernoulli = data.event_model == "bernoulli"
    per_labeling = k * data.n_features

    def labeling_statistics(index):
        onehot = space.onehot(index)  # (C, U, K)
        n = base_n + onehot.sum(axis=1)
        counts = base_counts + np.einsum("cuk,uv->ckv", onehot, unlabelled)
        alpha = hyper.alpha + n
        beta = hyper.beta + counts
        beta0 = hyper.beta0 + n[:, :, None] - counts if bernoulli else None
        return onehot, alpha, beta, beta0

    log_weights = np.empty(labelings)
    for index in space.chunks(per_labeling):
        log_weights[index] = log_labeling_weight(*labeling_statistics(index)[1:])
    weights = np.exp(log_weights - special.logsumexp(log_weights))

    # Second pass: exact moments from every labeling, by the law of total variance.
    sums = {"pi": BetaMoments((k,)), "phi": BetaMoments((k, data.n_features))}
    class_sum = np.zeros((u, k))
    for index in space.chunks(per_labeling):
        onehot, alpha, beta, beta0 = labeling_statistics(index)
        w = weights[index]
        part = Components(w, alpha, beta, beta0)
        sums["pi"].add(w, *part.pi_beta_parameters())
        sums["phi"].add(w, *part.phi_beta_parameters())
        class_sum += np.tensordot(w, onehot, axes=1)
    moments = {name: moment.result() for name, moment in sums.items()}

    # Keep the heaviest labelings holding all but a negligible mass, for CDFs and the
    # predictive distribution; memory: each component holds K V numbers (twice for
    # Bernoulli).
    kept, dropped = heaviest(weights, at_most=_MAX_COMPONENTS)
    _, alpha_kept, beta_kept, beta0_kept = labeling_statistics(kept)
    components = Components(weights[kept] / weights[kept].sum(), alpha_kept, beta_kept, beta0_kept)
    cheap = kept.size * k * (data.n_features + 1) <= _CDF_BUDGET
    marginals = {}
    for name, dims, (a, b) in (
        ("pi", ("class",), components.pi_beta_parameters()),
        ("phi", ("class", "feature"), components.phi_beta_parameters()),
    ):
        mean, sd = moments[name]
        marginals[name] = mixture_marginal(
            dims,
            components.weights,
            stats.beta(a, b),
            mean=mean,
            sd=sd,
            with_cdf=cheap,
            scale="logit",
        )
    marginals["class_probability"] = probability_marginal(("unlabelled", "class"), class_sum)
    if u == 0:
        # Nothing to test in a (0, K) array, and the diagnostics reduce over elements.
        del marginals["class_probability"]
        note = "closed form: pi | y ~ Dir(alpha + n), phi | X, y conjugate"
    else:
        note = (
            f"exact mixture over {labelings} labelings of {u} unlabelled documents "
            f"(CDFs and predictions from the {kept.size} heaviest, which leave out "
            f"{max(dropped, 0.0):.1g} of the mass"
            f"{'' if cheap else '; too many for cheap CDFs: moments only'})"
        )
    return NaiveBayesPosterior(
        marginals=marginals,
        coords=data.coords,
        note=note,
        event_model=data.event_model,
        components=components,
        labelings=labelings,
        class_probability=class_sum,
        class_counts=data.class_counts(),
    )
