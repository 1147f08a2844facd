"""Power and false alarms of ``zoo validate --model`` on the three models outside the zoo.

For each example of ``examples/`` written as a user's PyMC model (pump failures,
semi-conjugate normal, Albert-Chib probit), the correct kernel and every planted bug
(``BUG_KERNELS``) go through ``zoo.validate(module.model, kernel=...)`` once per seed
and check at the default budget. A kernel gets the checks nuts, sbc, geweke and
invariance (none of the three models is conjugate, so there is no exact check); each
runs at its share of the battery's rate, 1% / 4, exactly as the default battery runs
it, and each draws from its own random streams, so running the checks one at a time
and combining them per seed gives the default battery's verdict. A bug counts as
detected when the battery fails; a false alarm is a failing battery for a correct
kernel.

Jobs run in ``--processes`` worker processes (each fit inside them in-process); records
are appended as they arrive to ``bench/results/v0.2/own_models_power.jsonl`` (``--results``
another file) through ``bench.records`` (host, commit, date and command inside each), and
a rerun skips what is there. ``python -m bench.tables`` writes the table beside them
(``own_models_power.md``).

    python -m bench.own_models_power --seeds 20 --processes 2
    python -m bench.own_models_power --summary
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import multiprocessing
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

from scipy import stats

from bench import records as bench_records

ROOT = Path(__file__).resolve().parents[1]
RESULTS = bench_records.RESULTS / "v0.2" / "own_models_power.jsonl"
EXAMPLES = ("pump_failures", "semi_conjugate_normal", "probit_regression")
CHECKS = ("nuts", "sbc", "geweke", "invariance")


def _module(example: str):
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module(f"examples.{example}")


def _job(job: tuple) -> dict:
    example, sampler, seed, check = job
    warnings.filterwarnings("ignore")
    logging.getLogger("pymc").setLevel(logging.ERROR)
    # deferred: each worker process imports the battery once
    from zoo.core.defaults import ALPHA
    from zoo.validation import validate

    module = _module(example)
    kernel = module.kernel if sampler == "correct" else module.BUG_KERNELS[sampler]
    started = time.perf_counter()
    result = validate(
        module.model,
        kernel=kernel,
        checks=(check,),
        seed=seed,
        alpha=ALPHA / len(CHECKS),
        workers=0,
    )
    (outcome,) = result.checks
    return {
        "example": example,
        "sampler": sampler,
        "seed": seed,
        "check": check,
        "verdict": outcome.verdict,
        "failing": outcome.failing[:3],
        "summary": outcome.summary[:300],
        "seconds": time.perf_counter() - started,
    }


def _done(path: Path) -> set[tuple]:
    if not path.exists():
        return set()
    keys = set()
    for line in path.read_text().splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        keys.add((r["example"], r["sampler"], r["seed"], r["check"]))
    return keys


def run(examples, seeds: int, checks, processes: int, path: Path) -> None:
    jobs = []
    for example in examples:
        module = _module(example)
        for sampler in ("correct", *module.BUG_KERNELS):
            for seed in range(seeds):
                for check in checks:
                    jobs.append((example, sampler, seed, check))
    done = _done(path)
    # Seed by seed across every example and sampler, so that a study cut short holds
    # the same seeds for all of them.
    jobs = sorted((job for job in jobs if job not in done), key=lambda job: job[2])
    print(f"{len(jobs)} jobs to run", file=sys.stderr)
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes, maxtasksperchild=50) as pool:
        for count, record in enumerate(pool.imap_unordered(_job, jobs), 1):
            bench_records.append_to(path, record)
            print(
                f"[{count}/{len(jobs)}] {record['example']} {record['sampler']} "
                f"seed {record['seed']} {record['check']}: {record['verdict']} "
                f"({record['seconds']:.1f} s)",
                file=sys.stderr,
            )


def _interval(k: int, n: int) -> str:
    """Clopper-Pearson 95% interval of a binomial proportion."""
    low = 0.0 if k == 0 else stats.beta.ppf(0.025, k, n - k + 1)
    high = 1.0 if k == n else stats.beta.ppf(0.975, k + 1, n - k)
    return f"[{low:.2f}, {high:.2f}]"


def summary(path: Path) -> str:
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    by_run = defaultdict(dict)
    seconds = defaultdict(list)
    for r in records:
        by_run[(r["example"], r["sampler"], r["seed"])][r["check"]] = r["verdict"]
        seconds[(r["example"], r["check"])].append(r["seconds"])
    rows = defaultdict(lambda: {"n": 0, "battery": 0, "inconclusive": 0, **{c: 0 for c in CHECKS}})
    judged = defaultdict(int)
    for (example, sampler, _seed), verdicts in by_run.items():
        row = rows[(example, sampler)]
        # A seed counts towards the battery once its cheaper three checks have run;
        # Geweke (the slowest) adds its verdict where it has run too, and its own
        # column says on how many seeds.
        if not {"nuts", "sbc", "invariance"} <= set(verdicts):
            continue
        row["n"] += 1
        row["battery"] += any(v == "fail" for v in verdicts.values())
        row["inconclusive"] += any(v == "inconclusive" for v in verdicts.values())
        for check, verdict in verdicts.items():
            row[check] += verdict == "fail"
            judged[(example, sampler, check)] += 1
    lines = [
        "| example | sampler | battery fails | " + " | ".join(CHECKS) + " | inconclusive |",
        "|---|---|---|" + "---|" * len(CHECKS) + "---|",
    ]
    for (example, sampler), row in sorted(
        rows.items(), key=lambda kv: (kv[0][0], kv[0][1] != "correct", kv[0][1])
    ):
        n = row["n"]
        lines.append(
            f"| {example} | {sampler} | {row['battery']}/{n} {_interval(row['battery'], n)} | "
            + " | ".join(f"{row[c]}/{judged[(example, sampler, c)]}" for c in CHECKS)
            + f" | {row['inconclusive']}/{n} |"
        )
    lines.append("")
    lines.append("Median seconds per check run (in-process, one of two processes on 2 cores):")
    lines.append("")
    for (example, check), values in sorted(seconds.items()):
        values = sorted(values)
        lines.append(f"- {example} {check}: {values[len(values) // 2]:.1f} s")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", nargs="+", default=list(EXAMPLES))
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--checks", nargs="+", default=list(CHECKS))
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--summary", action="store_true")
    args = parser.parse_args()
    if not args.summary:
        run(args.examples, args.seeds, args.checks, args.processes, args.results)
    print(summary(args.results))


if __name__ == "__main__":
    main()
