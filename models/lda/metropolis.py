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

- the **doc proposal** ``q_d(k) ∝ n_dk``, counts *with* token ``i``: the topic of a
  token of document ``d`` chosen uniformly (token ``i`` included);
- the **word proposal** ``q_w(k) ∝ n_kw + beta_w``, counts with token ``i``: with
  probability ``n_w / (n_w + K beta_w)`` the topic of a token of word ``w`` chosen
  uniformly (an inverted index of the word's tokens, :class:`WordTokens`), otherwise a
  uniform topic.

A proposal ``t`` from current topic ``s != t`` is accepted with probability
``min(1, pi(t) q(s | t) / (pi(s) q(t | s)))``. Counting token ``i`` in the proposal (it
sits in ``s`` now and would sit in ``t`` after the move) makes both normalisers the
same, so the ratios are, counts without token ``i``::

    doc proposal:   (n_dt + alpha_t) n_ds (n_tw + beta_w) (n_s + B)
                    / ((n_ds + alpha_s) n_dt (n_sw + beta_w) (n_t + B))
    word proposal:  (n_dt + alpha_t) (n_s + B) / ((n_ds + alpha_s) (n_t + B))

(the word proposal's terms cancel against the target's word factor). A token alone in
its topic within its document (``n_ds = 0``) cannot leave it by a doc proposal, whose
reverse move would be impossible; the word proposal's uniform branch reaches every
topic, so the sweep is irreducible.

Why no prior branch in the doc proposal. LightLDA's doc proposal is ``n_dk + alpha_k``
(with probability ``A / (n_d + A)``, ``A = sum(alpha)``, a draw from ``alpha / A``), whose
doc factors cancel in the ratio. With many topics that branch is a large share of the
proposals (a third at K = 1,000 with ``alpha_k = 0.1`` and documents of 200 tokens, five
in six at K = 10,000), nearly all of them topics the word does not hold and so
rejected, each at the price of a read of the word's row. Without it every doc proposal
is a topic the document holds, the ratio gains the two doc factors (the document's
row, read while the document is being swept) and new topics reach a document through
the word proposal. Measured against the sweep with the branch, in CPU seconds to the
same log joint (``docs/performance.md``, "LDA"): 1.44x to 1.68x fewer on Reuters at
K = 10,000, about 1.13x on the 10-million-token Zipf corpus at K = 10,000, and level to
1.12x at K = 1,000 there (a sweep costs less, and a few more sweeps are needed).

Exactness. Both proposals are read from the *current* assignments (the counts are
updated as soon as a token moves), so each step is a Metropolis-Hastings kernel that
leaves ``pi`` invariant given the other tokens, hence the posterior over all
assignments: this sampler is exact, not an approximation. LightLDA's and WarpLDA's
speed also comes from proposal tables rebuilt once per sweep and from counts updated
once per sweep; a table built from an earlier state, or counts that lag, make the
kernel depend on more than the current state, and neither is done here. The price is
mixing: a token's topic moves less per sweep than under the exact conditional draw
(the sweeps needed to reach the Gibbs sweep's log joint are measured in
``bench/results/lda_speed/tables.md``).

Cost per token and cycle: four uniforms, two reads of topics (a token of the document, a
token of the word) and, when both proposals move, ten reads of count tables (six for the
doc proposal: two cells each of the word's row, the document's row and the totals; four
for the word proposal), none a loop over topics, whatever K is. On a large corpus those
reads are cache misses at random places (the word's row of ``word_topic``, a random
token of the word), so the sweep draws each batch's uniforms before updating it (up to
:data:`BATCH_TOKENS` tokens of a document, four per token and cycle in token order; an
acceptance uniform is drawn even when the proposal is the current topic and it goes
unused). A uniform drawn ahead is as fresh and as independent of the state as one drawn
on the spot, and each is used once, so every step is the same Metropolis-Hastings
kernel; but now where a token's proposals will read is known (it depends on the uniform
and on ``n_d``, ``n_w`` only), and the sweep prefetches those places
:data:`~zoo.models.lda.prefetch.PREFETCH_DISTANCE` tokens ahead. Against the sweep that
drew each uniform when needed (commit 41567eb), timed on the same states from the same
seeds: 2.45x, 2.72x and 1.80x faster on the 10-million-token Zipf corpus at K = 20, 100
and 1,000 (after 30, 30 and 10 Gibbs sweeps); on Reuters, whose tables sit in cache,
0.93x, 0.95x, 1.31x and 1.15x at K = 20, 100, 1,000 and 10,000 (the extra uniforms cost
more than the prefetches save at small K). ``bench/lda_mh_word_order.py --before
41567eb`` repeats the comparison from random topics; ``bench/README.md`` ("LDA sampler
speed") has the comparison with the peers.

Memory: the dense ``doc_topic`` (D, K) and ``word_topic`` (V, K) of
:class:`~zoo.models.lda.counts.State`; the index, ``slot``, 4 bytes a token (8 from 2**31
tokens); the topics in word order, a copy of ``topic`` made at each call; and the
batch's uniforms (:data:`BATCH_TOKENS` x 4 x ``cycles`` floats, 2 (``doc_proposals`` + 1)
in place of 4 with more doc proposals a cycle).

