"""False alarms of the correct kernels at the edge of the parameter space: tiny pseudo-counts.

For each model, small problems whose prior pseudo-counts go down to 1e-3 (posteriors
with quantiles far below 1e-12, and mass below the smallest double), validated by the
exact check of ``zoo validate`` with the zoo's own (correct) kernel, one run per seed.
A correct kernel must fail at most at the stated family-wise rate (1%); the records
go to ``bench/results/small_pseudocounts/records.jsonl`` (``--out`` another file) through
``bench.records`` (host, commit, date and command inside each), a rerun resumes them,
``--summary`` prints the table and ``python -m bench.tables`` writes it to ``table.md``.

Each record names the agreement rule it was judged by (``agreement_rule``): the records
without one were taken before the slow-mode rule of docs/design.md ("every test judged
at the slowest quantity's ESS"), which the LDA problems were then run again under.

Usage::

    python -m bench.small_pseudocounts --seeds 20
    python -m bench.small_pseudocounts --summary
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import zoo
from bench import records as bench_records
from zoo.models import beta_binomial, lda, naive_bayes
from zoo.models.gaussian_classifiers import linear as gda
from zoo.models.gaussian_classifiers.diagonal import DiagonalPrior
from zoo.models.gaussian_classifiers.quadratic import PerClassPrior


def problems() -> dict[str, list[tuple[str, object, object]]]:
    """Per model, (name, data, prior) of the small-pseudo-count problems."""
    counts = [[1, 2, 0], [0, 1, 3], [2, 0, 1], [1, 1, 1]]
    nb_data = naive_bayes.Data(counts, [0, 1, 0, -1])
    bb_data = beta_binomial.Data(successes=[0, 1, 3, 10], trials=[10, 12, 15, 10])
    corpus = [np.array([0, 1, 1]), np.array([2, 2, 0]), np.array([1, 2])]
    x = np.array([[0.1, 1.2], [0.4, 0.9], [1.9, -0.3], [2.2, 0.1], [1.0, 0.5], [0.3, 1.1]])
    gda_data = gda.Data(x, [0, 0, 1, 1, -1, 0])
    per_class_data = gda.Data(
        np.vstack([x, [[2.0, -0.2], [1.2, 0.7]]]), [0, 0, 1, 1, -1, 0, 1, -1]
    )
    return {
        "beta-binomial": [
            ("a=b=1e-3", bb_data, beta_binomial.Prior(a=1e-3, b=1e-3)),
            ("a=0.05,b=1e-3", bb_data, beta_binomial.Prior(a=0.05, b=1e-3)),
        ],
        "naive-bayes": [
            ("alpha=beta=0.05", nb_data, naive_bayes.Prior(alpha=0.05, beta=0.05)),
            ("alpha=beta=1e-3", nb_data, naive_bayes.Prior(alpha=1e-3, beta=1e-3)),
        ],
        "lda": [
            (
                "alpha=[0.05,0.5],beta=0.05",
                lda.Data(corpus, topics=2),
                lda.Prior(alpha=np.array([0.05, 0.5]), beta=0.05),
            ),
            ("alpha=beta=1e-3", lda.Data(corpus, topics=2), lda.Prior(alpha=1e-3, beta=1e-3)),
        ],
        "gda": [
            ("alpha=kappa0=1e-3", gda_data, gda.Prior(alpha=1e-3, kappa0=1e-3)),
        ],
        # A per-class covariance needs d + 1 = 3 labelled points per class.
        "qda": [
            ("alpha=kappa0=1e-3", per_class_data, PerClassPrior(alpha=1e-3, kappa0=1e-3)),
        ],
        "gaussian-nb": [
            ("alpha=kappa0=1e-3", per_class_data, DiagonalPrior(alpha=1e-3, kappa0=1e-3)),
        ],
    }


RESULTS = bench_records.RESULTS / "small_pseudocounts" / "records.jsonl"
#: The rule of zoo.diagnostics.agreement these records are judged by (docs/design.md).
RULE = "slow mode: every test judged at the slowest quantity's ESS (docs/design.md)"


def _done(path: Path) -> set[tuple]:
    rows = bench_records.read_file(path)
    return {(r["model"], r["problem"], r["seed"]) for r in rows if r.get("agreement_rule") == RULE}


def run(seeds: int, out: Path, models: list[str] | None) -> None:
    done = _done(out)
    for seed in range(seeds):
        for model, cases in problems().items():
            if models and model not in models:
                continue
            for name, data, prior in cases:
                if (model, name, seed) in done:
                    continue
                start = time.perf_counter()
                result = zoo.validate(
                    model, problems=[(name, data, prior)], checks=("exact",), workers=0, seed=seed
                )
                outcome = result.checks[0]
                record = {
                    "model": model,
                    "problem": name,
                    "seed": seed,
                    "verdict": result.verdict,
                    "findings": [f.describe() for f in outcome.findings][:5],
                    "seconds": time.perf_counter() - start,
                    "agreement_rule": RULE,
                }
                print(f"{model:14} {name:28} seed {seed:3} {result.verdict}", flush=True)
                bench_records.append_to(out, record)


def summary(records: list[dict]) -> str:
    """Markdown: verdicts per model, problem and agreement rule, seeds counted."""
    rows: dict[tuple, list[str]] = {}
    for r in records:
        rule = "slow mode" if r.get("agreement_rule") == RULE else "before it"
        rows.setdefault((r["model"], r["problem"], rule), []).append(r["verdict"])
    lines = [
        "| model | problem | agreement rule | seeds | pass | fail | inconclusive |",
        "|---|---|---|---|---|---|---|",
    ]
    for (model, name, rule), verdicts in sorted(rows.items()):
        lines.append(
            f"| {model} | {name} | {rule} | {len(verdicts)} | {verdicts.count('pass')}"
            f" | {verdicts.count('fail')} | {verdicts.count('inconclusive')} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--models", nargs="*")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--summary", action="store_true", help="print the table and stop")
    args = parser.parse_args()
    if args.summary:
        print(summary(bench_records.read_file(args.out)))
        return
    run(args.seeds, args.out, args.models)


if __name__ == "__main__":
    main()
