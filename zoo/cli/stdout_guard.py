"""Keep standard output for the JSON a command prints: what a user's sampler prints goes to stderr.

``zoo validate --json`` runs code the user wrote (a sampler, a kernel, a model module),
in this process and in the worker processes Dask and PyMC start. One ``print()`` there
put text before the ``{`` and broke every reader of the JSON. While the command works,
file descriptor 1 is the write end of a pipe (so child processes, which inherit it, and
C code write there too) and ``sys.stdout`` writes into it as well; a thread forwards
what arrives to standard error, up to :data:`CAP` bytes, and counts the rest (a chatty
sampler once pushed 40 MB through). The JSON is printed after, to the real stdout.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
from collections.abc import Iterator

__all__ = ["CAP", "stdout_to_stderr"]

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


@contextlib.contextmanager
def stdout_to_stderr(active: bool = True) -> Iterator[None]:
    """While active, everything written to standard output goes to standard error, capped."""
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
    reader = None
    if saved is not None:
        read_end, write_end = os.pipe()
        os.dup2(write_end, 1)
        os.close(write_end)
        reader = threading.Thread(target=_forward, args=(read_end, sink), daemon=True)
        reader.start()
    try:
        # Python's writes go down the same pipe as the file descriptor's, in order.
        write = sink.write if saved is None else _write_all_to_stdout_fd
        with contextlib.redirect_stdout(_Text(write)):
            yield
    finally:
        if saved is not None:
            # Closing the last write end ends the forwarding thread (worker processes
            # that inherited it have been stopped by now).
            os.dup2(saved, 1)
            os.close(saved)
            reader.join(timeout=5)
        if sink.dropped:
            print(
                f"zoo: {sink.dropped} bytes of the sampler's output were not shown "
                f"(more than {CAP // 1024} KiB)",
                file=sys.stderr,
            )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _write_all_to_stdout_fd(data: bytes) -> None:
    _write_all(1, data)


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
    return lambda data: _write_all(fd, data)


def _forward(read_end: int, sink: _CappedStderr) -> None:
    try:
        while chunk := os.read(read_end, 65536):
            sink.write(chunk)
    finally:
        os.close(read_end)
