"""LDA: the label-invariant variables, computed from (theta, phi).

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
the PyMC program computes the same expressions, ``simulate`` computes them at the true
parameters, and ``zoo validate`` computes them from the draws of a sampler that returns
``theta`` and ``phi`` only; so they sit below ``spec.py``, which defines ``simulate``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["label_invariants"]


def label_invariants(data, theta, phi) -> dict[str, np.ndarray]:
    """``doc_word`` and ``coassignment`` for the tracked pairs, at any number of draws.

    Parameters
    ----------
    data : zoo.models.lda.Data
        The corpus and the tracked pairs (``data.corpus``, ``data.tracked``).
    theta : array-like, shape (..., D, K)
        Topic proportions per document; leading axes (say ``(chain, draw)``) are kept.
    phi : array-like, shape (..., K, V)
        Word distributions per topic, with the same leading axes as ``theta``.

    Returns
    -------
    dict
        ``doc_word`` (..., P): ``sum_k theta_dk phi_kw`` for each tracked (d, w);
        ``coassignment`` (..., Q): ``sum_k r_ik r_jk`` for each tracked token pair, with
        ``r_ik = p(z_i = k | theta, phi, w)``. Both engines report exactly these.

    Raises
    ------
    ValueError
        When the shapes do not match the corpus (D documents, V words) or each other.

    Examples
    --------
    From a sampler's draws of shape ``(chain, draw, D, K)`` and ``(chain, draw, K, V)``:

    >>> extra = label_invariants(data, draws["theta"], draws["phi"])  # doctest: +SKIP
    >>> extra["doc_word"].shape  # doctest: +SKIP
    (4, 1000, 12)
    """
    corpus, tracked = data.corpus, data.tracked
    theta = np.asarray(theta, dtype=float)
    phi = np.asarray(phi, dtype=float)
    documents, words = data.n_documents, data.n_words
    if theta.ndim < 2 or theta.shape[-2] != documents:
        raise ValueError(
            f"theta: expected shape (..., {documents} documents, K topics), got {theta.shape}"
        )
    topics = theta.shape[-1]
    if phi.shape != (*theta.shape[:-2], topics, words):
        raise ValueError(
            f"phi: expected shape {(*theta.shape[:-2], topics, words)} (..., K topics, "
            f"{words} words) to match theta {theta.shape}, got {phi.shape}"
        )
    pairs = tracked.doc_word
    doc_word = np.einsum("...pk,...kp->...p", theta[..., pairs[:, 0], :], phi[..., pairs[:, 1]])
    token_pairs = tracked.token
    if token_pairs.size == 0:
        return {"doc_word": doc_word, "coassignment": np.zeros((*theta.shape[:-2], 0))}
    tokens, inverse = np.unique(token_pairs, return_inverse=True)
    inverse = inverse.reshape(token_pairs.shape)
    # The document of each paired token: the last d with doc_start[d] <= i (an empty
    # document shares its start with the next one and holds no token).
    doc_of = np.searchsorted(corpus.doc_start, tokens, side="right") - 1
    # Parameters that underflowed to 0 in a random draw are floored at the smallest
    # normal double so that a token whose every topic underflowed still normalises.
    tiny = np.finfo(float).tiny
    log_r = np.log(np.maximum(theta[..., doc_of, :], tiny)) + np.log(
        np.maximum(np.swapaxes(phi[..., corpus.token_word[tokens]], -1, -2), tiny)
    )
    r = np.exp(log_r - log_r.max(axis=-1, keepdims=True))
    r /= r.sum(axis=-1, keepdims=True)
    coassignment = np.einsum(
        "...pk,...pk->...p", r[..., inverse[:, 0], :], r[..., inverse[:, 1], :]
    )
    return {"doc_word": doc_word, "coassignment": coassignment}
