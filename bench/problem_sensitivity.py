"""How far each catalogued fault moves each validation problem's posterior.

For every model, every validation problem (``model.validation_problems()``) and every
sampler (the correct kernel as a control, then each catalogued fault), long Gibbs runs
(4 chains of ``--draws`` draws after ``--tune`` sweeps) are compared with the exact
posterior, quantity by quantity (every element of every comparable variable): the
shift of the posterior mean in units of the exact posterior sd,
``(mean_fault - mean_exact) / sd_exact``, with its Monte Carlo standard error
(ArviZ's MCSE of the mean over ``sd_exact``), and the log ratio of the sds,
``log(sd_fault / sd_exact)``. A quantity whose exact mean does not exist (NaN, the
heavy-tailed ``a`` and ``b`` of the BDA3 hyperprior) is skipped; one whose exact mean
is known but not its sd (GDA's class probabilities) is measured in units of the run's
own sd. The Kolmogorov distance ``sup |ECDF - CDF_exact|`` is recorded where the exact
marginal has a CDF.

Each problem's docstring says which part of a derivation it is built to expose; the
faults of that part are its *relevant* faults (:data:`RELEVANT`). A problem is
sensitive to what its name says when its relevant faults move it: largest ``|shift|``
of at least :data:`SENSITIVE` posterior sds, or an sd off by as much in log ratio. At
the exact check's default budget (4,000 draws; effective sizes of 2,000 or more for
most quantities of these problems) a shift of 0.1 sd is a z-score of 4.5 or more,
beyond the Holm threshold at 0.25% over a hundred quantities (about 4.2). The metric
sees stationary shifts only: a fault that makes chains stick (``document-not-removed``
on the digits) is caught by the R-hat and ESS gates instead.

Records go to ``bench/results/catalogue/problem_sensitivity.jsonl`` through
``bench.records`` (host, commit, date and command inside each; resumable: a rerun skips
the (model, problem, sampler) cells already there); ``--summary`` prints the table, and
``python -m bench.tables`` writes ``problem_sensitivity.md`` beside the records.

    python -m bench.problem_sensitivity --draws 2500
    python -m bench.problem_sensitivity --summary
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np

from bench import records as bench_records

RESULTS = bench_records.RESULTS / "catalogue" / "problem_sensitivity.jsonl"

#: The opening of the generated ``problem_sensitivity.md`` (``bench/tables.py``).
HEADER = (
    "# Problem sensitivity: shift of each validation problem's posterior per fault\n\n"
    "Records: `problem_sensitivity.jsonl`, then the cells re-measured with the "
    "Kolmogorov distance and mean-only quantities in `problem_sensitivity_ks.jsonl` "
    "(bench/README.md has the commands).\n\n"
)

#: A shift (in exact posterior sds) or |log sd ratio| at least this large counts.
SENSITIVE = 0.1
#: So does a Kolmogorov distance to the exact marginal at least this large.
SENSITIVE_KS = 0.05

#: Per model and problem, the faults of the part of a derivation the problem's name and
#: docstring say it tests (models/<model>/problems.py).
RELEVANT = {
    "beta-binomial": {
        "six-groups-truncated (replaced)": ["truncation-ignored"],
        "rats-hierarchical": ["jacobian-omitted", "slice-level-uniform"],
        "informative-fixed": ["swapped-a-b", "failures-as-trials", "theta-conditional-mean"],
        "overdispersed-truncated": ["truncation-ignored"],
    },
    "naive-bayes": {
        "unbalanced-asymmetric (replaced)": [
            "alpha-minus-one",
            "total-not-decremented",
            "normaliser-dropped",
        ],
        "digits": ["normaliser-wrong-class", "weights-not-normalised", "document-not-removed"],
        "unbalanced-asymmetric": [
            "alpha-minus-one",
            "total-not-decremented",
            "normaliser-dropped",
        ],
        "bernoulli": ["normaliser-dropped", "normaliser-wrong-class"],
    },
    "gda": {
        "iris": ["sample-covariance", "mu-scale-as-variance"],
        "unbalanced-informative": [
            "probability-at-mean",
            "nu-off-by-one",
            "kappa-not-updated",
            "sample-covariance",
            "gap-term-dropped",
            "scatter-not-downdated",
        ],
    },
    "lda": {
        "bank": ["token-not-removed", "added-back-under-old-topic", "theta-point-estimate"],
        "symmetric-three-topics": ["token-not-removed", "added-back-under-old-topic"],
        "asymmetric-beta-four-topics": [
            "beta-not-times-V",
            "alpha-as-mean",
            "stale-doc-sum",
            "stale-smoothing-sum",
        ],
    },
}


def replaced_problems(model: str) -> list[tuple]:
    """Problems replaced in 0.3 because they were not sensitive, measured for the record.

    Each is ``(name, data, prior, samplers)``: only the samplers that show why.
    """
    if model == "beta-binomial":
        from zoo.models.beta_binomial import Data, Prior

        return [
            (
                "six-groups-truncated (replaced)",
                Data([1, 4, 2, 7, 3, 9], [12, 15, 10, 14, 9, 20]),
                Prior(min_concentration=1.0),
                ["correct", "truncation-ignored"],
            )
        ]
    if model == "naive-bayes":
        from zoo.models.labelings import MISSING as m
        from zoo.models.naive_bayes import Data, Prior

        counts = [[5, 1, 0, 2], [4, 2, 1, 0], [6, 0, 1, 1], [0, 3, 4, 1], [1, 2, 5, 0]]
        counts += [[0, 0, 2, 6], [1, 1, 0, 5], [3, 1, 2, 1], [1, 2, 3, 2], [0, 1, 2, 4]]
        counts += [[4, 1, 0, 1], [2, 2, 2, 2]]
        return [
            (
                "unbalanced-asymmetric (replaced)",
                Data(np.array(counts), [0, 0, 0, 1, 1, 2, 2, m, m, m, m, m], classes=3),
                Prior(alpha=[4.0, 2.0, 1.0], beta=[0.5, 0.5, 1, 2]),
                ["correct", "alpha-minus-one", "document-not-removed", "total-not-decremented"],
            )
        ]
    return []


def _done(path: Path) -> set[tuple]:
    if not path.exists():
        return set()
    return {
        (r["model"], r["problem"], r["sampler"])
        for r in map(json.loads, path.read_text().splitlines())
    }


def measure(spec, data, prior, reference, kernel, draws, tune, seed) -> dict:
    """Shift of the mean (in exact sds, with MCSE) and log sd ratio per quantity."""
    # deferred: sampling imports the engines (seconds); --summary needs none of it
    from arviz_stats import mcse

    import zoo

    tree = zoo.sample(
        spec, data, prior, draws=draws, tune=tune, chains=4, seed=seed, kernel=kernel
    )
    rows = []
    for name in spec.comparable_variables(prior):
        values = tree["posterior"][name]
        marginal = reference[name]
        exact_mean = np.broadcast_to(marginal.mean, values.shape[2:])
        exact_sd = np.broadcast_to(marginal.sd, values.shape[2:])
        se = np.asarray(mcse(values, method="mean").values)
        flat = values.values.reshape(values.shape[0] * values.shape[1], -1)
        for index in range(flat.shape[1]):
            mean, sd = exact_mean.flat[index], exact_sd.flat[index]
            sample = flat[:, index]
            own_sd = not np.isfinite(sd)
            if own_sd:
                # Only the exact mean is known (GDA's class probabilities): the shift in
                # units of the draws' own sd, and no sd ratio.
                sd = sample.std(ddof=1)
            if not (np.isfinite(mean) and np.isfinite(sd)) or sd <= 0:
                continue
            rows.append(
                {
                    "quantity": f"{name}[{index}]" if flat.shape[1] > 1 else name,
                    "shift": float((sample.mean() - mean) / sd),
                    "shift_se": float(np.ravel(se)[index] / sd),
                    "log_sd_ratio": 0.0
                    if own_sd
                    else float(np.log(max(sample.std(ddof=1), 1e-300) / sd)),
                }
            )
    ks = _ks_distances(spec, prior, tree, reference)
    worst_shift = max(rows, key=lambda r: abs(r["shift"]))
    worst_sd = max(rows, key=lambda r: abs(r["log_sd_ratio"]))
    return {
        "quantities": len(rows),
        "max_shift": worst_shift["shift"],
        "max_shift_se": worst_shift["shift_se"],
        "max_shift_quantity": worst_shift["quantity"],
        "max_log_sd_ratio": worst_sd["log_sd_ratio"],
        "max_log_sd_quantity": worst_sd["quantity"],
        **ks,
    }


def _ks_distances(spec, prior, tree, reference, keep: int = 2000) -> dict:
    """Largest Kolmogorov distance ``sup |ECDF - CDF_exact|`` over the continuous elements.

    ``keep`` draws, evenly spaced over the chains, keep the exact CDF's cost bounded.
    """
    worst, where = 0.0, None
    for name in spec.comparable_variables(prior):
        marginal = reference[name]
        if marginal.cdf is None or marginal.discrete:
            continue
        values = tree["posterior"][name].values
        flat = values.reshape(values.shape[0] * values.shape[1], *values.shape[2:])
        step = max(1, flat.shape[0] // keep)
        sample = np.sort(flat[::step], axis=0)
        n = sample.shape[0]
        cdf = np.asarray(marginal.cdf(sample)).reshape(n, -1)
        upper = np.arange(1, n + 1)[:, None] / n
        lower = np.arange(0, n)[:, None] / n
        distance = np.maximum(np.abs(upper - cdf), np.abs(cdf - lower)).max(axis=0)
        index = int(np.nanargmax(distance))
        if distance[index] > worst:
            worst = float(distance[index])
            where = f"{name}[{index}]" if distance.size > 1 else name
    return {"max_ks": worst, "max_ks_quantity": where}


def run(models, path: Path, draws: int, tune: int, seed: int, cells=None) -> None:
    import zoo

    # Named cells are measured again (the table takes the last record of a cell).
    done = _done(path) if cells is None else set()
    path.parent.mkdir(parents=True, exist_ok=True)
    for model in models:
        spec = zoo.get(model)
        problems = [(*p, ["correct", *spec.faults]) for p in spec.validation_problems()]
        for problem, data, prior, samplers in [*problems, *replaced_problems(model)]:
            reference = None
            for sampler in samplers:
                if (model, problem, sampler) in done:
                    continue
                if cells is not None and (model, problem, sampler) not in cells:
                    continue
                if reference is None:
                    reference = spec.posterior(data, prior)
                kernel = None if sampler == "correct" else spec.faults[sampler]
                started = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        record = measure(spec, data, prior, reference, kernel, draws, tune, seed)
                    except (FloatingPointError, ValueError) as err:  # a fault may break down
                        record = {"error": f"{type(err).__name__}: {err}"}
                record = {
                    "model": model,
                    "problem": problem,
                    "sampler": sampler,
                    "relevant": sampler in RELEVANT.get(model, {}).get(problem, []),
                    "draws": draws,
                    "chains": 4,
                    "tune": tune,
                    "seed": seed,
                    "seconds": time.perf_counter() - started,
                    **record,
                }
                bench_records.append_to(path, record)
                print(
                    f"{model:14s} {problem:28s} {sampler:28s} "
                    f"shift {record.get('max_shift', float('nan')):+7.2f} "
                    f"log sd {record.get('max_log_sd_ratio', float('nan')):+6.2f}",
                    flush=True,
                )


def _sensitive(r: dict) -> bool:
    moved = max(abs(r["max_shift"]), abs(r["max_log_sd_ratio"])) >= SENSITIVE
    return moved or r.get("max_ks", 0.0) >= SENSITIVE_KS


def summary(*paths: Path) -> str:
    """Markdown: per problem, the correct kernel and every fault, relevant ones marked.

    Records of one (model, problem, sampler) in several files: the last one read wins
    (a cell re-measured with the Kolmogorov distance replaces its first record).
    """
    cells = {}
    for path in paths:
        for line in path.read_text().splitlines():
            r = json.loads(line)
            cells[(r["model"], r["problem"], r["sampler"])] = r
    by_problem = defaultdict(list)
    for r in cells.values():
        # from the table as it stands, not as it stood when the record was taken
        r["relevant"] = r["sampler"] in RELEVANT.get(r["model"], {}).get(r["problem"], [])
        by_problem[(r["model"], r["problem"])].append(r)
    first = next(iter(cells.values()))
    lines = [
        f"Shift of the posterior mean in exact posterior sds (largest over the quantities, "
        f"± its MCSE), largest |log sd ratio| and largest Kolmogorov distance to the exact "
        f"marginal (where the run recorded it), 4 chains x {first['draws']} draws after "
        f"{first['tune']} sweeps per cell; **relevant** = a fault of the part the problem's "
        f"name says it tests; sensitive = a shift or |log sd ratio| of {SENSITIVE} or more, "
        f"or a distance of {SENSITIVE_KS} or more.",
        "",
        "| model | problem | sampler | relevant | max shift (sd) | quantity "
        "| max log sd ratio | quantity | max KS distance | quantity | sensitive |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    verdicts = []
    for (model, problem), rows in by_problem.items():
        for r in rows:
            mark = "**yes**" if r["relevant"] else ""
            if "error" in r:
                lines.append(
                    f"| {model} | {problem} | {r['sampler']} | {mark} | "
                    f"error: {r['error']} | | | | | | |"
                )
                continue
            ks = f"{r['max_ks']:.3f} | {r['max_ks_quantity']}" if "max_ks" in r else "- | -"
            lines.append(
                f"| {model} | {problem} | {r['sampler']} | {mark} | "
                f"{r['max_shift']:+.2f} ± {r['max_shift_se']:.2f} | {r['max_shift_quantity']} | "
                f"{r['max_log_sd_ratio']:+.2f} | {r['max_log_sd_quantity']} | {ks} | "
                f"{'yes' if _sensitive(r) else 'no'} |"
            )
        relevant = [r for r in rows if r["relevant"] and "error" not in r]
        moved = [r["sampler"] for r in relevant if _sensitive(r)]
        missed = [r["sampler"] for r in relevant if not _sensitive(r)]
        verdicts.append(
            f"- {model} / {problem}: {len(moved)} of {len(relevant)} relevant faults move it "
            f"({', '.join(moved) or 'none'})" + (f"; not: {', '.join(missed)}" if missed else "")
        )
    return "\n".join([*lines, "", "Per problem:", "", *verdicts])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=None)
    parser.add_argument("--draws", type=int, default=2500)
    parser.add_argument("--tune", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--cells",
        nargs="*",
        default=None,
        metavar="MODEL/PROBLEM/SAMPLER",
        help="measure only these cells (again, into --out), e.g. gda/iris/correct",
    )
    parser.add_argument("--summary", action="store_true", help="print the table and stop")
    parser.add_argument(
        "--also",
        nargs="*",
        type=Path,
        default=[],
        help="record files read after --out for the table (their cells win)",
    )
    args = parser.parse_args(argv)
    if not args.summary:
        import zoo

        cells = None if args.cells is None else {tuple(c.split("/")) for c in args.cells}
        models = args.models or sorted({c[0] for c in cells or ()}) or zoo.names()
        run(models, args.out, args.draws, args.tune, args.seed, cells)
    table = summary(args.out, *args.also)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
