"""LDA across processes: approximate distributed Gibbs (AD-LDA) on Dask, measured.

AD-LDA (Newman, Asuncion, Smyth & Welling, "Distributed algorithms for topic models",
JMLR 10, 2009, section 2): the documents are split into P parts of whole documents;
in each round every part sweeps its own tokens with the zoo's collapsed sweep
(``zoo.models.lda.sweeps.sweep(..., tokens=(lo, hi))``) against a private copy of the
topic-word counts ``n_kw`` and topic totals ``n_k`` taken at the start of the round;
then the copies are merged, ``n <- n + sum_p (n_p - n)``. The document-topic counts of a
part are its own. The merged counts are exactly those the merged assignments imply (each
move is counted once, by the part that made it); the approximation is in the sweep: a
part does not see the other parts' moves of the same round, so the chain does not leave
the posterior exactly invariant. ``docs/scaling.md`` is the design this measures.

Two measurements:

1. ``--distance``: the partitioned sweep as a ``zoo.Kernel`` whose parts are swept one
   after another in this process (the same staleness as on a cluster: each part sees
   the counts of the round's start and its own moves only), through ``zoo.validate``'s
   exact check on LDA's validation problems at the default budget, for P = 1 (the
   exact sampler: a control) and P = 2, 3. The verdict and the largest |z| over the
   tested quantities say how far the chain's posterior is from the exact one.
2. ``--throughput``: the Reuters sample of the ``lda`` package (84,010 tokens), K = 20
   and 100, alpha = 0.1, beta = 0.01: tokens per wall second and the log joint after
   the same number of sweeps, for the one-process sweep and for P = 2 parts on a
   local Dask cluster of two single-threaded worker processes (one round per sweep:
   the driver sends each part the round's counts and merges what comes back).

Run: ``python -m bench.lda_dask --distance --throughput`` (needs ``pip install -e
'.[bench]'`` for the corpus).

Records: one per part count and seed (``measure: distance``) and per corpus and K
(``measure: throughput``) in ``bench/results/lda_dask/records.jsonl`` through
``bench.records`` (host, commit, date and command inside each; the run's settings
beside each row). ``table.md`` beside them is an earlier run's tables with their notes.
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings
from typing import NamedTuple

import numpy as np

import zoo
from bench import records
from bench.lda_contenders import reuters
from zoo.models.lda.corpus import Corpus
from zoo.models.lda.counts import State, build_state, log_joint
from zoo.models.lda.gibbs import counts_from_topics
from zoo.models.lda.gibbs import kernel as exact_kernel
from zoo.models.lda.sweeps import sweep


def part_bounds(doc_start: np.ndarray, parts: int) -> list[tuple[int, int, int, int]]:
    """``(token_lo, token_hi, doc_lo, doc_hi)`` of ``parts`` runs of whole documents.

    Split at the document boundaries nearest to equal token counts; a part may be
    empty when there are fewer documents than parts.
    """
    n_tokens = int(doc_start[-1])
    cuts = [0]
    for p in range(1, parts):
        target = n_tokens * p / parts
        doc = int(np.argmin(np.abs(doc_start - target)))
        cuts.append(max(doc, cuts[-1]))
    cuts.append(len(doc_start) - 1)
    return [(int(doc_start[a]), int(doc_start[b]), a, b) for a, b in itertools.pairwise(cuts)]


def merge(state: State, start_word, start_total, word_deltas, total_deltas) -> None:
    """``n <- n_start + sum_p (n_p - n_start)``, into ``state``'s count tables."""
    word = start_word.astype(np.int64) + sum(word_deltas)
    total = start_total + sum(total_deltas)
    state.word_topic[...] = word.astype(state.word_topic.dtype)
    state.topic_total[...] = total


