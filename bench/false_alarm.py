"""Measured false-alarm and detection rates of ``zoo.diagnostics.agreement``.

For each seed, sample a model's default problem (or a simulated one) with the correct
kernel and with each deliberately wrong kernel, test against the exact posterior, and
count the verdicts. The false-alarm rate of the correct sampler must be at most the
stated family-wise rate (1%); wrong samplers must be flagged.

Usage::

    python bench/false_alarm.py beta-binomial --seeds 200 --engine gibbs
    python bench/false_alarm.py beta-binomial --seeds 30 --engine pymc --no-faults

Results go to standard output as a table and, with ``--out``, as JSON lines (one per
run) that a later call with the same ``--out`` resumes from.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy import stats

import zoo
from zoo.diagnostics import agreement


def clopper_pearson(successes: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    tail = (1 - level) / 2
    lower = stats.beta.ppf(tail, successes, trials - successes + 1) if successes else 0.0
    upper = (
        stats.beta.ppf(1 - tail, successes + 1, trials - successes) if successes < trials else 1.0
    )
    return float(lower), float(upper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--engine", choices=("gibbs", "pymc"), default="gibbs")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--alpha", type=float, default=0.01)
    parser.add_argument("--no-faults", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    spec = zoo.get(args.model)
    data, prior = spec.default_problem()
    reference = spec.posterior(data, prior)
    kernels = {"correct": None}
    if not args.no_faults and args.engine == "gibbs":
        kernels.update(spec.faults)
    done = set()
    if args.out and args.out.exists():
        for line in args.out.read_text().splitlines():
            record = json.loads(line)
            done.add((record["kernel"], record["seed"]))
    started = time.perf_counter()
    for seed in range(args.seeds):
        for name, kernel in kernels.items():
            if (name, seed) in done:
                continue
            tick = time.perf_counter()
            tree = zoo.sample(
                spec,
                data,
                prior,
                engine=args.engine,
                draws=args.draws,
                tune=args.tune,
                chains=args.chains,
                seed=seed,
                kernel=kernel,
                progress=False,
            )
            result = agreement(tree, reference, alpha=args.alpha)
            record = {
                "model": spec.name,
                "engine": args.engine,
                "kernel": name,
                "seed": seed,
                "verdict": result.verdict,
                "min_p_adjusted": float(np.nanmin(result.table.p_adjusted.values)),
                "failing": [q["element"] for q in result.failing()],
                "seconds": time.perf_counter() - tick,
            }
            if args.out:
                with args.out.open("a") as handle:
                    handle.write(json.dumps(record) + "\n")
            done.add((name, seed))
            _summaries.setdefault(name, []).append(record)
    print(
        f"{spec.name}, engine {args.engine}, {args.draws} draws x {args.chains} chains, "
        f"alpha {args.alpha}, {time.perf_counter() - started:.0f} s"
    )
    records = _summaries
    if args.out and args.out.exists():
        records = {}
        for line in args.out.read_text().splitlines():
            record = json.loads(line)
            if record["engine"] == args.engine:
                records.setdefault(record["kernel"], []).append(record)
    print(f"{'kernel':24s} {'runs':>5s} {'disagree':>9s} {'inconcl.':>9s} {'rate':>7s}  95% CI")
    for name, rows in records.items():
        flagged = sum(r["verdict"] == "disagree" for r in rows)
        unsure = sum(r["verdict"] == "inconclusive" for r in rows)
        low, high = clopper_pearson(flagged, len(rows))
        print(
            f"{name:24s} {len(rows):5d} {flagged:9d} {unsure:9d} {flagged / len(rows):7.3f}  "
            f"[{low:.3f}, {high:.3f}]"
        )


_summaries: dict[str, list] = {}

if __name__ == "__main__":
    main()
