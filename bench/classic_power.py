"""Power of the exact check on the classic examples, and the CPU cost of a default run.

Issue 29 item 8: every planted bug of the classic examples (``examples/``: linear
regression three ways, eight schools centred and non-centred, the pumps under BUGS's
hyperprior, the coal-mining change point, the two-component Gaussian mixture, the
Dirichlet-Multinomial, the semi-conjugate Normal of the midge wing lengths) must fail the
exact check in at least 19 of 20 seeds at the default budget, and every correct sampler
must pass. Each run here is exactly what a user types::

    zoo.validate(model, sampler=candidate, checks=["exact"], seed=seed, workers=0)

with the reference the zoo derives from the PyMC graph (``zoo.exact_reference``), the
exact check's default draws and chains, and the example's own sampler function (its
warm-up) or the bug's (``BUG_SAMPLERS``). One JSON line per run goes to
``bench/results/classic_power/<example>.jsonl``: example, candidate (``correct`` or the
bug's name), seed, verdict, the exact check's verdict and summary, CPU seconds
(``time.process_time`` of this process, where ``workers=0`` runs every fit), host and
git commit. Runs already recorded are skipped, so an interrupted study resumes (delete
an example's file to measure it afresh).

``--timing`` instead runs one default ``zoo validate`` (every check that applies, the
default budgets and workers; the correct kernel where the example has one, as
``zoo validate --model ... --kernel ...`` does) per classic model, seed 0, and records
the CPU seconds of this process and of its children (``resource.getrusage``) to
``bench/results/classic_power/timing.jsonl`` with each check's wall seconds.
``--summary`` prints the table of docs/power.md from the records.

Run from the repository root, under ``nice``::

    nice python -m bench.classic_power [--examples NAME ...] [--seeds 20]
    nice python -m bench.classic_power --timing [--examples NAME ...]
    python -m bench.classic_power --summary
"""

from __future__ import annotations

import argparse
import datetime
import json
import resource
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

import zoo
from bench import records as bench_records
from bench.host import cpu_name
from examples import (
    coal_mining,
    dirichlet_multinomial,
    eight_schools,
    gaussian_mixture,
    linear_regression,
    pump_failures,
    semi_conjugate_normal,
)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "results" / "classic_power"


def _examples() -> dict:
    """Slug -> harness.Example of every classic model (the pumps under BUGS's hyperprior)."""
    regression = dict(
        zip(
            ("regression-known-noise", "regression-nig", "regression-independent"),
            linear_regression.EXAMPLES,
            strict=True,
        )
    )
    schools = dict(
        zip(
            ("eight-schools-centred", "eight-schools-noncentred"),
            eight_schools.EXAMPLES,
            strict=True,
        )
    )
    bugs_pumps = next(e for e in pump_failures.EXAMPLES if e.model is pump_failures.bugs_model)
    return {
        **regression,
        **schools,
        "pumps-bugs-hyperprior": bugs_pumps,
        "coal-mining": coal_mining.EXAMPLES[0],
        "gaussian-mixture": gaussian_mixture.EXAMPLES[0],
        "dirichlet-multinomial": dirichlet_multinomial.EXAMPLES[0],
        "semi-conjugate-normal": semi_conjugate_normal.EXAMPLES[0],
    }


EXAMPLES = _examples()


def power(slugs, seeds: int, candidates=None, *, again: bool = False) -> None:
    """Every candidate of every example in ``slugs``, seeds ``0 .. seeds - 1``.

    Runs already recorded are skipped unless ``again`` (a change to the code they
    measured): the table counts the newest record of each run, the older stay.
    """
    commit, host = bench_records.provenance()["commit"], cpu_name()
    for slug in slugs:
        example = EXAMPLES[slug]
        path = OUT / f"{slug}.jsonl"
        done = (
            set()
            if again
            else {(r["candidate"], r["seed"]) for r in bench_records.read_file(path)}
        )
        every = {"correct": example.sampler, **example.bug_samplers}
        for name, sampler in every.items():
            if candidates and name not in candidates:
                continue
            for seed in range(seeds):
                if (name, seed) in done:
                    continue
                started = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = zoo.validate(
                        example.model, sampler=sampler, checks=["exact"], seed=seed, workers=0
                    )
                cpu = time.process_time() - started
                (check,) = result.checks
                record = {
                    "example": slug,
                    "model": f"{example.model.__module__}:{example.model.__name__}",
                    "candidate": name,
                    "seed": seed,
                    "verdict": result.verdict,
                    "exact": check.verdict,
                    "summary": check.summary,
                    "cpu_seconds": round(cpu, 3),
                    "host": host,
                    "commit": commit,
                    "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                }
                bench_records.append_to(path, record)
                print(f"{slug} {name} seed {seed}: {result.verdict} ({cpu:.1f} CPU s)", flush=True)


def _cpu_now() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timing(slugs) -> None:
    """One default ``zoo validate`` per example, seed 0, its CPU seconds recorded."""
    commit, host = bench_records.provenance()["commit"], cpu_name()
    for slug in slugs:
        example = EXAMPLES[slug]
        started, wall = _cpu_now(), time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = zoo.validate(example.model, kernel=example.kernel, seed=0)
        record = {
            "study": "default-run",
            "example": slug,
            "model": f"{example.model.__module__}:{example.model.__name__}",
            "candidate": "correct kernel",
            "seed": 0,
            "verdict": result.verdict,
            "checks": {
                c.name: {"verdict": c.verdict, "wall_seconds": round(c.seconds, 2)}
                for c in result.checks
            },
            "cpu_seconds": round(_cpu_now() - started, 2),
            "wall_seconds": round(time.perf_counter() - wall, 2),
            "host": host,
            "commit": commit,
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }
        bench_records.append_to(OUT / "timing.jsonl", record)
        print(json.dumps(record), flush=True)


def summary() -> str:
    """The power table (Markdown) from the newest record of each run."""
    lines = [
        "| example | candidate | exact FAIL / runs | PASS / runs | median CPU s | commit |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    for slug in EXAMPLES:
        latest = {}
        for record in bench_records.read_file(OUT / f"{slug}.jsonl"):
            latest[record["candidate"], record["seed"]] = record
        by_candidate = defaultdict(list)
        for (name, _), record in latest.items():
            by_candidate[name].append(record)
        for name, records in by_candidate.items():
            fails = sum(r["verdict"] == "fail" for r in records)
            passes = sum(r["verdict"] == "pass" for r in records)
            cpu = sorted(r["cpu_seconds"] for r in records)[len(records) // 2]
            commits = ", ".join(sorted({r["commit"][:7] for r in records}))
            lines.append(
                f"| {slug} | {name} | {fails} / {len(records)} | {passes} / {len(records)} "
                f"| {cpu:.1f} | {commits} |"
            )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", nargs="+", choices=list(EXAMPLES), default=list(EXAMPLES))
    parser.add_argument("--candidates", nargs="+", help="only these (correct, bug names)")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument(
        "--again", action="store_true", help="measure recorded runs again (newest counts)"
    )
    parser.add_argument("--timing", action="store_true")
    parser.add_argument("--summary", action="store_true")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        raise SystemExit("--seeds: must be >= 1")
    if args.summary:
        print(summary())
    elif args.timing:
        timing(args.examples)
    else:
        power(args.examples, args.seeds, args.candidates, again=args.again)
    return 0


if __name__ == "__main__":
    sys.exit(main())
