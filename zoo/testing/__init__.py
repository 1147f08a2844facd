"""The validation battery inside a test suite: an assertion and a pytest plugin.

``zoo.testing.assert_valid(model, sampler=...)`` returns the validation's result when the
sampler passes and raises ``AssertionError`` with the findings table when it fails, at a
false-alarm rate a CI job can live with (1e-4), deciding in stages
(:mod:`zoo.testing.sequential`). The pytest plugin (:mod:`zoo.testing.pytest_plugin`,
registered through the ``pytest11`` entry point) adds the ``zoo_validate`` fixture, the
``--zoo-budget``, ``--zoo-rate`` and ``--zoo-report`` options and a summary line per
validation. docs/testing.md, "Checking your sampler in your test suite".

pytest loads the plugin in every session of an environment with the zoo installed, so
this package imports the battery (PyMC, ArviZ, Dask) only when ``assert_valid`` is first
touched (PEP 562).
"""

import importlib

from zoo.testing.sequential import BUDGETS, RATE

_LAZY = {
    "SequentialRecord": "zoo.testing.assertion",
    "assert_valid": "zoo.testing.assertion",
    "findings_table": "zoo.testing.assertion",
}

__all__ = ["BUDGETS", "RATE", *sorted(_LAZY)]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'zoo.testing' has no attribute {name!r}")
