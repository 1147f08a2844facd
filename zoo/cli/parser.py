"""The ``zoo`` command line's grammar: sub-commands, options and their defaults."""

from __future__ import annotations

import argparse

from zoo.core.defaults import ALPHA, BUDGET_PRESETS, CHAINS, DRAWS, ENGINES, FIT_TIMEOUT, TUNE
from zoo.registry import names

__all__ = [
    "SEED_MAX",
    "budget_options",
    "build_parser",
    "empty_value",
    "option_dest",
    "seed_option",
    "validate_table",
]


class _Parser(argparse.ArgumentParser):
    """A parser some of whose options are added only when it parses or prints help.

    ``zoo validate``'s ``--checks`` and budget options are read from the battery's
    table, whose import brings SciPy, xarray and the checks with it (seconds); added
    when ``zoo validate`` runs, they cost ``zoo list`` and ``zoo --help`` nothing.
    """

    completion = None

    def _complete(self) -> None:
        completion, self.completion = self.completion, None
        if completion is not None:
            completion(self)

    def parse_known_args(self, args=None, namespace=None):
        self._complete()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self._complete()
        return super().format_help()


def validate_table():
    """The battery's table of checks, :data:`zoo.validation.CHECKS`."""
    # deferred: the battery imports SciPy and xarray; only `zoo validate` reads it
    from zoo.validation.battery import CHECKS

    return CHECKS


