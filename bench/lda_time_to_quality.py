"""LDA samplers measured as time to quality: CPU and wall seconds to reach a log joint.

For one corpus, K and seed, every contender (``bench/lda_contenders.py``: the zoo's
Gibbs and Metropolis-Hastings sweeps, the sampler the zoo picks, tomotopy on 1 and 2
workers, ``lda``) runs from its own start for a budget of process CPU seconds (or a cap
on sweeps), one contender at a time. Every ``--every`` sweeps it stops, and the log
joint ``log p(w, z)`` of its assignments is computed by
``bench.lda_contenders.log_joint`` (the count tables rebuilt from the topics, the same
formula for every contender) outside the timed intervals: the trace is (sweeps, CPU
seconds, wall seconds, log joint), with seconds counting sweeps only (construction,
numba compilation and the log joints excluded). CPU seconds are the process's
(``time.process_time``: all threads, so tomotopy-2's two workers count twice).

The measure: with ``start`` the median of the contenders' log joints at sweep
0 (random or ``i % K`` assignments; they differ by a fraction of a percent) and ``best``
the largest final log joint any contender reached in the same run, the level of
fraction ``q`` is ``start + q (best - start)``; a contender's time to ``q`` is the CPU
(and wall) seconds at the first checkpoint at or above that level (so it is rounded up
to a checkpoint; no interpolation). A contender that never gets there within its budget
says so, with the fraction it reached.

Records: one per (corpus, K, seed) in ``bench/results/lda_time_to_quality/records.jsonl``
(``--out`` another study folder) through ``bench.records``, holding the host
(``bench/host.py``, with the load average and the libraries' versions), the commit and
whether the tree was dirty, the date, the command, the settings and every contender's
trace; the records of the first runs are one JSON file each beside it (their commit
says ``+dirty`` where the tree was). ``--summary`` prints the markdown tables, and
``python -m bench.tables`` writes them to ``tables.md`` beside the records.

Run from the repository root (needs ``pip install -e '.[bench]'``)::

    python -m bench.lda_time_to_quality --corpus reuters --topics 20 100 1000
    python -m bench.lda_time_to_quality --corpus zipf --topics 20 --budget 60 --every 5
    python -m bench.lda_time_to_quality --corpus zipf-1m --topics 20 100 1000 \
        --contenders zoo zoo-mh --budget 10 --every 2
    python -m bench.lda_time_to_quality --summary
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import time
from pathlib import Path

import numpy as np

from bench import records
from bench.lda_contenders import CONTENDERS, CORPORA, corpus_info, load_corpus, timed_run, versions
from zoo.models.lda.choice import choose_sampler

RESULTS = records.RESULTS / "lda_time_to_quality"

#: The fractions of the way from the start to the best final log joint that are reported.
FRACTIONS = (0.90, 0.95, 0.99)

#: The contenders run by default: each exact kernel of the zoo, the one it picks, the peers.
DEFAULT_CONTENDERS = ("zoo", "zoo-mh", "zoo-auto", "tomotopy", "tomotopy-2", "lda")


def host() -> dict:
    """The processor, cores, load and library versions of the machine the run is on."""
    return {**versions(), "load_average": list(os.getloadavg())}


def trace(contender, budget: float, max_sweeps: int, every: int) -> dict:
    """Sweep a contender ``every`` sweeps at a time until its budget; its log joints.

    Only the sweeps are timed: the log joint at each checkpoint is computed between two
    timed intervals.
    """
    points = [[0, 0.0, 0.0, contender.log_joint()]]
    done, cpu_seconds, wall_seconds = 0, 0.0, 0.0
    while done < max_sweeps and cpu_seconds < budget:
        step = min(every, max_sweeps - done)
        cpu, wall = timed_run(contender, step)
        cpu_seconds, wall_seconds, done = cpu_seconds + cpu, wall_seconds + wall, done + step
        points.append([done, cpu_seconds, wall_seconds, contender.log_joint()])
    return {"columns": ["sweeps", "cpu_seconds", "wall_seconds", "log_joint"], "points": points}


def run_one(corpus, n_topics: int, seed: int, names, args) -> dict:
    """Every contender on one (corpus, K, seed), one after the other; the record."""
    contenders = {}
    for name in names:
        gc.collect()
        built = time.perf_counter()
        contender = CONTENDERS[name](corpus, n_topics, seed)
        build_seconds = time.perf_counter() - built
        result = trace(contender, args.budget, args.max_sweeps, args.every)
        result["build_seconds"] = build_seconds
        if hasattr(contender, "picked"):
            result["picked"] = contender.picked
        if hasattr(contender, "cycles"):
            result["cycles"] = contender.cycles
        contenders[name] = result
        last = result["points"][-1]
        print(
            f"{corpus.name} K={n_topics} seed={seed} {name:10s} {last[0]:5d} sweeps "
            f"{last[1]:7.2f} CPU s {last[2]:7.2f} s  log p(w,z) {last[3]:.0f}",
            flush=True,
        )
        del contender
    choice = choose_sampler(n_topics=n_topics, n_tokens=corpus.n_tokens)
    return {
        "kind": "lda_time_to_quality",
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "host": host(),
        "corpus": corpus_info(corpus),
        "topics": n_topics,
        "seed": seed,
        "alpha": 0.1,
        "beta": 0.01,
        "budget_cpu_seconds": args.budget,
        "max_sweeps": args.max_sweeps,
        "every": args.every,
        "zoo_picks": {"sampler": choice.label, "reason": choice.reason},
        "contenders": contenders,
    }


def times_to_quality(record: dict) -> dict:
    """Per contender: the seconds to each fraction (None: not within the budget)."""
    traces = {n: np.asarray(c["points"], dtype=float) for n, c in record["contenders"].items()}
    start = float(np.median([t[0, 3] for t in traces.values()]))
    best = max(float(t[-1, 3]) for t in traces.values())
    out = {"start": start, "best": best, "contenders": {}}
    for name, points in traces.items():
        reached = (points[:, 3] - start) / (best - start)
        row = {
            "sweeps": int(points[-1, 0]),
            "cpu_seconds": float(points[-1, 1]),
            "wall_seconds": float(points[-1, 2]),
            "final_fraction": float(reached[-1]),
        }
        for q in FRACTIONS:
            hit = np.flatnonzero(reached >= q)
            first = int(hit[0]) if hit.size else None
            row[q] = (
                None
                if first is None
                else {
                    "sweeps": int(points[first, 0]),
                    "cpu_seconds": float(points[first, 1]),
                    "wall_seconds": float(points[first, 2]),
                }
            )
        if "picked" in record["contenders"][name]:
            row["picked"] = record["contenders"][name]["picked"]
        out["contenders"][name] = row
    return out


def _commit(record: dict) -> str:
    # The first records wrote "sha+dirty"; bench.records writes the sha and a flag.
    if "dirty" not in record:
        return record["commit"][:12]
    return record["commit"][:12] + (" (dirty)" if record["dirty"] else "")


def _seconds(cell, key) -> str:
    return "never" if cell is None else f"{cell[key]:.3g}"


def summary(runs: list[dict]) -> str:
    """The markdown tables of the records ``runs``."""
    runs = sorted(runs, key=lambda r: (r["corpus"]["n_tokens"], r["topics"], r["seed"], r["when"]))
    lines = [
        "# LDA: time to quality",
        "",
        "CPU (and wall) seconds of sweeps to reach 90%, 95%, 99% of the way from the "
        "median starting log joint to the best final log joint any contender reached in "
        "the same run (first checkpoint at or above; `never`: not within the budget, "
        "with the fraction reached). Log joints computed the same way for every "
        "contender, outside the timed intervals (`bench/lda_time_to_quality.py`).",
    ]
    for record in runs:
        result = times_to_quality(record)
        corpus = record["corpus"]
        host = record["host"]
        lines += [
            "",
            f"## {corpus['name']} ({corpus['n_tokens']:,} tokens), K = {record['topics']}, "
            f"seed {record['seed']}",
            "",
            f"{record['when']}, commit {_commit(record)}, {host['cpu']} "
            f"({host['cores']} cores, load average at the end "
            f"{', '.join(f'{x:.1f}' for x in host['load_average'])}); budget "
            f"{record['budget_cpu_seconds']:g} CPU s or {record['max_sweeps']} sweeps per "
            f"contender, log joint every {record['every']} sweeps; start "
            f"{result['start']:.0f}, best final {result['best']:.0f}; the zoo picks "
            f"{record['zoo_picks']['sampler']} ({record['zoo_picks']['reason']}).",
            f"`{record['command']}`",
            "",
            "| contender | sweeps run | CPU s | Mtokens per CPU s | final fraction "
            "| CPU s to 90% | 95% | 99% | wall s to 90% | 95% | 99% | sweeps to 99% |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for name, row in result["contenders"].items():
            label = name + (f" = {row['picked']}" if "picked" in row else "")
            lines.append(
                f"| {label} | {row['sweeps']} | {row['cpu_seconds']:.3g} | "
                f"{corpus['n_tokens'] * row['sweeps'] / row['cpu_seconds'] / 1e6:.3g} | "
                f"{row['final_fraction']:.4f} | "
                + " | ".join(_seconds(row[q], "cpu_seconds") for q in FRACTIONS)
                + " | "
                + " | ".join(_seconds(row[q], "wall_seconds") for q in FRACTIONS)
                + f" | {'never' if row[0.99] is None else row[0.99]['sweeps']} |"
            )
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=CORPORA, default="reuters")
    parser.add_argument("--topics", type=int, nargs="+", default=[20, 100, 1000])
    parser.add_argument(
        "--contenders", nargs="+", default=list(DEFAULT_CONTENDERS), choices=list(CONTENDERS)
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument(
        "--budget", type=float, default=20.0, help="CPU seconds of sweeps per contender"
    )
    parser.add_argument("--max-sweeps", type=int, default=1000)
    parser.add_argument("--every", type=int, default=5, help="sweeps between log joints")
    parser.add_argument("--out", default=str(RESULTS), help="folder of the records")
    parser.add_argument(
        "--summary", action="store_true", help="print the tables of the records in --out"
    )
    args = parser.parse_args(argv)
    out = Path(args.out)
    if args.summary:
        print(summary(records.read(out.name, root=out.parent)), end="")
        return
    if args.budget <= 0 or args.max_sweeps < 1 or args.every < 1:
        parser.error("--budget must be > 0, --max-sweeps and --every >= 1")
    out.mkdir(parents=True, exist_ok=True)
    corpus = load_corpus(args.corpus)
    for n_topics in args.topics:
        for seed in args.seeds:
            record = records.append_to(
                out / "records.jsonl", run_one(corpus, n_topics, seed, args.contenders, args)
            )
            print(f"wrote a record to {out / 'records.jsonl'}", flush=True)
            print(summary([record]), flush=True)


if __name__ == "__main__":
    main()
