"""The ``zoo`` program once its signal handlers are set: parse, then run a sub-command.

:func:`zoo.cli.main` imports this module after setting the handlers of Ctrl-C and
``kill`` (it loads NumPy, through the parser's defaults and the registry).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from zoo.cli import exit_guard
from zoo.cli.parser import build_parser, empty_value
from zoo.cli.stdout_guard import json_stdout
from zoo.registry import get, names

__all__ = ["run"]

#: Options of ``zoo validate`` naming the user's code.
_USER_CODE = ("pymc_model", "reference", "sampler", "kernel")

#: The module that runs each sub-command (its ``run(args)`` returns the exit status).
_COMMANDS = {
    "check": "zoo.cli.check_command",
    "report": "zoo.cli.report_command",
    "validate": "zoo.cli.validate_command",
}


def _one_line_errors(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` (and each sub-command's) refusing bad arguments in one line, exit 2.

    argparse's own way is the whole usage text and then the error: the rule of the zoo's
    command line is one line, naming the option and the rule.
    """
    parsers = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            parsers += action.choices.values()
    for each in parsers:

        def error(message, each=each):
            each.exit(2, f"{each.prog}: {message} (`{each.prog} --help` lists the options)\n")

        each.error = error
    return parser


def run(argv: list[str] | None) -> int:
    """Parse ``argv`` (None: the process's arguments) and run its command; the exit status."""
    program = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _one_line_errors(build_parser())
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, or a refusal already said: its status
        return done.code
    empty = empty_value(parser, args)
    if empty is not None:
        print(f"zoo {args.command}: {empty}", file=sys.stderr)
        return 2
    if args.command == "list":
        for name in names():
            model = get(name)
            print(f"{name:16s} {model.summary}")
            if args.faults:
                for fault in model.faults:
                    print(f"{'':16s}   fault: {fault}")
        return 0
    args.command_line = " ".join(["zoo", *argv])
    # The zoo program runs the user's code in a child process it supervises
    # (zoo.cli.user_process), unless asked to run it here; a call of zoo.cli.main from
    # Python runs it in the caller's own process.
    args.user_code = any(getattr(args, name, None) for name in _USER_CODE)
    # (Where there is no fork, as on Windows, the code runs here, under the exit guard.)
    args.supervised = (
        program
        and args.user_code
        and not getattr(args, "in_process", False)
        and hasattr(os, "fork")
    )
    if program and args.user_code and not args.supervised:
        # Before the user's module is imported: from now on an exit it causes (the C
        # library's exit, os._exit) says so and never ends the run with status 0.
        exit_guard.arm(f"zoo {args.command}")
    # From here a user's module may be imported: with --json, standard output is the
    # JSON's alone from now on.
    with json_stdout(getattr(args, "json", False), program=program):
        try:
            # deferred: a command's module pulls in PyMC, ArviZ or Dask (seconds of start-up)
            return importlib.import_module(_COMMANDS[args.command]).run(args)
        except KeyboardInterrupt:
            # Ctrl-C in a phase the command does not handle itself (importing, judging,
            # writing a report): one line and the shell's status for SIGINT, no traceback.
            print(f"zoo {args.command}: interrupted", file=sys.stderr)
            return 130
