"""Standard error of child processes, forwarded by this process and silenced on Ctrl-C.

A terminal's Ctrl-C sends SIGINT to its whole foreground process group. The zoo's Dask
worker processes leave that group as soon as they run their set-up
(:mod:`zoo.sampling.worker_process`), but for the second or so in which they start and
import, a Ctrl-C reaches them too, and each prints a ``KeyboardInterrupt`` traceback
(some 90 lines for two workers) under the zoo's one-line message. Nothing in the zoo can
stop a process that has already been signalled from writing; what the zoo can own is where
it writes. While the workers are being started, this process's file descriptor 2 is a
pipe: the processes spawned meanwhile inherit it as their standard error, for good, and a
thread here copies it to the real standard error until the run is interrupted, from
when on it is read and dropped. The descriptor is given back as soon as the workers are
up, so the zoo's own messages and progress display go straight to the terminal again.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["ChildStderr"]

#: Seconds the first output after a silence is held, for an interrupt to mute it.
_HOLD_SECONDS = 0.25


class ChildStderr:
    """The forwarding of the standard error of processes started under :meth:`spawning`.

    Examples
    --------
    >>> forwarded = ChildStderr()
    >>> with forwarded.spawning():
    ...     pass  # start the child processes here
    >>> forwarded.mute()  # on an interrupt: what they write from now on is dropped
    """

    def __init__(self):
        self._muted = threading.Event()
        self._thread: threading.Thread | None = None

    @contextmanager
    def spawning(self) -> Iterator[None]:
        """Processes started in this block write their standard error to the forwarder."""
        if self._thread is not None:
            raise RuntimeError("ChildStderr.spawning: use each forwarder once")
        try:
            sys.stderr.flush()
            terminal = os.dup(2)
        except (AttributeError, OSError, ValueError):  # no descriptor 2: nothing to own
            yield
            return
        read_end, write_end = os.pipe()
        self._thread = threading.Thread(
            target=self._forward, args=(read_end, terminal), name="zoo-child-stderr", daemon=True
        )
        self._thread.start()
        os.dup2(write_end, 2)
        os.close(write_end)
        try:
            yield
        finally:
            # What this process wrote meanwhile is in the pipe, ahead of what follows.
            try:
                sys.stderr.flush()
            except (AttributeError, OSError, ValueError):
                pass
            # Only the children hold the write end now: when the last one ends, the
            # forwarder reads the end of the pipe and stops.
            os.dup2(terminal, 2)

    def mute(self) -> None:
        """Drop what the children write from now on (their interrupt tracebacks)."""
        self._muted.set()

    def _forward(self, read_end: int, terminal: int) -> None:
        quiet_since = -float("inf")  # the first words of all are held too
        try:
            while chunk := os.read(read_end, 65536):
                # A Ctrl-C reaches the children and this process at once; they may write
                # their tracebacks before this process has raised and called mute(). The
                # first words after a silence wait a moment for that call; a steady
                # stream (a chatty sampler) is not slowed.
                if time.monotonic() - quiet_since > _HOLD_SECONDS:
                    self._muted.wait(_HOLD_SECONDS)
                if not self._muted.is_set():
                    self._write(terminal, chunk)
                quiet_since = time.monotonic()
        finally:
            os.close(read_end)
            os.close(terminal)

    def _write(self, terminal: int, chunk: bytes) -> None:
        view = memoryview(chunk)
        try:
            while view:
                view = view[os.write(terminal, view) :]
        except OSError:  # the terminal went away: go on reading, so no child blocks
            self._muted.set()
