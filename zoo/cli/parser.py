"""The ``zoo`` command line's grammar: sub-commands, options and their defaults."""

from __future__ import annotations

import argparse

from zoo.cli_validate import add_parser as add_validate
from zoo.core.defaults import ALPHA, CHAINS, DRAWS, TUNE

__all__ = ["build_parser"]


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
        help=f"family-wise false-alarm rate (default {ALPHA:g})",
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
    add_validate(commands)
    return parser
