"""The LDA sweep (zoo.models.lda.sweeps) and the count helpers (zoo.models.lda.counts).

Statistical tests use fixed seeds and a stated level: each exactness or stationarity
test passes when its G-test p-value is above ``LEVEL`` and each negative control (a
deliberately wrong kernel) must be rejected with p below it. The seeds were not tuned.
Over seeds 3-7 (checked while writing) the correct kernels gave p between 0.09 and 0.91
and the controls p < 1e-10 (one token, 40,000 draws) and p < 1e-48 (stationarity), so
the level sits far from both.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from zoo.models.lda import counts, sweeps
from zoo.models.lda.corpus import Corpus, check_corpus
from zoo.models.lda.sweeps import Fault

LEVEL = 1e-3
METHODS = ("sparse", "dense")


def make_corpus(rng, n_docs, n_words, mean_length, empty=()):
    lengths = rng.poisson(mean_length, n_docs)
    lengths[list(empty)] = 0
    doc_start = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(lengths, out=doc_start[1:])
    # Zipf-like word frequencies, as in text: a few words dominate.
    p = 1.0 / np.arange(1, n_words + 1)
    token_word = rng.choice(n_words, size=int(doc_start[-1]), p=p / p.sum()).astype(np.int32)
    return token_word, doc_start


class Chain:
    """A corpus with its state, the sparse kernel's word lists and priors."""

    def __init__(self, token_word, doc_start, n_topics, n_words, alpha, beta, seed):
        rng = np.random.default_rng(seed)
        self.corpus = Corpus(token_word, doc_start)
        self.token_word, self.doc_start = token_word, doc_start
        topic = rng.integers(0, n_topics, token_word.shape[0]).astype(counts.topic_dtype(n_topics))
        self.state = counts.build_state(self.corpus, topic, n_topics=n_topics, n_words=n_words)
        self.topic, self.doc_topic, self.word_topic, self.topic_total = self.state
        self.alpha = np.broadcast_to(np.asarray(alpha, float), (n_topics,)).copy()
        self.beta = np.broadcast_to(np.asarray(beta, float), (n_words,)).copy()
        self.hyper = (self.alpha, self.beta, self.beta.sum())
        self.word_lists = sweeps.build_word_lists(self.word_topic)
        self.lists_are_stale = False

    def resample(self, lo, hi, rng, method="sparse", fault=Fault.NONE):
        if method == "sparse" and self.lists_are_stale:
            self.word_lists = sweeps.build_word_lists(self.word_topic)
        sweeps.sweep(
            self.corpus,
            self.state,
            self.hyper,
            rng,
            tokens=(lo, hi),
            word_lists=self.word_lists if method == "sparse" else None,
            method=method,
            fault=fault,
        )
        # The dense kernel does not maintain the word lists; rebuild them when needed.
        self.lists_are_stale = method == "dense"

    def sweep(self, rng, method="sparse"):
        self.resample(0, self.token_word.shape[0], rng, method)

    def run_kernel(self, kernel, lo, hi, rng):
        """One pass of a compiled sparse ``kernel`` itself over tokens [lo, hi)."""
        lists = sweeps.WordLists(*self.word_lists)
        kernel(self.corpus, self.state, self.hyper, lists, lo, hi, 1, rng)

    def check(self):
        counts.check_counts(self.corpus, self.state)
        if not self.lists_are_stale:
            sweeps.check_word_lists(self.word_lists, self.word_topic)

    def exact_conditional(self, i):
        """Griffiths & Steyvers' full conditional of token i, straight from the formula."""
        d = np.searchsorted(self.doc_start, i, side="right") - 1
        w, k = self.token_word[i], self.topic[i]
        doc = self.doc_topic[d].astype(float)
        word = self.word_topic[w].astype(float)
        total = self.topic_total.astype(float)
        doc[k] -= 1
        word[k] -= 1
        total[k] -= 1
        weight = (doc + self.alpha) * (word + self.beta[w]) / (total + self.beta.sum())
        return weight / weight.sum()


def g_test(observed, expected_p):
    keep = expected_p > 0
    if observed[~keep].any():
        return 0.0
    result = stats.power_divergence(
        observed[keep], observed.sum() * expected_p[keep], lambda_="log-likelihood"
    )
    return float(result.pvalue)


