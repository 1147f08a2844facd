"""Exact references of the models' own validation problems, kept for the process.

Why a cache at all: the exact check needs each problem's reference once per run, but a
process that validates many samplers of one model (the power benchmark, the test
suite) would recompute it every time, and some take seconds (the rat data's quadrature,
enumerations of labelings). Only a model with a location (a module-level object, whose
validation problems are fixed data) and only its own problems are kept: a caller's
data set, or a model built on the fly, may differ under the same names.
"""

from __future__ import annotations

from zoo.core.contract import Model
from zoo.validation.problem_selection import Problem

__all__ = ["exact_reference"]

_KEPT: dict[tuple[str, str], object] = {}


def exact_reference(model: Model, problem: Problem):
    """``model.posterior(problem.data, problem.prior)``, kept when it can be reused."""
    if model.location is None or not problem.own:
        return model.posterior(problem.data, problem.prior)
    key = (model.location, problem.name)
    if key not in _KEPT:
        _KEPT[key] = model.posterior(problem.data, problem.prior)
    return _KEPT[key]
