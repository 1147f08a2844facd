"""Diagnostics: do draws agree with an exact reference, or with each other."""

from zoo.core.reference import Marginal, NoReference, Reference, TabulatedCDF
from zoo.diagnostics.agreement import agreement, compare, holm
from zoo.diagnostics.result import AgreementResult

__all__ = [
    "AgreementResult",
    "Marginal",
    "NoReference",
    "Reference",
    "TabulatedCDF",
    "agreement",
    "compare",
    "holm",
]
