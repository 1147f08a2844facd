"""``zoo report FILE``: a run saved by ``zoo check --out`` judged again, without sampling."""

from __future__ import annotations

import sys
from pathlib import Path

from zoo.check import judge
from zoo.cli.output_paths import claimed_outputs
from zoo.cli.terminal import consoles, finish_checks, print_check_table
from zoo.runs.saved import load_runs

__all__ = ["run"]


def run(args) -> int:
    """``zoo report FILE``: judge a saved run again and write its report; the exit status."""
    with claimed_outputs("zoo report", report=(args.report, True)) as usable:
        return _claimed(args) if usable else 2


def _claimed(args) -> int:
    """With the report's folder claimed: judge and write it, Ctrl-C included."""
    out, _, say = consoles(args)
    try:
        return _reported(args, out, say)
    except KeyboardInterrupt:
        # The report is written whole or not at all (Report.write), so nothing is left
        # that looks like a finished report.
        print("zoo report: interrupted; no report written", file=sys.stderr)
        return 130


def _reported(args, out, say) -> int:
    """Read the file, judge its runs, print their tables, write the report; the status."""
    say(f"reading {args.file}")
    try:
        runs = load_runs(args.file)
    except ValueError as error:
        print(f"zoo report: {error}", file=sys.stderr)
        return 2
    try:
        return _judged(args, runs, out, say)
    except OSError as error:
        print(f"zoo report: cannot write the report to {args.report}: {error}", file=sys.stderr)
        return 2


def _judged(args, runs, out, say) -> int:
    """Judge the runs, print their tables, write the report; the exit status."""
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
            print_check_table(out, check, full=args.full)
    args.title = args.title or f"zoo report {Path(args.file).name}"
    return finish_checks(args, checks, say)
