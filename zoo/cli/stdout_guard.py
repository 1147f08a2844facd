"""Keep standard output for the JSON a command prints: what a user's sampler prints goes to stderr.

``zoo validate --json`` runs code the user wrote (a sampler, a kernel, a model module),
in this process and in the worker processes Dask and PyMC start. One ``print()`` there
put text before the ``{`` and broke every reader of the JSON; a thread writing to file
descriptor 1 put it inside, an ``atexit`` handler after. From the start of a ``--json``
command (before the user's module is imported) the real standard output is a descriptor
of the zoo's alone, and file descriptor 1 the write end of a pipe (so child processes,
which inherit it, and C code write there too) into which ``sys.stdout`` writes as
well; a thread forwards what arrives to standard error, up to :data:`CAP` bytes, and
counts the rest (a chatty sampler once pushed 40 MB through). The JSON is written by
:func:`emit` to the saved descriptor; after it, descriptor 1 is standard error.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
from collections.abc import Iterator

__all__ = ["CAP", "close_saved_in_child", "emit", "json_stdout", "write_all"]

#: Bytes of the user's output passed on to standard error; the rest is counted, not shown.
CAP = 64 * 1024


class _CappedStderr:
    """Writes bytes to file descriptor 2 until :data:`CAP` have passed, then counts them."""

    def __init__(self):
        self._write = _stderr_writer()
        self._lock = threading.Lock()
        self.passed = 0
        self.dropped = 0

    def write(self, data: bytes) -> None:
        with self._lock:
            room = max(0, CAP - self.passed)
            shown = data[:room]
            if shown:
                self._write(shown)
                self.passed += len(shown)
            if len(data) > len(shown):
                if not self.dropped:
                    self._write(
                        f"\nzoo: the sampler's output beyond {CAP // 1024} KiB is not "
                        "shown\n".encode()
                    )
                self.dropped += len(data) - len(shown)


class _Text(io.TextIOBase):
    """``sys.stdout`` while guarded: text as UTF-8 to ``write`` (the pipe, or the sink)."""

    def __init__(self, write):
        self._write = write

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._write(text.encode("utf-8", errors="replace"))
        return len(text)


#: Where :func:`emit` writes while :func:`json_stdout` is active: the real stdout.
_saved: list = []


@contextlib.contextmanager
def json_stdout(active: bool = True, *, program: bool = False) -> Iterator[None]:
    """While active, standard output holds only what :func:`emit` writes; the rest goes to stderr.

    The real standard output is duplicated away first (a descriptor of the zoo's, not
    inherited by child processes), and file descriptor 1 pointed at the forwarding
    pipe. ``program``: this is the ``zoo`` program, not a call of ``zoo.cli.main`` from
    Python: descriptor 1 then stays pointed at standard error when the block ends, so
    that what the user's code writes after it (an ``atexit`` handler, a thread still
    running) cannot follow the JSON either.
    """
    if not active:
        yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    sink = _CappedStderr()
    try:
        saved = os.dup(1)
    except OSError:  # no file descriptor 1 (a closed stdout): Python's level only
        saved = None
    stream = sys.stdout
    reader = None
    if saved is not None:
        read_end, write_end = os.pipe()
        os.dup2(write_end, 1)
        os.close(write_end)
        reader = threading.Thread(target=_forward, args=(read_end, sink), daemon=True)
        reader.start()
    _saved.append((stream, saved))
    try:
        # Python's writes go down the same pipe as the file descriptor's, in order.
        write = sink.write if saved is None else _write_all_to_stdout_fd
        with contextlib.redirect_stdout(_Text(write)):
            yield
    finally:
        _saved.pop()
        if saved is not None:
            # Closing the last write end ends the forwarding thread (worker processes
            # that inherited it have been stopped by now).
            sys.stderr.flush()
            os.dup2(2 if program else saved, 1)
            os.close(saved)
            reader.join(timeout=5)
        if sink.dropped:
            print(
                f"zoo: {sink.dropped} bytes of the sampler's output were not shown "
                f"(more than {CAP // 1024} KiB)",
                file=sys.stderr,
            )


def close_saved_in_child() -> None:
    """In a forked child: close its copy of the real standard output.

    What the child writes goes to file descriptor 1, the forwarding pipe; with the
    saved descriptor closed, nothing it runs can reach the real standard output, which
    holds the JSON :func:`emit` writes in the zoo's process.
    """
    for _, saved in _saved:
        if saved is not None:
            try:
                os.close(saved)
            except OSError:
                pass
    _saved.clear()


def emit(text: str) -> None:
    """Write ``text`` and a newline to the real standard output (the JSON of a command)."""
    if not _saved:
        print(text)
        return
    stream, saved = _saved[-1]
    if saved is not None and _writes_to_descriptor_1(stream):
        write_all(saved, (text + "\n").encode("utf-8"))
    else:  # a stream of Python's (a test's capture): written as print would
        stream.write(text + "\n")
        stream.flush()


def _writes_to_descriptor_1(stream) -> bool:
    try:
        return stream.fileno() == 1
    except (AttributeError, OSError, io.UnsupportedOperation):
        return False


def write_all(fd: int, data: bytes) -> None:
    """All of ``data`` to descriptor ``fd`` (``os.write`` may write part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _write_all_to_stdout_fd(data: bytes) -> None:
    write_all(1, data)


def _stderr_writer():
    """Bytes to standard error: its file descriptor, or the stream where it has none."""
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):  # a captured stream
        stream = sys.stderr

        def write(data: bytes) -> None:
            stream.write(data.decode("utf-8", errors="replace"))
            stream.flush()

        return write
    return lambda data: write_all(fd, data)


def _forward(read_end: int, sink: _CappedStderr) -> None:
    try:
        while chunk := os.read(read_end, 65536):
            sink.write(chunk)
    finally:
        os.close(read_end)
