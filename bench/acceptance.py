"""Issue 30 item 8: whole default runs of ``zoo validate`` on the examples, over seeds.

Every correct kernel must PASS, and every planted bug FAIL, in at least 19 of 20 seeds
with default settings. Each run here is the verdict a user sees from::

    zoo validate --model examples.M:model --kernel examples.M:kernel --seed SEED

that is ``zoo.validate(model, kernel=kernel, seed=seed)`` with every default: the
checks the battery's table chooses (exact where the zoo derives a reference, SBC,
Geweke, invariance; nuts only on request), the ``default`` budget preset, the
family-wise rate ``ALPHA`` (1%) and the verdict policy of
:func:`zoo.validation.results.battery_verdict`. It is the fixed battery of
``bench.sequential_power --baseline`` (:func:`bench.sequential_power.one_run`), run in
this process with ``workers=0``: the draws are the same whatever the workers
(:mod:`zoo.core.streams`), and the plan line's two timed fits, which the command line
adds, draw nothing the checks use. The candidates are those of the classic examples
(:data:`bench.classic_power.EXAMPLES`), of the same mixture with exchangeable
components (label switching), and of the existing examples the issue names beside
them (the pumps under the zoo's own hyperprior, the probit regression; the
semi-conjugate Normal is among the classic ones).

One JSON line per run goes to ``bench/results/acceptance/records.jsonl`` through
:mod:`bench.records` (host, commit, date and command inside): example, candidate
(``correct`` or the bug's name), seed, the battery's verdict and its reason, each
check's verdict, the summaries of the checks that did not pass, wall and CPU seconds
(``time.process_time``: every fit runs in this process). Runs already recorded are
skipped (whatever their commit), so an interrupted study resumes; ``--again``
measures them again after a change to the code they measured (the newest counts). ``python -m
bench.tables`` writes the table (``--summary`` prints it) to ``table.md`` beside the
records.

``--stop-at-failure`` runs no check after one that fails (``zoo.validate(...,
stop_at_failure=True)``, what :func:`zoo.testing.assert_valid` does): the verdict is
the whole run's, bit for bit, because each check draws from its own streams
(:mod:`zoo.core.streams`) and its share of the rate is fixed from the checks chosen
before any runs; a FAIL then costs the checks up to the first that fails, which is
what makes 20 seeds of every planted bug affordable. Such a record says so
(``stop_at_failure``), and the table's *checks that failed* counts only the first
failing check of those runs.

Run from the repository root, under ``nice``, cheapest examples first::

    nice -n 10 python -m bench.acceptance --examples semi-conjugate-normal --seeds 20
    nice -n 10 python -m bench.acceptance --candidates correct --seed-major --seeds 20
    nice -n 10 python -m bench.acceptance --candidates coal-mining:switch-year-twice \
        probit-regression:no-prior-precision --seed-major --seeds 2
    nice -n 10 python -m bench.acceptance --candidates pumps-bugs-hyperprior:correct \
        --seeds 1 --again
    nice -n 10 python -m bench.acceptance --bugs --stop-at-failure --seed-major --seeds 20
    python -m bench.acceptance --summary
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict

from scipy import stats

from bench import records as bench_records
from bench.classic_power import EXAMPLES as CLASSIC
from bench.sequential_power import one_run
from examples import gaussian_mixture, probit_regression, pump_failures

RESULTS = bench_records.RESULTS / "acceptance" / "records.jsonl"

#: Every example of item 8 by slug: the classic ones, the mixture with exchangeable
#: components (label switching), then the existing two not among them.
EXAMPLES = {
    **CLASSIC,
    "gaussian-mixture-exchangeable": gaussian_mixture.EXAMPLES[1],
    "pumps": next(e for e in pump_failures.EXAMPLES if e.model is pump_failures.model),
    "probit-regression": probit_regression.EXAMPLES[0],
}


def candidates(example) -> dict:
    """``{"correct": kernel, bug name: kernel, ...}`` of one example."""
    return {"correct": example.kernel, **example.bug_kernels}


def run(
    slugs,
    seeds: int,
    *,
    first_seed: int = 0,
    only=None,
    bugs_only=False,
    seed_major=False,
    again=False,
    stop_at_failure=False,
) -> None:
    """Each candidate of each example in ``slugs`` (in that order), seed by seed.

    Example-major (an example's seeds complete before the next starts), or with
    ``seed_major`` every example on a seed before the next seed (a first look at all).
    A run already recorded is skipped (whatever its commit: the table names them),
    unless ``again`` (a change to the code it measured): the table counts the newest.
    ``bugs_only`` leaves the correct kernels out; ``stop_at_failure`` ends a run at its
    first failing check (the same verdict, cheaper: the module's docstring).
    """
    records = [] if again else bench_records.read_file(RESULTS)
    done = {(r["example"], r["candidate"], r["seed"]) for r in records}
    cells = [
        (slug, name, kernel)
        for slug in slugs
        for name, kernel in candidates(EXAMPLES[slug]).items()
        if only is None or name in only or f"{slug}:{name}" in only
        if not (bugs_only and name == "correct")
    ]
    seeds = range(first_seed, seeds)
    order = (
        [(cell, seed) for seed in seeds for cell in cells]
        if seed_major
        else [(cell, seed) for cell in cells for seed in seeds]
    )
    for (slug, name, kernel), seed in order:
        if (slug, name, seed) in done:
            continue
        arguments = {"model": EXAMPLES[slug].model, "kernel": kernel}
        if stop_at_failure:
            arguments["stop_at_failure"] = True
        outcome = one_run(arguments, seed, baseline=True, budget="default", rate=0.0)
        record = {"example": slug, "candidate": name, "seed": seed, **outcome}
        if stop_at_failure:
            record["stop_at_failure"] = True
        bench_records.append_to(RESULTS, record)
        print(
            f"{slug} {name} seed {seed}: {outcome['verdict']} ({outcome['reason']}), "
            f"{outcome['cpu_seconds']:.1f} CPU s",
            flush=True,
        )


def _counts(group: list[dict], wanted: str) -> str:
    """``k / n [low, high]``: runs with the wanted verdict, 95% Clopper-Pearson interval."""
    n = len(group)
    k = sum(r["verdict"] == wanted for r in group)
    low, high = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
    return f"{k} / {n} [{low:.2f}, {high:.2f}]"


def summary(records: list[dict]) -> str:
    """Markdown: per example and candidate, the verdicts over seeds.

    The newest record of each (example, candidate, seed) counts. A correct kernel's
    wanted verdict is PASS, a planted bug's FAIL; the interval is that verdict's rate
    (95% Clopper-Pearson); "met" says whether at least 19 of 20 seeds gave it, "-"
    while fewer than 20 seeds are recorded and the count could still go either way.
    Runs that stopped at their first failing check (``--stop-at-failure``) count that
    check only, and the row says how many stopped so.
    """
    latest = {}
    for record in records:
        latest[record["example"], record["candidate"], record["seed"]] = record
    cells = defaultdict(list)
    for (slug, name, _), record in latest.items():
        cells[slug, name].append(record)
    order = {slug: i for i, slug in enumerate(EXAMPLES)}
    rows = [
        "| example | candidate | PASS | FAIL | INCONCLUSIVE | wanted / seeds [95% CP] | "
        "19 of 20 met | checks that failed | median CPU s | commits |",
        "|---|---|---:|---:|---:|---|---|---|---:|---|",
    ]
    for slug, name in sorted(
        cells, key=lambda key: (order.get(key[0], len(order)), key[1] != "correct")
    ):
        group = cells[slug, name]
        wanted = "pass" if name == "correct" else "fail"
        n = len(group)
        hits = sum(r["verdict"] == wanted for r in group)
        if hits >= 19:
            met = "yes"
        elif n - hits >= 2:
            met = "**no**"
        else:
            met = "-"
        failed = defaultdict(int)
        for record in group:
            for check, verdict in record["checks"].items():
                if verdict == "fail":
                    failed[check] += 1
        by_check = ", ".join(f"{check} {k}" for check, k in sorted(failed.items())) or "-"
        stopped = sum(bool(r.get("stop_at_failure")) for r in group)
        if stopped:
            by_check += f" ({stopped} stopped at the first)"
        verdicts = [
            sum(r["verdict"] == v for r in group) for v in ("pass", "fail", "inconclusive")
        ]
        cpu = statistics.median(r["cpu_seconds"] for r in group)
        commits = ", ".join(sorted({r["commit"][:7] for r in group}))
        rows.append(
            f"| {slug} | {name} | {verdicts[0]} | {verdicts[1]} | {verdicts[2]} | "
            f"{_counts(group, wanted)} | {met} | {by_check} | {cpu:.1f} | {commits} |"
        )
    return "\n".join(rows)


def main(argv=None) -> int:
    """Command line: run, or print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", nargs="+", choices=list(EXAMPLES), default=list(EXAMPLES))
    parser.add_argument(
        "--candidates",
        nargs="+",
        help="only these: correct or a bug's name, in every example, or EXAMPLE:NAME",
    )
    parser.add_argument(
        "--bugs", action="store_true", help="the planted bugs only (no correct kernel)"
    )
    parser.add_argument(
        "--stop-at-failure",
        action="store_true",
        help="no check after one that fails (the same verdict; the docstring says why)",
    )
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, default=20, help="seeds below this")
    parser.add_argument(
        "--seed-major", action="store_true", help="every example on a seed before the next"
    )
    parser.add_argument(
        "--again", action="store_true", help="measure recorded runs again (the newest counts)"
    )
    parser.add_argument("--summary", action="store_true", help="print the table and stop")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary(bench_records.read_file(RESULTS)))
        return 0
    run(
        args.examples,
        args.seeds,
        first_seed=args.first_seed,
        only=args.candidates,
        bugs_only=args.bugs,
        seed_major=args.seed_major,
        again=args.again,
        stop_at_failure=args.stop_at_failure,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
