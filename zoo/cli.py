"""The ``zoo`` command: ``zoo list``, ``zoo check [MODEL ...]`` and ``zoo validate MODEL``."""

from __future__ import annotations

import argparse
import json
import math
import sys

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
    from zoo.cli_validate import add_parser as add_validate

    add_validate(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``zoo`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    if args.command == "list":
        for name in names():
            spec = get(name)
            print(f"{name:16s} {spec.summary}")
            if args.faults:
                for fault in spec.faults:
                    print(f"{'':16s}   fault: {fault}")
        return 0
    if args.command == "validate":
        from zoo.cli_validate import run

        return run(args)
    return _check(args)


def _check(args) -> int:
    from rich.console import Console

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
    from zoo.check import run_check

    err = Console(stderr=True)
    interactive = err.is_terminal and not args.quiet
    # Piped output is read in full (logs, CI): do not wrap it at 80 columns.
    out = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    results = []
    for name in args.models or names():

        def say(message):
            # Plain status lines, not a live display: the Gibbs and PyMC progress bars
            # are live displays of their own, and only one may run at a time.
            if interactive:
                err.print(f"[dim]{message}[/]")

        result = run_check(
            name,
            draws=args.draws,
            tune=args.tune,
            chains=args.chains,
            seed=args.seed,
            alpha=args.alpha,
            progress=interactive,
            status=say,
        )
        results.append(result)
        if not args.json:
            _print_table(out, result, full=args.full)
    verdicts = {r.verdict for r in results}
    verdict = next((v for v in ("disagree", "inconclusive") if v in verdicts), "agree")
    if args.json:
        print(
            json.dumps(
                {"verdict": verdict, "models": [r.to_dict() for r in results]},
                indent=2,
                allow_nan=False,
                default=_jsonable,
            )
        )
    return 0 if verdict == "agree" else 1


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

    per_engine = {
        "gibbs": {q["element"]: q for q in result.gibbs.quantities()}
        if result.gibbs is not None
        else {},
        "pymc": {q["element"]: q for q in result.pymc.quantities()}
        if result.pymc is not None
        else {},
        "cross": {q["element"]: q for q in result.cross.quantities()},
    }
    elements = list(per_engine["cross"])
    for engine in ("gibbs", "pymc"):
        elements += [e for e in per_engine[engine] if e not in elements]
    title = (
        f"{result.model}: {result.verdict.upper()}   "
        f"(draws {result.settings['draws']} x {result.settings['chains']} chains, "
        f"seed {result.settings['seed']}, family-wise rate {result.settings['alpha']:g})"
    )
    table = Table(title=title, title_justify="left")
    for column in (
        "quantity",
        "exact mean",
        "Gibbs mean",
        "PyMC mean",
        "Gibbs vs exact",
        "PyMC vs exact",
        "Gibbs vs PyMC",
    ):
        table.add_column(column, justify="left" if column == "quantity" else "right")

    def cell(engine, element):
        q = per_engine[engine].get(element)
        if q is None:
            return "-"
        style = _STYLE[q["verdict"]]
        detail = f"max|z| {q['max_abs_z']:.1f}"
        return f"[{style}]{q['verdict']}[/] {detail}"

    def mean_cell(engine, element):
        q = per_engine[engine].get(element)
        if q is None:
            return "-"
        if not math.isfinite(q["mean"]):
            return "(no mean)"
        return _fmt(q["mean"], q["mean_mcse"])

    def exact_cell(element):
        for engine in ("gibbs", "pymc"):
            q = per_engine[engine].get(element)
            if q is not None:
                return (
                    "infinite"
                    if not math.isfinite(q["mean_reference"])
                    else _fmt(q["mean_reference"])
                )
        return "-"

    shown, folded = [], {}
    for element in elements:
        variable = element.split("[")[0]
        is_vector = "[" in element
        bad = any(
            per_engine[e].get(element, {"verdict": "agree"})["verdict"] != "agree"
            for e in per_engine
        )
        if full or not is_vector or bad:
            shown.append(element)
        else:
            folded.setdefault(variable, []).append(element)
    for element in shown:
        table.add_row(
            escape(element),
            exact_cell(element),
            mean_cell("gibbs", element),
            mean_cell("pymc", element),
            cell("gibbs", element),
            cell("pymc", element),
            cell("cross", element),
        )
    for variable, members in folded.items():
        worst = {
            engine: max(
                (per_engine[engine][m]["max_abs_z"] for m in members if m in per_engine[engine]),
                default=float("nan"),
            )
            for engine in per_engine
        }
        table.add_row(
            escape(f"{variable}[...] ({len(members)} elements)"),
            "",
            "",
            "",
            *(
                f"[green]agree[/] max|z| {worst[e]:.1f}" if math.isfinite(worst[e]) else "-"
                for e in ("gibbs", "pymc", "cross")
            ),
        )
    console.print(table)
    seconds = ", ".join(f"{k} {v:.1f} s" for k, v in result.seconds.items())
    console.print(f"reference: {result.reference_note}\ntime: {seconds}\n")


if __name__ == "__main__":
    sys.exit(main())
