"""LDA: an O(1)-per-token Metropolis-Hastings sweep, exact, with a doc and a word proposal.

The target of every token's update is the collapsed full conditional of Griffiths &
Steyvers ("Finding scientific topics", PNAS 101, 2004, eq. 5), all counts without
token ``i``::

    pi(k) ∝ (n_dk + alpha_k) (n_kw + beta_w) / (n_k + B),   B = sum(beta)

Drawing from it exactly costs O(K) per token (O(topics of the word) with SparseLDA's
buckets, :mod:`zoo.models.lda.sweeps`). Here each token instead takes ``cycles``
cycles of two Metropolis-Hastings steps, each with a proposal that costs O(1) to draw
(the factorisation of LightLDA, Yuan et al., "LightLDA: big topic models on modest
computer clusters", WWW 2015, section 3; the proposals of WarpLDA, Chen et al.,
"WarpLDA: a cache efficient O(1) algorithm for latent Dirichlet allocation", VLDB
2016, section 4):

- the **doc proposal** ``q_d(k) ∝ n_dk + alpha_k``, counts *with* token ``i``: with
  probability ``n_d / (n_d + A)``, ``A = sum(alpha)``, the topic of a token of document
  ``d`` chosen uniformly (token ``i`` included), otherwise a draw from
  ``alpha / A`` (a Walker alias table, built once per call);
- the **word proposal** ``q_w(k) ∝ n_kw + beta_w``, counts with token ``i``: with
  probability ``n_w / (n_w + K beta_w)`` the topic of a token of word ``w`` chosen
  uniformly (an inverted index of the word's tokens, :class:`WordTokens`), otherwise a
  uniform topic.

A proposal ``t`` from current topic ``s != t`` is accepted with probability
``min(1, pi(t) q(s | t) / (pi(s) q(t | s)))``. Counting token ``i`` in the proposal (it
sits in ``s`` now and would sit in ``t`` after the move) makes both normalisers the
same, so the proposal's terms cancel against the target's and the ratios are, counts
without token ``i``::

    doc proposal:   (n_tw + beta_w) (n_s + B) / ((n_sw + beta_w) (n_t + B))
    word proposal:  (n_dt + alpha_t) (n_s + B) / ((n_ds + alpha_s) (n_t + B))

Exactness. Both proposals are read from the *current* assignments (the counts are
updated as soon as a token moves), so each step is a Metropolis-Hastings kernel that
leaves ``pi`` invariant given the other tokens, hence the posterior over all
assignments: this sampler is exact, not an approximation. LightLDA's and WarpLDA's
speed also comes from proposal tables rebuilt once per sweep and from counts updated
once per sweep; a table built from an earlier state, or counts that lag, make the
kernel depend on more than the current state, and neither is done here. The price is
mixing: a token's topic moves less per sweep than under the exact conditional draw
(the sweeps needed to reach the Gibbs sweep's log joint are measured in
``bench/results/lda_speed.md``).

Cost per token and cycle: four uniforms and about ten reads of count tables, none a
loop over topics, whatever K is. Memory: the dense ``doc_topic`` (D, K) and
``word_topic`` (V, K) of :class:`~zoo.models.lda.counts.State` plus the index, 4 or 8
bytes per token.

Faults (:class:`MetropolisFault`): deliberately wrong acceptance rules, negative
controls for the validation battery, each fixed at compile time.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numba
import numpy as np

from zoo.core.arguments import as_int
from zoo.models.lda.corpus import Corpus
from zoo.models.lda.counts import State
from zoo.models.lda.sweeps import check_sweep_arrays, document_span

__all__ = ["MetropolisFault", "WordTokens", "build_word_tokens", "metropolis_sweep"]


class MetropolisFault(IntEnum):
    """Deliberately wrong variants of the Metropolis-Hastings sweep (negative controls).

    ``NO_PROPOSAL_RATIO``
        The acceptance probability is ``pi(t) / pi(s)``, the proposal's
        ``q(s | t) / q(t | s)`` left out (a Metropolis rule for a proposal that is not
        symmetric).
    ``COUNTS_WITH_TOKEN``
        The acceptance ratio reads the counts with token ``i`` still in its topic
        (``n_sw``, ``n_ds`` and ``n_s`` not reduced by one).
    ``NO_PRIOR_BRANCH``
        The doc proposal always takes the topic of a random token of the document (its
        ``alpha`` branch is dropped), while the acceptance ratio assumes
        ``q_d ∝ n_dk + alpha_k``.
    """

    NONE = 0
    NO_PROPOSAL_RATIO = 1
    COUNTS_WITH_TOKEN = 2
    NO_PRIOR_BRANCH = 3


_NO_PROPOSAL_RATIO = int(MetropolisFault.NO_PROPOSAL_RATIO)
_COUNTS_WITH_TOKEN = int(MetropolisFault.COUNTS_WITH_TOKEN)
_NO_PRIOR_BRANCH = int(MetropolisFault.NO_PRIOR_BRANCH)


class WordTokens(NamedTuple):
    """The tokens of each word: word ``w``'s are ``token[start[w]:start[w + 1]]``."""

    start: np.ndarray
    token: np.ndarray


