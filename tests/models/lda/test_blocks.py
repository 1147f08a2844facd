"""The threaded LDA sweeps' blocks (zoo.models.lda.blocks), run by the Gibbs sweep.

``sweep(..., parts=P)`` runs the sparse Gibbs kernel on P threads over P x P blocks of
documents and words, each thread with its own copy of the topic totals, merged at the
end of each epoch: not exact, by design. So the statistical test here is not against
the posterior but against the chain the scheme defines: on a four-token corpus the
transition matrix of the threaded sweep (each block's tokens drawn from their full
conditionals with the other blocks' tokens as they were at the epoch's start) is
enumerated, and the sweep's long-run frequencies must match its stationary
distribution, not the posterior's (which they miss by a total variation of 0.035).
(The threaded Metropolis-Hastings sweep's own tests are in test_metropolis.py.)
"""

import itertools

import numpy as np
import pytest

import zoo
from tests.models.lda.test_sparse import (
    LEVEL,
    Chain,
    exact_state_probabilities,
    g_test,
    make_corpus,
    tiny_corpus,
)
from zoo.models.lda import (
    counts,
    counts_from_topics,
    make_kernel,
    sweeps,
    threaded_gibbs_kernel,
    threaded_kernel,
    threaded_metropolis_kernel,
)
from zoo.models.lda.blocks import build_partition
from zoo.models.lda.corpus import Corpus
from zoo.models.lda.sweeps import Fault

SPEC = zoo.get("lda")


def _threaded_chain(parts, n_topics=20, seed=3, sweeps_run=6):
    """A random Zipf-like corpus after ``sweeps_run`` threaded sweeps (and its chain)."""
    rng = np.random.default_rng(11)
    token_word, doc_start = make_corpus(rng, 120, 70, 40, empty=[0, 50, 119])
    chain = Chain(token_word, doc_start, n_topics, 70, 0.1, 0.05, seed=seed)
    partition = build_partition(chain.corpus, 70, parts)
    sweep_rng = np.random.default_rng(seed + 100)
    for _ in range(sweeps_run):
        sweeps.sweep(
            chain.corpus,
            chain.state,
            chain.hyper,
            sweep_rng,
            word_lists=chain.word_lists,
            parts=parts,
            partition=partition,
        )
    return chain


@pytest.mark.parametrize("parts", [2, 3])
def test_threaded_gibbs_sweep_keeps_counts_and_word_lists_consistent(parts):
    # Every move is counted once, by the thread that made it: after the epochs' merges
    # the totals (and the word lists each thread kept for its own words) are those the
    # assignments imply.
    chain = _threaded_chain(parts)
    chain.check()
    start = Chain(chain.token_word, chain.doc_start, 20, 70, 0.1, 0.05, seed=3)
    assert (chain.topic != start.topic).mean() > 0.5  # the sweeps did move tokens


@pytest.mark.parametrize("parts", [2, 3])
def test_threaded_gibbs_sweep_draws_do_not_depend_on_thread_timing(parts):
    # The blocks run on threads, in whatever order they are scheduled; each has its own
    # generator and its own totals, so the same seed gives the same draws bit for bit.
    first = _threaded_chain(parts)
    for _ in range(3):
        again = _threaded_chain(parts)
        np.testing.assert_array_equal(again.topic, first.topic)
        np.testing.assert_array_equal(again.word_topic, first.word_topic)


def test_a_block_of_every_word_and_document_draws_what_the_serial_sweep_draws():
    # The serial sweep is the block kernel's body with group -1, every document and the
    # state's own totals, as constants; handed the same at run time, the block kernel
    # draws the same, bit for bit.
    rng = np.random.default_rng(4)
    token_word, doc_start = make_corpus(rng, 60, 50, 30, empty=[5])
    serial = Chain(token_word, doc_start, 30, 50, 0.1, 0.01, seed=6)
    block = Chain(token_word, doc_start, 30, 50, 0.1, 0.01, seed=6)
    n, n_docs = token_word.shape[0], doc_start.shape[0] - 1
    no_groups = np.zeros(0, dtype=np.uint8)
    kernel = sweeps._SPARSE_BLOCK_KERNELS[Fault.NONE]
    rng_a, rng_b = np.random.default_rng(2), np.random.default_rng(2)
    for _ in range(4):
        serial.sweep(rng_a)
        lists = sweeps.WordLists(*block.word_lists)
        kernel(block.corpus, block.state, block.topic_total, block.hyper, lists, no_groups, -1,
               0, n_docs, 0, n, 1, rng_b)  # fmt: skip
    np.testing.assert_array_equal(block.topic, serial.topic)
    block.check()


