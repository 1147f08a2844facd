"""LDA: the label-invariant variables at one value of (theta, phi).

``doc_word`` (dim ``doc_word_pair``)
    ``sum_k theta_dk phi_kw`` for tracked (document, word) pairs: the probability that
    the next word of document d is w.
``coassignment`` (dim ``token_pair``)
    ``sum_k r_ik r_jk`` for tracked token pairs (i, j), ``i != j``, where
    ``r_ik = theta_{d_i k} phi_{k w_i} / sum_k' theta_{d_i k'} phi_{k' w_i}`` is
    ``p(z_i = k | theta, phi, w)`` (Griffiths & Steyvers, PNAS 101, 2004, eq. 1 before
    integrating). Given theta and phi the topics are independent, so this is
    ``E[1{z_i = z_j} | theta, phi, w]`` and its posterior mean is the co-assignment
    probability ``P(z_i = z_j | w)`` (Rao-Blackwellised: lower variance than the
    indicator).

Both are invariant under relabelling the topics. The Gibbs kernel reports them per draw,
the PyMC program computes the same expressions, and ``simulate`` computes them at the
true parameters; so they sit below ``spec.py``, which defines ``simulate``.
"""

from __future__ import annotations

import numpy as np

from zoo.models.lda.corpus import Corpus
from zoo.models.lda.pairs import TrackedPairs

__all__ = ["label_invariants"]


def label_invariants(
    corpus: Corpus, tracked: TrackedPairs, theta: np.ndarray, phi: np.ndarray
) -> dict[str, np.ndarray]:
    """``doc_word`` and ``coassignment`` at one value of (theta, phi), for the tracked pairs.

    Parameters
    ----------
    corpus : Corpus
        The tokens (``data.corpus``).
    tracked : TrackedPairs
        The pairs to report (``data.tracked``).
    theta : ndarray, shape (D, K)
    phi : ndarray, shape (K, V)

    Returns
    -------
    dict
        ``doc_word`` (P,): ``sum_k theta_dk phi_kw`` for each tracked (d, w);
        ``coassignment`` (Q,): ``sum_k r_ik r_jk`` for each tracked token pair, with
        ``r_ik = p(z_i = k | theta, phi, w)``. Both engines report exactly these.
    """
    pairs = tracked.doc_word
    doc_word = np.einsum("pk,kp->p", theta[pairs[:, 0]], phi[:, pairs[:, 1]])
    token_pairs = tracked.token
    if token_pairs.size == 0:
        return {"doc_word": doc_word, "coassignment": np.zeros(0)}
    tokens, inverse = np.unique(token_pairs, return_inverse=True)
    inverse = inverse.reshape(token_pairs.shape)
    # The document of each paired token: the last d with doc_start[d] <= i (an empty
    # document shares its start with the next one and holds no token).
    doc_of = np.searchsorted(corpus.doc_start, tokens, side="right") - 1
    # Parameters that underflowed to 0 in a random draw are floored at the smallest
    # normal double so that a token whose every topic underflowed still normalises.
    tiny = np.finfo(float).tiny
    log_r = np.log(np.maximum(theta[doc_of], tiny)) + np.log(
        np.maximum(phi[:, corpus.token_word[tokens]].T, tiny)
    )
    r = np.exp(log_r - log_r.max(axis=1, keepdims=True))
    r /= r.sum(axis=1, keepdims=True)
    coassignment = np.einsum("pk,pk->p", r[inverse[:, 0]], r[inverse[:, 1]])
    return {"doc_word": doc_word, "coassignment": coassignment}
