"""The O(1) Metropolis-Hastings LDA sweep (zoo.models.lda.metropolis): exact, faults caught.

Two levels. Per token: started from a draw of the token's exact full conditional, one
sweep over that token must leave it distributed as that conditional (the defining
property of a kernel that leaves the posterior invariant); a chi-square test at a
1e-4 false-alarm rate, and each planted fault must fail it. Whole chains: the kernel
against the exact posterior on the LDA test corpora, through the agreement protocol
(the faults' whole-chain twins are in test_gibbs.py, which runs every catalogued fault).
"""

import numpy as np
import pytest
from scipy import stats

import zoo
from tests.support.replicates import agreement_on_replicates
from zoo.diagnostics import agreement
from zoo.models.lda import Data, Prior, counts_from_topics, make_kernel, metropolis_kernel
from zoo.models.lda.corpus import Corpus
from zoo.models.lda.metropolis import (
    BATCH_TOKENS,
    MetropolisFault,
    build_partition,
    build_word_tokens,
    metropolis_sweep,
)

SPEC = zoo.get("lda")
RUN = {"draws": 1000, "tune": 200, "chains": 4, "seed": 20261124}

#: Per-token test: a small corpus where every count is small, so that each fault's
#: error in the acceptance ratio is a large share of it. Asymmetric alpha and beta
#: exercise the doc proposal's doc factors and the per-word smoothing.
TOKEN_DATA = Data([[0, 1, 1, 2], [2, 3], [1, 0, 0]], topics=4)
TOKEN_PRIOR = Prior(alpha=[0.9, 0.5, 0.3, 0.2], beta=[0.4, 0.6, 0.3, 0.5])
REPLICATES = 20_000
FALSE_ALARM = 1e-4


def _exact_conditional(state, hyper, i, d, w):
    """p(z_i = k | z_-i, w) with token i taken out of its topic's counts."""
    alpha, beta, beta_sum = hyper
    s = int(state.topic[i])
    doc = state.doc_topic[d].astype(float)
    word = state.word_topic[w].astype(float)
    total = state.topic_total.astype(float)
    doc[s] -= 1
    word[s] -= 1
    total[s] -= 1
    weight = (doc + alpha) * (word + beta[w]) / (total + beta_sum)
    return weight / weight.sum()


def _one_step_from_the_conditional(fault, i=1, seed=0):
    """Topics of token i after one sweep over it, each started from its exact conditional."""
    data, hyper = TOKEN_DATA, TOKEN_PRIOR.resolve(TOKEN_DATA)
    rng = np.random.default_rng(seed)
    state = counts_from_topics(data, rng.integers(0, data.n_topics, data.n_tokens))
    d = int(np.searchsorted(data.corpus.doc_start, i, side="right") - 1)
    w = int(data.corpus.token_word[i])
    target = _exact_conditional(state, hyper, i, d, w)  # does not depend on z_i
    words = build_word_tokens(data.corpus, data.n_words)
    after = np.empty(REPLICATES, dtype=np.int64)
    for r in range(REPLICATES):
        start = rng.choice(data.n_topics, p=target)
        topic = state.topic.copy()
        topic[i] = start
        state = counts_from_topics(data, topic)
        metropolis_sweep(
            data.corpus, state, hyper, rng, tokens=(i, i + 1), word_tokens=words, fault=fault
        )
        after[r] = state.topic[i]
    observed = np.bincount(after, minlength=data.n_topics)
    return stats.chisquare(observed, REPLICATES * target).pvalue


def test_one_sweep_leaves_a_tokens_conditional_invariant():
    assert _one_step_from_the_conditional(MetropolisFault.NONE) > FALSE_ALARM


@pytest.mark.parametrize(
    "fault", [f for f in MetropolisFault if f != MetropolisFault.NONE], ids=lambda f: f.name
)
def test_a_wrong_acceptance_rule_moves_the_conditional(fault):
    assert _one_step_from_the_conditional(fault) < FALSE_ALARM


def test_counts_stay_those_of_the_assignments():
    data, prior = SPEC.default_problem()
    hyper = prior.resolve(data)
    rng = np.random.default_rng(3)
    state = counts_from_topics(data, rng.integers(0, data.n_topics, data.n_tokens))
    metropolis_sweep(data.corpus, state, hyper, rng, sweeps=20, cycles=2)
    implied = counts_from_topics(data, state.topic)
    for name in ("doc_topic", "word_topic", "topic_total"):
        np.testing.assert_array_equal(getattr(state, name), getattr(implied, name))


