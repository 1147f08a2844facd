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

from zoo.cli.exit_guard import UNFINISHED
from zoo.cli.output_paths import claimed_outputs
from zoo.cli.parser import budget_options, option_dest
from zoo.cli.stdout_guard import emit
from zoo.cli.user_process import supervised
from zoo.core.defaults import FIT_TIMEOUT
from zoo.core.loading import load_object
from zoo.registry import get, names
from zoo.reports.validation_report import validation_report
from zoo.sampling.parallel import WorkersGone, as_workers
from zoo.sampling.progress import TaskProgress
from zoo.validation import CHECKS, validate
from zoo.validation.results import COULD_NOT_JUDGE, by_data_set, finding_cells

__all__ = ["budgets_from_options", "fit_workers", "run"]

_STYLE = {"pass": "green", "fail": "bold red", "inconclusive": "yellow", COULD_NOT_JUDGE: "cyan"}


def run(args: argparse.Namespace) -> int:
    """Run ``zoo validate``; exit status 0 only on PASS (``ValidationResult.verdict``)."""

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
    with claimed_outputs(
        "zoo validate", report=(args.report, True), store=(args.store, False)
    ) as usable:
        return _validate(args, refuse) if usable else 2


def budgets_from_options(args: argparse.Namespace, table=CHECKS) -> dict:
    """``validate``'s ``budgets=`` from the options given, each checked as given.

    An option not given is left out, so that ``--budget``'s preset (or the default)
    sets it.

    Raises
    ------
    ValueError
        Naming the option (``--sbc-draws: must be an integer >= 1``).
    """
    budgets: dict[str, dict] = {}
    for option, owners in budget_options(table).items():
        value = getattr(args, option_dest(option))
        if value is None:
            continue  # not given: the preset's value, or the default
        for check, setting in owners:
            budgets.setdefault(check.name, {})[setting.name] = setting.checked(
                f"--{option}", value
            )
    for check in table:
        if check.name in budgets:
            # Named by the options, which the user gave, rather than budgets[...][...].
            options = {s.name: f"--{check.option(s)}" for s in check.budget}
            check.checked_budget(budgets[check.name], options.__getitem__)
    return budgets


def fit_workers(args: argparse.Namespace) -> int | None:
    """``validate``'s ``workers=``: ``--workers`` as given; not given, where the fits run.

    Not given, one worker process per core (None), except for ``--budget quick`` without
    ``--scheduler`` or ``--timeout``: its fits then run one after the other in the
    process that runs the battery (0), the child the zoo supervises when the code is
    yours. A worker process pays its own start before its first fit: it imports NumPy,
    PyMC and the zoo and compiles the model's forward draws and log-likelihood again,
    some 4 to 6 CPU s each, measured (``python -m bench.preset_breakdown``) against the
    10 to 15 CPU s of a whole quick run of a classic example in one process; two workers
    doubled its CPU seconds and, on two cores, did not shorten its wall time. Where the
    fits run changes no draw (each fit and chain draws from its own stream), so no
    verdict; what is lost is the timeout (a fit in the process cannot be stopped),
    which ``--timeout`` or ``--workers N`` gives back. With ``--in-process`` your
    sampler stays on workers unless ``--workers 0`` says otherwise.
    """
    if args.workers is not None or args.scheduler is not None or args.timeout is not None:
        return args.workers
    user_code = getattr(args, "user_code", False)
    if args.budget == "quick" and (getattr(args, "supervised", False) or not user_code):
        return 0
    return None


