"""bayes-zoo: conjugate models three times over, and diagnostics that say which agree.

The names below are the documented API (README, "Python API"). They are looked up on
first use (PEP 562), so ``import zoo`` stays cheap for the command line: PyMC, ArviZ
and Dask load only when ``zoo.sample`` or ``zoo.validate`` is first touched.
"""

from zoo.core import __version__
from zoo.core.lazy_exports import lazy_getattr

#: Public name -> the module that defines it.
_EXPORTS = {
    "CannotAugment": "zoo.core",
    "DerivedVariables": "zoo.core",
    "Kernel": "zoo.core",
    "KernelChecks": "zoo.core",
    "Model": "zoo.core",
    "Marginal": "zoo.core",
    "NoReference": "zoo.core",
    "OutsideSupport": "zoo.core",
    "Reference": "zoo.core",
    "get": "zoo.registry",
    "names": "zoo.registry",
    "register": "zoo.registry",
    "sample": "zoo.sampling.driver",
    "exact_reference": "zoo.specification.exact",
    "Exchangeable": "zoo.diagnostics.label_invariants",
    "CheckOutcome": "zoo.validation",
    "ValidationResult": "zoo.validation",
    "validate": "zoo.validation",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


__getattr__ = lazy_getattr(globals(), _EXPORTS)


def __dir__() -> list[str]:
    # The documented names and the module's own dunders; not the helpers used here.
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})
