"""The exact LDA sweep with and without prefetching the words ahead, on the same states.

``sweep`` prefetches the rows of the words ahead (``zoo.models.lda.sweeps``,
"Prefetching"); ``sweeps._sparse_kernel(fault, prefetch=False)`` is the same kernel
without the hints. This runs ``--burn`` sweeps from random topics, then times one
sparse sweep from copies of that state with each compiled variant (``--rounds`` times,
alternating, the same generator seed for both, its uniforms stepped inline as
``sweeps.sweep`` draws them: ``timed_sweep``), checks that both leave the same state bit
for bit, and prints the medians in million tokens per CPU second and their ratio.

    python -m bench.lda_prefetch --corpus zipf --burn 30 --topics 20 100
    python -m bench.lda_prefetch --corpus reuters --burn 30 --topics 20 100 1000 10000

Records: one per corpus and K in ``bench/results/lda_prefetch/records.jsonl`` (every
round's rate) through ``bench.records`` (host, commit, date and command inside each).
``table.md`` beside them is an earlier run's table with its notes.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench import records
from bench.host import cpu_name
from bench.lda_contenders import CORPORA, Zoo, load_corpus
from zoo.models.lda import counts, sweeps
from zoo.models.lda.uniforms import uniform_source

#: How :func:`timed_sweep` draws the sweep's uniforms, as each paired bench's records say
#: (``uniforms``): PCG64 stepped inline, as ``sweeps.sweep`` draws them. Records without
#: the field timed the kernel compiled for the Generator's portable path.
UNIFORMS = "pcg64-inline"

KERNELS = {
    prefetch: sweeps._sparse_kernel(int(sweeps.Fault.NONE), prefetch) for prefetch in (False, True)
}


def timed_sweep(zoo: Zoo, kernel, seed: int) -> tuple[float, counts.State]:
    """Million tokens per CPU second of one sweep of a compiled sparse ``kernel`` from a
    copy of ``zoo``'s state, and the state it leaves."""
    state = counts.State(*(array.copy() for array in zoo.state))
    lists = sweeps.WordLists(*sweeps.build_word_lists(state.word_topic))
    alpha, beta, beta_sum = zoo.hyper
    n_tokens = zoo.corpus.token_word.size
    # The uniforms as ``sweeps.sweep`` draws them (PCG64 stepped inline): the kernel a
    # user runs. Handed the Generator itself, numba compiles the portable path, an opaque
    # call per uniform, whose timings need not follow the production kernel's (records
    # before 2026-11-27 were timed that way).
    with uniform_source(np.random.default_rng(seed)) as source:
        started = time.process_time()
        kernel(zoo.corpus, state, (alpha, beta, float(beta_sum)), lists, 0, n_tokens, 1, source)
        elapsed = time.process_time() - started
    return n_tokens / elapsed / 1e6, state


def paired_speeds(zoo: Zoo, kernels: dict, rounds: int, change: str) -> dict:
    """Every round's rate of each of two same-draw ``kernels`` (keys False, True).

    Each round times one sweep of each from copies of the same state with the same
    generator seed, alternating, and stops the study (naming ``change``) unless both
    leave the same state bit for bit. Both are loaded (or compiled) untimed first.
    """
    n_topics = zoo.state.topic_total.shape[0]
    for kernel in kernels.values():
        timed_sweep(zoo, kernel, 0)
    speeds = {False: [], True: []}
    for seed in range(rounds):
        before, before_state = timed_sweep(zoo, kernels[False], seed)
        after, after_state = timed_sweep(zoo, kernels[True], seed)
        if not all(np.array_equal(a, b) for a, b in zip(before_state, after_state, strict=True)):
            raise SystemExit(f"K={n_topics} seed {seed}: {change} changed the draws")
        speeds[False].append(before)
        speeds[True].append(after)
    return speeds


def paired_study(description: str, *, burn: int, rounds: int, options=None):
    """The command line of a paired-sweep study, and a burnt-in sampler per K.

    Parses ``--corpus``, ``--topics``, ``--burn`` (default ``burn``) and ``--rounds``
    (default ``rounds``), and whatever ``options(parser)`` adds; prints the study's
    header and returns ``(args, started)``, ``started`` yielding ``(K, Zoo)`` after
    ``--burn`` sweeps from seed 0.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--corpus", choices=CORPORA, default="zipf")
    parser.add_argument("--topics", type=int, nargs="+", default=[20, 100])
    parser.add_argument("--burn", type=int, default=burn)
    parser.add_argument("--rounds", type=int, default=rounds)
    if options is not None:
        options(parser)
    args = parser.parse_args()
    corpus = load_corpus(args.corpus)
    print(f"# {args.corpus}, CPU {cpu_name()}, burn {args.burn}, rounds {args.rounds}")

    def started():
        for n_topics in args.topics:
            zoo = Zoo(corpus, n_topics, 0)
            zoo.run(args.burn)
            yield n_topics, zoo

    return args, started()


def main() -> None:
    args, started = paired_study(__doc__.splitlines()[0], burn=30, rounds=5)
    for n_topics, zoo in started:
        table_bytes = zoo.state.word_topic.nbytes + zoo.hyper[1].nbytes
        table_bytes += sum(a.nbytes for a in zoo.aux)
        speeds = paired_speeds(zoo, KERNELS, args.rounds, "prefetching")
        plain, ahead = (float(np.median(speeds[p])) for p in (False, True))
        records.append(
            "lda_prefetch",
            {
                "corpus": args.corpus,
                "topics": n_topics,
                "burn": args.burn,
                "word_table_bytes": table_bytes,
                "uniforms": UNIFORMS,
                "mtokens_per_cpu_second": {"without": speeds[False], "with": speeds[True]},
            },
        )
        print(
            f"{args.corpus} K={n_topics}: word tables {table_bytes / 2**20:.1f} MiB; "
            f"Mtok/CPU s without {plain:.2f}, with {ahead:.2f}, ratio "
            f"{ahead / plain:.2f}; same draws",
            flush=True,
        )


if __name__ == "__main__":
    main()