@numba.njit(cache=True)
def _fill_word_tokens(token_word, start, token):
    # A counting sort by word: tokens of a word in increasing position.
    slot = start[:-1].copy()
    for i in range(token_word.shape[0]):
        w = token_word[i]
        token[slot[w]] = i
        slot[w] += 1


def build_word_tokens(corpus: Corpus, n_words: int) -> WordTokens:
    """The inverted index of the word proposal: every word's token positions, O(N + V).

    Parameters
    ----------
    corpus : Corpus
    n_words : int
        The vocabulary size V (words that never occur have no tokens).
    """
    token_word = corpus.token_word
    start = np.zeros(n_words + 1, dtype=np.int64)
    np.cumsum(np.bincount(token_word, minlength=n_words), out=start[1:])
    index_dtype = np.int32 if token_word.shape[0] < 2**31 else np.int64
    token = np.empty(token_word.shape[0], dtype=index_dtype)
    _fill_word_tokens(token_word, start, token)
    return WordTokens(start, token)


@numba.njit(cache=True)
def _alias_table(weights):
    # Walker's alias method, Vose's construction (Vose, "A linear algorithm for
    # generating random numbers with a given distribution", IEEE TSE 17, 1991): a uniform
    # cell k, kept with probability keep[k], else its alias.
    n = weights.shape[0]
    scaled = weights * (n / weights.sum())
    keep = np.ones(n)
    alias = np.arange(n)
    small = np.empty(n, dtype=np.int64)
    large = np.empty(n, dtype=np.int64)
    n_small = n_large = 0
    for k in range(n):
        if scaled[k] < 1.0:
            small[n_small] = k
            n_small += 1
        else:
            large[n_large] = k
            n_large += 1
    while n_small > 0 and n_large > 0:
        n_small -= 1
        lo = small[n_small]
        hi = large[n_large - 1]
        keep[lo] = scaled[lo]
        alias[lo] = hi
        scaled[hi] -= 1.0 - scaled[lo]
        if scaled[hi] < 1.0:
            n_large -= 1
            small[n_small] = hi
            n_small += 1
    # What remains in either list has weight 1 up to rounding: always kept.
    return keep, alias


@numba.njit(cache=True, inline="always")
def _alias_draw(keep, alias, u):
    # One draw from the alias table with one uniform u in [0, 1): its integer part picks
    # the cell, its fractional part decides between the cell and its alias.
    x = u * keep.shape[0]
    k = min(int(x), keep.shape[0] - 1)
    return k if x - k < keep[k] else alias[k]


@numba.njit(cache=True, inline="always")
def _move(i, d, w, s, t, topic, doc_topic, word_topic, topic_total):
    topic[i] = t
    doc_topic[d, s] -= 1
    doc_topic[d, t] += 1
    word_topic[w, s] -= 1
    word_topic[w, t] += 1
    topic_total[s] -= 1
    topic_total[t] += 1


def _metropolis_kernel(fault: int):
    """The compiled range kernel for one fault value (a compile-time constant)."""

    @numba.njit(cache=True)
    def metropolis_range(corpus, state, hyper, words, lo, hi, sweeps, cycles, rng):
        token_word, doc_start = corpus
        topic, doc_topic, word_topic, topic_total = state
        alpha, beta, beta_sum = hyper
        word_start, word_token = words
        n_topics = topic_total.shape[0]
        alpha_sum = alpha.sum()
        keep, alias = _alias_table(alpha)
        # Token i is in topic s while its ratio is formed: its own count is taken out of
        # the counts of s (not of t), unless the fault leaves it in.
        own = 0.0 if fault == _COUNTS_WITH_TOKEN else 1.0
        first, stop = document_span(doc_start, lo, hi)
        for _ in range(sweeps):
            for d in range(first, stop):
                d_lo = doc_start[d]
                n_d = doc_start[d + 1] - d_lo
                for i in range(max(lo, d_lo), min(hi, d_lo + n_d)):
                    w = token_word[i]
                    beta_w = beta[w]
                    w_lo = word_start[w]
                    n_w = word_start[w + 1] - w_lo
                    s = topic[i]
                    for _ in range(cycles):
                        # Doc proposal: q(k) ∝ n_dk + alpha_k, token i counted.
                        if fault == _NO_PRIOR_BRANCH:
                            u = rng.random() * n_d
                        else:
                            u = rng.random() * (n_d + alpha_sum)
                        if u < n_d:
                            t = topic[d_lo + int(u)]
                        else:
                            t = _alias_draw(keep, alias, (u - n_d) / alpha_sum)
                        if t != s:
                            up = (word_topic[w, t] + beta_w) * (topic_total[s] - own + beta_sum)
                            down = (word_topic[w, s] - own + beta_w) * (topic_total[t] + beta_sum)
                            if fault == _NO_PROPOSAL_RATIO:
                                up *= doc_topic[d, t] + alpha[t]
                                down *= doc_topic[d, s] - own + alpha[s]
                            if rng.random() * down < up:
                                _move(i, d, w, s, t, topic, doc_topic, word_topic, topic_total)
                                s = t
                        # Word proposal: q(k) ∝ n_kw + beta_w, token i counted.
                        u = rng.random() * (n_w + n_topics * beta_w)
                        if u < n_w:
                            t = topic[word_token[w_lo + int(u)]]
                        else:
                            t = min(int((u - n_w) / beta_w), n_topics - 1)
                        if t != s:
                            up = (doc_topic[d, t] + alpha[t]) * (topic_total[s] - own + beta_sum)
                            down = (doc_topic[d, s] - own + alpha[s]) * (topic_total[t] + beta_sum)
                            if fault == _NO_PROPOSAL_RATIO:
                                up *= word_topic[w, t] + beta_w
                                down *= word_topic[w, s] - own + beta_w
                            if rng.random() * down < up:
                                _move(i, d, w, s, t, topic, doc_topic, word_topic, topic_total)
                                s = t

    return metropolis_range


