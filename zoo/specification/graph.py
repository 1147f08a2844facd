"""What the zoo reads from a user's PyMC model: its variables, data and dims.

The zoo's checks talk to a model through names: the free random variables a sampler
must return (constrained space, under their PyMC names and dims), the observed
variables and ``pm.Data`` containers a sampler is given, and the coordinates of every
dim. :func:`model_parts` reads them once and refuses, naming the variable, what the
battery cannot work with.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zoo.core.loading import load_object

__all__ = ["RESERVED_NAMES", "ModelParts", "as_data_sets", "model_parts", "observed_values"]

#: Names the battery's output uses itself: a variable or dim named so would collide
#: with the (chain, draw) axes of every draw, or with the log-likelihood test quantity.
RESERVED_NAMES = ("chain", "draw", "log_likelihood")


@dataclass(frozen=True)
class ModelParts:
    """The names and shapes of a PyMC model, as the battery uses them.

    Attributes
    ----------
    free : tuple of str
        Free random variables, in the model's order: what a sampler returns.
    observed : tuple of str
        Observed random variables: the data a check swaps.
    data : tuple of str
        ``pm.Data`` containers: covariates and designs, given to the sampler, fixed.
    dims : dict of str to tuple of str
        Dims of each free variable: the model's own, or ``{name}_dim_{i}`` as PyMC
        names them when it has none.
    shapes : dict of str to tuple of int
        Shape of one draw of each free variable.
    coords : dict of str to ndarray
        Coordinate values of every dim in ``dims`` and ``value_dims``.
    value_dims : dict of str to tuple of str
        Dims of each observed variable and ``pm.Data`` container, named by the same
        rule.
    discrete : tuple of str
        The free variables with integer support.
    """

    free: tuple[str, ...]
    observed: tuple[str, ...]
    data: tuple[str, ...]
    dims: dict[str, tuple[str, ...]]
    shapes: dict[str, tuple[int, ...]]
    coords: dict[str, np.ndarray]
    discrete: tuple[str, ...]
    value_dims: dict[str, tuple[str, ...]]


def _is_pymc_model(value) -> bool:
    # deferred: importing PyMC takes seconds; callers that never meet a model skip it
    import pymc as pm

    return isinstance(value, pm.Model)


def model_parts(model, *, field: str = "model") -> ModelParts:
    """Read the names, dims and shapes of ``model``, or raise saying what is wrong.

    Raises
    ------
    ValueError
        Naming ``field``, when ``model`` is not a ``pymc.Model``, has no free or no
        observed variable, or uses a reserved name (:data:`RESERVED_NAMES`). (PyMC
        itself refuses a dim named like a variable.)
    """
    if not _is_pymc_model(model):
        raise ValueError(f"{field}: expected a pymc.Model, got {type(model).__name__}")
    free = tuple(rv.name for rv in model.free_RVs)
    observed = tuple(rv.name for rv in model.observed_RVs)
    data = tuple(var.name for var in model.data_vars)
    if not observed:
        raise ValueError(
            f"{field}: the model has no observed variable; give the data to check on as "
            "observed=... of a likelihood term"
        )
    if not free:
        raise ValueError(f"{field}: the model has no free random variable to sample")
    shapes = _free_shapes(model)
    coords = {}

    def dims_of(name: str, shape: tuple[int, ...]) -> tuple[str, ...]:
        own = model.named_vars_to_dims.get(name)
        if own is None or len(own) != len(shape) or any(d is None for d in own):
            own = tuple(f"{name}_dim_{i}" for i in range(len(shape)))
        for dim, size in zip(own, shape, strict=True):
            values = model.coords.get(dim)
            coords[dim] = np.arange(size) if values is None else np.asarray(values)
        return tuple(own)

    dims = {name: dims_of(name, shapes[name]) for name in free}
    value_dims = {
        name: dims_of(name, np.shape(value)) for name, value in observed_values(model).items()
    }
    for name in (*free, *observed, *data, *coords):
        if name in RESERVED_NAMES:
            raise ValueError(
                f"{field}: {name!r} is reserved by the zoo's output "
                f"({', '.join(RESERVED_NAMES)}); rename it"
            )
    discrete = tuple(rv.name for rv in model.free_RVs if rv.type.dtype.startswith(("int", "uint")))
    return ModelParts(free, observed, data, dims, shapes, coords, discrete, value_dims)


def _free_shapes(model) -> dict[str, tuple[int, ...]]:
    """Shape of one draw of each free variable, read without compiling where possible.

    A shape the graph knows statically (``rv.type.shape``, fixed when the model was
    built) is taken as it is; the others are evaluated together, in one function
    rewritten as PyTensor rewrites any (shape inference included) and run by its
    Python linker. ``rv.shape.eval()`` per variable compiled one Numba function each
    (about 30 ms with a warm cache, several hundred cold), every time a model was read.
    """
    # deferred: PyTensor takes seconds to import
    import pytensor
    from pytensor.compile.mode import Mode

    shapes, unknown = {}, []
    for rv in model.free_RVs:
        if all(size is not None for size in rv.type.shape):
            shapes[rv.name] = tuple(int(size) for size in rv.type.shape)
        else:
            unknown.append(rv)
    if unknown:
        mode = Mode(linker="py", optimizer="fast_run")
        evaluate = pytensor.function([], [rv.shape for rv in unknown], mode=mode)
        for rv, shape in zip(unknown, evaluate(), strict=True):
            shapes[rv.name] = tuple(int(size) for size in shape)
    return {rv.name: shapes[rv.name] for rv in model.free_RVs}


def observed_values(model) -> dict[str, np.ndarray]:
    """The model's data by name: observed values, then ``pm.Data`` values (copies)."""
    values = {}
    for rv in model.observed_RVs:
        values[rv.name] = _value_of(model.rvs_to_values[rv])
    for var in model.data_vars:
        values[var.name] = _value_of(var)
    return values


def _value_of(variable) -> np.ndarray:
    if hasattr(variable, "get_value"):
        return np.array(variable.get_value(), copy=True)
    if hasattr(variable, "data"):
        return np.array(variable.data, copy=True)
    return np.array(variable.eval(), copy=True)


def as_data_sets(value, field: str) -> list[tuple[str, object]]:
    """``value`` (a model, a list of (name, model), or a builder of either) as a list."""
    # deferred: PyMC takes seconds to import
    import pymc as pm

    if isinstance(value, str):
        value = load_object(value, field=field)
    if callable(value) and not isinstance(value, pm.Model):
        builder = value
        try:
            value = builder()
        except Exception as error:
            raise ValueError(
                f"{field}: calling {getattr(builder, '__qualname__', builder)!r}() raised "
                f"{type(error).__name__}: {error}"
            ) from error
    if isinstance(value, pm.Model):
        return [("data", value)]
    if isinstance(value, list | tuple) and value:
        sets = []
        for item in value:
            if (
                not isinstance(item, list | tuple)
                or len(item) != 2
                or not isinstance(item[0], str)
                or not isinstance(item[1], pm.Model)
            ):
                raise ValueError(
                    f"{field}: a list must hold (name, pymc.Model) pairs; got {item!r:.80}"
                )
            sets.append((item[0], item[1]))
        names = [name for name, _ in sets]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"{field}: data set names must differ; repeated {repeated}")
        return sets
    raise ValueError(
        f"{field}: expected a pymc.Model, a list of (name, pymc.Model), or a function "
        f"returning one; got {type(value).__name__}"
    )
