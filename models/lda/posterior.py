"""LDA: the exact posterior of a tiny corpus, by enumerating every topic assignment.

With theta and phi integrated out, the joint probability of the words ``w`` and an
assignment ``z`` of topics to all N tokens is (Griffiths & Steyvers, PNAS 101, 2004,
equations 2-3; each factor a Dirichlet-multinomial, Minka, "Estimating a Dirichlet
distribution", 2000)

    p(w, z) = prod_d [Gamma(A) / Gamma(A + L_d) prod_k Gamma(alpha_k + n_dk) / Gamma(alpha_k)]
            * prod_k [Gamma(B) / Gamma(B + n_k) prod_w Gamma(beta_w + n_kw) / Gamma(beta_w)]

(``A = sum alpha``, ``B = sum beta``, ``n_dk`` tokens of document d in topic k, ``n_kw``
tokens of word w in topic k, ``n_k`` all tokens in topic k). Normalised over the
``K^N`` assignments it is the posterior ``p(z | w)``, and given z the parameters are
independent Dirichlets,

    theta_d | z ~ Dir(alpha + n_d.),        phi_k | z ~ Dir(beta + n_k.),

so every posterior quantity is a finite mixture over assignments with exact moments.
The enumeration is feasible up to ``K^N = 2^16`` assignments (:data:`MAX_ASSIGNMENTS`);
beyond, :func:`posterior` answers :class:`~zoo.diagnostics.NoReference`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from zoo.core.reference import Marginal, NoReference, Reference
from zoo.models.labelings import (
    MAX_LABELINGS,
    BetaMoments,
    Labelings,
    probability_marginal,
)
from zoo.models.lda.spec import Data, Prior
from zoo.models.mixtures import mixture_marginal

__all__ = [
    "MAX_ASSIGNMENTS",
    "LdaPosterior",
    "doc_word_moments",
    "log_joint",
    "posterior",
]

# An assignment of topics to the N tokens is a labeling of them: the same cap.
MAX_ASSIGNMENTS = MAX_LABELINGS
# CDF tabulation costs (nodes + bisection steps) x components x elements incomplete
# beta functions; beyond this many component-elements it is not cheap.
_CDF_BUDGET = 250_000


def log_joint(data: Data, prior: Prior, topic) -> float:
    """``log p(w, z)`` of one assignment, with theta and phi integrated out (exact).

    The full Griffiths & Steyvers (2004) collapsed joint, constants included, summed
    with :func:`math.lgamma`; the enumeration uses the same expression vectorised.
    """
    hyper = prior.resolve(data)
    topic = np.asarray(topic, dtype=np.int64)
    if topic.shape != (data.n_tokens,):
        raise ValueError(f"topic: expected shape ({data.n_tokens},), got {topic.shape}")
    if topic.size and (topic.min() < 0 or topic.max() >= data.n_topics):
        raise ValueError(f"topic: topics must lie in [0, {data.n_topics})")
    k = data.n_topics
    doc_topic = np.zeros((data.n_documents, k), dtype=np.int64)
    np.add.at(doc_topic, (data.token_document, topic), 1)
    word_topic = np.zeros((data.n_words, k), dtype=np.int64)
    np.add.at(word_topic, (data.token_word, topic), 1)
    alpha_sum = float(hyper.alpha.sum())
    total = 0.0
    for d in range(data.n_documents):
        total += math.lgamma(alpha_sum) - math.lgamma(alpha_sum + doc_topic[d].sum())
        for j in range(k):
            total += math.lgamma(hyper.alpha[j] + doc_topic[d, j]) - math.lgamma(hyper.alpha[j])
    for j in range(k):
        total += math.lgamma(hyper.beta_sum) - math.lgamma(hyper.beta_sum + word_topic[:, j].sum())
        for w in range(data.n_words):
            total += math.lgamma(hyper.beta[w] + word_topic[w, j]) - math.lgamma(hyper.beta[w])
    return total


def doc_word_moments(
    doc_alpha: np.ndarray, topic_beta: np.ndarray, pairs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``E[x]`` and ``E[x^2]`` of ``x_dw = sum_k theta_dk phi_kw`` given z.

    ``theta_d ~ Dir(a_d)`` and ``phi_k ~ Dir(b_k)``, all independent. Write
    ``A_d = sum_k a_dk``, ``B_k = sum_w b_kw``, ``m_kw = b_kw / B_k``. Dirichlet second
    moments (Minka 2000; Kotz, Balakrishnan & Johnson, *Continuous Multivariate
    Distributions*, 2000, section 49.1):

        E[theta_dk theta_dk'] = a_dk (a_dk' + 1{k = k'}) / (A_d (A_d + 1))
        E[phi_kw phi_k'w]     = m_kw m_k'w                           (k != k', independent)
                              = b_kw (b_kw + 1) / (B_k (B_k + 1))   (k = k')

    Expanding ``x^2 = sum_k sum_k' theta_dk theta_dk' phi_kw phi_k'w`` and using the
    independence of theta from phi:

        E[x]   = sum_k (a_dk / A_d) m_kw
        E[x^2] = [ (sum_k a_dk m_kw)^2 - sum_k a_dk^2 m_kw^2
                   + sum_k a_dk (a_dk + 1) b_kw (b_kw + 1) / (B_k (B_k + 1)) ]
                 / (A_d (A_d + 1))

    (the ``k != k'`` terms are the full square minus its diagonal; the diagonal takes
    both within-Dirichlet second moments). Vectorised over leading axes.

    Parameters
    ----------
    doc_alpha : ndarray, shape (..., D, K)
        Dirichlet parameters of every theta_d.
    topic_beta : ndarray, shape (..., K, V)
        Dirichlet parameters of every phi_k.
    pairs : ndarray of int, shape (P, 2)
        (d, w) pairs.

    Returns
    -------
    mean, second : ndarray, shape (..., P)
    """
    a = doc_alpha[..., pairs[:, 0], :]  # (..., P, K)
    big_a = a.sum(axis=-1)
    b_all = topic_beta.sum(axis=-1)  # (..., K)
    b = np.swapaxes(topic_beta[..., :, pairs[:, 1]], -1, -2)  # (..., P, K)
    m = b / b_all[..., None, :]
    mean = np.sum(a * m, axis=-1) / big_a
    same_topic = b * (b + 1.0) / (b_all[..., None, :] * (b_all[..., None, :] + 1.0))
    second = (
        np.sum(a * m, axis=-1) ** 2
        - np.sum(a**2 * m**2, axis=-1)
        + np.sum(a * (a + 1.0) * same_topic, axis=-1)
    ) / (big_a * (big_a + 1.0))
    return mean, second