def partitioned_kernel(parts: int) -> zoo.Kernel:
    """AD-LDA with ``parts`` parts, swept one after another: a ``zoo.Kernel`` for LDA.

    ``init`` and ``draw`` are the exact kernel's; ``step`` is one AD-LDA round.
    """

    def step(state, data, prior, rng):
        new = counts_from_topics(data, state.topic)
        hyper = prior.resolve(data)
        start_word, start_total = new.word_topic.copy(), new.topic_total.copy()
        word_deltas, total_deltas = [], []
        for lo, hi, _, _ in part_bounds(data.doc_start, parts):
            # The part's view: shared assignments and document counts (its own slice
            # only is written), private copies of the topic-word counts.
            local = State(new.topic, new.doc_topic, start_word.copy(), start_total.copy())
            sweep(data.corpus, local, hyper, rng, tokens=(lo, hi))
            word_deltas.append(local.word_topic.astype(np.int64) - start_word)
            total_deltas.append(local.topic_total - start_total)
        merge(new, start_word, start_total, word_deltas, total_deltas)
        return new

    return zoo.Kernel(init=exact_kernel.init, step=step, draw=exact_kernel.draw)


def _means_with_sds(frame):
    """The rows of an agreement table's posterior means, with the exact sd as ``reference_sd``."""
    means = frame[frame.statistic == "mean"].set_index(["variable", "element"])
    sds = frame[frame.statistic == "sd"].set_index(["variable", "element"])
    return means.join(
        sds[["reference"]].rename(columns={"reference": "reference_sd"}), how="inner"
    )


def _largest_errors(agreements) -> tuple[float, float]:
    """Over every problem: the largest |posterior mean error| in exact posterior sds, and
    the largest error of a tail probability (the chain's mass below an exact quantile)."""
    shift = tail = 0.0
    for agreement in agreements:
        frame = agreement.table.to_dataframe().reset_index()
        both = _means_with_sds(frame)
        if len(both):
            ratio = (both.estimate - both.reference).abs() / both.reference_sd
            shift = max(shift, float(ratio.max()))
        tails = frame[frame.statistic.str.startswith("P(x<=")]
        if len(tails):
            tail = max(tail, float((tails.estimate - tails.reference).abs().max()))
    return shift, tail


def _bias_beyond_noise(agreements) -> tuple[float, float]:
    """Over every problem's posterior means: the bias their Monte Carlo error cannot explain.

    For a mean with error ``e = estimate - reference`` and standard errors ``mcse`` (the
    chains') and ``reference_mcse``, ``E[e^2] = bias^2 + mcse^2 + reference_mcse^2``, so
    ``e^2 - mcse^2 - reference_mcse^2`` estimates ``bias^2`` without the noise. Returns the
    root of its mean over the means in exact posterior sds (0 when the mean is negative:
    no bias beyond the noise), and the mean of ``z^2`` (1 for an exact sampler). The first
    tells a larger bias from a smaller Monte Carlo error showing the same one, which the
    largest shift and |z| cannot.
    """
    squares, z_squares = [], []
    for agreement in agreements:
        both = _means_with_sds(agreement.table.to_dataframe().reset_index())
        noise = both.mcse**2 + both.reference_mcse.fillna(0.0) ** 2
        squares.extend(((both.estimate - both.reference) ** 2 - noise) / both.reference_sd**2)
        z_squares.extend(both.z.dropna() ** 2)
    rms = float(np.sqrt(max(np.mean(squares), 0.0))) if squares else float("nan")
    return rms, (float(np.mean(z_squares)) if z_squares else float("nan"))


