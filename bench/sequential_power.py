"""Power, false alarms and cost of ``zoo.testing.assert_valid`` (sequential, rate 1e-4).

For every zoo model, its correct kernel and every catalogued wrong kernel (``zoo list
--faults``) go through ``assert_valid`` once per seed, in this process (as under pytest);
``--examples`` does the same for the classic examples (``bench.classic_power.EXAMPLES``:
the PyMC program, its hand-derived ``kernel`` and its planted ``BUG_KERNELS``, as
``zoo validate --model M:model --kernel M:kernel`` checks them: exact, SBC, Geweke,
invariance). Each record holds the verdict, the stages run, each check's verdict in the
stage that decided it, the checks each stage ran (``stage_checks``: a check in a later
stage carried the run there; the table's *carried by*), the exact check's draws per
chain summed over the stages, the wall and CPU seconds, and the host and commit.
``--baseline`` records the same for the fixed-budget battery at its default 1%
(``zoo.validate``), the cost the sequential design must not exceed for a correct sampler
(docs/testing.md). ``--paired`` runs that fixed battery on the same seed in the same
process right beside each correct sampler's sequential run (the one before the other in
turn, seed by seed, so neither always pays for a warm-up), and keeps its verdict and
cost in the sequential run's record (``fixed``): the two costs are then taken under the
same load.

A record's mode names the design: ``sequential-RATE-BUDGET`` for the first design (every
stage at 4**k times the preset, clear pass at 0.05), ``sequential-RATE-BUDGET-first
F-clear C`` for a first stage at F times the preset and a clear pass at C
(``zoo.testing.sequential.FIRST``, ``CLEAR``), with Geweke's independent draws and the
invariance replicates fixed at every stage; ``...-every-size`` for the same with those
scaled by the stage too (every sample size a test rests on: the design now). The
exact check's draws per chain (``draws_per_chain``) are those its fits grew to from
the ``-every-size`` records on, the draws each stage started from before.

    python -m bench.sequential_power --models beta-binomial --seeds 20
    python -m bench.sequential_power --models beta-binomial --seeds 20 --baseline
    python -m bench.sequential_power --models gda --samplers correct --seeds 5
    python -m bench.sequential_power --examples dirichlet-multinomial --seeds 10
    python -m bench.sequential_power --models naive-bayes gda --samplers correct --paired
    python -m bench.sequential_power --summary

``--summary`` prints the table of every mode, then two lines pooled over the correct
samplers of the current design only: their false alarms (and inconclusive runs) with
the one-sided 95% bound of the rate, and their paired runs' cost ratios.

Records are appended to ``bench/results/sequential_power/records.jsonl`` as they arrive,
through ``bench.records`` (host, commit, date and command inside each; a rerun skips what
is there); ``python -m bench.tables`` writes their table to ``table.md`` beside them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings
from collections import defaultdict
from pathlib import Path

from scipy import stats

from bench import records as bench_records

RESULTS = bench_records.RESULTS / "sequential_power" / "records.jsonl"


def _done(path: Path) -> set[tuple]:
    if not path.exists():
        return set()
    records = (json.loads(line) for line in path.read_text().splitlines())
    return {(r["mode"], r["model"], r["sampler"], r["seed"]) for r in records}


def _candidates(models, examples):
    """``(model, name, sampler, keyword arguments of assert_valid / zoo.validate)`` per cell.

    A zoo model's name with ``fault=``; a classic example's PyMC program with its
    ``kernel=`` (the correct one or a planted bug), recorded under the example's slug.
    """
    # deferred: the battery imports PyMC, ArviZ and Dask (seconds); --summary needs none
    import zoo

    cells = []
    for name in models:
        for sampler in ("correct", *zoo.get(name).faults):
            fault = None if sampler == "correct" else sampler
            cells.append((name, sampler, {"model": name, "fault": fault}))
    if examples:
        from bench.classic_power import EXAMPLES

        for slug in examples:
            example = EXAMPLES[slug]
            kernels = {"correct": example.kernel, **example.bug_kernels}
            for sampler, kernel in kernels.items():
                cells.append((slug, sampler, {"model": example.model, "kernel": kernel}))
    return cells


def _fixed_run(arguments: dict, seed: int) -> dict:
    """The fixed-budget battery at its default 1%: verdict, checks, draws and cost."""
    import zoo

    wall, cpu = time.perf_counter(), time.process_time()
    result = zoo.validate(**arguments, seed=seed, workers=0)
    return {
        "verdict": result.verdict,
        "reason": result.reason,
        "stages": 1,
        "checks": {check.name: check.verdict for check in result.checks},
        # what a check that did not pass said, to find the cause without a rerun
        "summaries": {c.name: c.summary for c in result.checks if c.verdict != "pass"},
        "draws_per_chain": result.settings["budgets"].get("exact", {}).get("draws", 0),
        "seconds": time.perf_counter() - wall,
        "cpu_seconds": time.process_time() - cpu,
    }


def _sequential_run(arguments: dict, seed: int, *, budget: str, rate: float) -> dict:
    """``assert_valid`` at ``rate``: verdict, stages, checks, draws and cost."""
    from zoo.testing import assert_valid

    wall, cpu = time.perf_counter(), time.process_time()
    records = []
    try:
        assert_valid(
            **arguments,
            seed=seed,
            rate=rate,
            budget=budget,
            allow_inconclusive=True,
            on_record=records.append,
        )
    except AssertionError:
        pass
    result = records[0].result
    return {
        "verdict": result.verdict,
        "stages": len(records[0].stages),
        "checks": {check.name: check.verdict for check in result.checks},
        "draws_per_chain": records[0].draws,
        # the checks each stage ran: those of a later stage carried the run there
        "stage_checks": [[check.name for check in ran.checks] for _, ran in records[0].stages],
        "seconds": time.perf_counter() - wall,
        "cpu_seconds": time.process_time() - cpu,
    }


def one_run(
    arguments: dict, seed: int, *, baseline: bool, budget: str, rate: float, paired=False
) -> dict:
    """One validation of one candidate: verdict, stages, checks, draws and cost.

    With ``paired``, the fixed battery on the same seed too, before the sequential run
    on odd seeds and after it on even ones, its outcome under ``fixed``.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if baseline:
            return _fixed_run(arguments, seed)
        fixed = _fixed_run(arguments, seed) if paired and seed % 2 else None
        outcome = _sequential_run(arguments, seed, budget=budget, rate=rate)
        if paired and fixed is None:
            fixed = _fixed_run(arguments, seed)
    return outcome if fixed is None else {**outcome, "fixed": fixed}