def build_parser(table=None) -> argparse.ArgumentParser:
    """The ``zoo`` command's parser: every sub-command and option, defaults from one place.

    ``zoo validate``'s ``--checks`` and budget options are generated from ``table``
    (default: the battery's, :func:`validate_table`; or a copy with a check of your own).
    """
    parser = argparse.ArgumentParser(
        prog="zoo",
        description="Conjugate models three times over: PyMC, collapsed Gibbs, exact.",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
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
    check.add_argument(
        "--draws", type=int, default=DRAWS, help=f"kept draws per chain (default {DRAWS})"
    )
    check.add_argument(
        "--tune", type=int, default=TUNE, help=f"warm-up sweeps per chain (default {TUNE})"
    )
    check.add_argument(
        "--chains", type=int, default=CHAINS, help=f"chains per engine (default {CHAINS})"
    )
    check.add_argument("--seed", type=seed_option, default=0, help=_SEED_HELP)
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
        help="write an HTML report (index.html and PNG figures) into DIR (default: none)",
    )
    check.add_argument(
        "--out",
        metavar="FILE",
        help="save the run (draws, data, prior, settings, versions) to FILE.nc (NetCDF) "
        "or FILE.zarr (Zarr); an interrupted run (Ctrl-C) saves what it drew (default: not "
        "saved)",
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
    _add_validate(commands, table)
    return parser


#: The largest ``--seed``. A run keeps its seed with its draws (``zoo check --out``), and
#: NetCDF's and Zarr's attributes hold at most 64-bit integers: ``--seed 10**23`` was
#: taken, and could not be saved. (A seed of the Python API may be larger: a fresh
#: seed's 128-bit entropy is recorded as text, ``zoo.sample(seed=None)``.)
SEED_MAX = 2**63 - 1

#: What ``--seed`` must be, as its help and its refusal say it.
_SEED_RULE = "an integer >= 0 and at most 2**63 - 1, in decimal digits"

#: ``--seed``'s help, for every command that takes one.
_SEED_HELP = f"root seed, {_SEED_RULE} (default 0)"


def seed_option(text: str) -> int:
    """``--seed``'s value: decimal digits naming an integer from 0 to :data:`SEED_MAX`.

    ``int()`` alone took ``1_000``, digits of other scripts and any size; ``1e23`` or
    ``0x10`` were refused only as "invalid int value", without the rule.

    Raises
    ------
    argparse.ArgumentTypeError
        With the rule; argparse names the option (``argument --seed: must be ...``).
    """
    digits = text.strip()
    if digits.isascii() and digits.isdigit() and int(digits) <= SEED_MAX:
        return int(digits)
    raise argparse.ArgumentTypeError(f"must be {_SEED_RULE}, got {text!r}")


def option_dest(option: str) -> str:
    """The attribute of the parsed arguments that holds ``--option``."""
    return option.replace("-", "_")


def budget_options(table) -> dict[str, list]:
    """Every budget option of ``table``: ``{option: [(check, setting), ...]}``, in order.

    An option several checks' settings share (``--draws``: exact and nuts) sets all of
    them, so they must share its default.

    Raises
    ------
    ValueError
        For an option whose settings have different defaults.
    """
    options: dict[str, list] = {}
    for check in table:
        for setting in check.budget:
            options.setdefault(check.option(setting), []).append((check, setting))
    for option, owners in options.items():
        defaults = {setting.default for _, setting in owners}
        if len(defaults) > 1:
            raise ValueError(
                f"--{option}: set by {', '.join(c.name for c, _ in owners)} with different "
                f"defaults {sorted(defaults)}; give each its own option"
            )
    return options


def _checks_help(table) -> str:
    """``--checks``'s help, from the table: the names, and what runs by default."""
    kernel = [check.name for check in table if check.needs_kernel]
    pymc_only = [check.name for check in table if check.default_on == ("pymc",)]
    notes = []
    if kernel:
        notes.append(f"{', '.join(kernel)} with a --kernel")
    if pymc_only:
        notes.append(f"{', '.join(pymc_only)} by default with --model only")
    return (
        f"comma-separated subset of {','.join(check.name for check in table)} (default: all "
        f"that apply; {'; '.join(notes)})"
    )


def _preset_values(option: str, owners) -> str:
    """``quick 250, thorough 4000``: an option's value in each preset that changes it."""
    values = []
    for preset, settings in BUDGET_PRESETS.items():
        set_by = {settings.get(c.name, {}).get(s.name) for c, s in owners} - {None}
        if len(set_by) > 1:
            raise ValueError(f"--{option}: preset {preset!r} sets its checks to {sorted(set_by)}")
        if set_by:
            values.append(f"{preset} {set_by.pop()}")
    return "".join(f", {value}" for value in values)


def _budget_help(table) -> str:
    """``--budget``'s help: each preset and what it sets, read from the presets."""
    described = []
    for preset, settings in BUDGET_PRESETS.items():
        changes = [
            f"--{check.option(setting)} {settings[check.name][setting.name]}"
            for option, owners in budget_options(table).items()
            for check, setting in owners[:1]
            if setting.name in settings.get(check.name, {})
        ]
        described.append(f"{preset} ({', '.join(changes) or 'the defaults below'})")
    return (
        f"budget preset: {'; '.join(described)}. An option below overrides its setting "
        "(default: default)"
    )


def _add_budget_options(parser, table) -> None:
    """``--budget``, and one option per budget setting of the table's checks (shared once).

    Each option's help says which checks' settings it governs, its default and its
    value in each preset; its parsed value is None unless given, so that a preset
    applies under it.
    """
    group = parser.add_argument_group(
        "check budgets", "what each check spends; budgets={check: {setting: value}} in Python"
    )
    group.add_argument(
        "--budget", choices=tuple(BUDGET_PRESETS), default="default", help=_budget_help(table)
    )
    for option, owners in budget_options(table).items():
        _, setting = owners[0]
        where = ", ".join(f"{c.name} {s.name}" for c, s in owners)
        group.add_argument(
            f"--{option}",
            dest=option_dest(option),
            type=int,
            default=None,
            metavar="N",
            help=f"{setting.help} (governs {where}; default {setting.default}"
            f"{_preset_values(option, owners)}; at least {setting.minimum})",
        )


def _add_validate(commands, table) -> None:
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
        "hold the data to check on, or a list of (name, pymc.Model) for several data sets "
        "(no default: give MODEL or --model)",
    )
    parser.add_argument(
        "--reference",
        metavar="MODULE:FUNCTION",
        help="with --model: reference(data) returning a zoo.Reference, the exact posterior "
        "(default: derived from the graph when the model is conjugate)",
    )
    parser.add_argument(
        "--exchangeable",
        metavar="PARAMS[:LABEL[:WEIGHTS]]",
        action="append",
        help="with --model: a mixture whose components are exchangeable, where the graph "
        "cannot show it, e.g. mu,sigma:z:w (repeat for several); its label-invariant "
        "quantities are compared instead (default: the mixtures the graph shows; "
        "'none' compares the raw variables)",
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--sampler",
        metavar="MODULE:FUNCTION",
        help="function(data, prior, *, draws, chains, seed) for a zoo model, "
        "function(data, *, draws, chains, seed) for --model; returns a DataTree or a dict "
        "of (chain, draw, ...) arrays with the model's variable names (default: none)",
    )
    what.add_argument(
        "--kernel",
        metavar="MODULE:OBJECT",
        help="an object with init, step and draw (like zoo.Kernel); adds Geweke's test and "
        "the one-sweep invariance check (default: none)",
    )
    what.add_argument(
        "--fault", metavar="NAME", help="a catalogued wrong kernel (zoo list; default: none)"
    )
    what.add_argument(
        "--engine",
        choices=ENGINES,
        help=f"one of the zoo's engines (default {ENGINES[0]}, when none of --sampler, "
        "--kernel, --fault is given)",
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

    def from_the_table(parser) -> None:
        checks = validate_table() if table is None else table
        parser.add_argument("--checks", metavar="LIST", help=_checks_help(checks))
        _add_budget_options(parser, checks)

    parser.completion = from_the_table
    parser.add_argument("--seed", type=seed_option, default=0, help=_SEED_HELP)
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
        "per core; 0 at --budget quick without --scheduler or --timeout); 0 runs them one "
        "after the other in the process that runs your code (see --in-process; no timeout)",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="run your code (--model, --reference, --sampler, --kernel) in the zoo's own "
        "process, as a debugger (pdb, breakpoint()) needs it, with --workers 0 your sampler "
        "too (default: in a child process the zoo supervises, so that nothing your code "
        "does can end the run without a word, change its exit status or write into --json)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="an existing Dask scheduler (default: a local cluster of --workers processes)",
    )
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
        "same settings resumes from it (default: none)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress display")
    parser.add_argument(
        "--report",
        metavar="DIR",
        help="write an HTML report (index.html, SBC ECDF figure) into DIR (default: none)",
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
