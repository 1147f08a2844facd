"""False alarms of the correct kernels at the edge of the parameter space: tiny pseudo-counts.

For each model, small problems whose prior pseudo-counts go down to 1e-3 (posteriors
with quantiles far below 1e-12, and mass below the smallest double), validated by the
exact check of ``zoo validate`` with the zoo's own (correct) kernel, one run per seed.
A correct kernel must fail at most at the stated family-wise rate (1%); the records
append to a JSON-lines file that a rerun resumes, and ``--summary`` prints the table.

Usage::

    python bench/small_pseudocounts.py --seeds 20 --out bench/results/small_pseudocounts.jsonl
    python bench/small_pseudocounts.py --summary bench/results/small_pseudocounts.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import zoo
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


def _done(path: Path | None) -> set[tuple]:
    if path is None or not path.exists():
        return set()
    rows = (json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return {(r["model"], r["problem"], r["seed"]) for r in rows}


def run(seeds: int, out: Path | None, models: list[str] | None) -> None:
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
                }
                print(f"{model:14} {name:28} seed {seed:3} {result.verdict}", flush=True)
                if out is not None:
                    with out.open("a") as handle:
                        handle.write(json.dumps(record) + "\n")


def summary(paths: list[Path]) -> str:
    rows: dict[tuple, list[str]] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                rows.setdefault((r["model"], r["problem"]), []).append(r["verdict"])
    lines = [
        "| model | problem | seeds | pass | fail | inconclusive |",
        "|---|---|---|---|---|---|",
    ]
    for (model, name), verdicts in sorted(rows.items()):
        lines.append(
            f"| {model} | {name} | {len(verdicts)} | {verdicts.count('pass')}"
            f" | {verdicts.count('fail')} | {verdicts.count('inconclusive')} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--models", nargs="*")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--summary", nargs="*", type=Path)
    args = parser.parse_args()
    if args.summary is not None:
        print(summary(args.summary or [args.out]))
        return
    run(args.seeds, args.out, args.models)


if __name__ == "__main__":
    main()
