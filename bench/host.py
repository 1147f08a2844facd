"""What the benchmarks say about the machine they ran on.

The project's 2-core machine is not the same host from one day to the next (an Intel
Xeon one day, an AMD EPYC the next, up to twice as fast), so every timing table names
the processor it was taken on.
"""

from __future__ import annotations

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
