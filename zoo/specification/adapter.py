"""A user's PyMC model as a :class:`zoo.Model`, so the whole battery applies to it.

The PyMC program is the specification: the free random variables are what a sampler
must return, the observed variables the data it is given, the graph the prior it is
checked against. :func:`specified_model` turns one model, or several data sets of one
model, into a :class:`~zoo.core.contract.Model` whose

- ``simulate`` draws from the prior predictive (compiled once,
  :class:`~zoo.specification.forward.Specification`);
- ``posterior`` is the exact posterior derived from the graph when it has a closed form
  (:func:`zoo.specification.exact.derive_reference`), or the user's own
  ``reference(data)``;
- ``program`` is the user's model with other data swapped in (``pm.observe``,
  ``pm.set_data`` on a copy);
- ``log_likelihood`` sums the observed variables' log densities;
- ``augment`` appends a replicate of the observations, drawn given the parameters at
  the same design, along the observed variables' first dim (posterior SBC);
- ``kernel_checks`` lets Geweke's test and the invariance check run a user's kernel
  whose state is the dict of free variables.

The user's sampler and kernel take ``data`` as a plain dict and no prior (the prior is
in the graph); :class:`DataOnlySampler` and :func:`data_only_kernel` adapt them to the
zoo's protocols, which pass ``(data, prior)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from zoo.core.contract import CannotAugment, DerivedVariables, Kernel, KernelChecks, Model
from zoo.core.reference import NoReference, Reference
from zoo.diagnostics.label_invariants import (
    Exchangeable,
    invariant_dims,
    invariant_draws,
    invariant_names,
)
from zoo.specification.forward import Specification
from zoo.specification.graph import as_data_sets
from zoo.specification.symmetry import (
    Mixture,
    invariant_coords,
    model_symmetry,
    unexchangeable_mixtures,
)

__all__ = [
    "FIXED",
    "DataOnlySampler",
    "FixedPrior",
    "SpecifiedData",
    "data_only_kernel",
    "exchangeable_note",
    "label_switching_note",
    "model_digest",
    "model_symmetry_of",
    "specified_model",
    "unsimulable",
]


@dataclass(frozen=True)
class FixedPrior:
    """The prior of a PyMC-specified model: fixed in its graph, nothing to set."""


#: The one prior of every PyMC-specified model.
FIXED = FixedPrior()


def _read_only(values: Mapping) -> Mapping[str, np.ndarray]:
    arrays = {}
    for name, value in values.items():
        array = np.array(value, copy=True)
        array.flags.writeable = False
        arrays[name] = array
    return MappingProxyType(arrays)


@dataclass(frozen=True, eq=False)
class SpecifiedData:
    """One data set of a PyMC-specified model.

    Attributes
    ----------
    values : mapping of str to ndarray
        Observed variables and ``pm.Data`` containers by name (read-only copies).
    coords : mapping of str to ndarray
        Coordinates of the free variables' dims.
    design : int
        Which of the user's models (data sets) this one has the design of: its
        covariates, sizes and compiled functions.
    pieces : tuple of SpecifiedData
        For a data set joined from several of that design (posterior SBC's augmented
        data), the parts: its log-likelihood is theirs summed, each computed by the
        design's compiled function (the observations are independent given the
        parameters). Empty for a data set of the design itself.
    """

    values: Mapping[str, np.ndarray]
    coords: Mapping[str, np.ndarray]
    design: int = 0
    observed: tuple[str, ...] = ()
    dims: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    pieces: tuple[SpecifiedData, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "values", _read_only(self.values))
        object.__setattr__(self, "coords", MappingProxyType(dict(self.coords)))
        object.__setattr__(self, "observed", tuple(self.observed))
        object.__setattr__(self, "dims", MappingProxyType(dict(self.dims)))
        object.__setattr__(self, "pieces", tuple(self.pieces))

    @property
    def observed_data(self) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
        """Observed variables as ``{name: (values, dims)}``: a DataTree's observed_data."""
        return {n: (self.values[n], self.dims.get(n, ())) for n in self.observed}

    @property
    def constant_data(self) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
        """``pm.Data`` containers as ``{name: (values, dims)}``: its constant_data."""
        return {
            n: (v, self.dims.get(n, ())) for n, v in self.values.items() if n not in self.observed
        }

    @property
    def fixed_coords(self) -> Mapping[str, np.ndarray]:
        """Coordinates every simulated data set shares: the model's own (for labels)."""
        return self.coords

    def replaced(self, values: Mapping[str, np.ndarray]) -> SpecifiedData:
        """The same design with some values replaced (simulated data)."""
        if self.pieces:
            raise ValueError("data: a joined data set has no design to replace values in")
        return SpecifiedData(
            {**self.values, **values}, self.coords, self.design, self.observed, self.dims
        )

    def as_dict(self) -> dict[str, np.ndarray]:
        """The values as a new dict of writable arrays: what a user's sampler receives."""
        return {name: np.array(value, copy=True) for name, value in self.values.items()}

    def __reduce__(self):
        fields = (
            dict(self.values),
            dict(self.coords),
            self.design,
            self.observed,
            dict(self.dims),
            self.pieces,
        )
        return (SpecifiedData, fields)


