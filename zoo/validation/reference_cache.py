"""Exact references of a model's own validation problems, kept while the model lives.

Why a cache at all: one ``validate`` asks for each problem's reference twice (to
choose the checks, then in the exact check), and a process that validates many
samplers of one model (the power benchmark, the test suite) asks again every time;
some references take seconds to derive (the rat data's quadrature, enumerations of
labelings, a user's PyMC model read for conjugacy).

What is kept: the references of a model's *own* problems (fixed data that belong to
the model), under that model object. The key is the object itself, not its name or
location: a copy made with ``dataclasses.replace`` keeps the location but may have
another ``posterior``, and a user's PyMC model built again may hold other data under the
same names, so neither may reuse the other's references. An entry is dropped when its
model is garbage-collected, so a model built per call (``zoo.validate`` on a PyMC
model) keeps its references for exactly as long as that call holds it, and a model
defined at module level (the zoo's own) for the life of the process. A caller's data
set (``own`` False) is never kept.
"""

from __future__ import annotations

import weakref

from zoo.core.contract import Model
from zoo.validation.problem_selection import Problem

__all__ = ["exact_reference", "kept_references"]

#: ``id(model) -> (weak reference to the model, {problem name: reference})``. The weak
#: reference's callback removes the entry, so an id reused by a later object never
#: finds another model's references.
_KEPT: dict[int, tuple[weakref.ref, dict[str, object]]] = {}


def _forget(key: int, reference: weakref.ref) -> None:
    entry = _KEPT.get(key)
    if entry is not None and entry[0] is reference:
        del _KEPT[key]


def _references_of(model: Model) -> dict[str, object]:
    """The dict of ``model``'s kept references (made empty on first use)."""
    key = id(model)
    entry = _KEPT.get(key)
    if entry is None or entry[0]() is not model:
        reference = weakref.ref(model, lambda ref, key=key: _forget(key, ref))
        entry = _KEPT[key] = (reference, {})
    return entry[1]


def exact_reference(model: Model, problem: Problem):
    """``model.posterior(problem.data, problem.prior)``, derived once per model object.

    Parameters
    ----------
    model : Model
    problem : Problem
        One of ``model``'s own problems (``own`` True: kept) or a caller's (derived at
        each call).
    """
    if not problem.own:
        return model.posterior(problem.data, problem.prior)
    kept = _references_of(model)
    if problem.name not in kept:
        kept[problem.name] = model.posterior(problem.data, problem.prior)
    return kept[problem.name]


def kept_references(model: Model) -> tuple[str, ...]:
    """The names of ``model``'s problems whose references are kept (for tests, reports)."""
    entry = _KEPT.get(id(model))
    if entry is None or entry[0]() is not model:
        return ()
    return tuple(entry[1])
