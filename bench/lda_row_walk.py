"""The exact LDA sweep with and without its row walk, on the same states.

The sparse sweep walks the whole row of counts of a word that holds most topics rather
than its list of nonzero topics (``zoo.models.lda.sweeps``, "Row walk"); the same
products, summed in blocks of topics rather than in one running sum, so the draws are
the same except where a uniform falls within rounding of a boundary.
``sweeps._sparse_kernel(fault, True, sweeps.ROW_WALK_NEVER)`` is the kernel that walks
every list. This runs ``--burn`` sweeps from random topics, then times one sweep from
copies of that state with each kernel (``--rounds`` times, alternating, the same
generator seed for both), stops unless both leave the same state bit for bit (a
difference would almost surely be a mistake, not rounding), and prints the medians in million
tokens per CPU second, their ratio, and the share of tokens whose word is walked by row.

    python -m bench.lda_row_walk --corpus zipf --burn 10 --topics 20 100
    python -m bench.lda_row_walk --corpus reuters --burn 30 --topics 20 100 1000

Records: one per corpus and K in ``bench/results/lda_row_walk/records.jsonl`` (every
round's rate) through ``bench.records`` (host, commit, date and command inside each).
"""

from __future__ import annotations

import numpy as np

from bench import records
from bench.lda_contenders import Zoo
from bench.lda_prefetch import UNIFORMS, paired_speeds, paired_study
from zoo.models.lda import sweeps

KERNELS = {
    row_walk: sweeps._sparse_kernel(
        int(sweeps.Fault.NONE),
        True,
        sweeps.ROW_WALK_EIGHTHS if row_walk else sweeps.ROW_WALK_NEVER,
    )
    for row_walk in (False, True)
}


def row_walk_share(zoo: Zoo) -> float:
    """The share of tokens whose word holds enough topics to be walked by row."""
    n_topics = zoo.state.topic_total.shape[0]
    nnz = np.count_nonzero(zoo.state.word_topic, axis=1)
    by_row = sweeps.walks_row(nnz, n_topics, sweeps.ROW_WALK_EIGHTHS)
    return float(by_row[zoo.corpus.token_word].mean())


def record_pair(
    study: str,
    args,
    n_topics: int,
    zoo: Zoo,
    kernels: dict,
    *,
    change: str,
    names: tuple[str, str],
    labels: tuple[str, str],
    extra=None,
) -> None:
    """Time ``kernels`` (False: before, True: after) in pairs on ``zoo``, record and print.

    ``names`` are the two keys of the record's ``mtokens_per_cpu_second``, ``labels``
    the printed names of the two; ``extra`` fields lead the record.
    """
    share = row_walk_share(zoo)
    speeds = paired_speeds(zoo, kernels, args.rounds, change)
    before, after = (float(np.median(speeds[k])) for k in (False, True))
    records.append(
        study,
        {
            **(extra or {}),
            "corpus": args.corpus,
            "topics": n_topics,
            "burn": args.burn,
            "row_walk_eighths": sweeps.ROW_WALK_EIGHTHS,
            "uniforms": UNIFORMS,
            "tokens_walked_by_row": share,
            "mtokens_per_cpu_second": {names[0]: speeds[False], names[1]: speeds[True]},
        },
    )
    print(
        f"{args.corpus} K={n_topics}: {share:.0%} of tokens walked by row; Mtok/CPU s "
        f"{labels[0]} {before:.2f}, {labels[1]} {after:.2f}, ratio {after / before:.2f}; "
        "same draws",
        flush=True,
    )


def main() -> None:
    args, started = paired_study(__doc__.splitlines()[0], burn=10, rounds=3)
    for n_topics, zoo in started:
        record_pair(
            "lda_row_walk",
            args,
            n_topics,
            zoo,
            KERNELS,
            change="the row walk",
            names=("lists", "row_walk"),
            labels=("lists only", "row walk"),
        )


if __name__ == "__main__":
    main()