@pytest.mark.parametrize("cycles", [1, 2])
def test_each_token_takes_four_fresh_uniforms_per_cycle(cycles):
    # The uniforms are drawn a batch ahead (BATCH_TOKENS tokens of a document), four per
    # token and cycle whether or not a proposal is accepted: the generator moves on by
    # exactly that, also for a document longer than a batch and a token range that
    # starts and ends inside one.
    rng = np.random.default_rng(8)
    long_document = rng.integers(0, 7, size=2 * BATCH_TOKENS + 37)
    data = Data([long_document, [1, 2, 3], long_document[:50]], topics=5)
    hyper = Prior(alpha=0.3, beta=0.2).resolve(data)
    state = counts_from_topics(data, rng.integers(0, data.n_topics, data.n_tokens))
    for lo, hi in [(0, data.n_tokens), (BATCH_TOKENS - 9, 2 * BATCH_TOKENS + 45)]:
        sweep_rng, twin = np.random.default_rng(3), np.random.default_rng(3)
        metropolis_sweep(data.corpus, state, hyper, sweep_rng, tokens=(lo, hi), cycles=cycles)
        twin.random(4 * cycles * (hi - lo))
        assert sweep_rng.random() == twin.random()
        implied = counts_from_topics(data, state.topic)
        for name in ("doc_topic", "word_topic", "topic_total"):
            np.testing.assert_array_equal(getattr(state, name), getattr(implied, name))


def test_same_seed_same_draws():
    data, prior = SPEC.default_problem()
    hyper = prior.resolve(data)
    runs = []
    for _ in range(2):
        rng = np.random.default_rng(5)
        state = counts_from_topics(data, rng.integers(0, data.n_topics, data.n_tokens))
        metropolis_sweep(data.corpus, state, hyper, rng, sweeps=5)
        runs.append(state.topic)
    np.testing.assert_array_equal(*runs)


def test_the_word_index_lists_each_words_tokens_in_order():
    words = build_word_tokens(TOKEN_DATA.corpus, TOKEN_DATA.n_words)
    token_word = TOKEN_DATA.corpus.token_word
    # slot is a permutation: token i sits at position slot[i] of the word order.
    np.testing.assert_array_equal(np.sort(words.slot), np.arange(token_word.size))
    in_word_order = np.empty_like(words.slot)
    in_word_order[words.slot] = np.arange(token_word.size)
    for w in range(TOKEN_DATA.n_words):
        mine = in_word_order[words.start[w] : words.start[w + 1]]
        np.testing.assert_array_equal(mine, np.flatnonzero(token_word == w))


def _problems():
    four = Data([[0, 1, 1], [2, 0], [3, 1]], topics=4)
    return {
        "default": SPEC.default_problem(),
        "four-topics": (four, Prior(alpha=[1.0, 0.6, 0.4, 0.3], beta=0.5)),
    }


PROBLEMS = _problems()


# The four-topic problem (asymmetric alpha: theta and phi judged too) with -m slow, to
# keep the default run in its 10 minutes.
@pytest.mark.parametrize("name", ["default", pytest.param("four-topics", marks=pytest.mark.slow)])
def test_metropolis_kernel_agrees_with_exact(name):
    # A disagreement must be confirmed on an independent replicate (false-alarm rate
    # 1e-4 per test; tests/support/replicates.py says why).
    data, prior = PROBLEMS[name]
    reference = SPEC.posterior(data, prior)

    def judge(seed):
        draws = zoo.sample(SPEC, data, prior, kernel=metropolis_kernel, **{**RUN, "seed": seed})
        return agreement(draws, reference)

    results = agreement_on_replicates(judge, RUN["seed"])
    assert results[-1].verdict == "agree", "\n".join(map(str, results))


def test_bad_arguments_are_named():
    data, prior = SPEC.default_problem()
    hyper = prior.resolve(data)
    state = counts_from_topics(data, np.zeros(data.n_tokens, dtype=int))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="cycles"):
        metropolis_sweep(data.corpus, state, hyper, rng, cycles=0)
    with pytest.raises(ValueError, match="doc_proposals"):
        metropolis_sweep(data.corpus, state, hyper, rng, doc_proposals=0)
    with pytest.raises(ValueError, match="tokens"):
        metropolis_sweep(data.corpus, state, hyper, rng, tokens=(0, data.n_tokens + 1))
    with pytest.raises(ValueError, match="word_tokens"):
        other = build_word_tokens(TOKEN_DATA.corpus, TOKEN_DATA.n_words)
        metropolis_sweep(data.corpus, state, hyper, rng, word_tokens=other)
    own = build_word_tokens(data.corpus, data.n_words)
    with pytest.raises(ValueError, match=r"word_tokens: expected \(start, slot\)"):
        # 0.2's index, (start, token, slot): named, not unpacked into the wrong fields.
        metropolis_sweep(
            data.corpus, state, hyper, rng, word_tokens=(own.start, own.slot, own.slot)
        )
    with pytest.raises(ValueError, match="fault"):
        metropolis_sweep(data.corpus, state, hyper, rng, fault=9)
    with pytest.raises(ValueError, match="sampler"):
        make_kernel(sampler="slice")
    with pytest.raises(ValueError, match="'metropolis' sampler"):
        make_kernel(fault="mh-no-proposal-ratio", sampler="gibbs")
    with pytest.raises(ValueError, match="cycles"):
        make_kernel(cycles=2)
    with pytest.raises(ValueError, match="parts"):
        make_kernel(parts=2)
    with pytest.raises(ValueError, match="parts"):
        metropolis_sweep(data.corpus, state, hyper, rng, parts=0)
    two = build_partition(data.corpus, data.n_words, 2)
    with pytest.raises(ValueError, match="partition: built for 2 parts"):
        metropolis_sweep(data.corpus, state, hyper, rng, parts=3, partition=two)


