"""Resolve ``package.module:attribute`` strings: the one place the zoo imports by name.

The command line names a user's sampler, kernel or model this way, and a model that
must cross a process boundary travels as its location (:meth:`zoo.Model.__reduce__`).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys

__all__ = ["load_object"]


def load_object(location: str, *, field: str = "sampler"):
    """Import ``package.module:attribute`` (the attribute may be dotted) and return it.

    The current directory goes first on the path while the module is imported, as
    ``python -m`` would have it, so a user's ``mysamplers.py`` beside them is found; then
    last, so that it cannot shadow a module the zoo imports later.

    Raises
    ------
    ValueError
        Naming ``field``, when the string is malformed, the module cannot be imported
        (not found, a syntax error, an exception or ``sys.exit`` while it runs) or the
        attribute does not exist.
    """
    if not isinstance(location, str):
        raise ValueError(f"{field}: expected 'package.module:name', got {location!r}")
    module_name, colon, attribute = location.partition(":")
    if not colon or not module_name or not attribute:
        raise ValueError(f"{field}: expected 'package.module:name', got {location!r}")
    module = _import_from_here(field, module_name)
    value = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise ValueError(f"{field}: module {module_name!r} has no attribute {attribute!r}")
        value = getattr(value, part)
    return value


def _import_from_here(field: str, module_name: str):
    """Import with the current directory first on the path, then put it last.

    First, so that the user's ``mysamplers.py`` beside them is found (as ``python -m``
    would have it); then last, so that a file there named like a module the zoo imports
    later (``distributed.py``, ``pymc.py``) cannot shadow it, while the user's own modules,
    imported lazily or by worker processes started later, are still found there.
    """
    here = os.getcwd()
    if here in sys.path:  # put there by the user or by Python (``python -m``): theirs
        return _import(field, module_name)
    sys.path.insert(0, here)
    try:
        return _import(field, module_name)
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(here)
        sys.path.append(here)


def _import(field: str, module_name: str):
    """Import a user's module; whatever goes wrong while it runs is a ValueError."""
    try:
        return importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"{field}: cannot import module {module_name!r}: {error}") from error
    except SyntaxError as error:
        where = f"{os.path.basename(error.filename or '?')}:{error.lineno}"
        raise ValueError(
            f"{field}: module {module_name!r} has a syntax error at {where}: {error.msg}"
        ) from error
    except SystemExit as error:
        # A module that exits on import would end the zoo with its status and no word.
        raise ValueError(
            f"{field}: module {module_name!r} called sys.exit({error.code!r}) when imported"
        ) from None
    except Exception as error:  # the user's module runs arbitrary code on import
        frame = _innermost_frame_in(error, module_name)
        raise ValueError(
            f"{field}: importing module {module_name!r} raised "
            f"{type(error).__name__}: {error}{frame}"
        ) from error


def _innermost_frame_in(error: BaseException, module_name: str) -> str:
    """`` (file:line)`` of the deepest traceback frame in the user's module, or ''."""
    last = module_name.rpartition(".")[2]
    where = ""
    traceback = error.__traceback__
    while traceback is not None:
        path = traceback.tb_frame.f_code.co_filename
        # The module's file: ``last.py``, or ``last/__init__.py`` for a package.
        if path.endswith((os.sep + last + ".py", os.sep + os.path.join(last, "__init__.py"))):
            where = f" ({os.path.basename(path)}:{traceback.tb_lineno})"
        traceback = traceback.tb_next
    return where
