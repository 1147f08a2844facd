"""LDA chain state: topic assignments and their count tables, narrow dtypes, log joint.

The corpus is stored flat (:mod:`zoo.models.lda.corpus`); the state of the collapsed
sampler is :class:`State`:

- ``topic`` (N,): the current topic of every token, in the narrowest unsigned type
  that holds ``K - 1`` (:func:`topic_dtype`);

and the sufficient statistics of the collapsed sampler (Griffiths & Steyvers, "Finding
scientific topics", PNAS 101, 2004):

- ``doc_topic`` (D, K): tokens of document d in topic k; never more than the longest
  document, so its dtype is :func:`count_dtype` of that length;
- ``word_topic`` (V, K), word-major so that one token reads one contiguous row: tokens
  of word w in topic k, bounded by the frequency of the most frequent word;
- ``topic_total`` (K,) int64: tokens in topic k (column sums of either matrix).

Narrow counts matter for memory (``word_topic`` is V x K; at V = 50,000, K = 100 it is
10 MB as uint16 and 40 MB as int64) and for speed (more of it stays in cache).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from scipy.special import gammaln

from zoo.models.lda.corpus import Corpus, check_corpus

__all__ = [
    "State",
    "build_state",
    "check_counts",
    "count_dtype",
    "log_joint",
    "log_joint_counts",
    "topic_dtype",
    "word_frequency",
]

_UNSIGNED = (np.uint8, np.uint16, np.uint32, np.uint64)


class State(NamedTuple):
    """Topic assignments and the counts they imply: the state every LDA sweep updates.

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


def count_dtype(max_count: int) -> np.dtype:
    """The narrowest unsigned dtype that holds every integer in ``[0, max_count]``.

    Parameters
    ----------
    max_count : int
        The largest count the array must ever hold (for ``doc_topic`` the length of the
        longest document, for ``word_topic`` the frequency of the most frequent word: a
        count can never exceed them, whatever the assignments).

    Returns
    -------
    numpy.dtype
        uint8, uint16, uint32 or uint64.
    """
    max_count = int(max_count)
    if max_count < 0:
        raise ValueError(f"max_count must be >= 0, got {max_count}")
    for dtype in _UNSIGNED:
        if max_count <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    raise ValueError(f"max_count {max_count} does not fit in 64 bits")


def topic_dtype(n_topics: int) -> np.dtype:
    """The narrowest unsigned dtype for topic ids ``0 .. n_topics - 1``.

    uint8 for K <= 256, uint16 for K <= 65,536, else uint32.
    """
    n_topics = int(n_topics)
    if n_topics < 1:
        raise ValueError(f"n_topics must be >= 1, got {n_topics}")
    return count_dtype(n_topics - 1)


@numba.njit(cache=True)
def word_frequency(token_word, n_words):
    """Tokens of each word, int64 (V,).

    ``numpy.bincount`` would first copy an int32 ``token_word`` to int64: 80 MB of
    temporary memory for 10 million tokens, more than all the count arrays together.
    """
    frequency = np.zeros(n_words, dtype=np.int64)
    for i in range(token_word.shape[0]):
        frequency[token_word[i]] += 1
    return frequency


@numba.njit(cache=True)
def _fill_counts(token_word, doc_start, topic, doc_topic, word_topic, topic_total):
    for d in range(doc_start.shape[0] - 1):
        for i in range(doc_start[d], doc_start[d + 1]):
            k = topic[i]
            doc_topic[d, k] += 1
            word_topic[token_word[i], k] += 1
            topic_total[k] += 1


def build_state(corpus: Corpus, topic: np.ndarray, *, n_topics: int, n_words: int) -> State:
    """The state of an assignment: ``topic`` itself and fresh count tables.

    Parameters
    ----------
    corpus : Corpus
        The flat corpus (checked here: the sweeps do not bounds-check).
    topic : numpy.ndarray
        Topic of every token, integers in ``[0, n_topics)``; held by the state as it is
        (not copied).
    n_topics, n_words : int
        K and V.

    Returns
    -------
    State
        ``doc_topic`` (D, K) of dtype ``count_dtype(longest document)``, ``word_topic``
        (V, K) of dtype ``count_dtype(most frequent word's frequency)``, ``topic_total``
        (K,) int64.
    """
    check_corpus(corpus, n_words)
    token_word, doc_start = corpus
    topic = np.asarray(topic)
    if topic.shape != token_word.shape:
        raise ValueError("topic: must have one entry per token")
    if topic.shape[0] and (int(topic.min()) < 0 or int(topic.max()) >= n_topics):
        raise ValueError(f"topic: topics must lie in [0, {n_topics})")
    n_docs = doc_start.shape[0] - 1
    longest = int(np.diff(doc_start).max()) if n_docs else 0
    most_frequent = int(word_frequency(token_word, n_words).max()) if n_words else 0
    doc_topic = np.zeros((n_docs, n_topics), dtype=count_dtype(longest))
    word_topic = np.zeros((n_words, n_topics), dtype=count_dtype(most_frequent))
    topic_total = np.zeros(n_topics, dtype=np.int64)
    _fill_counts(token_word, doc_start, topic, doc_topic, word_topic, topic_total)
    return State(topic, doc_topic, word_topic, topic_total)


