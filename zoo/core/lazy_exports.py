"""Names a package exports but imports only on first use (PEP 562).

``import zoo`` and ``import zoo.cli`` must stay cheap: the ``zoo`` command sets its
handlers of Ctrl-C and ``kill`` before NumPy, PyMC, ArviZ or Dask load, and a library
user pays for them when first touching a name that needs them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

__all__ = ["lazy_getattr"]


def lazy_getattr(package: dict, exports: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package`` (its ``globals()``).

    ``exports`` maps each public name to the module that defines it; the name is
    imported from there on first use and kept in ``package``, so later look-ups do not
    come back here.
    """

    def __getattr__(name: str):
        if name in exports:
            value = getattr(importlib.import_module(exports[name]), name)
            package[name] = value
            return value
        raise AttributeError(f"module {package['__name__']!r} has no attribute {name!r}")

    return __getattr__
