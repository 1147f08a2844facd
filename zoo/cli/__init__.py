"""The ``zoo`` command: ``zoo list``, ``zoo check``, ``zoo report`` and ``zoo validate``.

The top layer: it imports the application, nothing imports it. This module holds only
what must be in place before anything else runs: the handlers of Ctrl-C and ``kill``
(:mod:`zoo.cli.stop_signals`) and the program's end. It imports the standard library
alone (and the interrupt rule of :mod:`zoo.sampling.interrupts`, which imports nothing
else; not even ctypes, which :mod:`zoo.cli.exit_guard` needs), so that a signal sent
while the program starts, before NumPy or the parser load (most of a second on a loaded
machine), already ends it with one line and the shell's status. The program proper
(:mod:`zoo.cli.program`) is imported once the handlers are set, and each sub-command
lives in its own module, imported when that command runs, so ``zoo list`` and ``zoo
--help`` do not pay for PyMC, ArviZ and Dask.

What remains the signal's (the process ended by it, no line): Python's own start, before
this module's first line runs (the interpreter and ``site``; about 30 ms here, most of
it an editable install's import hook), and the imports up to the handlers (``zoo``,
this module, :mod:`zoo.cli.stop_signals`: a few ms). At the end, :func:`program` ends
the process itself once the exit handlers have run, so Python's teardown, whose handlers
are the defaults again, never runs.
"""

from __future__ import annotations

import atexit
import faulthandler
import importlib
import os
import signal
import sys
import threading

from zoo.cli.stop_signals import STOPPED, StopSignals, flush_streams

__all__ = ["main", "program"]

#: Exit status when the reader of standard output went away: the shell's for SIGPIPE.
_BROKEN_PIPE = 128 + 13


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``zoo`` command; returns the exit status.

    ``argv`` None: the ``zoo`` program itself, with the process's arguments (standard
    output then stays guarded until the process ends, :mod:`zoo.cli.stdout_guard`, and
    the user's code runs in a child process the zoo supervises,
    :mod:`zoo.cli.user_process`, or with ``--in-process`` here, where every exit before
    this function returns says so and ends non-zero, :mod:`zoo.cli.exit_guard`). Called
    from Python, the user's code runs in the caller's process.
    """
    status = 1  # an exception escaping the program: Python's traceback and status 1
    try:
        status = _main(argv)
        return status
    finally:
        # Imported with the user's code, if at all (zoo.cli.program arms it): ctypes is
        # not worth loading before the handlers.
        guard = sys.modules.get("zoo.cli.exit_guard")
        if guard is not None:
            guard.finish(status)
        if argv is None:
            _stop_at_once_from_now()


def program() -> None:
    """The ``zoo`` program (its console script, ``python -m zoo.cli``): run, then end.

    Ends the process with :func:`main`'s status once Python's own end would have done
    what the zoo needs (threads joined, ``atexit`` handlers run, the streams flushed),
    without the teardown of every module that follows: Python sets the signals back to
    their defaults before it, so a Ctrl-C or ``kill`` there (hundreds of ms with PyMC,
    Dask and numba loaded) ended the process by the signal with no line, after a run
    that had finished.
    """
    status = main()
    # Python's own order: threads, then exit handlers (the stopping signals are the
    # zoo's one-line end meanwhile, _stop_at_once_from_now).
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None and threading.current_thread() is threading.main_thread():
        shutdown()
    atexit._run_exitfuncs()
    flush_streams()
    ctypes = sys.modules.get("ctypes")
    if ctypes is not None:  # what compiled code wrote through the C library's buffers
        try:
            ctypes.CDLL(None).fflush(None)
        except (OSError, AttributeError):
            pass
    os._exit(status if isinstance(status, int) else 1)


def _stop_at_once_from_now() -> None:
    """From the run's end to the process's, a stopping signal ends it at once, in one line.

    What follows the run is Python's shutdown (threads joined, ``atexit`` handlers,
    modules freed: seconds with PyMC, Dask and numba loaded, on a busy machine). With
    Python's own handler a Ctrl-C there was a traceback in an ``atexit`` callback, and
    once Python had set the signals back to their defaults, the end of the process by
    the signal (status -2, no word) after a run that had finished and written its
    results (a probe: ``--checks exact --workers 0``, Ctrl-C at 20 s).
    :func:`program` ends the process before Python would reset them.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    # The handler ends the process without Python's final flush: what the run printed
    # must be out first (a table piped to a file is block-buffered), or a signal in the
    # shutdown would cut the output of a run that had finished.
    flush_streams()

    def stop(number, frame) -> None:
        os.write(2, b"zoo: interrupted while exiting; the run had finished\n")
        os._exit(STOPPED[number])

    for number in STOPPED:
        if signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, stop)


def _main(argv: list[str] | None) -> int:
    with StopSignals() as stop:  # first: until now a signal ends the process, no line
        if argv is None:
            # A sampler run in this process (--in-process --workers 0) that crashes it (a
            # segmentation fault in compiled code) ends the zoo: with a word on where.
            faulthandler.enable()
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
        return STOPPED[stop.received[0]]
    return status