def _conditional(z, i, token_word, doc_start, alpha, beta, n_topics):
    """Griffiths & Steyvers' full conditional of token i in the assignments z."""
    position = np.arange(z.shape[0])
    others = position != i
    d = np.searchsorted(doc_start, i, side="right") - 1
    in_doc = (position >= doc_start[d]) & (position < doc_start[d + 1]) & others
    doc = np.bincount(z[in_doc], minlength=n_topics)
    word = np.bincount(z[(token_word == token_word[i]) & others], minlength=n_topics)
    total = np.bincount(z[others], minlength=n_topics)
    weight = (doc + alpha) * (word + beta[token_word[i]]) / (total + beta.sum())
    return weight / weight.sum()


def _block_moves(start, block, token_word, doc_start, alpha, beta, n_topics):
    """The block's tokens' topics after one pass over them, with their probabilities.

    Each token of ``block`` in order is drawn from its full conditional given the
    block's moves so far and every other token as in ``start``.
    """
    path = {tuple(start[block]): 1.0}
    for j, i in enumerate(block):
        moved = {}
        for topics, p_topics in path.items():
            view = np.array(start)
            view[block] = topics
            weights = _conditional(view, i, token_word, doc_start, alpha, beta, n_topics)
            for k in range(n_topics):
                after = (*topics[:j], k, *topics[j + 1 :])
                moved[after] = moved.get(after, 0.0) + p_topics * weights[k]
        path = moved
    return path


def threaded_stationary(token_word, doc_start, alpha, beta, n_topics, parts):
    """The stationary distribution of the threaded sweep, from its enumerated transitions.

    In epoch e, thread p draws the tokens of its block (document group p, word group
    (p + e) mod parts) in order from their full conditionals, seeing its own moves and
    the other blocks' tokens as they were at the epoch's start (only through the topic
    totals: no other block shares a document or a word with it). The epoch's transition
    is the product of the blocks'; the sweep's, the epochs' in order.
    """
    partition = build_partition(Corpus(token_word, doc_start), beta.shape[0], parts)
    n = token_word.shape[0]
    doc_of = np.searchsorted(doc_start, np.arange(n), side="right") - 1
    states = list(itertools.product(range(n_topics), repeat=n))
    index = {state: j for j, state in enumerate(states)}
    transition = np.eye(len(states))
    for epoch in range(parts):
        blocks = []
        for p in range(parts):
            first, stop = partition.doc_group_start[p], partition.doc_group_start[p + 1]
            mine = (doc_of >= first) & (doc_of < stop)
            blocks.append(np.flatnonzero(mine & (partition.token_group == (p + epoch) % parts)))
        step = np.zeros_like(transition)
        for a, start in enumerate(states):
            start = np.array(start)
            outcomes = [
                _block_moves(start, block, token_word, doc_start, alpha, beta, n_topics).items()
                for block in blocks
            ]
            for combination in itertools.product(*outcomes):
                after, probability = start.copy(), 1.0
                for block, (topics, p_topics) in zip(blocks, combination, strict=True):
                    after[block] = topics
                    probability *= p_topics
                step[a, index[tuple(after)]] += probability
        transition = transition @ step
    values, vectors = np.linalg.eig(transition.T)
    stationary = np.real(vectors[:, np.argmin(np.abs(values - 1))])
    return stationary / stationary.sum()


def test_the_reference_of_one_part_is_the_posterior():
    # The enumeration above, run for one part, is the serial Gibbs sweep's chain.
    token_word, doc_start, alpha, beta = tiny_corpus()
    exact = exact_state_probabilities(token_word, doc_start, alpha, beta, 2)
    np.testing.assert_allclose(
        threaded_stationary(token_word, doc_start, alpha, beta, 2, 1), exact, atol=1e-12
    )


def test_threaded_gibbs_sweep_samples_the_blocked_chain_not_the_posterior():
    # Four tokens, two documents, three words, two topics (sparse kernel at K = 2: the
    # threaded sweep has no dense one); in each epoch the two threads draw one token
    # each, with totals that lag the other's move. 24,000 sweeps thinned by 4.
    token_word, doc_start, alpha, beta = tiny_corpus()
    exact = exact_state_probabilities(token_word, doc_start, alpha, beta, 2)
    blocked = threaded_stationary(token_word, doc_start, alpha, beta, 2, 2)
    distance = 0.5 * np.abs(blocked - exact).sum()
    assert 0.03 < distance < 0.04  # the scheme's own bias on this corpus: TV 0.035
    chain = Chain(token_word, doc_start, 2, 3, alpha, beta, seed=2)
    partition = build_partition(chain.corpus, 3, 2)
    rng = np.random.default_rng(2)
    place = 2 ** np.arange(token_word.shape[0] - 1, -1, -1)
    observed = np.zeros(blocked.shape[0], dtype=np.int64)
    for _ in range(6_000):
        sweeps.sweep(chain.corpus, chain.state, chain.hyper, rng, sweeps=4,
                     word_lists=chain.word_lists, parts=2, partition=partition)  # fmt: skip
        observed[int(chain.topic.astype(np.int64) @ place)] += 1
    chain.check()
    p_blocked, p_exact = g_test(observed, blocked), g_test(observed, exact)
    assert p_blocked > LEVEL, (p_blocked, observed / observed.sum(), blocked)
    # And the bias is there: the same frequencies are not the posterior's.
    assert p_exact < LEVEL, (p_exact, observed / observed.sum(), exact)