def mode_name(*, baseline: bool, rate: float, budget: str) -> str:
    """The records' name of a design: the fixed battery, or the sequential one now."""
    if baseline:
        return "fixed-1%"
    from zoo.testing.sequential import CLEAR, FIRST

    return f"sequential-{rate:g}-{budget}-first{FIRST:g}-clear{CLEAR:g}-every-size"


#: The design before the stages scaled Geweke's independent draws and the invariance
#: replicates (its bugs' records stand beside the current design's in docs/testing.md:
#: each failed in the exact check, before either of those checks ran).
PREVIOUS = "sequential-0.0001-default-first0.75-clear0.25"


def run(
    models,
    seeds: int,
    path: Path,
    *,
    baseline: bool,
    budget: str,
    rate: float,
    only=None,
    examples=(),
    first_seed: int = 0,
    paired: bool = False,
) -> None:
    """Run every (model, sampler) once per seed, seed-major, skipping what is done.

    ``paired``: each correct sampler's sequential run with the fixed battery beside it.
    """
    mode = mode_name(baseline=baseline, rate=rate, budget=budget)
    done = _done(path)
    cells = _candidates(models, examples)
    if only is not None:
        cells = [cell for cell in cells if cell[1] in only]
    for seed in range(first_seed, seeds):
        for name, sampler, arguments in cells:
            if (mode, name, sampler, seed) in done:
                continue
            outcome = one_run(
                arguments,
                seed,
                baseline=baseline,
                budget=budget,
                rate=rate,
                paired=paired and sampler == "correct",
            )
            record = {"mode": mode, "model": name, "sampler": sampler, "seed": seed, **outcome}
            bench_records.append_to(path, record)
            fixed = outcome.get("fixed")
            beside = (
                f"; fixed 1% {fixed['verdict']}, {fixed['cpu_seconds']:.1f} CPU s" if fixed else ""
            )
            print(
                f"{mode} {name} {sampler} seed {seed}: {outcome['verdict']} in "
                f"{outcome['stages']} stage(s), {outcome['cpu_seconds']:.1f} CPU s{beside}",
                flush=True,
            )


