"""Posterior SBC's power on the bugs prior SBC misses, and its false alarms.

For each case (a model and a sampler: a correct one, or a planted bug that prior SBC
passes in the records of docs/power.md) and each seed, ``zoo.validate(model, ...,
checks=("posterior-sbc",), seed=s, workers=0)`` at the check's default budget (100
augmented data sets, 2 x 200 draws per fit, a reference run of 4 x 2,000 draws; alpha
0.01) on the model's first data set. One JSON line per run in
``bench/results/posterior_sbc_power/records.jsonl``: the verdict, the smallest Holm p,
the failing quantities, the CPU seconds of this process and of the processes it waited
for (PyMC's chains), the host and the commit.

    nice python -m bench.posterior_sbc_power --cases normal-no-prior --seeds 20
    nice python -m bench.posterior_sbc_power --cases all --seeds 20
    python -m bench.posterior_sbc_power --summary

Cases: the semi-conjugate normal of ``examples/semi_conjugate_normal.py`` (``correct``,
``no-prior``, ``squares-about-ybar``) and the probit regression of
``examples/probit_regression.py`` (``correct``, ``no-prior-precision``), each a user's
PyMC model and sampler (reference: NUTS); naive Bayes (``correct``, the catalogued
``normaliser-wrong-class`` and ``normaliser-dropped``) and LDA (``correct``,
``token-not-removed``, ``stale-doc-sum``), zoo models (reference: the zoo's Gibbs
kernel).
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import resource
import sys
import time
import warnings
from pathlib import Path

from bench import records as bench_records
from bench.host import cpu_name

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "posterior_sbc_power" / "records.jsonl"

#: case name: (model, sampler), a model as ``examples.NAME`` (a user's PyMC model) or a
#: zoo model's name; the sampler ``correct`` or a planted bug's name.
CASES = {
    "normal-correct": ("examples.semi_conjugate_normal", "correct"),
    "normal-no-prior": ("examples.semi_conjugate_normal", "no-prior"),
    "normal-squares-about-ybar": ("examples.semi_conjugate_normal", "squares-about-ybar"),
    "probit-correct": ("examples.probit_regression", "correct"),
    "probit-no-prior-precision": ("examples.probit_regression", "no-prior-precision"),
    "naive-bayes-correct": ("naive-bayes", "correct"),
    "naive-bayes-normaliser-wrong-class": ("naive-bayes", "normaliser-wrong-class"),
    "naive-bayes-normaliser-dropped": ("naive-bayes", "normaliser-dropped"),
    "lda-correct": ("lda", "correct"),
    "lda-token-not-removed": ("lda", "token-not-removed"),
    "lda-stale-doc-sum": ("lda", "stale-doc-sum"),
}


def _cpu() -> float:
    """CPU seconds of this process and of its waited-for children."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def one_run(case: str, seed: int) -> dict:
    """One posterior SBC run of ``case`` at ``seed``, as a JSON-ready record."""
    # deferred: the battery is imported after sys.path holds the repository's root
    from zoo.validation import validate

    where, sampler = CASES[case]
    if where.startswith("examples."):
        module = importlib.import_module(where)
        chosen = module.sampler if sampler == "correct" else module.BUG_SAMPLERS[sampler]
        arguments = {"model": module.model, "sampler": chosen}
    else:
        arguments = {"model": where, "fault": None if sampler == "correct" else sampler}
    started_cpu, started = _cpu(), time.perf_counter()
    result = validate(**arguments, checks=("posterior-sbc",), seed=seed, workers=0)
    (outcome,) = result.checks
    details = outcome.details
    judged = details is not None and len(details.p_adjusted)
    return {
        "case": case,
        "model": where,
        "sampler": sampler,
        "seed": seed,
        "verdict": outcome.verdict,
        "simulations": details.n_simulations if details is not None else 0,
        "quantities": len(details.quantities) if details is not None else 0,
        "min_p_adjusted": float(details.p_adjusted.min()) if judged else None,
        "failing": details.failing()[:10] if details is not None else [],
        "summary": outcome.summary[:400],
        "cpu_seconds": _cpu() - started_cpu,
        "wall_seconds": time.perf_counter() - started,
        "budget": result.settings["budgets"]["posterior-sbc"],
        "alpha": outcome.alpha,
        "host": cpu_name(),
        "commit": bench_records.provenance()["commit"],
    }


def summary(path: Path) -> str:
    """Markdown: per case, the verdicts over seeds and the median CPU seconds."""
    # deferred: scipy only for the table's intervals
    from scipy import stats

    records = [json.loads(line) for line in path.read_text().splitlines() if line]
    lines = [
        "| case | seeds | fail | pass | could not judge | fail rate (95% CI) | "
        "median CPU s | host |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for case in CASES:
        mine = [r for r in records if r["case"] == case]
        if not mine:
            continue
        count = {
            v: sum(r["verdict"] == v for r in mine) for v in ("fail", "pass", "could not judge")
        }
        judged = count["fail"] + count["pass"]
        interval = "-"
        if judged:
            ci = stats.binomtest(count["fail"], judged).proportion_ci(method="exact")
            interval = f"{count['fail'] / judged:.2f} ({ci.low:.2f}, {ci.high:.2f})"
        cpu = sorted(r["cpu_seconds"] for r in mine)[len(mine) // 2]
        hosts = ", ".join(sorted({r["host"] for r in mine}))
        lines.append(
            f"| {case} | {len(mine)} | {count['fail']} | {count['pass']} | "
            f"{count['could not judge']} | {interval} | {cpu:.1f} | {hosts} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="all", help=f"comma-separated of {', '.join(CASES)}")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--summary", action="store_true", help="print the table and stop")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary(RESULTS))
        return 0
    cases = list(CASES) if args.cases == "all" else args.cases.split(",")
    unknown = [case for case in cases if case not in CASES]
    if unknown:
        parser.error(f"--cases: unknown {unknown}; choose from {', '.join(CASES)}")
    sys.path.insert(0, str(ROOT))
    warnings.filterwarnings("ignore")
    logging.getLogger("pymc").setLevel(logging.ERROR)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if RESULTS.exists():
        done = {(r["case"], r["seed"]) for r in map(json.loads, RESULTS.read_text().splitlines())}
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for case in cases:
            if (case, seed) in done:
                continue
            record = one_run(case, seed)
            bench_records.append_to(RESULTS, record)
            print(json.dumps(record), flush=True)
    print(summary(RESULTS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
