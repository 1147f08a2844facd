"""How far the threaded LDA sweep is from the exact posterior (docs/scaling.md).

The threaded Metropolis-Hastings sweep (``zoo.models.lda.metropolis.metropolis_sweep``
with ``parts > 1``; ``zoo.models.lda.make_kernel(sampler="metropolis", parts=P)``)
splits documents and words into ``P x P`` blocks; each thread reads topic totals that
lag the other threads' moves within an epoch. This runs ``zoo validate``'s exact check
of that kernel on LDA's validation problems (tiny corpora whose posterior is
enumerated), per number of parts and seed, and reports the verdict, the failing
quantities, the largest mean shift in exact posterior sds and the largest tail error,
as ``bench/lda_dask.py --distance`` does for AD-LDA. One part is the exact serial
sampler: its row is the yardstick.

Run: ``python -m bench.lda_threaded [--parts 1 2 3] [--seeds 3] [--draws N]
[--out bench/results/lda_threaded.jsonl]`` (``--draws``: per chain, to resolve a bias
smaller than the default budget's noise).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.lda_dask import distance
from zoo.models.lda import make_kernel


def threaded_kernel(parts: int):
    """The Metropolis-Hastings kernel in ``parts`` x ``parts`` blocks."""
    return make_kernel(sampler="metropolis", parts=parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--draws", type=int, default=None, help="per chain (default: validate's)")
    parser.add_argument("--out", type=Path, default=Path("bench/results/lda_threaded.jsonl"))
    args = parser.parse_args()
    rows = distance(args.parts, range(args.seeds), kernel_for=threaded_kernel, draws=args.draws)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("a") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
