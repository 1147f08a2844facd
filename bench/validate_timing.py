"""Wall time of the default ``zoo validate MODEL`` per model, with each check's seconds.

Each model runs as the command line runs it (``zoo validate MODEL --quiet --json``, the
model's own kernel, all four checks, two local Dask workers), one after the other, in a
subprocess of its own; the table is printed and kept in a record. Run it on an
otherwise idle machine with warm caches (a first run compiles the numba kernels in the
workers; run the command once before) and say so where the numbers are quoted.
``--rounds N`` runs every model N times, round-robin, and gives medians, the range of
the wall time, and the CPU seconds of the zoo and its workers together (steadier than
wall time where the host is shared).

    python -m bench.validate_timing --rounds 2

Records: ``bench/results/validate_timing/records.jsonl``, one per run holding its settings and
the printed table, through ``bench.records`` (host, commit, date and command inside
each); ``python -m bench.tables`` writes every run's table to ``tables.md`` beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import records
from bench.host import cpu_name

CHECKS = ("exact", "sbc", "geweke", "invariance")


def one(model: str) -> dict:
    """Wall seconds of one ``zoo validate``, its verdict and each check's seconds."""
    zoo = Path(sys.executable).with_name("zoo")
    # CPU seconds of the zoo and its workers (children that ended): steadier than wall
    # time on a shared host, where the same run's wall time varies by half.
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [str(zoo), "validate", model, "--quiet", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
    result = json.loads(done.stdout)
    seconds = {check["check"]: check["seconds"] for check in result["checks"]}
    return {
        "model": model,
        "wall": wall,
        "cpu": cpu,
        "verdict": result["verdict"],
        "seconds": seconds,
    }


def table(rows: list[dict]) -> str:
    """Markdown: one row per model, medians over its rounds (wall's range beside it)."""
    lines = [
        "| model | verdicts | wall s (median) | wall s (range) | CPU s | "
        + " | ".join(f"{c} s" for c in CHECKS)
        + " |",
        "|---|---|---|---|---|" + "---|" * len(CHECKS),
    ]
    models = list(dict.fromkeys(row["model"] for row in rows))
    for model in models:
        mine = [row for row in rows if row["model"] == model]
        walls = [row["wall"] for row in mine]
        cells = " | ".join(
            f"{statistics.median(row['seconds'].get(c, float('nan')) for row in mine):.1f}"
            for c in CHECKS
        )
        verdicts = ", ".join(sorted({row["verdict"] for row in mine}))
        lines.append(
            f"| {model} | {verdicts} | {statistics.median(walls):.1f} | "
            f"{min(walls):.1f}-{max(walls):.1f} | "
            f"{statistics.median(row['cpu'] for row in mine):.1f} | {cells} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models",
        nargs="+",
        default=["beta-binomial", "naive-bayes", "gda", "qda", "gaussian-nb", "lda"],
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="run every model this many times, round-robin"
    )
    args = parser.parse_args()
    rows = []
    for _ in range(args.rounds):
        for model in args.models:
            rows.append(one(model))
            print(rows[-1], flush=True)
    text = (
        f"`zoo validate MODEL --quiet` at its defaults, {time.strftime('%Y-%m-%d')}, "
        f"{os.cpu_count()} cores ({cpu_name()}), one model after the other, "
        f"{args.rounds} round(s); check seconds are medians.\n\n" + table(rows) + "\n"
    )
    print(text)
    records.append("validate_timing", {"rounds": args.rounds, "rows": rows, "table": text})


if __name__ == "__main__":
    main()
