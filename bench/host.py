"""What the benchmarks say about the machine they ran on.

The project's 2-core machine is not the same host from one day to the next (an Intel
Xeon one day, an AMD EPYC the next, up to twice as fast), so every timing table names
the processor it was taken on.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def cpu_name() -> str:
    """The processor's model name from ``/proc/cpuinfo`` ("unknown" where there is none)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def git_commit() -> str:
    """The repository's HEAD (short), with ``+dirty`` when tracked files differ from it.

    Records under ``bench/results/`` do not count: a study appends to its own.
    """
    root = Path(__file__).resolve().parents[1]

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/results")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")
