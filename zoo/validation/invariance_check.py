"""The invariance check: each conditional of the kernel under test, in one sweep.

:func:`zoo.diagnostics.invariance.invariance` at its default budget (4,000 exact joint
draws), streams ``invariance-replicates``.
"""

from __future__ import annotations

from zoo.diagnostics.invariance import invariance
from zoo.validation.kernel_check_task import kernel_check

__all__ = ["INVARIANCE"]

INVARIANCE = kernel_check("invariance", invariance)
