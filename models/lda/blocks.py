"""LDA: the threaded sweeps' blocks of documents and words, and the epochs that run them.

Both threaded sweeps (the collapsed Gibbs one, :func:`zoo.models.lda.sweeps.sweep`, and
the Metropolis-Hastings one, :func:`zoo.models.lda.metropolis.metropolis_sweep`, with
``parts > 1``) split the documents into ``parts`` groups and the words into ``parts``
groups of about ``N / parts`` tokens each, and run a sweep as ``parts`` epochs: in epoch
``e``, thread ``p`` updates the tokens of document group ``p`` whose word is in word group
``(p + e) mod parts``. This is the partition of Yan, Xu & Qi ("Parallel inference for
latent Dirichlet allocation on graphics processing units", NIPS 2009: documents and
words both partitioned, one diagonal of the blocks per epoch). No two threads
touch the same document or word in an epoch, so ``n_dk``, ``n_kw``, a word's topic list
and a token's topic are each written by one thread; only the topic totals ``n_k`` are
shared. Each thread works on its own copy of ``n_k`` through the epoch, and the copies'
changes are added at its end (the merge of AD-LDA, Newman, Asuncion, Smyth & Welling,
"Distributed algorithms for topic models", JMLR 10, 2009, section 2, applied to ``n_k``
only). The merged totals are exactly those the assignments imply: every move is counted
once, by the thread that made it.

Not exact: within an epoch a thread's ``n_k`` lags the other threads' moves, so an
epoch is not a composition of updates from the current full conditionals
(docs/scaling.md measures how far each threaded sweep is from the posterior). Each
thread draws from its own child of the caller's generator (``rng.spawn(parts)``) and
reads only its own copy of the totals, so the draws do not depend on the threads'
timing: the same seed gives the same draws.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numba
import numpy as np

from zoo.core.arguments import as_int
from zoo.models.lda.corpus import Corpus, check_corpus
from zoo.models.lda.counts import word_frequency
from zoo.models.lda.uniforms import uniform_source

__all__ = ["Partition", "build_partition", "check_partition", "sweep_in_blocks"]


class Partition(NamedTuple):
    """The blocks of the threaded sweeps: ``parts`` groups of documents and of words.

    Document group ``p`` is documents ``doc_group_start[p] <= d < doc_group_start[p + 1]``;
    word ``w`` is in group ``word_group[w]``. Both are contiguous ranges (of document and
    of word ids) holding about ``N / parts`` tokens each. ``token_group[i]`` is the word
    group of token ``i`` (narrowest unsigned type): a block walks its documents' tokens
    and reads it in token order, where ``word_group[token_word[i]]`` would be a random
    read per token and epoch.
    """

    doc_group_start: np.ndarray
    word_group: np.ndarray
    token_group: np.ndarray


def build_partition(corpus: Corpus, n_words: int, parts: int) -> Partition:
    """Split documents and words into ``parts`` groups of about equal token counts, O(N + V)."""
    parts = as_int("parts", parts, minimum=1)
    # The loops below index by word id without bounds checks (numba does not either).
    check_corpus(corpus, n_words)
    n_tokens = corpus.token_word.shape[0]
    doc_start = corpus.doc_start
    # Cut where the running token count crosses n_tokens * p / parts.
    cuts = np.arange(1, parts) * (n_tokens / parts)
    doc_group_start = np.concatenate(
        [[0], np.searchsorted(doc_start[1:], cuts, side="left") + 1, [doc_start.shape[0] - 1]]
    ).astype(np.int64)
    doc_group_start = np.minimum(doc_group_start, doc_start.shape[0] - 1)
    frequency = word_frequency(corpus.token_word, n_words)
    before = np.cumsum(frequency) - frequency  # tokens of the words before w
    word_group = np.minimum((before * parts) // max(n_tokens, 1), parts - 1).astype(np.int64)
    token_group = np.empty(n_tokens, dtype=np.min_scalar_type(parts - 1))
    _token_groups(corpus.token_word, word_group.astype(token_group.dtype), token_group)
    return Partition(doc_group_start, word_group, token_group)


@numba.njit(cache=True)
def _token_groups(token_word, word_group, out):
    # out[i] = word_group[token_word[i]]: NumPy's indexing with the int32 token words
    # would first copy them to intp, 8 bytes a token (as `numpy.bincount` would for the
    # frequencies above, hence `word_frequency`), more than the partition itself.
    for i in range(token_word.shape[0]):
        out[i] = word_group[token_word[i]]


def check_partition(partition: Partition, parts: int, n_words: int, n_tokens: int) -> Partition:
    """Raise ``ValueError`` naming the field unless ``partition`` fits ``parts`` and the corpus."""
    partition = Partition(*partition)
    if partition.doc_group_start.shape[0] != parts + 1:
        built = partition.doc_group_start.shape[0] - 1
        raise ValueError(f"partition: built for {built} parts")
    if partition.word_group.shape[0] != n_words:
        raise ValueError("partition: built for another vocabulary")
    if partition.token_group.shape[0] != n_tokens:
        raise ValueError("partition: built for another corpus")
    return partition


#: A block: ``block(totals, group, doc_first, doc_stop, source)`` updates, once, the
#: tokens of documents ``doc_first <= d < doc_stop`` whose word is in ``group``, reading
#: and writing the thread's ``totals`` and drawing from ``source``
#: (:func:`~zoo.models.lda.uniforms.uniform_source`).
Block = Callable[[np.ndarray, int, int, int, object], None]


def sweep_in_blocks(
    partition: Partition,
    topic_total: np.ndarray,
    rng: np.random.Generator,
    sweeps: int,
    block: Block,
) -> None:
    """``sweeps`` threaded sweeps: ``parts`` epochs each, one thread per document group.

    In epoch ``e`` thread ``p`` runs ``block`` on document group ``p`` and word group
    ``(p + e) mod parts`` with its own copy of ``topic_total`` and its own child of
    ``rng`` (``rng.spawn(parts)``, once per call); the copies' changes are added to
    ``topic_total`` at the end of each epoch (module docstring). ``block`` must release
    the GIL for the blocks to run at once.
    """
    starts = partition.doc_group_start
    parts = starts.shape[0] - 1
    rngs = rng.spawn(parts)
    pool = _threads(parts)

    def run(p: int, epoch: int, totals: np.ndarray) -> None:
        with uniform_source(rngs[p]) as source:
            block(totals, (p + epoch) % parts, int(starts[p]), int(starts[p + 1]), source)

    for _ in range(sweeps):
        for epoch in range(parts):
            totals = np.tile(topic_total, (parts, 1))
            blocks = [pool.submit(run, p, epoch, totals[p]) for p in range(parts)]
            for future in blocks:
                future.result()
            # Each thread moved tokens between topics in its own copy: add the moves.
            topic_total[:] += (totals - topic_total).sum(axis=0)


#: The threaded sweeps' worker threads, started on first use and kept (starting two
#: threads per epoch cost more than a sweep of a small corpus).
_POOL: list = []
_POOL_LOCK = threading.Lock()
# A forked child inherits the pool object but not its threads: it starts its own.
os.register_at_fork(after_in_child=_POOL.clear)


def _threads(parts: int) -> ThreadPoolExecutor:
    """A pool of at least ``parts`` threads (the blocks' results do not depend on timing)."""
    with _POOL_LOCK:
        if not _POOL or _POOL[0]._max_workers < parts:
            if _POOL:
                _POOL.pop().shutdown(wait=False)
            _POOL.append(ThreadPoolExecutor(max_workers=parts, thread_name_prefix="zoo-lda"))
        return _POOL[0]
