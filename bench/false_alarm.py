"""Measured false-alarm and detection rates of ``zoo.diagnostics.agreement``.

For each seed, sample a model's default problem (or a simulated one) with the correct
kernel and with each deliberately wrong kernel, test against the exact posterior, and
count the verdicts. The false-alarm rate of the correct sampler must be at most the
stated family-wise rate (1%); wrong samplers must be flagged.

Usage::

    python -m bench.false_alarm beta-binomial --seeds 200 --engine gibbs
    python -m bench.false_alarm beta-binomial --seeds 60 --engine pymc --no-faults

Results go to standard output as a table and, one JSON line per run, to
``bench/results/false_alarm/records.jsonl`` (``--out`` another file) through
``bench.records`` (host, commit, date and command inside each); a later call resumes
from the runs of the same model and engine already there.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from scipy import stats

import zoo
from bench import records as bench_records
from zoo.diagnostics import agreement

RESULTS = bench_records.RESULTS / "false_alarm" / "records.jsonl"


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
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    spec = zoo.get(args.model)
    data, prior = spec.default_problem()
    reference = spec.posterior(data, prior)
    kernels = {"correct": None}
    if not args.no_faults and args.engine == "gibbs":
        kernels.update(spec.faults)
    # The study's file holds both engines (and may hold other models): resume the same.
    mine = [
        r
        for r in bench_records.read_file(args.out)
        if r["model"] == spec.name and r["engine"] == args.engine
    ]
    done = {(r["kernel"], r["seed"]) for r in mine}
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
            bench_records.append_to(args.out, record)
            done.add((name, seed))
    print(
        f"{spec.name}, engine {args.engine}, {args.draws} draws x {args.chains} chains, "
        f"alpha {args.alpha}, {time.perf_counter() - started:.0f} s"
    )
    records = {}
    for record in bench_records.read_file(args.out):
        if record["model"] == spec.name and record["engine"] == args.engine:
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


if __name__ == "__main__":
    main()