class DataOnlySampler:
    """A user's ``sampler(data, *, draws, chains, seed)`` in the zoo's sampler protocol.

    The zoo calls ``sampler(data, prior, ...)``; a PyMC-specified model has its prior in
    the graph, so the user's function gets only the data, as a plain dict. Reports name
    the user's function.
    """

    def __init__(self, function: Callable):
        self.function = function
        self.__module__ = getattr(function, "__module__", type(function).__module__)
        self.__qualname__ = getattr(function, "__qualname__", type(function).__qualname__)

    def __call__(self, data: SpecifiedData, prior, *, draws: int, chains: int, seed: int):
        """Call the user's function with the data as a plain dict and no prior."""
        return self.function(data.as_dict(), draws=draws, chains=chains, seed=seed)

    def __reduce__(self):
        return (DataOnlySampler, (self.function,))


@dataclass(frozen=True)
class _DataOnlyPart:
    """One of a user's kernel functions, called without the prior and with a plain dict."""

    function: Callable
    takes_state: bool

    def __post_init__(self):
        # Reports name the user's function, not this adapter.
        for attribute in ("__module__", "__qualname__"):
            value = getattr(self.function, attribute, None)
            if value is not None:
                object.__setattr__(self, attribute, value)

    def __call__(self, *args):
        # Called once per sweep: the data go as the read-only arrays they are (a copy
        # per sweep would cost more than many a sweep), in a new dict.
        if self.takes_state:
            state, data, _prior, rng = args
            return self.function(state, dict(data.values), rng)
        data, _prior, rng = args
        return self.function(dict(data.values), rng)


def data_only_kernel(kernel) -> Kernel:
    """A user's kernel for a PyMC-specified model, in the zoo's :class:`Kernel` protocol.

    The user writes ``init(data, rng)``, ``step(state, data, rng)`` and
    ``draw(state, data, rng)``, with ``data`` a dict of read-only arrays and the state a
    dict of the free variables; the zoo's driver and kernel checks pass the prior as
    well.
    """
    missing = [
        part for part in ("init", "step", "draw") if not callable(getattr(kernel, part, None))
    ]
    if missing:
        raise ValueError(f"kernel: needs callable init, step and draw; missing {missing}")
    return Kernel(
        init=_DataOnlyPart(kernel.init, takes_state=False),
        step=_DataOnlyPart(kernel.step, takes_state=True),
        draw=_DataOnlyPart(kernel.draw, takes_state=True),
    )


