"""SBC of a correct sampler whose prior predictive sometimes overflows: redraws, not blame.

The pumps of ``examples/pump_failures.py`` under BUGS's own hyperprior ``beta ~
Gamma(0.1, 1.0)`` (``tests/support/bugs_pumps.py``): about 2% of prior-predictive data
sets hold counts that overflow int64, which SBC now draws again
(``docs/design.md``, "The verdict policy"). For each seed, ``zoo.validate(...,
checks=("sbc",), seed=s)`` at the default budget (100 simulations, 2 x 200 draws per
fit, alpha 0.01); one JSON line per seed with the verdict, the redraws, the share
redrawn, the failed fits and the CPU seconds of this process. The claim: the correct
sampler passes in at least 19 of 20 seeds; ``--sampler six_and_a_half`` (the example's
sampler for Gamma(6, 2.5), wrong here) measures the power on the same seeds.

    nice python -m bench.sbc_redraws --seeds 20
    nice python -m bench.sbc_redraws --seeds 20 --sampler six_and_a_half
    python -m bench.sbc_redraws --summary

Records: ``bench/results/sbc_redraws/pumps_bugs.jsonl``, written through ``bench.records``
(host, commit, date and command inside each).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
import warnings
from pathlib import Path

from bench import records as bench_records

ROOT = Path(__file__).resolve().parents[1]
STUDY, FILE = "sbc_redraws", "pumps_bugs"
MODEL = "tests.support.bugs_pumps:model"


def one_seed(sampler_name: str, seed: int) -> dict:
    """One default SBC run of ``sampler_name`` at ``seed``, as a JSON-ready record."""
    # deferred: the battery and the support module are imported after sys.path is set
    from tests.support import bugs_pumps
    from zoo.validation import validate

    started = time.process_time()
    result = validate(
        MODEL, getattr(bugs_pumps, sampler_name), checks=("sbc",), seed=seed, workers=0
    )
    (sbc,) = result.checks
    details = sbc.details
    return {
        "sampler": sampler_name,
        "seed": seed,
        "verdict": result.verdict,
        "sbc": sbc.verdict,
        "simulations": details.n_simulations,
        "redraws": details.redraws,
        "redraw_share": details.redraw_share,
        "failed_fits": len(details.failures),
        "unsimulated": len(details.unsimulated),
        "failing": details.failing(),
        "cpu_seconds": time.process_time() - started,
    }


def summary(records: list[dict]) -> str:
    """Markdown: per sampler, verdicts over seeds, redraws and CPU seconds."""
    lines = [
        "| sampler | seeds | pass | fail | could not judge | redraws (total) | "
        "data sets redrawn per run | CPU s per run |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in dict.fromkeys(r["sampler"] for r in records):
        mine = [r for r in records if r["sampler"] == name]
        count = {v: sum(r["sbc"] == v for r in mine) for v in ("pass", "fail", "could not judge")}
        redraws = [r["redraws"] for r in mine]
        lines.append(
            f"| {name} | {len(mine)} | {count['pass']} | {count['fail']} | "
            f"{count['could not judge']} | {sum(redraws)} | {min(redraws)} to {max(redraws)} "
            f"| {sum(r['cpu_seconds'] for r in mine) / len(mine):.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--sampler", default="sampler", choices=("sampler", "six_and_a_half"))
    parser.add_argument("--summary", action="store_true", help="print the table and stop")
    args = parser.parse_args()
    if args.summary:
        print(summary(bench_records.read(STUDY, FILE)))
        return
    sys.path.insert(0, str(ROOT))
    warnings.filterwarnings("ignore")
    logging.getLogger("pymc").setLevel(logging.ERROR)
    path = bench_records.folder(STUDY) / f"{FILE}.jsonl"
    done = set()
    if path.exists():
        done = {(r["sampler"], r["seed"]) for r in bench_records.read(STUDY, FILE)}
    for seed in range(args.seeds):
        if (args.sampler, seed) in done:
            continue
        record = one_seed(args.sampler, seed)
        print(json.dumps(bench_records.append(STUDY, record, FILE)), flush=True)
    print(summary(bench_records.read(STUDY, FILE)))


if __name__ == "__main__":
    main()
