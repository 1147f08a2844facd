"""Measured power and false-alarm rate of ``zoo validate`` at its default budget.

For every model, the correct kernel and every catalogued wrong kernel (``zoo list
--faults``) go through ``zoo.validate`` once per seed; each check's verdict is recorded.
A bug counts as detected when the battery fails; a false alarm is a failing battery for
a correct kernel. The checks are independent given the seed, so they may be run in
separate invocations (``--checks``) and combined per seed in the summary: each check
runs at its share of the battery's rate as the default battery gives it (1% split over
the four checks ``zoo validate`` runs on a zoo model's kernel,
``zoo.validation.ZOO_DEFAULT_CHECKS``: 0.25% each), so the per-seed combination is
exactly the default battery's verdict. ``--alpha-per-check`` sets another rate: the
records of the extended catalogue and of the Gaussian classifiers were begun at 0.2%
(1% over the five checks the battery knows, ``nuts`` included, until this was fixed)
and are continued at that rate, so that no cell mixes two; a check that fails at 0.2%
fails at 0.25%, so their detection rates are lower bounds on the default battery's.

Records are appended as they arrive (rerunning skips what is there) to
``bench/results/validate_power/records.jsonl`` or the file ``--out`` names (a study's
folder ``bench/results/<study>/``), through ``bench.records``: host, commit, date and
command inside each. ``--summary FILE...`` prints a table of record files; the tables
in docs/power.md are written by ``python -m bench.tables``.

    python -m bench.validate_power --models beta-binomial naive-bayes --seeds 20
    python -m bench.validate_power --summary
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

from bench import records as bench_records
from zoo.core.defaults import ALPHA

RESULTS = bench_records.RESULTS / "validate_power" / "records.jsonl"


def batteries(paths) -> dict:
    """Records per (model, sampler): one ``{check: record}`` per seed, across files.

    Records of one (model, sampler, seed) from several files make one battery.
    """
    by_run = defaultdict(dict)
    for path in paths:
        for line in path.read_text().splitlines():
            record = json.loads(line)
            key = (record["model"], record["sampler"], record["seed"])
            by_run[key][record["check"]] = record
    groups = defaultdict(list)
    for (model, sampler, _), checks in by_run.items():
        groups[(model, sampler)].append(checks)
    return groups


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


def run(
    models,
    seeds,
    checks,
    path: Path,
    workers: int,
    samplers: str = "all",
    faults: tuple[str, ...] | None = None,
    first_seed: int = 0,
    alpha_per_check: float | None = None,
    kernel: str | None = None,
) -> None:
    """Validate every (model, sampler) once per seed, seed-major, skipping what is done.

    ``alpha_per_check``: each check's false-alarm rate (default: the default battery's
    share, ``ALPHA / len(ZOO_DEFAULT_CHECKS)``). ``kernel``: a ``module:attribute``
    location; its kernel stands in for the model's own as the "correct" sampler, and the
    records name it as the sampler.

    Seed-major order: an interrupted run leaves every cell with nearly the same number
    of seeds, so partial results are balanced (and resumable).
    """
    # deferred: the battery imports the diagnostics (seconds); --summary needs none of it
    import zoo
    from zoo.core.loading import load_object
    from zoo.validation import ZOO_DEFAULT_CHECKS, validate

    check_alpha = ALPHA / len(ZOO_DEFAULT_CHECKS) if alpha_per_check is None else alpha_per_check

    done = _done(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    cells = []
    for name in models:
        spec = zoo.get(name)
        correct = kernel or "correct"
        chosen = {"all": [correct, *spec.faults], "correct": [correct]}
        for sampler in chosen.get(samplers, list(spec.faults)):
            if faults is not None and sampler in spec.faults and sampler not in faults:
                continue
            cells.append((name, sampler))
    for seed in range(first_seed, seeds):
        for name, sampler in cells:
            todo = tuple(c for c in checks if (name, sampler, seed, c) not in done)
            if not todo:
                continue
            started = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                result = validate(
                    name,
                    fault=sampler if sampler in zoo.get(name).faults else None,
                    kernel=load_object(kernel, field="--kernel") if sampler == kernel else None,
                    checks=todo,
                    seed=seed,
                    workers=workers,
                    # validate splits alpha equally over the checks it runs.
                    alpha=check_alpha * len(todo),
                )
            seconds = time.perf_counter() - started
            for check in result.checks:
                bench_records.append_to(
                    path,
                    {
                        "model": name,
                        "sampler": sampler,
                        "seed": seed,
                        "check": check.name,
                        "verdict": check.verdict,
                        "alpha": check.alpha,
                        "seconds": check.seconds,
                        "run_seconds": seconds,
                        "failing": check.failing[:3],
                    },
                )
            print(
                f"{name:14s} {sampler:28s} seed {seed:3d} {result.verdict:12s} {seconds:6.1f} s",
                flush=True,
            )


def summary(*paths: Path) -> str:
    """Markdown table: detection (fault) or false-alarm (correct) rate per model and check.

    Records of one (model, sampler, seed) from several files are combined into one
    battery; ``alpha`` is each check's rate (0.0025 in the default battery; a check that
    passed at a larger rate also passes at a smaller one).
    """
    groups = batteries(paths)
    lines = [
        "| model | sampler | checks | alpha per check | seeds | battery fails | rate [95% CI] "
        "| per check (fail / inconclusive) | mean s per check |",
        "|---|---|---|---|---|---|---|---|---|",
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
        alphas = "/".join(
            f"{a:g}" for a in sorted({c["alpha"] for r in complete for c in r.values()})
        )
        lines.append(
            f"| {model} | {sampler} | {'+'.join(names)} | {alphas} | {n} | {fails} | "
            f"{fails / n:.2f} [{ci.low:.2f}, {ci.high:.2f}] | {per_check} | {seconds} |"
        )
    return "\n".join(lines)


def per_check(*paths: Path) -> str:
    """Markdown table: each check's own detection / false-alarm rate, seeds counted apart."""
    groups = defaultdict(list)
    for path in paths:
        for line in path.read_text().splitlines():
            record = json.loads(line)
            groups[(record["model"], record["sampler"], record["check"])].append(record)
    lines = [
        "| model | sampler | check | alpha | seeds | fail | rate [95% CI] | inconclusive "
        "| mean s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (model, sampler, check), records in sorted(groups.items()):
        n = len(records)
        fails = sum(r["verdict"] == "fail" for r in records)
        unsure = sum(r["verdict"] == "inconclusive" for r in records)
        ci = stats.binomtest(fails, n).proportion_ci(0.95, method="exact")
        rates = "/".join(f"{a:g}" for a in sorted({r["alpha"] for r in records}))
        seconds = sum(r["seconds"] for r in records) / n
        lines.append(
            f"| {model} | {sampler} | {check} | {rates} | {n} | {fails} | "
            f"{fails / n:.2f} [{ci.low:.2f}, {ci.high:.2f}] | {unsure} | {seconds:.0f} |"
        )
    return "\n".join(lines)


def fault_table(*paths: Path) -> str:
    """Markdown: per model and sampler, the battery's and each check's rate, seeds counted.

    A seed counts for the battery when its exact check ran; the bug is detected in that
    seed when any check recorded for it failed (a lower bound on the default battery's
    rate where some checks were not run), and a correct kernel's false alarm likewise.
    Each check's column is ``fails/seeds`` over the seeds that check ran.
    """
    import importlib

    groups = batteries(paths)
    rates: set[float] = set()
    columns = ["exact", "sbc", "geweke", "invariance"]
    lines = [
        "| model | sampler | kind | battery fails / seeds [95% CI] | "
        + " | ".join(columns)
        + " |",
        "|---|---|---|---|" + "---|" * len(columns),
    ]
    for (model, sampler), runs in sorted(
        groups.items(), key=lambda g: (g[0][0], g[0][1] != "correct" and ":" not in g[0][1])
    ):
        kinds = importlib.import_module(
            _FAULT_MODULES.get(model, f"zoo.models.{model.replace('-', '_')}.faults")
        ).KINDS
        with_exact = [run for run in runs if "exact" in run]
        n = len(with_exact)
        fails = sum(any(c["verdict"] == "fail" for c in run.values()) for run in with_exact)
        if n:
            ci = stats.binomtest(fails, n).proportion_ci(0.95, method="exact")
            battery = f"{fails}/{n} [{ci.low:.2f}, {ci.high:.2f}]"
        else:
            battery = "-"
        cells = []
        for check in columns:
            ran = [run[check] for run in runs if check in run]
            failed = sum(r["verdict"] == "fail" for r in ran)
            unsure = sum(r["verdict"] == "inconclusive" for r in ran)
            cells.append(
                f"{failed}/{len(ran)}" + (f" ({unsure} inc.)" if unsure else "") if ran else "-"
            )
        # "correct", or the location of a correct kernel run in its place (--kernel).
        kind = "-" if sampler == "correct" or ":" in sampler else kinds.get(sampler, "?")
        lines.append(f"| {model} | {sampler} | {kind} | {battery} | " + " | ".join(cells) + " |")
        rates.update(c["alpha"] for run in runs for c in run.values())
    said = ", ".join(f"{rate:g}" for rate in sorted(rates))
    lines.append("")
    lines.append(f"Rate per check in these records: {said}.")
    return "\n".join(lines)


#: Where a model's KINDS live when its package is not named after it (the Gaussian
#: classifiers are members of zoo.models.gaussian_classifiers).
_FAULT_MODULES = {
    "gda": "zoo.models.gaussian_classifiers.linear.faults",
    "qda": "zoo.models.gaussian_classifiers.quadratic.faults",
    "gaussian-nb": "zoo.models.gaussian_classifiers.diagonal.faults",
}


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
    parser.add_argument(
        "--faults",
        nargs="*",
        default=None,
        metavar="NAME",
        help="with --samplers faults or all: only these catalogued faults",
    )
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first-seed .. seeds-1")
    parser.add_argument(
        "--kernel",
        default=None,
        metavar="MODULE:ATTR",
        help="this kernel as the correct sampler (e.g. zoo.models.lda:metropolis_kernel)",
    )
    parser.add_argument(
        "--alpha-per-check",
        type=float,
        default=None,
        help="each check's rate (default: the default battery's share, 0.0025)",
    )
    parser.add_argument(
        "--summary",
        nargs="*",
        type=Path,
        default=None,
        metavar="FILE",
        help="print the table from these record files (default: --out) and stop",
    )
    parser.add_argument(
        "--per-check", action="store_true", help="with --summary: one row per check"
    )
    parser.add_argument(
        "--per-fault",
        action="store_true",
        help="with --summary: one row per sampler, a column per check, seeds counted",
    )
    args = parser.parse_args(argv)
    if args.summary is not None:
        paths = args.summary or [args.out]
        if args.per_fault:
            print(fault_table(*paths))
        else:
            print(per_check(*paths) if args.per_check else summary(*paths))
        return 0
    import zoo

    models = args.models or zoo.names()
    run(
        models,
        args.seeds,
        tuple(args.checks.split(",")),
        args.out,
        args.workers,
        args.samplers,
        None if args.faults is None else tuple(args.faults),
        args.first_seed,
        args.alpha_per_check,
        args.kernel,
    )
    print(summary(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