_KERNELS = {f: _metropolis_kernel(int(f)) for f in MetropolisFault}


def metropolis_sweep(
    corpus: Corpus,
    state: State,
    hyper: tuple[np.ndarray, np.ndarray, float],
    rng: np.random.Generator,
    *,
    sweeps: int = 1,
    cycles: int = 1,
    tokens: tuple[int, int] | None = None,
    word_tokens: WordTokens | None = None,
    fault: MetropolisFault = MetropolisFault.NONE,
) -> None:
    """Metropolis-Hastings sweeps over the tokens, updating ``state`` in place.

    Parameters
    ----------
    corpus : Corpus
        ``(token_word, doc_start)`` (``data.corpus``).
    state : State
        Topics and counts consistent with them (:func:`zoo.models.lda.counts.build_state`);
        updated in place.
    hyper : (alpha, beta, beta_sum)
        As ``Prior.resolve(data)`` returns them: float64 ``alpha`` (K,), ``beta`` (V,) and
        ``beta.sum()``.
    rng : numpy.random.Generator
        Advanced in place by numba: four uniforms per token and cycle at most.
    sweeps : int
        Sweeps to run (default 1).
    cycles : int
        Cycles of (doc proposal, word proposal) per token and sweep (default 1).
    tokens : (lo, hi), optional
        Update only tokens ``lo <= i < hi``, in order; default all.
    word_tokens : WordTokens, optional
        The word proposal's index (:func:`build_word_tokens`); built here when not given.
        A caller running many sweeps builds it once.
    fault : MetropolisFault
        :attr:`MetropolisFault.NONE` for the correct sampler; the others exist only as
        negative controls.

    Notes
    -----
    The proposals and acceptance ratios, and why the sweep is exact, are in the module
    docstring (LightLDA, Yuan et al. 2015; WarpLDA, Chen et al. 2016).
    """
    if isinstance(fault, bool) or not isinstance(fault, int | np.integer):
        raise ValueError(f"fault: expected a MetropolisFault, got {fault!r}")
    try:
        fault = MetropolisFault(fault)
    except ValueError as err:
        known = list(MetropolisFault)
        raise ValueError(f"fault: unknown fault {fault!r}; known: {known}") from err
    sweeps = as_int("sweeps", sweeps, minimum=0)
    cycles = as_int("cycles", cycles, minimum=1)
    corpus, state = Corpus(*corpus), State(*state)
    alpha, beta, beta_sum = hyper
    check_sweep_arrays(corpus, state, alpha, beta)
    if not (np.all(alpha > 0) and np.all(beta > 0)):
        raise ValueError("hyper: alpha and beta must be > 0 (the proposals' prior branches)")
    n_tokens = corpus.token_word.shape[0]
    lo, hi = (0, n_tokens) if tokens is None else (int(tokens[0]), int(tokens[1]))
    if not 0 <= lo <= hi <= n_tokens:
        raise ValueError(f"tokens: range [{lo}, {hi}) outside [0, {n_tokens}]")
    n_words = state.word_topic.shape[0]
    if word_tokens is None:
        word_tokens = build_word_tokens(corpus, n_words)
    elif word_tokens.start.shape[0] != n_words + 1 or word_tokens.token.shape[0] != n_tokens:
        raise ValueError("word_tokens: built for another corpus")
    hyper = (alpha, beta, float(beta_sum))
    _KERNELS[fault](
        corpus, state, hyper, WordTokens(*word_tokens), lo, hi, int(sweeps), int(cycles), rng
    )
