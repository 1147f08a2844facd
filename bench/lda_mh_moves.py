"""How far a sweep moves the topics: the zoo's Gibbs sweep against its Metropolis-Hastings sweep.

Why the Metropolis-Hastings sweep needs more sweeps than the Gibbs sweep to reach the
same log joint (``docs/performance.md, "LDA"``): a token's topic moves only when a
proposal is accepted. This counts, per sweep, the share of tokens whose topic changed,
for the Gibbs sweep and the Metropolis-Hastings sweep at 1, 2 (the default) and 4
cycles per token, each from its own random start (the contenders of
``bench/lda_contenders.py``, the same seed), after ``--burn`` sweeps. At equilibrium the
Gibbs sweep's share is the probability that a draw from a token's conditional differs
from its current topic; a kernel that moves a smaller share per sweep needs more
sweeps to forget where it was.

Run from the repository root::

    python -m bench.lda_mh_moves --topics 100 1000 --burn 200 --sweeps 20

Records: one per K and contender in ``bench/results/lda_mh_moves/records.jsonl`` (the
share moved in every sweep) through ``bench.records`` (host, commit, date and command
inside each).
"""

from __future__ import annotations

import argparse

import numpy as np

from bench import records
from bench.lda_contenders import CONTENDERS, load_corpus

NAMES = ("zoo", "zoo-mh-c1", "zoo-mh", "zoo-mh-c4")


def moved_shares(contender, n_sweeps: int) -> list[float]:
    """The share of tokens whose topic changed in each of ``n_sweeps`` sweeps."""
    shares = []
    for _ in range(n_sweeps):
        before = contender.assignments()[1].copy()
        contender.run(1)
        shares.append(float(np.mean(contender.assignments()[1] != before)))
    return shares


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("reuters", "zipf"), default="reuters")
    parser.add_argument("--topics", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--burn", type=int, default=200)
    parser.add_argument("--sweeps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    corpus = load_corpus(args.corpus)
    print(f"| K | sweeps after {args.burn} | " + " | ".join(NAMES) + " |")
    print("|---" * (len(NAMES) + 2) + "|")
    for n_topics in args.topics:
        cells = []
        for name in NAMES:
            contender = CONTENDERS[name](corpus, n_topics, args.seed)
            contender.run(args.burn)
            shares = moved_shares(contender, args.sweeps)
            log_joint = contender.log_joint()
            cells.append(f"{np.mean(shares):.3f} (log p {log_joint:.0f})")
            records.append(
                "lda_mh_moves",
                {
                    "corpus": args.corpus,
                    "topics": n_topics,
                    "contender": name,
                    "burn": args.burn,
                    "seed": args.seed,
                    "moved_shares": shares,
                    "log_joint": log_joint,
                },
            )
        print(f"| {n_topics} | {args.sweeps} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