def test_a_zero_pseudo_count_is_named_before_any_draw():
    # beta's uniform branch is what makes every topic reachable: a zero would leave the
    # sweep reducible, so it is refused by name before the state or generator moves.
    data, prior = SPEC.default_problem()
    alpha, beta, _ = prior.resolve(data)
    rng = np.random.default_rng(0)
    state = counts_from_topics(data, rng.integers(0, data.n_topics, data.n_tokens))
    topics, before = state.topic.copy(), rng.bit_generator.state
    zero_beta = np.zeros_like(beta)
    with pytest.raises(ValueError, match="hyper: alpha and beta must be > 0"):
        metropolis_sweep(data.corpus, state, (alpha, zero_beta, 0.0), rng)
    np.testing.assert_array_equal(state.topic, topics)
    assert rng.bit_generator.state == before


def _threaded_run(parts, seed=7, sweeps=10):
    data, prior = SPEC.default_problem()
    hyper = prior.resolve(data)
    rng = np.random.default_rng(seed)
    state = counts_from_topics(data, rng.integers(0, data.n_topics, data.n_tokens))
    metropolis_sweep(data.corpus, state, hyper, rng, sweeps=sweeps, parts=parts)
    return data, state


@pytest.mark.parametrize("parts", [2, 3])
def test_threaded_sweep_keeps_the_counts_and_repeats_its_draws(parts):
    # The blocks run on threads, in whatever order the threads are scheduled; the draws
    # must not depend on it (each block has its own generator and its own totals).
    data, state = _threaded_run(parts)
    implied = counts_from_topics(data, state.topic)
    for name in ("doc_topic", "word_topic", "topic_total"):
        np.testing.assert_array_equal(getattr(state, name), getattr(implied, name))
    for _ in range(3):
        np.testing.assert_array_equal(_threaded_run(parts)[1].topic, state.topic)


def test_the_partition_splits_documents_and_words_by_tokens():
    lengths = np.array([5, 1, 1, 1, 4, 0, 4])
    words = np.arange(lengths.sum()) % 6
    data = Data(np.split(words, np.cumsum(lengths)[:-1]), topics=3)
    partition = build_partition(data.corpus, data.n_words, 2)
    starts = partition.doc_group_start
    assert starts[0] == 0 and starts[-1] == data.n_documents
    assert np.all(np.diff(starts) >= 0)
    # About half the tokens on either side of each cut.
    tokens = data.corpus.doc_start[starts]
    assert abs(int(tokens[1]) - data.n_tokens / 2) <= lengths.max()
    assert set(np.unique(partition.word_group)) <= {0, 1}
    assert np.all(np.diff(partition.word_group) >= 0)  # contiguous ranges of word ids
    np.testing.assert_array_equal(
        partition.token_group, partition.word_group[data.corpus.token_word]
    )
    # More parts than documents: empty groups, still a valid sweep.
    many = build_partition(data.corpus, data.n_words, 10)
    assert many.doc_group_start[-1] == data.n_documents
    hyper = Prior(alpha=0.5, beta=0.5).resolve(data)
    state = counts_from_topics(data, np.zeros(data.n_tokens, dtype=int))
    metropolis_sweep(data.corpus, state, hyper, np.random.default_rng(0), parts=10)
    implied = counts_from_topics(data, state.topic)
    np.testing.assert_array_equal(state.topic_total, implied.topic_total)


