"""A new Python started as a terminal's foreground job would be: SIGINT at its default.

A shell that ignores SIGINT (a background job without job control, ``nohup``, some CI
runners) hands the ignored signal down across ``exec``, and the zoo rightly keeps an
ignored SIGINT ignored: a test sending SIGINT to such a child would meet a run that
ended normally, and either fail or pass having checked nothing. The command here resets
SIGINT to its default before Python proper starts, then execs Python with the
arguments, so the child is what the tests stand for whatever started pytest.
"""

from __future__ import annotations

import sys

#: Run before Python proper: SIGINT at its default, then exec Python with the arguments.
_LAUNCHER = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


def python_command(*arguments: str) -> list[str]:
    """The command line of ``python ARGUMENTS`` started with SIGINT at its default."""
    return [sys.executable, "-c", _LAUNCHER, *arguments]
