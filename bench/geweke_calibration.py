"""Geweke's test at its defaults: false alarms of correct kernels, power against bugs.

For every kernel of the catalogue, the zoo's models (``zoo.names()``, the model's own
kernel, LDA's Metropolis-Hastings kernel, and ``spec.faults``) and the examples with a
kernel (``examples/*.py``'s ``EXAMPLES``: the correct ``kernel`` and ``bug_kernels``),
this runs
``zoo.diagnostics.geweke.geweke`` at its defaults (5,000 marginal draws of which 1,000
fix the test functions, 4 chains from 10,000 steps doubling to at most 20,000, 80,000
before commit 9c72880, restarted from exact joint draws every 500 steps under the rule
``independent segments``, alpha 0.01) for each seed, in one process, and writes one JSON
line per run: the verdict, the length the chains stopped at, the stages, the rejected
and unjudged test functions, the smallest Holm-adjusted p over all rows and over the
rows past the ESS gate (``smallest_p_adjusted_judged``, which older records lack: a run
that could not judge may carry its smallest p on an unjudged row), the CPU seconds of
the run (``time.process_time``), the host and the commit. Runs already in the records are
skipped, so a study can be resumed and extended seed by seed.

    nice python -m bench.geweke_calibration --kind correct --seeds 100
    nice python -m bench.geweke_calibration --kind bug --seeds 20
    nice python -m bench.geweke_calibration --kind correct --seeds 100 --only beta-binomial
    python -m bench.geweke_calibration --summary

Each record says the chain side's error rule it ran under (``rule``): ``batch means``
(the records before it was named: 4 chains run on, batch means with an ESS gate and a
floor) or ``independent segments`` (each chain restarted from an exact joint draw at
every batch, the segments' means independent: the rule since it was named). A run is
skipped when the records hold it under the current rule; the table has a line per rule.

A run under the current rule is one replicate, the first ``geweke`` makes; when it
fails, ``geweke`` runs a confirmation (an independent replicate, from the stream
``geweke-confirmation``) and fails only if that fails too. So when a first replicate
fails (in the records, from any earlier commit of the same rule: its draws are the
same), this runs its confirmation and records it under the rule ``confirmation``; the
same command completes the confirmations the records lack. ``geweke``'s verdict for a
seed is the first replicate's when it did not fail, and otherwise the confirmation's
when it did not fail, else FAIL (:func:`confirmed_runs`; the summary's first table).

A correct kernel's ``fail`` is a false alarm (stated rate: alpha = 1% a run); a bug's
``fail`` is power. ``could not judge`` is a run whose chains reached the maximum length
with a test function still below the ESS gate.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
import time
import warnings
from pathlib import Path

from scipy import stats

from bench import records as bench_records
from bench.host import cpu_name

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "geweke_calibration" / "records.jsonl"
#: The example modules holding kernels (``EXAMPLES`` entries with ``kernel``).
EXAMPLE_MODULES = (
    "beta_binomial_rats",
    "coal_mining",
    "dirichlet_multinomial",
    "eight_schools",
    "gaussian_mixture",
    "linear_regression",
    "probit_regression",
    "pump_failures",
    "semi_conjugate_normal",
)


#: The chain side's error rule of zoo.diagnostics.geweke that runs are made under, and
#: the name of the rule of the records that do not say theirs.
RULE = "independent segments"
OLD_RULE = "batch means"
#: The rule of a confirmation's records: the replicate ``geweke`` runs after a first
#: replicate (a record under ``RULE``) failed, from the ``geweke-confirmation`` stream.
CONFIRMATION = "confirmation"

#: Correct kernels of the zoo's models other than the model's own, by model: a name for
#: the records and the kernel's location (the catalogue's ``lda`` rows of
#: ``mh-*`` are this kernel's planted bugs).
OTHER_CORRECT = {"lda": {"metropolis": "zoo.models.lda:metropolis_kernel"}}

#: A run's verdicts; "error" is a run whose model or kernel raised (said in the record).
VERDICTS = ("pass", "fail", "could not judge", "error")


def catalogue(kind: str) -> list[tuple[str, str, object, object]]:
    """``(target, kernel name, model builder, kernel)`` for every kernel of ``kind``.

    ``kind`` is ``correct`` (each model's own kernel and those of ``OTHER_CORRECT``) or
    ``bug`` (each planted fault).
    The model builder is called once per target, when its first run is due.
    """
    # deferred: zoo and the examples are imported after sys.path holds the repository
    import zoo
    from zoo.core.loading import load_object
    from zoo.specification.adapter import data_only_kernel, specified_model

    entries = []
    for name in zoo.names():
        spec = zoo.get(name)
        if spec.kernel_checks is None:
            continue
        kernels = {"correct": spec.kernel} if kind == "correct" else dict(spec.faults or {})
        if kind == "correct":
            for kernel_name, location in OTHER_CORRECT.get(name, {}).items():
                kernels[kernel_name] = load_object(location, field="OTHER_CORRECT")
        for kernel_name, kernel in kernels.items():
            entries.append((name, kernel_name, lambda name=name: zoo.get(name), kernel))
    for module_name in EXAMPLE_MODULES:
        module = importlib.import_module(f"examples.{module_name}")
        for example in getattr(module, "EXAMPLES", []):
            if example.kernel is None:
                continue
            kernels = {"correct": example.kernel} if kind == "correct" else example.bug_kernels

            def build(example=example):
                return specified_model(example.model, kernel=example.kernel)

            # The battery hands a user's kernel to Geweke wrapped as the specified
            # model's own is (data_only_kernel): so does this study.
            for kernel_name, kernel in kernels.items():
                entries.append(
                    (f"example: {example.title}", kernel_name, build, data_only_kernel(kernel))
                )
    return entries


def smallest_judged_p(table) -> float | None:
    """The smallest Holm-adjusted p among the rows past the ESS gate (None: no such row).

    A run's smallest p over all rows may be an unjudged row's, which the verdict does
    not count (``zoo.diagnostics.geweke``: such rows' segment means are too lumpy for
    the t test); a false alarm is quoted with its own rows' p.
    """
    judged = table.p_adjusted.values[table.gates_passed.values]
    return float(judged.min()) if judged.size else None


def one_run(model, kernel, seed: int, *, replicate: int = 0) -> dict:
    """One default replicate of Geweke's test of ``kernel`` on ``model``, as a JSON-ready
    record: the first (``replicate`` 0, ``geweke-chains``) or the confirmation (1) that
    ``geweke`` runs when the first fails (``geweke-confirmation``)."""
    from zoo.diagnostics.geweke import geweke

    started = time.process_time()
    try:
        result = geweke(model, kernel, seed=seed, replicate=replicate)
    except Exception as error:  # a study records what a run raised, and goes on
        return {
            "seed": seed,
            "verdict": "error",
            "error": f"{type(error).__name__}: {error}"[:500],
            "iterations": 0,
            "cpu_seconds": time.process_time() - started,
        }
    t = result.table
    return {
        "seed": seed,
        "verdict": result.verdict,
        "iterations": int(t.attrs["draws"]),
        "settings": t.attrs["settings"],
        "functions": int(t.sizes["test"]),
        "rejected": [str(f) for f in t.function.values[t.rejected.values]],
        "unjudged": int((~t.gates_passed.values).sum()),
        "smallest_p_adjusted": float(t.p_adjusted.values.min()),
        "smallest_p_adjusted_judged": smallest_judged_p(t),
        "cpu_seconds": time.process_time() - started,
    }


def confirmed_runs(records: list[dict]) -> tuple[list[dict], int]:
    """``geweke``'s verdict per seed: each first replicate under :data:`RULE` with its
    confirmation (:data:`CONFIRMATION`), and the count of failed ones not yet confirmed
    (left out).

    A first replicate that did not fail is the verdict. One that failed is FAIL when
    its confirmation failed too, and otherwise the confirmation's verdict (pass, could
    not judge, error: ``zoo.diagnostics.geweke.confirmed``); its CPU seconds are the
    two replicates'. A seed recorded twice counts once, as first recorded.
    """
    firsts = {(*_key(r), r["seed"]): r for r in reversed(records) if _key(r)[3] == RULE}
    confirmations = {
        (*_key(r)[:3], r["seed"]): r for r in reversed(records) if _key(r)[3] == CONFIRMATION
    }
    runs, unconfirmed = [], 0
    for first in reversed(firsts.values()):
        if first["verdict"] != "fail":
            runs.append(first)
            continue
        second = confirmations.get((*_key(first)[:3], first["seed"]))
        if second is None:
            unconfirmed += 1
            continue
        runs.append(
            {
                **first,
                # both failed: FAIL; otherwise what the confirmation found
                "verdict": second["verdict"],
                "cpu_seconds": first["cpu_seconds"] + second["cpu_seconds"],
            }
        )
    return runs, unconfirmed


def _interval(k: int, n: int) -> str:
    """``k/n`` with its rate and Clopper-Pearson 95% interval, in percent."""
    low, high = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
    return f"{k}/{n} = {100 * k / n:.1f}% ({100 * low:.1f}-{100 * high:.1f}%)"


def _key(record: dict) -> tuple:
    """``(kind, target, kernel, rule)`` of a record; its rule is the old one if unsaid."""
    return (
        record["kind"],
        record["target"],
        record["kernel"],
        record.get("rule", OLD_RULE),
    )


def _counted(record: dict) -> bool:
    """Whether a run counts against its kernel: a correct kernel's ``fail`` (a false
    alarm), a bug's ``fail`` or ``error`` (a detection: ``zoo validate`` fails the check
    when the chain raises)."""
    counted = ("fail",) if record["kind"] == "correct" else ("fail", "error")
    return record["verdict"] in counted


def _row(kind: str, target: str, kernel: str, runs: list[dict]) -> str:
    count = {v: sum(r["verdict"] == v for r in runs) for v in VERDICTS}
    n = len(runs)
    lengths = sorted(r["iterations"] for r in runs)
    seconds = sorted(r["cpu_seconds"] for r in runs)
    return (
        f"| {kind} | {target} | {kernel} | {n} | {count['pass']} | {count['fail']} | "
        f"{count['could not judge']} | {count['error']} | "
        f"{_interval(sum(map(_counted, runs)), n)} | {lengths[n // 2]}, {lengths[-1]} | "
        f"{seconds[n // 2]:.1f} |"
    )


def table(records: list[dict], rule: str) -> str:
    """Markdown of the runs under ``rule``: a line per kernel, correct kernels first,
    then each kind's runs pooled.

    The rate is a correct kernel's failures (false alarms; stated: alpha = 1% a run) or
    a bug's failures and errors (detections), out of every run, with its Clopper-Pearson
    95% interval (``scipy.stats.binomtest``); a seed's run counts once. "stopped at" is
    the chains' length when the test was made; CPU seconds are ``time.process_time`` of
    the run.
    """
    # A seed recorded twice (two processes ran it: the same draws, the same verdict)
    # counts once, as first recorded.
    first = {(*_key(r), r["seed"]): r for r in reversed(records) if _key(r)[3] == rule}
    mine = list(reversed(first.values()))
    lines = [
        "| kind | target | kernel | runs | pass | fail | could not judge | error | "
        "false alarms or detections (95% CI) | stopped at (median, max) | "
        "CPU s per run (median) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for kind, words in (("correct", "every correct kernel"), ("bug", "every bug")):
        runs = [r for r in mine if r["kind"] == kind]
        keys = list(dict.fromkeys(_key(r)[:3] for r in runs))
        # the zoo's models before the examples, each in the order first recorded
        for key in sorted(keys, key=lambda k: (k[1].startswith("example: "), keys.index(k))):
            lines.append(_row(*key, [r for r in runs if _key(r)[:3] == key]))
        if runs:
            lines.append(_row(kind, f"**pooled** ({len(keys)} kernels)", words, runs))
    return "\n".join(lines)


def summary(path: Path) -> str:
    """Markdown: ``geweke``'s verdicts (a failure confirmed, :func:`confirmed_runs`),
    then a table per rule of single replicates (:func:`table`), the current rule's
    first."""
    records = bench_records.read_file(path)
    parts = []
    runs, unconfirmed = confirmed_runs(records)
    if any(_key(r)[3] == CONFIRMATION for r in records):
        words = f"; {unconfirmed} failed first replicates not yet confirmed" * bool(unconfirmed)
        parts += [
            f"## {RULE}, a failure confirmed (geweke's verdict{words})",
            "",
            table(runs, RULE),
            "",
        ]
    for rule, words in ((RULE, "the current rule, one replicate"), (OLD_RULE, "historical")):
        if any(_key(r)[3] == rule for r in records):
            parts += [f"## {rule} ({words})", "", table(records, rule), ""]
    return "\n".join(parts).rstrip("\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=("correct", "bug"), default="correct")
    parser.add_argument("--seeds", type=int, default=100, help="seeds up to N-1 per kernel")
    parser.add_argument("--start", type=int, default=0, help="the first seed")
    parser.add_argument("--only", action="append", default=[], help="targets to run (repeat)")
    parser.add_argument("--kernel", action="append", default=[], help="kernels to run (repeat)")
    parser.add_argument("--summary", action="store_true", help="print the table and stop")
    args = parser.parse_args()
    if args.summary:
        print(summary(RESULTS))
        return
    sys.path.insert(0, str(ROOT))
    warnings.filterwarnings("ignore")
    logging.getLogger("pymc").setLevel(logging.ERROR)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    held = bench_records.read_file(RESULTS)
    done = {(*_key(r), r["seed"]) for r in held}
    failed = {(*_key(r), r["seed"]) for r in held if r["verdict"] == "fail"}
    host, commit = cpu_name(), bench_records.provenance()["commit"]
    chosen = [
        (target, kernel_name, build, kernel)
        for target, kernel_name, build, kernel in catalogue(args.kind)
        if target in (args.only or [target]) and kernel_name in (args.kernel or [kernel_name])
    ]
    models = {}
    # Seeds outermost: every kernel chosen gets its first seeds before any gets many, so
    # a study cut short by its time still covers them all.
    for seed in range(args.start, args.seeds):
        for target, kernel_name, build, kernel in chosen:
            first = (args.kind, target, kernel_name, RULE, seed)
            confirmation = (args.kind, target, kernel_name, CONFIRMATION, seed)
            due = [
                rule
                for rule, key in ((RULE, first), (CONFIRMATION, confirmation))
                if key not in done
            ]
            for rule in due:
                # A confirmation is run only for a first replicate that failed.
                if rule == CONFIRMATION and first not in failed:
                    continue
                if target not in models:
                    models[target] = build()
                replicate = int(rule == CONFIRMATION)
                record = {
                    "kind": args.kind,
                    "target": target,
                    "kernel": kernel_name,
                    "rule": rule,
                    **one_run(models[target], kernel, seed, replicate=replicate),
                    "host": host,
                    "commit": commit,
                }
                bench_records.append_to(RESULTS, record)
                print(json.dumps(record), flush=True)
                if record["verdict"] == "fail":
                    failed.add((*_key(record), seed))
    print(summary(RESULTS))


if __name__ == "__main__":
    main()
