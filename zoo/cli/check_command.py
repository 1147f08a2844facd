"""``zoo check``: both engines on each model's default data, judged against the exact answer."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

from zoo.check import judge
from zoo.cli.output_paths import claimed_outputs
from zoo.cli.terminal import consoles, finish_checks, kept_draws, print_check_table
from zoo.core.arguments import (
    as_int,
    as_probability,
    as_seed,
    require_distinct,
    require_draws_fit_memory,
)
from zoo.registry import names
from zoo.runs.model_pool import ModelPool, WorkerEnded
from zoo.runs.saved import save_runs
from zoo.sampling.parallel import as_workers, default_workers
from zoo.sampling.progress import quiet_logs

__all__ = ["run"]


def run(args) -> int:
    """``zoo check``: sample, judge, print, save; the exit status."""
    unknown = [m for m in args.models if m not in names()]
    if unknown:
        print(
            f"zoo check: unknown model(s) {', '.join(unknown)}; known: {', '.join(names())}",
            file=sys.stderr,
        )
        return 2
    try:
        as_int("--draws", args.draws, minimum=1)
        as_int("--chains", args.chains, minimum=1)
        require_draws_fit_memory("--draws", args.draws, args.chains)
        as_int("--tune", args.tune, minimum=0)
        as_workers("--jobs", args.jobs, minimum=1)
        as_seed("--seed", args.seed)
        as_probability("--alpha", args.alpha)
        require_distinct("MODEL", args.models)
    except ValueError as error:
        print(f"zoo check: {error}", file=sys.stderr)
        return 2
    if args.out is not None and Path(args.out).suffix not in (".nc", ".zarr"):
        print("zoo check: --out must end in .nc (NetCDF) or .zarr (Zarr)", file=sys.stderr)
        return 2
    with claimed_outputs("zoo check", out=(args.out, False), report=(args.report, True)) as usable:
        return _check(args) if usable else 2


def _check(args) -> int:
    """Sample and judge every model, print, save; the exit status."""
    out, interactive, say = consoles(args)
    runs, checks = [], []
    models = args.models or names()
    jobs = args.jobs if args.jobs is not None else default_workers()
    with quiet_logs(not interactive), warnings.catch_warnings():
        # The driver's warning on Ctrl-C is for library users; here _interrupted says it.
        warnings.filterwarnings("ignore", message="interrupted:", category=RuntimeWarning)
        with ModelPool(
            models,
            jobs=jobs,
            draws=args.draws,
            tune=args.tune,
            chains=args.chains,
            seed=args.seed,
            alpha=args.alpha,
            progress=interactive,
            status=say,
        ) as pool:
            try:
                for run in pool.runs():
                    runs.append(run)
                    check = judge(run, alpha=args.alpha, status=say)
                    checks.append(check)
                    if not args.json:
                        print_check_table(out, check, full=args.full)
            except KeyboardInterrupt:
                runs += pool.interrupt()
                return _interrupted(args, runs, checks, say)
            except WorkerEnded as ended:
                print(f"zoo check: {ended}; nothing saved", file=sys.stderr)
                return 1
        if args.out is not None:
            _save(args, runs, checks, say)
    return finish_checks(args, checks, say)


def _save(args, runs, checks, say) -> None:
    say(f"saving the run to {args.out}")
    save_runs(
        args.out,
        runs,
        verdicts={c.model: c.verdicts() for c in checks},
        command=args.command_line,
    )


def _interrupted(args, runs, checks, say) -> int:
    summary = "; ".join(f"{run.model}: {kept_draws(run)}" for run in runs) or "nothing sampled"
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
