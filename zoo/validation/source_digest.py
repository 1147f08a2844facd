"""A digest of the file that defines a user's sampler or kernel.

Why: SBC results are stored as they arrive and a later run with the same settings
resumes from them (:mod:`zoo.validation.result_store`). If the user edited their
sampler in between, the stored ranks belong to other code; the digest goes into the
store's settings, so such a file is refused rather than mixed in.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from zoo.core.disk_cache import file_digest
from zoo.validation.sampler_under_test import SamplerUnderTest

__all__ = ["source_digest"]


def source_digest(tested: SamplerUnderTest) -> str | None:
    """SHA-256 (first 16 hex digits) of the file defining the user's code under test.

    None for the zoo's own engines and faults (the zoo's version names those), and when
    the source file cannot be found (a function typed at a prompt).
    """
    if tested.sampler is not None:
        target = tested.sampler
    elif tested.kernel is not None:
        # A Kernel is a NamedTuple: its type is the zoo's, its step function the user's.
        target = tested.kernel.step
    else:
        return None
    # A user's function adapted to the zoo's protocol (a PyMC model's sampler or kernel)
    # is held as ``.function``: the file to digest is the user's, not the adapter's.
    target = getattr(target, "function", target)
    try:
        path = inspect.getsourcefile(target if callable(target) else type(target))
    except TypeError:
        path = None
    if path is None and callable(target):
        try:
            path = inspect.getsourcefile(type(target))
        except TypeError:
            path = None
    if path is None or not Path(path).exists():
        return None
    return file_digest(path)
