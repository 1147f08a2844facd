"""Keep standard output for the JSON a command prints: what a user's sampler prints goes to stderr.

``zoo validate --json`` runs code the user wrote (a sampler, a kernel, a model module),
in this process and in the worker processes Dask and PyMC start. One ``print()`` there
put text before the ``{`` and broke every reader of the JSON. While the command works,
file descriptor 1 points at standard error (so child processes, which inherit it, and C
code write there too) and ``sys.stdout`` is ``sys.stderr``; the JSON is printed after.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

__all__ = ["stdout_to_stderr"]


@contextlib.contextmanager
def stdout_to_stderr(active: bool = True) -> Iterator[None]:
    """While active, everything written to standard output goes to standard error."""
    if not active:
        yield
        return
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no file descriptor 1 (a closed stdout): Python's level only
        saved = None
    try:
        if saved is not None:
            os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stderr.flush()
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)
