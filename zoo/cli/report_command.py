"""``zoo report FILE``: a run saved by ``zoo check --out`` judged again, without sampling."""

from __future__ import annotations

import sys
from pathlib import Path

from zoo.check import judge
from zoo.cli.output_paths import outputs_usable
from zoo.cli.terminal import consoles, finish_checks, print_check_table
from zoo.runs.saved import load_runs

__all__ = ["run"]


def run(args) -> int:
    """``zoo report FILE``: judge a saved run again and write its report; the exit status."""
    if not outputs_usable("zoo report", report=(args.report, True)):
        return 2

    out, _, say = consoles(args)
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
            print_check_table(out, check, full=args.full)
    args.title = args.title or f"zoo report {Path(args.file).name}"
    return finish_checks(args, checks, say)
