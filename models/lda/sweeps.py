"""LDA: the collapsed Gibbs sweep, one entry point over the chain's state.

:func:`sweep` draws every token's topic from the collapsed full conditional of
Griffiths & Steyvers ("Finding scientific topics", PNAS 101, 2004, eq. 5), the token
itself removed from the counts first::

    p(z_i = k | z_-i, w) ∝ (n_dk + alpha_k) (n_kw + beta_w) / (n_k + B),   B = sum(beta)

with asymmetric ``alpha`` (K,) and ``beta`` (V,) allowed. It updates a
:class:`~zoo.models.lda.counts.State` (topics and count tables) in place over a
:class:`~zoo.models.lda.corpus.Corpus`, and chooses the kernel inside: the SparseLDA
buckets from :data:`SPARSE_FROM_TOPICS` topics up, a dense loop below. Two kernels,
one conditional: they differ only in how the normaliser and the draw are computed, and
both are exact (up to floating-point rounding of the weights, as any sampler).

Modes of the same entry point: ``phi=...`` holds the topic-word distributions fixed
(held-out "fold-in" inference, Wallach, Murray, Salakhutdinov & Mimno, "Evaluation
methods for topic models", ICML 2009), and ``fault=`` plants one of the deliberately
wrong variants (:class:`Fault`) that the tests and the validation battery must catch.
A fault is one integer, fixed at compile time: each value gets its own compiled
kernel, so the production path (``Fault.NONE``) carries no trace of the wrong ones.

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
held in :class:`WordLists` (build them with :func:`build_word_lists`):

- ``word_list_start`` int64 (V+1,): word w's slots are
  ``word_list[word_list_start[w]:word_list_start[w+1]]``; the capacity is
  ``min(K, frequency of w)``, so the whole list has at most N entries;
- ``word_list`` (topic dtype): the topics of w with ``word_topic[w, k] > 0`` in the
  first ``word_nnz[w]`` slots, in increasing topic order;
- ``word_nnz`` int64 (V,).

The sparse kernel keeps them consistent with ``word_topic`` in place. Because the
lists are kept sorted by topic id, they are a pure function of ``word_topic``: carrying
them between sweeps or rebuilding them with :func:`build_word_lists` gives the same
draws bit for bit. Rebuilding is one O(V K) pass over ``word_topic`` (3 ms at V = 4,258,
K = 500, a fifth of a sweep of Reuters there; 10 ms at V = 50,000, K = 100); copying
(``lists.copy()``, at most N entries) takes 0.1 ms in both cases. :func:`sweep` builds
them itself when it is not handed any; a caller running many sweeps carries them.
Per-document state (the nonzero topics of the document, the coefficient cache, the
running sums) is rebuilt at each document and never carried. The same holds for the
per-topic reciprocals ``1 / (n_k + B)`` and ``1 / (n_k - 1 + B)``, rebuilt at the start
of every sweep, so a sweep's output depends only on (counts, topics, rng state).

Prefetching
-----------
On a corpus with a large vocabulary the per-word tables (``word_topic``, the word lists,
``beta``) outgrow the cache, and in text order each token's word is a random row: the
sparse sweep waits on memory. So it prefetches (:mod:`zoo.models.lda.prefetch`) the
offsets of the word 16 tokens ahead and the rows of the word 8 tokens ahead, a hint that
changes no value: the draws are the same bit for bit as without it. On the synthetic
Zipf corpus (10 million tokens, V = 50,000) the sweep became 1.53x faster at K = 20
and 1.30x at K = 100 (after 30 sweeps), 1.18x at K = 1,000 (after 10); on Reuters (V =
4,258, the tables in cache) 0.95x to 1.04x at K = 20 to 10,000, so every sweep does it
(``bench/lda_prefetch.py``; figures in ``bench/results/lda_prefetch/table.md``).

A word walked by row (below) reads every cell of its row, but only the row's first and
last cache lines were asked for. So when the row spans more than two lines and at most
:data:`ROW_PREFETCH_BYTES` (16 lines), the lines between are asked for too: on the
Zipf corpus, in the same process from the same states after 10 sweeps
(``bench/lda_kernel_paired.py``), 1.33x faster at K = 100 (11.9 against 8.9 million
tokens per CPU second on 10 million tokens; 1.15x on the 1-million-token slice), same
draws bit for bit; 0.98x at K = 20 and 0.96x to 1.01x on Reuters, where no row is
prefetched differently (noise of the shared machine). At K = 20 a row of uint32 counts
is 80 bytes, two lines at most, already both asked for; asking for every line whatever
the row's length made K = 20 0.94x (19.0 against 20.3), an extra hint per token for a
line already on its way, so a row of two lines or fewer is left as it was. A row longer
than ROW_PREFETCH_BYTES (K = 1,000: 4,000 bytes) is mostly list-walked, and 63 hints
per token would cost more than the few lines the list walk reads (not measured).

Row walk
--------
On a large corpus the frequent words hold most of the K topics (on the synthetic Zipf
corpus below, after 10 sweeps, 58% of tokens belong to a word holding all 20 topics at
K = 20, 42% to one holding all 100 at K = 100), and for them the list buys nothing:
the walk reads a topic id, then the coefficient and the count at that id. So a word
whose list holds at least a quarter of the topics (:data:`ROW_WALK_EIGHTHS`) is walked
over its whole contiguous row, ``k = 0 .. K-1``, instead: the K products ``coef_k n_kw`` in a loop
of their own (which the compiler vectorises), the token's own topic then taken out
(``coef_k_old (n_k_old,w - 1)``), and ``q`` summed per block of :data:`Q_BLOCK` topics
and then across the blocks. A single running sum over K terms is a chain of K dependent
additions, each waiting on the one before; the blocks' sums do not wait on each other,
so the processor overlaps them. The draw finds the first block whose cumulative sum is
above ``u`` (then by halving, now by counting: "Picking the slot"), then walks that
block's topics from the sum before it; a zero-weight topic is never drawn, and if
rounding leaves ``u`` just past the block's last partial sum the block's last topic
with weight is taken. On the
10-million-token Zipf corpus this made the sweep 1.25x faster at K = 100 (9.98 against
7.98 million tokens per CPU second, median of 5 paired sweeps after 6) and left it level
at K = 20 (20.2 against 20.3) and on Reuters, where no word holds 3/4 of the topics.

Within the block the topic is found without a branch (for K up to 32 the partial sums
are now kept before the draw: "Picking the slot"): the partial sums from the sum
before the block are formed in topic order as before, and the drawn topic is the block's
first plus the count of partial sums at or below ``u`` (the sums never decrease, so those
are a prefix, and the first sum above ``u`` belongs to a topic with weight); when all
eight are at or below ``u`` (rounding), the last topic with weight. These are the
topics the loop that stopped at the first sum above ``u`` drew, bit for bit, without its
unpredictable exit. With the walk that cheap, a word is walked by row from a quarter of
the topics rather than three quarters (chosen from paired sweeps of thresholds 1/8, 1/4,
1/2 and every word, on the Zipf corpus and on Reuters, where a quarter was level at
K = 20 and 100 and 0.95x at 1,000). Against the kernel before both changes, on the
Zipf corpus after 10 sweeps: 20.8 against 18.4 million tokens per CPU second at K = 20
(1.13x), 10.4 against 9.2 at K = 100 (1.12x), the same states bit for bit
(``bench/lda_kernel_paired.py``, records in ``bench/results/lda_kernel_paired/``).
Each block's eight products are added as a tree of depth 3, ``((w0 + w1) + (w2 + w3))
+ ((w4 + w5) + (w6 + w7))``, not as a chain of seven additions each waiting on the one
before, so ``q``, and with it the draw, is ready sooner. The partial sums kept for the
pick ("Picking the slot") come from the same tree (``w0``, ``w0 + w1``,
``(w0 + w1) + w2``, ``(w0 + w1) + (w2 + w3)``, ...): each is never below the one before
(in floating point a sum of numbers >= 0 does not decrease when a term grows), the one
after a zero weight equals it, and the last is the block's sum itself, the three
properties the pick relies on. Paired against the chain on the Zipf corpus after 10
sweeps: 1.03x at K = 20 (5 rounds, 0.98x to 1.05x), 1.07x at K = 100 (4 rounds, 0.93x
to 1.20x), the same states in every round. With the chain, for K up to
:data:`Q_BLOCK` the row walk drew what the list walk draws bit for bit; with the tree
it may differ where a uniform falls within rounding of a boundary between two topics,
as at larger K. On the exact check's four-topic problem (every word walked by row) no
draw differed from the chain's in 20 seeds x 20,000 sweeps from the same starts and
generators (the two- and three-topic problems run the dense loop, unchanged).

The row walk and the list walk draw from the same conditional; they add the same
products in another grouping, so their sums may differ in the last bit, and a draw only
where the uniform falls within that rounding of a boundary between two topics (no
token's draw differed in those 5 sweeps of 10 million tokens, nor in the test that
compares the two walks). The same holds against the single running sum the row walk
used before this blocked sum: the same seed gives the same draws except at such a
boundary. ``_sparse_kernel(..., row_walk_eighths=ROW_WALK_NEVER)`` walks every list,
for the test and the benchmark that compare them (``bench/lda_row_walk.py``, records in
``bench/results/lda_row_walk/``).

Picking the slot
----------------
The slot of ``q`` the uniform falls in (a list walk's slot, a row walk's block) is the
first whose cumulative sum is above ``u``. Halving the slots, the conditional add
compiled to a branch that goes either way at random, a mispredicted jump per halving
step (13% of the samples in the sweep at K = 100 on the Zipf corpus, ``perf``). Up to
:data:`COUNT_SLOTS_UP_TO` slots the sweep counts instead the sums at or below ``u``: a
sum of comparisons, which does not branch; the sums never decrease, so the count is the
same slot bit for bit. Within a row walk's block, for K up to 8 x
:data:`PARTIALS_UP_TO_BLOCKS` (three blocks at K = 20), the block's partial sums are
kept while ``q`` is summed, before the uniform is drawn, so no chain of eight additions
waits on it; the pick counts the sums ``(sum before the block) + (partial sum)`` at or
below ``u``. The last of them is the block's cumulative sum itself (the same two numbers
added), so the count never runs past the block. These sums round as the ones formed
after the draw (``(sum before) + w_0 + w_1 + ...``) need not, so the draw may differ
from theirs only where ``u`` falls within that rounding of a boundary between two
topics (no token's draw differed in the paired sweeps below, nor in the test that
compares the row walk with the list walk at K = 24). At K = 100 storing the partial sums
(13 blocks) cost more than it saved (0.96x), so there they are formed after the draw as
before.

Reciprocals ahead
-----------------
A token that moves into topic ``k`` needs the new ``1 / (n_k + B)`` at once: the next
token's coefficients and bucket sums are built from it. The sweep keeps
``1 / (n_k + 1 + B)`` per topic beside ``1 / (n_k + B)`` and ``1 / (n_k - 1 + B)``, so
the move reads the reciprocal it needs and the one division it does (the next
``1 / (n_k + 1 + B)``) is needed only by a later move into ``k``: the division leaves
the chain from one token's draw to the next. The same divisions of the same numbers, so
the same draws bit for bit.

Measured paired (``bench/lda_kernel_paired.py``, the same states and seeds, against the
kernel before the three changes, 6df29ee; every round left the same state bit for bit):
on the Zipf corpus after 10 sweeps, 22.8 against 21.0 million tokens per CPU second at
K = 20 (1.09x) and 14.8 against 12.6 at K = 100 (1.18x); on Reuters after 30 sweeps,
1.15x, 1.25x and 1.14x at K = 20, 100 and 1,000 (records in
``bench/results/lda_kernel_paired/``). One change at a time, on the Zipf corpus after 3
sweeps (not recorded): counting the slots 1.20x at K = 100 and level at 20; the
reciprocal ahead 1.07x at K = 20 and level at 100; the kept partial sums 1.05x at
K = 20, and 1.02x at 100, where they are not kept (kept there too, 0.96x).

Unsigned indices
----------------
numba lets a signed index count from the end (``a[-1]``), so every access with one is a
compare, an add and a select, and the array's length is kept live for it: in a loop
body that indexes a dozen arrays, registers run out and values spill to the stack.
The sweep indexes with unsigned integers (``_u``, ``np.uintp``; the token, its word,
its document's row, its old and new topic, a list's slot), as the Metropolis-Hastings
sweep does, and numba does not wrap those. Division by zero cannot happen in the
sweep (``B > 0``, ``beta_w > 0``, ``_inv_minus`` guards an empty topic), so the kernel
is compiled with numba's ``error_model="numpy"``, which leaves out the check before
each division. The same arithmetic in the same order, so the same draws bit for bit:
1.09x per CPU second at K = 20 on the Zipf corpus after 10 sweeps (26.8 against 24.5
million tokens, 5 paired rounds, 1.08x to 1.11x).

For a like reason, a row walk does not write the token's own coefficient
``coef[k_old]`` before it reads the row's coefficients with vector loads (a load that
overlaps a store still in flight waits for it): the token's product is formed from the
value held in a register, and the coefficient is written only when the token moves (a
list walk writes it and puts it back, as before). The same values, the same draws:
1.016x at K = 20 (5 rounds, 1.007x to 1.024x), 1.01x at K = 100.

With the tree of the row walk's block sums ("Row walk"), against the kernel before
these changes (fb7ed9b), paired from the same states (``bench/lda_kernel_paired.py``,
records in ``bench/results/lda_kernel_paired/``; every round left the same state bit
for bit), before the coefficient change: on the Zipf corpus after 10 sweeps 25.45
against 23.20 million tokens per CPU second at K = 20 (1.09x; 7 rounds, 1.09x to
1.11x) and 16.04 against 15.45 at K = 100 (1.04x, 1.03x to 1.05x); on Reuters after
30 sweeps 1.10x, 1.12x and 1.14x at K = 20, 100 and 1,000 (5 rounds). Found with
``perf`` (numba's code dumped from memory and the samples laid on it).

Reciprocals from a window
-------------------------
A move still divides twice, for later tokens ("Reciprocals ahead"): the new ``1 /
(n_k_old - 1 + B)`` and ``1 / (n_k + 1 + B)``. Neither is on the chain to the next draw,
but on the Zipf corpus at K = 20 (after 10 sweeps; ``perf``, numba's code dumped from
memory) 7% of the sweep's samples fell on the two instructions after them: the processor
retires in order, and a division takes as long as a dozen additions. So each topic keeps
a window of :data:`RECIPROCAL_WINDOW` reciprocals ``1 / (n + B)`` for the totals ``n``
around its own, and a move reads the two it needs from the two topics' windows. A
topic's total moves by one at a time; when it leaves its window, the window is refilled
around it (centred; ``RECIPROCAL_WINDOW`` independent divisions, none on the draw's
chain). Each entry is the division the sweep did before, of the same two numbers (``n``
an integer, then ``+ B``, then ``1.0 /``), so the same values and the same draws bit for
bit. The windows are filled on first use and not carried between calls, so the sweep's
output still depends only on (counts, topics, rng state). A call that visits fewer than
:data:`RECIPROCAL_WINDOW_FROM` tokens per topic divides as before: there a topic's first
fill and fresh memory for the K windows cost more than its few moves save (0.94x on
Reuters at K = 1,000, 84 tokens per topic, with windows in every call). At K = 20 a
window of 32 was refilled 85,000 times in a sweep of 10 million tokens (2.7 million
divisions, in a loop of independent ones, against the 5 million a sweep did on the
move's path); 64 halves the refills' divisions again. The look-up is written out in the
sweep, not in a helper: numba passed the arrays to an inlined helper with reference
counts that stayed in the token loop (atomic increments and decrements every token:
0.6x). Paired against the kernel before (bff190e; ``bench/lda_kernel_paired.py``,
records in ``bench/results/lda_kernel_paired/``, the same states bit for bit in every
round): on the Zipf corpus after 10 sweeps 1.03x at K = 20 and at K = 100 (7 rounds;
1.04x and 1.02x for the first version, whose windows' loop had the same code); on
Reuters after 30 sweeps 0.99x, 1.01x and 1.06x at K = 20, 100 and 1,000 (9 rounds).
Removing the two divisions altogether (wrong values, for the ceiling) gave 1.04x at K =
20.

Threads
-------
``sweep(..., parts=P)`` with ``P > 1`` runs the sparse sweep on ``P`` threads over
``P x P`` blocks of documents and words (:mod:`zoo.models.lda.blocks`, shared with the
threaded Metropolis-Hastings sweep): in epoch ``e`` thread ``p`` updates the tokens of
document group ``p`` whose word is in word group ``(p + e) mod P`` (the partition of Yan,
Xu & Qi, "Parallel inference for latent Dirichlet allocation on graphics processing
units", NIPS 2009), so each document's counts, each word's counts and topic list and
each token's topic are written by one thread in an epoch. The topic totals ``n_k`` are
every token's: each thread reads and writes its own copy through the epoch, and the
copies' changes are added at its end (AD-LDA's merge, Newman, Asuncion, Smyth &
Welling, "Distributed algorithms for topic models", JMLR 10, 2009, section 2, here for
``n_k`` only). Within a block everything the bucket sums and caches are built from
that reads ``n_k`` (the reciprocals ``1 / (n_k + B)``, the smoothing sum, the
coefficients) is the thread's copy, kept in step with its own moves; the other thread's
moves reach it at the next epoch. So the threaded sweep is **not exact**: a token's
conditional is formed with totals that lag by up to an epoch of the other thread's
moves (docs/scaling.md measures the distance from the posterior). The draws do not
depend on the threads' timing: each thread has its own child of the caller's generator
and reads only its own totals. The serial sweep is the same body (``_sparse_range``)
with the group -1 (every word), all documents and the state's own totals, passed as
constants so that the block's tests fold away: the same draws bit for bit as before.
The dense kernel (K < :data:`SPARSE_FROM_TOPICS`) has no blocks: with ``parts > 1``
"auto" runs the sparse one at any K.

A block first gathers its own tokens (those of its documents whose word is in its group)
into a list, without a branch per token, and walks that list, prefetching the words of
its own tokens ahead. The list is counted before it is filled and holds 4-byte offsets,
so an epoch's blocks hold about ``4 / parts`` bytes a token between them, freed at the
block's end (the serial sweeps allocate nothing per token). Testing each token's group
in the walk instead cost a mispredicted branch at about every other token (the groups
alternate at random within a document) and prefetched the other thread's rows: on the
1-million-token Zipf corpus at K = 20, three two-thread sweeps took 0.20 CPU s against
0.135 for the serial sweep (both threads counted); with the list, 0.15 (one throwaway
run each on a loaded machine, the same draws bit for bit).

Random numbers: one fresh uniform per token from the caller's ``numpy.random.Generator``,
never a recycled buffer: exactly the numbers ``rng.random()`` would give, drawn through
:func:`zoo.models.lda.uniforms.uniform` (for a PCG64 generator, NumPy's default, its
stream stepped inline and the generator's state written back; for any other,
``rng.random()`` itself).

Layout of the arguments: :mod:`zoo.models.lda.corpus` and :mod:`zoo.models.lda.counts`.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numba
import numpy as np

from zoo.core.arguments import as_int
from zoo.models.lda.blocks import Partition, build_partition, check_partition, sweep_in_blocks
from zoo.models.lda.corpus import Corpus
from zoo.models.lda.counts import State
from zoo.models.lda.prefetch import PREFETCH_DISTANCE, prefetch_cell, prefetch_item
from zoo.models.lda.uniforms import uniform, uniform_source

__all__ = [
    "CACHE_LINE_BYTES",
    "COUNT_SLOTS_UP_TO",
    "DENSE_FAULTS",
    "PARTIALS_UP_TO_BLOCKS",
    "Q_BLOCK",
    "RECIPROCAL_WINDOW",
    "RECIPROCAL_WINDOW_FROM",
    "ROW_PREFETCH_BYTES",
    "ROW_WALK_EIGHTHS",
    "ROW_WALK_NEVER",
    "SPARSE_FROM_TOPICS",
    "Fault",
    "WordLists",
    "build_word_lists",
    "check_sweep_arrays",
    "check_word_lists",
    "document_span",
    "sweep",
    "walks_row",
]

#: Smallest K at which :func:`sweep` uses the sparse buckets rather than the dense loop
#: (on Reuters the two tie at K = 2 and the sparse one is 1.2x faster at K = 5).
SPARSE_FROM_TOPICS = 4

#: The sparse sweep walks a word's whole row of counts, not its topic list, when the
#: word holds at least ``ROW_WALK_EIGHTHS / 8`` of the K topics (module docstring,
#: "Row walk"; 6, three quarters, before the branch-free pick made the row cheaper).
ROW_WALK_EIGHTHS = 2

#: An array index as an unsigned integer, which numba does not wrap around: a signed
#: index costs a compare, an add and a select per access and keeps the array's shape
#: live in a register (module docstring, "Unsigned indices").
_u = np.uintp

#: A threshold no word reaches (it would hold more than K topics): every word's list is
#: walked (``_sparse_kernel(..., row_walk_eighths=ROW_WALK_NEVER)``).
ROW_WALK_NEVER = 9


@numba.njit(cache=True, inline="always")
def walks_row(n_word_topics, n_topics, row_walk_eighths):
    """Whether a word holding ``n_word_topics`` of K topics is walked over its whole row.

    Elementwise for an array of counts (the benchmark's and the tests' share of tokens).
    """
    return 8 * n_word_topics >= row_walk_eighths * n_topics


class Fault(IntEnum):
    """Deliberately wrong variants of the sweep: negative controls, never for sampling.

    Each samples from a slightly wrong conditional, or breaks the count bookkeeping,
    the way a real implementation might:

    ``TOKEN_NOT_REMOVED`` (dense kernel)
        The current token stays in its topic's counts while its conditional is
        computed (and is moved afterwards if its topic changed).
    ``ADDED_BACK_UNDER_OLD_TOPIC`` (dense kernel)
        The new topic is recorded, but the counts are incremented under the old one, so
        within a sweep every token sees the others' topics of the previous sweep.
    ``BETA_NOT_TIMES_V`` (either kernel)
        The denominator is ``n_k + mean(beta)`` (``n_k + beta`` for a symmetric prior)
        instead of ``n_k + sum(beta)`` (``n_k + V beta``).
    ``STALE_SMOOTHING_SUM`` (sparse kernel)
        The smoothing bucket's total is not updated when the token leaves its topic.
    ``STALE_DOC_SUM`` (sparse kernel)
        The same for the document bucket's total.
    ``ALPHA_AS_MEAN`` (either kernel)
        Every ``alpha_k`` replaced by ``mean(alpha)``, as in a sweep written for a
        symmetric prior: the document term is ``n_dk + mean(alpha)``.
    ``THETA_POINT_ESTIMATE`` (not the sweep's: the kernel's ``draw``)
        The sweep runs as :attr:`NONE`; the kernel records the conditional mean
        ``(n_dk + alpha_k) / (n_d + sum(alpha))`` of ``theta_d`` where a draw from
        ``Dir(alpha + n_d.)`` belongs.
    """

    NONE = 0
    TOKEN_NOT_REMOVED = 1
    ADDED_BACK_UNDER_OLD_TOPIC = 2
    BETA_NOT_TIMES_V = 3
    STALE_SMOOTHING_SUM = 4
    STALE_DOC_SUM = 5
    ALPHA_AS_MEAN = 6
    THETA_POINT_ESTIMATE = 7


# Plain integers for the kernels: numba reads module globals as compile-time constants.
_TOKEN_NOT_REMOVED = int(Fault.TOKEN_NOT_REMOVED)
_ADDED_BACK_UNDER_OLD_TOPIC = int(Fault.ADDED_BACK_UNDER_OLD_TOPIC)
_STALE_SMOOTHING_SUM = int(Fault.STALE_SMOOTHING_SUM)
_STALE_DOC_SUM = int(Fault.STALE_DOC_SUM)
#: The faults of the dense kernel (it alone runs them; it has no threaded blocks).
DENSE_FAULTS = (Fault.TOKEN_NOT_REMOVED, Fault.ADDED_BACK_UNDER_OLD_TOPIC)
_SPARSE_FAULTS = (Fault.STALE_SMOOTHING_SUM, Fault.STALE_DOC_SUM)


class WordLists(NamedTuple):
    """Per-word nonzero-topic lists of the sparse kernel (see the module docstring)."""

    word_list_start: np.ndarray
    word_list: np.ndarray
    word_nnz: np.ndarray

    def copy(self) -> WordLists:
        """An independent copy (O(N) at most)."""
        return WordLists(*(a.copy() for a in self))


@numba.njit(cache=True)
def _fill_word_lists(word_topic, word_list_start, word_list, word_nnz):
    for w in range(word_topic.shape[0]):
        slot = word_list_start[w]
        for k in range(word_topic.shape[1]):
            if word_topic[w, k] != 0:
                word_list[slot] = k
                slot += 1
        word_nnz[w] = slot - word_list_start[w]


def build_word_lists(word_topic: np.ndarray) -> WordLists:
    """Build the sparse sweep's per-word topic lists from ``word_topic`` (V, K).

    Returns
    -------
    WordLists
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
    return WordLists(word_list_start, word_list, word_nnz)