Faults (:class:`MetropolisFault`): deliberately wrong acceptance rules, negative
controls for the validation battery, each fixed at compile time.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numba
import numpy as np

from zoo.core.arguments import as_int
from zoo.models.lda.blocks import Partition, build_partition, check_partition, sweep_in_blocks
from zoo.models.lda.corpus import Corpus, check_corpus
from zoo.models.lda.counts import State, word_frequency
from zoo.models.lda.prefetch import PREFETCH_DISTANCE, prefetch_cell, prefetch_item
from zoo.models.lda.sweeps import (  # _u: an unsigned array index (sweeps, "Unsigned indices")
    _u,
    check_sweep_arrays,
    document_span,
)
from zoo.models.lda.uniforms import fill_uniforms, uniform_source

# Partition and build_partition live in zoo.models.lda.blocks (shared with the threaded
# Gibbs sweep) and stay importable from here, where they were first defined.
__all__ = [
    "DEFAULT_CYCLES",
    "MetropolisFault",
    "Partition",
    "WordTokens",
    "build_partition",
    "build_word_tokens",
    "metropolis_sweep",
]


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
        The doc proposal's ratio is LightLDA's, for the proposal ``n_dk + alpha_k`` with
        its ``alpha`` branch (whose doc factors cancel), while the proposal is ``n_dk``,
        a random token's topic: the ``alpha`` branch the ratio assumes is missing. (Its
        draws are those of the fault of that name before 0.3, when the correct doc
        proposal had the branch.)
    """

    NONE = 0
    NO_PROPOSAL_RATIO = 1
    COUNTS_WITH_TOKEN = 2
    NO_PRIOR_BRANCH = 3


_NO_PROPOSAL_RATIO = int(MetropolisFault.NO_PROPOSAL_RATIO)
_COUNTS_WITH_TOKEN = int(MetropolisFault.COUNTS_WITH_TOKEN)
_NO_PRIOR_BRANCH = int(MetropolisFault.NO_PRIOR_BRANCH)

#: Cycles of (doc proposal, word proposal) per token and sweep unless the caller says.
#: Two, measured as CPU seconds to 99% of the way from a random start to the best log
#: joint on Reuters (``bench/lda_time_to_quality.py``, one seed): one cycle needs about
#: twice the sweeps of two (315 against 150 at K = 1,000) for 0.6 times the cost per
#: sweep, so two got there first at K = 20, 100 and 1,000 (one never did at K = 20 in
#: 1,000 sweeps) and as fast at K = 3,000; four cost more than they saved
#: (``docs/performance.md, "LDA"``). LightLDA runs several such steps per token for
#: the same reason (Yuan et al. 2015, section 3).
DEFAULT_CYCLES = 2

#: Tokens whose uniforms are drawn before they are updated (see the module docstring):
#: a batch is part of one document, so the buffer does not grow with the documents.
BATCH_TOKENS = 256


class WordTokens(NamedTuple):
    """The word proposal's index: word ``w``'s tokens sit at ``start[w]:start[w + 1]``.

    ``slot[i]`` is token ``i``'s position in that word order (a counting sort by word,
    tokens of a word in increasing position). The sweep keeps the topics in this order
    too (``by_word[slot[i]]`` is ``topic[i]``), so that the word proposal reads one
    entry near the word's others instead of two far apart (on 10 million tokens both
    reads of ``topic[token[j]]`` missed the cache). Before 0.3 the index also held the
    inverse permutation ``token`` (4 bytes a token); the sweep fills its word-order
    topics from ``slot`` alone.
    """

    start: np.ndarray
    slot: np.ndarray


@numba.njit(cache=True)
def _fill_slots(token_word, start, slot):
    # A counting sort by word: tokens of a word in increasing position.
    cursor = start[:-1].copy()
    for i in range(token_word.shape[0]):
        w = token_word[i]
        slot[i] = cursor[w]
        cursor[w] += 1


@numba.njit(cache=True)
def _topics_in_word_order(topic, slot, by_word):
    # A scatter in numba, not NumPy's by_word[slot] = topic, which would first copy the
    # int32 slots to 8-byte indices (8 bytes a token at the call's peak).
    for i in range(topic.shape[0]):
        by_word[slot[i]] = topic[i]


def build_word_tokens(corpus: Corpus, n_words: int) -> WordTokens:
    """The inverted index of the word proposal: every token's place in word order, O(N + V).

    Parameters
    ----------
    corpus : Corpus
    n_words : int
        The vocabulary size V (words that never occur have no tokens).
    """
    # The loops below index by word id without bounds checks (numba does not either).
    check_corpus(corpus, n_words)
    token_word = corpus.token_word
    start = np.zeros(n_words + 1, dtype=np.int64)
    # word_frequency, not numpy.bincount: no 8-byte copy of the token words.
    np.cumsum(word_frequency(token_word, n_words), out=start[1:])
    index_dtype = np.int32 if token_word.shape[0] < 2**31 else np.int64
    slot = np.empty(token_word.shape[0], dtype=index_dtype)
    _fill_slots(token_word, start, slot)
    return WordTokens(start, slot)


@numba.njit(cache=True, inline="always")
def _move(i, d, w, s, t, topic, doc_topic, word_topic, topic_total):
    topic[i] = t
    doc_topic[d, s] -= 1
    doc_topic[d, t] += 1
    word_topic[w, s] -= 1
    word_topic[w, t] += 1
    topic_total[s] -= 1
    topic_total[t] += 1


def _metropolis_kernel(fault: int, doc_steps: int):
    """The compiled kernel for one fault value and doc proposals a cycle (compile-time constants).

    ``doc_steps`` is a constant so that the default's single doc proposal compiles to
    straight-line code: read at run time, its loop made the 2-cycle sweep 1.10x slower
    (10M tokens, K = 1,000; paired sweeps, 1.285 against 1.17 CPU s).

    It updates, in token order, the tokens ``lo <= i < hi`` of documents
    ``doc_first <= d < doc_stop`` whose word is in group ``group`` (every word when
    ``group`` is -1), reading and writing the topic totals ``totals``: the state's own
    for the serial sweep, a thread's copy for a block of the threaded one. It releases
    the GIL, so that the threaded sweep's blocks run at once.
    """

    @numba.njit(cache=True, nogil=True)
    def metropolis_block(
        corpus, state, totals, hyper, words, token_group, group, doc_first, doc_stop, lo, hi,
        sweeps, cycles, rng,
    ):  # fmt: skip
        token_word, doc_start = corpus
        topic, doc_topic, word_topic, _ = state
        alpha, beta, beta_sum = hyper
        # by_word: the topics in word order (by_word[slot[i]] is topic[i]), kept in step.
        word_start, by_word, slot = words
        n_topics = totals.shape[0]
        # Token i is in topic s while its ratio is formed: its own count is taken out of
        # the counts of s (not of t), unless the fault leaves it in.
        own = 0.0 if fault == _COUNTS_WITH_TOKEN else 1.0
        first, stop = document_span(doc_start, lo, hi)
        # A cycle: doc_steps doc proposals, then a word proposal, two uniforms each.
        per_cycle = 2 * (doc_steps + 1)
        per_token = per_cycle * cycles
        word_step = 2 * doc_steps
        uniforms = np.empty(BATCH_TOKENS * per_token)
        # batch[:n_batch]: the tokens of the batch this block updates (its word group's),
        # in token order; token batch[j]'s uniforms are uniforms[per_token * j:][:per_token].
        batch = np.empty(BATCH_TOKENS, dtype=np.int64)
        for _ in range(sweeps):
            for d in range(max(first, doc_first), min(stop, doc_stop)):
                d_lo = doc_start[d]
                n_d = doc_start[d + 1] - d_lo
                d_hi = min(hi, d_lo + n_d)
                row = _u(d)  # d as an index, once per document (see `_u` below)
                for batch_lo in range(max(lo, d_lo), d_hi, BATCH_TOKENS):
                    # Gathered first, without a branch per token (half the tokens of a
                    # threaded block's documents are the other word group's, in no
                    # predictable order), so that the loops below see only this block's.
                    n_batch = 0
                    for i in range(batch_lo, min(batch_lo + BATCH_TOKENS, d_hi)):
                        batch[n_batch] = i
                        n_batch += 1 if group < 0 else int(token_group[i] == group)
                    fill_uniforms(rng, uniforms, per_token * n_batch)
                    # From PREFETCH_DISTANCE tokens before the batch: each pass asks for
                    # what the token that far ahead will read (n_sw; in every cycle, n_tw
                    # for its doc proposal's t, a token of the document, and its word
                    # proposal's token; its own slot in word order, written if it
                    # moves), known from its uniforms. Every cycle, not the first only:
                    # on 10 million tokens at K = 1,000 the later cycles' reads missed
                    # the cache, and asking for them made a sweep of 2 cycles 1.18x
                    # faster (docs/performance.md, "LDA"). The document's row of
                    # doc_topic is not asked for: it is read by every token of the
                    # document, in cache. A hint: a topic that changes before
                    # that token's turn only makes the hint miss. (Written out here, not
                    # in a helper: a call with array arguments costs reference-count
                    # updates per token.)
                    # Indices as unsigned integers (`_u`): numba wraps a negative signed
                    # index around (a compare, an add and a select per access, with the
                    # array's shape kept in a register or reloaded); these are never
                    # negative, and skipping it made the sweep 21% faster (Zipf, K = 20;
                    # 34 to 45 million tokens per CPU second on Reuters, K = 20).
                    for j in range(-PREFETCH_DISTANCE, n_batch):
                        ahead = j + PREFETCH_DISTANCE
                        if ahead < n_batch:
                            i = _u(batch[_u(ahead)])
                            w = _u(token_word[i])
                            prefetch_cell(word_topic, w, topic[i])
                            w_lo = word_start[w]
                            n_w = word_start[w + _u(1)] - w_lo
                            for c in range(0, per_token, per_cycle):
                                for e in range(0, word_step, 2):
                                    u = uniforms[_u(per_token * ahead + c + e)] * n_d
                                    prefetch_cell(word_topic, w, topic[_u(d_lo + int(u))])
                                u = uniforms[_u(per_token * ahead + c + word_step)] * (
                                    n_w + n_topics * beta[w]
                                )
                                if u < n_w:
                                    prefetch_item(by_word, w_lo + int(u))
                            prefetch_item(by_word, slot[i])
                        if j < 0:
                            continue
                        i = _u(batch[_u(j)])
                        w = _u(token_word[i])
                        own_uniforms = per_token * j
                        beta_w = beta[w]
                        w_lo = word_start[w]
                        n_w = word_start[w + _u(1)] - w_lo
                        s = _u(topic[i])
                        for c in range(0, per_token, per_cycle):
                            for e in range(c, c + word_step, 2):
                                # Doc proposal: q(k) ∝ n_dk, token i counted.
                                u = uniforms[_u(own_uniforms + e)] * n_d
                                t = _u(topic[_u(d_lo + int(u))])
                                if t != s:
                                    up = (word_topic[w, t] + beta_w) * (totals[s] - own + beta_sum)
                                    down = (word_topic[w, s] - own + beta_w) * (
                                        totals[t] + beta_sum
                                    )
                                    if fault != _NO_PRIOR_BRANCH:
                                        # The target's doc factor, then the proposal's
                                        # q(s | t) / q(t | s) = n_ds / n_dt (n_dt >= 1:
                                        # t is a topic of another token of d).
                                        n_dt = doc_topic[row, t]
                                        n_ds = doc_topic[row, s] - own
                                        up *= n_dt + alpha[t]
                                        down *= n_ds + alpha[s]
                                        if fault != _NO_PROPOSAL_RATIO:
                                            up *= n_ds
                                            down *= n_dt
                                    if uniforms[_u(own_uniforms + e + 1)] * down < up:
                                        _move(
                                            i, row, w, s, t, topic, doc_topic, word_topic, totals
                                        )
                                        by_word[_u(slot[i])] = t
                                        s = t
                            # Word proposal: q(k) ∝ n_kw + beta_w, token i counted.
                            e = c + word_step
                            u = uniforms[_u(own_uniforms + e)] * (n_w + n_topics * beta_w)
                            if u < n_w:
                                t = _u(by_word[_u(w_lo + int(u))])
                            else:
                                t = _u(min(int((u - n_w) / beta_w), n_topics - 1))
                            if t != s:
                                up = (doc_topic[row, t] + alpha[t]) * (totals[s] - own + beta_sum)
                                down = (doc_topic[row, s] - own + alpha[s]) * (
                                    totals[t] + beta_sum
                                )
                                if fault == _NO_PROPOSAL_RATIO:
                                    up *= word_topic[w, t] + beta_w
                                    down *= word_topic[w, s] - own + beta_w
                                if uniforms[_u(own_uniforms + e + 1)] * down < up:
                                    _move(i, row, w, s, t, topic, doc_topic, word_topic, totals)
                                    by_word[_u(slot[i])] = t
                                    s = t

    return metropolis_block


_KERNELS = {(f, 1): _metropolis_kernel(int(f), 1) for f in MetropolisFault}


def _kernel(fault: MetropolisFault, doc_proposals: int):
    """The compiled kernel for ``fault`` and ``doc_proposals``, built on first use."""
    key = (fault, doc_proposals)
    if key not in _KERNELS:
        _KERNELS[key] = _metropolis_kernel(int(fault), doc_proposals)
    return _KERNELS[key]


def metropolis_sweep(
    corpus: Corpus,
    state: State,
    hyper: tuple[np.ndarray, np.ndarray, float],
    rng: np.random.Generator,
    *,
    sweeps: int = 1,
    cycles: int = DEFAULT_CYCLES,
    doc_proposals: int = 1,
    tokens: tuple[int, int] | None = None,
    word_tokens: WordTokens | None = None,
    parts: int = 1,
    partition: Partition | None = None,
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
        Advanced in place, ``2 (doc_proposals + 1)`` uniforms per token and cycle (four
        by default), exactly as that many
        ``rng.random()`` calls would (:mod:`zoo.models.lda.uniforms`), with one part;
        with several, each thread draws from its own ``rng.spawn(parts)`` child.
    sweeps : int
        Sweeps to run (default 1).
    cycles : int
        Cycles of (doc proposal, word proposal) per token and sweep (default
        :data:`DEFAULT_CYCLES`).
    doc_proposals : int
        Doc proposals in each cycle, each a Metropolis-Hastings step of its own, before
        the cycle's word proposal (default 1). The doc proposal is the cheaper step (its
        topic is a token of the same document, in cache); two per cycle with one cycle
        reached 95% of the way 1.17x sooner than the default's two cycles on 10 million
        tokens at K = 1,000 within 45 CPU s, but no sooner in a run of 120 sweeps, where
        the default went on to 99% first (``docs/performance.md``, "Issue 33 at K =
        1,000"). Each step leaves the posterior invariant, so the sweep is exact for
        any value.
    tokens : (lo, hi), optional
        Update only tokens ``lo <= i < hi``, in order; default all.
    word_tokens : WordTokens, optional
        The word proposal's index (:func:`build_word_tokens`); built here when not given.
        A caller running many sweeps builds it once.
    parts : int
        1 (default): the exact serial sweep. More: the threaded sweep over
        ``parts x parts`` blocks of documents and words (``parts`` threads at most, as
        many as numba has), **not exact**: a thread reads its own copy of the topic
        totals ``n_k``, brought up to date at the end of each of the sweep's ``parts``
        epochs, so within an epoch it does not see the other threads' moves in
        ``n_k + B`` (docs/scaling.md measures how far this is from the posterior).
        The draws do not depend on the threads' timing (same seed, same draws).
    partition : Partition, optional
        The blocks (:func:`build_partition`); built here when not given and ``parts``
        is more than 1.
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
    doc_proposals = as_int("doc_proposals", doc_proposals, minimum=1)
    corpus, state = Corpus(*corpus), State(*state)
    alpha, beta, beta_sum = hyper
    check_sweep_arrays(corpus, state, alpha, beta)
    if not (np.all(alpha > 0) and np.all(beta > 0)):
        raise ValueError(
            "hyper: alpha and beta must be > 0 (the priors' pseudo-counts; beta's is also "
            "the word proposal's uniform branch, through which every topic is reachable)"
        )
    n_tokens = corpus.token_word.shape[0]
    lo, hi = (0, n_tokens) if tokens is None else (int(tokens[0]), int(tokens[1]))
    if not 0 <= lo <= hi <= n_tokens:
        raise ValueError(f"tokens: range [{lo}, {hi}) outside [0, {n_tokens}]")
    n_words = state.word_topic.shape[0]
    if word_tokens is None:
        word_tokens = build_word_tokens(corpus, n_words)
    if len(word_tokens) != len(WordTokens._fields):
        raise ValueError(
            "word_tokens: expected (start, slot) as build_word_tokens returns them, got "
            f"{len(word_tokens)} arrays (0.2's index also held token; rebuild it)"
        )
    word_tokens = WordTokens(*word_tokens)
    if word_tokens.start.shape[0] != n_words + 1 or word_tokens.slot.shape[0] != n_tokens:
        raise ValueError("word_tokens: built for another corpus")
    parts = as_int("parts", parts, minimum=1)
    if partition is not None:
        partition = check_partition(partition, parts, n_words, n_tokens)
    hyper = (alpha, beta, float(beta_sum))
    kernel = _kernel(fault, int(doc_proposals))
    # The word proposal's view of the topics, in word order (O(N) per call).
    by_word = np.empty_like(state.topic)
    _topics_in_word_order(state.topic, word_tokens.slot, by_word)
    words = (word_tokens.start, by_word, word_tokens.slot)
    if parts == 1:
        # The serial sweep: every document, every word (group -1: the word groups are
        # not read, so no partition is built), the state's own totals, the caller's
        # generator advanced in place (as the Gibbs sweep's).
        no_groups = np.zeros(0, dtype=np.int64)
        with uniform_source(rng) as source:
            kernel(corpus, state, state.topic_total, hyper, words, no_groups, -1, 0,
                   state.doc_topic.shape[0], lo, hi, int(sweeps), int(cycles), source)  # fmt: skip
        return
    if partition is None:
        partition = build_partition(corpus, n_words, parts)
    groups = partition.token_group
    cycles = int(cycles)

    def block(totals, group, first, stop, source):
        kernel(corpus, state, totals, hyper, words, groups, group, first, stop, lo, hi, 1,
               cycles, source)  # fmt: skip

    sweep_in_blocks(partition, state.topic_total, rng, int(sweeps), block)
