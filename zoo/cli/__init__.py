"""The ``zoo`` command: ``zoo list``, ``zoo check``, ``zoo report`` and ``zoo validate``.

The top layer: it imports the application, nothing imports it. This module holds only
what must be in place before anything else runs: the handlers of Ctrl-C and ``kill``.
It imports the standard library alone (and the interrupt rule of
:mod:`zoo.sampling.interrupts`, which imports nothing else), so that a signal sent
while the program starts, before NumPy or the parser load (most of a second on a loaded
machine), already ends it with one line and the shell's status. The program proper
(:mod:`zoo.cli.program`) is imported once the handlers are set, and each sub-command
lives in its own module, imported when that command runs, so ``zoo list`` and ``zoo
--help`` do not pay for PyMC, ArviZ and Dask.
"""

from __future__ import annotations

import faulthandler
import importlib
import os
import signal
import sys
import threading

from zoo.cli import exit_guard
from zoo.sampling.interrupts import deferred, send_again

__all__ = ["main"]

#: Exit status when the reader of standard output went away: the shell's for SIGPIPE.
_BROKEN_PIPE = 128 + 13

#: Exit statuses of a run stopped by Ctrl-C (SIGINT) or ``kill`` (SIGTERM): the shell's.
_STOPPED = {signal.SIGINT: 128 + signal.SIGINT, signal.SIGTERM: 128 + signal.SIGTERM}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``zoo`` command; returns the exit status.

    ``argv`` None: the ``zoo`` program itself, with the process's arguments (standard
    output then stays guarded until the process ends, :mod:`zoo.cli.stdout_guard`, and
    a command that imports the user's code makes every exit before this function
    returns say so and end non-zero, :mod:`zoo.cli.exit_guard`).
    """
    status = 1  # an exception escaping the program: Python's traceback and status 1
    try:
        status = _main(argv)
        return status
    finally:
        exit_guard.finish(status)
        if argv is None:
            _stop_at_once_from_now()


def _stop_at_once_from_now() -> None:
    """From the run's end to the process's, a stopping signal ends it at once, in one line.

    What follows the run is Python's shutdown (threads joined, ``atexit`` handlers,
    modules freed: seconds with PyMC, Dask and numba loaded, on a busy machine). With
    Python's own handler a Ctrl-C there was a traceback in an ``atexit`` callback, and
    once Python had set the signals back to their defaults, the end of the process by
    the signal (status -2, no word) after a run that had finished and written its
    results (issue 32's probe: ``--checks exact --workers 0``, Ctrl-C at 20 s). The last
    moments, after Python resets its handlers, remain the signal's.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    # The handler ends the process without Python's final flush: what the run printed
    # must be out first (a table piped to a file is block-buffered), or a signal in the
    # shutdown would cut the output of a run that had finished.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the reader is gone, or the stream closed
            pass

    def stop(number, frame) -> None:
        os.write(2, b"zoo: interrupted while exiting; the run had finished\n")
        os._exit(_STOPPED[number])

    for number in _STOPPED:
        if signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, stop)


def _main(argv: list[str] | None) -> int:
    if argv is None:
        # A sampler run in this process (--workers 0) that crashes it (a segmentation
        # fault in compiled code) ends the zoo: with a word on where, not silently.
        faulthandler.enable()
    with _StopSignals() as stop:
        try:
            # deferred until the handlers are set: the parser and the registry load NumPy
            status = importlib.import_module("zoo.cli.program").run(argv)
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
        self._hook = None  # Python's sys.unraisablehook while the handlers are set
        self._dropped = False  # the first signal's KeyboardInterrupt was dropped by Python

    def __enter__(self) -> _StopSignals:
        if threading.current_thread() is not threading.main_thread():
            return self  # handlers can only be set in the main thread
        for number in _STOPPED:
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
        and dropped: a SIGTERM during an SBC run printed 8 lines (issue 32's probe), and
        where nothing else noted the signal the run went on.
        """
        if self.received and _raised_here(unraisable.exc_traceback, self._handle):
            self._dropped = True
            send_again(self.received[0])
            return
        self._hook(unraisable)

    def __exit__(self, *exc) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous)
        if self._hook is not None:
            sys.unraisablehook, self._hook = self._hook, None


def _raised_here(trace, handler) -> bool:
    """Whether the innermost frame of ``trace`` runs ``handler`` (a bound method)."""
    if trace is None:
        return False
    while trace.tb_next is not None:
        trace = trace.tb_next
    return trace.tb_frame.f_code is handler.__func__.__code__
