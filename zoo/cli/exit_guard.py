"""A run that code in the zoo's own process ends never exits 0 without a word.

``zoo validate --in-process`` imports the user's modules in the zoo's own process, and
with ``--workers 0`` runs their sampler there (without it they run in a supervised
child, :mod:`zoo.cli.user_process`, and none of this is needed). Python-level exits are
caught where they happen (``sys.exit`` is an exception; ``os._exit`` is replaced while a
fit runs, :mod:`zoo.sampling.parallel`), but the C library's ``exit``
(``ctypes.CDLL(None).exit(0)``, or compiled code calling it) ends the process with the
status it was given: a run that had not finished ended with status 0 and no output.

:func:`arm`, called before the user's first module is imported, registers a handler
with the C library (``on_exit``, which passes the status ``exit`` was given): while the
run is unfinished it writes one line to standard error and ends the process with status
:data:`UNFINISHED`. :func:`finish` records the status the command returns; after that
the handler lets every exit through, except one that would turn a non-zero status into
0 (a user's ``atexit`` handler calling ``exit(0)`` after a failing run): that one ends
with the command's own status.

The handler runs after Python has been finalised (Python's own exit calls ``exit``), when
no Python code may run. It is therefore compiled to machine code by numba
(``numba.cfunc``) and touches only memory allocated with the C library's ``malloc``,
which nothing frees: a word saying whether the run finished, the process id (a child
forked from the zoo, which inherits the handler, exits as it would have), the message.
It calls only ``write``, ``getpid`` and ``_exit``. numba never removes compiled code from
its engine, and a reference to the compiled function is leaked so that it outlives the
interpreter.

:func:`arm` also replaces ``os._exit`` (and ``posix._exit``, the same function under its
own name) with one that says the same line and exits with :data:`UNFINISHED` while the
run is unfinished. Calls that bypass both cannot be caught in the process: the C
library's ``_exit`` called directly (ctypes, compiled code), a raw ``exit_group`` system
call, or a reference to ``os._exit`` taken before :func:`arm`. Run a sampler that may do
that with ``--workers 1`` or more (the default): a worker process that ends is reported
as an error of the fit (docs/cli.md, "A sampler that ends the process").

Only Linux's C library (glibc) has ``on_exit``; elsewhere only ``os._exit`` is guarded.
"""

from __future__ import annotations

import ctypes
import os
import sys

__all__ = ["UNFINISHED", "arm", "finish"]

#: Exit status of a run ended by code in its process before it finished: BSD's
#: EX_SOFTWARE (an internal software error), not one of the zoo's own statuses (0, 1, 2,
#: 130, 143).
UNFINISHED = 70

#: Value of the "finished" word while the run has not finished.
_RUNNING = -1

#: The words at the start of the C block: finished status, owner process id, address of
#: the message's text, length of its head, length of its tail, address of the digits.
_FINISHED, _OWNER, _TEXT, _HEAD, _TAIL, _DIGITS = range(6)
_WORDS = 6

#: The C block once armed (its address), and the words in it.
_armed: dict = {}


def arm(command: str) -> None:
    """Make every exit of this process before :func:`finish` say so and end non-zero.

    ``command`` begins the line written (``"zoo validate"``). Called once, in the main
    thread, before any user code is imported; a second call does nothing.
    """
    if _armed:
        return
    words = _block(command)
    _replace_os_exit(command, words)
    register = _on_exit()
    if register is not None:
        handler = _compiled_handler()
        # Leaked on purpose: the handler must outlive the interpreter (see the docstring).
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(handler))
        _armed["handler"] = handler
        if register(handler.address, ctypes.addressof(words)) != 0:
            raise OSError("on_exit: could not register the exit handler")
    _armed["words"] = words


def finish(status: int) -> None:
    """Record that the run finished with ``status``: exits are let through from now on."""
    words = _armed.get("words")
    if words is not None:
        words[_FINISHED] = int(status) if isinstance(status, int) and status >= 0 else 1


def _libc() -> ctypes.CDLL:
    """The C library, through the process's own symbols (no ``ldconfig`` run to find it)."""
    return ctypes.CDLL(None)


def _block(command: str):
    """The words and the message in memory from ``malloc``, never freed."""
    head = f"{command}: the run did not finish: code run in this process called exit(".encode()
    tail = f"); exit status {UNFINISHED}\n".encode()
    digits = b"0123456789-"
    text = head + tail + digits
    malloc = _libc().malloc
    malloc.restype, malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    size = ctypes.sizeof(ctypes.c_int64) * _WORDS
    address = malloc(size + len(text))
    if not address:
        raise MemoryError("could not allocate the exit handler's block")
    ctypes.memmove(address + size, text, len(text))
    words = (ctypes.c_int64 * _WORDS).from_address(address)
    words[_FINISHED] = _RUNNING
    words[_OWNER] = os.getpid()
    words[_TEXT] = address + size
    words[_HEAD] = len(head)
    words[_TAIL] = len(tail)
    words[_DIGITS] = address + size + len(head) + len(tail)
    return words


def _on_exit():
    """The C library's ``on_exit(function, argument)``, or None where it has none."""
    register = getattr(_libc(), "on_exit", None)
    if register is None:
        return None
    register.restype, register.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p]
    return register


def _replace_os_exit(command: str, words) -> None:
    """``os._exit`` (and ``posix._exit``) saying the line and ending 70 while unfinished."""
    real = os._exit
    owner = os.getpid()

    def guarded_exit(status):
        if os.getpid() == owner and words[_FINISHED] == _RUNNING:
            os.write(
                2,
                f"{command}: the run did not finish: code run in this process called "
                f"os._exit({status!r}); exit status {UNFINISHED}\n".encode(),
            )
            real(UNFINISHED)
        real(status)

    os._exit = guarded_exit
    posix = sys.modules.get("posix")
    if posix is not None:
        posix._exit = guarded_exit


def _compiled_handler():
    """``on_exit``'s handler, ``void handler(int status, int64_t *words)``, in machine code."""
    # deferred: numba takes most of a second to import and to compile this
    import numba
    from numba import types

    libc = _libc()

    def function(name, restype, *argtypes):
        # Addresses are passed as size_t: numba calls ctypes functions with plain
        # integers, and a pointer and a size_t are passed alike where glibc runs.
        found = getattr(libc, name)
        found.restype, found.argtypes = restype, list(argtypes)
        return found

    write = function("write", ctypes.c_ssize_t, ctypes.c_int, ctypes.c_size_t, ctypes.c_size_t)
    getpid = function("getpid", ctypes.c_int)
    end = function("_exit", None, ctypes.c_int)

    @numba.cfunc(types.void(types.int32, types.CPointer(types.int64)))
    def handler(status, words):
        # The module's integer constants are compiled in as constants.
        if getpid() != words[_OWNER]:  # a forked child exits as it would have
            return
        finished = words[_FINISHED]
        if finished == _RUNNING:
            write(2, words[_TEXT], words[_HEAD])
            value = numba.int64(status)
            if value < 0:
                write(2, words[_DIGITS] + 10, 1)  # "-"
                value = -value
            scale = 1
            while scale * 10 <= value:
                scale *= 10
            while scale > 0:  # the status, digit by digit
                write(2, words[_DIGITS] + (value // scale) % 10, 1)
                scale //= 10
            write(2, words[_TEXT] + words[_HEAD], words[_TAIL])
            end(UNFINISHED)
        if status == 0 and finished != 0:
            end(finished)

    return handler
