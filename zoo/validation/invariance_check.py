"""The invariance check: each conditional of the kernel under test, in one sweep.

:mod:`zoo.diagnostics.invariance` at its budget (``replicates``, 4,000 exact joint draws
by default), streams ``invariance-replicates``: tasks of 1,000 replicates, each replicate
from its own stream item, so the values are those of
:func:`~zoo.diagnostics.invariance.invariance` run in one process.
"""

from __future__ import annotations

from zoo.core.defaults import INVARIANCE_REPLICATES
from zoo.diagnostics.invariance import PURPOSE, invariance_replicates, invariance_result
from zoo.validation.kernel_check_task import kernel_check
from zoo.validation.plan import Setting

__all__ = ["INVARIANCE"]

#: Replicates per task.
_PER_TASK = 1000


def _replicates(tested, seed: int, setup, start: int, stop: int):
    return invariance_replicates(
        tested.model, tested.kernel_under_test, start=start, stop=stop, seed=seed, setup=setup
    )


def _pieces(plan) -> list:
    replicates = plan.budget["replicates"]
    bounds = [
        (start, min(start + _PER_TASK, replicates)) for start in range(0, replicates, _PER_TASK)
    ]
    return [(f"{start}-{stop}", _replicates, (start, stop)) for start, stop in bounds]


def _combine(values, *, alpha: float, seconds: float):
    return invariance_result(values, alpha=alpha, seconds=seconds)


INVARIANCE = kernel_check(
    "invariance",
    "Invariance of each conditional",
    _pieces,
    _combine,
    purpose=PURPOSE,
    description="From exact posterior draws, one application of draw (parameters) and of "
    "step (latents): the mean of each test function before (expected) and after "
    "(observed); a row that moves names the conditional at fault.",
    budget=(
        Setting(
            "replicates",
            INVARIANCE_REPLICATES,
            "exact joint draws, each moved once by the kernel's draw and step",
            2,
        ),
    ),
)
