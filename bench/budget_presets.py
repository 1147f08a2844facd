"""What each budget preset of ``zoo validate`` costs on the examples' correct kernels.

For each example below, ``zoo validate --model M:model --kernel M:kernel --budget PRESET
--json`` is run once as a user runs it (a fresh process: imports, PyTensor and numba
caches as they are; ``--workers`` as ``--workers`` here says, by default not given, so
the zoo's own choice: one worker process per core, none at ``quick``), and one JSON line
records the CPU seconds of that process, its child and its Dask workers
(``resource.getrusage`` of the children, which counts every descendant that was waited
for), the wall seconds, the verdict and each check's verdict and seconds, with the host
(:mod:`bench.host`) and the git commit. (Records before commit 5c22308 passed
``--workers 2``, the default on the 2-core bench host at the time.)

Before the runs, the Python source of the environment and of the repository is compiled
to bytecode (``compileall``, as pip does when it installs a package), untimed: a
user's installed zoo starts from bytecode, while an environment installed by uv (which
does not compile) under ``PYTHONDONTWRITEBYTECODE`` compiles every module again in the
zoo's process and in each worker (Dask starts them with ``-B``), some 4 to 15 CPU
seconds a process on the bench host. Each record says so (``bytecode``).
``--summary`` prints the table of docs/validating.md, "Budgets and presets". One run
per example and preset: a cost, not a power; the power of each preset comes from the
records of the power studies.

    nice python -m bench.budget_presets --preset quick
    nice python -m bench.budget_presets --preset default --only eight_schools
    python -m bench.budget_presets --summary
"""

from __future__ import annotations

import argparse
import compileall
import json
import resource
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from bench import records as bench_records
from bench.host import cpu_name

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "budget_presets"
RECORDS = RESULTS / "records.jsonl"

#: Each example's model and correct kernel, as its docstring's command names them.
EXAMPLES = {
    "linear_regression": ("known_noise_model", "known_noise_kernel"),
    "eight_schools": ("noncentred_model", "noncentred_kernel"),
    "coal_mining": ("model", "kernel"),
    "gaussian_mixture": ("model", "kernel"),
    "dirichlet_multinomial": ("model", "kernel"),
    "pump_failures": ("model", "kernel"),
    "semi_conjugate_normal": ("model", "kernel"),
    "probit_regression": ("model", "kernel"),
}


#: The repository's packages a run imports.
PACKAGES = ("zoo", "diagnostics", "models", "examples")


def compile_bytecode() -> None:
    """Bytecode for every module a run may import: the environment's and the zoo's."""
    folders = [Path(sysconfig.get_paths()["purelib"]), *(ROOT / name for name in PACKAGES)]
    for folder in folders:
        if folder.is_dir():
            compileall.compile_dir(folder, quiet=2, workers=1)


def validate_command(example: str, preset: str, seed: int, workers: int | None) -> list[str]:
    """The ``zoo validate`` command of one example's correct kernel at ``preset``."""
    model, kernel = EXAMPLES[example]
    return [
        sys.executable,
        "-m",
        "zoo.cli",
        "validate",
        "--model",
        f"examples.{example}:{model}",
        "--kernel",
        f"examples.{example}:{kernel}",
        "--budget",
        preset,
        "--seed",
        str(seed),
        *(() if workers is None else ("--workers", str(workers))),
        "--json",
    ]


def one_run(example: str, preset: str, seed: int, workers: int | None) -> dict:
    """``zoo validate`` on one example's correct kernel at ``preset``: a JSON-ready record."""
    command = validate_command(example, preset, seed, workers)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    record = {
        "example": example,
        "preset": preset,
        "seed": seed,
        "workers": workers,
        "command": " ".join(["zoo", *command[3:]]),
        "exit": done.returncode,
        "cpu_seconds": round(cpu, 1),
        "wall_seconds": round(wall, 1),
        "bytecode": "compiled before the runs",
        "host": cpu_name(),
        "commit": bench_records.provenance()["commit"],
    }
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        record["error"] = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return record
    record["verdict"] = result["verdict"]
    record["checks"] = {
        check["check"]: {"verdict": check["verdict"], "seconds": round(check["seconds"], 1)}
        for check in result["checks"]
    }
    return record


def summary(path: Path) -> str:
    """Markdown: CPU (and wall) seconds per example and preset, from the last record of each.

    The footnote names the commits and hosts of the records shown; wall seconds say how
    loaded the machine was (the CPU seconds include the cluster's own background work,
    which grows with the wall time).
    """
    records = [json.loads(line) for line in path.read_text().splitlines() if line]
    last = {(r["example"], r["preset"]): r for r in records}
    presets = list(dict.fromkeys(r["preset"] for r in records))
    lines = [
        "| example (correct kernel) | "
        + " | ".join(f"{p}: CPU s (wall s), verdict" for p in presets)
        + " |",
        "|---|" + "---|" * len(presets),
    ]
    shown = []
    for example in EXAMPLES:
        cells = []
        for preset in presets:
            r = last.get((example, preset))
            if r is not None:
                shown.append(r)
            if r is None:
                cells.append("")
                continue
            verdict = r.get("verdict", "error")
            cells.append(f"{r['cpu_seconds']:.0f} ({r['wall_seconds']:.0f}), {verdict}")
        if any(cells):
            lines.append(f"| {example} | " + " | ".join(cells) + " |")
    hosts = sorted({r["host"] for r in shown})
    commits = sorted({r["commit"][:7] for r in shown})
    compiled = sum("bytecode" in r for r in shown)
    given = sorted({"not given" if r.get("workers") is None else str(r["workers"]) for r in shown})
    lines.append(
        f"\nHost: {', '.join(hosts)}; one run each; commits {', '.join(commits)}; "
        f"{compiled} of {len(shown)} runs with bytecode compiled before them; "
        f"--workers {' or '.join(given)}."
    )
    return "\n".join(lines)


def run_options(description: str) -> argparse.ArgumentParser:
    """The options of a script that runs :func:`validate_command` per example."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--preset", default="quick", choices=("quick", "default", "thorough"))
    parser.add_argument("--only", nargs="*", choices=tuple(EXAMPLES), help="examples to run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--workers", type=int, default=None, help="zoo validate's --workers (default: not given)"
    )
    parser.add_argument("--summary", action="store_true", help="print the table and stop")
    return parser


def run_examples(args: argparse.Namespace, run, path: Path, table) -> None:
    """``run(example)`` per example asked (:func:`run_options`), each record appended to
    ``path`` and printed, then ``table(path)``; with ``--summary``, the table alone."""
    if args.summary:
        print(table(path))
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    compile_bytecode()
    for example in args.only or EXAMPLES:
        record = run(example)
        bench_records.append_to(path, record)
        print(json.dumps(record), flush=True)
    print(table(path))


def main() -> None:
    args = run_options(__doc__.splitlines()[0]).parse_args()
    run_examples(
        args,
        lambda example: one_run(example, args.preset, args.seed, args.workers),
        RECORDS,
        summary,
    )


if __name__ == "__main__":
    main()
