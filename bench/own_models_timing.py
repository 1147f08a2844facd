"""Wall time of ``zoo validate --model`` on the three models outside the zoo, beside simuk.

For each example of ``examples/`` written as a user's PyMC model (pump failures,
semi-conjugate normal, Albert-Chib probit):

- ``zoo validate --model examples.X:model --kernel examples.X:kernel --quiet``: the
  default battery for a kernel (nuts, sbc with 100 simulations, geweke, invariance) on
  two local Dask workers, from the shell, as a user runs it (wall time of the process,
  and each check's seconds from ``--json``);
- ``zoo validate --model examples.X:model --sampler examples.X:sampler --checks sbc``:
  the zoo's SBC of the hand-written sampler alone, 100 simulations;
- simuk 0.3's ``SBC(model, num_simulations=100)``: SBC of PyMC's own NUTS on the same
  PyMC program (simuk cannot take a hand-written sampler), ``pm.sample`` with the
  zoo's SBC budget per fit (200 draws after 200 tuning steps, 2 chains), in this
  process.

The machine is shared: CPU seconds of each child are recorded beside wall seconds.
Records: one per example and run in ``bench/results/v0.2/own_models_timing.jsonl``
through ``bench.records`` (host, commit, date and command inside each); the table, of
each example's latest record, ``own_models_timing.md`` beside them, is written by
``python -m bench.tables`` (``--table`` prints it).

    python -m bench.own_models_timing [--simulations 100]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

from bench import records as bench_records

ROOT = Path(__file__).resolve().parents[1]
RESULTS = bench_records.RESULTS / "v0.2" / "own_models_timing.jsonl"
EXAMPLES = ("pump_failures", "semi_conjugate_normal", "probit_regression")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def zoo_cli(example: str, *what: str, simulations: int) -> dict:
    """Run ``zoo validate --model`` in a child process; wall and CPU seconds, checks."""
    command = [
        sys.executable,
        "-m",
        "zoo.cli",
        "validate",
        "--model",
        f"examples.{example}:model",
        *what,
        "--simulations",
        str(simulations),
        "--json",
        "--quiet",
    ]
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command)}: exit {done.returncode}\n{done.stderr}")
    report = json.loads(done.stdout)
    return {
        "command": " ".join(["zoo", *command[3:]]),
        "wall_seconds": wall,
        "cpu_seconds": _children_cpu() - cpu,
        "verdict": report["verdict"],
        "checks": {c["check"]: [c["verdict"], round(c["seconds"], 1)] for c in report["checks"]},
    }


def simuk_nuts(example: str, simulations: int, seed: int = 0) -> dict:
    """simuk's SBC of PyMC NUTS on the example's PyMC program, in this process."""
    import simuk

    sys.path.insert(0, str(ROOT))
    module = __import__(f"examples.{example}", fromlist=["model"])
    model = module.model()
    started = time.process_time(), time.perf_counter()
    sbc = simuk.SBC(
        model,
        num_simulations=simulations,
        sample_kwargs={"draws": 200, "tune": 200, "chains": 2, "cores": 1, "nuts_sampler": "pymc"},
        seed=seed,
        progress_bar=False,
    )
    sbc.run_simulations()
    cpu, wall = time.process_time() - started[0], time.perf_counter() - started[1]
    return {
        "simulations": simulations,
        "wall_seconds": wall,
        "cpu_seconds": cpu,
        "wall_per_simulation": wall / simulations,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", nargs="+", default=list(EXAMPLES))
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--table", action="store_true", help="only print the table")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    for name in ("pymc", "pytensor"):
        logging.getLogger(name).setLevel(logging.ERROR)
    for example in [] if args.table else args.examples:
        row = {
            "zoo_default_kernel": zoo_cli(
                example, "--kernel", f"examples.{example}:kernel", simulations=args.simulations
            ),
            "zoo_sbc_sampler": zoo_cli(
                example,
                "--sampler",
                f"examples.{example}:sampler",
                "--checks",
                "sbc",
                simulations=args.simulations,
            ),
            "simuk_sbc_nuts": simuk_nuts(example, args.simulations),
            "cpus": os.cpu_count(),
            "date": time.strftime("%Y-%m-%d"),
        }
        print(json.dumps({example: row}, indent=1), file=sys.stderr)
        bench_records.append_to(args.results, {"example": example, **row})
    print(table(bench_records.read_file(args.results)))


def table(records: list[dict]) -> str:
    """Markdown: one row per example, from its latest record."""
    latest = {record["example"]: record for record in records}
    lines = [
        "| example | zoo validate --kernel (default): wall / CPU s | checks (verdict, s) | "
        "zoo SBC of the sampler: wall / CPU s | simuk SBC of NUTS: wall / CPU s | "
        "CPU ratio simuk / zoo SBC |",
        "|---|---|---|---|---|---|",
    ]
    for example, row in latest.items():
        full, sbc, peer = row["zoo_default_kernel"], row["zoo_sbc_sampler"], row["simuk_sbc_nuts"]
        checks = ", ".join(f"{k} {v[0]} {v[1]}" for k, v in full["checks"].items())
        lines.append(
            f"| {example} | {full['wall_seconds']:.0f} / {full['cpu_seconds']:.0f} | {checks} | "
            f"{sbc['wall_seconds']:.0f} / {sbc['cpu_seconds']:.0f} | "
            f"{peer['wall_seconds']:.0f} / {peer['cpu_seconds']:.0f} | "
            f"{peer['cpu_seconds'] / sbc['cpu_seconds']:.1f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
