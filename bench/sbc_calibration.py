"""Is SBC's false-alarm rate what it states? Two measurements behind docs/power.md's answer.

1. ``--null``: the uniformity test alone, on truly uniform values: ``runs`` runs of
   ``quantities`` quantities of ``simulations`` values each, Holm at ``alpha``; the
   fraction of runs with a rejection should be at most ``alpha``.
2. ``--pool MODEL``: the correct kernel's SBC ranks over seeds ``0 .. seeds-1``
   (``zoo.validate(MODEL, checks=("sbc",), seed=s)``), pooled per quantity: a
   systematic departure from uniformity (a rank bias of the sampler or of the thinning)
   shows in a Kolmogorov-Smirnov test of thousands of ranks, where one run's 100 cannot.

    python -m bench.sbc_calibration --null --runs 5000
    python -m bench.sbc_calibration --pool naive-bayes --seeds 40

Records in ``bench/results/sbc_calibration/records.jsonl`` through ``bench.records``
(host, commit, date and command inside each): one per ``--null`` run (its settings and
rejection rate) and one per pooled quantity (its KS p, mean, sd and counts per tenth).
``table.md`` beside them is an earlier run's printed tables with their notes.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from scipy import stats

import zoo
from bench import records
from zoo.diagnostics import holm
from zoo.diagnostics.uniformity import uniformity_pvalue


def null_rate(runs: int, quantities: int, simulations: int, alpha: float, seed: int) -> float:
    """Fraction of runs of uniform values that SBC's decision would fail.

    The decision is SBC's own: a quantity fails when its Holm-adjusted p-value is below
    ``alpha`` (``zoo.diagnostics.holm``, as ``SBCResult.verdict``).
    """
    rng = np.random.default_rng(seed)
    fails = 0
    for _ in range(runs):
        p_values = [uniformity_pvalue(rng.random(simulations)) for _ in range(quantities)]
        fails += bool(np.any(holm(np.array(p_values)) < alpha))
    return fails / runs


def pooled_ranks(model: str, seeds: int, alpha: float) -> dict[str, np.ndarray]:
    """Each quantity's SBC ranks over seeds 0 .. seeds-1 of the correct kernel."""
    pooled: dict[str, list[np.ndarray]] = {}
    for seed in range(seeds):
        result = zoo.validate(model, checks=("sbc",), seed=seed, workers=0, alpha=alpha)
        sbc = result.checks[0].details
        for j, quantity in enumerate(sbc.quantities):
            pooled.setdefault(quantity, []).append(sbc.ranks[:, j])
    return {quantity: np.concatenate(parts) for quantity, parts in pooled.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--null", action="store_true", help="the test on uniform values")
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--quantities", type=int, default=17)
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--pool", metavar="MODEL", help="pool this model's SBC ranks")
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--alpha", type=float, default=0.002)
    args = parser.parse_args()
    if args.null:
        rate = null_rate(args.runs, args.quantities, args.simulations, args.alpha, seed=1)
        print(
            f"uniform values: {args.runs} runs of {args.quantities} x {args.simulations}, "
            f"Holm at {args.alpha}: rejection rate {rate:.4f}"
        )
        settings = {k: getattr(args, k) for k in ("runs", "quantities", "simulations", "alpha")}
        records.append("sbc_calibration", {"kind": "null", **settings, "rejection_rate": rate})
    if args.pool:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pooled = pooled_ranks(args.pool, args.seeds, args.alpha)
        print("| quantity | ranks | KS p | mean | sd (uniform 0.2887) | counts per tenth |")
        print("|---|---|---|---|---|---|")
        for quantity, ranks in pooled.items():
            p = stats.kstest(ranks, "uniform").pvalue
            mean, sd = ranks.mean(), ranks.std()
            tenths = np.histogram(ranks, bins=10, range=(0.0, 1.0))[0].tolist()
            records.append(
                "sbc_calibration",
                {
                    "kind": "pool",
                    "model": args.pool,
                    "seeds": args.seeds,
                    "alpha": args.alpha,
                    "quantity": quantity,
                    "ranks": int(ranks.size),
                    "ks_p": float(p),
                    "mean": float(mean),
                    "sd": float(sd),
                    "counts_per_tenth": tenths,
                },
            )
            print(f"| {quantity} | {ranks.size} | {p:.3g} | {mean:.4f} | {sd:.4f} | {tenths} |")


if __name__ == "__main__":
    main()
