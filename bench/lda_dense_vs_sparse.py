"""The exact LDA sweep's two kernels on the same states: dense against SparseLDA.

``sweep(..., method="auto")`` takes the sparse kernel from 4 topics up. How much each
costs depends on how many topics a word and a document touch, which falls as a chain
burns in. This runs ``--burn`` sparse sweeps from random topics, then times one sweep of
each kernel from copies of that state (``--rounds`` times, medians, million tokens per
CPU second).

    python -m bench.lda_dense_vs_sparse --corpus zipf --burn 3 --topics 20 100
    python -m bench.lda_dense_vs_sparse --corpus reuters --burn 3 --topics 5 20 100

Records: one per corpus and K in ``bench/results/lda_dense_vs_sparse/records.jsonl``
(every round's rate) through ``bench.records`` (host, commit, date and command inside
each). Earlier figures are in the note of the run ``lda_speed_zipf_epyc`` of
``bench/results/lda_speed/tables.md``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench import records
from bench.lda_contenders import Zoo, reuters, zipf_corpus
from zoo.models.lda import counts, sweeps


def timed_sweep(zoo: Zoo, method: str, seed: int) -> float:
    """Million tokens per CPU second of one sweep of ``method`` from a copy of the state."""
    state = counts.State(*(array.copy() for array in zoo.state))
    lists = sweeps.build_word_lists(state.word_topic) if method == "sparse" else None
    rng = np.random.default_rng(seed)
    started = time.process_time()
    sweeps.sweep(zoo.corpus, state, zoo.hyper, rng, word_lists=lists, method=method)
    return zoo.corpus.token_word.size / (time.process_time() - started) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("reuters", "zipf"), default="zipf")
    parser.add_argument("--topics", type=int, nargs="+", default=[20, 100])
    parser.add_argument("--burn", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    corpus = zipf_corpus() if args.corpus == "zipf" else reuters()
    for n_topics in args.topics:
        zoo = Zoo(corpus, n_topics, 0)
        zoo.run(args.burn)
        timed_sweep(zoo, "dense", 0)  # loads (or compiles) the dense kernel untimed
        speeds = {"sparse": [], "dense": []}
        for seed in range(args.rounds):
            for method in speeds:
                speeds[method].append(timed_sweep(zoo, method, seed))
        medians = {method: round(float(np.median(v)), 2) for method, v in speeds.items()}
        records.append(
            "lda_dense_vs_sparse",
            {
                "corpus": args.corpus,
                "topics": n_topics,
                "burn": args.burn,
                "mtokens_per_cpu_second": speeds,
            },
        )
        print(f"{args.corpus} K={n_topics} after {args.burn} sweeps: {medians}", flush=True)


if __name__ == "__main__":
    main()
