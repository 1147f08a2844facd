"""The bottom layer: the contract every model and diagnostic is written against.

Nothing here imports from the rest of the zoo. ``models`` and ``diagnostics`` build on
it; the application (sampling, ``check``, ``validate``, saved runs, reports) sits above
them, and the command line on top (``docs/design.md``, "Layers").
"""

from zoo.core.lazy_exports import lazy_getattr

__version__ = "0.3.0.dev0"

#: Public name -> the module that defines it. Looked up on first use (PEP 562): the
#: ``zoo`` command imports this package before it can handle Ctrl-C, and NumPy, which
#: the contract needs, takes most of a second to import on a loaded machine.
_EXPORTS = {
    "CannotAugment": "zoo.core.contract",
    "DerivedVariables": "zoo.core.contract",
    "Kernel": "zoo.core.contract",
    "KernelChecks": "zoo.core.contract",
    "Model": "zoo.core.contract",
    "Marginal": "zoo.core.reference",
    "NoReference": "zoo.core.reference",
    "OutsideSupport": "zoo.core.contract",
    "Reference": "zoo.core.reference",
    "TabulatedCDF": "zoo.core.reference",
}

__all__ = [
    "CannotAugment",
    "DerivedVariables",
    "Kernel",
    "KernelChecks",
    "Marginal",
    "Model",
    "NoReference",
    "OutsideSupport",
    "Reference",
    "TabulatedCDF",
    "__version__",
]


__getattr__ = lazy_getattr(globals(), _EXPORTS)
