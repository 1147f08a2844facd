"""Output paths checked before any work: a long run must not end on a path it cannot use.

``--out`` and ``--store`` name files, ``--report`` a folder. Each is refused at the start
when it or one of its parents exists as the wrong kind of thing (a folder where a file is
wanted, a file among the parents), or when the nearest existing parent cannot be written
to. Found after the run, any of these lost the run's results.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["outputs_usable", "unusable_output"]


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
