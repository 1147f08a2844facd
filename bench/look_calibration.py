"""False alarms of one look of ``zoo.testing.assert_valid``: each check on a correct kernel.

A sequential validation at ``rate=1e-4`` fails a correct sampler at most at that rate
*if* each of its looks (one check of one stage at its share of the stage's rate) fails
a correct sampler at most at its own level (``zoo.testing.sequential``, the union bound).
A look's level is far below what seeds can show (about 1e-6 for a check of the first
stage, 1e-7 to 1e-9 for each of its single tests after Holm), so this measures the two
things seeds can show, for the zoo's correct Gibbs kernels at the first stage's budget
(``zoo.testing.assertion.stage_budgets(budget, FIRST)``), one check per run
(``zoo.validate(..., checks=(CHECK,), workers=0)``), once per seed:

- the look's evidence: the smallest rate at which the check would fail
  (``zoo.testing.sequential.evidence``: its smallest Holm-adjusted p-value, times the
  data sets it splits its rate over). A look at level ``a`` fails a correct sampler in
  the share of runs whose evidence is at most ``a``: measured at 25%, 5% and 1%;
- every single test's unadjusted p-value, pooled over the runs: how many are at most
  0.01, 1e-3, 1e-4 and 1e-5 against how many a valid p-value allows, the tail the look's
  level rests on, followed as far down as the pooled count of tests can show it.

    nice python -m bench.look_calibration --checks exact invariance --seeds 100
    nice python -m bench.look_calibration --checks exact --models naive-bayes gda --seeds 40
    python -m bench.look_calibration --summary

Records are appended to ``bench/results/look_calibration/records.jsonl`` through
``bench.records`` (host, commit, date and command inside each; a rerun skips what is
there); ``python -m bench.tables`` writes their table to ``table.md`` beside them.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy import stats

from bench import records as bench_records

RESULTS = bench_records.RESULTS / "look_calibration" / "records.jsonl"
#: Single-test levels whose pooled counts are kept per run.
TAILS = (0.01, 1e-3, 1e-4, 1e-5)
#: Look levels at which the share of runs failing is shown.
LEVELS = (0.25, 0.05, 0.01)


def _p_values(details) -> np.ndarray:
    """Every single test's unadjusted p-value of one check's results (finite ones)."""
    results = details.values() if isinstance(details, dict) else [details]
    values = [
        np.asarray(result.table["p"].values, dtype=float).ravel()
        for result in results
        if "p" in getattr(getattr(result, "table", None), "data_vars", ())
    ]
    values = np.concatenate(values) if values else np.empty(0)
    return values[np.isfinite(values)]


def one_run(model: str, check: str, seed: int, budget: str) -> dict:
    """One check of the first stage on ``model``'s correct kernel: evidence and p-values."""
    # deferred: the battery imports PyMC, ArviZ and Dask (seconds); --summary needs none
    import zoo
    from zoo.testing.assertion import stage_budgets
    from zoo.testing.sequential import FIRST, evidence

    cpu = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = zoo.validate(
            model,
            checks=(check,),
            seed=seed,
            workers=0,
            budgets={check: stage_budgets(budget, FIRST)[check]},
        )
    (outcome,) = result.checks
    p = _p_values(outcome.details)
    return {
        "verdict": outcome.verdict,
        "evidence": evidence(result),
        "tests": int(p.size),
        "smallest_p": float(p.min()) if p.size else 1.0,
        "tails": {f"{u:g}": int((p <= u).sum()) for u in TAILS},
        "cpu_seconds": time.process_time() - cpu,
    }


def run(models, checks, seeds: int, path: Path, *, budget: str, first_seed: int = 0) -> None:
    """Every (model, check) once per seed, seed-major, skipping what is done."""
    mode = f"first-stage-{budget}"
    done = set()
    if path.exists():
        for line in path.read_text().splitlines():
            r = json.loads(line)
            done.add((r["mode"], r["model"], r["check"], r["seed"]))
    for seed in range(first_seed, seeds):
        for model in models:
            for check in checks:
                if (mode, model, check, seed) in done:
                    continue
                outcome = one_run(model, check, seed, budget)
                record = {"mode": mode, "model": model, "check": check, "seed": seed, **outcome}
                bench_records.append_to(path, record)
                print(
                    f"{model} {check} seed {seed}: {outcome['verdict']}, evidence "
                    f"{outcome['evidence']:.3g}, {outcome['tests']} tests, smallest p "
                    f"{outcome['smallest_p']:.2g}, {outcome['cpu_seconds']:.1f} CPU s",
                    flush=True,
                )


def _share(k: int, n: int) -> str:
    """``k/n [low, high]``: a count with the exact (Clopper-Pearson) 95% interval."""
    low, high = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
    return f"{k}/{n} [{low:.3f}, {high:.3f}]"


def _tail(k: int, n: int, u: float) -> str:
    """Observed single p-values at most ``u``, the expected count, and the exact 95%
    interval of the count's mean (Poisson), for ``n`` valid p-values."""
    low = 0.0 if k == 0 else stats.chi2.ppf(0.025, 2 * k) / 2
    high = stats.chi2.ppf(0.975, 2 * k + 2) / 2
    return f"{k} ({n * u:.3g}) [{low:.3g}, {high:.3g}]"


def summary(records: list[dict]) -> str:
    """Per mode, model and check: the look's fails at each level, the pooled tails."""
    cells = defaultdict(list)
    for record in records:
        cells[(record["mode"], record["model"], record["check"])].append(record)
    head = (
        "| mode | model | check | runs | look fails at "
        + " / ".join(f"{a:g}" for a in LEVELS)
        + " [95% CP] | single tests | single p <= "
        + " / ".join(f"{u:g}" for u in TAILS)
        + ": observed (valid at most) [95% CI of its mean] | median CPU s |"
    )
    rows = [head, "|---|---|---|---|---|---|---|---|"]
    for (mode, model, check), group in sorted(cells.items()):
        n = len(group)
        looks = "; ".join(_share(sum(r["evidence"] <= a for r in group), n) for a in LEVELS)
        tests = sum(r["tests"] for r in group)
        tails = "; ".join(_tail(sum(r["tails"][f"{u:g}"] for r in group), tests, u) for u in TAILS)
        cpu = float(np.median([r["cpu_seconds"] for r in group]))
        rows.append(
            f"| {mode} | {model} | {check} | {n} | {looks} | {tests} | {tails} | {cpu:.1f} |"
        )
    return "\n".join(rows)


def main(argv=None) -> int:
    """Command line: run, or print the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["beta-binomial"])
    parser.add_argument("--checks", nargs="+", default=["exact", "invariance"])
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--budget", default="default")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--summary", action="store_true")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary(bench_records.read_file(args.out)))
        return 0
    run(
        args.models,
        args.checks,
        args.seeds,
        args.out,
        budget=args.budget,
        first_seed=args.first_seed,
    )
    print(summary(bench_records.read_file(args.out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