def check_word_lists(lists: WordLists, word_topic: np.ndarray) -> None:
    """Raise ``ValueError`` unless ``lists`` holds exactly the nonzero topics of each word."""
    fresh = build_word_lists(word_topic)
    if not np.array_equal(lists.word_list_start, fresh.word_list_start):
        raise ValueError("word_lists: word_list_start does not match the word frequencies")
    if not np.array_equal(lists.word_nnz, fresh.word_nnz):
        raise ValueError("word_lists: word_nnz differs from the nonzero counts of word_topic")
    for w in np.flatnonzero(fresh.word_nnz):
        lo = fresh.word_list_start[w]
        hi = lo + fresh.word_nnz[w]
        if not np.array_equal(lists.word_list[lo:hi], fresh.word_list[lo:hi]):
            raise ValueError(f"word_lists: lists the wrong topics for word {w}")


@numba.njit(cache=True, inline="always")
def document_span(doc_start, token_lo, token_hi):
    """``(first, stop)``: the documents ``first <= d < stop`` holding tokens ``[lo, hi)``."""
    # The documents holding a token of [token_lo, token_hi): from the one holding
    # token_lo (the last d with doc_start[d] <= token_lo; empty documents share a start
    # with the next one) up to the first starting at or after token_hi.
    first = max(np.searchsorted(doc_start, token_lo, side="right") - 1, 0)
    stop = min(np.searchsorted(doc_start, token_hi, side="left"), doc_start.shape[0] - 1)
    return first, stop


