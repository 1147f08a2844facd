"""Resolve ``package.module:attribute`` strings: the one place the zoo imports by name.

The command line names a user's sampler, kernel or model this way, and a model that
must cross a process boundary travels as its location (:meth:`zoo.Model.__reduce__`).
"""

from __future__ import annotations

import importlib
import os
import sys

__all__ = ["load_object"]


def load_object(location: str, *, field: str = "sampler"):
    """Import ``package.module:attribute`` (the attribute may be dotted) and return it.

    The current directory goes first on the path, as ``python -m`` would have it, so a
    user's ``mysamplers.py`` beside them is found.

    Raises
    ------
    ValueError
        Naming ``field``, when the string is malformed, the module cannot be imported or
        the attribute does not exist.
    """
    if not isinstance(location, str):
        raise ValueError(f"{field}: expected 'package.module:name', got {location!r}")
    module_name, colon, attribute = location.partition(":")
    if not colon or not module_name or not attribute:
        raise ValueError(f"{field}: expected 'package.module:name', got {location!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"{field}: cannot import module {module_name!r}: {error}") from error
    value = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise ValueError(f"{field}: module {module_name!r} has no attribute {attribute!r}")
        value = getattr(value, part)
    return value