def _cpu(record: dict) -> str:
    # The first records held the processor's name alone; bench.records holds a dict.
    host = record["host"]
    return host["cpu"] if isinstance(host, dict) else host


def _interval(records: list[dict]) -> str:
    """Fails out of runs with the exact (Clopper-Pearson) 95% interval of the fail rate."""
    n = len(records)
    fails = sum(r["verdict"] == "fail" for r in records)
    low, high = stats.binomtest(fails, n).proportion_ci(0.95, method="exact")
    return f"{fails}/{n} [{low:.3f}, {high:.3f}]"


def _caught_by(records: list[dict]) -> str:
    """Per check, in how many failing runs it failed, of the failing runs whose records
    name their checks' verdicts (the first records did not)."""
    named = [r for r in records if r["verdict"] == "fail" and "checks" in r]
    counts: dict[str, int] = defaultdict(int)
    for record in named:
        for check, verdict in record["checks"].items():
            if verdict == "fail":
                counts[check] += 1
    cells = (f"{check} {n}/{len(named)}" for check, n in sorted(counts.items()))
    return ", ".join(cells) or "-"


def _carried_by(records: list[dict]) -> str:
    """Per check, in how many runs it ran in a stage after the first (it was neither a
    clear pass nor decided, so it carried the run there); runs that went past the
    first stage before the records named their stages' checks are counted apart."""
    later = [r for r in records if r["stages"] > 1]
    counts: dict[str, int] = defaultdict(int)
    for record in later:
        for check in {name for ran in record.get("stage_checks", [])[1:] for name in ran}:
            counts[check] += 1
    cells = [f"{check} {n}" for check, n in sorted(counts.items())]
    unnamed = sum("stage_checks" not in r for r in later)
    if unnamed:
        cells.append(f"not recorded {unnamed}")
    return ", ".join(cells) or "-"


def _ratios(records: list[dict]) -> list[float]:
    """Per paired run, its CPU seconds over those of the fixed battery run beside it on
    the same seed (each pair taken under the same load)."""
    return [r["cpu_seconds"] / r["fixed"]["cpu_seconds"] for r in records if "fixed" in r]


def _paired_ratio(records: list[dict]) -> float:
    """The median over the paired runs of the ratio within a pair (not the ratio of
    the medians)."""
    return statistics.median(_ratios(records))


def false_alarms(records: list[dict], mode: str) -> str:
    """The correct samplers' failures pooled over every model and example at ``mode``,
    with the exact (Clopper-Pearson) one-sided 95% upper bound of the rate: the most a
    false-alarm rate can be and still leave that few failures with probability 5%.

    The inconclusive runs are counted beside them: ``assert_valid`` raises on those too
    unless its caller allows them, so in a test suite they would also turn a build red.
    """
    runs = [r for r in records if r["mode"] == mode and r["sampler"] == "correct"]
    if not runs:
        return f"{mode}: no correct runs"
    fails = sum(r["verdict"] == "fail" for r in runs)
    unjudged = sum(r["verdict"] == "inconclusive" for r in runs)
    upper = stats.binomtest(fails, len(runs), alternative="less").proportion_ci(0.95).high
    kernels = len({r["model"] for r in runs})
    return (
        f"{mode}: correct samplers failed in {fails} of {len(runs)} runs "
        f"({kernels} kernels), inconclusive in {unjudged}; "
        f"one-sided 95% upper bound of the rate {upper:.3f}"
    )


def paired_costs(records: list[dict], mode: str) -> str:
    """The correct samplers' runs at ``mode`` that have the fixed battery beside them
    (``--paired``), pooled over every model and example: the median, least and most of
    a pair's CPU seconds, sequential over fixed, and how many pairs are below 1."""
    pairs = [
        r for r in records if r["mode"] == mode and r["sampler"] == "correct" and "fixed" in r
    ]
    if not pairs:
        return f"{mode}: no correct runs paired with the fixed battery"
    ratios = sorted(_ratios(pairs))
    kernels = len({r["model"] for r in pairs})
    below = sum(ratio < 1 for ratio in ratios)
    return (
        f"{mode}: paired with the fixed 1% battery in {len(ratios)} correct runs "
        f"({kernels} kernels); a pair's CPU seconds, sequential over fixed: median "
        f"{statistics.median(ratios):.2f} ({ratios[0]:.2f} to {ratios[-1]:.2f}; "
        f"{below} of {len(ratios)} below 1)"
    )


