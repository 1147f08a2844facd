"""Where one ``zoo validate`` run's CPU seconds go: per process and per check.

``bench.budget_presets`` gives a run's total. This runs the same command (an example's
correct kernel, ``--budget PRESET --json``, ``--workers`` if given here, bytecode
compiled beforehand) and
reads the process tree with psutil every ``--interval`` seconds while it runs: the zoo's
process, the child it forks to run the user's code and the battery
(:mod:`zoo.cli.user_process`), the Dask workers (spawned: each imports anew) and
multiprocessing's resource tracker. Each process's user + system CPU seconds are read at
every poll and at each line the command writes to standard error when it is not a
terminal (``zoo validate: PLAN``, ``CHECK: started``, ``CHECK: VERDICT in S s``), so the
CPU of each process is split into phases: ``start`` (imports, the cluster, the user's
modules, the two timed fits of the plan line), each check, and ``end`` (the report and
the cluster's close). A process's CPU after its last poll is lost (at most one
interval's worth); the record keeps ``getrusage``'s total of the run beside the sum of the
polled figures, so the loss is visible.

    nice python -m bench.preset_breakdown --preset quick --only coal_mining
    python -m bench.preset_breakdown --summary

Records: ``bench/results/preset_breakdown/records.jsonl`` (through ``bench.records``:
host, commit, date and command in each).
"""

from __future__ import annotations

import itertools
import json
import resource
import subprocess
import threading
import time
from pathlib import Path

import psutil

from bench.budget_presets import ROOT, run_examples, run_options, validate_command

RESULTS = Path(__file__).parent / "results" / "preset_breakdown"
RECORDS = RESULTS / "records.jsonl"


def _role(process: psutil.Process, top: int) -> str:
    """What a process of the run is, from its command line and parent."""
    try:
        line = " ".join(process.cmdline())
        parent = process.ppid()
    except psutil.Error:
        return "gone"
    if "resource_tracker" in line:
        return "resource tracker"
    if "spawn_main" in line or "multiprocessing" in line:
        return "worker"
    if process.pid == top:
        return "zoo"
    if parent == top:
        return "battery (forked child)"
    return "other"


class _Tree:
    """The last CPU seconds seen of every process under ``top``, polled in a thread."""

    def __init__(self, top: int, interval: float):
        self.top = top
        self.interval = interval
        self.cpu: dict[int, float] = {}
        self.roles: dict[int, str] = {}
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def poll(self) -> dict[int, float]:
        try:
            root = psutil.Process(self.top)
            processes = [root, *root.children(recursive=True)]
        except psutil.Error:
            processes = []
        with self.lock:
            for process in processes:
                try:
                    times = process.cpu_times()
                except psutil.Error:
                    continue
                if process.pid not in self.roles:
                    self.roles[process.pid] = _role(process, self.top)
                self.cpu[process.pid] = times.user + times.system
            return dict(self.cpu)

    def _loop(self) -> None:
        while not self.done.wait(self.interval):
            self.poll()

    def by_role(self, cpu: dict[int, float]) -> dict[str, float]:
        totals: dict[str, float] = {}
        for pid, seconds in cpu.items():
            role = self.roles.get(pid, "other")
            if role == "worker":
                workers = sorted(p for p, r in self.roles.items() if r == "worker")
                role = f"worker {workers.index(pid) + 1}"
            totals[role] = totals.get(role, 0.0) + seconds
        return totals


def _phase(line: str) -> str | None:
    """The phase a line of standard error begins, or None."""
    if not line.startswith("zoo validate: "):
        return None
    rest = line[len("zoo validate: ") :].strip()
    name, _, what = rest.partition(": ")
    if what == "started":
        return name
    if " in " in what and what.rsplit(" ", 1)[-1] == "s":
        return "between checks"
    return "plan line given"


def one_run(example: str, preset: str, seed: int, workers: int, interval: float) -> dict:
    """The run and its CPU seconds per phase and process role: a JSON-ready record."""
    command = validate_command(example, preset, seed, workers)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    child = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    tree = _Tree(child.pid, interval)
    tree.thread.start()
    # Standard output is read in a thread so that a full pipe never blocks the run.
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.append(child.stdout.read()), daemon=True)
    reader.start()
    phases: list[tuple[str, dict[int, float]]] = [("start", {})]
    for line in child.stderr:
        phase = _phase(line)
        if phase is not None:
            phases.append((phase, tree.poll()))
    child.wait()
    reader.join()
    tree.done.set()
    tree.thread.join()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    phases.append(("end", dict(tree.cpu)))
    # Each phase's CPU is the difference between the readings that bound it.
    split = []
    for (name, start), (_, stop) in itertools.pairwise(phases):
        a, b = tree.by_role(start), tree.by_role(stop)
        cpu = {role: round(b[role] - a.get(role, 0.0), 2) for role in b}
        split.append({"phase": name, "cpu": {k: v for k, v in cpu.items() if v > 0}})
    # The plan line and the end of a check open no phase of their own worth keeping
    # apart: fold them into the phase before.
    merged: list[dict] = []
    for entry in split:
        if entry["phase"] in ("plan line given", "between checks") and merged:
            for role, seconds in entry["cpu"].items():
                merged[-1]["cpu"][role] = round(merged[-1]["cpu"].get(role, 0.0) + seconds, 2)
        else:
            merged.append(entry)
    record = {
        "example": example,
        "preset": preset,
        "seed": seed,
        "workers": workers,
        "exit": child.returncode,
        "cpu_seconds": round(total, 1),
        "polled_cpu_seconds": round(sum(tree.cpu.values()), 1),
        "wall_seconds": round(wall, 1),
        "per_process": {k: round(v, 2) for k, v in tree.by_role(tree.cpu).items()},
        "phases": merged,
        "interval": interval,
        "bytecode": "compiled before the runs",
        "run": " ".join(["zoo", *command[3:]]),
    }
    try:
        result = json.loads(out[0] if out else "")
        record["verdict"] = result["verdict"]
    except (json.JSONDecodeError, KeyError):
        record["verdict"] = "error"
    return record


def summary(path: Path) -> str:
    """Markdown: the latest record per example, preset and workers: CPU s per phase, process."""
    if not path.exists():
        return "No records yet."
    records = [json.loads(line) for line in path.read_text().splitlines() if line]
    last = {(r["example"], r["preset"], r["workers"]): r for r in records}
    lines = [
        "| example | preset | workers | CPU s (polled) | per process | per phase (all processes) "
        "| verdict | commit |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (example, preset, workers), r in last.items():
        processes = ", ".join(f"{k} {v:.1f}" for k, v in r["per_process"].items())
        phases = ", ".join(f"{p['phase']} {sum(p['cpu'].values()):.1f}" for p in r["phases"])
        lines.append(
            f"| {example} | {preset} | {workers} | {r['cpu_seconds']:.1f} "
            f"({r['polled_cpu_seconds']:.1f}) | {processes} | {phases} | {r['verdict']} "
            f"| {r['commit'][:7]} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = run_options(__doc__.splitlines()[0])
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between polls")
    args = parser.parse_args()

    def run(example: str) -> dict:
        return one_run(example, args.preset, args.seed, args.workers, args.interval)

    run_examples(args, run, RECORDS, summary)


if __name__ == "__main__":
    main()