@dataclass(frozen=True, eq=False)
class _SpecifiedParts:
    """The functions of a PyMC-specified Model, bound to its data sets (picklable)."""

    specifications: tuple[Specification, ...]
    names: tuple[str, ...]
    reference: Callable | None = None
    symmetry: tuple[Exchangeable, ...] = ()
    #: The graph's mixtures compared raw (not shown exchangeable, not declared).
    raw_mixtures: tuple[Mixture, ...] = ()
    problems: tuple[SpecifiedData, ...] = field(init=False)

    def __post_init__(self):
        problems = tuple(
            SpecifiedData(
                spec.values,
                {
                    **spec.parts.coords,
                    **{
                        k: v
                        for mixture in self.symmetry
                        for k, v in invariant_coords(mixture, spec.parts).items()
                    },
                },
                design=index,
                observed=spec.parts.observed,
                dims=spec.parts.value_dims,
            )
            for index, spec in enumerate(self.specifications)
        )
        object.__setattr__(self, "problems", problems)

    @property
    def first(self) -> Specification:
        return self.specifications[0]

    def _specification(self, data) -> Specification:
        if not isinstance(data, SpecifiedData):
            raise ValueError(f"data: expected a SpecifiedData, got {type(data).__name__}")
        return self.specifications[data.design]

    # Model fields ------------------------------------------------------------------
    def simulate(self, prior, rng, **size):
        if size:
            raise ValueError(
                f"size: a PyMC-specified model keeps the design of its data set; got {size}"
            )
        spec = self.first
        reasons = spec.unsimulable()
        if reasons:
            raise ValueError(f"model: cannot simulate from the prior: {'; '.join(reasons)}")
        truth, observed = spec.simulate(rng)
        return truth | self.invariants(truth, lead=0), self.problems[0].replaced(observed)

    def invariants(self, draws, *, lead: int = 2) -> dict[str, np.ndarray]:
        """The label-invariant quantities of every exchangeable mixture of ``draws``."""
        out = {}
        for mixture in self.symmetry:
            out |= invariant_draws(mixture, draws, lead=lead)
        return out

    def derived_invariants(self, data, prior, draws) -> dict[str, np.ndarray]:
        """``DerivedVariables.compute``: the invariants of ``(chain, draw, ...)`` draws."""
        return self.invariants(draws)

    def comparable(self, prior) -> list[str]:
        """The variables outside every exchangeable mixture, then its invariants."""
        inside = {n for m in self.symmetry for n in m.variables}
        kept = [n for n in self.first.parts.free if n not in inside]
        return kept + [n for m in self.symmetry for n in invariant_names(m)]

    def posterior(self, data, prior):
        if self.reference is not None:
            reference = self.reference(data.as_dict())
            if not isinstance(reference, Reference | NoReference):
                raise ValueError(
                    "reference: must return a zoo.Reference of zoo.Marginal (or a "
                    f"zoo.NoReference), got {type(reference).__name__}"
                )
            return reference
        # deferred: reading a graph for an exact posterior is needed only by the exact check
        from zoo.specification.exact import derive_reference

        return derive_reference(
            self._specification(data).model, dict(data.values), symmetry=self.symmetry
        )

    def program(self, data, prior):
        # deferred: PyMC takes seconds to import
        import pymc as pm

        spec = self._specification(data)
        if data.pieces:
            raise ValueError(
                "data: the PyMC engine fits the user's model at its own design; a data "
                "set with observations appended (posterior SBC) has another"
            )
        observed = {name: data.values[name] for name in spec.parts.observed}
        # pm.observe returns a new model (the user's stays as it was); set_data then
        # changes the containers of that copy only.
        model = pm.observe(spec.model, observed)
        containers = {name: data.values[name] for name in spec.parts.data}
        if containers:
            with model:
                pm.set_data(containers)
        return model

    def default_problem(self):
        return self.problems[0], FIXED

    def variables(self, prior):
        dims = dict(self.first.parts.dims)
        for mixture in self.symmetry:
            dims |= invariant_dims(mixture, self.first.parts.dims)
        return dims

    def simulation_setup(self):
        return FIXED, {}

    def log_likelihood(self, data, params) -> float:
        spec = self._specification(data)
        if data.pieces:
            return sum(spec.log_likelihood(piece.values, params) for piece in data.pieces)
        return spec.log_likelihood(data.values, params)

    def augment(self, data, params, prior, rng):
        """``data`` and a replicate of its observations drawn given ``params``, joined.

        The replicate is drawn at the same design (``Specification.redraw``: the
        observed variables from ``p(y | params)``, the ``pm.Data`` containers as they
        are) and appended along each observed variable's first dim; a container whose
        first dim is one of those is repeated with it, so each new observation keeps
        its covariates. Raises :class:`CannotAugment` when the data have no such axis.
        """
        spec = self._specification(data)
        axes = _observation_axes(data, self.first.parts.dims)
        new = data.replaced(spec.redraw(params, rng))
        values = {}
        for name, value in data.values.items():
            dims = data.dims.get(name, ())
            repeats = name in data.observed or (dims and dims[0] in axes)
            values[name] = np.concatenate([value, new.values[name]]) if repeats else value
        coords = dict(data.coords)
        for axis in axes:
            if axis in coords:
                coords[axis] = np.arange(2 * len(coords[axis]))
        return SpecifiedData(
            values, coords, data.design, data.observed, data.dims, pieces=(data, new)
        )

    def validation_problems(self):
        return [(name, data, FIXED) for name, data in zip(self.names, self.problems, strict=True)]

    # Kernel checks: the state of a user's kernel is the dict of free variables, so
    # the "latents" the checks carry between data sets are those variables themselves.
    def latents(self, params, data, prior, rng):
        return {name: np.array(params[name], copy=True) for name in self.first.parts.free}

    def redraw(self, params, latents, data, prior, rng):
        spec = self._specification(data)
        return data.replaced(spec.redraw(params, rng))

    def state(self, latents, data, prior):
        return {name: np.array(value, copy=True) for name, value in latents.items()}

    def read(self, state, data):
        missing = [name for name in self.first.parts.free if name not in state]
        if missing:
            raise ValueError(
                f"kernel: its state must be a dict holding every free variable; missing {missing}"
            )
        return {name: np.asarray(state[name]) for name in self.first.parts.free}

    def kernel_setup(self):
        return FIXED, {}


