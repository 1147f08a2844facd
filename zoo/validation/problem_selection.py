"""The data sets of the exact check: the model's own, some of them by name, or the caller's."""

from __future__ import annotations

from typing import Any, NamedTuple

from zoo.core.contract import Model

__all__ = ["Problem", "choose_problems", "model_problems"]


class Problem(NamedTuple):
    """One data set of the exact check.

    Attributes
    ----------
    name : str
    data, prior
        Instances of the model's ``Data`` and ``Prior``.
    own : bool
        True for one of the model's own validation problems (fixed data, so its exact
        reference may be kept; see :mod:`zoo.validation.reference_cache`), False for
        the caller's.
    """

    name: str
    data: Any
    prior: Any
    own: bool = False


def model_problems(model: Model) -> list[Problem]:
    """The model's validation data sets: ``validation_problems`` or its default problem."""
    if model.validation_problems is not None:
        return [
            Problem(name, data, prior, True) for name, data, prior in model.validation_problems()
        ]
    data, prior = model.default_problem()
    return [Problem("default", data, prior, True)]


def choose_problems(model: Model, chosen=None) -> list[Problem]:
    """The exact check's data sets: all, some by name, or the caller's own (validated).

    Parameters
    ----------
    model : Model
    chosen : list of str or of (name, data, prior), optional
        Names of the model's validation problems, and/or the caller's own triples with
        the model's ``Data`` and ``Prior``. Default: all of the model's.

    Raises
    ------
    ValueError
        On an empty list, an unknown name, or an item of another form.
    """
    known = model_problems(model)
    if chosen is None:
        return known
    if isinstance(chosen, str) or not len(chosen):
        raise ValueError("problems: expected a non-empty list of names or (name, data, prior)")
    by_name = {problem.name: problem for problem in known}
    out = []
    for item in chosen:
        if isinstance(item, str):
            if item not in by_name:
                raise ValueError(
                    f"problems: {model.name} has no validation problem {item!r}; "
                    f"known: {', '.join(by_name)}"
                )
            out.append(by_name[item])
        elif (
            isinstance(item, tuple)
            and len(item) == 3
            and isinstance(item[1], model.Data)
            and isinstance(item[2], model.Prior)
        ):
            out.append(Problem(*item))
        else:
            raise ValueError(
                f"problems: each item must be a problem name or a (name, {model.name} Data, "
                f"{model.name} Prior) tuple, got {item!r:.80}"
            )
    return out
