"""The ``zoo`` command line's grammar: sub-commands, options and their defaults."""

from __future__ import annotations

import argparse

from zoo.core.defaults import (
    ALPHA,
    CHAINS,
    DRAWS,
    ENGINES,
    FIT_TIMEOUT,
    SBC_CHAINS,
    SBC_DRAWS,
    SIMULATIONS,
    TUNE,
)
from zoo.registry import names

__all__ = ["build_parser", "empty_value"]


def build_parser() -> argparse.ArgumentParser:
    """The ``zoo`` command's parser: every sub-command and option, defaults from one place."""
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
    check.add_argument("--draws", type=int, default=DRAWS, help="kept draws per chain")
    check.add_argument("--tune", type=int, default=TUNE, help="warm-up sweeps per chain")
    check.add_argument("--chains", type=int, default=CHAINS, help="chains per engine")
    check.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    check.add_argument(
        "--alpha",
        type=float,
        default=ALPHA,
        help=f"family-wise false-alarm rate per model, shared by its comparisons (Gibbs and"
        f" PyMC against the exact posterior, and each other; default {ALPHA:g})",
    )
    check.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="models sampled at once, a worker process each (default: one per core); "
        "1 samples them one after the other, with progress bars",
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
    _add_validate(commands)
    return parser


def _add_validate(commands) -> None:
    parser = commands.add_parser(
        "validate",
        help="check a sampler against exact posteriors, by simulation-based calibration "
        "and (for kernels) Geweke's test; exit status 0 only when every check passes",
        description="Validate a sampler for a zoo model (MODEL), or for a model of your own "
        "written in PyMC (--model). Without --sampler or --kernel the zoo's own Gibbs kernel "
        "is validated (or --engine pymc, or a catalogued --fault).",
    )
    parser.add_argument("model", metavar="MODEL", nargs="?", help=f"one of: {', '.join(names())}")
    parser.add_argument(
        "--model",
        dest="pymc_model",
        metavar="MODULE:FUNCTION",
        help="your own model: FUNCTION() returns a pymc.Model whose observed variables "
        "hold the data to check on, or a list of (name, pymc.Model) for several data sets",
    )
    parser.add_argument(
        "--reference",
        metavar="MODULE:FUNCTION",
        help="with --model: reference(data) returning a zoo.Reference, the exact posterior "
        "(default: derived from the graph when the model is conjugate)",
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--sampler",
        metavar="MODULE:FUNCTION",
        help="function(data, prior, *, draws, chains, seed) for a zoo model, "
        "function(data, *, draws, chains, seed) for --model; returns a DataTree or a dict "
        "of (chain, draw, ...) arrays with the model's variable names",
    )
    what.add_argument(
        "--kernel",
        metavar="MODULE:OBJECT",
        help="an object with init, step and draw (like zoo.Kernel); adds Geweke's test and "
        "the one-sweep invariance check",
    )
    what.add_argument("--fault", metavar="NAME", help="a catalogued wrong kernel (zoo list)")
    what.add_argument("--engine", choices=ENGINES, help="one of the zoo's engines")
    parser.add_argument(
        "--checks",
        metavar="LIST",
        help="comma-separated subset of exact,nuts,sbc,geweke,invariance (default: all that "
        "apply; nuts by default with --model only)",
    )
    parser.add_argument(
        "--problems",
        metavar="LIST",
        help="comma-separated names of the model's validation problems (with --model, its "
        "data sets) for the exact and nuts checks (default: all)",
    )
    parser.add_argument(
        "--sbc-prior",
        metavar="PROBLEM",
        help="draw SBC's (and the kernel checks') parameters from the prior of this "
        "validation problem, for a sampler written for one kind of prior (default: the "
        "prior the chosen --problems share, else the model's simulation prior)",
    )
    parser.add_argument("--draws", type=int, default=DRAWS, help="draws per chain, exact check")
    parser.add_argument("--chains", type=int, default=CHAINS, help="chains, exact check")
    parser.add_argument("--simulations", type=int, default=SIMULATIONS, help="SBC simulations")
    parser.add_argument(
        "--sbc-draws", type=int, default=SBC_DRAWS, help="draws per chain per SBC fit"
    )
    parser.add_argument("--sbc-chains", type=int, default=SBC_CHAINS, help="chains per SBC fit")
    parser.add_argument(
        "--geweke-iterations",
        type=int,
        default=None,
        help="steps per chain of Geweke's test (default 10000)",
    )
    parser.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    parser.add_argument(
        "--alpha",
        type=float,
        default=ALPHA,
        help=f"family-wise false-alarm rate (default {ALPHA:g})",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="local Dask worker processes the fits run in, at most 4 per core (default: one "
        "per core); 0 runs them in this process, one after the other: the only way the "
        "sampler runs in the zoo's own process (for debugging; no timeout)",
    )
    parser.add_argument("--scheduler", metavar="ADDRESS", help="an existing Dask scheduler")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help=f"seconds one fit may take on a worker (default {FIT_TIMEOUT:g}); a fit in this"
        " process (--workers 0) cannot be stopped, so the two exclude each other",
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


def empty_value(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str | None:
    """``--OPTION: must not be empty`` for the first option given an empty value, or None.

    An empty value is never a choice the user made on purpose (an unset shell variable,
    ``--report "$DIR"``): ``--report ""`` wrote index.html into the current folder and
    ``--checks ""`` ran the whole battery, as if the option had not been given.
    """
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    command = subparsers.choices[args.command]
    for action in command._actions:
        value = getattr(args, action.dest, None)
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and not v.strip() for v in values):
            name = action.option_strings[-1] if action.option_strings else action.metavar
            return f"{name or action.dest}: must not be empty"
    return None
