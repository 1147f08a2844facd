"""Store a model's ``Data`` and ``Prior`` in an ``xarray.Dataset``, and rebuild them.

One generic rule serves every model, so a saved run can be re-judged without the code
that made its data: each dataclass field is stored by what its value is,

- an ``ndarray`` as a data variable named like the field (dims ``<field>_0``,
  ``<field>_1``, ...), strings and booleans included;
- a list or tuple of 1-D arrays (ragged: documents of different lengths) as their
  concatenation ``<field>`` plus ``<field>__lengths``;
- ``None``, a bool, an int, a float or a str as JSON in the attribute ``scalars``;

and the class is rebuilt by ``cls(**fields)``. What a model must provide: ``Data`` and
``Prior`` are dataclasses whose constructors accept every field under its own name
with the stored value (the zoo's do: validated ``__init__`` or ``__post_init__``).
``tests/test_saved_runs.py`` checks the round trip for every registered model.
"""

from __future__ import annotations

import dataclasses
import json
import numbers

import numpy as np
import xarray as xr

__all__ = ["from_dataset", "to_dataset"]

_RAGGED_SUFFIX = "__lengths"


def _qualified(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def to_dataset(obj) -> xr.Dataset:
    """Store the fields of a dataclass instance (a model's ``Data`` or ``Prior``).

    Raises
    ------
    ValueError
        If ``obj`` is not a dataclass instance, or a field holds a value of another kind
        than those listed in the module docstring.
    """
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        raise ValueError(f"obj: expected a dataclass instance, got {type(obj).__name__}")
    variables, scalars, ragged = {}, {}, []
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if value is None or isinstance(value, bool | str):
            scalars[f.name] = value
        elif isinstance(value, numbers.Integral):
            scalars[f.name] = int(value)
        elif isinstance(value, numbers.Real):
            scalars[f.name] = float(value)
        elif isinstance(value, np.ndarray):
            variables[f.name] = ([f"{f.name}_{k}" for k in range(value.ndim)], value.copy())
        elif isinstance(value, list | tuple) and all(
            isinstance(v, np.ndarray) and v.ndim == 1 for v in value
        ):
            flat = np.concatenate(value) if value else np.zeros(0)
            variables[f.name] = ([f"{f.name}_0"], flat)
            lengths = np.array([v.size for v in value], dtype=np.int64)
            variables[f.name + _RAGGED_SUFFIX] = ([f"{f.name}_docs"], lengths)
            ragged.append(f.name)
        else:
            raise ValueError(
                f"{type(obj).__name__}.{f.name}: cannot store a {type(value).__name__} "
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
        return np.array([v.decode() if isinstance(v, bytes) else v for v in values.ravel()])
    return values


def from_dataset(cls: type, dataset: xr.Dataset):
    """Rebuild an instance of ``cls`` stored by :func:`to_dataset`.

    Raises
    ------
    ValueError
        If the dataset holds another class, or a field is missing.
    """
    stored = dataset.attrs.get("type")
    if stored != _qualified(cls):
        raise ValueError(f"dataset: holds a {stored}, expected {_qualified(cls)}")
    kwargs = json.loads(dataset.attrs.get("scalars", "{}"))
    ragged = set(json.loads(dataset.attrs.get("ragged", "[]")))
    for f in dataclasses.fields(cls):
        if f.name in kwargs:
            continue
        if f.name not in dataset.data_vars:
            raise ValueError(f"dataset: no stored value for field {f.name!r} of {cls.__name__}")
        values = _restore(np.asarray(dataset[f.name].values))
        if f.name in ragged:
            lengths = np.asarray(dataset[f.name + _RAGGED_SUFFIX].values, dtype=np.int64)
            kwargs[f.name] = [part.copy() for part in np.split(values, np.cumsum(lengths)[:-1])]
        else:
            kwargs[f.name] = values
    return cls(**kwargs)