@dataclass(frozen=True)
class LdaPosterior(Reference):
    """Exact posterior of LDA on a tiny corpus, as a mixture over topic assignments.

    Attributes
    ----------
    assignments : int
        ``K^N``, the number of assignments enumerated.
    topic_probability : ndarray, shape (N, K)
        ``P(z_i = k | w)`` for every token.
    coassignment_probability : ndarray, shape (N, N)
        ``P(z_i = z_j | w)`` for every pair of tokens (1 on the diagonal).
    """

    assignments: int = 1
    topic_probability: np.ndarray | None = None
    coassignment_probability: np.ndarray | None = None


def posterior(data: Data, prior: Prior, *, max_assignments: int = MAX_ASSIGNMENTS):
    """Exact posterior of LDA by enumerating every topic assignment.

    Parameters
    ----------
    data : Data
    prior : Prior
    max_assignments : int
        Enumerate the ``K^N`` assignments only up to this many (default 2^16).

    Returns
    -------
    LdaPosterior or NoReference
        Marginals of ``doc_word`` (mean and sd exact) and ``coassignment`` (mean exact:
        it is ``P(z_i = z_j | w)``; its sd has no closed form and is NaN, and so is the
        mean of a pair within :data:`zoo.models.labelings.NEAR_CERTAIN` of 0 or 1, which
        draws cannot estimate reliably).
        With an asymmetric ``alpha`` (identified topics) also ``theta`` and ``phi``:
        mixtures of Betas with exact moments and, when cheap, tabulated CDFs. With a
        symmetric ``alpha`` their exact marginals exist but are symmetric across topic
        labels, which a sampler whose chains each stay near one labeling never shows;
        they are left out (``docs/design.md``, "Pitfalls").
    """
    if not isinstance(data, Data):
        raise ValueError(f"data: expected lda.Data, got {type(data).__name__}")
    if not isinstance(prior, Prior):
        raise ValueError(f"prior: expected lda.Prior, got {type(prior).__name__}")
    hyper = prior.resolve(data)
    k, n = data.n_topics, data.n_tokens
    space = Labelings(k, n, limit=max_assignments, field="max_assignments")
    if not space.enumerable:
        return NoReference(space.too_many("tokens (topic assignments)"))
    assignments = space.count
    doc_onehot = (data.token_document[:, None] == np.arange(data.n_documents)).astype(float)
    word_onehot = (data.token_word[:, None] == np.arange(data.n_words)).astype(float)
    # Per assignment: one-hot (N K), counts ((D + V) K), co-assignment (N^2), and the
    # doc_word moments (P K).
    per_assignment = n * k + (data.n_documents + data.n_words) * k + n * n
    per_assignment += len(data.doc_word_pairs) * k

    def statistics(index: np.ndarray):
        topic = space.classes(index)  # (C, N)
        onehot = space.onehot(index)  # (C, N, K)
        doc_alpha = hyper.alpha + np.einsum("nd,cnk->cdk", doc_onehot, onehot)
        topic_beta = hyper.beta + np.einsum("nw,cnk->ckw", word_onehot, onehot)
        return topic, onehot, doc_alpha, topic_beta

    def log_weight(doc_alpha, topic_beta):
        # Terms that do not depend on the assignment (Gamma(A) / Gamma(A + L_d), the
        # prior normalisers) are left out.
        weight = special.gammaln(doc_alpha).sum(axis=(1, 2))
        weight += special.gammaln(topic_beta).sum(axis=(1, 2))
        weight -= special.gammaln(topic_beta.sum(axis=2)).sum(axis=1)
        return weight

    log_weights = np.empty(assignments)
    for index in space.chunks(per_assignment):
        log_weights[index] = log_weight(*statistics(index)[2:])
    weights = np.exp(log_weights - special.logsumexp(log_weights))

    pairs = data.doc_word_pairs
    identified = not prior.symmetric
    sums = {
        "doc_word": np.zeros(len(pairs)),
        "doc_word_var": np.zeros(len(pairs)),
        "topic": np.zeros((n, k)),
        "coassignment": np.zeros((n, n)),
    }
    beta_moments = {
        "theta": BetaMoments((data.n_documents, k)),
        "phi": BetaMoments((k, data.n_words)),
    }
    if identified:
        longest = int(data.lengths.max())
        frequent = int(data.word_frequency.max())
        # Posterior mass of each count value: n_dk (D, K, L + 1) and (n_kw, n_k) for
        # phi (K, V, f + 1, N + 1).
        sums["theta_weight"] = np.zeros((data.n_documents, k, longest + 1))
        sums["phi_weight"] = np.zeros((k, data.n_words, frequent + 1, n + 1))
    # First the mixture means, then the spread of the component means about them (law
    # of total variance, without the cancellation of E[x^2] - E[x]^2).
    component_means = []
    for index in space.chunks(per_assignment):
        topic, onehot, doc_alpha, topic_beta = statistics(index)
        w = weights[index]
        mean, second = doc_word_moments(doc_alpha, topic_beta, pairs)
        component_means.append(mean)
        sums["doc_word"] += w @ mean
        sums["doc_word_var"] += w @ np.maximum(second - mean**2, 0.0)
        sums["topic"] += np.tensordot(w, onehot, axes=1)
        same = (topic[:, :, None] == topic[:, None, :]).astype(float)
        sums["coassignment"] += np.tensordot(w, same, axes=1)
        if identified:
            np.add.at(
                sums["theta_weight"],
                (
                    np.arange(data.n_documents)[None, :, None],
                    np.arange(k)[None, None, :],
                    np.rint(doc_alpha - hyper.alpha).astype(np.int64),
                ),
                np.broadcast_to(w[:, None, None], doc_alpha.shape),
            )
            word_count = np.rint(topic_beta - hyper.beta).astype(np.int64)  # (C, K, V)
            np.add.at(
                sums["phi_weight"],
                (
                    np.arange(k)[None, :, None],
                    np.arange(data.n_words)[None, None, :],
                    word_count,
                    word_count.sum(axis=2, keepdims=True),
                ),
                np.broadcast_to(w[:, None, None], word_count.shape),
            )
            beta_moments["theta"].add(w, *_theta_beta(doc_alpha))
            beta_moments["phi"].add(w, *_phi_beta(topic_beta))
    spread = weights @ (np.concatenate(component_means) - sums["doc_word"]) ** 2
    doc_word_sd = np.sqrt(sums["doc_word_var"] + spread)

    left, right = data.token_pairs[:, 0], data.token_pairs[:, 1]
    pair_probability = sums["coassignment"][left, right]
    marginals = {
        "doc_word": Marginal(("doc_word_pair",), sums["doc_word"], doc_word_sd),
        "coassignment": probability_marginal(("token_pair",), pair_probability),
    }
    note = f"exact mixture over all {assignments} topic assignments of {n} tokens"
    if identified:
        # theta_dk | z is Beta(alpha_k + n_dk, A + L_d - alpha_k - n_dk): it depends on
        # z only through n_dk in 0..L_d, so its mixture over all K^N assignments has at
        # most L_d + 1 distinct components; phi_kw | z likewise through (n_kw, n_k).
        # Collapsing them keeps every assignment (no truncation) and makes CDFs cheap.
        theta_a, theta_b, theta_w = _theta_components(data, hyper, sums["theta_weight"])
        phi_a, phi_b, phi_w = _phi_components(data, hyper, sums["phi_weight"])
        for name, dims, a, b, w in (
            ("theta", ("document", "topic"), theta_a, theta_b, theta_w),
            ("phi", ("topic", "word"), phi_a, phi_b, phi_w),
        ):
            mean, sd = beta_moments[name].result()
            marginals[name] = mixture_marginal(
                dims,
                w,
                stats.beta(a, b),
                mean=mean,
                sd=sd,
                with_cdf=a.size <= _CDF_BUDGET,
                scale="logit",
            )
        note += "; theta and phi (asymmetric alpha) as Beta mixtures"
    return LdaPosterior(
        marginals=marginals,
        coords=data.coords,
        note=note,
        assignments=assignments,
        topic_probability=sums["topic"],
        coassignment_probability=sums["coassignment"],
    )