def distance(parts_list, seeds, kernel_for=None, draws=None, on_row=None) -> list[dict]:
    """The exact check of a partitioned kernel on LDA's validation problems.

    ``kernel_for(parts)`` builds the kernel (default: this module's AD-LDA kernel;
    ``bench/lda_threaded.py`` passes the threaded ones); ``draws`` per chain (default:
    ``zoo validate``'s); ``on_row(row)``, if given, is called with each row as soon as
    it is measured.
    """
    budget = {} if draws is None else {"budgets": {"exact": {"draws": draws}}}
    kernel_for = kernel_for or partitioned_kernel
    from zoo.validation import validate

    rows = []
    for parts in parts_list:
        for seed in seeds:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                result = validate(
                    "lda", kernel=kernel_for(parts), checks=("exact",), seed=seed, **budget
                )
            (check,) = result.checks
            # The largest |z| over every tested quantity of every problem (gated ones too).
            worst = max(
                float(np.nanmax(np.abs(agreement.table["z"].values)))
                for agreement in check.details.values()
            )
            shift, tail = _largest_errors(check.details.values())
            bias, z_square = _bias_beyond_noise(check.details.values())
            rows.append(
                {
                    "parts": parts,
                    "seed": seed,
                    "draws": draws,
                    "verdict": check.verdict,
                    "max_abs_z": worst,
                    "max_mean_shift_sd": shift,
                    "max_tail_error": tail,
                    "rms_bias_sd": bias,
                    "mean_z_squared": z_square,
                    "failing": len([f for f in check.findings if f.verdict == "fail"]),
                }
            )
            print(rows[-1], flush=True)
            if on_row is not None:
                on_row(rows[-1])
    return rows


class PartState(NamedTuple):
    """What a worker holds for its part between rounds: its documents and their state."""

    corpus: Corpus
    topic: np.ndarray
    doc_topic: np.ndarray


def _part_start(corpus: Corpus, topic, doc_topic, bounds) -> PartState:
    """The part's documents as a corpus of their own, with their assignments and counts."""
    lo, hi, d_lo, d_hi = bounds
    doc_start = corpus.doc_start[d_lo : d_hi + 1] - corpus.doc_start[d_lo]
    own = Corpus(np.ascontiguousarray(corpus.token_word[lo:hi]), np.ascontiguousarray(doc_start))
    return PartState(own, topic[lo:hi].copy(), doc_topic[d_lo:d_hi].copy())


def _part_round(part: PartState, word_topic, topic_total, hyper, seed, sweeps_per_round=1):
    """One part's sweep against the round's counts: its new state and sparse count deltas.

    Runs on the worker that holds ``part`` (Dask keeps a task's result where it was made
    and runs the next task that needs it there). Only the changes to ``n_kw`` travel back,
    as (flat index, change) pairs, and ``n_k``'s.
    """
    state = State(part.topic.copy(), part.doc_topic.copy(), word_topic.copy(), topic_total.copy())
    sweep(part.corpus, state, hyper, np.random.default_rng(seed), sweeps=sweeps_per_round)
    delta = state.word_topic.astype(np.int32) - word_topic
    where = np.flatnonzero(delta)
    return (
        PartState(part.corpus, state.topic, state.doc_topic),
        (where, delta.ravel()[where], state.topic_total - topic_total),
    )


def synthetic_corpus(tokens: int, words: int, seed: int) -> Corpus:
    """Documents of 100 to 300 tokens, word ids Zipfian (exponent 1.07) over ``words``."""
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, words + 1)
    weights = ranks**-1.07
    lengths = rng.integers(100, 301, size=tokens // 100 + 1)
    lengths = lengths[: np.searchsorted(np.cumsum(lengths), tokens) + 1]
    lengths[-1] -= lengths.sum() - tokens
    doc_start = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=doc_start[1:])
    token_word = rng.choice(words, size=tokens, p=weights / weights.sum()).astype(np.int32)
    return Corpus(token_word, doc_start)


