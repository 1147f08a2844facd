"""LDA: the collapsed Gibbs kernel over the topic of every token.

One sweep visits every token ``i`` (word ``w``, document ``d``) in corpus order,
removes it from the counts and draws its topic from (Griffiths & Steyvers, PNAS 101,
2004, equation 5; theta and phi integrated out)

    p(z_i = k | z_-i, w) ∝ (n_dk^-i + alpha_k) (n_kw^-i + beta_w) / (n_k^-i + sum_w beta_w)

then adds it back under the new topic. The state keeps the assignments and the three
count tables in the layout shared by every LDA sweep (see :func:`sweep`).
:func:`make_kernel`'s ``draw`` brings the parameters back from their conjugate
conditionals, ``theta_d | z ~ Dir(alpha + n_d.)`` and ``phi_k | z ~ Dir(beta + n_k.)``,
and reports the label-invariant ``doc_word`` and ``coassignment`` computed from them
(:func:`zoo.models.lda.posterior.label_invariants`), as the PyMC program does.

:func:`infer_documents` draws the topic proportions of new documents with phi fixed
(held-out "fold-in" inference; Wallach, Murray, Salakhutdinov & Mimno, "Evaluation
methods for topic models", ICML 2009).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from zoo.core.contract import Kernel
from zoo.models.lda import sparse as fast
from zoo.models.lda.counts import build_counts
from zoo.models.lda.posterior import label_invariants
from zoo.models.lda.spec import Data, Prior, _hyper

__all__ = [
    "FAULTS",
    "State",
    "counts_from_topics",
    "infer_documents",
    "kernel",
    "make_kernel",
    "sweep",
]

FAULTS = ("token-not-removed", "beta-not-times-V", "added-back-under-old-topic")


class State(NamedTuple):
    """Topic assignments and the counts they imply.

    Attributes
    ----------
    topic : ndarray of uint8/uint16/uint32, shape (N,)
    doc_topic : ndarray, shape (D, K)
        Tokens of document d assigned to topic k (narrowest safe unsigned type).
    word_topic : ndarray, shape (V, K)
        Tokens of word w assigned to topic k; word-major, so that one word's K counts
        are contiguous (the sweep reads all of them for every token).
    topic_total : ndarray of int64, shape (K,)
        Tokens assigned to topic k.
    """

    topic: np.ndarray
    doc_topic: np.ndarray
    word_topic: np.ndarray
    topic_total: np.ndarray


def counts_from_topics(data: Data, topic: np.ndarray) -> State:
    """Build the state (fresh count tables) from topic assignments.

    Parameters
    ----------
    data : Data
    topic : array-like of int, shape (N,)
        Topics in ``0 .. K-1``; copied to the state's unsigned type.
    """
    topic = np.asarray(topic)
    if topic.shape != (data.n_tokens,):
        raise ValueError(f"topic: expected shape ({data.n_tokens},), got {topic.shape}")
    if topic.size and (topic.min() < 0 or topic.max() >= data.n_topics):
        raise ValueError(f"topic: topics must lie in [0, {data.n_topics})")
    topic = topic.astype(data.topic_dtype)
    counts = build_counts(
        data.token_word, data.doc_start, topic, n_topics=data.n_topics, n_words=data.n_words
    )
    return State(topic, *counts)


@numba.njit(cache=True)
def _planted_sweep(
    token_word,
    doc_start,
    topic,
    doc_topic,
    word_topic,
    topic_total,
    alpha,
    beta,
    beta_sum,
    rng,
    remove_token,
    add_under_new,
):
    """The dense sweep, with two switches that plant classic bugs (negative controls).

    ``remove_token=False``: the token stays in its current topic's counts while its
    conditional is computed (moved afterwards if its topic changed).
    ``add_under_new=False``: the new topic is recorded, but the counts are incremented
    under the old one. The correct sampler has both True.
    """
    n_topics = alpha.shape[0]
    cumulative = np.empty(n_topics)
    for d in range(doc_start.shape[0] - 1):
        for i in range(doc_start[d], doc_start[d + 1]):
            w = token_word[i]
            old = np.int64(topic[i])
            if remove_token:
                doc_topic[d, old] -= 1
                word_topic[w, old] -= 1
                topic_total[old] -= 1
            total = 0.0
            for k in range(n_topics):
                total += (
                    (doc_topic[d, k] + alpha[k])
                    * (word_topic[w, k] + beta[w])
                    / (topic_total[k] + beta_sum)
                )
                cumulative[k] = total
            # A fresh uniform for every token, scaled instead of normalising K weights.
            target = rng.random() * total
            new = n_topics - 1
            for k in range(n_topics - 1):
                if target < cumulative[k]:
                    new = k
                    break
            if remove_token:
                back = new if add_under_new else old
                doc_topic[d, back] += 1
                word_topic[w, back] += 1
                topic_total[back] += 1
            elif new != old:
                doc_topic[d, old] -= 1
                word_topic[w, old] -= 1
                topic_total[old] -= 1
                doc_topic[d, new] += 1
                word_topic[w, new] += 1
                topic_total[new] += 1
            topic[i] = new


@numba.njit(cache=True)
def sweep(
    token_word, doc_start, topic, doc_topic, word_topic, topic_total, alpha, beta, beta_sum, rng
):
    """One systematic-scan collapsed Gibbs sweep over all tokens, in place.

    Parameters
    ----------
    token_word : ndarray of int32, shape (N,)
        Word of every token, documents concatenated in order.
    doc_start : ndarray of int64, shape (D + 1,)
        Document d's tokens are ``doc_start[d]:doc_start[d + 1]``.
    topic : ndarray of unsigned int, shape (N,)
        Topic assignments, updated in place.
    doc_topic : ndarray of unsigned int, shape (D, K)
    word_topic : ndarray of unsigned int, shape (V, K)
    topic_total : ndarray of int64, shape (K,)
        Counts consistent with ``topic``, updated in place.
    alpha : ndarray of float64, shape (K,)
    beta : ndarray of float64, shape (V,)
    beta_sum : float
        ``sum(beta)``: the denominator's pseudo-count (``V beta`` for a symmetric
        prior).
    rng : numpy.random.Generator
        One fresh uniform per token.

    Notes
    -----
    Griffiths & Steyvers (2004), equation 5; dense: O(K) per token.
    """
    _planted_sweep(
        token_word,
        doc_start,
        topic,
        doc_topic,
        word_topic,
        topic_total,
        alpha,
        beta,
        beta_sum,
        rng,
        True,
        True,
    )


def make_kernel(*, fault: str | None = None, sweep_function=None) -> Kernel:
    """Build the kernel, or one of the deliberately wrong ones (negative controls).

    Parameters
    ----------
    fault : {None, "token-not-removed", "beta-not-times-V", "added-back-under-old-topic"}
        None: the correct sampler. "token-not-removed": the current token is left in
        the counts while its conditional is computed. "beta-not-times-V": the
        denominator is ``n_k + mean(beta)`` (``n_k + beta`` for a symmetric prior)
        instead of ``n_k + sum(beta)`` (``n_k + V beta``). "added-back-under-old-topic":
        the new topic is recorded but the counts are incremented under the old one, so
        within a sweep every token sees the others' topics of the previous sweep.
    sweep_function : callable, optional
        A sweep with the signature of :func:`sweep` to run instead of the dense one
        (a faster implementation); not combinable with ``fault``.

    Notes
    -----
    ``step`` rebuilds the count tables from the assignments into fresh arrays rather
    than copying them: the same cost (O(N + (D + V) K)), it keeps ``step`` pure, and a
    sweep that left its counts inconsistent with its assignments (the third fault) is
    judged by what its assignments imply.
    """
    if fault is not None and fault not in FAULTS:
        raise ValueError(f"fault: must be None or one of {FAULTS}, got {fault!r}")
    if fault is not None and sweep_function is not None:
        raise ValueError("sweep_function: the planted faults run the dense sweep")
    # Data and priors are frozen, so the resolved hyperparameters are cached by
    # identity: one tuple, read once per call, so threads never mix entries.
    cached: tuple = (None, None, None)

    def resolved(data: Data, prior: Prior):
        nonlocal cached
        entry = cached
        if entry[0] is not data or entry[1] is not prior:
            entry = (data, prior, prior.resolve(data))
            cached = entry
        return entry[2]

    def init(data: Data, prior: Prior, rng: np.random.Generator) -> State:
        resolved(data, prior)
        # Uniform random topics: over-dispersed starts let R-hat see chains that stick.
        return counts_from_topics(data, rng.integers(0, data.n_topics, size=data.n_tokens))

    def step(state: State, data: Data, prior: Prior, rng: np.random.Generator) -> State:
        hyper = resolved(data, prior)
        new = counts_from_topics(data, state.topic)
        beta_sum = hyper.beta_sum if fault != "beta-not-times-V" else float(hyper.beta.mean())
        arguments = (
            data.token_word,
            data.doc_start,
            new.topic,
            new.doc_topic,
            new.word_topic,
            new.topic_total,
            hyper.alpha,
            hyper.beta,
            beta_sum,
            rng,
        )
        if sweep_function is not None:
            sweep_function(*arguments)
        elif fault is None:
            # The exact SparseLDA sweep (Yao, Mimno & McCallum 2009), dense below 4
            # topics; its per-word topic lists depend only on word_topic, so building
            # them afresh gives the same draws as carrying them (tested in
            # test_lda_sparse.py) and keeps the state a plain NamedTuple.
            aux = (
                fast.prepare(new.word_topic) if data.n_topics >= fast.SPARSE_FROM_TOPICS else None
            )
            fast.sweep(*arguments[:-1], aux, rng)
        else:
            _planted_sweep(
                *arguments, fault != "token-not-removed", fault != "added-back-under-old-topic"
            )
        return new

    def draw(state: State, data: Data, prior: Prior, rng: np.random.Generator) -> dict:
        hyper = resolved(data, prior)
        # The conditionals given the assignments. A correct sweep's counts are what its
        # assignments imply; a planted or user sweep may leave them lagging (the third
        # fault does), so for those they are rebuilt.
        counts = state if fault is None and sweep_function is None else None
        if counts is None:
            counts = counts_from_topics(data, state.topic)
        theta = np.stack([rng.dirichlet(hyper.alpha + row) for row in counts.doc_topic])
        phi = np.stack([rng.dirichlet(hyper.beta + column) for column in counts.word_topic.T])
        return {"theta": theta, "phi": phi, **label_invariants(data, theta, phi)}

    return Kernel(init=init, step=step, draw=draw)


kernel = make_kernel()


@numba.njit(cache=True)
def _fold_in(token_word, doc_start, topic, doc_topic, alpha, phi, sweeps, rng):
    """Gibbs sweeps over new documents' topics with phi fixed, in place.

    ``p(z_i = k | z_-i, w, phi) ∝ (n_dk^-i + alpha_k) phi_kw``: the collapsed
    conditional of Griffiths & Steyvers (2004) with phi known instead of integrated out.
    """
    n_topics = alpha.shape[0]
    cumulative = np.empty(n_topics)
    for _ in range(sweeps):
        for d in range(doc_start.shape[0] - 1):
            for i in range(doc_start[d], doc_start[d + 1]):
                w = token_word[i]
                old = topic[i]
                doc_topic[d, old] -= 1
                total = 0.0
                for k in range(n_topics):
                    total += (doc_topic[d, k] + alpha[k]) * phi[k, w]
                    cumulative[k] = total
                target = rng.random() * total
                new = n_topics - 1
                for k in range(n_topics - 1):
                    if target < cumulative[k]:
                        new = k
                        break
                doc_topic[d, new] += 1
                topic[i] = new


def infer_documents(phi_draws, new_documents, alpha, *, sweeps: int = 50, seed=None) -> np.ndarray:
    """Topic proportions of new documents given posterior draws of phi (fold-in).

    For every draw of phi, a Gibbs chain over the new documents' topics with phi fixed
    runs ``sweeps`` sweeps from a random start, then ``theta_d ~ Dir(alpha + n_d.)`` is
    drawn from its conditional. Each output draw is thus (approximately, after
    ``sweeps``) a draw from ``p(theta | w_new, phi)`` mixed over the phi draws, that is
    from ``p(theta | w_new, w_train)`` when the phi draws are posterior draws.

    Parameters
    ----------
    phi_draws : array-like, shape (..., K, V)
        Draws of phi, for example ``tree["posterior"]["phi"].values`` (chain, draw, K, V).
    new_documents : list of array-like of int, or array-like / scipy.sparse (D, V)
        As :class:`~zoo.models.lda.Data`'s ``corpus``; word ids in ``0 .. V-1``.
    alpha : float or array-like, shape (K,)
        Document-topic pseudo-counts (the training prior's).
    sweeps : int
        Sweeps per phi draw before theta is drawn (default 50: on documents of tens of
        tokens the chain forgets its start within a few sweeps).
    seed : int, numpy.random.SeedSequence or None

    Returns
    -------
    ndarray, shape (..., D, K)
        One draw of theta for every new document per draw of phi.
    """
    phi = np.array(phi_draws, dtype=np.float64, copy=True)
    if phi.ndim < 2:
        raise ValueError(f"phi_draws: expected shape (..., K, V), got {phi.shape}")
    if not np.all(np.isfinite(phi)) or (phi < 0).any():
        raise ValueError("phi_draws: must be finite and >= 0")
    sums = phi.sum(axis=-1)
    if not np.allclose(sums, 1.0, atol=1e-6):
        raise ValueError("phi_draws: every topic's word distribution must sum to 1")
    n_topics, n_words = phi.shape[-2:]
    if isinstance(sweeps, bool) or not isinstance(sweeps, int) or sweeps < 1:
        raise ValueError(f"sweeps: must be an integer >= 1, got {sweeps!r}")
    data = Data(
        new_documents,
        topics=n_topics,
        vocabulary=np.arange(n_words),
        doc_word_pairs=None,
        token_pairs=None,
    )
    alpha = _hyper("alpha", alpha)
    if np.ndim(alpha) == 1 and alpha.shape[0] != n_topics:
        raise ValueError(f"alpha: expected length {n_topics} (the K topics), got {alpha.shape[0]}")
    alpha = np.array(np.broadcast_to(alpha, (n_topics,)), dtype=np.float64)
    rng = np.random.default_rng(seed)
    flat = phi.reshape(-1, n_topics, n_words)
    out = np.empty((flat.shape[0], data.n_documents, n_topics))
    for s in range(flat.shape[0]):
        state = counts_from_topics(data, rng.integers(0, n_topics, size=data.n_tokens))
        doc_topic = state.doc_topic.astype(np.int64)
        topic = state.topic.astype(np.int64)
        _fold_in(data.token_word, data.doc_start, topic, doc_topic, alpha, flat[s], sweeps, rng)
        for d in range(data.n_documents):
            out[s, d] = rng.dirichlet(alpha + doc_topic[d])
    return out.reshape(*phi.shape[:-2], data.n_documents, n_topics)
