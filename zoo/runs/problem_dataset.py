"""Store a model's ``Data`` and ``Prior`` in an ``xarray.Dataset``, and rebuild them.

One generic rule serves every model, so a saved run can be re-judged without the code
that made its data. An object is stored as the keyword arguments that rebuild it with
``cls(**arguments)``:

- by default its dataclass fields, when the constructor takes each field under its own
  name (the Beta-Binomial, Naive Bayes and GDA ``Data`` and ``Prior`` do);
- otherwise what its method ``stored_arguments()`` returns (a ``Data`` built from a
  corpus but holding flattened token arrays, say, returns ``{"corpus": [...], ...}``).

Each argument is stored by what its value is:

- an ``ndarray`` as a data variable of that name (dims ``<name>_0``, ``<name>_1``, ...),
  strings and booleans included;
- a list or tuple of 1-D arrays (ragged: documents of different lengths) as their
  concatenation ``<name>`` plus ``<name>__lengths``;
- ``None``, a bool, an int, a float or a str as JSON in the attribute ``scalars``.

``tests/runs/test_saved_runs.py`` checks the round trip for every registered model.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import numbers

import numpy as np
import xarray as xr

__all__ = ["HOOK", "from_dataset", "to_dataset"]

#: Name of the optional method returning the constructor's keyword arguments.
HOOK = "stored_arguments"
_RAGGED_SUFFIX = "__lengths"


def _qualified(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _arguments(obj) -> dict:
    hook = getattr(obj, HOOK, None)
    if callable(hook):
        arguments = hook()
        if not isinstance(arguments, dict):
            raise ValueError(
                f"{type(obj).__name__}.{HOOK}: must return a dict, got {type(arguments).__name__}"
            )
        return arguments
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        raise ValueError(
            f"obj: expected a dataclass instance or an object with {HOOK}(), "
            f"got {type(obj).__name__}"
        )
    names = [f.name for f in dataclasses.fields(obj)]
    parameters = inspect.signature(type(obj)).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        missing = [n for n in names if n not in parameters]
        if missing:
            raise ValueError(
                f"{type(obj).__name__}: the constructor takes no argument named {missing}; "
                f"define {HOOK}() returning the keyword arguments that rebuild it"
            )
    return {n: getattr(obj, n) for n in names}


def to_dataset(obj) -> xr.Dataset:
    """Store a model's ``Data`` or ``Prior`` as the arguments that rebuild it.

    Raises
    ------
    ValueError
        If ``obj`` is neither a dataclass whose constructor takes its fields nor has
        ``stored_arguments()``, or an argument holds a value of another kind than those
        listed in the module docstring.
    """
    variables, scalars, ragged = {}, {}, []
    for name, value in _arguments(obj).items():
        if value is None or isinstance(value, bool | str):
            scalars[name] = value
        elif isinstance(value, numbers.Integral):
            scalars[name] = int(value)
        elif isinstance(value, numbers.Real):
            scalars[name] = float(value)
        elif isinstance(value, np.ndarray):
            variables[name] = ([f"{name}_{k}" for k in range(value.ndim)], value.copy())
        elif isinstance(value, list | tuple) and all(
            isinstance(v, np.ndarray) and v.ndim == 1 for v in value
        ):
            flat = np.concatenate(value) if value else np.zeros(0)
            variables[name] = ([f"{name}_0"], flat)
            lengths = np.array([v.size for v in value], dtype=np.int64)
            variables[name + _RAGGED_SUFFIX] = ([f"{name}_parts"], lengths)
            ragged.append(name)
        else:
            raise ValueError(
                f"{type(obj).__name__}.{name}: cannot store a {type(value).__name__} "
                "(supported: None, bool, int, float, str, ndarray, list of 1-D arrays)"
            )
    return xr.Dataset(
        variables,
        attrs={
            "type": _qualified(type(obj)),
            # JSON keeps None and bool apart from numbers (netCDF attributes cannot).
            "scalars": json.dumps(scalars),
            "ragged": json.dumps(ragged),
        },
    )


def _restore(values: np.ndarray) -> np.ndarray:
    # netCDF and Zarr give strings back as object arrays; the models expect str arrays.
    if values.dtype == object and all(isinstance(v, str | bytes) for v in values.ravel()):
        flat = [v.decode() if isinstance(v, bytes) else v for v in values.ravel()]
        return np.array(flat).reshape(values.shape)
    return values


def from_dataset(cls: type, dataset: xr.Dataset):
    """Rebuild an instance of ``cls`` stored by :func:`to_dataset`.

    Raises
    ------
    ValueError
        If the dataset holds another class, or ``cls`` rejects the stored arguments.
    """
    stored = dataset.attrs.get("type")
    if stored != _qualified(cls):
        raise ValueError(f"dataset: holds a {stored}, expected {_qualified(cls)}")
    arguments = json.loads(dataset.attrs.get("scalars", "{}"))
    ragged = set(json.loads(dataset.attrs.get("ragged", "[]")))
    for name in dataset.data_vars:
        name = str(name)
        if name.endswith(_RAGGED_SUFFIX) and name[: -len(_RAGGED_SUFFIX)] in ragged:
            continue
        values = _restore(np.asarray(dataset[name].values))
        if name in ragged:
            lengths = np.asarray(dataset[name + _RAGGED_SUFFIX].values, dtype=np.int64)
            parts = np.split(values, np.cumsum(lengths)[:-1]) if lengths.size else []
            arguments[name] = [part.copy() for part in parts]
        else:
            arguments[name] = values
    try:
        return cls(**arguments)
    except TypeError as err:
        raise ValueError(
            f"dataset: {cls.__name__} does not take the stored arguments ({err})"
        ) from err