# --------------------------------------------------------------------------- counts


def test_count_dtypes_are_the_narrowest_safe():
    assert counts.count_dtype(0) == np.uint8
    assert counts.count_dtype(255) == np.uint8
    assert counts.count_dtype(256) == np.uint16
    assert counts.count_dtype(65_535) == np.uint16
    assert counts.count_dtype(65_536) == np.uint32
    assert counts.count_dtype(2**32) == np.uint64
    assert counts.topic_dtype(1) == np.uint8
    assert counts.topic_dtype(256) == np.uint8
    assert counts.topic_dtype(257) == np.uint16
    assert counts.topic_dtype(65_536) == np.uint16
    assert counts.topic_dtype(65_537) == np.uint32
    with pytest.raises(ValueError):
        counts.topic_dtype(0)
    with pytest.raises(ValueError):
        counts.count_dtype(-1)


def test_build_state_dtypes_follow_longest_document_and_most_frequent_word():
    doc_start = np.array([0, 300, 301], dtype=np.int64)
    token_word = np.zeros(301, dtype=np.int32)
    token_word[::2] = 1  # word 1: 151 tokens, word 0: 150
    topic = np.zeros(301, dtype=np.uint8)
    state = counts.build_state(Corpus(token_word, doc_start), topic, n_topics=3, n_words=2)
    _, doc_topic, word_topic, topic_total = state
    assert state.topic is topic
    assert doc_topic.dtype == np.uint16  # longest document 300 > 255
    assert word_topic.dtype == np.uint8  # most frequent word 151 <= 255
    assert topic_total.dtype == np.int64
    assert word_topic[1, 0] == 151 and doc_topic[0, 0] == 300


def test_log_joint_matches_the_sequential_chain_rule():
    # p(w, z) = prod_i p(z_i | z_<i) p(w_i | w_<i, z_<=i): Polya urns, computed token by
    # token, share no code with the lgamma form.
    rng = np.random.default_rng(3)
    token_word, doc_start = make_corpus(rng, 4, 7, 6, empty=[2])
    n_topics = 3
    topic = rng.integers(0, n_topics, token_word.shape[0])
    alpha = np.array([0.2, 1.0, 3.0])
    beta = rng.uniform(0.1, 2.0, 7)
    log_p = 0.0
    word_topic = np.zeros((7, n_topics))
    for d in range(4):
        doc_topic = np.zeros(n_topics)
        for i in range(doc_start[d], doc_start[d + 1]):
            k, w = topic[i], token_word[i]
            log_p += np.log((doc_topic[k] + alpha[k]) / (doc_topic.sum() + alpha.sum()))
            log_p += np.log((word_topic[w, k] + beta[w]) / (word_topic[:, k].sum() + beta.sum()))
            doc_topic[k] += 1
            word_topic[w, k] += 1
    got = counts.log_joint(Corpus(token_word, doc_start), topic.astype(np.uint8), alpha, beta)
    assert got == pytest.approx(log_p, rel=1e-12)