def test_bad_parts_and_partitions_are_named():
    data, prior = SPEC.default_problem()
    hyper = prior.resolve(data)
    state = counts_from_topics(data, np.zeros(data.n_tokens, dtype=int))
    rng = np.random.default_rng(0)
    corpus = data.corpus
    with pytest.raises(ValueError, match=r"^parts:"):
        sweeps.sweep(corpus, state, hyper, rng, parts=0)
    with pytest.raises(ValueError, match=r"^parts:"):
        sweeps.sweep(corpus, state, hyper, rng, parts=1.5)
    three = build_partition(corpus, data.n_words, 3)
    with pytest.raises(ValueError, match=r"^partition: built for 3 parts"):
        sweeps.sweep(corpus, state, hyper, rng, parts=2, partition=three)
    with pytest.raises(ValueError, match=r"^partition: built for 3 parts"):
        sweeps.sweep(corpus, state, hyper, rng, partition=three)
    other = Corpus(np.zeros(5, dtype=np.int32), np.array([0, 5], dtype=np.int64))
    with pytest.raises(ValueError, match=r"^partition: built for another vocabulary"):
        sweeps.sweep(corpus, state, hyper, rng, parts=2, partition=build_partition(other, 1, 2))
    with pytest.raises(ValueError, match=r"^partition: built for another corpus"):
        wrong = build_partition(other, data.n_words, 2)
        sweeps.sweep(corpus, state, hyper, rng, parts=2, partition=wrong)
    with pytest.raises(ValueError, match=r"^parts: the dense kernel"):
        sweeps.sweep(corpus, state, hyper, rng, parts=2, method="dense")
    with pytest.raises(ValueError, match=r"^parts: the dense kernel"):
        sweeps.sweep(corpus, state, hyper, rng, parts=2, fault=Fault.TOKEN_NOT_REMOVED)
    phi = np.full((data.n_topics, data.n_words), 1 / data.n_words)
    with pytest.raises(ValueError, match=r"^parts: the held-out sweep"):
        sweeps.sweep(corpus, state, hyper, rng, parts=2, phi=phi)
    with pytest.raises(ValueError, match=r"^parts: name the sampler"):
        make_kernel(parts=2)
    with pytest.raises(ValueError, match=r"^parts: the fault 'token-not-removed'"):
        make_kernel(sampler="gibbs", fault="token-not-removed", parts=2)
    # Nothing ran: the state is still the all-zero start.
    assert not state.topic.any()
    np.testing.assert_array_equal(counts_from_topics(data, state.topic).doc_topic, state.doc_topic)


def test_word_ids_outside_the_vocabulary_are_named_before_the_blocks_are_built():
    # build_partition indexes by word id in numba, which does not bounds-check: word 3 of a
    # three-word vocabulary would be written past the end of the frequencies.
    corpus = Corpus(np.array([0, 3, 1], dtype=np.int32), np.array([0, 3], dtype=np.int64))
    with pytest.raises(ValueError, match=r"^token_word: word ids must lie in \[0, 3\)"):
        build_partition(corpus, 3, 2)


def test_the_threaded_kernels_say_what_they_run():
    data, prior = SPEC.default_problem()
    assert threaded_gibbs_kernel.describe(data, prior) == "lda gibbs, 2 threads (not exact)"
    assert threaded_kernel is threaded_metropolis_kernel  # the earlier name, kept
    assert "metropolis" in threaded_metropolis_kernel.describe(data, prior)
    # A sparse fault runs in parts, as the Metropolis-Hastings sweep's do.
    faulty = make_kernel(fault="stale-doc-sum", parts=2)
    assert faulty.describe(data, prior).endswith("2 threads (not exact), fault 'stale-doc-sum'")
    tree = zoo.sample(SPEC, data, prior, kernel=threaded_gibbs_kernel, draws=30, tune=10,
                      chains=2, seed=5)  # fmt: skip
    assert tree["posterior"]["theta"].shape[:2] == (2, 30)
    assert tree["posterior"].attrs["sampler"] == "lda gibbs, 2 threads (not exact)"


def test_the_blocked_state_is_the_state_counts_imply_after_a_kernel_step():
    data, prior = SPEC.default_problem()
    rng = np.random.default_rng(1)
    state = threaded_gibbs_kernel.init(data, prior, rng)
    for _ in range(20):
        state = threaded_gibbs_kernel.step(state, data, prior, rng)
    counts.check_counts(data.corpus, state)