def _theta_components(data: Data, hyper, weight: np.ndarray):
    """Distinct Beta components of every theta_dk: one per value of n_dk, (L + 1, D, K)."""
    count = np.arange(weight.shape[2], dtype=float)[:, None, None]
    a = hyper.alpha[None, None, :] + count
    b = hyper.alpha.sum() + data.lengths[None, :, None] - a
    # Impossible counts (n_dk > L_d) have weight 0; give them valid parameters.
    valid = b > 0
    w = np.moveaxis(weight, 2, 0)
    return np.where(valid, a, 1.0), np.where(valid, b, 1.0), np.where(valid, w, 0.0)


def _phi_components(data: Data, hyper, weight: np.ndarray):
    """Distinct Beta components of every phi_kw, one per (n_kw, n_k): (C, K, V)."""
    k, v, words, totals = weight.shape
    word_count = np.arange(words, dtype=float)[:, None, None, None]
    total = np.arange(totals, dtype=float)[None, :, None, None]
    a = np.broadcast_to(hyper.beta + word_count, (words, totals, k, v))
    b = hyper.beta_sum + total - a
    w = np.moveaxis(weight, (2, 3), (0, 1))
    a, b, w = (x.reshape(-1, k, v) for x in (a, b, w))
    # Keep only (n_kw, n_k) combinations that some element takes; impossible ones
    # (n_kw > n_k) have weight 0 and get valid parameters.
    used = (w > 0).any(axis=(1, 2))
    a, b, w = a[used], b[used], w[used]
    valid = b > 0
    return np.where(valid, a, 1.0), np.where(valid, b, 1.0), np.where(valid, w, 0.0)


def _theta_beta(doc_alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Beta parameters of every theta_dk's marginal, from theta_d ~ Dir(a_d)."""
    return doc_alpha, doc_alpha.sum(axis=-1, keepdims=True) - doc_alpha


def _phi_beta(topic_beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Beta parameters of every phi_kw's marginal, from phi_k ~ Dir(b_k)."""
    return topic_beta, topic_beta.sum(axis=-1, keepdims=True) - topic_beta
