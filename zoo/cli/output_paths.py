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
import errno
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: paths are checked, not claimed
    fcntl = None

__all__ = ["claimed_outputs", "close_claims_in_child", "outputs_usable", "unusable_output"]

#: The options whose path one run writes as a whole (``--store`` is shared).
_CLAIMED = ("out", "report")


def unusable_output(field: str, path, *, folder: bool, locked: bool = False) -> str | None:
    """Why ``path`` cannot take the output of ``field`` (a folder or a file), or None.

    ``locked``: the path gets a lock file beside it (its name plus ``.lock``), which
    must fit the folder's longest name too.
    """
    target = Path(path)
    if target.is_symlink():
        # Written through, a link planted in a shared folder (`rep -> ~/www`) had the
        # report's files replace the ones where it points.
        kind = "folder" if folder else "file"
        return f"{field} {path}: is a symbolic link; give the {kind} itself"
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
    longest = _longest_name(parent)
    size = len(os.fsencode(target.name))
    if size + (len(_LOCK_SUFFIX) if locked else 0) > longest:
        room = f", less {len(_LOCK_SUFFIX)} for its lock file ({_LOCK_SUFFIX})" if locked else ""
        return f"{field} {path}: the name is {size} bytes long; the folder allows {longest}{room}"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{field} {path}: cannot write in {parent}"
    if target.is_file() and not os.access(target, os.W_OK):
        return f"{field} {path}: cannot write to it"
    return None


#: What a claimed output's lock file adds to its name.
_LOCK_SUFFIX = ".lock"


def _longest_name(folder: Path) -> int:
    """The longest file name (bytes) the file system of ``folder`` allows."""
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):  # not reported: the common limit
        return 255


def outputs_usable(command: str, **paths: tuple[str | None, bool]) -> bool:
    """False (after saying why on stderr) when an output path cannot be used.

    ``paths`` maps an option's name (``out``, ``report``, ``store``) to (path or None,
    whether it names a folder).
    """
    for name, (path, folder) in paths.items():
        if path is None:
            continue
        problem = unusable_output(f"--{name}", path, folder=folder, locked=name in _CLAIMED)
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
            try:
                holder = lock.acquire()
            except (OSError, _Unusable) as error:
                print(f"{command}: --{name} {path}: {_lock_problem(lock, error)}", file=sys.stderr)
                yield False
                return
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


def _lock_problem(lock: _PathLock, error: Exception) -> str:
    """One line on why the lock file beside an output could not be created."""
    if isinstance(error, _Unusable):
        return f"its lock file {error}"
    if error.errno == errno.ELOOP:
        return f"its lock file {lock.path} is a symbolic link; remove it"
    where = error.filename or lock.path
    return f"cannot create its lock file {lock.path}: {error.strerror or error} ({where})"


class _PathLock:
    """An exclusive ``flock`` on ``PATH.lock``, the file removed when released.

    The lock's name is fixed (another run must find it), so it is opened as nothing but
    a regular file of one link: never through a symbolic link (``O_NOFOLLOW``; a planted
    ``rep.lock -> ~/victim.txt`` once had the victim's file truncated and replaced by a
    process id), never a hard link to someone's file, a FIFO or a device. Its content is
    written only once it is locked and known to be such a file.
    """

    def __init__(self, path: str):
        self.path = f"{os.fspath(path).rstrip(os.sep)}{_LOCK_SUFFIX}"
        self._fd: int | None = None

    def acquire(self) -> str | None:
        """Take the lock; None when taken, else who holds it (``pid N``).

        Raises
        ------
        _Unusable
            When the lock file cannot be created, or what is at its path is not a lock
            file the zoo may use.
        """
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
            try:
                _require_plain_file(fd, self.path)
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 64).decode(errors="replace").strip()
                os.close(fd)
                return holder or "pid unknown"
            except BaseException:
                os.close(fd)
                raise
            # The previous holder removes the file on release: a lock taken on a file
            # already unlinked is no lock; take the one at the path now.
            try:
                current = os.stat(self.path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                current = False
            if current:
                os.ftruncate(fd, 0)
                os.write(fd, f"pid {os.getpid()}".encode())
                self._fd = fd
                _held.add(fd)
                return None
            os.close(fd)

    def release(self) -> None:
        if self._fd is None:
            return
        # Removed only while it is still the file this run locked.
        with contextlib.suppress(OSError):
            if os.stat(self.path, follow_symlinks=False).st_ino == os.fstat(self._fd).st_ino:
                os.unlink(self.path)
        _held.discard(self._fd)
        os.close(self._fd)  # closing the descriptor releases the flock
        self._fd = None


#: Descriptors of the lock files this process holds.
_held: set[int] = set()


def close_claims_in_child() -> None:
    """In a forked child: close its copies of the lock files' descriptors.

    The claims stay the zoo's process's: a ``flock`` belongs to the open file the two
    processes share, and lasts until every descriptor of it is closed, so a child that
    kept its copies (or a process it started without closing them) would hold the
    output after the zoo released it. Closed, never unlocked: unlocking would release
    the zoo's claim too.
    """
    for fd in _held:
        try:
            os.close(fd)
        except OSError:
            pass
    _held.clear()


class _Unusable(Exception):
    """What is at a lock file's path cannot be used as one (the message says why)."""


def _require_plain_file(fd: int, path: str) -> None:
    """Raise :class:`_Unusable` unless ``fd`` is a regular file with one link."""
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        raise _Unusable(f"{path} exists and is not a regular file; remove it")
    if status.st_nlink != 1:
        raise _Unusable(
            f"{path} is a hard link to another file ({status.st_nlink} links); remove it"
        )
