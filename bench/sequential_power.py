"""Power, false alarms and cost of ``zoo.testing.assert_valid`` (sequential, rate 1e-4).

For every zoo model, its correct kernel and every catalogued wrong kernel (``zoo list
--faults``) go through ``assert_valid`` once per seed, in this process (as under pytest);
each record holds the verdict, the stages run, the exact check's draws per chain summed
over them, the wall and CPU seconds, and the host and commit. ``--baseline`` records the
same for the fixed-budget battery at its default 1% (``zoo.validate``), the cost the
sequential design must not exceed for a correct sampler (docs/testing.md).

    python -m bench.sequential_power --models beta-binomial --seeds 20
    python -m bench.sequential_power --models beta-binomial --seeds 20 --baseline
    python -m bench.sequential_power --models gda --samplers correct --seeds 5
    python -m bench.sequential_power --summary

Records are appended to ``bench/results/sequential_power/records.jsonl`` as they arrive
(a rerun skips what is there).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings
from collections import defaultdict
from pathlib import Path

from scipy import stats

from bench.host import cpu_name, git_commit

RESULTS = Path(__file__).parent / "results" / "sequential_power" / "records.jsonl"


def _done(path: Path) -> set[tuple]:
    if not path.exists():
        return set()
    records = (json.loads(line) for line in path.read_text().splitlines())
    return {(r["mode"], r["model"], r["sampler"], r["seed"]) for r in records}


def run(
    models, seeds: int, path: Path, *, baseline: bool, budget: str, rate: float, only=None
) -> None:
    """Run every (model, sampler) once per seed, seed-major, skipping what is done."""
    # deferred: the battery imports PyMC, ArviZ and Dask (seconds); --summary needs none
    import zoo
    from zoo.testing import assert_valid

    mode = "fixed-1%" if baseline else f"sequential-{rate:g}-{budget}"
    done = _done(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    host, commit = cpu_name(), git_commit()
    cells = [(name, s) for name in models for s in ("correct", *zoo.get(name).faults)]
    if only is not None:
        cells = [(name, s) for name, s in cells if s in only]
    for seed in range(seeds):
        for name, sampler in cells:
            if (mode, name, sampler, seed) in done:
                continue
            fault = None if sampler == "correct" else sampler
            wall, cpu = time.perf_counter(), time.process_time()
            records = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                if baseline:
                    result = zoo.validate(name, fault=fault, seed=seed, workers=0)
                    verdict, stages = result.verdict, 1
                    draws = result.settings["budgets"]["exact"]["draws"]
                else:
                    try:
                        assert_valid(
                            name,
                            fault=fault,
                            seed=seed,
                            rate=rate,
                            budget=budget,
                            allow_inconclusive=True,
                            on_record=records.append,
                        )
                    except AssertionError:
                        pass
                    verdict = records[0].verdict
                    stages, draws = len(records[0].stages), records[0].draws
            record = {
                "mode": mode,
                "model": name,
                "sampler": sampler,
                "seed": seed,
                "verdict": verdict,
                "stages": stages,
                "draws_per_chain": draws,
                "seconds": time.perf_counter() - wall,
                "cpu_seconds": time.process_time() - cpu,
                "host": host,
                "commit": commit,
            }
            with path.open("a") as handle:
                handle.write(json.dumps(record) + "\n")
            print(f"{mode} {name} {sampler} seed {seed}: {verdict} in {stages} stage(s)")


def summary(path: Path) -> str:
    """Per mode, model and sampler: fails out of seeds (95% interval), stages, cost."""
    cells = defaultdict(list)
    for line in path.read_text().splitlines():
        record = json.loads(line)
        cells[(record["mode"], record["model"], record["sampler"])].append(record)
    rows = [
        "| mode | model | sampler | fails / seeds [95% CI] | inconclusive | median stages | "
        "median CPU s | hosts |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (mode, model, sampler), records in sorted(cells.items()):
        n = len(records)
        fails = sum(r["verdict"] == "fail" for r in records)
        low, high = stats.binomtest(fails, n).proportion_ci(0.95, method="exact")
        unjudged = sum(r["verdict"] == "inconclusive" for r in records)
        hosts = ", ".join(sorted({r["host"] for r in records}))
        rows.append(
            f"| {mode} | {model} | {sampler} | {fails}/{n} [{low:.2f}, {high:.2f}] | "
            f"{unjudged} | {statistics.median(r['stages'] for r in records):g} | "
            f"{statistics.median(r['cpu_seconds'] for r in records):.1f} | {hosts} |"
        )
    return "\n".join(rows)


def main(argv=None) -> int:
    """Command line: run, or print the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["beta-binomial"])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--budget", default="default")
    parser.add_argument("--rate", type=float, default=1e-4)
    parser.add_argument("--baseline", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--samplers", nargs="+", help="only these (correct, fault names)")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary(args.out))
        return 0
    run(
        args.models,
        args.seeds,
        args.out,
        baseline=args.baseline,
        budget=args.budget,
        rate=args.rate,
        only=args.samplers,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
