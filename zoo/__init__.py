"""bayes-zoo: conjugate models three times over, and diagnostics that say which agree.

The names below are the documented API (README, "Python API"). They are looked up on
first use (PEP 562), so ``import zoo`` stays cheap for the command line: PyMC, ArviZ
and Dask load only when ``zoo.sample`` or ``zoo.validate`` is first touched.
"""

import importlib

from zoo.core import __version__

#: Public name -> the module that defines it.
_EXPORTS = {
    "DerivedVariables": "zoo.core.contract",
    "Kernel": "zoo.core.contract",
    "KernelChecks": "zoo.core.contract",
    "Model": "zoo.core.contract",
    "Marginal": "zoo.core.reference",
    "NoReference": "zoo.core.reference",
    "Reference": "zoo.core.reference",
    "get": "zoo.registry",
    "names": "zoo.registry",
    "register": "zoo.registry",
    "sample": "zoo.sampling.driver",
    "exact_reference": "zoo.specification.exact",
    "CheckOutcome": "zoo.validation",
    "ValidationResult": "zoo.validation",
    "validate": "zoo.validation",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module 'zoo' has no attribute {name!r}")


def __dir__() -> list[str]:
    # The documented names and the module's own dunders; not the helpers used here.
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})