@numba.njit(cache=True, inline="always")
def _first_above(cumulative, n, u):
    # First index i < n with cumulative[i] > u, given cumulative[n - 1] > u. Halving
    # with the comparison as a conditional add, meant to cost no mispredicted jump
    # (Khuong & Morin, "Array layouts for comparison-based searching", 2017); compiled
    # for the sparse sweep it became a branch, so there short arrays are counted
    # instead (_count_at_or_below; module docstring, "Picking the slot").
    base = 0
    while n > 1:
        half = n >> 1
        base += half * (cumulative[base + half - 1] <= u)
        n -= half
    return base


#: Up to this many slots, :func:`_count_at_or_below` counts every slot rather than halving
#: (module docstring, "Picking the slot").
COUNT_SLOTS_UP_TO = 64


@numba.njit(cache=True, inline="always")
def _count_at_or_below(cumulative, n, u):
    # The same index as _first_above (given cumulative[n - 1] > u and cumulative never
    # decreasing, the slots at or below u are a prefix, and the first above u follows
    # it), found by counting them all for short arrays: compiled, the halving's
    # conditional add became a branch that goes either way at random; a sum of
    # comparisons does not branch.
    if n > COUNT_SLOTS_UP_TO:
        return _first_above(cumulative, n, u)
    below = 0
    for j in range(n):
        below += cumulative[j] <= u
    return below


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


