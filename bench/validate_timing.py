"""Wall time of the default ``zoo validate MODEL`` per model, with each check's seconds.

Each model runs as the command line runs it (``zoo validate MODEL --quiet --json``, the
model's own kernel, all four checks, two local Dask workers), one after the other, in a
subprocess of its own; the table is printed and written as Markdown. Run it on an
otherwise idle machine with warm caches (a first run compiles the numba kernels in the
workers; run the command once before) and say so where the numbers are quoted.

    python bench/validate_timing.py --out bench/results/validate_timing.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

CHECKS = ("exact", "sbc", "geweke", "invariance")


def one(model: str) -> dict:
    """Wall seconds of one ``zoo validate``, its verdict and each check's seconds."""
    zoo = Path(sys.executable).with_name("zoo")
    started = time.perf_counter()
    done = subprocess.run(
        [str(zoo), "validate", model, "--quiet", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    result = json.loads(done.stdout)
    seconds = {check["check"]: check["seconds"] for check in result["checks"]}
    return {"model": model, "wall": wall, "verdict": result["verdict"], "seconds": seconds}


def table(rows: list[dict]) -> str:
    """Markdown: one row per model."""
    lines = [
        "| model | verdict | wall s | " + " | ".join(f"{c} s" for c in CHECKS) + " |",
        "|---|---|---|" + "---|" * len(CHECKS),
    ]
    for row in rows:
        cells = " | ".join(f"{row['seconds'].get(c, float('nan')):.1f}" for c in CHECKS)
        lines.append(f"| {row['model']} | {row['verdict']} | {row['wall']:.1f} | {cells} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models",
        nargs="+",
        default=["beta-binomial", "naive-bayes", "gda", "qda", "gaussian-nb", "lda"],
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    rows = []
    for model in args.models:
        rows.append(one(model))
        print(rows[-1], flush=True)
    text = (
        f"`zoo validate MODEL --quiet` at its defaults, {time.strftime('%Y-%m-%d')}, "
        f"{os.cpu_count()} cores ({platform.machine()}), one model after the other.\n\n"
        + table(rows)
        + "\n"
    )
    print(text)
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
