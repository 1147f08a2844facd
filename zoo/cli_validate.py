"""``zoo validate MODEL --sampler module:function | --kernel module:object``."""

from __future__ import annotations

import argparse
import json
import sys

from zoo.registry import get, names

__all__ = ["add_parser", "run"]

_STYLE = {"pass": "green", "fail": "bold red", "inconclusive": "yellow"}


def add_parser(commands) -> None:
    """Register the ``validate`` sub-command."""
    parser = commands.add_parser(
        "validate",
        help="check a sampler against exact posteriors, by simulation-based calibration "
        "and (for kernels) Geweke's test; exit status 0 only when every check passes",
        description="Validate a sampler for a zoo model. Without --sampler or --kernel the "
        "zoo's own Gibbs kernel is validated (or --engine pymc, or a catalogued --fault).",
    )
    parser.add_argument("model", metavar="MODEL", help=f"one of: {', '.join(names())}")
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--sampler",
        metavar="MODULE:FUNCTION",
        help="function(data, prior, *, draws, chains, seed) returning a DataTree or a dict "
        "of (chain, draw, ...) arrays with the model's variable names",
    )
    what.add_argument(
        "--kernel",
        metavar="MODULE:OBJECT",
        help="an object with init, step and draw (like zoo.Kernel); adds Geweke's test and "
        "the one-sweep invariance check",
    )
    what.add_argument("--fault", metavar="NAME", help="a catalogued wrong kernel (zoo list)")
    what.add_argument("--engine", choices=("gibbs", "pymc"), help="one of the zoo's engines")
    parser.add_argument(
        "--checks",
        metavar="LIST",
        help="comma-separated subset of exact,sbc,geweke,invariance (default: all that apply)",
    )
    parser.add_argument(
        "--problems",
        metavar="LIST",
        help="comma-separated names of the model's validation problems for the exact "
        "check (default: all; a sampler for one kind of prior picks its own)",
    )
    parser.add_argument("--draws", type=int, default=1000, help="draws per chain, exact check")
    parser.add_argument("--chains", type=int, default=4, help="chains, exact check")
    parser.add_argument("--simulations", type=int, default=100, help="SBC simulations")
    parser.add_argument("--sbc-draws", type=int, default=200, help="draws per chain per SBC fit")
    parser.add_argument("--sbc-chains", type=int, default=2, help="chains per SBC fit")
    parser.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    parser.add_argument(
        "--alpha", type=float, default=0.01, help="family-wise false-alarm rate (default 0.01)"
    )
    parser.add_argument(
        "--workers", type=int, default=None, help="local Dask workers (default: one per core)"
    )
    parser.add_argument("--scheduler", metavar="ADDRESS", help="an existing Dask scheduler")
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="seconds one fit may take (default 600)"
    )
    parser.add_argument(
        "--store",
        metavar="FILE",
        help="JSON-lines file for SBC results, written as they arrive; rerunning with the "
        "same settings resumes from it",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress display")
    parser.add_argument(
        "--report",
        metavar="DIR",
        help="write an HTML report (index.html, SBC ECDF figure) into DIR",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``zoo validate``; exit status 0 only when every check passes."""
    from rich.console import Console
    from rich.markup import escape

    def refuse(message: str) -> int:
        print(f"zoo validate: {message}", file=sys.stderr)
        return 2

    if args.model not in names():
        return refuse(f"unknown model {args.model!r}; known: {', '.join(names())}")
    from zoo.core.loading import load_object
    from zoo.validation import validate

    options = {}
    try:
        if args.sampler:
            options["sampler"] = load_object(args.sampler, field="--sampler")
        elif args.kernel:
            options["kernel"] = load_object(args.kernel, field="--kernel")
        elif args.fault:
            options["fault"] = args.fault
        elif args.engine:
            options["engine"] = args.engine
    except ValueError as error:
        return refuse(str(error))
    if args.problems:
        options["problems"] = [p.strip() for p in args.problems.split(",") if p.strip()]
    if args.checks:
        options["checks"] = tuple(c.strip() for c in args.checks.split(",") if c.strip())

    err = Console(stderr=True)
    interactive = err.is_terminal and not args.quiet
    progress = _SimulationProgress(interactive)

    def say(message):
        progress.stop()
        if interactive:
            err.print(f"[dim]{escape(message)}[/]")

    try:
        result = validate(
            get(args.model),
            draws=args.draws,
            chains=args.chains,
            simulations=args.simulations,
            sbc_draws=args.sbc_draws,
            sbc_chains=args.sbc_chains,
            seed=args.seed,
            alpha=args.alpha,
            workers=args.workers,
            scheduler=args.scheduler,
            timeout=args.timeout,
            store=args.store,
            on_simulation=progress.update,
            status=say,
            **options,
        )
    except ValueError as error:
        return refuse(str(error))
    except KeyboardInterrupt:
        progress.stop()
        where = f"; rerun with --store {args.store} to resume" if args.store else ""
        print(f"zoo validate: interrupted{where}", file=sys.stderr)
        return 130
    finally:
        progress.stop()
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, default=_jsonable))
    else:
        _print(result)
    if args.report:
        from zoo.validate_report import validation_report

        say(f"writing the report to {args.report}")
        validation_report(result).write(args.report)
    return 0 if result.verdict == "pass" else 1


def _jsonable(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def _print(result) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    out = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    table = Table(
        title=f"{escape(result.model)}: {escape(result.sampler)}",
        caption=f"family-wise false-alarm rate {result.alpha:g}, split over the checks",
    )
    for column in ("check", "verdict", "alpha", "seconds", "what was found"):
        table.add_column(column, overflow="fold")
    for check in result.checks:
        style = _STYLE.get(check.verdict, "")
        table.add_row(
            check.name,
            f"[{style}]{check.verdict}[/]",
            f"{check.alpha:.2g}",
            f"{check.seconds:.1f}",
            escape(check.summary),
        )
    out.print(table)
    style = _STYLE.get(result.verdict, "")
    out.print(f"verdict: [{style}]{result.verdict.upper()}[/]")


class _SimulationProgress:
    """Adapts ``validate``'s ``on_simulation(done, total)`` callback to a TaskProgress."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._bar = None

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            from zoo.sampling.progress import TaskProgress

            self._bar = TaskProgress(total, "SBC simulations", enabled=True).__enter__()
        self._bar.advance(done - self._bar.completed)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None
