"""The Geweke check: Geweke's joint-distribution test of the kernel under test.

:func:`zoo.diagnostics.geweke.geweke` at its default budget (5,000 independent joint
draws against 4 chains of 10,000 steps), streams ``geweke-chains``.
"""

from __future__ import annotations

from zoo.diagnostics.geweke import geweke
from zoo.validation.kernel_check_task import kernel_check

__all__ = ["GEWEKE"]


def _iterations(plan) -> dict:
    """The chains' length when the caller set it (``--geweke-iterations``)."""
    return {} if plan.geweke_iterations is None else {"iterations": plan.geweke_iterations}


GEWEKE = kernel_check("geweke", geweke, _iterations)