#: Topics per block of the row walk's sum (module docstring, "Row walk").
Q_BLOCK = 8

#: The row walk keeps its blocks' partial sums for the pick up to this many blocks
#: (K up to 32; module docstring, "Row walk").
PARTIALS_UP_TO_BLOCKS = 4

#: Bytes per cache line (x86-64 and most ARM cores), for the row prefetch.
CACHE_LINE_BYTES = 64

#: Rows of ``word_topic`` up to this many bytes are prefetched whole (module docstring,
#: "Prefetching").
ROW_PREFETCH_BYTES = 1024

#: Reciprocals ``1 / (n + B)`` kept per topic for the totals ``n`` around its current one,
#: so that a move reads them rather than dividing (module docstring, "Reciprocals from a
#: window").
RECIPROCAL_WINDOW = 64

#: A call keeps the windows only when it visits at least this many tokens per topic
#: (``(token_hi - token_lo) * sweeps``); below, a topic's first fill (64 divisions, and
#: fresh memory for K windows) costs more than its few moves save: 0.94x on Reuters at
#: K = 1,000 (84 tokens per topic), 1.00x at K = 20 and 100 (module docstring,
#: "Reciprocals from a window"). Either way the same values, so the same draws.
RECIPROCAL_WINDOW_FROM = 1024


