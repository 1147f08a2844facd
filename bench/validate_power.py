"""Measured power and false-alarm rate of ``zoo validate`` at its default budget.

For every model, the correct kernel and every catalogued wrong kernel (``zoo list
--faults``) go through ``zoo.validate`` once per seed; each check's verdict is recorded.
A bug counts as detected when the battery fails; a false alarm is a failing battery for
a correct kernel. The checks are independent given the seed, so they may be run in
separate invocations (``--checks``) and combined per seed in the summary.

Results are appended to a JSON-lines file as they arrive (rerunning skips what is
there); ``--summary`` prints the table from that file.

    python bench/validate_power.py --models beta-binomial naive-bayes --seeds 20
    python bench/validate_power.py --summary
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

from scipy import stats

RESULTS = Path(__file__).parent / "results" / "validate_power.jsonl"


def _done(path: Path) -> set[tuple]:
    if not path.exists():
        return set()
    keys = set()
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        keys.add((record["model"], record["sampler"], record["seed"], record["check"]))
    return keys


def run(models, seeds, checks, path: Path, workers: int, samplers: str = "all") -> None:
    import zoo
    from zoo.validation import validate

    done = _done(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for name in models:
        spec = zoo.get(name)
        chosen = {"all": ["correct", *spec.faults], "correct": ["correct"]}
        for sampler in chosen.get(samplers, list(spec.faults)):
            for seed in range(seeds):
                todo = tuple(c for c in checks if (name, sampler, seed, c) not in done)
                if not todo:
                    continue
                started = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    result = validate(
                        name,
                        fault=None if sampler == "correct" else sampler,
                        checks=todo,
                        seed=seed,
                        workers=workers,
                    )
                seconds = time.perf_counter() - started
                with path.open("a") as handle:
                    for check in result.checks:
                        record = {
                            "model": name,
                            "sampler": sampler,
                            "seed": seed,
                            "check": check.name,
                            "verdict": check.verdict,
                            "alpha": check.alpha,
                            "seconds": check.seconds,
                            "run_seconds": seconds,
                            "failing": check.failing[:3],
                        }
                        handle.write(json.dumps(record) + "\n")
                print(
                    f"{name:14s} {sampler:28s} seed {seed:3d} {result.verdict:12s} "
                    f"{seconds:6.1f} s",
                    flush=True,
                )


def summary(path: Path) -> str:
    """Markdown table: detection (fault) or false-alarm (correct) rate per model and check."""
    by_run = defaultdict(dict)
    for line in path.read_text().splitlines():
        record = json.loads(line)
        by_run[(record["model"], record["sampler"], record["seed"])][record["check"]] = record
    groups = defaultdict(list)
    for (model, sampler, _), checks in by_run.items():
        groups[(model, sampler)].append(checks)
    lines = [
        "| model | sampler | checks | seeds | battery fails | rate [95% CI] | per check "
        "(fail / inconclusive) | mean s per check |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (model, sampler), runs in sorted(groups.items()):
        names = sorted({c for run in runs for c in run})
        complete = [run for run in runs if set(run) == set(names)]
        fails = sum(any(c["verdict"] == "fail" for c in run.values()) for run in complete)
        n = len(complete)
        if n == 0:
            continue
        ci = stats.binomtest(fails, n).proportion_ci(0.95, method="exact")
        per_check = ", ".join(
            f"{c} {sum(r[c]['verdict'] == 'fail' for r in complete)}"
            f"/{sum(r[c]['verdict'] == 'inconclusive' for r in complete)}"
            for c in names
        )
        seconds = ", ".join(f"{c} {sum(r[c]['seconds'] for r in complete) / n:.0f}" for c in names)
        lines.append(
            f"| {model} | {sampler} | {'+'.join(names)} | {n} | {fails} | "
            f"{fails / n:.2f} [{ci.low:.2f}, {ci.high:.2f}] | {per_check} | {seconds} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=None)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--checks", default="exact,sbc")
    parser.add_argument("--workers", type=int, default=0, help="0: fits in this process")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--samplers",
        choices=("all", "correct", "faults"),
        default="all",
        help="the correct kernel, the catalogued faults, or both",
    )
    parser.add_argument("--summary", action="store_true")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary(args.out))
        return 0
    import zoo

    models = args.models or zoo.names()
    run(models, args.seeds, tuple(args.checks.split(",")), args.out, args.workers, args.samplers)
    print(summary(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
