"""Output paths checked before any work: a long run must not end on a path it cannot use.

``--out`` and ``--store`` name files, ``--report`` a folder. Each is refused at the start
when it or one of its parents exists as the wrong kind of thing (a folder where a file is
wanted, a file among the parents), or when the nearest existing parent cannot be written
to. Found after the run, any of these lost the run's results.

``--out`` and ``--report`` are also claimed for the run: a lock file beside each
(``PATH.lock``, an exclusive ``flock``, removed at the end) makes a second run that would
write the same path stop at its start, instead of both writing it and one run's results
silently replacing the other's. ``--store`` is not claimed: runs share a store by design
(``zoo.validation.result_store`` appends whole lines under its own lock).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: paths are checked, not claimed
    fcntl = None

__all__ = ["claimed_outputs", "outputs_usable", "unusable_output"]

#: The options whose path one run writes as a whole (``--store`` is shared).
_CLAIMED = ("out", "report")


def unusable_output(field: str, path, *, folder: bool) -> str | None:
    """Why ``path`` cannot take the output of ``field`` (a folder or a file), or None."""
    target = Path(path)
    if target.exists():
        if folder and not target.is_dir():
            return f"{field} {path}: exists and is not a folder"
        if not folder and target.is_dir():
            return f"{field} {path}: is a folder; give a file name"
    # An existing file is written over (--out) or resumed (--store): look at its folder.
    parent = target if target.is_dir() else target.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        return f"{field} {path}: {parent} is a file, not a folder"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{field} {path}: cannot write in {parent}"
    if target.is_file() and not os.access(target, os.W_OK):
        return f"{field} {path}: cannot write to it"
    return None


def outputs_usable(command: str, **paths: tuple[str | None, bool]) -> bool:
    """False (after saying why on stderr) when an output path cannot be used.

    ``paths`` maps an option's name (``out``, ``report``, ``store``) to (path or None,
    whether it names a folder).
    """
    for name, (path, folder) in paths.items():
        if path is None:
            continue
        problem = unusable_output(f"--{name}", path, folder=folder)
        if problem:
            print(f"{command}: {problem}", file=sys.stderr)
            return False
    return True


@contextlib.contextmanager
def claimed_outputs(command: str, **paths: tuple[str | None, bool]) -> Iterator[bool]:
    """Check the output paths and claim ``--out`` and ``--report`` for the run.

    Yields False (after saying why on stderr) when a path cannot be used or another run
    holds it; the claims are released when the block ends, however it ends. ``paths`` as
    for :func:`outputs_usable`.
    """
    if not outputs_usable(command, **paths):
        yield False
        return
    with contextlib.ExitStack() as held:
        for name, (path, _) in paths.items():
            if path is None or name not in _CLAIMED or fcntl is None:
                continue
            lock = _PathLock(path)
            holder = lock.acquire()
            if holder is not None:
                print(
                    f"{command}: --{name} {path}: another run is writing it ({holder}, "
                    f"lock {lock.path}); wait for it to end or choose another path",
                    file=sys.stderr,
                )
                yield False
                return
            held.callback(lock.release)
        yield True


class _PathLock:
    """An exclusive ``flock`` on ``PATH.lock``, the file removed when released."""

    def __init__(self, path: str):
        self.path = f"{os.fspath(path).rstrip(os.sep)}.lock"
        self._fd: int | None = None

    def acquire(self) -> str | None:
        """Take the lock; None when taken, else who holds it (``pid N``)."""
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 64).decode(errors="replace").strip()
                os.close(fd)
                return holder or "pid unknown"
            # The previous holder removes the file on release: a lock taken on a file
            # already unlinked is no lock; take the one at the path now.
            try:
                current = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                current = False
            if current:
                os.ftruncate(fd, 0)
                os.write(fd, f"pid {os.getpid()}".encode())
                self._fd = fd
                return None
            os.close(fd)

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        os.close(self._fd)  # closing the descriptor releases the flock
        self._fd = None
