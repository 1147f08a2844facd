"""The ``zoo`` command: ``zoo list``, ``zoo check``, ``zoo report`` and ``zoo validate``."""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from pathlib import Path

from zoo.registry import get, names

__all__ = ["main"]

_STYLE = {"agree": "green", "disagree": "bold red", "inconclusive": "yellow"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zoo",
        description="Conjugate models three times over: PyMC, collapsed Gibbs, exact.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="list the registered models")
    listing.add_argument(
        "--faults", action="store_true", help="also list each model's catalogued wrong kernels"
    )
    check = commands.add_parser(
        "check",
        help="run both engines on each model's default data and test them against the "
        "exact posterior; exit status 0 only when every check agrees",
    )
    check.add_argument("models", nargs="*", metavar="MODEL", help="models (default: all)")
    check.add_argument("--draws", type=int, default=1000, help="kept draws per chain")
    check.add_argument("--tune", type=int, default=1000, help="warm-up sweeps per chain")
    check.add_argument("--chains", type=int, default=4, help="chains per engine")
    check.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    check.add_argument(
        "--alpha", type=float, default=0.01, help="family-wise false-alarm rate (default 0.01)"
    )
    check.add_argument("--json", action="store_true", help="print the results as JSON")
    check.add_argument("--full", action="store_true", help="one row per element of vectors")
    check.add_argument("--quiet", action="store_true", help="no progress display")
    check.add_argument(
        "--report",
        metavar="DIR",
        help="write an HTML report (index.html and PNG figures) into DIR",
    )
    check.add_argument(
        "--out",
        metavar="FILE",
        help="save the run (draws, data, prior, settings, versions) to FILE.nc (NetCDF) "
        "or FILE.zarr (Zarr); an interrupted run (Ctrl-C) saves what it drew",
    )
    check.set_defaults(title="zoo check")
    report = commands.add_parser(
        "report",
        help="judge a run saved by `zoo check --out` again (exact reference recomputed, "
        "no sampling) and write its HTML report",
    )
    report.add_argument("file", metavar="FILE", help="a saved run (.nc or .zarr)")
    report.add_argument(
        "--report", metavar="DIR", default="report", help="report folder (default: report)"
    )
    report.add_argument("--json", action="store_true", help="print the results as JSON")
    report.add_argument("--full", action="store_true", help="one row per element of vectors")
    report.add_argument("--quiet", action="store_true", help="no status lines")
    report.set_defaults(title=None)
    from zoo.cli_validate import add_parser as add_validate

    add_validate(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``zoo`` command; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    if args.command == "list":
        for name in names():
            spec = get(name)
            print(f"{name:16s} {spec.summary}")
            if args.faults:
                for fault in spec.faults:
                    print(f"{'':16s}   fault: {fault}")
        return 0
    args.command_line = " ".join(["zoo", *argv])
    if args.command == "report":
        return _report(args)
    if args.command == "validate":
        from zoo.cli_validate import run

        return run(args)
    return _check(args)


def _consoles(args):
    from rich.console import Console

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


def _check(args) -> int:
    unknown = [m for m in args.models if m not in names()]
    if unknown:
        print(
            f"zoo check: unknown model(s) {', '.join(unknown)}; known: {', '.join(names())}",
            file=sys.stderr,
        )
        return 2
    for field in ("draws", "chains"):
        if getattr(args, field) < 1:
            print(f"zoo check: --{field} must be >= 1", file=sys.stderr)
            return 2
    if args.tune < 0 or not 0 < args.alpha < 1:
        print("zoo check: --tune must be >= 0 and --alpha in (0, 1)", file=sys.stderr)
        return 2
    if args.out is not None and Path(args.out).suffix not in (".nc", ".zarr"):
        print("zoo check: --out must end in .nc (NetCDF) or .zarr (Zarr)", file=sys.stderr)
        return 2
    if not _report_dir_usable(args, "zoo check"):
        return 2
    from zoo.check import judge
    from zoo.progress import quiet_logs
    from zoo.runs import sample_model

    out, interactive, say = _consoles(args)
    runs, checks = [], []
    with quiet_logs(not interactive), warnings.catch_warnings():
        # The driver's warning on Ctrl-C is for library users; here _interrupted says it.
        warnings.filterwarnings("ignore", message="interrupted:", category=RuntimeWarning)
        try:
            for name in args.models or names():
                run = sample_model(
                    name,
                    draws=args.draws,
                    tune=args.tune,
                    chains=args.chains,
                    seed=args.seed,
                    alpha=args.alpha,
                    progress=interactive,
                    status=say,
                )
                runs.append(run)
                if run.interrupted:
                    raise KeyboardInterrupt
                check = judge(run, alpha=args.alpha, status=say)
                checks.append(check)
                if not args.json:
                    _print_table(out, check, full=args.full)
        except KeyboardInterrupt:
            return _interrupted(args, runs, checks, say)
        if args.out is not None:
            _save(args, runs, checks, say)
    return _finish(args, checks, say)


def _save(args, runs, checks, say) -> None:
    from zoo.runs import save_runs

    say(f"saving the run to {args.out}")
    save_runs(
        args.out,
        runs,
        verdicts={c.model: c.verdicts() for c in checks},
        command=args.command_line,
    )


def _interrupted(args, runs, checks, say) -> int:
    drawn = []
    for run in runs:
        engines = ", ".join(
            f"{engine} {tree['posterior'].sizes['draw']} draws per chain"
            for engine, tree in run.trees.items()
        )
        drawn.append(f"{run.model}: {engines or 'no draws'}")
    summary = "; ".join(drawn) or "nothing sampled"
    if not any(run.trees for run in runs):
        print("zoo check: interrupted before any draw was made; nothing saved", file=sys.stderr)
        return 130
    if args.out is None:
        print(
            f"zoo check: interrupted ({summary}); nothing saved (pass --out FILE to keep "
            "the draws of an interrupted run)",
            file=sys.stderr,
        )
        return 130
    _save(args, runs, checks, say)
    print(
        f"zoo check: interrupted; saved what was drawn ({summary}) to {args.out}. "
        f"Judge it and write its report with: zoo report {args.out}",
        file=sys.stderr,
    )
    return 130


def _finish(args, checks, say) -> int:
    if args.report is not None:
        from zoo.check_report import check_report

        say(f"writing the report to {args.report}")
        index = check_report(checks, title=args.title).write(args.report)
        say(f"report: {index}")
    verdicts = {c.verdict for c in checks}
    verdict = next((v for v in ("disagree", "inconclusive") if v in verdicts), "agree")
    if args.json:
        print(
            json.dumps(
                {"verdict": verdict, "models": [c.to_dict() for c in checks]},
                indent=2,
                allow_nan=False,
                default=_jsonable,
            )
        )
    return 0 if verdict == "agree" else 1


def _report_dir_usable(args, command: str) -> bool:
    # Checked before sampling: a long run should not end on a path that cannot be used.
    if args.report is not None and Path(args.report).exists() and not Path(args.report).is_dir():
        print(f"{command}: --report {args.report} exists and is not a folder", file=sys.stderr)
        return False
    return True


def _report(args) -> int:
    from zoo.check import judge
    from zoo.runs import load_runs

    if not _report_dir_usable(args, "zoo report"):
        return 2

    out, _, say = _consoles(args)
    say(f"reading {args.file}")
    try:
        runs = load_runs(args.file)
    except (ValueError, OSError) as error:
        print(f"zoo report: {error}", file=sys.stderr)
        return 2
    checks = []
    for run in runs:
        check = judge(run, status=say)
        checks.append(check)
        if run.stored_verdicts and check.verdicts() != run.stored_verdicts:
            print(
                f"zoo report: {run.model}: verdicts {check.verdicts()} differ from those "
                f"recorded when it was sampled {run.stored_verdicts}",
                file=sys.stderr,
            )
        if not args.json:
            _print_table(out, check, full=args.full)
    args.title = args.title or f"zoo report {Path(args.file).name}"
    return _finish(args, checks, say)


def _jsonable(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return str(value)


def _fmt(value: float, mcse: float | None = None) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    digits = 4
    if mcse is not None and math.isfinite(mcse) and mcse > 0:
        # Show the digits the Monte Carlo error supports, and one more.
        digits = max(2, min(6, 2 - math.floor(math.log10(mcse))))
        return f"{value:.{digits}f} ± {mcse:.1g}"
    return f"{value:.{digits}f}"


def _print_table(console, result, *, full: bool) -> None:
    from rich.markup import escape
    from rich.table import Table

    from zoo.check import COMPARISONS, exact_mean, quantity_rows

    title = (
        f"{result.model}: {result.verdict.upper()}   "
        f"(draws {result.settings['draws']} x {result.settings['chains']} chains, "
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
        return _fmt(q["mean"], q["mean_mcse"])

    def exact_cell(row):
        mean = exact_mean(row)
        if math.isinf(mean):
            return "infinite"
        return _fmt(mean) if any(row[k] for k in ("gibbs", "pymc")) else "-"

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
        interrupted = "\ninterrupted: these are the draws completed before Ctrl-C"
    console.print(f"reference: {result.reference_note}\ntime: {seconds}{interrupted}\n")


if __name__ == "__main__":
    sys.exit(main())
