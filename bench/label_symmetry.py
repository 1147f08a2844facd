"""The exchangeable two-component mixture through ``zoo validate``'s default battery.

``examples/gaussian_mixture.py``'s ``exchangeable_model`` (twelve points, both means
``Normal(0, 1)``, ``w ~ Beta(2, 2)``): its components are exchangeable, the zoo finds
that in the graph and every check compares label-invariant quantities
(``docs/design.md``, "Label symmetry"). Before, the correct collapsed Gibbs kernel failed
SBC on the raw ``mu`` and ``z`` (label switching). For each seed and kernel (the correct
one and each of ``EXCHANGEABLE_BUG_KERNELS``), ``zoo.validate(model, kernel=...,
seed=s)`` at the default settings; one JSON line per run with the verdict, each check's
verdict and summary, the host, the commit and the CPU seconds of this process and its
worker processes. ``--raw`` runs with ``exchangeable=False`` (the behaviour before).

    nice python -m bench.label_symmetry --seeds 3
    nice python -m bench.label_symmetry --seeds 1 --kernels noise-sd-as-variance
    nice python -m bench.label_symmetry --seeds 1 --raw
    python -m bench.label_symmetry --summary
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import time
import warnings
from pathlib import Path

from bench import records as bench_records
from bench.host import cpu_name

RESULTS = Path(__file__).parent / "results" / "label_symmetry" / "records.jsonl"


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def one_run(kernel_name: str, seed: int, *, raw: bool, workers: int) -> dict:
    """One default battery of ``kernel_name`` at ``seed``, as a JSON-ready record."""
    # deferred: the example imports the zoo, which is only needed when a run starts
    from examples import gaussian_mixture as example
    from zoo.validation import validate

    kernel = (
        example.exchangeable_kernel
        if kernel_name == "correct"
        else example.EXCHANGEABLE_BUG_KERNELS[kernel_name]
    )
    started, cpu = time.perf_counter(), _cpu_seconds()
    result = validate(
        example.exchangeable_model,
        kernel=kernel,
        seed=seed,
        workers=workers,
        exchangeable=False if raw else None,
    )
    return {
        "kernel": kernel_name,
        "seed": seed,
        "raw": raw,
        "verdict": result.verdict,
        "checks": {c.name: c.verdict for c in result.checks},
        "summaries": {c.name: c.summary for c in result.checks},
        "cpu_seconds": round(_cpu_seconds() - cpu, 1),
        "wall_seconds": round(time.perf_counter() - started, 1),
        "host": cpu_name(),
        "commit": bench_records.provenance()["commit"],
    }


def summary(path: Path) -> str:
    """Markdown: per kernel and mode, the verdicts over seeds and the CPU seconds."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line]
    lines = [
        "| kernel | compared | seeds | PASS | FAIL | INCONCLUSIVE | checks (seed: verdicts) "
        "| CPU s per run |",
        "|---|---|---|---|---|---|---|---|",
    ]
    keys = dict.fromkeys((r["kernel"], r["raw"]) for r in records)
    for kernel, raw in keys:
        mine = [r for r in records if (r["kernel"], r["raw"]) == (kernel, raw)]
        count = {
            v: sum(r["verdict"].upper() == v for r in mine)
            for v in ("PASS", "FAIL", "INCONCLUSIVE")
        }
        checks = "; ".join(
            f"{r['seed']}: " + ", ".join(f"{k} {v}" for k, v in r["checks"].items()) for r in mine
        )
        lines.append(
            f"| {kernel} | {'raw' if raw else 'invariants'} | {len(mine)} | {count['PASS']} | "
            f"{count['FAIL']} | {count['INCONCLUSIVE']} | {checks} | "
            f"{sum(r['cpu_seconds'] for r in mine) / len(mine):.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument(
        "--kernels",
        default="correct",
        help="comma-separated: correct and/or names of EXCHANGEABLE_BUG_KERNELS",
    )
    parser.add_argument("--raw", action="store_true", help="exchangeable=False: raw variables")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--summary", action="store_true", help="print the table and stop")
    args = parser.parse_args()
    if args.summary:
        print(summary(RESULTS))
        return
    warnings.filterwarnings("ignore")
    logging.getLogger("pymc").setLevel(logging.ERROR)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    for kernel in args.kernels.split(","):
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            record = one_run(kernel, seed, raw=args.raw, workers=args.workers)
            bench_records.append_to(RESULTS, record)
            print(json.dumps({k: v for k, v in record.items() if k != "summaries"}), flush=True)
    print(summary(RESULTS))


if __name__ == "__main__":
    main()
