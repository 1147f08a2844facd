"""The bottom layer: the contract every model and diagnostic is written against.

Nothing here imports from the rest of the zoo. ``models`` and ``diagnostics`` build on
it; the application (sampling, ``check``, ``validate``, saved runs, reports) sits above
them, and the command line on top (``docs/design.md``, "Layers").
"""

from zoo.core.contract import DerivedVariables, Kernel, KernelChecks, Model
from zoo.core.reference import Marginal, NoReference, Reference, TabulatedCDF

__version__ = "0.3.0.dev0"

__all__ = [
    "DerivedVariables",
    "Kernel",
    "KernelChecks",
    "Marginal",
    "Model",
    "NoReference",
    "Reference",
    "TabulatedCDF",
    "__version__",
]
