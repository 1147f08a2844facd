"""Turn whatever holds posterior draws into arrays with ``(chain, draw, element)`` axes."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import xarray as xr

__all__ = ["design_coords", "element_labels", "posterior_dataset", "variable_draws"]

SAMPLE_DIMS = ("chain", "draw")


def posterior_dataset(draws, *, group: str = "posterior") -> xr.Dataset:
    """Return the draws as an ``xarray.Dataset`` with ``chain`` and ``draw`` dims.

    Accepts an ``xarray.DataTree`` (the ``group`` is used), an ``xarray.Dataset``, or a
    dict of arrays whose two leading axes are ``(chain, draw)``.
    """
    if isinstance(draws, xr.DataTree):
        if group not in draws.children:
            raise ValueError(
                f"draws: the DataTree has no group {group!r} (groups: {list(draws.children)})"
            )
        dataset = draws[group].to_dataset()
    elif isinstance(draws, xr.Dataset):
        dataset = draws
    elif isinstance(draws, Mapping):
        # deferred: arviz_base takes about 0.2 s to import; only dict input needs it
        from arviz_base import dict_to_dataset

        arrays = {}
        for name, value in draws.items():
            array = np.asarray(value)
            if array.ndim < 2:
                raise ValueError(
                    f"draws[{name!r}]: needs leading (chain, draw) axes, got shape {array.shape}"
                )
            arrays[name] = array
        dataset = dict_to_dataset(arrays, sample_dims=list(SAMPLE_DIMS))
    else:
        raise ValueError(
            "draws: expected an xarray.DataTree, an xarray.Dataset or a dict of arrays "
            f"with leading (chain, draw) axes, got {type(draws).__name__}"
        )
    missing = [d for d in SAMPLE_DIMS if d not in dataset.dims]
    if missing:
        raise ValueError(f"draws: missing sample dims {missing}; dims are {list(dataset.dims)}")
    return dataset


def variable_draws(dataset: xr.Dataset, name: str, dims: tuple[str, ...], shape) -> np.ndarray:
    """Return draws of ``name`` as an array of shape ``(chain, draw, *shape)``.

    Dims are matched by name where the draws carry the reference's dim names, otherwise
    by position (a dict of bare arrays gets ArviZ's default names).
    """
    if name not in dataset.data_vars:
        raise ValueError(
            f"draws: no variable {name!r}; variables are {sorted(map(str, dataset.data_vars))}"
        )
    array = dataset[name]
    own = tuple(d for d in array.dims if d not in SAMPLE_DIMS)
    if set(own) == set(dims):
        array = array.transpose(*SAMPLE_DIMS, *dims)
    else:
        array = array.transpose(*SAMPLE_DIMS, *own)
    values = np.asarray(array.values, dtype=float)
    if values.shape[2:] != tuple(shape):
        raise ValueError(
            f"draws[{name!r}]: each draw has shape {values.shape[2:]}, expected {tuple(shape)}"
        )
    if not np.all(np.isfinite(values)):
        raise ValueError(f"draws[{name!r}]: contains NaN or infinite values")
    return values


def element_labels(name: str, dims: tuple[str, ...], shape, coords) -> list[str]:
    """Labels like ``theta[group=3]`` for every element, in C order.

    The one place a quantity's label is made, so that every table names an element
    the same way: by its coordinate value where ``coords`` has one for the dim (of the
    dim's length), else by position (ArviZ's default coordinates).
    """
    if not dims:
        return [name]
    axes = []
    for dim, size in zip(dims, shape, strict=True):
        values = coords.get(dim) if coords else None
        values = list(values) if values is not None and len(values) == size else list(range(size))
        axes.append([f"{dim}={value}" for value in values])
    labels = []
    for index in np.ndindex(*shape):
        labels.append(f"{name}[{','.join(axes[k][i] for k, i in enumerate(index))}]")
    return labels


def design_coords(data) -> Mapping:
    """The coordinates every data set of ``data``'s design shares, for labels.

    Simulation-based checks name a quantity once for all their simulated data sets, so
    only coordinates that no simulation changes can name it: a data set whose type says
    so holds them in ``fixed_coords`` (a PyMC-specified model's data: its model's
    coords). A zoo model's simulated data choose which items are unlabelled at random,
    so their elements are named by position (its other coordinates are positions too).
    """
    return getattr(data, "fixed_coords", None) or {}
