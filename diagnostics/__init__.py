"""Diagnostics: do draws agree with an exact reference, with each other, with the prior.

- :func:`agreement` (draws against an exact :class:`Reference`) and :func:`compare`
  (two sets of draws), Holm over every quantity: :class:`AgreementResult`.
- Simulation-based calibration: :func:`simulation_ranks` (one simulation's ranks) and
  :func:`sbc_result` (the ECDF-band uniformity test over many): :class:`SBCResult`.
- Kernel checks: :func:`geweke` (Geweke's joint-distribution test) and
  :func:`invariance` (one sweep of each conditional from exact joint draws):
  :class:`KernelCheckResult`.

Everything here takes a :class:`zoo.Model` object and plain callables; nothing refers to
a model by name (``docs/design.md``, "Layers").
"""

from zoo.core.reference import Marginal, NoReference, Reference, TabulatedCDF
from zoo.diagnostics.agreement import agreement, compare, holm
from zoo.diagnostics.geweke import geweke
from zoo.diagnostics.invariance import invariance
from zoo.diagnostics.kernel_result import KernelCheckResult
from zoo.diagnostics.result import AgreementResult
from zoo.diagnostics.sbc import SBCResult, sbc_result, simulation_ranks

__all__ = [
    "AgreementResult",
    "KernelCheckResult",
    "Marginal",
    "NoReference",
    "Reference",
    "SBCResult",
    "TabulatedCDF",
    "agreement",
    "compare",
    "geweke",
    "holm",
    "invariance",
    "sbc_result",
    "simulation_ranks",
]