def summary(records: list[dict], *, hosts: bool = True, modes=None) -> str:
    """Per model and sampler: the sequential design beside the fixed-budget battery.

    For each: fails out of seeds with the Clopper-Pearson 95% interval, passes,
    inconclusive runs, the stages run (median and most), the checks that carried runs
    past the first stage, the check(s) that failed, the median CPU seconds; then the
    fixed 1% battery's fails and median CPU seconds (from the fixed runs paired with
    these, marked so with the number of pairs and the median within a pair of the
    sequential run's CPU seconds over the fixed battery's, where some were; else from the
    baseline records); and, with
    ``hosts``, the processors the runs were taken on.
    ``modes``: only the rows of these modes (default all).
    """
    cells = defaultdict(list)
    for record in records:
        cells[(record["mode"], record["model"], record["sampler"])].append(record)
    baseline = {(m, s): rs for (mode, m, s), rs in cells.items() if mode == "fixed-1%"}
    rows = [
        "| mode | model | sampler | fails / seeds [95% CP] | passes | inconclusive | "
        "stages: median (most) | carried by | failed in | median CPU s | fixed 1%: fails / seeds "
        "[95% CP] | fixed 1%: median CPU s |" + (" hosts |" if hosts else ""),
        "|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if hosts else ""),
    ]
    for (mode, model, sampler), group in sorted(cells.items()):
        if mode == "fixed-1%" or (modes is not None and mode not in modes):
            continue
        passes = sum(r["verdict"] == "pass" for r in group)
        unjudged = sum(r["verdict"] == "inconclusive" for r in group)
        stages = [r["stages"] for r in group]
        # paired: the fixed battery run beside these runs, each on its run's seed
        fixed = [r["fixed"] for r in group if "fixed" in r]
        paired = bool(fixed)
        fixed = fixed or baseline.get((model, sampler), [])
        fixed_cells = (
            f"{_interval(fixed)} | {statistics.median(r['cpu_seconds'] for r in fixed):.1f}"
            + (f" (paired, {len(fixed)}; ratio {_paired_ratio(group):.2f})" if paired else "")
            if fixed
            else "- | -"
        )
        where = ", ".join(sorted({_cpu(r) for r in group + ([] if paired else fixed)}))
        rows.append(
            f"| {mode} | {model} | {sampler} | {_interval(group)} | {passes} | {unjudged} | "
            f"{statistics.median(stages):g} ({max(stages)}) | {_carried_by(group)} | "
            f"{_caught_by(group)} | "
            f"{statistics.median(r['cpu_seconds'] for r in group):.1f} | {fixed_cells} |"
            + (f" {where} |" if hosts else "")
        )
    return "\n".join(rows)


def main(argv=None) -> int:
    """Command line: run, or print the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", help="zoo models (default beta-binomial)")
    parser.add_argument(
        "--examples", nargs="*", default=(), help="classic examples (bench.classic_power)"
    )
    parser.add_argument("--first-seed", type=int, default=0, help="the first seed (default 0)")
    parser.add_argument(
        "--seeds", type=int, default=20, help="run seeds below this (default 20), not a count"
    )
    parser.add_argument("--budget", default="default", help="the budget preset (default)")
    parser.add_argument("--rate", type=float, default=1e-4, help="the false-alarm rate (1e-4)")
    parser.add_argument("--baseline", action="store_true", help="the fixed 1%% battery alone")
    parser.add_argument(
        "--paired", action="store_true", help="the fixed battery beside each correct run"
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="the records file")
    parser.add_argument("--summary", action="store_true", help="print the tables and stop")
    parser.add_argument("--samplers", nargs="+", help="only these (correct, fault names)")
    args = parser.parse_args(argv)
    if args.summary:
        records = bench_records.read_file(args.out)
        print(summary(records))
        mode = mode_name(baseline=False, rate=args.rate, budget=args.budget)
        print(false_alarms(records, mode))
        print(paired_costs(records, mode))
        return 0
    models = args.models
    if models is None:
        models = [] if args.examples else ["beta-binomial"]
    run(
        models,
        args.seeds,
        args.out,
        baseline=args.baseline,
        budget=args.budget,
        rate=args.rate,
        only=args.samplers,
        examples=args.examples,
        first_seed=args.first_seed,
        paired=args.paired,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
