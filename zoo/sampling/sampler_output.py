"""A sampler's output, checked against the model's variables.

A sampler is any callable ``sampler(data, prior, *, draws, chains, seed)`` returning an
``xarray.DataTree`` (with a ``posterior`` group), an ``xarray.Dataset`` or a dict of
arrays whose leading axes are ``(chain, draw)``, holding the model's variables under
their names (``zoo list`` and docs/models.md give them per model). ``seed`` is an integer;
the same seed must give the same draws. Variables the model derives from others
(:class:`zoo.core.contract.DerivedVariables`: LDA's ``doc_word`` and ``coassignment``)
may be left out; they are computed here from the draws.

:func:`checked_draws` turns that output into a Dataset with the model's dims and
coordinates, or raises :class:`SamplerOutputError` saying what was expected. Two layers
meet draws the zoo did not make itself: the validation battery (a user's sampler) and
the saved runs ``zoo report`` reads (a file may be damaged or edited), so the check
lives below both; the diagnostics receive draws already checked.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import xarray as xr

from zoo.core.contract import Model

__all__ = ["NonFiniteDraws", "SamplerOutputError", "checked_draws"]


class SamplerOutputError(ValueError):
    """The sampler's output does not have the variables, shapes or values expected."""


class NonFiniteDraws(SamplerOutputError):
    """The output has the expected form but holds NaN or infinite values.

    A fault of the draws rather than of the form: it may happen on one data set only.
    """


def checked_draws(
    output,
    model: Model,
    data,
    prior,
    *,
    chains: int | None = None,
    draws: int | None = None,
    field: str = "sampler output",
) -> xr.Dataset:
    """The sampler's output as a Dataset with the model's dims and coordinates.

    ``field`` starts every message (what the draws are: a sampler's output, a group of
    a saved file).

    Raises
    ------
    SamplerOutputError
        When the output is of the wrong type, lacks a variable, has the wrong dims or
        shape per draw, the wrong number of chains or draws, or NaN / infinite values.
    """
    expected = dict(model.variables(prior))
    sizes = {dim: len(values) for dim, values in data.coords.items()}
    wanted = ", ".join(
        f"{name}{('(chain, draw, ' + ', '.join(dims) + ')') if dims else '(chain, draw)'}"
        for name, dims in expected.items()
    )
    if isinstance(output, xr.DataTree):
        if "posterior" not in output.children:
            raise SamplerOutputError(
                f"{field}: a DataTree needs a 'posterior' group; it has "
                f"{sorted(output.children)}. Expected variables: {wanted}"
            )
        output = output["posterior"].to_dataset()
    if isinstance(output, xr.Dataset):
        arrays = {name: output[name] for name in output.data_vars}
    elif isinstance(output, Mapping):
        arrays = dict(output)
    else:
        raise SamplerOutputError(
            f"{field}: expected an xarray.DataTree, an xarray.Dataset or a dict of "
            f"arrays with leading (chain, draw) axes, got {type(output).__name__}. "
            f"Expected variables: {wanted}"
        )
    derived = _derivable(model, expected, arrays)
    missing = [name for name in expected if name not in arrays and name not in derived]
    if missing:
        optional = ""
        if model.derived is not None:
            optional = (
                f" ({', '.join(model.derived.names)} may be left out: the zoo computes them "
                f"from {', '.join(model.derived.inputs)})"
            )
        raise SamplerOutputError(
            f"{field}: missing variable(s) {missing}; got {sorted(map(str, arrays))}. "
            f"Expected variables: {wanted}{optional}"
        )
    variables = {}
    shape_seen = None
    for name, dims in expected.items():
        if name in derived:
            continue
        value = _checked_values(field, name, arrays[name], dims, sizes)
        shape_seen = _same_leading(field, name, value, shape_seen)
        variables[name] = (("chain", "draw", *dims), value)
    if derived:
        inputs = {name: variables[name][1] for name in model.derived.inputs}
        try:
            computed = model.derived.compute(data, prior, inputs)
        except ValueError as error:
            raise SamplerOutputError(f"{field}: {error}") from None
        for name in derived:
            value = _checked_values(field, name, computed[name], expected[name], sizes)
            variables[name] = (("chain", "draw", *expected[name]), value)
    if chains is not None and shape_seen[0] != chains:
        raise SamplerOutputError(f"{field}: {shape_seen[0]} chain(s); {chains} were asked for")
    if draws is not None and shape_seen[1] != draws:
        raise SamplerOutputError(f"{field}: {shape_seen[1]} draws; {draws} were asked for")
    coords = {d: data.coords[d] for dims in expected.values() for d in dims}
    coords |= {"chain": np.arange(shape_seen[0]), "draw": np.arange(shape_seen[1])}
    return xr.Dataset(variables, coords=coords)


def _derivable(model: Model, expected, arrays) -> tuple[str, ...]:
    """The model's derived variables the output leaves out and the zoo can compute."""
    derived = model.derived
    if derived is None or not all(name in arrays for name in derived.inputs):
        return ()
    return tuple(name for name in derived.names if name in expected and name not in arrays)


def _checked_values(field: str, name: str, value, dims: tuple[str, ...], sizes) -> np.ndarray:
    """One variable's draws as a float array ``(chain, draw, *shape)``, or an error."""
    shape = tuple(sizes[d] for d in dims)
    if isinstance(value, xr.DataArray):
        own = tuple(d for d in value.dims if d not in ("chain", "draw"))
        if value.dims[:2] != ("chain", "draw"):
            raise SamplerOutputError(
                f"{field}: {name} has dims {value.dims}; expected "
                f"('chain', 'draw', {', '.join(map(repr, dims))})"
            )
        if set(own) == set(dims):
            value = value.transpose("chain", "draw", *dims)
        elif own and not set(own) <= {f"{name}_dim_{i}" for i in range(len(dims))}:
            raise SamplerOutputError(
                f"{field}: {name} has dims {value.dims}; expected "
                f"('chain', 'draw'{''.join(', ' + repr(d) for d in dims)})"
            )
        value = value.values
    if np.iscomplexobj(value):
        # float() of a complex array keeps the real part with only a warning.
        raise SamplerOutputError(f"{field}: {name} is complex; expected real numbers")
    try:
        value = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as error:
        raise SamplerOutputError(f"{field}: {name} is not numeric: {error}") from None
    if value.ndim < 2 or value.shape[2:] != shape:
        raise SamplerOutputError(
            f"{field}: {name} has shape {value.shape}; expected (chain, draw"
            f"{''.join(f', {n}' for n in shape)}) with dims (chain, draw"
            f"{''.join(', ' + d for d in dims)})"
        )
    if not np.all(np.isfinite(value)):
        bad = int(np.count_nonzero(~np.isfinite(value)))
        raise NonFiniteDraws(f"{field}: {name} has {bad} NaN or infinite value(s) of {value.size}")
    return value


def _same_leading(field: str, name: str, value: np.ndarray, seen):
    """``(chain, draw)`` of ``value``, which must match the other variables' ``seen``."""
    if seen is not None and value.shape[:2] != seen:
        raise SamplerOutputError(
            f"{field}: {name} has {value.shape[:2]} (chain, draw) but other variables have {seen}"
        )
    return value.shape[:2]
