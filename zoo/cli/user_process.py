"""The user's code runs in a child process that the zoo supervises, never in the zoo's own.

``zoo validate --model/--reference/--sampler/--kernel MODULE:FUNCTION`` imports and calls
code the zoo does not know. Run in the zoo's own process, that code could end it with
any status and without a word (``os._exit(0)``, the C library's ``exit``, a segmentation
fault, ``sys.exit`` at import), print after or inside ``--json``'s document, or replace
the zoo's signal handlers. So the command's process parses and checks the options,
claims the output paths (their lock files) and then only supervises: :func:`supervised`
forks a child that runs the work (importing the user's modules, running the battery)
and sends back its result through a pipe; the zoo's process prints it, writes the
report, removes the locks and decides the exit status. A child that ends without
sending a whole result is said in one line and the run ends with
:data:`zoo.cli.exit_guard.UNFINISHED` (70), whatever the child's own status was.

Why ``fork`` and not a new interpreter: the child starts with everything the zoo has
imported (NumPy, PyMC, the battery: several CPU seconds), so nothing is loaded twice; the
zoo's process has run no user code, so there is nothing of the user's in it to copy.

Signals: the child is put in a process group of its own, so a terminal's Ctrl-C reaches
the zoo alone, which passes each SIGINT or SIGTERM on to the child and waits for it: the
child stops the run as a run in the zoo's process would (one line, what finished kept in
``--store``), and says its status. SIGINT and SIGTERM are blocked from before the fork
until each side has its handlers, so no signal falls between. The child ignores SIGTTOU
(writing to the terminal from a group that is not the terminal's foreground one must not
stop it) and is sent SIGTERM if the zoo's process dies (Linux's parent-death signal).

``--in-process`` (and a call of :func:`zoo.cli.main` from Python, which is the caller's
own process) runs the work in the zoo's process instead, as a debugger needs.
"""

from __future__ import annotations

import atexit
import ctypes
import faulthandler
import io
import os
import pickle
import select
import signal
import struct
import sys
import traceback
import warnings
from collections.abc import Callable

from zoo.cli.exit_guard import UNFINISHED
from zoo.cli.output_paths import close_claims_in_child
from zoo.cli.stdout_guard import close_saved_in_child, write_all
from zoo.cli.stop_signals import STOPPED, StopSignals, flush_streams

__all__ = ["supervised"]

#: The signals the zoo passes on to the child.
_PASSED_ON = (signal.SIGINT, signal.SIGTERM)

#: Bytes of the length that precedes the pickled result.
_HEADER = struct.Struct("<Q")

#: Linux's ``prctl`` option that sends the child a signal when its parent dies.
_PR_SET_PDEATHSIG = 1

#: The process's real ``os._exit``, taken before any user code runs.
_exit = os._exit

#: Modules whose classes the zoo's process unpickles from the child's result: the zoo's
#: own and the libraries it is built on. A class from anywhere else (the user's module)
#: would import that module into the zoo's process.
_TRUSTED = ("zoo", "numpy", "xarray", "pandas", "builtins", "collections", "copyreg", "_codecs")


def supervised(command: str, work: Callable[[], object]) -> object:
    """``work()`` run in a child process; what it returned, or the status to exit with.

    ``work`` returns an exit status (an int: it has said why on standard error) or a
    result the zoo's process uses (pickled across). ``command`` begins the lines said
    here (``"zoo validate"``).

    Returns
    -------
    object
        ``work``'s value; or an int status: 130 or 143 when the run was stopped by a
        signal, :data:`~zoo.cli.exit_guard.UNFINISHED` when the child ended without a
        result (said in one line).
    """
    read_end, write_end = os.pipe()
    zoo = os.getpid()
    received: list[int] = []
    child: list[int] = []

    def pass_on(number, frame) -> None:
        received.append(number)
        if child:
            _signal_child(child[0], number)

    previous = {number: signal.getsignal(number) for number in _PASSED_ON}
    # The zoo's handlers pass the signals on from before the fork: one that comes before
    # the child's number is known is noted and sent once it is. In the child (whose only
    # thread is the one that forked) they stay blocked until it has its own handlers.
    for number in _PASSED_ON:
        if previous[number] is not signal.SIG_IGN:
            signal.signal(number, pass_on)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _PASSED_ON)
    try:
        try:
            with warnings.catch_warnings():
                # Python warns that a process with threads may deadlock a forked child.
                # The zoo's other threads here (the --json forwarder, BLAS's pool) hold
                # no lock the child takes: it writes to descriptors, not through them.
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
            if pid == 0:  # the child: never returns
                os.close(read_end)
                _run_child(command, work, write_end, blocked, zoo)
            os.close(write_end)
            child.append(pid)
            _own_group(pid)
            for number in list(received):  # those that came before its number was known
                _signal_child(pid, number)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        data, status = _collect(read_end, pid)
    finally:
        for number, handler in previous.items():
            if signal.getsignal(number) is pass_on:
                signal.signal(number, handler)
        os.close(read_end)
    return _outcome(command, data, status, received)


def _own_group(pid: int) -> None:
    """The child in a process group of its own (set by both sides: whichever runs first)."""
    try:
        os.setpgid(pid, pid)
    except OSError:  # the child has set it already, or has ended
        pass