def throughput(
    topics_list, sweeps_timed: int, burn: int, seed: int, corpus_name: str, every: int = 1
):
    """Tokens per wall second: one process against P = 2 parts on two Dask workers.

    The parts synchronise every ``every`` sweeps (one round = ``every`` sweeps of each
    part); ``sweeps_timed`` and ``burn`` count sweeps and must be multiples of it.
    """
    import operator

    from dask.distributed import Client, LocalCluster

    if corpus_name == "reuters":
        bench_corpus = reuters()
        corpus = bench_corpus.corpus
        n_words = bench_corpus.n_words
    else:
        n_words = 50_000
        corpus = synthetic_corpus(int(float(corpus_name)), n_words, seed)
    n_tokens = corpus.token_word.shape[0]
    rows = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster:
        with Client(cluster) as client:
            for n_topics in topics_list:
                alpha = np.full(n_topics, 0.1)
                beta = np.full(n_words, 0.01)
                hyper = (alpha, beta, float(beta.sum()))
                rng = np.random.default_rng(seed)
                dtype = np.uint8 if n_topics <= 256 else np.uint16
                start = rng.integers(0, n_topics, n_tokens).astype(dtype)

                # One process: the zoo's sweep (compiled by the burn-in).
                state = build_state(corpus, start.copy(), n_topics=n_topics, n_words=n_words)
                sweep(corpus, state, hyper, rng, sweeps=burn)
                tick, cpu = time.perf_counter(), time.process_time()
                sweep(corpus, state, hyper, rng, sweeps=sweeps_timed)
                one, one_cpu = time.perf_counter() - tick, time.process_time() - cpu
                one_joint = log_joint(corpus, state.topic, alpha, beta)

                # Two parts, resident on two workers; one round per sweep.
                state = build_state(corpus, start.copy(), n_topics=n_topics, n_words=n_words)
                bounds = part_bounds(corpus.doc_start, 2)
                parts = [
                    client.submit(_part_start, corpus, state.topic, state.doc_topic, b)
                    for b in bounds
                ]
                word_topic, topic_total = state.word_topic.copy(), state.topic_total.copy()
                seeds = iter(np.random.SeedSequence(seed).spawn(2 * (burn + sweeps_timed)))

                def one_round(parts, hyper=hyper, seeds=seeds):
                    nonlocal word_topic, topic_total
                    shared = client.scatter([word_topic, topic_total], broadcast=True)
                    done = [
                        client.submit(
                            _part_round, part, *shared, hyper, next(seeds), every, pure=False
                        )
                        for part in parts
                    ]
                    deltas = client.gather(
                        [client.submit(operator.itemgetter(1), d) for d in done]
                    )
                    merged = word_topic.astype(np.int64).ravel()
                    for where, change, total in deltas:
                        merged[where] += change
                        topic_total = topic_total + total
                    word_topic = merged.reshape(word_topic.shape).astype(word_topic.dtype)
                    return [client.submit(operator.itemgetter(0), d) for d in done]

                for _ in range(burn // every):
                    parts = one_round(parts)
                tick = time.perf_counter()
                for _ in range(sweeps_timed // every):
                    parts = one_round(parts)
                two = time.perf_counter() - tick
                topic = np.concatenate([p.topic for p in client.gather(parts)])
                two_joint = log_joint(corpus, topic, alpha, beta)
                row = {
                    "corpus": corpus_name,
                    "tokens": n_tokens,
                    "topics": n_topics,
                    "sweeps_per_round": every,
                    "mtokens_per_s_one_process": n_tokens * sweeps_timed / one / 1e6,
                    "mtokens_per_cpu_s_one_process": n_tokens * sweeps_timed / one_cpu / 1e6,
                    "mtokens_per_s_dask_two_parts": n_tokens * sweeps_timed / two / 1e6,
                    "log_joint_one_process": one_joint,
                    "log_joint_dask_two_parts": two_joint,
                }
                rows.append(row)
                print(row, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--distance", action="store_true")
    parser.add_argument("--parts", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--throughput", action="store_true")
    parser.add_argument("--topics", type=int, nargs="+", default=[20, 100])
    parser.add_argument("--sweeps", type=int, default=20)
    parser.add_argument("--burn", type=int, default=20)
    parser.add_argument("--every", type=int, default=1, help="sweeps per round")
    parser.add_argument(
        "--corpus", default="reuters", help="reuters, or a token count for a synthetic corpus"
    )
    args = parser.parse_args()
    if args.distance:
        for row in distance(args.parts, range(args.seeds)):
            records.append("lda_dask", {"measure": "distance", **row})
    if args.throughput:
        rows = throughput(
            args.topics, args.sweeps, args.burn, seed=0, corpus_name=args.corpus, every=args.every
        )
        for row in rows:
            settings = {"sweeps": args.sweeps, "burn": args.burn}
            records.append("lda_dask", {"measure": "throughput", **settings, **row})


if __name__ == "__main__":
    main()