def _reference_sweep(corpus, state, hyper, rng, cycles, doc_proposals=1):
    """The sweep of the module docstring in plain Python, one token at a time.

    No batches, no prefetch, no unsigned indices: token by token in order, its
    ``2 (doc_proposals + 1) cycles`` uniforms drawn when its turn comes (the kernel
    draws a batch's ahead, the same numbers in the same order), each cycle
    ``doc_proposals`` doc proposals then a word proposal.
    """
    token_word, doc_start = corpus
    topic, doc_topic, word_topic, totals = state
    alpha, beta, beta_sum = hyper
    n_topics = totals.shape[0]
    words = build_word_tokens(corpus, word_topic.shape[0])
    by_word = np.empty(topic.size, dtype=np.int64)
    by_word[words.slot] = topic
    for d in range(doc_start.shape[0] - 1):
        d_lo, n_d = int(doc_start[d]), int(doc_start[d + 1] - doc_start[d])
        for i in range(d_lo, d_lo + n_d):
            w = int(token_word[i])
            w_lo, n_w = int(words.start[w]), int(words.start[w + 1] - words.start[w])
            steps = ["doc"] * doc_proposals + ["word"]
            u4 = rng.random(2 * len(steps) * cycles).reshape(cycles, len(steps), 2)
            s = int(topic[i])
            for cycle in u4:
                for proposal, (u_proposal, accept) in zip(steps, cycle, strict=True):
                    if proposal == "doc":
                        t = int(topic[d_lo + int(u_proposal * n_d)])
                        n_dt, n_ds = doc_topic[d, t], doc_topic[d, s] - 1.0
                        up = (n_dt + alpha[t]) * n_ds * (word_topic[w, t] + beta[w])
                        up *= totals[s] - 1.0 + beta_sum
                        down = (n_ds + alpha[s]) * n_dt * (word_topic[w, s] - 1.0 + beta[w])
                        down *= totals[t] + beta_sum
                    else:
                        u = u_proposal * (n_w + n_topics * beta[w])
                        if u < n_w:
                            t = int(by_word[w_lo + int(u)])
                        else:
                            t = min(int((u - n_w) / beta[w]), n_topics - 1)
                        up = (doc_topic[d, t] + alpha[t]) * (totals[s] - 1.0 + beta_sum)
                        down = (doc_topic[d, s] - 1.0 + alpha[s]) * (totals[t] + beta_sum)
                    if t != s and accept * down < up:
                        topic[i] = t
                        doc_topic[d, s] -= 1
                        doc_topic[d, t] += 1
                        word_topic[w, s] -= 1
                        word_topic[w, t] += 1
                        totals[s] -= 1
                        totals[t] += 1
                        by_word[words.slot[i]] = t
                        s = t


@pytest.mark.parametrize("cycles, doc_proposals", [(1, 1), (2, 1), (3, 1), (1, 2), (2, 3)])
def test_the_sweep_draws_what_the_plain_algorithm_draws(cycles, doc_proposals):
    # Bit for bit against the plain-Python sweep: the kernel's batches of uniforms drawn
    # ahead and its prefetches (every cycle's proposal reads, PREFETCH_DISTANCE tokens
    # ahead) change no draw. Documents longer than a batch and many tokens per word, so
    # that batch edges, the prefetch window and moved topics all occur.
    rng = np.random.default_rng(21)
    documents = [rng.integers(0, 9, size=n) for n in (2 * BATCH_TOKENS + 31, 40, 300)]
    data = Data(documents, topics=6)
    hyper = Prior(alpha=[0.5, 0.2, 0.1, 0.3, 0.2, 0.4], beta=0.05).resolve(data)
    start = rng.integers(0, data.n_topics, data.n_tokens)
    kernel_state = counts_from_topics(data, start)
    reference_state = counts_from_topics(data, start)
    reference_state = type(reference_state)(
        *(np.asarray(a, dtype=np.int64) for a in reference_state)
    )
    kernel_rng, reference_rng = np.random.default_rng(4), np.random.default_rng(4)
    moved = 0
    for _ in range(3):
        before = kernel_state.topic.copy()
        metropolis_sweep(
            data.corpus,
            kernel_state,
            hyper,
            kernel_rng,
            cycles=cycles,
            doc_proposals=doc_proposals,
        )
        _reference_sweep(data.corpus, reference_state, hyper, reference_rng, cycles, doc_proposals)
        moved += int(np.count_nonzero(kernel_state.topic != before))
        for name in ("topic", "doc_topic", "word_topic", "topic_total"):
            np.testing.assert_array_equal(
                getattr(kernel_state, name), getattr(reference_state, name), err_msg=name
            )
    assert moved > 100  # the comparison saw many moves, not a chain that stood still
    assert kernel_rng.random() == reference_rng.random()


def test_word_ids_outside_the_vocabulary_are_named_before_the_index_is_built():
    # The word proposal's index is filled in numba by word id, without bounds checks.
    corpus = Corpus(np.array([0, 3, 1], dtype=np.int32), np.array([0, 3], dtype=np.int64))
    with pytest.raises(ValueError, match=r"^token_word: word ids must lie in \[0, 3\)"):
        build_word_tokens(corpus, 3)