def _signal_child(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except ProcessLookupError:  # it has ended
        pass


def _collect(read_end: int, pid: int) -> tuple[bytes, int]:
    """What the child sent, and its wait status once it has ended.

    Read until the child ends (not until the pipe's end of file: a process the user's
    code started may hold the pipe's write end after the child is gone).
    """
    chunks = []
    while True:
        ready = select.select([read_end], [], [], 0.2)[0]
        if ready:
            chunk = os.read(read_end, 1 << 16)
            if chunk:
                chunks.append(chunk)
                continue
        ended, status = os.waitpid(pid, os.WNOHANG)
        if ended:
            break
        if ready:  # end of file, the child still running (closing): wait for it
            _, status = os.waitpid(pid, 0)
            break
    os.set_blocking(read_end, False)
    while True:  # what the child wrote just before it ended
        try:
            chunk = os.read(read_end, 1 << 16)
        except BlockingIOError:  # a process the user's code started holds the pipe open
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks), status


def _outcome(command: str, data: bytes, status: int, received: list[int]) -> object:
    """The child's value, or the status to exit with (said in one line when the child cannot)."""
    try:
        value = _result(data)
    except pickle.UnpicklingError as error:
        print(f"{command}: {error}", file=sys.stderr)
        return 1
    if value is not _MISSING:
        if not received:
            return value
        if not isinstance(value, int):
            # The run went on to its end though the zoo was told to stop (the user's
            # code took the signal): stopped all the same, as asked.
            print(f"{command}: interrupted", file=sys.stderr)
        # The child has said its line; the signal the zoo was sent gives the status.
        return STOPPED[received[0]]
    if received:
        print(f"{command}: interrupted", file=sys.stderr)
        return STOPPED[received[0]]
    print(f"{command}: the run did not finish: {_ending(status)}; exit status {UNFINISHED}",
          file=sys.stderr)  # fmt: skip
    return UNFINISHED


#: Marks a child that sent no whole result.
_MISSING = object()


def _result(data: bytes) -> object:
    if len(data) < _HEADER.size:
        return _MISSING
    (size,) = _HEADER.unpack_from(data)
    if len(data) != _HEADER.size + size:
        return _MISSING
    return _ZooUnpickler(io.BytesIO(data[_HEADER.size :])).load()


class _ZooUnpickler(pickle.Unpickler):
    """Loads only classes of the zoo and its libraries: never imports the user's modules."""

    def find_class(self, module: str, name: str):
        if module.split(".")[0] not in _TRUSTED:
            raise pickle.UnpicklingError(
                f"the result holds an object of {module}.{name}, which the zoo does not "
                "load in its own process"
            )
        return super().find_class(module, name)


def _ending(status: int) -> str:
    """How the child ended, for a run it did not finish."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        crash = " (a crash in compiled code; --in-process shows where)" if number in (
            signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE, signal.SIGABRT
        ) else ""  # fmt: skip
        return f"the process running your code was ended by {name}{crash}"
    return (
        f"the process running your code exited with status {os.WEXITSTATUS(status)} "
        "(os._exit or the C library's exit called in it)"
    )


def _run_child(
    command: str, work: Callable[[], object], write_end: int, blocked, zoo: int
) -> None:
    """The child's whole life: run ``work``, send its value, end. Never returns."""
    try:
        os.setpgid(0, 0)
        _die_with(zoo)
        # Not the terminal's foreground group: writing to the terminal must not stop it
        # (SIGTTOU), and reading it (input(), pdb: --in-process) fails instead of stopping.
        signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        signal.signal(signal.SIGTTIN, signal.SIG_IGN)
        # The zoo's process says how this one ended, in one line; a crash's traceback
        # is --in-process's to show.
        faulthandler.disable()
        close_claims_in_child()
        close_saved_in_child()
        value = _value(command, work, blocked)
        try:
            payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:  # said in one line, whatever it was
            print(f"{command}: the result could not be passed back: {error}", file=sys.stderr)
            payload = pickle.dumps(1)
        write_all(write_end, _HEADER.pack(len(payload)) + payload)
    except BaseException:  # the child must end here, whatever happened
        traceback.print_exc()
    finally:
        for number in _PASSED_ON:  # nothing interrupts the end
            signal.signal(number, signal.SIG_IGN)
        # The exit handlers of the libraries and of the user's code run as at a Python
        # process's end (what they print goes where the child's output goes); threads
        # left running are not waited for, and whatever an exit handler does, the zoo's
        # process has the result and decides the status.
        try:
            atexit._run_exitfuncs()
        except BaseException:  # an exit handler's error is printed by atexit itself
            pass
        flush_streams()
        _exit(0)


def _value(command: str, work: Callable[[], object], blocked) -> object:
    """``work()``, or the status of a run stopped by a signal, an exit or an error."""
    # Never left: the child ends with os._exit, and handlers put back now would be the
    # zoo's process's, copied by the fork.
    stop = StopSignals().__enter__()
    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    try:
        try:
            value = work()
        except KeyboardInterrupt:
            print(f"{command}: interrupted", file=sys.stderr)
            value = 130
        except SystemExit as done:
            print(
                f"{command}: the run did not finish: your code called "
                f"sys.exit({done.code!r}); exit status {UNFINISHED}",
                file=sys.stderr,
            )
            value = UNFINISHED
        except Exception:  # as a Python program's uncaught error: status 1
            traceback.print_exc()
            value = 1
        for number in _PASSED_ON:  # the run is over: a signal now changes nothing
            signal.signal(number, signal.SIG_IGN)
    except KeyboardInterrupt:  # the first signal, as the run ended
        print(f"{command}: interrupted", file=sys.stderr)
        value = 130
    if value == 130 and stop.received:
        return STOPPED[stop.received[0]]
    return value


def _die_with(zoo: int) -> None:
    """SIGTERM to this process when the zoo's process dies (Linux), and at once if it has."""
    try:
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (AttributeError, OSError):  # not Linux: the child outlives a killed zoo
        return
    if os.getppid() != zoo:
        os.kill(os.getpid(), signal.SIGTERM)
