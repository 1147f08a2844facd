"""What the zoo needs to create files safely beside a user's: the permissions to give them.

Files and folders the zoo writes beside a user's output (a report's staging folder, a
store's first version) are made by ``tempfile``, under names nobody can predict or plant
as a symbolic link beforehand, and private to the user (0600, 0700). What they become
must carry the permissions ``open()`` or ``mkdir()`` would have given: those of the
process's mask.
"""

from __future__ import annotations

import os

__all__ = ["current_umask"]


def current_umask() -> int:
    """The process's file-mode creation mask, read without changing it where possible."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    # Elsewhere the only way to read it is to set it: it is set back at once.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