def _validate(args: argparse.Namespace, refuse) -> int:
    """The checks after the paths: run the battery, print, write the report."""
    if args.timeout is not None and args.workers == 0:
        return refuse(
            "--timeout: a fit in this process (--workers 0) cannot be stopped; "
            "give --workers 1 or more for a timeout"
        )
    try:
        as_workers("--workers", args.workers)
    except ValueError as error:
        return refuse(str(error))
    if args.reference and args.pymc_model is None:
        return refuse("--reference: only with --model (a zoo model has its exact posterior)")
    if args.exchangeable and args.pymc_model is None:
        return refuse("--exchangeable: only with --model (a zoo model states its own symmetry)")
    if args.in_process and not args.user_code:
        return refuse(
            "--in-process: only with your own code (--model, --reference, --sampler or "
            "--kernel); the zoo's own always runs in its process"
        )

    err = Console(stderr=True)
    interactive = err.is_terminal and not args.quiet
    progress = _SimulationProgress(interactive)

    def say(message):
        progress.stop()
        if interactive:
            err.print(f"[dim]{escape(message)}[/]")

    def plan(line):
        # One line before the checks, on a terminal or not.
        print(f"zoo validate: {line}", file=sys.stderr, flush=True)

    def told(name, outcome):
        # Where no progress display can show (a pipe, CI, a file): a line as each check
        # starts and ends, with its verdict and seconds.
        if args.quiet or interactive:
            return
        if outcome is None:
            print(f"zoo validate: {name}: started", file=sys.stderr, flush=True)
        else:
            print(
                f"zoo validate: {name}: {outcome.verdict} in {outcome.seconds:.1f} s",
                file=sys.stderr,
                flush=True,
            )

    options = {}
    try:
        options["budgets"] = budgets_from_options(args)
    except ValueError as error:
        return refuse(str(error))
    options["budget"] = args.budget
    if args.exchangeable:
        none = args.exchangeable == ["none"]
        options["exchangeable"] = False if none else list(args.exchangeable)
    if args.fault:
        options["fault"] = args.fault
    elif args.engine:
        options["engine"] = args.engine
    if args.problems:
        options["problems"] = [p.strip() for p in args.problems.split(",") if p.strip()]
    if args.sbc_prior:
        options["sbc_prior"] = args.sbc_prior
    if args.checks:
        options["checks"] = tuple(c.strip() for c in args.checks.split(",") if c.strip())

    def battery():
        """Load the user's objects and run the battery: a result, or an exit status."""
        try:
            if args.reference:
                options["reference"] = load_object(args.reference, field="--reference")
            if args.sampler:
                options["sampler"] = load_object(args.sampler, field="--sampler")
                options["label"] = args.sampler
            elif args.kernel:
                options["kernel"] = load_object(args.kernel, field="--kernel")
                options["label"] = args.kernel
        except ValueError as error:
            return refuse(str(error))
        try:
            result = validate(
                get(args.model) if args.model is not None else args.pymc_model,
                seed=args.seed,
                alpha=args.alpha,
                workers=fit_workers(args),
                scheduler=args.scheduler,
                timeout=FIT_TIMEOUT if args.timeout is None else args.timeout,
                store=args.store,
                on_simulation=progress.update,
                status=say,
                # --quiet shows no plan: the fits timed for its estimate are not run
                on_plan=None if args.quiet else plan,
                on_check=told,
                **options,
            )
        except ValueError as error:
            return refuse(str(error))
        except KeyboardInterrupt:
            progress.stop()
            print(f"zoo validate: interrupted{_resume(args)}", file=sys.stderr)
            return 130
        except WorkersGone as gone:
            progress.stop()
            print(f"zoo validate: the run did not finish: {gone}{_resume(args)}", file=sys.stderr)
            return UNFINISHED
        finally:
            progress.stop()
        return result

    # The user's code runs in a child process the zoo supervises (zoo.cli.user_process),
    # unless --in-process; a module that prints when it is imported or run does not
    # print into the JSON either way (zoo.cli.main guards standard output for --json).
    result = supervised("zoo validate", battery) if args.supervised else battery()
    if isinstance(result, int):
        return result
    if args.json:
        emit(json.dumps(result.to_dict(), indent=2, default=_jsonable))
    else:
        _print(result)
    # Standard error, not the table or the JSON: each warning of the fits once, counted.
    if not args.quiet:
        for line in result.warning_lines():
            err.print(escape(line), style="yellow", highlight=False, soft_wrap=True)
    if args.report:
        say(f"writing the report to {args.report}")
        validation_report(result).write(args.report)
    return 0 if result.verdict == "pass" else 1