def test_check_counts_names_the_broken_invariant():
    rng = np.random.default_rng(0)
    token_word, doc_start = make_corpus(rng, 5, 9, 8)
    chain = Chain(token_word, doc_start, 3, 9, 0.1, 0.01, seed=0)
    chain.check()
    chain.doc_topic[0, 0] += 1
    with pytest.raises(ValueError, match="doc_topic row sums"):
        chain.check()
    chain.doc_topic[0, 0] -= 1
    k = int(chain.topic[0])
    chain.topic[0] = (k + 1) % 3
    with pytest.raises(ValueError, match="assignments"):
        chain.check()


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match=r"^token_word: word ids"):
        check_corpus(Corpus(np.array([0, 5], np.int32), np.array([0, 2], np.int64)), 5)
    with pytest.raises(ValueError, match=r"^token_word: .*int32"):
        check_corpus(Corpus(np.array([0, 1]), np.array([0, 2], np.int64)), 5)
    with pytest.raises(ValueError, match=r"^doc_start: .*non-decreasing"):
        check_corpus(Corpus(np.array([0, 1], np.int32), np.array([0, 3, 2], np.int64)), 5)
    rng = np.random.default_rng(0)
    token_word, doc_start = make_corpus(rng, 3, 5, 4)
    chain = Chain(token_word, doc_start, 2, 5, 0.1, 0.01, seed=0)
    signed = chain.state._replace(topic=chain.topic.astype(np.int64))
    with pytest.raises(ValueError, match=r"^state.topic: .*unsigned"):
        sweeps.sweep(chain.corpus, signed, chain.hyper, rng)
    with pytest.raises(ValueError, match=r"^hyper.alpha:"):
        sweeps.sweep(chain.corpus, chain.state, (np.ones(3), chain.beta, 1.0), rng)
    with pytest.raises(ValueError, match=r"^word_lists: the dense kernel"):
        sweeps.sweep(chain.corpus, chain.state, chain.hyper, rng, word_lists=chain.word_lists)
    with pytest.raises(ValueError, match=r"^fault: unknown fault"):
        chain.resample(0, 1, rng, fault=99)
    with pytest.raises(ValueError, match=r"^fault: expected a Fault"):
        chain.resample(0, 1, rng, fault="typo")
    with pytest.raises(ValueError, match=r"^fault: STALE_DOC_SUM is a fault of the sparse"):
        chain.resample(0, 1, rng, method="dense", fault=Fault.STALE_DOC_SUM)
    with pytest.raises(ValueError, match=r"^method:"):
        chain.resample(0, 1, rng, method="fast")
    with pytest.raises(ValueError, match=r"^sweeps:"):
        sweeps.sweep(chain.corpus, chain.state, chain.hyper, rng, sweeps=-1)
    with pytest.raises(ValueError, match=r"^phi:"):
        sweeps.sweep(chain.corpus, chain.state, chain.hyper, rng, phi=np.ones((5, 2)))


# ------------------------------------------------------------------ invariants


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n_topics", [1, 3, 40, 300])
def test_counts_stay_consistent_after_every_sweep(method, n_topics):
    rng = np.random.default_rng(n_topics)
    # Empty documents first, in the middle and last; 300 topics exercise uint16 ids.
    token_word, doc_start = make_corpus(rng, 25, 60, 30, empty=[0, 11, 12, 24])
    chain = Chain(
        token_word,
        doc_start,
        n_topics,
        60,
        rng.uniform(0.05, 1, n_topics),
        rng.uniform(0.005, 0.5, 60),
        seed=1,
    )
    for _ in range(15):
        chain.sweep(rng, method)
        chain.check()
    if n_topics == 1:
        assert not chain.topic.any()


