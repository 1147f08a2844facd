"""``zoo validate``: the battery on a sampler, a kernel, a fault or an engine.

The model is a zoo model (``MODEL``) or the user's own PyMC model
(``--model MODULE:FUNCTION``).
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from zoo.core.loading import load_object
from zoo.registry import get, names
from zoo.reports.validation_report import validation_report
from zoo.sampling.progress import TaskProgress
from zoo.validation import validate

__all__ = ["run"]

_STYLE = {"pass": "green", "fail": "bold red", "inconclusive": "yellow"}


def run(args: argparse.Namespace) -> int:
    """Run ``zoo validate``; exit status 0 only when every check passes."""

    def refuse(message: str) -> int:
        print(f"zoo validate: {message}", file=sys.stderr)
        return 2

    if (args.model is None) == (args.pymc_model is None):
        return refuse(
            "give a zoo model (MODEL, one of: " + ", ".join(names()) + ") or your own "
            "PyMC model (--model MODULE:FUNCTION), not both"
            if args.model is not None
            else "give a zoo model (MODEL, one of: " + ", ".join(names()) + ") or your own "
            "PyMC model (--model MODULE:FUNCTION)"
        )
    if args.model is not None and args.model not in names():
        return refuse(f"unknown model {args.model!r}; known: {', '.join(names())}")
    if args.reference and args.pymc_model is None:
        return refuse("--reference: only with --model (a zoo model has its exact posterior)")
    options = {}
    try:
        if args.reference:
            options["reference"] = load_object(args.reference, field="--reference")
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
            get(args.model) if args.model is not None else args.pymc_model,
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
        say(f"writing the report to {args.report}")
        validation_report(result).write(args.report)
    return 0 if result.verdict == "pass" else 1


def _jsonable(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def _print(result) -> None:
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
            self._bar = TaskProgress(total, "SBC simulations", enabled=True).__enter__()
        self._bar.advance(done - self._bar.completed)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None