def _resume(args: argparse.Namespace) -> str:
    """How to go on from a run that stopped: its store keeps the fits it finished."""
    return f"; rerun with --store {args.store} to resume" if args.store else ""


def _jsonable(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


#: Findings shown per data set in the terminal; --json and --report list them all.
_SHOWN = 8


def _print(result) -> None:
    out = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    table = Table(
        title=f"{escape(result.model)}: {escape(result.sampler)}",
        caption=f"family-wise false-alarm rate {result.alpha:g}, split over the checks",
    )
    for column in ("check", "verdict", "alpha", "seconds"):
        table.add_column(column, justify="right" if column in ("alpha", "seconds") else "left")
    table.add_column("what was found", overflow="fold", justify="left")
    for check in result.checks:
        style = _STYLE.get(check.verdict, "")
        table.add_row(
            check.name,
            f"[{style}]{check.verdict}[/]",
            f"{check.alpha:.2g}",
            f"{check.seconds:.1f}",
            escape(check.brief),
        )
    for name, reason in result.skipped.items():
        table.add_row(name, "skipped", "", "", escape(reason))
    out.print(table)
    for check in result.checks:
        if check.findings:
            out.print(_findings_table(check))
    style = _STYLE.get(result.verdict, "")
    out.print(f"verdict: [{style}]{result.verdict.upper()}[/]: {escape(result.reason)}")


def _findings_table(check) -> Table:
    """What a check found, per data set, at most ``_SHOWN`` rows each.

    A failing quantity shows its statistic, estimate against reference, MCSE and z; an
    unjudged one the gate it did not pass and the draws per chain that would clear it.
    Columns that would be empty throughout are left out.
    """
    findings = check.findings
    per_problem = any(f.problem for f in findings)
    judged = any(f.verdict == "fail" and not f.message for f in findings)
    unjudged = any(f.verdict in ("inconclusive", COULD_NOT_JUDGE) for f in findings)
    cured = any(f.cure for f in findings)
    table = Table(title=f"{check.name}: {check.verdict}", title_justify="left")
    if per_problem:
        table.add_column("data set", overflow="fold")
    stated = any(f.statistic for f in findings)
    table.add_column("quantity", overflow="fold")
    if stated:
        table.add_column("statistic")
    if judged:
        for column in ("estimate", "reference", "MCSE", "z", "Holm p"):
            table.add_column(column, justify="right")
    noted = unjudged or any(f.message for f in findings)
    if noted:
        table.add_column("why not judged" if unjudged else "what happened", overflow="fold")
    if cured:
        table.add_column("cure", overflow="fold")
    groups = by_data_set(findings)
    for problem, group in groups.items():
        rows = [_finding_row(f, judged, stated, noted, cured) for f in group[:_SHOWN]]
        if len(group) > _SHOWN:
            more = f"[dim]and {len(group) - _SHOWN} more (--json or --report lists all)[/]"
            rows.append([more] + [""] * (len(rows[0]) - 1))
        for row in rows:
            table.add_row(*([escape(problem)] if per_problem else []), *row)
    return table


def _finding_row(f, judged: bool, stated: bool, noted: bool, cured: bool) -> list[str]:
    """One finding's cells after the data set: quantity, statistic, numbers, note, cure."""
    cells = finding_cells(f)
    numbers = [escape(cells[key]) for key in ("estimate", "reference", "mcse", "z", "p_adjusted")]
    note = escape(cells["note"])
    if note:
        colour = "red" if f.message else _STYLE.get(f.verdict, "yellow")
        note = f"[{colour}]{note}[/]"
    statistic = [escape(f.statistic)] if stated else []
    return [
        escape(f.quantity),
        *statistic,
        *(numbers if judged else []),
        *([note] if noted else []),
        *([escape(cells["cure"])] if cured else []),
    ]


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