def specified_model(
    model,
    *,
    kernel=None,
    reference: Callable | None = None,
    name: str | None = None,
    field: str = "model",
    exchangeable=None,
) -> Model:
    """A user's PyMC model as a :class:`zoo.Model`.

    Parameters
    ----------
    model : pymc.Model, list of (str, pymc.Model), callable or str
        The model with its data in observed variables; several data sets of the same
        model as named pairs; a function returning either; or such a function's
        location ``"package.module:function"``.
    kernel : object with init, step, draw, optional
        The user's Gibbs kernel (see :func:`data_only_kernel`); sets ``Model.kernel``
        and the kernel checks.
    reference : callable, optional
        ``reference(data) -> zoo.Reference``: the exact posterior for a data dict, when
        the conjugacy the zoo derives from the graph does not cover the model.
    name : str, optional
        How reports name the model (default: the builder's name, or ``"pymc-model"``).
    exchangeable : list of str or Exchangeable, or False, optional
        Mixtures whose components are exchangeable, beyond those the graph shows
        (:mod:`zoo.specification.symmetry`): each ``"PARAMS[:LABEL[:WEIGHTS]]"``
        (``"mu,sigma:z:w"``) or a
        :class:`~zoo.diagnostics.label_invariants.Exchangeable`. False compares the raw
        variables even where the graph shows exchangeable components. Where components
        are exchangeable, every check compares the label-invariant quantities
        (:mod:`zoo.diagnostics.label_invariants`) instead of the mixture's variables.

    Raises
    ------
    ValueError
        Naming ``field``: for anything but the forms above, a model without observed or
        free variables, reserved or colliding names, or data sets whose free variables
        differ in name, dims or shape.
    """
    if reference is not None and not callable(reference):
        raise ValueError(f"reference: must be callable, got {type(reference).__name__}")
    if name is None and isinstance(model, str):
        name = model
    elif name is None:
        name = getattr(model, "__qualname__", None) if callable(model) else None
        name = name if isinstance(name, str) and not name.startswith("<") else "pymc-model"
    data_sets = as_data_sets(model, field)
    specifications = tuple(
        Specification(pm_model, field=f"{field} ({label})") for label, pm_model in data_sets
    )
    first = specifications[0].parts
    for (label, _), spec in zip(data_sets[1:], specifications[1:], strict=True):
        if (spec.parts.free, spec.parts.dims) != (first.free, first.dims) or any(
            spec.parts.shapes[n] != first.shapes[n] for n in first.free
        ):
            raise ValueError(
                f"{field}: data set {label!r} has free variables "
                f"{dict(spec.parts.shapes)} (dims {spec.parts.dims}); the first has "
                f"{dict(first.shapes)} (dims {first.dims}): one model, several data sets"
            )
    symmetry = model_symmetry(data_sets[0][1], first, exchangeable)
    parts = _SpecifiedParts(
        specifications,
        tuple(label for label, _ in data_sets),
        reference,
        symmetry,
        unexchangeable_mixtures(data_sets[0][1], symmetry),
    )
    wrapped = data_only_kernel(kernel) if kernel is not None else None
    checks = None
    if wrapped is not None:
        checks = KernelChecks(
            latents=parts.latents,
            redraw=parts.redraw,
            state=parts.state,
            read=parts.read,
            setup=parts.kernel_setup,
            # The latents are the free variables themselves: their moments are the
            # test functions already.
            variables=(),
        )
    return Model(
        name=name,
        Prior=FixedPrior,
        Data=SpecifiedData,
        simulate=parts.simulate,
        posterior=parts.posterior,
        program=parts.program,
        kernel=wrapped,
        default_problem=parts.default_problem,
        variables=parts.variables,
        simulation_setup=parts.simulation_setup,
        summary=f"a PyMC model with free variables {', '.join(first.free)}",
        log_likelihood=parts.log_likelihood,
        validation_problems=parts.validation_problems,
        kernel_checks=checks,
        comparable=parts.comparable if symmetry else None,
        derived=_derived(parts) if symmetry else None,
        augment=parts.augment,
    )


