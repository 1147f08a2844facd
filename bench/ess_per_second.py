"""ESS per second of each engine on a model's default problem.

Usage::

    python -m bench.ess_per_second beta-binomial --draws 1000 --chains 4 --repeats 3

For each engine: wall time of ``zoo.sample`` (PyMC: also its own sampling time, i.e.
without compilation and start-up), and the smallest bulk and tail ESS over the
elements of each variable, divided by the wall time. Both engines run in the same
process, one after the other, so the ratio is what to read.

Records: one per engine and run in ``bench/results/ess_per_second/records.jsonl`` (every
repeat's wall and sampler seconds and ESS rates) through ``bench.records`` (host, commit,
date and command inside each). ``beta_binomial.txt`` beside them is an earlier run's
printed output.
"""

from __future__ import annotations

import argparse
import time

import arviz_stats as azs
import numpy as np

import zoo
from bench import records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    spec = zoo.get(args.model)
    data, prior = spec.default_problem()
    names = list(spec.variables(prior))
    # Warm-up run per engine (numba compilation, PyTensor compilation) not timed.
    for engine in ("gibbs", "pymc"):
        zoo.sample(
            spec, data, prior, engine=engine, draws=50, tune=50, chains=2, seed=0, progress=False
        )
    print(
        f"{spec.name}: {args.draws} draws x {args.chains} chains after {args.tune} tuning, "
        f"{args.repeats} repeats (median)"
    )
    header = f"{'engine':6s} {'wall s':>8s} {'sampler s':>10s} " + " ".join(
        f"{n[:18]:>18s}" for n in names
    )
    print(header + "    (min bulk ESS / wall s)")
    for engine in ("gibbs", "pymc"):
        walls, sampler, rates = [], [], []
        for repeat in range(args.repeats):
            started = time.perf_counter()
            tree = zoo.sample(
                spec,
                data,
                prior,
                engine=engine,
                draws=args.draws,
                tune=args.tune,
                chains=args.chains,
                seed=repeat + 1,
                progress=False,
            )
            wall = time.perf_counter() - started
            walls.append(wall)
            sampler.append(float(tree["posterior"].attrs.get("sampling_time", wall)))
            row = []
            for name in names:
                values = tree["posterior"][name].values
                values = values.reshape(values.shape[0], values.shape[1], -1)
                row.append(float(np.min(azs.ess(values, method="bulk"))) / wall)
            rates.append(row)
        rate = np.median(np.array(rates), axis=0)
        records.append(
            "ess_per_second",
            {
                "model": spec.name,
                "engine": engine,
                "draws": args.draws,
                "tune": args.tune,
                "chains": args.chains,
                "wall_seconds": walls,
                "sampler_seconds": sampler,
                "min_bulk_ess_per_wall_second": [
                    dict(zip(names, row, strict=True)) for row in rates
                ],
            },
        )
        print(
            f"{engine:6s} {np.median(walls):8.2f} {np.median(sampler):10.2f} "
            + " ".join(f"{r:18.0f}" for r in rate)
        )


if __name__ == "__main__":
    main()