def check_counts(corpus: Corpus, state: State) -> None:
    """Raise ``ValueError`` naming the first broken invariant of the state's count tables.

    Checked: the marginal invariants that hold whatever the assignment (total = N,
    ``doc_topic`` row sums = document lengths, ``word_topic`` row sums = word
    frequencies, ``topic_total`` = column sums of both), then the counts equal those
    rebuilt from ``topic`` (which implies the marginals, but a marginal failure says
    more about what went wrong).
    """
    token_word, doc_start = corpus
    topic, doc_topic, word_topic, topic_total = state
    n_tokens = token_word.shape[0]
    n_topics = topic_total.shape[0]
    n_words = word_topic.shape[0]
    if int(topic_total.sum()) != n_tokens:
        raise ValueError(f"topic_total sums to {int(topic_total.sum())}, not N = {n_tokens}")
    doc_length = np.diff(doc_start)
    if not np.array_equal(doc_topic.sum(axis=1, dtype=np.int64), doc_length):
        raise ValueError("doc_topic row sums differ from the document lengths")
    frequency = word_frequency(token_word, n_words)
    if not np.array_equal(word_topic.sum(axis=1, dtype=np.int64), frequency):
        raise ValueError("word_topic row sums differ from the word frequencies")
    if not np.array_equal(doc_topic.sum(axis=0, dtype=np.int64), topic_total):
        raise ValueError("doc_topic column sums differ from topic_total")
    if not np.array_equal(word_topic.sum(axis=0, dtype=np.int64), topic_total):
        raise ValueError("word_topic column sums differ from topic_total")
    rebuilt = build_state(corpus, topic, n_topics=n_topics, n_words=n_words)
    for name, have, want in zip(
        ("doc_topic", "word_topic", "topic_total"),
        (doc_topic, word_topic, topic_total),
        rebuilt[1:],
        strict=True,
    ):
        if not np.array_equal(have, want):
            raise ValueError(f"{name} differs from the counts of the topic assignments")


def log_joint_counts(
    doc_topic: np.ndarray,
    word_topic: np.ndarray,
    topic_total: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
) -> float:
    """Collapsed log joint ``log p(w, z | alpha, beta)`` from the counts.

    With theta and phi integrated out (Griffiths & Steyvers 2004, eqs. 2-3; written
    for asymmetric priors, Wallach, Mimno & McCallum, "Rethinking LDA", NIPS 2009)::

        log p(z | alpha) = sum_d [ lgamma(A) - lgamma(N_d + A)
                                   + sum_k lgamma(n_dk + alpha_k) - lgamma(alpha_k) ]
        log p(w | z, beta) = sum_k [ lgamma(B) - lgamma(n_k + B)
                                     + sum_w lgamma(n_kw + beta_w) - lgamma(beta_w) ]

    with ``A = sum(alpha)``, ``B = sum(beta)``. Zero counts contribute exactly zero, so
    only nonzero cells are evaluated.
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    beta = np.asarray(beta, dtype=np.float64)
    alpha_sum, beta_sum = alpha.sum(), beta.sum()
    doc_length = doc_topic.sum(axis=1, dtype=np.int64)
    doc_row, doc_col = np.nonzero(doc_topic)
    word_row, word_col = np.nonzero(word_topic)
    doc_cells = doc_topic[doc_row, doc_col].astype(np.float64)
    word_cells = word_topic[word_row, word_col].astype(np.float64)
    log_p_z = (
        doc_topic.shape[0] * gammaln(alpha_sum)
        - gammaln(doc_length + alpha_sum).sum()
        + (gammaln(doc_cells + alpha[doc_col]) - gammaln(alpha[doc_col])).sum()
    )
    log_p_w = (
        topic_total.shape[0] * gammaln(beta_sum)
        - gammaln(topic_total + beta_sum).sum()
        + (gammaln(word_cells + beta[word_row]) - gammaln(beta[word_row])).sum()
    )
    return float(log_p_z + log_p_w)


def log_joint(corpus: Corpus, topic: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> float:
    """Collapsed log joint ``log p(w, z)`` of an assignment (see :func:`log_joint_counts`).

    ``alpha`` has length K and ``beta`` length V; scalars are not accepted so that the
    sizes cannot be guessed wrong.
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    beta = np.asarray(beta, dtype=np.float64)
    if alpha.ndim != 1 or beta.ndim != 1:
        raise ValueError("alpha (K,) and beta (V,) must be vectors")
    state = build_state(corpus, topic, n_topics=alpha.shape[0], n_words=beta.shape[0])
    return log_joint_counts(*state[1:], alpha, beta)
