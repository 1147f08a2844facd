"""Set-up of each Dask worker process of the zoo's local cluster (a Dask preload module).

A terminal's Ctrl-C sends SIGINT to the whole foreground process group: the zoo, which
stops the run and says so in one line, and its worker processes, which printed a
KeyboardInterrupt traceback each (34 lines for two workers) before that line. A worker
leaves the terminal's process group as it starts, so only the zoo hears Ctrl-C; the zoo
then closes the cluster, which ends its workers, quietly. A Ctrl-C in the second or two
before a worker has run this still reaches it; what it then prints goes through the zoo,
which drops it (:mod:`zoo.sampling.child_stderr`).
"""

from __future__ import annotations

import logging
import os

__all__ = ["dask_setup", "leave_terminal_group"]


def leave_terminal_group() -> None:
    """Leave the terminal's process group: its Ctrl-C then reaches the zoo only."""
    try:
        os.setpgrp()
    except OSError:  # already a group leader, or not permitted: Ctrl-C still reaches it
        pass


def dask_setup(worker) -> None:
    """Dask's preload hook, called in the worker process as it starts."""
    leave_terminal_group()
    # A worker's own log is not the user's to read: the zoo reports every fit's outcome
    # (an error, a timeout, a death from its nanny's notice), while a worker that the
    # closing cluster outlives by a heartbeat logged "Failed to communicate with
    # scheduler" with a 40-line traceback after an interrupted run.
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
