"""How often the R-hat gate judges well-mixing chains inconclusive, and chains that disagree.

Simulated chains, ArviZ's R-hat and ESS, the zoo's gates (``zoo.diagnostics.gates``):

- *null*: every quantity an AR(1) chain at ``rho`` (stationary, 4 chains x 1,000 draws);
  the rate, per quantity and per run of ``--quantities`` quantities, at which the plain
  rule (R-hat <= 1.01 and ESS >= 400) and the zoo's rule (R-hat above 1.01 only counts
  when it is beyond its noise at the within-chain ESS) gate a quantity out;
- *shifted*: the same chains with the first chain's mean moved by ``delta`` stationary
  sds, the rate at which each rule gates a quantity out (both rules include the ESS
  gate, which sees the between-chain variance).

Usage::

    python -m bench.rhat_gate --runs 20 --quantities 200

Records: ``bench/results/rhat_gate/records.jsonl``, one per run holding its settings and
the printed table, through ``bench.records`` (host, commit, date and command inside
each); ``python -m bench.tables`` writes every run's table to ``tables.md`` beside them.
"""

from __future__ import annotations

import argparse

import arviz_stats as azs
import numpy as np
from scipy import signal

from bench import records
from zoo.diagnostics.gates import passes, rhat_gate_level, within_chain_ess

CHAINS, DRAWS = 4, 1000


def ar1(rng, rho: float, quantities: int) -> np.ndarray:
    """Stationary AR(1) chains with unit variance, shape (chains, draws, quantities)."""
    noise = rng.standard_normal((CHAINS, DRAWS, quantities)) * np.sqrt(1.0 - rho**2)
    noise[:, 0] = rng.standard_normal((CHAINS, quantities))
    return signal.lfilter([1.0], [1.0, -rho], noise, axis=1)


def gated(x: np.ndarray, level: float):
    """Quantities out by the R-hat gate (the plain rule and the zoo's) and by the ESS gate."""
    rhat = np.atleast_1d(azs.rhat(x))
    bulk = np.atleast_1d(azs.ess(x, method="bulk"))
    tail = np.atleast_1d(azs.ess(x, method="tail", prob=(0.05, 0.95)))
    sizes = {"chains": CHAINS, "draws": DRAWS}
    ess_out = ~passes(np.ones_like(rhat), bulk, tail, **sizes)
    plain_out = ~passes(rhat, bulk, tail, **sizes, ess_min=0.0)
    within = within_chain_ess(x)
    zoo_out = ~passes(rhat, bulk, tail, **sizes, ess_min=0.0, level=level, ess_within=within)
    return plain_out, zoo_out, ess_out, bulk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--quantities", type=int, default=300)
    parser.add_argument("--alpha", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=20261124)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    level = rhat_gate_level(args.alpha, args.quantities)
    lines = [
        f"# R-hat gate: {CHAINS} chains x {DRAWS} draws, {args.quantities} quantities per run,"
        f" {args.runs} runs per row, family rate {args.alpha}",
        "",
        "Share of quantities gated out, and runs (of the row's) with any quantity out, by the",
        "plain R-hat rule (R-hat <= 1.01), the zoo's (above 1.01 only beyond its noise) and",
        "the ESS gate (bulk and tail ESS >= 400, common to both rules).",
        "",
        "| chains | rho | delta (sd) | median bulk ESS | plain R-hat: share | plain R-hat: runs"
        " | zoo R-hat: share | zoo R-hat: runs | ESS: share | ESS: runs |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    cases = [(rho, 0.0) for rho in (0.5, 0.7, 0.8, 0.9)]
    cases += [(0.5, delta) for delta in (0.1, 0.2, 0.3, 0.5)]
    cases += [(0.8, delta) for delta in (0.1, 0.2, 0.3)]
    for rho, delta in cases:
        share = np.zeros(3)
        runs = np.zeros(3, dtype=int)
        ess = []
        for _ in range(args.runs):
            x = ar1(rng, rho, args.quantities)
            x[0] += delta
            *outs, bulk = gated(x, level)
            share += [out.mean() for out in outs]
            runs += [bool(out.any()) for out in outs]
            ess.append(np.median(bulk))
        share /= args.runs
        kind = "stationary" if delta == 0 else "one shifted"
        cells = " | ".join(f"{s:.4f} | {r}/{args.runs}" for s, r in zip(share, runs, strict=True))
        lines.append(f"| {kind} | {rho} | {delta} | {np.median(ess):.0f} | {cells} |")
        print(lines[-1], flush=True)
    settings = {k: getattr(args, k) for k in ("runs", "quantities", "alpha", "seed")}
    records.append("rhat_gate", {**settings, "table": "\n".join(lines) + "\n"})


if __name__ == "__main__":
    main()