@numba.njit(cache=True, inline="always")
def _sparse_range(
    corpus, state, totals, hyper, lists, token_group, group, doc_first, doc_stop, token_lo,
    token_hi, sweeps, rng, fault, prefetch, row_walk_eighths,
):  # fmt: skip
    """SparseLDA sweeps over tokens [token_lo, token_hi), in place (module docstring).

    A block (module docstring, "Threads"): only the tokens of documents
    ``doc_first <= d < doc_stop`` whose word is in ``group`` (``token_group[i]``; every
    token when ``group`` is -1), reading and writing the topic totals ``totals``: the
    state's own for the serial sweep, a thread's copy for a block of the threaded one.
    Every reciprocal of ``n_k + B`` and the smoothing sum are formed from ``totals``.
    """
    token_word, doc_start = corpus
    topic, doc_topic, word_topic, _ = state
    topic_total = totals
    alpha, beta, beta_sum = hyper
    word_list_start, word_list, word_nnz = lists
    n_topics = topic_total.shape[0]
    inv_denom = np.empty(n_topics)
    inv_minus = np.empty(n_topics)
    inv_plus = np.empty(n_topics)
    coef = np.empty(n_topics)
    doc_list = np.empty(n_topics, dtype=np.int64)
    doc_pos = np.empty(n_topics, dtype=np.int64)
    q_cumulative = np.empty(n_topics)
    # Topic k's window: recip_table[k * RECIPROCAL_WINDOW + j] = 1 / (recip_lo[k] + j + B),
    # filled on first use (module docstring, "Reciprocals from a window"); a start no
    # total can be in, so that the first look-up fills it.
    windows = (token_hi - token_lo) * sweeps >= RECIPROCAL_WINDOW_FROM * n_topics
    recip_table = np.empty(n_topics * RECIPROCAL_WINDOW if windows else 0)
    recip_lo = np.full(n_topics, -2 * RECIPROCAL_WINDOW, dtype=np.int64)
    # The row walk's weights, in whole blocks: the slots past K stay 0.
    n_blocks = (n_topics + Q_BLOCK - 1) // Q_BLOCK
    q_weight = np.zeros(n_blocks * Q_BLOCK)
    # Up to PARTIALS_UP_TO_BLOCKS blocks, their partial sums are kept for the pick (module
    # docstring, "Row walk").
    keep_partials = n_blocks <= PARTIALS_UP_TO_BLOCKS
    q_partial = np.zeros(n_blocks * Q_BLOCK if keep_partials else 0)
    # The first and last cells of a word's row are always asked for; the lines between
    # them too when there are any (a row of more than two lines) and the row is at most
    # ROW_PREFETCH_BYTES (module docstring, "Prefetching").
    row_line_items = max(CACHE_LINE_BYTES // word_topic.itemsize, 1)
    row_bytes = n_topics * word_topic.itemsize
    inner_stop = 0
    if 2 * CACHE_LINE_BYTES < row_bytes <= ROW_PREFETCH_BYTES:
        inner_stop = n_topics - 1
    first_doc, stop_doc = document_span(doc_start, token_lo, token_hi)
    first_doc, stop_doc = max(first_doc, doc_first), min(stop_doc, doc_stop)
    # A block's own tokens, gathered once per call without a branch per token (half a
    # block's documents' tokens are another word group's, in no predictable order):
    # span_lo + mine[mine_start[d - first_doc]:mine_start[d - first_doc + 1]] are
    # document d's, in token order. Counted first, so that the list holds the block's
    # tokens only (about N / parts**2), as 4-byte offsets from the first of its
    # documents' tokens (`sweep` refuses a corpus of 2**32 tokens or more with parts):
    # 4 / parts bytes a token across the threads of an epoch. The serial sweep (group -1, a
    # constant there) walks the tokens themselves and gathers nothing.
    blocked = group >= 0
    n_gathered = max(stop_doc - first_doc, 0) if blocked else 0
    mine_start = np.zeros(n_gathered + 1, dtype=np.int64)
    span_lo = max(doc_start[first_doc], token_lo) if n_gathered else 0
    n_mine = 0
    for d in range(first_doc, first_doc + n_gathered):
        for i in range(max(doc_start[d], token_lo), min(doc_start[d + 1], token_hi)):
            n_mine += token_group[i] == group
        mine_start[d - first_doc + 1] = n_mine
    # One slot more: the fill below writes every token's offset and moves on past the
    # block's own, so its last write may land one past them.
    mine = np.empty(n_mine + 1 if n_gathered else 0, dtype=np.uint32)
    filled = 0
    for d in range(first_doc, first_doc + n_gathered):
        for i in range(max(doc_start[d], token_lo), min(doc_start[d + 1], token_hi)):
            mine[filled] = i - span_lo
            filled += token_group[i] == group
    for _ in range(sweeps):
        # 1 / (n_k + B), 1 / (n_k - 1 + B) and 1 / (n_k + 1 + B), kept in step with
        # topic_total: a token that stays in its topic (most of them, once the chain has
        # settled) divides nothing, and one that moves finds the reciprocals its move
        # needs already computed (module docstring, "Reciprocals ahead").
        for k in range(n_topics):
            inv_denom[k] = 1.0 / (topic_total[k] + beta_sum)
            inv_minus[k] = _inv_minus(topic_total[k], beta_sum)
            inv_plus[k] = 1.0 / (topic_total[k] + 1 + beta_sum)
        for d in range(first_doc, stop_doc):
            if blocked:
                lo, hi = mine_start[d - first_doc], mine_start[d - first_doc + 1]
            else:
                lo = max(doc_start[d], token_lo)
                hi = min(doc_start[d + 1], token_hi)
            if lo >= hi:
                continue
            # Running sums recomputed at every document: rounding drift of the O(1)
            # updates is bounded by one document's tokens.
            smooth_sum = 0.0
            doc_sum = 0.0
            n_doc_topics = 0
            row = _u(d)  # d as an index, once per document (see `_u`)
            for k in range(n_topics):
                count = np.int64(doc_topic[row, k])
                smooth_sum += alpha[k] * inv_denom[k]
                coef[k] = (count + alpha[k]) * inv_denom[k]
                if count > 0:
                    doc_pos[k] = n_doc_topics
                    doc_list[n_doc_topics] = k
                    n_doc_topics += 1
                    doc_sum += count * inv_denom[k]

            for j in range(lo, hi):
                # The token: the j-th of the block's own (gathered above), or token j.
                i = span_lo + mine[_u(j)] if blocked else j
                at = _u(i)
                w = _u(token_word[at])
                if prefetch:
                    # Rows of the words ahead: the offsets of the word 2 x distance
                    # ahead, then (those offsets now cached) the rows of the word at
                    # distance. A hint only: the draws are the same without it. In a
                    # block, the block's own tokens ahead (another group's rows are
                    # another thread's, being written).
                    if blocked:
                        far_ok = j + 2 * PREFETCH_DISTANCE < n_mine
                        near_ok = j + PREFETCH_DISTANCE < n_mine
                        far = _u(span_lo + mine[_u(j + 2 * PREFETCH_DISTANCE)]) if far_ok else at
                        near = _u(span_lo + mine[_u(j + PREFETCH_DISTANCE)]) if near_ok else at
                    else:
                        far_ok = i + 2 * PREFETCH_DISTANCE < token_hi
                        near_ok = i + PREFETCH_DISTANCE < token_hi
                        far = at + _u(2 * PREFETCH_DISTANCE)
                        near = at + _u(PREFETCH_DISTANCE)
                    if far_ok:
                        w_far = _u(token_word[far])
                        prefetch_item(word_list_start, w_far)
                        prefetch_item(word_nnz, w_far)
                        prefetch_item(beta, w_far)
                    if near_ok:
                        w_near = _u(token_word[near])
                        prefetch_cell(word_topic, w_near, 0)
                        for column in range(row_line_items, inner_stop, row_line_items):
                            prefetch_cell(word_topic, w_near, column)
                        prefetch_cell(word_topic, w_near, n_topics - 1)
                        prefetch_item(word_list, _u(word_list_start[w_near]))
                k_old = np.int64(topic[at])
                ko = _u(k_old)
                # The token leaves k_old only virtually: the caches and sums below are what
                # they would be with the token removed, but the counts are written only if
                # it moves. Most tokens return to their topic once the chain has settled,
                # and then nothing but two cache entries has to be put back.
                old_inv = inv_denom[ko]
                minus_inv = inv_minus[ko]
                doc_minus = np.int64(doc_topic[row, ko]) - 1
                smooth_minus = smooth_sum + alpha[ko] * (minus_inv - old_inv)
                if doc_minus == 0 and n_doc_topics == 1:
                    # Exactly zero, not a rounding residue that could pick an empty bucket.
                    doc_minus_sum = 0.0
                else:
                    doc_minus_sum = doc_sum + doc_minus * minus_inv - (doc_minus + 1) * old_inv
                old_coef = coef[ko]
                minus_coef = (doc_minus + alpha[ko]) * minus_inv
                inv_denom[ko] = minus_inv
                smooth_draw = smooth_sum if fault == _STALE_SMOOTHING_SUM else smooth_minus
                doc_draw = doc_sum if fault == _STALE_DOC_SUM else doc_minus_sum

                # --- word bucket q: the only per-token loop, over the word's topics ---
                start = word_list_start[w]
                n_word_topics = word_nnz[w]
                first = _u(start)
                # A word holding most topics is walked over its whole row (module
                # docstring, "Row walk"): the same weights, without the list.
                whole_row = walks_row(n_word_topics, n_topics, row_walk_eighths)
                q = 0.0
                if whole_row:
                    # The products first (a loop the compiler turns into vector
                    # instructions), the token taken out of its own topic, then q summed
                    # per block of Q_BLOCK topics and across blocks (module docstring,
                    # "Row walk"): the blocks' sums are independent, so they overlap in
                    # the processor instead of waiting on one running sum.
                    # coef[k_old] is not written for a row walk unless the token moves
                    # (module docstring, "Unsigned indices"): the vector loads below
                    # would wait on that store. Its product is replaced next.
                    for kk in range(n_topics):
                        q_weight[kk] = coef[kk] * np.int64(word_topic[w, kk])
                    q_weight[ko] = minus_coef * (np.int64(word_topic[w, ko]) - 1)
                    n_slots = n_blocks
                    for b in range(n_blocks):
                        # The block's Q_BLOCK = 8 weights added as a tree of depth 3,
                        # not a chain of 7 (module docstring, "Row walk"); its partial
                        # sums from the same tree, each never below the one before (a
                        # sum of weights >= 0 never decreases as a term grows), the one
                        # after a zero weight equal to it, the last the total itself.
                        base = _u(b) * _u(Q_BLOCK)
                        w0 = q_weight[base]
                        w1 = q_weight[base + _u(1)]
                        w2 = q_weight[base + _u(2)]
                        w4 = q_weight[base + _u(4)]
                        w6 = q_weight[base + _u(6)]
                        a01 = w0 + w1
                        a45 = w4 + q_weight[base + _u(5)]
                        p3 = a01 + (w2 + q_weight[base + _u(3)])
                        part = p3 + (a45 + (w6 + q_weight[base + _u(7)]))
                        if keep_partials:
                            q_partial[base] = w0
                            q_partial[base + _u(1)] = a01
                            q_partial[base + _u(2)] = a01 + w2
                            q_partial[base + _u(3)] = p3
                            q_partial[base + _u(4)] = p3 + w4
                            q_partial[base + _u(5)] = p3 + a45
                            q_partial[base + _u(6)] = p3 + (a45 + w6)
                            q_partial[base + _u(7)] = part
                        q += part
                        q_cumulative[b] = q
                else:
                    coef[ko] = minus_coef
                    n_slots = n_word_topics
                    for slot in range(n_word_topics):
                        kk = _u(word_list[first + _u(slot)])
                        q += coef[kk] * (np.int64(word_topic[w, kk]) - (kk == ko))
                        q_cumulative[slot] = q

                beta_w = beta[w]
                u = uniform(rng) * (q + beta_w * (doc_draw + smooth_draw))
                if u < q and whole_row:
                    # The first block whose sum takes the cumulative above u, then the
                    # first of its topics whose sum from the sum before the block is
                    # above u: the count of those at or below u, with no branch (module
                    # docstring, "Row walk").
                    b = _count_at_or_below(q_cumulative, n_blocks, u)
                    base = _u(b) * _u(Q_BLOCK)
                    before = q_cumulative[_u(b) - _u(1)] if b > 0 else 0.0
                    below = 0
                    if keep_partials:
                        # The block's partial sums were formed before u was drawn: no
                        # chain of additions waits on it. The last is the block's
                        # cumulative itself (the same two numbers added), above u, so
                        # the count stays below Q_BLOCK; a zero weight repeats the sum
                        # before it, so the first sum above u has weight.
                        for j in range(Q_BLOCK):
                            below += before + q_partial[base + _u(j)] <= u
                        new_k = b * Q_BLOCK + below
                    else:
                        # The partial sums formed now, from the sum before the block.
                        # Rounding may leave u just past the last: then the block's last
                        # topic with weight (there is one: the block's sum is positive).
                        last = -1
                        for j in range(Q_BLOCK):
                            weight = q_weight[base + _u(j)]
                            before += weight
                            below += before <= u
                            last = b * Q_BLOCK + j if weight > 0.0 else last
                        new_k = b * Q_BLOCK + below if below < Q_BLOCK else last
                elif u < q:
                    slot = _count_at_or_below(q_cumulative, n_slots, u)
                    new_k = np.int64(word_list[first + _u(slot)])
                else:
                    u = (u - q) / beta_w
                    if u < doc_draw:
                        new_k = -1
                        fallback = doc_list[0]
                        for j in range(n_doc_topics):
                            kk = _u(doc_list[j])
                            weight = (np.int64(doc_topic[row, kk]) - (kk == ko)) * inv_denom[kk]
                            if weight > 0.0:
                                # Rounding can leave u just past the last weight: fall
                                # back to the last topic that has weight.
                                fallback = np.int64(kk)
                                u -= weight
                                if u < 0.0:
                                    new_k = np.int64(kk)
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
                    if not whole_row:
                        coef[ko] = old_coef
                    inv_denom[ko] = old_inv
                    continue

                # --- the token moves: commit its removal from k_old ... ---
                coef[ko] = minus_coef
                doc_topic[row, ko] = doc_minus
                word_topic[w, ko] -= 1
                topic_total[ko] -= 1
                # inv_denom[k_old] already holds 1 / (n_k_old - 1 + B); the division
                # here is for a later token of k_old, not the next draw's chain.
                inv_plus[ko] = old_inv
                smooth_sum = smooth_minus
                doc_sum = doc_minus_sum
                if doc_minus == 0:
                    last = doc_list[n_doc_topics - 1]
                    doc_list[_u(doc_pos[ko])] = last
                    doc_pos[_u(last)] = doc_pos[ko]
                    n_doc_topics -= 1
                if word_topic[w, ko] == 0:
                    # k_old leaves the word's list: close the gap (keeps the list sorted).
                    slot = start + _lower_bound_topic(word_list, start, n_word_topics, k_old)
                    for j in range(slot, start + n_word_topics - 1):
                        word_list[j] = word_list[j + 1]
                    n_word_topics -= 1
                    word_nnz[w] = n_word_topics

                # --- ... and its addition to new_k ---
                k = new_k
                kn = _u(k)
                old_inv = inv_denom[kn]
                if word_topic[w, kn] == 0:
                    # k joins the word's list at its sorted place (there is room: the
                    # capacity is min(K, frequency) and k was not in the list).
                    slot = start + _lower_bound_topic(word_list, start, n_word_topics, k)
                    for j in range(start + n_word_topics, slot, -1):
                        word_list[j] = word_list[j - 1]
                    word_list[slot] = k
                    word_nnz[w] = n_word_topics + 1
                doc_count = np.int64(doc_topic[row, kn]) + 1
                doc_topic[row, kn] = doc_count
                word_topic[w, kn] += 1
                topic_total[kn] += 1
                # The old 1 / (n_k + B) is the new 1 / (n_k - 1 + B), the old
                # 1 / (n_k + 1 + B) the new 1 / (n_k + B): read, not divided, so the next
                # token's draw does not wait on a division; the one below is for a later
                # move into k.
                inv_minus[kn] = old_inv
                new_inv = inv_plus[kn]
                inv_denom[kn] = new_inv
                # The reciprocals a later token of k_old and a later move into k will
                # need, 1 / (n_k_old - 1 + B) and 1 / (n_k + 1 + B): divided, or with
                # windows read from the two topics' windows, each refilled around its
                # total when the total has left it (module docstring, "Reciprocals from
                # a window"). Written out here, not in a helper: numba passes arrays to
                # an inlined helper by reference counts, which stayed in the token loop
                # (0.6x).
                if windows:
                    for side in range(2):
                        k_r = ko if side == 0 else kn
                        n_r = topic_total[k_r] - 1 if side == 0 else topic_total[k_r] + 1
                        reciprocal = 0.0  # an empty k_old has no token to remove
                        if n_r >= 0:
                            row_r = k_r * _u(RECIPROCAL_WINDOW)
                            # A total below the window's start gives a negative
                            # offset, which as unsigned is past the window: one compare
                            # finds both sides out of it.
                            j_r = _u(n_r - recip_lo[k_r])
                            if j_r >= _u(RECIPROCAL_WINDOW):
                                lo_r = max(n_r - RECIPROCAL_WINDOW // 2, 0)
                                recip_lo[k_r] = lo_r
                                for j in range(RECIPROCAL_WINDOW):
                                    recip_table[row_r + _u(j)] = 1.0 / (lo_r + j + beta_sum)
                                j_r = _u(n_r - lo_r)
                            reciprocal = recip_table[row_r + j_r]
                        if side == 0:
                            inv_minus[k_r] = reciprocal
                        else:
                            inv_plus[k_r] = reciprocal
                else:
                    inv_minus[ko] = _inv_minus(topic_total[ko], beta_sum)
                    inv_plus[kn] = 1.0 / (topic_total[kn] + 1 + beta_sum)
                smooth_sum += alpha[kn] * (new_inv - old_inv)
                doc_sum += doc_count * new_inv - (doc_count - 1) * old_inv
                coef[kn] = (doc_count + alpha[kn]) * new_inv
                if doc_count == 1:
                    doc_pos[kn] = n_doc_topics
                    doc_list[_u(n_doc_topics)] = k
                    n_doc_topics += 1
                topic[at] = k


@numba.njit(cache=True, inline="always")
def _dense_count(d, w, k, step, state, alpha, beta_sum, inv_denom, coef):
    # Add `step` (+1 or -1) tokens of word w in document d to topic k, and bring the
    # topic's cached 1 / (n_k + B) and the document's coefficient up to date.
    _, doc_topic, word_topic, topic_total = state
    doc_topic[d, k] += step
    word_topic[w, k] += step
    topic_total[k] += step
    inv_denom[k] = 1.0 / (topic_total[k] + beta_sum)
    coef[k] = (np.int64(doc_topic[d, k]) + alpha[k]) * inv_denom[k]


@numba.njit(cache=True, inline="always")
def _dense_range(corpus, state, hyper, token_lo, token_hi, sweeps, rng, fault):
    """Dense sweeps over tokens [token_lo, token_hi), in place: O(K) per token.

    The weight of topic k is ``coef_k (n_kw + beta_w)`` with the per-document cache
    ``coef_k = (n_dk + alpha_k) / (n_k + B)``; the topic is found by a branch-free
    binary search in the cumulative weights.
    """
    token_word, doc_start = corpus
    topic, doc_topic, word_topic, topic_total = state
    alpha, beta, beta_sum = hyper
    n_topics = topic_total.shape[0]
    inv_denom = np.empty(n_topics)
    coef = np.empty(n_topics)
    cumulative = np.empty(n_topics)
    first_doc, stop_doc = document_span(doc_start, token_lo, token_hi)
    for _ in range(sweeps):
        for k in range(n_topics):
            inv_denom[k] = 1.0 / (topic_total[k] + beta_sum)
        for d in range(first_doc, stop_doc):
            lo = max(doc_start[d], token_lo)
            hi = min(doc_start[d + 1], token_hi)
            if lo >= hi:
                continue
            for k in range(n_topics):
                coef[k] = (np.int64(doc_topic[d, k]) + alpha[k]) * inv_denom[k]
            for i in range(lo, hi):
                w = token_word[i]
                old = np.int64(topic[i])
                if fault != _TOKEN_NOT_REMOVED:
                    _dense_count(d, w, old, -1, state, alpha, beta_sum, inv_denom, coef)
                beta_w = beta[w]
                total = 0.0
                for k in range(n_topics):
                    total += coef[k] * (word_topic[w, k] + beta_w)
                    cumulative[k] = total
                new = _first_above(cumulative, n_topics, uniform(rng) * total)
                if fault == _TOKEN_NOT_REMOVED:
                    if new != old:
                        _dense_count(d, w, old, -1, state, alpha, beta_sum, inv_denom, coef)
                        _dense_count(d, w, new, 1, state, alpha, beta_sum, inv_denom, coef)
                elif fault == _ADDED_BACK_UNDER_OLD_TOPIC:
                    _dense_count(d, w, old, 1, state, alpha, beta_sum, inv_denom, coef)
                else:
                    _dense_count(d, w, new, 1, state, alpha, beta_sum, inv_denom, coef)
                topic[i] = new


@numba.njit(cache=True)
def _held_out_range(corpus, state, alpha, phi, token_lo, token_hi, sweeps, rng):
    """Sweeps with phi fixed over tokens [token_lo, token_hi), in place.

    ``p(z_i = k | z_-i, w, phi) ∝ (n_dk^-i + alpha_k) phi_kw``: the collapsed
    conditional of Griffiths & Steyvers (2004) with phi known instead of integrated out.
    The word-topic counts are kept in step although the draw does not read them, so the
    state stays what its topics imply.
    """
    token_word, doc_start = corpus
    topic, doc_topic, word_topic, topic_total = state
    n_topics = alpha.shape[0]
    cumulative = np.empty(n_topics)
    first_doc, stop_doc = document_span(doc_start, token_lo, token_hi)
    for _ in range(sweeps):
        for d in range(first_doc, stop_doc):
            lo = max(doc_start[d], token_lo)
            hi = min(doc_start[d + 1], token_hi)
            for i in range(lo, hi):
                w = token_word[i]
                k = np.int64(topic[i])
                doc_topic[d, k] -= 1
                word_topic[w, k] -= 1
                topic_total[k] -= 1
                total = 0.0
                for kk in range(n_topics):
                    total += (doc_topic[d, kk] + alpha[kk]) * phi[kk, w]
                    cumulative[kk] = total
                k = _first_above(cumulative, n_topics, uniform(rng) * total)
                doc_topic[d, k] += 1
                word_topic[w, k] += 1
                topic_total[k] += 1
                topic[i] = k


def _sparse_kernel(fault: int, prefetch: bool, row_walk_eighths: int = ROW_WALK_EIGHTHS):
    """The sparse kernel with ``fault``, ``prefetch`` and its row walk's threshold fixed.

    As for :func:`_dense_kernel`. ``prefetch=False`` leaves out the hints (module
    docstring, "Prefetching"); ``row_walk_eighths`` is the share of the K topics, in
    eighths, from which a word is walked over its whole row (:data:`ROW_WALK_EIGHTHS`;
    :data:`ROW_WALK_NEVER` walks every word's list, however many topics it holds; module
    docstring, "Row walk"): the same draws at any threshold but where a uniform falls
    within rounding of a boundary, for the benchmarks that time them and the tests that
    compare them.
    """

    @numba.njit(cache=True, error_model="numpy")
    def sparse(corpus, state, hyper, lists, token_lo, token_hi, sweeps, rng):
        # The serial sweep: the block kernel's body over every document and every word
        # (group -1, no groups read) with the state's own totals. The constants fold
        # the block's tests away (the body is inlined), so it runs what it ran before.
        no_groups = np.zeros(0, dtype=np.uint8)
        _sparse_range(
            corpus, state, state[3], hyper, lists, no_groups, -1, 0, corpus[1].shape[0] - 1,
            token_lo, token_hi, sweeps, rng, fault, prefetch, row_walk_eighths,
        )  # fmt: skip

    return sparse


def _sparse_block_kernel(fault: int):
    """The sparse kernel of one block of the threaded sweep, ``fault`` fixed at compile time.

    The same body as :func:`_sparse_kernel`'s (prefetching, the default row walk), with
    the block's arguments read at run time: the thread's ``totals``, the words' groups
    ``token_group``, the ``group`` of words and the documents ``doc_first <= d <
    doc_stop`` (module docstring, "Threads"). It releases the GIL, so that the blocks of
    an epoch run at once.
    """

    @numba.njit(cache=True, error_model="numpy", nogil=True)
    def sparse_block(
        corpus, state, totals, hyper, lists, token_group, group, doc_first, doc_stop,
        token_lo, token_hi, sweeps, rng,
    ):  # fmt: skip
        _sparse_range(
            corpus, state, totals, hyper, lists, token_group, group, doc_first, doc_stop,
            token_lo, token_hi, sweeps, rng, fault, True, ROW_WALK_EIGHTHS,
        )  # fmt: skip

    return sparse_block


def _dense_kernel(fault: int):
    """The dense kernel compiled with ``fault`` fixed at compile time.

    numba reads a closure's free variables as constants and inlines the kernel body
    (``inline="always"``), so every fault gets its own machine code in which the other
    faults' branches fold away: the production kernel (``Fault.NONE``) carries no trace
    of the wrong ones. (``numba.literally`` specialises too, but re-enters the compiler
    on every call from Python: 8 ms a call.) Compiled on first use, cached on disk.
    """

    @numba.njit(cache=True)
    def dense(corpus, state, hyper, token_lo, token_hi, sweeps, rng):
        _dense_range(corpus, state, hyper, token_lo, token_hi, sweeps, rng, fault)

    return dense


# Every sweep prefetches; the kernel without (``_sparse_kernel(fault, prefetch=False)``)
# exists for the benchmark and the test that compare the two.
_SPARSE_KERNELS = {f: _sparse_kernel(int(f), True) for f in (Fault.NONE, *_SPARSE_FAULTS)}
_SPARSE_BLOCK_KERNELS = {f: _sparse_block_kernel(int(f)) for f in (Fault.NONE, *_SPARSE_FAULTS)}
_DENSE_KERNELS = {f: _dense_kernel(int(f)) for f in (Fault.NONE, *DENSE_FAULTS)}


def check_sweep_arrays(corpus: Corpus, state: State, alpha: np.ndarray, beta: np.ndarray) -> None:
    """Raise ``ValueError`` unless the arrays have the shapes and dtypes a sweep needs."""
    # O(1) checks only: a sweep must not pay O(N) validation (word ids are checked once,
    # in corpus.read_corpus / corpus.check_corpus).
    token_word, doc_start = corpus
    topic, doc_topic, word_topic, topic_total = state
    n_docs = doc_start.shape[0] - 1
    n_words, n_topics = word_topic.shape
    if topic.shape != token_word.shape:
        raise ValueError("state.topic: must have one entry per token")
    if doc_topic.shape != (n_docs, n_topics):
        raise ValueError(f"state.doc_topic: must be (D, K) = ({n_docs}, {n_topics})")
    if topic_total.shape != (n_topics,) or topic_total.dtype != np.int64:
        raise ValueError("state.topic_total: must be int64 (K,)")
    if alpha.shape != (n_topics,) or alpha.dtype != np.float64:
        raise ValueError(f"hyper.alpha: must be float64 ({n_topics},), the K topics")
    if beta.shape != (n_words,) or beta.dtype != np.float64:
        raise ValueError(f"hyper.beta: must be float64 ({n_words},), the V words")
    for name, array in (("topic", topic), ("doc_topic", doc_topic), ("word_topic", word_topic)):
        if array.dtype.kind != "u":
            raise ValueError(
                f"state.{name}: must have an unsigned integer dtype, got {array.dtype}"
            )
        if not array.flags.c_contiguous or not array.flags.writeable:
            raise ValueError(f"state.{name}: must be C-contiguous and writeable")
    if not topic_total.flags.writeable:
        raise ValueError("state.topic_total: must be writeable")


def _method(method: str, n_topics: int, fault: Fault, held_out: bool) -> str:
    """The kernel to run: "held-out", "dense" or "sparse" (raise if the asks conflict)."""
    if method not in ("auto", "dense", "sparse"):
        raise ValueError(f"method: must be 'auto', 'dense' or 'sparse', got {method!r}")
    if held_out:
        if method != "auto" or fault != Fault.NONE:
            raise ValueError("phi: the held-out sweep has one kernel and no fault")
        return "held-out"
    wanted = {**dict.fromkeys(DENSE_FAULTS, "dense"), **dict.fromkeys(_SPARSE_FAULTS, "sparse")}
    if fault in wanted:
        if method not in ("auto", wanted[fault]):
            raise ValueError(f"fault: {fault.name} is a fault of the {wanted[fault]} kernel")
        return wanted[fault]
    if method == "auto":
        return "sparse" if n_topics >= SPARSE_FROM_TOPICS else "dense"
    return method


def sweep(
    corpus: Corpus,
    state: State,
    hyper: tuple[np.ndarray, np.ndarray, float],
    rng: np.random.Generator,
    *,
    sweeps: int = 1,
    tokens: tuple[int, int] | None = None,
    word_lists: WordLists | None = None,
    phi: np.ndarray | None = None,
    method: str = "auto",
    fault: Fault = Fault.NONE,
    parts: int = 1,
    partition: Partition | None = None,
) -> None:
    """Collapsed Gibbs sweeps over the tokens, updating ``state`` in place.

    Parameters
    ----------
    corpus : Corpus
        ``(token_word, doc_start)`` (``data.corpus``).
    state : State
        ``(topic, doc_topic, word_topic, topic_total)`` with counts consistent with
        ``topic`` (:func:`zoo.models.lda.counts.build_state`); updated in place.
    hyper : (alpha, beta, beta_sum)
        float64 ``alpha`` (K,) and ``beta`` (V,) and ``beta_sum = beta.sum()``, as
        ``Prior.resolve(data)`` returns them (computed once per chain, not per sweep).
    rng : numpy.random.Generator
        One fresh uniform per token (numba advances the generator's own state); with
        several ``parts``, each thread draws from its own ``rng.spawn(parts)`` child.
    sweeps : int
        How many sweeps to run (default 1).
    tokens : (lo, hi), optional
        Resample only tokens ``lo <= i < hi``, in order (may span documents); default
        all. Resampling one token repeatedly gives independent draws from its full
        conditional (the token is removed before each draw, so the conditional does not
        depend on its current topic): this is how the tests check exactness.
    word_lists : WordLists, optional
        The sparse kernel's per-word topic lists (:func:`build_word_lists`), kept
        consistent in place; built here from ``state.word_topic`` when not given (the
        same draws: they are a function of ``word_topic``). Only for the sparse kernel.
    phi : ndarray of float64, shape (K, V), optional
        Held-out inference: the topic-word distributions, fixed; each token is drawn
        from ``(n_dk + alpha_k) phi_kw`` (``beta`` is not read).
    method : {"auto", "dense", "sparse"}
        The kernel: "auto" (default) is the sparse one from :data:`SPARSE_FROM_TOPICS`
        topics up, the dense one below; the two sample the same conditional. With
        ``parts`` more than 1, "auto" is the sparse one at every K (the dense one has
        no blocks: "dense" is refused).
    fault : Fault
        :attr:`Fault.NONE` for the correct sampler; anything else samples from a wrong
        conditional, runs the kernel that fault belongs to, and exists only for
        negative controls. The sparse kernel's faults and the wrong hyperparameters
        run in parts too; the dense kernel's do not.
    parts : int
        1 (default): the exact serial sweep. More: the threaded sweep over
        ``parts x parts`` blocks of documents and words (:mod:`zoo.models.lda.blocks`;
        ``parts`` threads), **not exact**: a thread reads its own copy of the topic
        totals ``n_k``, brought up to date at the end of each of the sweep's ``parts``
        epochs, so within an epoch it does not see the other threads' moves in
        ``n_k + B`` (AD-LDA's approximation, Newman et al. 2009, confined to ``n_k`` by
        the blocks of Yan, Xu & Qi 2009; docs/scaling.md measures how far it is from
        the posterior). The draws do not depend on the threads' timing (same seed,
        same draws). Not with ``phi`` (held-out inference).
    partition : Partition, optional
        The blocks (:func:`~zoo.models.lda.blocks.build_partition`); built here when
        not given and ``parts`` is more than 1. A caller running many sweeps builds it
        once.

    Notes
    -----
    Griffiths & Steyvers (2004), equation 5 (dense: O(K) per token); Yao, Mimno &
    McCallum (KDD 2009), section 3.4 (sparse: O(topics of the word) per token in the
    usual regime); exactness and bucket formulas in the module docstring; the threaded
    sweep in its section "Threads".
    """
    if isinstance(fault, bool) or not isinstance(fault, int | np.integer):
        raise ValueError(f"fault: expected a Fault, got {fault!r}")
    try:
        fault = Fault(fault)
    except ValueError as err:
        raise ValueError(f"fault: unknown fault {fault!r}; known: {list(Fault)}") from err
    sweeps = as_int("sweeps", sweeps, minimum=0)
    corpus, state = Corpus(*corpus), State(*state)
    alpha, beta, beta_sum = hyper
    check_sweep_arrays(corpus, state, alpha, beta)
    n_tokens = corpus.token_word.shape[0]
    lo, hi = (0, n_tokens) if tokens is None else (int(tokens[0]), int(tokens[1]))
    if not 0 <= lo <= hi <= n_tokens:
        raise ValueError(f"tokens: range [{lo}, {hi}) outside [0, {n_tokens}]")
    parts = as_int("parts", parts, minimum=1)
    if parts > 1:
        if n_tokens >= 2**32:
            # A block's gathered tokens are 4-byte offsets (`_sparse_range`).
            raise ValueError(
                f"parts: the threaded sweep takes fewer than 2**32 tokens, got {n_tokens}"
            )
        if phi is not None:
            raise ValueError("parts: the held-out sweep (phi) runs on one thread")
        if method == "dense" or fault in DENSE_FAULTS:
            raise ValueError(
                "parts: the dense kernel (and its faults) runs on one thread; "
                "the threaded sweep is the sparse one"
            )
        method = "sparse"
        n_words = state.word_topic.shape[0]
        if partition is None:
            partition = build_partition(corpus, n_words, parts)
        partition = check_partition(partition, parts, n_words, n_tokens)
    elif partition is not None:
        check_partition(partition, parts, state.word_topic.shape[0], n_tokens)
    kernel = _method(method, state.topic_total.shape[0], fault, phi is not None)
    if kernel == "held-out":
        phi = np.asarray(phi)
        if phi.shape != state.word_topic.shape[::-1] or phi.dtype != np.float64:
            raise ValueError(f"phi: must be float64 (K, V) = {state.word_topic.shape[::-1]}")
        with uniform_source(rng) as source:
            _held_out_range(corpus, state, alpha, phi, lo, hi, int(sweeps), source)
        return
    if fault == Fault.BETA_NOT_TIMES_V:
        # A wrong hyperparameter, not a wrong kernel: the chosen kernel runs as is.
        beta_sum = beta.mean()
        fault = Fault.NONE
    elif fault == Fault.ALPHA_AS_MEAN:
        alpha = np.full_like(alpha, alpha.mean())  # the same: a wrong hyperparameter
        fault = Fault.NONE
    elif fault == Fault.THETA_POINT_ESTIMATE:
        fault = Fault.NONE  # a fault of the kernel's draw, not of the sweep
    # A plain tuple, whatever the caller passed: one numba type, one compiled kernel.
    hyper = (alpha, beta, float(beta_sum))
    if kernel == "dense":
        if word_lists is not None:
            raise ValueError("word_lists: the dense kernel does not keep them; pass None")
        with uniform_source(rng) as source:
            _DENSE_KERNELS[fault](corpus, state, hyper, lo, hi, int(sweeps), source)
        return
    if word_lists is None:
        word_lists = build_word_lists(state.word_topic)
    elif word_lists.word_nnz.shape[0] != state.word_topic.shape[0]:
        raise ValueError("word_lists: built for another vocabulary")
    lists = WordLists(*word_lists)
    if parts == 1:
        with uniform_source(rng) as source:
            _SPARSE_KERNELS[fault](corpus, state, hyper, lists, lo, hi, int(sweeps), source)
        return
    block_kernel = _SPARSE_BLOCK_KERNELS[fault]
    groups = partition.token_group

    def block(totals, group, first, stop, source):
        block_kernel(corpus, state, totals, hyper, lists, groups, group, first, stop, lo, hi,
                     1, source)  # fmt: skip

    sweep_in_blocks(partition, state.topic_total, rng, int(sweeps), block)
