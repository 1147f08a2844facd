"""The ``zoo`` command: ``zoo list``, ``zoo check``, ``zoo report`` and ``zoo validate``.

The top layer: it imports the application, nothing imports it. Each sub-command lives in
its own module, imported when that command runs, so ``zoo list`` and ``zoo --help`` do
not pay for PyMC, ArviZ and Dask.
"""

from __future__ import annotations

import argparse
import faulthandler
import importlib
import os
import signal
import sys
import threading

from zoo.cli.parser import build_parser, empty_value
from zoo.cli.stdout_guard import json_stdout
from zoo.registry import get, names
from zoo.sampling.interrupts import deferred

__all__ = ["main"]

#: The module that runs each sub-command (its ``run(args)`` returns the exit status).
_COMMANDS = {
    "check": "zoo.cli.check_command",
    "report": "zoo.cli.report_command",
    "validate": "zoo.cli.validate_command",
}


#: Exit status when the reader of standard output went away: the shell's for SIGPIPE.
_BROKEN_PIPE = 128 + 13

#: Exit statuses of a run stopped by Ctrl-C (SIGINT) or ``kill`` (SIGTERM): the shell's.
_STOPPED = {signal.SIGINT: 128 + signal.SIGINT, signal.SIGTERM: 128 + signal.SIGTERM}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``zoo`` command; returns the exit status.

    ``argv`` None: the ``zoo`` program itself, with the process's arguments (standard
    output then stays guarded until the process ends, :mod:`zoo.cli.stdout_guard`).
    """
    if argv is None:
        # A sampler run in this process (--workers 0) that crashes it (a segmentation
        # fault in compiled code) ends the zoo: with a word on where, not silently.
        faulthandler.enable()
    with _StopSignals() as stop:
        try:
            status = _run(argv)
        except BrokenPipeError:
            # `zoo list | head -1`: the reader closed the pipe. Stop quietly, as a Unix
            # filter does; standard output is pointed at /dev/null so that Python's final
            # flush of what is still buffered cannot raise again at exit.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            return _BROKEN_PIPE
        except KeyboardInterrupt:
            # Stopped where no command catches it (parsing, cleaning up): still one line.
            print("zoo: interrupted", file=sys.stderr)
            status = 130
    if stop.received and status == 130:
        return _STOPPED[stop.received[0]]
    return status


class _StopSignals:
    """SIGINT and SIGTERM stop the run once; signals after the first are noted, not acted on.

    The first raises ``KeyboardInterrupt`` where the run is (SIGTERM as SIGINT: the same
    one-line message, what finished kept, nothing unfinished stored, lock files
    removed), and the exit status says which it was (130, 143). A second Ctrl-C while
    the run cleans up (a cluster closing, a store closing) once escaped every handler and
    ended the process by the signal (status -2), with a traceback. A SIGINT that the
    process was started ignoring (a background job without job control) stays ignored.
    """

    def __init__(self):
        self.received: list[int] = []
        self._previous: dict[int, object] = {}

    def __enter__(self) -> _StopSignals:
        if threading.current_thread() is not threading.main_thread():
            return self  # handlers can only be set in the main thread
        for number in _STOPPED:
            previous = signal.getsignal(number)
            if previous is signal.SIG_IGN:
                continue
            self._previous[number] = previous
            signal.signal(number, self._handle)
        return self

    def _handle(self, number, frame) -> None:
        if not self.received and deferred(number, frame):
            return  # inside numba's conversion of arguments: sent again in a moment
        self.received.append(number)
        if len(self.received) == 1:
            raise KeyboardInterrupt

    def __exit__(self, *exc) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous)


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


def _run(argv: list[str] | None) -> int:
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
