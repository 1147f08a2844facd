"""What ``zoo check`` and ``zoo report`` print: consoles, numbers, verdict tables."""

from __future__ import annotations

import json
import math
import sys

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from zoo.check import COMPARISONS, exact_mean, quantity_rows
from zoo.cli.stdout_guard import emit
from zoo.core.defaults import ENGINES
from zoo.reports.check_report import check_report

__all__ = [
    "consoles",
    "finish_checks",
    "fmt",
    "jsonable",
    "kept_draws",
    "print_check_table",
]

_STYLE = {"agree": "green", "disagree": "bold red", "inconclusive": "yellow"}


def consoles(args):
    """``(stdout console, interactive, say)`` for a command's ``args`` (``--quiet``)."""
    err = Console(stderr=True)
    # Progress and status lines only on a terminal, and never with --quiet; the same
    # rule for sampling, judging, saving and writing the report.
    interactive = err.is_terminal and not args.quiet
    # Piped output is read in full (logs, CI): do not wrap it at 80 columns.
    out = Console(highlight=False, width=None if sys.stdout.isatty() else 160)

    def say(message):
        # Plain status lines, not a live display: the Gibbs and PyMC progress bars are
        # live displays of their own, and only one may run at a time.
        if interactive:
            err.print(f"[dim]{message}[/]")

    return out, interactive, say


def finish_checks(args, checks, say) -> int:
    """Write the report and the JSON of ``zoo check`` or ``zoo report``; the exit status."""
    if args.report is not None:
        say(f"writing the report to {args.report}")
        index = check_report(checks, title=args.title).write(args.report)
        say(f"report: {index}")
    verdicts = {c.verdict for c in checks}
    verdict = next((v for v in ("disagree", "inconclusive") if v in verdicts), "agree")
    if args.json:
        emit(
            json.dumps(
                {"verdict": verdict, "models": [c.to_dict() for c in checks]},
                indent=2,
                allow_nan=False,
                default=jsonable,
            )
        )
    return 0 if verdict == "agree" else 1


def jsonable(value):
    """``json.dumps`` default: NaN and infinities as null, anything else as its text."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return str(value)


def fmt(value: float, mcse: float | None = None) -> str:
    """``value`` to the digits its Monte Carlo standard error supports."""
    if value is None or not math.isfinite(value):
        return "-"
    digits = 4
    if mcse is not None and math.isfinite(mcse) and mcse > 0:
        # Show the digits the Monte Carlo error supports, and one more.
        digits = max(2, min(6, 2 - math.floor(math.log10(mcse))))
        return f"{value:.{digits}f} ± {mcse:.1g}"
    return f"{value:.{digits}f}"


def kept_draws(run) -> str:
    """``gibbs 2 chains x 19 draws (interrupted), pymc not run``: a run's draws per engine."""
    return ", ".join(f"{engine} {words}" for engine, words in run.kept().items())


def _drawn(result) -> str:
    """The draws behind a verdict: as asked, or, for an interrupted run, as kept per engine.

    A run interrupted before an engine ran is judged on the engines that did; saying
    which, and how many draws each kept, keeps the verdict from reading as a full check.
    """
    asked = f"draws {result.settings['draws']} x {result.settings['chains']} chains"
    run = getattr(result, "run", None)
    if run is None or not run.interrupted:
        return asked
    return f"interrupted: {kept_draws(run)}; asked {asked}"


def print_check_table(console, result, *, full: bool) -> None:
    """One model's ``zoo check`` verdicts as a table, vectors folded unless ``full``."""
    title = (
        f"{result.model}: {result.verdict.upper()}   "
        f"({_drawn(result)}, "
        f"seed {result.settings['seed']}, family-wise rate {result.settings['alpha']:g})"
    )
    table = Table(title=title, title_justify="left")
    for column in ("quantity", "exact mean", "Gibbs mean", "PyMC mean"):
        table.add_column(column, justify="left" if column == "quantity" else "right")
    for _, column in COMPARISONS:
        table.add_column(column, justify="right")

    def cell(q):
        if q is None:
            return "-"
        return f"[{_STYLE[q['verdict']]}]{q['verdict']}[/] max|z| {q['max_abs_z']:.1f}"

    def mean_cell(q):
        if q is None:
            return "-"
        if not math.isfinite(q["mean"]):
            return "(no mean)"
        return fmt(q["mean"], q["mean_mcse"])

    def exact_cell(row):
        mean = exact_mean(row)
        if math.isinf(mean):
            return "infinite"
        return fmt(mean) if any(row[k] for k in ENGINES) else "-"

    shown, folded = [], {}
    for row in quantity_rows(result):
        if full or "[" not in row["element"] or row["verdict"] != "agree":
            shown.append(row)
        else:
            folded.setdefault(row["variable"], []).append(row)
    for row in shown:
        table.add_row(
            escape(row["element"]),
            exact_cell(row),
            mean_cell(row["gibbs"]),
            mean_cell(row["pymc"]),
            *(cell(row[key]) for key, _ in COMPARISONS),
        )
    for variable, members in folded.items():
        worst = {
            key: max(
                (m[key]["max_abs_z"] for m in members if m[key] is not None),
                default=float("nan"),
            )
            for key, _ in COMPARISONS
        }
        table.add_row(
            escape(f"{variable}[...] ({len(members)} elements)"),
            "",
            "",
            "",
            *(
                f"[green]agree[/] max|z| {worst[key]:.1f}" if math.isfinite(worst[key]) else "-"
                for key, _ in COMPARISONS
            ),
        )
    console.print(table)
    seconds = ", ".join(f"{k} {v:.1f} s" for k, v in result.seconds.items())
    interrupted = ""
    if result.run is not None and result.run.interrupted:
        interrupted = (
            "\ninterrupted: these are the draws completed before Ctrl-C, so the verdict "
            "is at best inconclusive"
        )
    console.print(f"reference: {result.reference_note}\ntime: {seconds}{interrupted}\n")