def _derived(parts: _SpecifiedParts) -> DerivedVariables:
    """The invariants as variables the zoo computes from a sampler's draws."""
    names = tuple(n for m in parts.symmetry for n in invariant_names(m))
    inputs = tuple(dict.fromkeys(n for m in parts.symmetry for n in m.variables))
    return DerivedVariables(names, inputs, parts.derived_invariants)


def model_symmetry_of(model: Model) -> tuple[Exchangeable, ...]:
    """The exchangeable mixtures a PyMC-specified model is compared under (none else)."""
    parts = _parts_of(model)
    return () if parts is None else parts.symmetry


def exchangeable_note(model: Model) -> str | None:
    """What the output says when components are exchangeable, or None."""
    symmetry = model_symmetry_of(model)
    if not symmetry:
        return None
    return "; ".join(
        f"{m.describe()} are exchangeable: comparing label-invariant quantities "
        f"({', '.join(invariant_names(m))})"
        for m in symmetry
    )


def _observation_axes(data: SpecifiedData, free_dims: Mapping) -> set[str]:
    """The observed variables' first dims: the axes new observations are appended along.

    Raises
    ------
    CannotAugment
        For a scalar observed variable, observed variables without dim names beside
        ``pm.Data`` containers (which containers run along the observations cannot be
        told), a container that has an observation dim other than first, or a free
        variable with an observation dim (new observations would bring new variables).
    """
    leave_out = "or leave posterior-sbc out of the checks"
    axes = set()
    for name in data.observed:
        value, dims = data.values[name], data.dims.get(name, ())
        if np.ndim(value) == 0:
            raise CannotAugment(
                f"{name} is one scalar observation: there is no axis to append new "
                "observations along",
                f"observe the repeated observations as a vector (dims=('obs',)), {leave_out}",
            )
        if not dims:
            if len(data.values) > len(data.observed):
                raise CannotAugment(
                    f"{name} has no dim names, so which pm.Data containers run along its "
                    "observations cannot be told",
                    f"give {name} and the containers indexed by observation the same first "
                    f"dim (dims=('obs', ...)), {leave_out}",
                )
            continue
        axes.add(dims[0])
    for name, dims in data.dims.items():
        if name in data.observed:
            continue
        inner = [dim for dim in dims[1:] if dim in axes]
        if inner:
            raise CannotAugment(
                f"pm.Data {name!r} has the observation dim {inner[0]!r} but not first",
                f"put the observations' dim first in {name}'s dims, {leave_out}",
            )
    for name, dims in free_dims.items():
        shared = [dim for dim in dims if dim in axes]
        if shared:
            raise CannotAugment(
                f"free variable {name!r} has one value per observation (dim {shared[0]!r}): "
                "new observations would bring new variables",
                f"marginalise {name} out of the PyMC model, {leave_out}",
            )
    return axes


