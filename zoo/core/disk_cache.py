"""Arrays that are slow to compute and fixed by their inputs, kept on disk between runs.

Why: the exact references of the zoo's own problems are the same in every run, and
some take seconds (the rat data's theta marginals tabulate a mixture of some thousand
Betas per group, 9 CPU seconds; the Naive Bayes labelings, 3 to 12), recomputed by
every ``zoo check`` and ``zoo validate`` in every process. A result is keyed by a
SHA-256 of its inputs (their dtypes, shapes and bytes) and of the source files of the
code that computes it, so an edit of that code, or other inputs, gives another key:
nothing stale is read. What is read back is the ``float64`` arrays that were written,
bit for bit, so a run gives the same numbers cold or warm.

The folder is ``$ZOO_CACHE_DIR`` when set (an empty value turns the cache off), else
``$XDG_CACHE_HOME/bayes-zoo`` or ``~/.cache/bayes-zoo``. A folder that cannot be
written is not an error: the arrays are computed, as without a cache. A file that
cannot be used (damaged, a symbolic link, or a whole file holding another entry's
arrays, which once raised ``KeyError: 'low'`` deep in a reference) is computed again
and replaced, with one warning. Files are never unpickled (``allow_pickle=False``).
"""

from __future__ import annotations

import errno
import functools
import hashlib
import os
import stat
import tempfile
import warnings
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

__all__ = ["cache_folder", "cached_arrays", "file_digest"]

#: Environment variable naming the cache folder ("" turns the cache off).
ENVIRONMENT = "ZOO_CACHE_DIR"


def cache_folder() -> Path | None:
    """The folder results are kept in, or None when the cache is off."""
    chosen = os.environ.get(ENVIRONMENT)
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bayes-zoo"


def file_digest(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes, the first 16 hex digits."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


@functools.cache
def _code_digest(paths: tuple[str, ...]) -> str:
    return "-".join(file_digest(path) for path in paths)


def _update(hasher, value) -> None:
    if isinstance(value, np.ndarray | np.generic):
        array = np.ascontiguousarray(value)
        hasher.update(f"array {array.dtype.str} {array.shape}".encode())
        hasher.update(array.tobytes())
    elif isinstance(value, tuple | list):
        hasher.update(f"sequence {len(value)}".encode())
        for item in value:
            _update(hasher, item)
    elif isinstance(value, str | int | float | bool) or value is None:
        hasher.update(f"{type(value).__name__} {value!r}".encode())
    else:
        raise TypeError(f"inputs: cannot key a {type(value).__name__} (arrays, numbers, strings)")


#: The layout of a cache file; part of every key, so files of another layout are not read.
_FORMAT = "zoo-cache/3"

#: The entry of a cache file holding its own key: a whole, valid file put at another
#: entry's path (copied, renamed, planted) holds other arrays, and is not read as it.
_KEY = "__zoo_cache_key__"

#: The entry holding a digest of the other arrays (names, types, shapes, bytes): a file
#: of the right key whose arrays were changed, added or left out after it was written
#: is not read (one lacking "low" was returned as it was, and its reader raised KeyError).
_DIGEST = "__zoo_cache_digest__"


def _digest(arrays: dict[str, np.ndarray]) -> str:
    hasher = hashlib.sha256()
    for name in sorted(arrays):
        hasher.update(f"name {name}".encode())
        _update(hasher, np.asarray(arrays[name]))
    return hasher.hexdigest()


def _read(path: Path, key: str) -> dict[str, np.ndarray] | None:
    """The arrays kept at ``path`` under ``key``; None (with one warning unless absent)."""
    try:
        # Not through a symbolic link, and only a regular file (a FIFO would block).
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        if error.errno == errno.ELOOP:
            _unusable(path, "a symbolic link")
        # Otherwise absent, or the folder unusable: computed, as without a cache.
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # before fdopen, which refuses a folder
        os.close(fd)
        _unusable(path, "not a regular file")
        return None
    with os.fdopen(fd, "rb") as stream:
        try:
            with np.load(stream, allow_pickle=False) as stored:
                arrays = {name: stored[name] for name in stored.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
            _unusable(path, f"damaged ({type(error).__name__})")
            return None
    if str(arrays.pop(_KEY, "")) != key:
        _unusable(path, "it holds another entry's arrays")
        return None
    if str(arrays.pop(_DIGEST, "")) != _digest(arrays):
        _unusable(path, "its arrays are not the ones written (their digest differs)")
        return None
    return arrays


def _unusable(path: Path, why: str) -> None:
    warnings.warn(
        f"cache: {path}: {why}; computed again and replaced", RuntimeWarning, stacklevel=4
    )


def cached_arrays(
    name: str,
    code: Iterable[str | os.PathLike],
    inputs: tuple,
    compute: Callable[[], dict[str, np.ndarray]],
) -> dict[str, np.ndarray]:
    """``compute()``, read from the cache when the same code saw the same inputs before.

    Parameters
    ----------
    name : str
        What is kept (a file-name prefix).
    code : iterable of path
        Source files of the code ``compute`` runs: an edit of any gives another key.
    inputs : tuple
        Everything ``compute``'s result depends on besides that code: arrays, numbers,
        strings, None, and tuples of them.
    compute : callable
        Returns the arrays, by name.
    """
    folder = cache_folder()
    if folder is None:
        return compute()
    hasher = hashlib.sha256(f"{_FORMAT} {name}".encode())
    hasher.update(_code_digest(tuple(str(path) for path in code)).encode())
    _update(hasher, inputs)
    key = hasher.hexdigest()[:32]
    path = folder / f"{name}-{key}.npz"
    kept = _read(path, key)
    if kept is not None:
        return kept
    arrays = compute()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Written beside it and renamed: a reader never sees half a file, and two runs
        # that compute the same result at once both leave a whole one.
        handle, temporary = tempfile.mkstemp(dir=folder, suffix=".npz.part")
    except OSError:
        return arrays
    try:
        with os.fdopen(handle, "wb") as stream:
            np.savez(stream, **arrays, **{_KEY: np.array(key), _DIGEST: np.array(_digest(arrays))})
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
    return arrays
