"""Where an interrupt may be raised: not while numba converts a call's arguments.

A signal handler that raises (Python's for SIGINT, the zoo's for SIGINT and SIGTERM)
runs at the next Python instruction. A call of a numba function taking a NumPy
``Generator`` runs Python code while it converts that argument, and numba does not
check for an exception raised there: it goes on with the generator's function pointers
unset, and the process dies of a segmentation fault (measured: 3 of 30 Ctrl-Cs during
an SBC fit of the Beta-Binomial kernel). The Python code it runs:

- ``ctypes.cast`` of each of the bit generator's functions, at every call;
- the first time a bit generator is converted, NumPy's ``prepare_ctypes`` (compiled
  code) building its ``ctypes`` interface: ``ctypes.CFUNCTYPE``, ``ctypes.cast``, and
  the ``__new__`` of the ``interface`` named tuple, code that ``collections.namedtuple``
  made with ``eval`` (its file is ``<string>``, and the frame it returns to is the
  caller of the numba function, as compiled code runs in between). Every fit draws
  from new generators, so this came once per fit: a handler that looked only for
  numba's and ctypes' frames still crashed (4 of 4 processes in a few seconds of SIGINT
  every few milliseconds to calls with a new generator each).

A handler that finds itself in such a frame does not raise: it sends the signal again a
moment later, when the call has returned to Python (numba's compiled loops run no
Python code, so the next instruction is after the call).

A second signal can arrive while a handler runs (a second Ctrl-C, the deferred signal
sent again): its handler then runs in the first handler's frame, or in this module's,
and raising there raises into whatever the first one interrupted. The frames of the
installed handlers of SIGINT and SIGTERM and of this module are therefore looked
through, to the frame the first signal landed in (this was the crash that remained
under heavy load with one generator for every call: a thread sending SIGINT every few
milliseconds; reproduced at once by a handler that sends itself a second SIGINT when the
first lands in ``ctypes.cast``: 3 crashes in 3).
"""

from __future__ import annotations

import os
import signal
import threading
from importlib.util import find_spec

__all__ = ["deferred", "raised_by", "raising_is_unsafe", "send_again"]


def _folder(path: str) -> str:
    return os.path.dirname(os.path.abspath(path)) + os.sep


#: Folders whose code must not be interrupted by an exception: numba's, and ctypes'. Found
#: without importing either: this module is loaded before the zoo's signal handlers are
#: set (zoo.cli), where every millisecond is one in which a signal ends the process.
_UNSAFE = tuple(_folder(s.origin) for s in map(find_spec, ("ctypes", "numba")) if s)

#: The standard library's folder: its code runs on behalf of its caller (a weakref look-up
#: made by numba's conversion is numba's).
_STANDARD = _folder(os.__file__)


#: Seconds before a signal that could not be acted on is sent again.
_AGAIN_SECONDS = 0.01


#: True while a handler is deferring a signal: a signal arriving meanwhile (handlers run
#: at any Python instruction, their own included) is covered by the one being sent again.
_deferring = False


def deferred(number: int, frame) -> bool:
    """True when a handler of signal ``number`` running in ``frame`` must not raise now.

    The signal is then sent again in a moment (:data:`_AGAIN_SECONDS`); the handler
    returns without acting on it.
    """
    global _deferring
    if _deferring:
        return True
    if not raising_is_unsafe(frame):
        return False
    _deferring = True
    try:
        send_again(number)
    finally:
        _deferring = False
    return True


def send_again(number: int) -> None:
    """Send signal ``number`` to the main thread again in a moment (:data:`_AGAIN_SECONDS`).

    For a signal that could not be acted on where it landed: by then the interrupted
    code has returned to ordinary Python.
    """
    main = threading.main_thread().ident
    timer = threading.Timer(_AGAIN_SECONDS, signal.pthread_kill, (main, number))
    timer.daemon = True
    timer.start()


def raised_by(trace, handler) -> bool:
    """Whether the innermost frame of traceback ``trace`` runs ``handler`` (a function or method).

    For ``sys.unraisablehook``: a signal landing in code whose exceptions Python cannot
    pass on (a ``__del__``, a weakref callback, run for an object freed in the middle of
    an instruction) has its handler's ``KeyboardInterrupt`` printed as "Exception ignored
    in ..." and dropped. A hook that finds the handler's frame innermost sends the signal
    again (:func:`send_again`) instead: otherwise the run goes on as if never stopped.
    """
    if trace is None:
        return False
    while trace.tb_next is not None:
        trace = trace.tb_next
    return trace.tb_frame.f_code is getattr(handler, "__func__", handler).__code__


def raising_is_unsafe(frame) -> bool:
    """Whether the frame a signal handler runs in is inside numba's or ctypes' code.

    That is, numba's or ctypes' code, or a named tuple's ``__new__``, is among the
    innermost frames before the first one outside the standard library and numba (the
    code that made the call). A named tuple's ``__new__`` is NumPy's ``interface`` when
    numba converts a new bit generator; any other is deferred too, harmlessly (the signal
    is acted on a moment later).
    """
    handling = _handler_codes()
    while frame is not None:
        where = frame.f_code.co_filename
        if where.startswith(_UNSAFE) or _named_tuple_new(frame):
            return True
        if not where.startswith(_STANDARD) and not _handling(frame, handling):
            return False
        frame = frame.f_back
    return False


#: The code of this module's functions: a signal landing in them lands in a handler.
_THIS_MODULE = os.path.abspath(__file__)


def _handler_codes() -> set:
    """The code objects of the Python handlers now installed for SIGINT and SIGTERM."""
    codes = set()
    for number in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(number)
        code = getattr(getattr(handler, "__func__", handler), "__code__", None)
        if code is not None:
            codes.add(code)
    return codes


def _handling(frame, handling: set) -> bool:
    """Whether ``frame`` is a signal handler's (or this module's, called by one)."""
    return frame.f_code in handling or os.path.abspath(frame.f_code.co_filename) == _THIS_MODULE


def _named_tuple_new(frame) -> bool:
    """Whether ``frame`` runs the ``__new__`` that ``collections.namedtuple`` made.

    It is evaluated in a namespace of its own, named ``namedtuple_<typename>``.
    """
    name = frame.f_globals.get("__name__")
    return isinstance(name, str) and name.startswith("namedtuple_")
