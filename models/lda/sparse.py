"""Fast exact collapsed Gibbs sweeps for LDA: SparseLDA buckets, and a tight dense loop.

Both sweeps draw every token from the collapsed full conditional of Griffiths &
Steyvers ("Finding scientific topics", PNAS 101, 2004), the token itself removed from
the counts first::

    p(z_i = k | z_-i, w) ∝ (n_dk + alpha_k) (n_kw + beta_w) / (n_k + B),   B = sum(beta)

with asymmetric ``alpha`` (K,) and ``beta`` (V,) allowed. They differ only in how the
normaliser and the draw are computed; both are exact (up to floating-point rounding of
the weights, as any sampler).

Sparse sweep (Yao, Mimno & McCallum, "Efficient methods for topic model inference on
streaming document collections", KDD 2009, section 3.4) splits the weight into three
buckets::

    s = beta_w sum_k alpha_k / (n_k + B)                  smoothing, every topic
    r = beta_w sum_{k: n_dk > 0} n_dk / (n_k + B)         document, the doc's topics
    q = sum_{k: n_kw > 0} (n_dk + alpha_k) n_kw / (n_k + B)   word, the word's topics

``s/beta_w`` and ``r/beta_w`` are kept as running sums, updated in O(1) when a token
leaves or joins a topic (asymmetric beta only scales them by ``beta_w``); the
coefficients ``(n_dk + alpha_k) / (n_k + B)`` are cached per document in a dense K-vector
so that ``q`` costs one multiply-add per nonzero topic of the word. One uniform per
token picks the bucket and the topic inside it. With alpha = 0.1, beta = 0.01 almost
all mass is in ``q``, so a token costs O(topics of its word) instead of O(K).

The current token is removed from its topic ``k_old`` before its conditional is formed,
but only in the quantities the draw reads (the sums, ``coef[k_old]``, the reciprocal
``1 / (n_k_old - 1 + B)`` cached per topic, and ``n_k_old,w - 1`` inside the ``q``
loop); the count arrays are written only when the token moves. After burn-in about
three tokens in four return to their topic on Reuters (K = 20 and 100), and for them
nothing is written or divided. The conditional is the same as with the counts
decremented: this is an implementation of the same full conditional, not an
approximation.

Dense sweep: the same conditional over all K topics, with the cached coefficients and
reciprocals (no division in the inner loop). On Reuters the sparse sweep was faster at
every K from 5 up (1.2x at K = 5, 1.4x at K = 20, 1.7x at K = 100, 4x at K = 500,
after 50 sweeps, measured before the virtual removal above made it faster still) and
tied at K = 2, so :func:`sweep` uses the dense loop only below
:data:`SPARSE_FROM_TOPICS` = 4 topics, where it needs no auxiliary state.

Auxiliary state
---------------
The sparse sweep needs, for each word, the list of its topics with nonzero count,
held in :class:`SparseAux` (build it with :func:`prepare`):

- ``word_list_start`` int64 (V+1,): word w's slots are
  ``word_list[word_list_start[w]:word_list_start[w+1]]``; the capacity is
  ``min(K, frequency of w)``, so the whole list has at most N entries;
- ``word_list`` (topic dtype): the topics of w with ``word_topic[w, k] > 0`` in the
  first ``word_nnz[w]`` slots, in increasing topic order;
- ``word_nnz`` int64 (V,).

:func:`sparse_sweep` keeps it consistent with ``word_topic`` in place. Because the
lists are kept sorted by topic id, the aux state is a pure function of ``word_topic``:
carrying it between sweeps or rebuilding it with :func:`prepare` gives the same draws
bit for bit. Rebuilding is one O(V K) pass over ``word_topic`` (3 ms at V = 4,258,
K = 500, a fifth of a sweep of Reuters there; 10 ms at V = 50,000, K = 100); copying
(``aux.copy()``, at most N entries) takes 0.1 ms in both cases, so a kernel whose
``step`` copies its state should carry ``aux`` in the state and copy it. Per-document
state (the nonzero topics of the document, the coefficient cache, the running sums) is
rebuilt at each document and never carried. The same holds for the per-topic
reciprocals ``1 / (n_k + B)`` and ``1 / (n_k - 1 + B)``, rebuilt at the start of every
call, so a sweep's output depends only on (counts, topics, rng state).

Random numbers: one fresh ``rng.random()`` per token from the ``numpy.random.Generator``
handed to the numba function (numba advances the generator's own state), never a
recycled buffer.

Layout of the arguments is described in :mod:`zoo.models.lda.counts`.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

__all__ = [
    "FAULTS",
    "SPARSE_FROM_TOPICS",
    "SparseAux",
    "check_aux",
    "dense_sweep",
    "prepare",
    "resample_tokens",
    "sparse_sweep",
    "sweep",
]

#: Smallest K at which :func:`sweep` uses the sparse buckets rather than the dense loop
#: (on Reuters the two tie at K = 2 and the sparse one is 1.2x faster at K = 5).
SPARSE_FROM_TOPICS = 4

#: Deliberately wrong variants for negative-control tests only (never for sampling):
#: ``stale_smoothing_sum`` forgets to update the smoothing bucket total when the
#: current token leaves its topic; ``stale_doc_sum`` does the same for the document
#: bucket. Each samples from a slightly wrong conditional.
FAULTS = {"none": 0, "stale_smoothing_sum": 1, "stale_doc_sum": 2}


class SparseAux(NamedTuple):
    """Per-word nonzero-topic lists of the sparse sweep (see the module docstring)."""

    word_list_start: np.ndarray
    word_list: np.ndarray
    word_nnz: np.ndarray

    def copy(self) -> SparseAux:
        """An independent copy (O(N) at most)."""
        return SparseAux(*(a.copy() for a in self))


@numba.njit(cache=True)
def _fill_word_lists(word_topic, word_list_start, word_list, word_nnz):
    for w in range(word_topic.shape[0]):
        slot = word_list_start[w]
        for k in range(word_topic.shape[1]):
            if word_topic[w, k] != 0:
                word_list[slot] = k
                slot += 1
        word_nnz[w] = slot - word_list_start[w]


def prepare(word_topic: np.ndarray) -> SparseAux:
    """Build the sparse sweep's per-word topic lists from ``word_topic`` (V, K).

    Returns
    -------
    SparseAux
        Lists sorted by topic id; capacity ``min(K, frequency of w)`` per word.
    """
    if word_topic.ndim != 2:
        raise ValueError("word_topic must be (V, K)")
    n_words, n_topics = word_topic.shape
    frequency = word_topic.sum(axis=1, dtype=np.int64)
    capacity = np.minimum(frequency, n_topics)
    word_list_start = np.zeros(n_words + 1, dtype=np.int64)
    np.cumsum(capacity, out=word_list_start[1:])
    # Topic ids in the narrowest type that holds K - 1, as for `topic`.
    list_dtype = np.min_scalar_type(max(n_topics - 1, 0))
    word_list = np.zeros(int(word_list_start[-1]), dtype=list_dtype)
    word_nnz = np.zeros(n_words, dtype=np.int64)
    _fill_word_lists(word_topic, word_list_start, word_list, word_nnz)
    return SparseAux(word_list_start, word_list, word_nnz)


def check_aux(aux: SparseAux, word_topic: np.ndarray) -> None:
    """Raise ``ValueError`` unless ``aux`` lists exactly the nonzero topics of each word."""
    fresh = prepare(word_topic)
    if not np.array_equal(aux.word_list_start, fresh.word_list_start):
        raise ValueError("aux.word_list_start does not match the word frequencies")
    if not np.array_equal(aux.word_nnz, fresh.word_nnz):
        raise ValueError("aux.word_nnz differs from the nonzero counts of word_topic")
    for w in np.flatnonzero(fresh.word_nnz):
        lo = fresh.word_list_start[w]
        hi = lo + fresh.word_nnz[w]
        if not np.array_equal(aux.word_list[lo:hi], fresh.word_list[lo:hi]):
            raise ValueError(f"aux lists the wrong topics for word {w}")


@numba.njit(cache=True)
def _first_doc(doc_start, token):
    # The document holding `token`: the last d with doc_start[d] <= token (empty
    # documents share a start with the next one, and hold no token).
    return np.searchsorted(doc_start, token, side="right") - 1


@numba.njit(cache=True, inline="always")
def _first_above(cumulative, n, u):
    # First index i < n with cumulative[i] > u, given cumulative[n - 1] > u. Branch-free
    # halving: the comparison becomes a conditional add, so an unpredictable outcome
    # costs no mispredicted jump (Khuong & Morin, "Array layouts for comparison-based
    # searching", 2017).
    base = 0
    while n > 1:
        half = n >> 1
        base += half * (cumulative[base + half - 1] <= u)
        n -= half
    return base


@numba.njit(cache=True, inline="always")
def _lower_bound_topic(word_list, start, n, topic):
    # Position of the first listed topic >= topic in the sorted slots [start, start + n)
    # (n if none), with the same branch-free halving.
    if n == 0:
        return 0
    base = 0
    while n > 1:
        half = n >> 1
        base += half * (word_list[start + base + half - 1] < topic)
        n -= half
    return base + (word_list[start + base] < topic)


@numba.njit(cache=True, inline="always")
def _inv_minus(total, beta_sum):
    # 1 / (n_k - 1 + B): the reciprocal once a token of topic k is removed; an empty
    # topic has no token to remove (and B - 1 may be 0).
    if total > 0:
        return 1.0 / (total - 1 + beta_sum)
    return 0.0


@numba.njit(cache=True)
def _sparse_range(
    token_lo,
    token_hi,
    token_word,
    doc_start,
    topic,
    doc_topic,
    word_topic,
    topic_total,
    alpha,
    beta,
    beta_sum,
    word_list_start,
    word_list,
    word_nnz,
    rng,
    fault,
):
    n_topics = topic_total.shape[0]
    n_docs = doc_start.shape[0] - 1
    # 1 / (n_k + B) and 1 / (n_k - 1 + B), kept in step with topic_total: a token that
    # stays in its topic (most of them, once the chain has settled) divides nothing.
    inv_denom = np.empty(n_topics)
    inv_minus = np.empty(n_topics)
    for k in range(n_topics):
        inv_denom[k] = 1.0 / (topic_total[k] + beta_sum)
        inv_minus[k] = _inv_minus(topic_total[k], beta_sum)
    coef = np.empty(n_topics)
    doc_list = np.empty(n_topics, dtype=np.int64)
    doc_pos = np.empty(n_topics, dtype=np.int64)
    q_cumulative = np.empty(n_topics)

    d = max(_first_doc(doc_start, token_lo), 0)
    while d < n_docs and doc_start[d] < token_hi:
        lo = max(doc_start[d], token_lo)
        hi = min(doc_start[d + 1], token_hi)
        if lo >= hi:
            d += 1
            continue
        # Running sums recomputed at every document: rounding drift of the O(1)
        # updates is bounded by one document's tokens.
        smooth_sum = 0.0
        doc_sum = 0.0
        n_doc_topics = 0
        for k in range(n_topics):
            count = np.int64(doc_topic[d, k])
            smooth_sum += alpha[k] * inv_denom[k]
            coef[k] = (count + alpha[k]) * inv_denom[k]
            if count > 0:
                doc_pos[k] = n_doc_topics
                doc_list[n_doc_topics] = k
                n_doc_topics += 1
                doc_sum += count * inv_denom[k]

        for i in range(lo, hi):
            w = token_word[i]
            k_old = np.int64(topic[i])
            # The token leaves k_old only virtually: the caches and sums below are what
            # they would be with the token removed, but the counts are written only if
            # it moves. Most tokens return to their topic once the chain has settled,
            # and then nothing but two cache entries has to be put back.
            old_inv = inv_denom[k_old]
            minus_inv = inv_minus[k_old]
            doc_minus = np.int64(doc_topic[d, k_old]) - 1
            smooth_minus = smooth_sum + alpha[k_old] * (minus_inv - old_inv)
            if doc_minus == 0 and n_doc_topics == 1:
                # Exactly zero, not a rounding residue that could pick an empty bucket.
                doc_minus_sum = 0.0
            else:
                doc_minus_sum = doc_sum + doc_minus * minus_inv - (doc_minus + 1) * old_inv
            old_coef = coef[k_old]
            coef[k_old] = (doc_minus + alpha[k_old]) * minus_inv
            inv_denom[k_old] = minus_inv
            smooth_draw = smooth_sum if fault == 1 else smooth_minus
            doc_draw = doc_sum if fault == 2 else doc_minus_sum

            # --- word bucket q: the only per-token loop, over the word's topics ---
            start = word_list_start[w]
            n_word_topics = word_nnz[w]
            q = 0.0
            for slot in range(n_word_topics):
                kk = np.int64(word_list[start + slot])
                # (kk == k_old) removes the token from its own topic's count.
                q += coef[kk] * (np.int64(word_topic[w, kk]) - (kk == k_old))
                q_cumulative[slot] = q

            beta_w = beta[w]
            u = rng.random() * (q + beta_w * (doc_draw + smooth_draw))
            if u < q:
                new_k = np.int64(word_list[start + _first_above(q_cumulative, n_word_topics, u)])
            else:
                u = (u - q) / beta_w
                if u < doc_draw:
                    new_k = -1
                    fallback = doc_list[0]
                    for j in range(n_doc_topics):
                        kk = doc_list[j]
                        weight = (np.int64(doc_topic[d, kk]) - (kk == k_old)) * inv_denom[kk]
                        if weight > 0.0:
                            # Rounding can leave u just past the last weight: fall
                            # back to the last topic that has weight.
                            fallback = kk
                            u -= weight
                            if u < 0.0:
                                new_k = kk
                                break
                    if new_k < 0:
                        new_k = fallback
                else:
                    u -= doc_draw
                    new_k = n_topics - 1
                    for kk in range(n_topics):
                        u -= alpha[kk] * inv_denom[kk]
                        if u < 0.0:
                            new_k = kk
                            break

            if new_k == k_old:
                coef[k_old] = old_coef
                inv_denom[k_old] = old_inv
                continue

            # --- the token moves: commit its removal from k_old ... ---
            doc_topic[d, k_old] = doc_minus
            word_topic[w, k_old] -= 1
            topic_total[k_old] -= 1
            inv_minus[k_old] = _inv_minus(topic_total[k_old], beta_sum)
            smooth_sum = smooth_minus
            doc_sum = doc_minus_sum
            if doc_minus == 0:
                last = doc_list[n_doc_topics - 1]
                doc_list[doc_pos[k_old]] = last
                doc_pos[last] = doc_pos[k_old]
                n_doc_topics -= 1
            if word_topic[w, k_old] == 0:
                # k_old leaves the word's list: close the gap (keeps the list sorted).
                slot = start + _lower_bound_topic(word_list, start, n_word_topics, k_old)
                for j in range(slot, start + n_word_topics - 1):
                    word_list[j] = word_list[j + 1]
                n_word_topics -= 1
                word_nnz[w] = n_word_topics

            # --- ... and its addition to new_k ---
            k = new_k
            old_inv = inv_denom[k]
            if word_topic[w, k] == 0:
                # k joins the word's list at its sorted place (there is room: the
                # capacity is min(K, frequency) and k was not in the list).
                slot = start + _lower_bound_topic(word_list, start, n_word_topics, k)
                for j in range(start + n_word_topics, slot, -1):
                    word_list[j] = word_list[j - 1]
                word_list[slot] = k
                word_nnz[w] = n_word_topics + 1
            doc_count = np.int64(doc_topic[d, k]) + 1
            doc_topic[d, k] = doc_count
            word_topic[w, k] += 1
            topic_total[k] += 1
            # The old 1 / (n_k + B) is the new 1 / (n_k - 1 + B).
            inv_minus[k] = old_inv
            new_inv = 1.0 / (topic_total[k] + beta_sum)
            inv_denom[k] = new_inv
            smooth_sum += alpha[k] * (new_inv - old_inv)
            doc_sum += doc_count * new_inv - (doc_count - 1) * old_inv
            coef[k] = (doc_count + alpha[k]) * new_inv
            if doc_count == 1:
                doc_pos[k] = n_doc_topics
                doc_list[n_doc_topics] = k
                n_doc_topics += 1
            topic[i] = k
        d += 1


@numba.njit(cache=True)
def _dense_range(
    token_lo,
    token_hi,
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
):
    n_topics = topic_total.shape[0]
    n_docs = doc_start.shape[0] - 1
    inv_denom = np.empty(n_topics)
    for k in range(n_topics):
        inv_denom[k] = 1.0 / (topic_total[k] + beta_sum)
    coef = np.empty(n_topics)
    cumulative = np.empty(n_topics)

    d = max(_first_doc(doc_start, token_lo), 0)
    while d < n_docs and doc_start[d] < token_hi:
        lo = max(doc_start[d], token_lo)
        hi = min(doc_start[d + 1], token_hi)
        if lo >= hi:
            d += 1
            continue
        for k in range(n_topics):
            coef[k] = (np.int64(doc_topic[d, k]) + alpha[k]) * inv_denom[k]
        for i in range(lo, hi):
            w = token_word[i]
            k = np.int64(topic[i])
            doc_topic[d, k] -= 1
            word_topic[w, k] -= 1
            topic_total[k] -= 1
            inv_denom[k] = 1.0 / (topic_total[k] + beta_sum)
            coef[k] = (np.int64(doc_topic[d, k]) + alpha[k]) * inv_denom[k]

            beta_w = beta[w]
            total = 0.0
            for kk in range(n_topics):
                total += coef[kk] * (word_topic[w, kk] + beta_w)
                cumulative[kk] = total
            u = rng.random() * total
            left = 0
            right = n_topics - 1
            while left < right:
                mid = (left + right) >> 1
                if cumulative[mid] > u:
                    right = mid
                else:
                    left = mid + 1
            k = left

            doc_topic[d, k] += 1
            word_topic[w, k] += 1
            topic_total[k] += 1
            inv_denom[k] = 1.0 / (topic_total[k] + beta_sum)
            coef[k] = (np.int64(doc_topic[d, k]) + alpha[k]) * inv_denom[k]
            topic[i] = k
        d += 1


def _check_arrays(token_word, doc_start, topic, doc_topic, word_topic, topic_total, alpha, beta):
    # O(1) checks only: a sweep must not pay O(N) validation (ids are checked once, in
    # counts.check_corpus / the model's Data).
    n_docs = doc_start.shape[0] - 1
    n_words, n_topics = word_topic.shape
    if topic.shape != token_word.shape:
        raise ValueError("topic must have one entry per token")
    if doc_topic.shape != (n_docs, n_topics):
        raise ValueError(f"doc_topic must be (D, K) = ({n_docs}, {n_topics})")
    if topic_total.shape != (n_topics,) or topic_total.dtype != np.int64:
        raise ValueError("topic_total must be int64 (K,)")
    if alpha.shape != (n_topics,) or beta.shape != (n_words,):
        raise ValueError("alpha must be (K,) and beta (V,)")
    if alpha.dtype != np.float64 or beta.dtype != np.float64:
        raise ValueError("alpha and beta must be float64")
    for name, array in (("topic", topic), ("doc_topic", doc_topic), ("word_topic", word_topic)):
        if array.dtype.kind != "u":
            raise ValueError(f"{name} must have an unsigned integer dtype, got {array.dtype}")
        if not array.flags.c_contiguous or not array.flags.writeable:
            raise ValueError(f"{name} must be C-contiguous and writeable")


def sparse_sweep(
    token_word: np.ndarray,
    doc_start: np.ndarray,
    topic: np.ndarray,
    doc_topic: np.ndarray,
    word_topic: np.ndarray,
    topic_total: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    beta_sum: float,
    aux: SparseAux,
    rng: np.random.Generator,
) -> None:
    """One SparseLDA sweep over all tokens in document order, in place.

    Parameters
    ----------
    token_word, doc_start, topic, doc_topic, word_topic, topic_total
        Corpus, assignments and counts (layout in :mod:`zoo.models.lda.counts`);
        ``topic`` and the counts are updated in place.
    alpha : numpy.ndarray
        float64 (K,), document-topic Dirichlet parameter (asymmetric allowed).
    beta : numpy.ndarray
        float64 (V,), topic-word Dirichlet parameter (asymmetric allowed).
    beta_sum : float
        ``beta.sum()``, passed in so that it is computed once per chain.
    aux : SparseAux
        From :func:`prepare`; kept consistent in place.
    rng : numpy.random.Generator
        One fresh uniform per token.

    Notes
    -----
    Yao, Mimno & McCallum (KDD 2009), section 3.4; exactness and bucket formulas in the
    module docstring.
    """
    resample_tokens(
        0,
        token_word.shape[0],
        token_word,
        doc_start,
        topic,
        doc_topic,
        word_topic,
        topic_total,
        alpha,
        beta,
        beta_sum,
        aux,
        rng,
    )


def dense_sweep(
    token_word: np.ndarray,
    doc_start: np.ndarray,
    topic: np.ndarray,
    doc_topic: np.ndarray,
    word_topic: np.ndarray,
    topic_total: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    beta_sum: float,
    rng: np.random.Generator,
) -> None:
    """One dense Griffiths-Steyvers sweep (O(K) per token), in place.

    Same arguments as :func:`sparse_sweep` without ``aux``. The weight of topic k is
    ``coef_k (n_kw + beta_w)`` with the per-document cache
    ``coef_k = (n_dk + alpha_k) / (n_k + B)``; the topic is found by binary search in
    the cumulative weights.
    """
    resample_tokens(
        0,
        token_word.shape[0],
        token_word,
        doc_start,
        topic,
        doc_topic,
        word_topic,
        topic_total,
        alpha,
        beta,
        beta_sum,
        None,
        rng,
        method="dense",
    )


def sweep(
    token_word: np.ndarray,
    doc_start: np.ndarray,
    topic: np.ndarray,
    doc_topic: np.ndarray,
    word_topic: np.ndarray,
    topic_total: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    beta_sum: float,
    aux: SparseAux | None,
    rng: np.random.Generator,
) -> None:
    """The fastest exact sweep for this K: dense below :data:`SPARSE_FROM_TOPICS`.

    ``aux`` may be None when K is below the threshold (the dense loop needs none and
    does not update it); otherwise it is required and kept consistent. The choice
    depends on K only, so a chain never mixes the two.
    """
    method = "sparse" if topic_total.shape[0] >= SPARSE_FROM_TOPICS else "dense"
    resample_tokens(
        0,
        token_word.shape[0],
        token_word,
        doc_start,
        topic,
        doc_topic,
        word_topic,
        topic_total,
        alpha,
        beta,
        beta_sum,
        aux,
        rng,
        method=method,
    )


def resample_tokens(
    token_lo: int,
    token_hi: int,
    token_word: np.ndarray,
    doc_start: np.ndarray,
    topic: np.ndarray,
    doc_topic: np.ndarray,
    word_topic: np.ndarray,
    topic_total: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    beta_sum: float,
    aux: SparseAux | None,
    rng: np.random.Generator,
    *,
    method: str = "sparse",
    fault: str = "none",
) -> None:
    """Resample tokens ``token_lo <= i < token_hi`` in order, in place.

    A full sweep is ``(0, N)``. Resampling one token repeatedly gives independent
    draws from its full conditional (the token is removed before each draw, so the
    conditional does not depend on its current topic): this is how the tests check
    exactness.

    Parameters
    ----------
    token_lo, token_hi : int
        Token range (may span documents).
    method : {"sparse", "dense"}
        Which kernel; ``aux`` is required for "sparse", ignored for "dense".
    fault : str
        Key of :data:`FAULTS`; anything but "none" samples from a wrong conditional and
        exists only for negative-control tests.

    Other parameters are those of :func:`sparse_sweep`.
    """
    _check_arrays(token_word, doc_start, topic, doc_topic, word_topic, topic_total, alpha, beta)
    if not 0 <= token_lo <= token_hi <= token_word.shape[0]:
        raise ValueError(f"token range [{token_lo}, {token_hi}) outside [0, N]")
    if fault not in FAULTS:
        raise ValueError(f"unknown fault {fault!r}; known: {sorted(FAULTS)}")
    if method == "dense":
        if fault != "none":
            raise ValueError("faults exist for the sparse kernel only")
        _dense_range(
            token_lo,
            token_hi,
            token_word,
            doc_start,
            topic,
            doc_topic,
            word_topic,
            topic_total,
            alpha,
            beta,
            float(beta_sum),
            rng,
        )
    elif method == "sparse":
        if aux is None:
            raise ValueError("the sparse kernel needs aux = prepare(word_topic)")
        if aux.word_nnz.shape[0] != word_topic.shape[0]:
            raise ValueError("aux was prepared for another vocabulary")
        _sparse_range(
            token_lo,
            token_hi,
            token_word,
            doc_start,
            topic,
            doc_topic,
            word_topic,
            topic_total,
            alpha,
            beta,
            float(beta_sum),
            aux.word_list_start,
            aux.word_list,
            aux.word_nnz,
            rng,
            FAULTS[fault],
        )
    else:
        raise ValueError(f"method must be 'sparse' or 'dense', got {method!r}")