def test_a_token_range_across_documents_keeps_counts_consistent():
    rng = np.random.default_rng(5)
    token_word, doc_start = make_corpus(rng, 8, 20, 10, empty=[3])
    chain = Chain(token_word, doc_start, 7, 20, 0.1, 0.05, seed=2)
    n = token_word.shape[0]
    for lo, hi in [(0, 1), (3, n // 2), (n // 2, n), (n - 1, n), (n, n)]:
        chain.resample(lo, hi, rng)
        chain.check()
    with pytest.raises(ValueError, match=r"^tokens: range"):
        chain.resample(2, n + 1, rng)


# --------------------------------------------------------------- reproducibility


@pytest.mark.parametrize("method", METHODS)
def test_same_seed_same_result_bit_for_bit(method):
    rng = np.random.default_rng(9)
    token_word, doc_start = make_corpus(rng, 20, 50, 25, empty=[4])
    runs = []
    for _ in range(2):
        chain = Chain(token_word, doc_start, 60, 50, 0.1, 0.01, seed=4)
        sweep_rng = np.random.default_rng(123)
        for _ in range(5):
            chain.sweep(sweep_rng, method)
        runs.append(chain)
    assert np.array_equal(runs[0].topic, runs[1].topic)
    assert np.array_equal(runs[0].word_topic, runs[1].word_topic)


def test_rebuilding_word_lists_gives_the_same_draws_as_carrying_them():
    # The word lists are kept sorted by topic, so they are a function of word_topic: a
    # Kernel.step that rebuilds it from copied counts samples the same chain.
    rng = np.random.default_rng(10)
    token_word, doc_start = make_corpus(rng, 15, 40, 30)
    carried = Chain(token_word, doc_start, 50, 40, 0.1, 0.01, seed=5)
    rebuilt = Chain(token_word, doc_start, 50, 40, 0.1, 0.01, seed=5)
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
    for _ in range(6):
        carried.sweep(rng_a)
        rebuilt.word_lists = sweeps.build_word_lists(rebuilt.word_topic)
        rebuilt.sweep(rng_b)
    assert np.array_equal(carried.topic, rebuilt.topic)


def test_a_sweep_in_one_call_draws_what_one_call_per_document_draws():
    # A call divides afresh for every topic's reciprocals at its start; within the whole
    # sweep's call a move reads them from the topics' windows (sweeps.RECIPROCAL_WINDOW),
    # refilled as the totals leave them, while a document's call is too short for windows
    # (sweeps.RECIPROCAL_WINDOW_FROM) and divides. From random topics the totals travel
    # several windows' widths in the first sweeps, so one wrong entry would change the
    # draws.
    rng = np.random.default_rng(12)
    token_word, doc_start = make_corpus(rng, 300, 80, 40, empty=[7])
    assert token_word.shape[0] >= sweeps.RECIPROCAL_WINDOW_FROM * 6 > np.diff(doc_start).max()
    whole = Chain(token_word, doc_start, 6, 80, 0.1, 0.01, seed=0)
    per_document = Chain(token_word, doc_start, 6, 80, 0.1, 0.01, seed=0)
    start = whole.topic_total.copy()
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    for _ in range(3):
        whole.sweep(rng_a)
        for d in range(doc_start.shape[0] - 1):
            per_document.resample(doc_start[d], doc_start[d + 1], rng_b)
    assert abs(whole.topic_total - start).max() > 2 * sweeps.RECIPROCAL_WINDOW
    assert np.array_equal(whole.topic, per_document.topic)
    whole.check()


@pytest.mark.parametrize("n_topics", [25, 200])
def test_prefetching_the_words_ahead_changes_no_draw(n_topics):
    # The sweep's kernel prefetches the rows of the words ahead; the same kernel
    # compiled without the hints must leave the same state bit for bit, also over a
    # token range that ends mid-corpus (the hints look past token_hi's words). At
    # K = 200 a row of uint8 counts spans more than two cache lines, so the lines
    # between its first and last are asked for too.
    rng = np.random.default_rng(12)
    token_word, doc_start = make_corpus(rng, 30, 400, 40, empty=[7])
    plain_kernel = sweeps._sparse_kernel(int(Fault.NONE), prefetch=False)
    ahead = Chain(token_word, doc_start, n_topics, 400, 0.1, 0.01, seed=8)
    plain = Chain(token_word, doc_start, n_topics, 400, 0.1, 0.01, seed=8)
    row_bytes = ahead.word_topic.itemsize * n_topics
    assert (row_bytes > 2 * sweeps.CACHE_LINE_BYTES) == (n_topics == 200)
    rng_ahead, rng_plain = np.random.default_rng(5), np.random.default_rng(5)
    ranges = [(0, token_word.shape[0])] * 4 + [(3, token_word.shape[0] // 2)]
    for lo, hi in ranges:
        ahead.resample(lo, hi, rng_ahead)
        plain.run_kernel(plain_kernel, lo, hi, rng_plain)
    plain.check()
    for name in ("topic", "doc_topic", "word_topic", "topic_total"):
        assert np.array_equal(getattr(plain, name), getattr(ahead, name)), name
    assert all(
        np.array_equal(a, b) for a, b in zip(plain.word_lists, ahead.word_lists, strict=True)
    )


def holds_most_topics(chain, word):
    """Whether the sparse sweep walks ``word``'s whole row (``sweeps.ROW_WALK_EIGHTHS``)."""
    n_topics = chain.topic_total.shape[0]
    held = np.count_nonzero(chain.word_topic[word])
    return sweeps.walks_row(held, n_topics, sweeps.ROW_WALK_EIGHTHS)


@pytest.mark.parametrize("n_topics", [24, 40])
def test_walking_whole_rows_draws_what_the_lists_draw(n_topics):
    # Words holding most topics are walked over their whole row, summed in blocks; the
    # kernel that walks every word's list sums the same products serially. They may
    # differ only where a uniform falls within rounding (1e-16 relative) of a boundary
    # between topics: about 1e-12 over this test's draws, so any difference here is a
    # mistake in the walk or its search (a wrong block, an off-by-one, padding drawn).
    # The corpus has both kinds of word throughout (checked), and a range that ends
    # mid-corpus. At K = 24 (3 blocks) the pick reads the partial sums kept before the
    # draw, at K = 40 (5 blocks) it forms them after (sweeps.PARTIALS_UP_TO_BLOCKS).
    assert (n_topics <= 8 * sweeps.PARTIALS_UP_TO_BLOCKS) == (n_topics == 24)
    rng = np.random.default_rng(13)
    token_word, doc_start = make_corpus(rng, 40, 60, 50, empty=[3])
    lists_kernel = sweeps._sparse_kernel(
        int(Fault.NONE), prefetch=True, row_walk_eighths=sweeps.ROW_WALK_NEVER
    )
    rows = Chain(token_word, doc_start, n_topics, 60, 0.1, 0.01, seed=4)
    lists = Chain(token_word, doc_start, n_topics, 60, 0.1, 0.01, seed=4)
    rng_rows, rng_lists = np.random.default_rng(6), np.random.default_rng(6)
    ranges = [(0, token_word.shape[0])] * 6 + [(5, token_word.shape[0] // 2)]
    for lo, hi in ranges:
        by_row = [holds_most_topics(rows, w) for w in np.unique(token_word)]
        assert any(by_row) and not all(by_row)
        rows.resample(lo, hi, rng_rows)
        lists.run_kernel(lists_kernel, lo, hi, rng_lists)
    lists.check()
    for name in ("topic", "doc_topic", "word_topic", "topic_total"):
        assert np.array_equal(getattr(lists, name), getattr(rows, name)), name
    assert all(
        np.array_equal(a, b) for a, b in zip(lists.word_lists, rows.word_lists, strict=True)
    )


def test_a_sweep_draws_the_same_with_either_source():
    # The sweep hands the kernel PCG64's state; the same kernel fed the Generator itself
    # (numba's rng.random()) must leave the same topics and the generator at the same place.
    rng = np.random.default_rng(31)
    token_word, doc_start = make_corpus(rng, 12, 60, 30)
    inline = Chain(token_word, doc_start, 9, 60, 0.1, 0.01, seed=2)
    called = Chain(token_word, doc_start, 9, 60, 0.1, 0.01, seed=2)
    rng_inline, rng_called = np.random.default_rng(4), np.random.default_rng(4)
    kernel = sweeps._SPARSE_KERNELS[sweeps.Fault.NONE]
    for _ in range(3):
        inline.sweep(rng_inline)
        called.run_kernel(kernel, 0, token_word.shape[0], rng_called)
    np.testing.assert_array_equal(inline.topic, called.topic)
    assert rng_inline.bit_generator.state == rng_called.bit_generator.state


def test_the_generator_advances_one_uniform_per_token():
    # Fresh uniforms, no recycled buffer: the generator's state moves on by N draws.
    rng = np.random.default_rng(11)
    token_word, doc_start = make_corpus(rng, 6, 10, 10)
    chain = Chain(token_word, doc_start, 4, 10, 0.1, 0.01, seed=6)
    for method in METHODS:
        sweep_rng, twin = np.random.default_rng(3), np.random.default_rng(3)
        chain.sweep(sweep_rng, method)
        twin.random(token_word.shape[0])
        assert sweep_rng.random() == twin.random()


# ------------------------------------------------------------------- exactness


def one_token_problem():
    """A tiny state where the smoothing and document buckets carry much of the mass.

    Few tokens, large alpha and a large beta for the resampled token's word make the
    terms a stale bucket sum gets wrong (alpha_k / (n_k + B) and n_dk / (n_k + B) for the
    token's old topic) a sizeable share of the normaliser, so a stale sum is visible.
    """
    rng = np.random.default_rng(20)
    token_word, doc_start = make_corpus(rng, 3, 3, 3, empty=[1])
    alpha = np.array([2.0, 0.5, 3.0])
    beta = np.array([1.5, 0.1, 0.1])
    chain = Chain(token_word, doc_start, 3, 3, alpha, beta, seed=8)
    # A token of the most frequent word in the last document, so its word and its
    # document both have several topics.
    last_doc = range(doc_start[-2], doc_start[-1])
    token = max(last_doc, key=lambda i: (token_word == token_word[i]).sum())
    return chain, token


def one_token_frequencies(chain, token, rng, draws, method="sparse", fault=Fault.NONE):
    observed = np.zeros(chain.topic_total.shape[0], dtype=np.int64)
    for _ in range(draws):
        chain.resample(token, token + 1, rng, method, fault)
        observed[chain.topic[token]] += 1
    return observed


@pytest.mark.parametrize("method", METHODS)
def test_one_token_draws_follow_the_exact_conditional(method):
    chain, token = one_token_problem()
    exact = chain.exact_conditional(token)
    observed = one_token_frequencies(chain, token, np.random.default_rng(1), 40_000, method)
    p = g_test(observed, exact)
    assert p > LEVEL, (p, observed / observed.sum(), exact)
    chain.check()


@pytest.mark.parametrize("fault", [Fault.STALE_SMOOTHING_SUM, Fault.STALE_DOC_SUM])
def test_one_token_test_rejects_a_stale_bucket_sum(fault):
    chain, token = one_token_problem()
    exact = chain.exact_conditional(token)
    observed = one_token_frequencies(
        chain, token, np.random.default_rng(1), 40_000, "sparse", fault
    )
    p = g_test(observed, exact)
    assert p < LEVEL, (p, observed / observed.sum(), exact)


def tiny_corpus():
    # Two documents of two tokens, three words; asymmetric priors break the label
    # symmetry so that the 16 states have distinct probabilities.
    token_word = np.array([0, 1, 0, 2], dtype=np.int32)
    doc_start = np.array([0, 2, 4], dtype=np.int64)
    alpha = np.array([0.4, 1.1])
    beta = np.array([0.3, 0.8, 1.5])
    return token_word, doc_start, alpha, beta


def exact_state_probabilities(token_word, doc_start, alpha, beta, n_topics):
    states = np.array(list(itertools.product(range(n_topics), repeat=token_word.shape[0])))
    log_p = np.array(
        [
            counts.log_joint(Corpus(token_word, doc_start), s.astype(np.uint8), alpha, beta)
            for s in states
        ]
    )
    p = np.exp(log_p - log_p.max())
    return p / p.sum()


def stationary_frequencies(method, fault, sweeps, thin, seed):
    token_word, doc_start, alpha, beta = tiny_corpus()
    chain = Chain(token_word, doc_start, 2, 3, alpha, beta, seed=seed)
    rng = np.random.default_rng(seed)
    n = token_word.shape[0]
    place = 2 ** np.arange(n - 1, -1, -1)  # state index as in itertools.product
    observed = np.zeros(2**n, dtype=np.int64)
    for s in range(sweeps):
        chain.resample(0, n, rng, method, fault)
        if s % thin == 0:
            observed[int(chain.topic.astype(np.int64) @ place)] += 1
    chain.check()
    return observed


@pytest.mark.parametrize("method", METHODS)
def test_long_run_frequencies_match_exact_enumeration(method):
    token_word, doc_start, alpha, beta = tiny_corpus()
    exact = exact_state_probabilities(token_word, doc_start, alpha, beta, 2)
    # Thinned by 4 sweeps: on this 16-state chain the lag-4 autocorrelation of the
    # state indicators is below 0.01, so the G-test's independence assumption holds.
    observed = stationary_frequencies(method, Fault.NONE, 40_000, 4, seed=2)
    p = g_test(observed, exact)
    assert p > LEVEL, (p, observed / observed.sum(), exact)


@pytest.mark.parametrize(
    ("method", "fault"),
    [
        ("sparse", Fault.STALE_SMOOTHING_SUM),
        ("sparse", Fault.STALE_DOC_SUM),
        ("dense", Fault.TOKEN_NOT_REMOVED),
        ("dense", Fault.BETA_NOT_TIMES_V),
        ("sparse", Fault.BETA_NOT_TIMES_V),
    ],
)
def test_stationarity_test_rejects_a_wrong_kernel(method, fault):
    # Every fault of the sweep's switch but ADDED_BACK_UNDER_OLD_TOPIC, which by design
    # leaves the counts behind the topics of an in-place chain (the model-level kernel
    # rebuilds them every step; its twin is test_lda_gibbs.py's wrong-kernel test).
    token_word, doc_start, alpha, beta = tiny_corpus()
    exact = exact_state_probabilities(token_word, doc_start, alpha, beta, 2)
    observed = stationary_frequencies(method, fault, 40_000, 4, seed=2)
    p = g_test(observed, exact)
    assert p < LEVEL, (p, observed / observed.sum(), exact)


def test_held_out_sweeps_keep_the_counts_and_ignore_word_topic():
    # phi fixed: the draw reads doc_topic and phi only, and the counts stay what the
    # topics imply.
    rng = np.random.default_rng(13)
    token_word, doc_start = make_corpus(rng, 6, 10, 8, empty=[2])
    chain = Chain(token_word, doc_start, 5, 10, 0.3, 0.1, seed=3)
    phi = rng.dirichlet(np.ones(10), size=5)
    twin = Chain(token_word, doc_start, 5, 10, 0.3, 0.1, seed=3)
    twin.word_topic[...] = 0  # not read: the same draws
    for one in (chain, twin):
        sweeps.sweep(one.corpus, one.state, one.hyper, np.random.default_rng(8), sweeps=4, phi=phi)
    np.testing.assert_array_equal(chain.topic, twin.topic)
    np.testing.assert_array_equal(chain.doc_topic, twin.doc_topic)
    chain.lists_are_stale = True
    chain.check()


def test_log_joint_is_the_normaliser_of_the_conditional():
    # p(z_i = k | rest) is proportional to p(w, z with z_i = k): the lgamma log joint
    # and the Griffiths-Steyvers ratio must agree (ties counts.py to sweeps.py's target).
    rng = np.random.default_rng(30)
    token_word, doc_start = make_corpus(rng, 3, 6, 5)
    chain = Chain(
        token_word, doc_start, 4, 6, [0.2, 0.5, 1.0, 2.0], rng.uniform(0.1, 1, 6), seed=3
    )
    token = int(doc_start[1])
    log_p = []
    for k in range(4):
        topic = chain.topic.copy()
        topic[token] = k
        log_p.append(counts.log_joint(chain.corpus, topic, chain.alpha, chain.beta))
    log_p = np.array(log_p)
    from_joint = np.exp(log_p - log_p.max())
    np.testing.assert_allclose(
        from_joint / from_joint.sum(), chain.exact_conditional(token), rtol=1e-10
    )


def test_sweep_dispatches_on_the_number_of_topics():
    rng = np.random.default_rng(12)
    token_word, doc_start = make_corpus(rng, 5, 12, 8)

    def chain(n_topics):
        return Chain(token_word, doc_start, n_topics, 12, 0.1, 0.01, seed=1)

    def topics_after(chain, method):
        # Five sweeps: enough for the two kernels' different bucket orders to pick
        # different topics for some uniform (one sweep of 44 tokens may not).
        sweep_rng = np.random.default_rng(4)
        for _ in range(5):
            chain.resample(0, len(token_word), sweep_rng, method)
        return chain.topic

    for n_topics, kernel, other in (
        (sweeps.SPARSE_FROM_TOPICS - 1, "dense", "sparse"),
        (sweeps.SPARSE_FROM_TOPICS, "sparse", "dense"),
    ):
        auto, own = chain(n_topics), chain(n_topics)
        for lists, state in ((auto.word_lists, auto), (None, own)):
            sweep_rng = np.random.default_rng(4)
            for _ in range(5):
                # Lists only for the sparse kernel; without them it builds its own.
                sweeps.sweep(
                    state.corpus,
                    state.state,
                    state.hyper,
                    sweep_rng,
                    word_lists=lists if kernel == "sparse" else None,
                )
            state.lists_are_stale = lists is None or kernel == "dense"
            state.check()
        expected = topics_after(chain(n_topics), kernel)
        assert np.array_equal(auto.topic, expected)
        assert np.array_equal(own.topic, expected)
        assert not np.array_equal(topics_after(chain(n_topics), other), expected)


def test_the_package_never_imports_the_benchmark_peers():
    import subprocess
    import sys

    code = (
        "import sys, zoo.models.lda.sweeps, zoo.models.lda.counts, zoo.models.lda.gibbs; "
        "print(sorted(m for m in ('lda', 'tomotopy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_one_token_draws_are_exact_in_the_sparse_regime():
    # The usual regime (alpha = 0.1, beta = 0.01, K = 50 after 30 sweeps): nearly all
    # mass in the word bucket, word lists that shrink and grow as tokens move.
    rng = np.random.default_rng(40)
    token_word, doc_start = make_corpus(rng, 30, 80, 40)
    chain = Chain(token_word, doc_start, 50, 80, 0.1, 0.01, seed=0)
    for _ in range(30):
        chain.sweep(rng)
    token = int(doc_start[5]) + 2
    exact = chain.exact_conditional(token)
    observed = one_token_frequencies(chain, token, np.random.default_rng(0), 40_000)
    p = g_test(observed, exact)
    assert p > LEVEL, (p, observed / observed.sum(), exact)
    chain.check()


def word_walked_by_row_problem(n_topics=20):
    """K topics in the usual regime, with a token of a word that holds most topics.

    K = 20 sums two whole blocks of ``sweeps.Q_BLOCK`` topics and a part of one; K = 5 one
    block, mostly padding.
    """
    rng = np.random.default_rng(41)
    token_word, doc_start = make_corpus(rng, 30, 10, 60)
    chain = Chain(token_word, doc_start, n_topics, 10, 0.1, 0.01, seed=0)
    for _ in range(20):
        chain.sweep(rng)
    assert holds_most_topics(chain, 0)
    return chain, int(np.flatnonzero(token_word == 0)[3])


@pytest.mark.parametrize("n_topics", [5, 20])
def test_one_token_draws_are_exact_for_a_word_walked_by_row(n_topics):
    # The most frequent word's token: its word bucket is walked over the whole row.
    chain, token = word_walked_by_row_problem(n_topics)
    exact = chain.exact_conditional(token)
    observed = one_token_frequencies(chain, token, np.random.default_rng(2), 40_000)
    p = g_test(observed, exact)
    assert p > LEVEL, (p, observed / observed.sum(), exact)
    chain.check()


def test_one_token_test_rejects_a_row_walk_that_keeps_the_token():
    # The twin: the same draws tested against the conditional with the token left in its
    # topic's counts (what a row walk without the `kk == k_old` term would sample from
    # while the token sits there) must fail, so the test above can see that mistake.
    chain, token = word_walked_by_row_problem()
    d = np.searchsorted(chain.doc_start, token, side="right") - 1
    w = chain.token_word[token]
    kept = (
        (chain.doc_topic[d] + chain.alpha)
        * (chain.word_topic[w] + chain.beta[w])
        / (chain.topic_total + chain.beta.sum())
    )
    observed = one_token_frequencies(chain, token, np.random.default_rng(2), 40_000)
    assert g_test(observed, kept / kept.sum()) < LEVEL


def test_counting_the_slots_finds_the_slot_halving_finds():
    # The sparse sweep picks its slot by counting the cumulative weights at or below u
    # (up to COUNT_SLOTS_UP_TO slots) where it used to halve: the same slot for every u
    # below the last sum, on sums with repeated values (zero weights), both sides of the
    # threshold, and u exactly at a sum.
    rng = np.random.default_rng(21)
    for n in (1, 2, 3, 8, 13, sweeps.COUNT_SLOTS_UP_TO, sweeps.COUNT_SLOTS_UP_TO + 1, 150):
        weight = rng.exponential(size=n) * (rng.random(n) < 0.6)
        weight[-1] += 1.0  # the last sum is above every u drawn
        cumulative = np.cumsum(weight)
        u = np.concatenate([rng.random(50) * cumulative[-1], cumulative[:-1]])
        u = u[u < cumulative[-1]]
        counted = [sweeps._count_at_or_below(cumulative, n, x) for x in u]
        halved = [sweeps._first_above(cumulative, n, x) for x in u]
        assert counted == halved, n
