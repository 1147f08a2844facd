"""SIGINT and SIGTERM while a ``zoo`` command runs: the first stops it, once.

Standard library only (and the interrupt rule of :mod:`zoo.sampling.interrupts`, which
imports nothing else): :func:`zoo.cli.main` sets these handlers before NumPy loads, and
the process that runs the user's code (:mod:`zoo.cli.user_process`) sets its own.
"""

from __future__ import annotations

import signal
import sys
import threading

from zoo.sampling.interrupts import deferred, raised_by, send_again

__all__ = ["STOPPED", "StopSignals", "flush_streams"]

#: Exit statuses of a run stopped by Ctrl-C (SIGINT) or ``kill`` (SIGTERM): the shell's.
STOPPED = {signal.SIGINT: 128 + signal.SIGINT, signal.SIGTERM: 128 + signal.SIGTERM}


def flush_streams() -> None:
    """Flush Python's standard output and error, before a process ends with ``os._exit``.

    ``os._exit`` skips Python's final flush: a table piped to a file (block-buffered)
    would be lost. A reader that went away or a closed stream is not an error here.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


class StopSignals:
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
        self._hook = None  # Python's sys.unraisablehook while the handlers are set
        self._dropped = False  # the first signal's KeyboardInterrupt was dropped by Python

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is not threading.main_thread():
            return self  # handlers can only be set in the main thread
        for number in STOPPED:
            previous = signal.getsignal(number)
            if previous is signal.SIG_IGN:
                continue
            self._previous[number] = previous
            signal.signal(number, self._handle)
        if self._previous:
            self._hook, sys.unraisablehook = sys.unraisablehook, self._unraisable
        return self

    def _handle(self, number, frame) -> None:
        acting = not self.received or self._dropped
        if acting and deferred(number, frame):
            return  # inside numba's conversion of arguments: sent again in a moment
        if self._dropped:  # the first signal, sent again: raised now
            self._dropped = False
            raise KeyboardInterrupt
        self.received.append(number)
        if len(self.received) == 1:
            raise KeyboardInterrupt

    def _unraisable(self, unraisable) -> None:
        """A KeyboardInterrupt of :meth:`_handle` that Python dropped: sent again, quietly.

        A signal landing in code whose exceptions Python cannot pass on (a weakref
        callback, a ``__del__``, run for an object freed in the middle of an instruction)
        had its KeyboardInterrupt printed as "Exception ignored in ..." with a traceback,
        and dropped: a SIGTERM during an SBC run printed 8 lines (a probe), and
        where nothing else noted the signal the run went on.
        """
        if self.received and raised_by(unraisable.exc_traceback, self._handle):
            self._dropped = True
            send_again(self.received[0])
            return
        self._hook(unraisable)

    def __exit__(self, *exc) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous)
        if self._hook is not None:
            sys.unraisablehook, self._hook = self._hook, None