def _parts_of(model: Model) -> _SpecifiedParts | None:
    parts = getattr(model.simulate, "__self__", None)
    return parts if isinstance(parts, _SpecifiedParts) else None


def model_digest(model: Model) -> str | None:
    """SHA-256 (16 hex digits) of a PyMC-specified model: its formulas and its data.

    What stored SBC results are keyed on besides the sampler's source: an edited prior or
    data set makes them another model's. None for a zoo model (its version names it).
    """
    parts = _parts_of(model)
    if parts is None:
        return None
    digest = hashlib.sha256()
    for name, spec in zip(parts.names, parts.specifications, strict=True):
        digest.update(name.encode())
        digest.update(spec.model.str_repr().encode())
        for key, value in sorted(spec.values.items()):
            digest.update(key.encode())
            digest.update(np.ascontiguousarray(value).tobytes())
    return digest.hexdigest()[:16]


def unsimulable(model: Model) -> list[str]:
    """Why a PyMC-specified ``model`` cannot be simulated (empty for a zoo model)."""
    parts = _parts_of(model)
    return [] if parts is None else parts.first.unsimulable()


def label_switching_note(model: Model, findings) -> str | None:
    """What to say when SBC's ranks of a raw mixture's variables are too spread.

    A rank sd above uniform's (a U shape) on the components or labels of a mixture that
    was compared raw is what a sampler that keeps one labelling shows when the
    components are in fact exchangeable: the truth sits in either labelling, the draws
    in one. Nothing is wrong with such a sampler; declaring the symmetry compares what
    it can be judged on. None when no finding is of that kind.
    """
    parts = _parts_of(model)
    if parts is None:
        return None
    notes = []
    for mixture in parts.raw_mixtures:
        names = mixture.spec.variables
        wide = [
            f.quantity
            for f in findings
            if f.statistic == "rank sd"
            and f.estimate > f.reference
            and f.quantity.split("[")[0] in names
        ]
        if not wide:
            continue
        spec = mixture.spec
        declaration = ",".join(spec.parameters) + f":{spec.label}"
        declaration += f":{spec.weights}" if spec.weights else ""
        notes.append(
            f"label switching? rank sd too wide on {len(wide)} quantit"
            f"{'y' if len(wide) == 1 else 'ies'} of the {spec.describe()} "
            f"({', '.join(wide[:3])}{', ...' if len(wide) > 3 else ''}): a sampler that "
            "keeps one labelling of exchangeable components is right, yet its raw "
            "components cannot be ranked; if the components are exchangeable, declare it "
            f"(exchangeable=[{declaration!r}], --exchangeable {declaration}) to compare "
            f"label-invariant quantities (the graph does not show it: {mixture.reason})"
        )
    return "; ".join(notes) or None
