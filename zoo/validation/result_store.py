"""The SBC result store: an append-only JSON-lines file, so that an interrupted run resumes.

The first line is a header holding the run's settings; every further line is one
result, written and flushed as it arrives. Reopening the file with the same settings
returns the results already there (the caller skips those tasks); different settings
are refused rather than mixed. A last line without its newline is a write cut short (a
crash, Ctrl-C): it is dropped from the file with one warning, and that task runs again.
Anything else that is not a record (a line that is not JSON, a record missing a field
or with one of the wrong type) is refused, naming the line: the file was damaged or
edited, and its records can no longer be trusted.

Several runs may share one file. Every read and write of it happens under a lock on
the file (so a run never takes another's line in progress for one cut short), and a
task is *claimed* before it is run (:meth:`ResultStore.claim`): a lock on one byte far
beyond the end of the file, one byte per key. A second run skips what the first has
claimed, and later waits for it (:meth:`ResultStore.wait`): the first run's record then
is in the file, or, if that run ended without one (interrupted, killed), the claim went
with its process and the second run fits the task itself. The locks are Linux's
open-file-description locks (``F_OFD_SETLK``), which end with the process that held them
whatever way it ends, and do not vanish when some other descriptor of the file is
closed, as POSIX record locks do; elsewhere POSIX record locks (``lockf``).

A new file is written whole under a temporary name beside it and linked into place,
never through a symbolic link: two runs that create it at once get one header.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
import struct
import tempfile
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from zoo.core.files import current_umask

try:
    import fcntl
except ImportError:  # not POSIX: one run per store
    fcntl = None

__all__ = ["ResultStore"]

#: Where the claim bytes start: far beyond any store's end, so that they never cover it.
_CLAIMS = 2**62

#: Claim bytes are at ``_CLAIMS + (hash of the key mod _CLAIM_SPAN)``; two keys that share
#: a byte only make one run wait for the other, never fit a task twice.
_CLAIM_SPAN = 2**60


class ResultStore:
    """Results of one run, keyed by ``record["key"]``.

    Parameters
    ----------
    path : str or Path, optional
        The file. ``None`` keeps results in memory only.
    settings : mapping
        What defines the run (JSON-serialisable); must match the file's header.
    check : callable, optional
        ``check(record)`` raises ``ValueError`` saying what is wrong with a stored
        record (a field missing or of the wrong type); the store adds the line number.

    Raises
    ------
    ValueError
        Starting with ``store:``, when the file cannot be written to, is not a results
        file (or not a regular file, or a symbolic link), holds a run with other
        settings, or holds a line that is not a record.
    """

    def __init__(self, path, settings: Mapping, *, check: Callable[[dict], None] | None = None):
        self.path = None if path is None else Path(path)
        self.settings = json.loads(json.dumps(dict(settings)))
        self.check = check
        self.records: dict[str, dict] = {}
        self._fd: int | None = None
        self._read = 0  # bytes of the file read into self.records
        self._number = 0  # lines read, the header included
        self._claimed: set[str] = set()
        if self.path is None:
            return
        try:
            self._fd = _open(self.path, self.settings)
            with self._locked():
                self._drop_cut_line()
                if os.fstat(self._fd).st_size == 0:
                    # An empty file the user gave: the header is its first line.
                    self._write({"header": self.settings})
                self._read_new(first=True)
        except OSError as error:
            self.close()
            raise ValueError(f"store: {_why(self.path, error)}") from None
        except ValueError:
            self.close()
            raise

    def close(self) -> None:
        """Close the file; this run's claims end with it."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._claimed.clear()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        self.close()

    def __contains__(self, key: str) -> bool:
        return key in self.records

    def refresh(self) -> None:
        """Read the records other runs have appended since the last look."""
        if self._fd is None:
            return
        with self._locked():
            self._read_new()

    def add(self, record: Mapping) -> None:
        """Keep ``record`` and append it to the file at once (unless another run did)."""
        record = json.loads(json.dumps(dict(record)))
        if self._fd is None:
            self.records[record["key"]] = record
            return
        try:
            with self._locked():
                self._read_new()
                if record["key"] in self.records:
                    return  # stored by another run meanwhile: one record per key
                self._write(record)
                self._read_new()
        except OSError as error:
            raise ValueError(f"store: {_why(self.path, error)}") from None

    def claim(self, key: str) -> bool:
        """Claim ``key`` for this run: True when no run holds it and it has no record."""
        if key in self.records:
            return False
        if self._fd is None or key in self._claimed:
            return True
        if not _lock(self._fd, _claim_byte(key), 1, wait=False):
            return False
        self.refresh()
        if key in self.records:  # stored by a run that has just released it
            _unlock(self._fd, _claim_byte(key), 1)
            return False
        self._claimed.add(key)
        return True

    def release(self, key: str) -> None:
        """Give up the claim on ``key`` (once its record is stored, or it was not run)."""
        if self._fd is not None and key in self._claimed:
            self._claimed.discard(key)
            _unlock(self._fd, _claim_byte(key), 1)

    def wait(self, key: str) -> None:
        """Wait until no other run holds ``key``, then read what they stored."""
        if self._fd is None or key in self.records or key in self._claimed:
            return
        _lock(self._fd, _claim_byte(key), 1, wait=True)
        _unlock(self._fd, _claim_byte(key), 1)
        self.refresh()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The file's lines to this run alone (the claim bytes are not covered)."""
        _lock(self._fd, 0, _CLAIMS, wait=True)
        try:
            yield
        finally:
            _unlock(self._fd, 0, _CLAIMS)

    def _drop_cut_line(self) -> None:
        """Drop a last line without its newline: a write cut short by a crash or Ctrl-C."""
        data = os.pread(self._fd, os.fstat(self._fd).st_size, 0)
        kept = data.rfind(b"\n") + 1
        if kept == len(data):
            return
        warnings.warn(
            f"store: {self.path}: its last line was cut short (a write interrupted by a "
            "crash or Ctrl-C); dropped, that task runs again",
            RuntimeWarning,
            stacklevel=4,
        )
        os.ftruncate(self._fd, kept)

    def _read_new(self, *, first: bool = False) -> None:
        """Parse the whole lines after ``self._read`` into ``self.records``."""
        size = os.fstat(self._fd).st_size
        data = os.pread(self._fd, size - self._read, self._read)
        whole = data[: data.rfind(b"\n") + 1]
        lines = whole.decode("utf-8", errors="replace").splitlines()
        header = self._header(lines[:1]) if first else None
        if first:
            self._number = 1
            lines = lines[1:]
        records = []
        for line in lines:
            self._number += 1
            records.append(self._record(self._number, line))
        # Damaged lines are named before other settings: either way the file is refused.
        if first:
            self._require_settings(header)
        for record in records:
            self.records.setdefault(record["key"], record)
        self._read += len(whole)

    def _header(self, lines: list[str]):
        try:
            return json.loads(lines[0])["header"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ValueError(
                f"store: {self.path} is not a zoo results file (no header line)"
            ) from None

    def _require_settings(self, header) -> None:
        if header != self.settings:
            keys = set(header) | set(self.settings) if isinstance(header, dict) else set()
            changed = sorted(k for k in keys if header.get(k) != self.settings.get(k))
            raise ValueError(
                f"store: {self.path} holds a run with different settings ({', '.join(changed)});"
                " use another file or delete it to start afresh"
            )

    def _record(self, number: int, line: str) -> dict:
        """Line ``number`` of the file as a record, or a ValueError naming it."""
        where = f"store: {self.path}, line {number}"
        try:
            record = json.loads(line)
        except ValueError as error:
            raise ValueError(
                f"{where}: not JSON ({error.msg}); the file is damaged: move it away to start "
                "afresh"
            ) from None
        if not isinstance(record, dict) or not isinstance(record.get("key"), str):
            raise ValueError(f"{where}: a record must be a JSON object with a text 'key'")
        if self.check is not None:
            try:
                self.check(record)
            except ValueError as error:
                raise ValueError(f"{where}: {error}") from None
        return record

    def _write(self, line: Mapping) -> None:
        # One write of the line and its newline (the file is opened for appending), synced
        # to disk: a crash leaves at most the last line cut short, which the next run drops.
        data = (json.dumps(line) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
        os.fsync(self._fd)


def _open(path: Path, settings: dict) -> int:
    """The store's descriptor, for reading and appending; a new file gets its header.

    Never through a symbolic link (``O_NOFOLLOW``), and only a regular file: reading a
    device such as /dev/zero would never end.
    """
    flags = os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        _create(path, settings)
        fd = os.open(path, flags)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(f"store: {path} is not a regular file")
    return fd


def _create(path: Path, settings: dict) -> None:
    """Put a file holding only the header at ``path``, unless one appeared meanwhile.

    Written under a name nobody can predict, then hard-linked to ``path``: a link is
    never made through a symbolic link, and fails when ``path`` exists (another run
    created it first: that file is used).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".zoo-store-", dir=path.parent)
    try:
        # The permissions a file made with open() here would get (mkstemp's are 0600).
        os.fchmod(handle, 0o666 & ~current_umask())
        os.write(handle, (json.dumps({"header": settings}) + "\n").encode())
        os.fsync(handle)
        os.close(handle)
        handle = None
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        if handle is not None:
            os.close(handle)
        os.unlink(temporary)


def _why(path: Path, error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return f"{path} is a symbolic link; give the file itself"
    return f"cannot write to {path}: {error.strerror or error}"


def _claim_byte(key: str) -> int:
    digest = hashlib.sha256(key.encode()).digest()
    return _CLAIMS + int.from_bytes(digest[:8], "big") % _CLAIM_SPAN


def _lock(fd: int, start: int, length: int, *, wait: bool) -> bool:
    """Lock bytes ``[start, start + length)`` of ``fd`` exclusively; False if held."""
    if fcntl is None:
        return True
    try:
        if _OFD:
            command = fcntl.F_OFD_SETLKW if wait else fcntl.F_OFD_SETLK
            fcntl.fcntl(fd, command, _flock(fcntl.F_WRLCK, start, length))
        else:
            command = fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB
            fcntl.lockf(fd, command, length, start)
    except OSError as error:
        if not wait and error.errno in (errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def _unlock(fd: int, start: int, length: int) -> None:
    if fcntl is None:
        return
    if _OFD:
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, _flock(fcntl.F_UNLCK, start, length))
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN, length, start)


#: Open-file-description locks (Linux 3.15 and later).
_OFD = fcntl is not None and hasattr(fcntl, "F_OFD_SETLK")


def _flock(kind: int, start: int, length: int) -> bytes:
    """A ``struct flock`` (Linux, 64-bit offsets): type, whence, start, length, pid 0."""
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, start, length, 0)
