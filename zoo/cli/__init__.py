"""The ``zoo`` command: ``zoo list``, ``zoo check``, ``zoo report`` and ``zoo validate``.

The top layer: it imports the application, nothing imports it. Each sub-command lives in
its own module, imported when that command runs, so ``zoo list`` and ``zoo --help`` do
not pay for PyMC, ArviZ and Dask.
"""

from __future__ import annotations

import importlib
import os
import sys

from zoo.cli.parser import build_parser
from zoo.registry import get, names

__all__ = ["main"]

#: The module that runs each sub-command (its ``run(args)`` returns the exit status).
_COMMANDS = {
    "check": "zoo.cli.check_command",
    "report": "zoo.cli.report_command",
    "validate": "zoo.cli.validate_command",
}


#: Exit status when the reader of standard output went away: the shell's for SIGPIPE.
_BROKEN_PIPE = 128 + 13


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``zoo`` command; returns the exit status."""
    try:
        return _run(argv)
    except BrokenPipeError:
        # `zoo list | head -1`: the reader closed the pipe. Stop quietly, as a Unix filter
        # does; standard output is pointed at /dev/null so that Python's final flush of
        # what is still buffered cannot raise again at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return _BROKEN_PIPE


def _run(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    if args.command == "list":
        for name in names():
            model = get(name)
            print(f"{name:16s} {model.summary}")
            if args.faults:
                for fault in model.faults:
                    print(f"{'':16s}   fault: {fault}")
        return 0
    args.command_line = " ".join(["zoo", *argv])
    try:
        # deferred: a command's module pulls in PyMC, ArviZ or Dask (seconds of start-up)
        return importlib.import_module(_COMMANDS[args.command]).run(args)
    except KeyboardInterrupt:
        # Ctrl-C in a phase the command does not handle itself (importing, judging,
        # writing a report): one line and the shell's status for SIGINT, no traceback.
        print(f"zoo {args.command}: interrupted", file=sys.stderr)
        return 130
