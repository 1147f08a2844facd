"""LDA samplers: tokens per second, memory per token and log joint, zoo vs tomotopy vs lda.

Corpora (``--corpus``: ``reuters``, the ``lda`` package's 84,010-token sample, or
``zipf``, a synthetic 10-million-token corpus), the model (alpha = 0.1, beta = 0.01, K
from ``--topics``) and the contenders (``--contenders``: ``zoo``, ``zoo-mh`` with the
Metropolis-Hastings sweep's default cycles, 2 since the time-to-quality measurements and
1 in the tables committed before them, ``zoo-mh-c1``, ``zoo-mh-2``, ``tomotopy``,
``tomotopy-2``, ``lda``) are ``bench/lda_contenders.py``'s, described there. ``lda``'s
cost is O(K) per token: it is skipped where one sweep is estimated to take more than
``--lda-sweep-limit`` CPU seconds, and runs fewer burn-in and timed sweeps where all of
them would take more than ``--lda-run-limit`` (both from a calibration on the corpus's
first documents; the table says where).

numba compilation is excluded for both zoo samplers: before timing, one call updates the
first 1,000 tokens of the chain itself (an exact update of a few tokens, counted as
burn-in). Each seed runs every contender from its own initial state (zoo, zoo-mh:
uniform random topics; tomotopy: its own random init; lda: ``i % K``) for ``--burn``
untimed and ``--sweeps`` timed sweeps, contenders interleaved in an order rotated per
seed so that load from other jobs falls on all of them. Throughput is tokens per CPU
second of the whole process (``time.process_time``, all threads: steadier on a shared
machine) and per wall second, medians over seeds. The log joint ``log p(w, z)`` after
burn + sweeps is computed with ``zoo.models.lda.counts`` from each package's final
assignments.

zoo-mh mixes more slowly per sweep: after all seeds of a K, each zoo-mh chain runs on
(checked every ``max(1, sweeps // 5)`` sweeps) until its log joint reaches the median of
the zoo exact sweep's at burn + sweeps, or until ``--run-on-cap`` times ``--sweeps``
extra sweeps; the extra sweeps and their CPU seconds are recorded.

Memory per token: zoo and zoo-mh, the bytes of their arrays (``State`` plus the word
lists, or plus the word index); tomotopy, tomotopy-2 and lda, the growth of VmRSS
(``/proc/self/status``) of a fresh subprocess while it builds the model and runs
``--probe-sweeps`` sweeps (a fresh process because the parent's RSS keeps what earlier
contenders freed into its allocator).

Run (from the repository root; needs ``pip install -e '.[bench]'``), for example::

    python -m bench.lda_speed --corpus reuters --topics 20 100 1000 10000 \\
        --seeds 3 --burn 30 --sweeps 10
    python -m bench.lda_speed --corpus zipf --topics 1000 --seeds 1 --burn 3 --sweeps 3
    python -m bench.lda_speed --corpus zipf --topics 20 100 --seeds 1 --burn 5 \\
        --sweeps 5 --append

(the exact commands behind the committed tables are in ``bench/README.md``).

Records: ``bench/results/lda_speed/records.jsonl`` through ``bench.records``. A run opens
with a ``run_info`` record (host, commit, date, command, the package versions, the
corpus, the arguments; its ``run`` is the date and corpus), then one record per
measurement carrying that ``run``. ``--append RUN`` adds to an earlier run: the records
of the K values run again replace that run's earlier ones (their memory probes kept
when this call does not probe again). ``python -m bench.tables`` writes every run's
tables to ``bench/results/lda_speed/tables.md``; ``--summary RUN`` prints one run's.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench import records
from bench.lda_contenders import (
    ALPHA,
    BETA,
    CONTENDERS,
    PEERS,
    BenchCorpus,
    LdaPackage,
    corpus_info,
    load_corpus,
    timed_run,
    versions,
    vocabulary,
)
from zoo.models.lda import counts, sweeps

STUDY = "lda_speed"


def vm_status() -> dict:
    """VmRSS and VmHWM of this process, bytes."""
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key = line.split(":", 1)[0]
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(line.split()[1]) * 1024
    return out


def memory_plan(corpus: BenchCorpus, n_topics: int) -> dict:
    """Bytes the contenders' state will take, computed before building anything.

    zoo and zoo-mh exactly (dtypes as ``build_state`` chooses them; the word lists at
    their capacity); tomotopy and lda from their documented layouts (int32 topic-word
    and document-topic counts, per-token word and topic), so roughly.
    """
    n_tokens, n_docs, n_words = corpus.n_tokens, corpus.n_docs, corpus.n_words
    frequency = np.bincount(corpus.token_word, minlength=n_words)
    doc_item = counts.count_dtype(int(np.diff(corpus.doc_start).max())).itemsize
    word_item = counts.count_dtype(int(frequency.max())).itemsize
    state = (
        n_tokens * counts.topic_dtype(n_topics).itemsize
        + n_docs * n_topics * doc_item
        + n_words * n_topics * word_item
        + n_topics * 8
    )
    lists = (
        int(np.minimum(frequency, n_topics).sum())
        * np.min_scalar_type(max(n_topics - 1, 0)).itemsize
        + (2 * n_words + 1) * 8
    )
    word_tokens = n_tokens * 4 + (n_words + 1) * 8
    dense_int32 = (n_words + n_docs + 1) * n_topics * 4
    return {
        "zoo": state + lists,
        "zoo-mh": state + word_tokens,
        "zoo-mh-2": state + word_tokens,
        "tomotopy": dense_int32 + n_tokens * 8,
        "tomotopy-2": dense_int32 + n_tokens * 8,
        "lda": dense_int32 + n_tokens * 12,
    }


def lda_cost_model(corpus: BenchCorpus) -> tuple[float, float]:
    """CPU seconds per token of one lda sweep as ``a + b K``, fitted on two small runs.

    lda's sampler loops over all K topics for every token, so its sweep time is linear
    in K; two sweeps on the corpus' first documents (about 40,000 tokens) at K = 50 and
    K = 400 pin the line down well enough to decide what to skip.
    """
    n_docs = int(np.searchsorted(corpus.doc_start, 40_000)) + 1
    n_docs = min(n_docs, corpus.n_docs)
    end = int(corpus.doc_start[n_docs])
    small = BenchCorpus(
        corpus.name, corpus.token_word[:end], corpus.doc_start[: n_docs + 1], corpus.n_words
    )
    per_token = []
    for n_topics in (50, 400):
        model = LdaPackage(small, n_topics, 0)
        model.run(1)  # the first sweep touches fresh pages
        start = time.process_time()
        model.run(2)
        per_token.append((time.process_time() - start) / 2 / end)
    slope = (per_token[1] - per_token[0]) / 350
    return max(per_token[0] - 50 * slope, 0.0), max(slope, 1e-12)


def lda_plan(args, corpus, n_topics, cost):
    """(burn, sweeps, note) for lda at this K: as asked, fewer, or skipped (None)."""
    per_sweep = corpus.n_tokens * (cost[0] + cost[1] * n_topics)
    if per_sweep > args.lda_sweep_limit:
        return (
            None,
            None,
            f"lda skipped at K = {n_topics}: one sweep estimated at {per_sweep:.0f} CPU s "
            f"(> {args.lda_sweep_limit:.0f}; O(K) per token)",
        )
    total = per_sweep * (args.burn + args.sweeps)
    if total <= args.lda_run_limit:
        return args.burn, args.sweeps, None
    scale = args.lda_run_limit / total
    burn = int(args.burn * scale)
    n_sweeps = max(1, int(args.sweeps * scale))
    return (
        burn,
        n_sweeps,
        f"lda at K = {n_topics} ran burn {burn} + sweeps {n_sweeps} (not {args.burn} + "
        f"{args.sweeps}): one sweep estimated at {per_sweep:.1f} CPU s, the full run at "
        f"{total:.0f} (> {args.lda_run_limit:.0f}); its log joint is not comparable",
    )


def one_run(corpus, cls, n_topics, seed, burn, n_sweeps):
    """Build, burn in, time ``n_sweeps`` sweeps; return the record and the contender."""
    build_start = time.perf_counter()
    contender = cls(corpus, n_topics, seed)
    build_seconds = time.perf_counter() - build_start
    contender.run(burn)
    start, start_cpu = time.perf_counter(), time.process_time()
    contender.run(n_sweeps)
    seconds = time.perf_counter() - start
    # CPU time of the whole process (all threads): on a shared machine it is steadier
    # than wall time; cpu_seconds / seconds shows how many cores the contender got.
    cpu_seconds = time.process_time() - start_cpu
    record = {
        "kind": "run",
        "corpus": corpus.name,
        "n_tokens": corpus.n_tokens,
        "contender": cls.name,
        "topics": n_topics,
        "seed": seed,
        "burn": burn,
        "sweeps": n_sweeps,
        "build_seconds": build_seconds,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "mtokens_per_second": corpus.n_tokens * n_sweeps / seconds / 1e6,
        "mtokens_per_cpu_second": corpus.n_tokens * n_sweeps / cpu_seconds / 1e6,
        "log_joint": contender.log_joint(),
    }
    if hasattr(contender, "state_bytes"):
        record["state_bytes_per_token"] = contender.state_bytes() / corpus.n_tokens
    return record, contender


def run_on(chain, record, target, cap, stride):
    """Sweep a zoo-mh chain on until its log joint reaches ``target`` or ``cap`` sweeps."""
    log_p = record["log_joint"]
    extra, seconds, cpu_seconds = 0, 0.0, 0.0
    trajectory = [(0, log_p)]
    while log_p < target and extra < cap:
        step = min(stride, cap - extra)
        cpu, wall = timed_run(chain, step)
        seconds, cpu_seconds, extra = seconds + wall, cpu_seconds + cpu, extra + step
        log_p = chain.log_joint()
        trajectory.append((extra, log_p))
    return {
        "kind": "run_on",
        "corpus": record["corpus"],
        "contender": record["contender"],
        "topics": record["topics"],
        "seed": record["seed"],
        "burn": record["burn"],
        "sweeps": record["sweeps"],
        "target": target,
        "reached": bool(log_p >= target),
        "cap": cap,
        "stride": stride,
        "extra_sweeps": extra,
        "extra_seconds": seconds,
        "extra_cpu_seconds": cpu_seconds,
        "final_log_joint": log_p,
        "trajectory": trajectory,
    }


def probe(args):
    """Subprocess: VmRSS growth while one contender builds and runs, printed as JSON."""
    data = np.load(args.probe_corpus)
    corpus = BenchCorpus(
        str(data["name"]), data["token_word"], data["doc_start"], int(data["n_words"])
    )
    vocabulary(corpus.n_words)  # tomotopy's word strings: input, not model state
    cls = CONTENDERS[args.probe]
    gc.collect()
    before = vm_status()
    contender = cls(corpus, args.topics[0], 0)
    contender.run(args.probe_sweeps)
    after = vm_status()
    print(
        json.dumps(
            {
                "rss_growth": after["VmRSS"] - before["VmRSS"],
                "hwm_growth": after["VmHWM"] - before["VmHWM"],
            }
        )
    )


def probe_memory(corpus_file, name, n_topics, n_sweeps):
    cmd = [
        sys.executable,
        "-m",
        "bench.lda_speed",
        "--probe",
        name,
        "--probe-corpus",
        corpus_file,
        "--topics",
        str(n_topics),
        "--probe-sweeps",
        str(n_sweeps),
    ]
    # Run as a module from the repository root, where the bench package is.
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=root)
    return json.loads(out.stdout.strip().splitlines()[-1])


def environment():
    return {**versions(), "zoo_sparse_from_topics": sweeps.SPARSE_FROM_TOPICS}


def _median(values):
    return float(np.median(values)) if len(values) else float("nan")


def _cell(value, digits=2):
    return "–" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def summarise(records, env, info):
    """The summary dict and the markdown tables of one corpus."""
    runs = [r for r in records if r["kind"] == "run"]
    topics = sorted({r["topics"] for r in records if r["kind"] in ("run", "skip")})
    names = [n for n in CONTENDERS if any(r["contender"] == n for r in records)]
    summary = {}
    for n_topics in topics:
        row = {}
        for name in names:
            mine = [r for r in runs if r["topics"] == n_topics and r["contender"] == name]
            memory = [
                r
                for r in records
                if r["kind"] == "memory" and r["topics"] == n_topics and r["contender"] == name
            ]
            skip = [
                r
                for r in records
                if r["kind"] == "skip" and r["topics"] == n_topics and r["contender"] == name
            ]
            if not mine:
                row[name] = {"seeds": 0, "skipped": skip[0]["reason"] if skip else "not run"}
                continue
            log_p = np.array([r["log_joint"] for r in mine])
            per_token = [r.get("state_bytes_per_token") for r in mine]
            if per_token[0] is None and memory:
                per_token = [memory[0]["rss_growth"] / memory[0]["n_tokens"]]
            row[name] = {
                "seeds": len(mine),
                "burn": mine[0]["burn"],
                "sweeps": mine[0]["sweeps"],
                "mtokens_per_cpu_second": _median([r["mtokens_per_cpu_second"] for r in mine]),
                "mtokens_per_second": _median([r["mtokens_per_second"] for r in mine]),
                "cpu_seconds_per_sweep": _median([r["cpu_seconds"] / r["sweeps"] for r in mine]),
                "max_cpu_over_wall": float(max(r["cpu_seconds"] / r["seconds"] for r in mine)),
                "log_joint_median": float(np.median(log_p)),
                "log_joint_min": float(log_p.min()),
                "log_joint_max": float(log_p.max()),
                "bytes_per_token": per_token[0],
                "memory_measure": "arrays" if mine[0].get("state_bytes_per_token") else "rss",
            }
        run_on_records = [r for r in records if r["kind"] == "run_on" and r["topics"] == n_topics]
        if run_on_records:
            row["zoo-mh run-on"] = run_on_records
        summary[n_topics] = row

    def speed(row, name, key):
        cell = row.get(name, {})
        return cell.get(key) if cell.get("seeds") else None

    def ratio(a, b):
        return None if a is None or b is None else a / b

    corpus_line = (
        f"{info['n_tokens']:,} tokens, {info['n_docs']:,} documents, V = {info['n_words']:,}"
    )
    lines = [
        f"# LDA sampler speed on {info['title']} ({corpus_line})",
        "",
        f"alpha = {ALPHA} per topic, beta = {BETA} per word; medians over seeds; "
        f"tomotopy {env['tomotopy']} ({env['tomotopy_isa']}), lda {env['lda']}, "
        f"numba {env['numba']}; CPU {env['cpu']}, {env['cores']} cores shared with other "
        "jobs. zoo: exact SparseLDA Gibbs sweep; zoo-mh: exact Metropolis-Hastings sweep "
        "(doc + word proposal, 1 cycle); tomotopy: 1 worker (ParallelScheme.NONE); "
        "tomotopy-2: 2 workers (ParallelScheme.PARTITION, tomotopy's default for LDA); "
        "lda: the lda package. Generated by `bench/lda_speed.py` (command in its "
        "docstring and in bench/README.md).",
        "",
    ]
    for key, title in (
        ("mtokens_per_cpu_second", "Mtokens per CPU second of the process (all threads)"),
        ("mtokens_per_second", "Mtokens per wall second"),
    ):
        lines += [
            f"## {title}",
            "",
            "| K | " + " | ".join(names) + " | zoo / tomotopy | zoo-mh / tomotopy "
            "| zoo-mh / zoo | tomotopy-2 / tomotopy | tomotopy-2 / zoo | tomotopy-2 / zoo-mh "
            "| zoo-mh-2 / tomotopy-2 | seeds |",
            "|---" * (len(names) + 8) + "|---|",
        ]
        for n_topics, row in summary.items():
            values = {n: speed(row, n, key) for n in names}
            cells = [_cell(values[n]) for n in names]
            pairs = (
                ("zoo", "tomotopy"),
                ("zoo-mh", "tomotopy"),
                ("zoo-mh", "zoo"),
                ("tomotopy-2", "tomotopy"),
                ("tomotopy-2", "zoo"),
                ("tomotopy-2", "zoo-mh"),
                ("zoo-mh-2", "tomotopy-2"),
            )
            cells += [_cell(ratio(values.get(a), values.get(b))) for a, b in pairs]
            seeds = max(row[n]["seeds"] for n in names)
            lines.append(f"| {n_topics} | " + " | ".join(cells) + f" | {seeds} |")
        lines.append("")
    most = {
        n_topics: {n: speed(row, n, "max_cpu_over_wall") for n in names}
        for n_topics, row in summary.items()
    }
    lines += [
        "Largest CPU / wall ratio of a timed run (1 = one core all the time; tomotopy-2 "
        "can reach 2): "
        + "; ".join(
            f"K = {k}: " + ", ".join(f"{n} {_cell(v)}" for n, v in m.items() if v is not None)
            for k, m in most.items()
        )
        + ".",
        "",
        "## Memory: bytes of sampler state per token",
        "",
        "zoo, zoo-mh: nbytes of their arrays (State: topic, doc_topic, word_topic, "
        "topic_total; plus SparseLDA's word lists for zoo, the word index for zoo-mh). "
        "tomotopy, tomotopy-2, lda: VmRSS growth of a fresh process while it builds the "
        "model and runs one sweep (so tomotopy-2 includes what PARTITION allocates for "
        "its workers), divided by the tokens.",
        "",
        "| K | " + " | ".join(names) + " |",
        "|---" * (len(names) + 1) + "|",
    ]
    for n_topics, row in summary.items():
        cells = [_cell(speed(row, n, "bytes_per_token"), 1) for n in names]
        lines.append(f"| {n_topics} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Log joint log p(w, z) after burn + sweeps",
        "",
        "Median [min, max] over seeds, computed by zoo.models.lda.counts from each "
        "contender's final assignments. 'within peers' range': the zoo's (zoo-mh's) "
        "median lies between the smallest and largest value of tomotopy, tomotopy-2 and "
        "lda runs with the same number of sweeps.",
        "",
        "| K | sweeps | "
        + " | ".join(names)
        + " | zoo within peers' range | zoo-mh within peers' range |",
        "|---" * (len(names) + 4) + "|",
    ]
    for n_topics, row in summary.items():
        # The sweeps column and the peers' runs follow the zoo's exact sweep, or the
        # first contender that ran when it did not (a --contenders subset).
        ran = [row[n] for n in names if row[n]["seeds"]]
        zoo_cell = row["zoo"] if "zoo" in names and row["zoo"]["seeds"] else ran[0]
        cells = []
        for n in names:
            cell = row[n]
            if not cell["seeds"]:
                cells.append("–")
                continue
            text = (
                f"{cell['log_joint_median']:.0f} [{cell['log_joint_min']:.0f}, "
                f"{cell['log_joint_max']:.0f}]"
            )
            if cell["sweeps"] != zoo_cell["sweeps"] or cell["burn"] != zoo_cell["burn"]:
                text += f" (after {cell['burn']} + {cell['sweeps']})"
            cells.append(text)
        total = (zoo_cell.get("burn") or 0) + (zoo_cell.get("sweeps") or 0)
        peers = [
            r["log_joint"]
            for r in runs
            if r["topics"] == n_topics
            and r["contender"] in PEERS
            and r["burn"] + r["sweeps"] == total
            and r["burn"] == zoo_cell.get("burn")
        ]
        inside = []
        for name in ("zoo", "zoo-mh"):
            cell = row.get(name, {})
            if not peers or not cell.get("seeds"):
                inside.append("–")
            else:
                value = cell["log_joint_median"]
                if min(peers) <= value <= max(peers):
                    inside.append("yes")
                else:
                    inside.append("no (below)" if value < min(peers) else "no (above)")
        lines.append(
            f"| {n_topics} | {zoo_cell.get('burn')} + {zoo_cell.get('sweeps')} | "
            + " | ".join(cells)
            + f" | {inside[0]} | {inside[1]} |"
        )
    if any("zoo-mh run-on" in row for row in summary.values()):
        lines += [
            "",
            "## zoo-mh: extra sweeps to reach the zoo exact sweep's median log joint",
            "",
            "After burn + sweeps each zoo-mh chain sweeps on until its log joint reaches "
            "the median of the zoo chains' at burn + sweeps (checked every `stride` "
            "sweeps, so counts are rounded up to a multiple of it) or the cap. Extra CPU "
            "s: CPU seconds of those extra sweeps. Cost ratio: zoo-mh's CPU for burn + "
            "sweeps + extra over zoo's CPU for burn + sweeps (medians of CPU per sweep); "
            "below 1, zoo-mh reaches the same log joint for less CPU.",
            "",
            "| K | target (zoo median) | zoo-mh at burn + sweeps (median) | extra sweeps "
            "per seed | extra CPU s per seed | stride, cap | cost ratio zoo-mh / zoo |",
            "|---|---|---|---|---|---|---|",
        ]
        for n_topics, row in summary.items():
            found = row.get("zoo-mh run-on")
            if not found:
                continue
            extra = ", ".join(
                f"{r['extra_sweeps']}" + ("" if r["reached"] else " (not reached)") for r in found
            )
            extra_cpu = ", ".join(f"{r['extra_cpu_seconds']:.1f}" for r in found)
            mh, zoo = row["zoo-mh"], row["zoo"]
            reached = [r["extra_sweeps"] for r in found if r["reached"]]
            cost = None
            if reached and len(reached) == len(found):
                base = zoo["burn"] + zoo["sweeps"]
                cost = (
                    (base + float(np.median(reached)))
                    * mh["cpu_seconds_per_sweep"]
                    / (base * zoo["cpu_seconds_per_sweep"])
                )
            lines.append(
                f"| {n_topics} | {found[0]['target']:.0f} | {mh['log_joint_median']:.0f} | "
                f"{extra} | {extra_cpu} | {found[0]['stride']}, {found[0]['cap']} | "
                f"{_cell(cost) if cost is not None else 'not reached by every seed'} |"
            )
    notes = sorted({r["reason"] for r in records if r["kind"] in ("skip", "note")})
    if notes:
        lines += ["", "## Skipped or shortened", ""] + [f"- {n}" for n in notes]
    return summary, "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("reuters", "zipf"), default="reuters")
    parser.add_argument("--topics", type=int, nargs="+", default=[20, 100, 1000, 10000])
    parser.add_argument("--contenders", nargs="+", default=list(CONTENDERS), choices=CONTENDERS)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--burn", type=int, default=30)
    parser.add_argument("--sweeps", type=int, default=10)
    parser.add_argument(
        "--run-on-cap",
        type=float,
        default=10,
        help="zoo-mh runs on for at most this many times --sweeps extra sweeps",
    )
    parser.add_argument("--lda-sweep-limit", type=float, default=60.0)
    parser.add_argument("--lda-run-limit", type=float, default=60.0)
    parser.add_argument("--probe-sweeps", type=int, default=1)
    parser.add_argument("--no-memory-probe", action="store_true")
    parser.add_argument("--append", metavar="RUN", help="add to this earlier run")
    parser.add_argument("--summary", metavar="RUN", help="print this run's tables and stop")
    # Internal: the memory probe's subprocess.
    parser.add_argument("--probe", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--probe-corpus", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        probe(args)
        return

    if args.summary:
        print(run_tables(records.read(STUDY), args.summary))
        return
    start = time.perf_counter()
    corpus = load_corpus(args.corpus)
    info = corpus_info(corpus)
    print(f"corpus {json.dumps(info)} ({time.perf_counter() - start:.1f} s)", flush=True)
    env = environment()
    print(json.dumps(env), flush=True)
    if args.append:
        run = args.append
        if not any(r.get("run") == run for r in records.read(STUDY)):
            raise SystemExit(f"--append: no run {run!r} in bench/results/{STUDY}")
        # The K values run again replace the run's earlier records of them.
        records.append(
            STUDY,
            {
                "kind": "rerun",
                "run": run,
                "topics": args.topics,
                "probed": not args.no_memory_probe,
            },
        )
    else:
        run = f"{records.provenance()['date']} {corpus.name}"
        arguments = {k: v for k, v in vars(args).items() if k not in ("probe", "probe_corpus")}
        records.append(
            STUDY,
            {
                "kind": "run_info",
                "run": run,
                "environment": env,
                "corpus": info,
                "args": arguments,
            },
        )
    available = (
        int(
            next(
                line.split()[1]
                for line in Path("/proc/meminfo").read_text().splitlines()
                if line.startswith("MemAvailable")
            )
        )
        * 1024
    )
    names = [n for n in CONTENDERS if n in args.contenders]
    cost = lda_cost_model(corpus) if "lda" in names else None
    if cost:
        print(f"lda cost model: {cost[0] * 1e9:.0f} + {cost[1] * 1e9:.2f} K ns per token")

    with tempfile.TemporaryDirectory() as tmp:
        corpus_file = os.path.join(tmp, "corpus.npz")
        np.savez(
            corpus_file,
            name=corpus.name,
            token_word=corpus.token_word,
            doc_start=corpus.doc_start,
            n_words=corpus.n_words,
        )
        emitted = []

        def emit(record):
            emitted.append(record)
            records.append(STUDY, {"run": run, **record})

        for n_topics in args.topics:
            plan = memory_plan(corpus, n_topics)
            print(
                f"K={n_topics}: planned state GB "
                + ", ".join(f"{n} {plan[n] / 1e9:.2f}" for n in names)
                + f"; MemAvailable {available / 1e9:.1f} GB",
                flush=True,
            )
            # zoo-mh chains stay alive (for the run-on) while the others run.
            need = max(plan[n] for n in names) + args.seeds * plan["zoo-mh"]
            if need > 0.8 * available:
                raise SystemExit(f"K={n_topics}: needs ~{need / 1e9:.1f} GB, too much")
            active = list(names)
            lda_burn = lda_sweeps = None
            if "lda" in names:
                lda_burn, lda_sweeps, note = lda_plan(args, corpus, n_topics, cost)
                if lda_burn is None:
                    active.remove("lda")
                    emit(
                        {
                            "kind": "skip",
                            "corpus": corpus.name,
                            "contender": "lda",
                            "topics": n_topics,
                            "reason": note,
                        }
                    )
                elif note:
                    emit(
                        {
                            "kind": "note",
                            "corpus": corpus.name,
                            "contender": "lda",
                            "topics": n_topics,
                            "reason": note,
                        }
                    )
                if note:
                    print(note, flush=True)
            if not args.no_memory_probe:
                for name in active:
                    if name in PEERS:
                        grown = probe_memory(corpus_file, name, n_topics, args.probe_sweeps)
                        emit(
                            {
                                "kind": "memory",
                                "corpus": corpus.name,
                                "contender": name,
                                "topics": n_topics,
                                "n_tokens": corpus.n_tokens,
                                "probe_sweeps": args.probe_sweeps,
                                **grown,
                            }
                        )
                        print(
                            f"K={n_topics} {name:10s} RSS growth "
                            f"{grown['rss_growth'] / corpus.n_tokens:.1f} B/token",
                            flush=True,
                        )
            chains = []
            for seed in range(args.seeds):
                # Rotate the order per seed: no contender always runs first or last.
                shift = seed % len(active)
                for name in active[shift:] + active[:shift]:
                    burn, n_sweeps = args.burn, args.sweeps
                    if name == "lda":
                        burn, n_sweeps = lda_burn, lda_sweeps
                    record, chain = one_run(
                        corpus, CONTENDERS[name], n_topics, seed, burn, n_sweeps
                    )
                    emit(record)
                    if name == "zoo-mh":
                        chains.append((chain, record))
                    del chain
                    gc.collect()
                    print(
                        f"K={n_topics:5d} seed={seed} {name:10s} "
                        f"{record['mtokens_per_cpu_second']:7.2f} Mtok/CPU s "
                        f"{record['mtokens_per_second']:7.2f} Mtok/s  "
                        f"log p(w,z) = {record['log_joint']:.0f}  "
                        f"(build {record['build_seconds']:.1f} s)",
                        flush=True,
                    )
            zoo_log_p = [
                r["log_joint"]
                for r in emitted
                if r["kind"] == "run" and r["topics"] == n_topics and r["contender"] == "zoo"
            ]
            if chains and zoo_log_p:
                target = float(np.median(zoo_log_p))
                cap = round(args.run_on_cap * args.sweeps)
                stride = max(1, args.sweeps // 5)
                for chain, record in chains:
                    result = run_on(chain, record, target, cap, stride)
                    emit(result)
                    print(
                        f"K={n_topics:5d} seed={record['seed']} zoo-mh run-on: "
                        f"{result['extra_sweeps']} extra sweeps, "
                        f"{result['extra_cpu_seconds']:.1f} CPU s, reached "
                        f"{result['reached']}",
                        flush=True,
                    )
            del chains
            gc.collect()

    print(run_tables(records.read(STUDY), run))
    print(f"total {time.perf_counter() - start:.0f} s")


def run_records(study: list[dict], run: str) -> tuple[dict, list[dict]]:
    """A run's ``run_info`` and its measurements, the K values run again replaced."""
    info = next((r for r in study if r.get("kind") == "run_info" and r["run"] == run), None)
    if info is None:
        raise SystemExit(f"no run {run!r} in bench/results/{STUDY}")
    kept: list[dict] = []
    for record in study:
        if record.get("run") != run or record.get("kind") == "run_info":
            continue
        if record.get("kind") == "rerun":
            again = set(record["topics"])
            kept = [
                r
                for r in kept
                if r.get("topics") not in again
                or (not record["probed"] and r.get("kind") == "memory")
            ]
            continue
        kept.append({k: v for k, v in record.items() if k != "run"})
    return info, kept


def run_tables(study: list[dict], run: str) -> str:
    """The markdown tables of one run (``summarise``'s), from the study's records."""
    info, measured = run_records(study, run)
    return summarise(measured, info["environment"], info["corpus"])[1]


if __name__ == "__main__":
    main()
