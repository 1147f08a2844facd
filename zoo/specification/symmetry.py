"""Exchangeable mixture components: found in a PyMC graph, or declared by the user.

A mixture with latent labels reads its component parameters through the labels: an
observation's parameter is ``mu[z]`` with ``z ~ Bernoulli(w)`` or ``Categorical(w)``.
Its components are exchangeable, and its posterior invariant under relabelling, when

- every component parameter is iid across components a priori: the same distribution
  with the same parameters for every component (constants equal along the component
  axis, or expressions of other variables that do not vary along it), and
- the weights are symmetric: ``w ~ Dirichlet(a, ..., a)`` or ``Beta(a, a)`` for
  Bernoulli labels, or fixed equal weights.

:func:`find_mixtures` reads every such structure and says, for each, whether it is
exchangeable and if not why; :func:`declared_mixtures` checks what a user declares
where the graph cannot show it (a prior that is symmetric through a transform the
reader does not follow). The quantities compared instead are in
:mod:`zoo.diagnostics.label_invariants`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pymc.distributions.mixture import _BaseMixtureRV
from pytensor.graph.traversal import ancestors
from pytensor.tensor.elemwise import DimShuffle
from pytensor.tensor.random import basic as rvs
from pytensor.tensor.shape import SpecifyShape
from pytensor.tensor.subtensor import AdvancedSubtensor

from zoo.diagnostics.label_invariants import Exchangeable, coassignment_pairs
from zoo.specification.conjugate_graph import NotRecognised, evaluate, free_parents
from zoo.specification.graph import ModelParts

__all__ = [
    "Mixture",
    "declared_mixtures",
    "exchangeable_mixtures",
    "find_mixtures",
    "invariant_coords",
    "model_symmetry",
    "parse",
    "unexchangeable_mixtures",
]

_LABEL_OPS = (rvs.BernoulliRV, rvs.CategoricalRV)


@dataclass(frozen=True)
class Mixture:
    """A mixture read from the graph: its variables, and whether they are exchangeable.

    Attributes
    ----------
    spec : Exchangeable
        The label, its component parameters and weights.
    exchangeable : bool
    reason : str
        Why not, when not (``"mu: its prior differs between components"``).
    """

    spec: Exchangeable
    exchangeable: bool
    reason: str = ""


def find_mixtures(model) -> list[Mixture]:
    """Every latent-label mixture of a ``pymc.Model``: labels indexing free parameters.

    A free Bernoulli or Categorical variable ``z`` is a label when an observed
    variable's parameters index a free variable with it (``mu[z]``); the free variables
    so indexed are its component parameters.
    """
    free = {rv: rv.name for rv in model.free_RVs}
    indexed: dict[str, list[str]] = {}
    for observed in model.observed_RVs:
        params = observed.owner.op.dist_params(observed.owner)
        for var in ancestors(params, blockers=list(free)):
            node = var.owner
            if node is None or not isinstance(node.op, AdvancedSubtensor):
                continue
            source, *indices = node.inputs
            if source not in free:
                continue
            for index in indices:
                if index in free and isinstance(index.owner.op, _LABEL_OPS):
                    chosen = indexed.setdefault(free[index], [])
                    if free[source] not in chosen:
                        chosen.append(free[source])
    by_name = {name: rv for rv, name in free.items()}
    mixtures = []
    for label, parameters in indexed.items():
        mixtures.append(_judge(by_name, free, label, tuple(sorted(parameters))))
    for observed in model.observed_RVs:
        if isinstance(observed.owner.op, _BaseMixtureRV):
            found = _marginal_mixture(observed, free, by_name)
            if found is not None:
                mixtures.append(found)
    return mixtures


def _marginal_mixture(observed, free, by_name) -> Mixture | None:
    """A ``pm.Mixture`` / ``pm.NormalMixture`` observation: no labels, sorted components.

    Its parameters are the mixture weights and one component distribution whose last
    axis is the components; the free variables that distribution reads, each of shape
    ``(K,)``, are the component parameters, compared sorted (the weights with them).
    """
    weights, *components = observed.owner.op.dist_params(observed.owner)
    weights = _unwrapped(weights)
    if weights not in free or len(components) != 1 or components[0].owner is None:
        return None
    component = components[0]
    parameters = []
    for param in component.owner.op.dist_params(component.owner):
        param = _unwrapped(param)
        if param in free and free[param] not in parameters:
            parameters.append(free[param])
    if not parameters:
        return None
    spec = Exchangeable((*parameters, free[weights]))
    try:
        components_count = int(evaluate([weights.shape[-1]], {})[0])
        why = _weights_asymmetric(weights, free, False, observed.name)
        for name in parameters:
            shape = tuple(int(n) for n in evaluate([by_name[name].shape], {})[0])
            if why:
                break
            if shape != (components_count,):
                why = f"{name}: shape {shape}, not one value per component"
            else:
                why = _not_iid(by_name[name], free, components_count)
    except NotRecognised as refusal:
        why = str(refusal)
    return Mixture(spec, exchangeable=not why, reason=why)


def exchangeable_mixtures(model) -> list[Exchangeable]:
    """The mixtures of ``model`` whose components the graph shows to be exchangeable."""
    return [m.spec for m in find_mixtures(model) if m.exchangeable]


def _judge(by_name, free, label: str, parameters: tuple[str, ...]) -> Mixture:
    z = by_name[label]
    binary = isinstance(z.owner.op, rvs.BernoulliRV)
    (p,) = z.owner.op.dist_params(z.owner)
    p = _unwrapped(p)
    weights = free[p] if p in free else None
    spec = Exchangeable(parameters, label=label, weights=weights, binary=binary)
    try:
        components = 2 if binary else int(evaluate([p.shape[-1]], {})[0])
        why = _weights_asymmetric(p, free, binary, label) or next(
            (
                reason
                for name in parameters
                if (reason := _not_iid(by_name[name], free, components))
            ),
            "",
        )
    except NotRecognised as refusal:
        why = str(refusal)
    return Mixture(spec, exchangeable=not why, reason=why)


def _unwrapped(var):
    """``var`` without the dims PyMC adds or asserts (``w`` as ``Bernoulli(w)`` reads it)."""
    while var.owner is not None and isinstance(var.owner.op, DimShuffle | SpecifyShape):
        var = var.owner.inputs[0]
    return var


def _weights_asymmetric(p, free, binary: bool, label: str) -> str:
    """Why the labels' weights are not symmetric, or ``""`` when they are."""
    if p in free:
        rv = p
        op = rv.owner.op
        params = op.dist_params(rv.owner)
        if binary and isinstance(op, rvs.BetaRV):
            what = f"{rv.name} ~ Beta"
        elif not binary and isinstance(op, rvs.DirichletRV):
            what = f"{rv.name} ~ Dirichlet"
        else:
            kind = type(op).__name__.removesuffix("RV")
            return (
                f"{label}'s weights {rv.name} have a {kind} prior, not a symmetric Beta or "
                "Dirichlet"
            )
        if any(free_parents(q, free, what=rv.name) for q in params):
            return f"{what}: its concentrations are not constants"
        values = [np.asarray(v, float).ravel() for v in evaluate(params, {})]
        flat = np.concatenate(values)
        if not np.all(flat == flat[0]):
            return f"{what} has unequal concentrations {np.round(flat, 6).tolist()}"
        return ""
    if free_parents(p, free, what=label):
        return (
            f"{label}'s probabilities are an expression of free variables, not read as symmetric"
        )
    (value,) = evaluate([p], {})
    value = np.asarray(value, float)
    if binary and not np.all(value == 0.5):
        return f"{label} ~ Bernoulli({value.tolist()}): unequal fixed weights"
    if not binary and not np.all(value == value.reshape(-1)[0]):
        return f"{label}'s fixed weights are unequal"
    return ""


def _not_iid(rv, free, components: int) -> str:
    """Why ``rv``'s components are not iid a priori, or ``""`` when they are."""
    name = rv.name
    shape = tuple(int(n) for n in evaluate([rv.shape], {})[0])
    if not shape or shape[0] != components:
        return f"{name}: its first axis is not the {components} components"
    op = rv.owner.op
    params = op.dist_params(rv.owner)
    supp = op.ndim_supp
    batch_ndim = len(shape) - supp
    if batch_ndim < 1:
        return f"{name}: its components are one multivariate draw, not iid"
    constants, expressions = [], []
    for q, core in zip(params, op.ndims_params, strict=True):
        (constants if not free_parents(q, free, what=name) else expressions).append((q, core))
    for q, core in expressions:
        # an expression of other variables is the same for every component only when it
        # is broadcast along the component axis
        q_batch = q.type.ndim - core
        axis = q_batch - batch_ndim
        if axis >= 0 and q.type.shape[axis] != 1:
            return f"{name}: a parameter of its prior varies along the component axis"
    values = evaluate([q for q, _ in constants], {})
    for (_, core), value in zip(constants, values, strict=True):
        value = np.asarray(value)
        core_shape = value.shape[value.ndim - core :] if core else ()
        full = np.broadcast_to(value, shape[:batch_ndim] + core_shape)
        if not np.all(full == full[:1]):
            return f"{name}: its prior differs between components"
    return ""


def parse(entry, field: str = "exchangeable") -> tuple[tuple[str, ...], str | None, str | None]:
    """A declaration ``"mu,sigma:z:w"`` or an :class:`Exchangeable`, as its names.

    The text form is the component parameters (comma-separated), then optionally the
    label variable and the weights, colon-separated: ``"mu:z"``, ``"mu,sigma:z:w"``,
    ``"mu,sigma"`` (no labels: compared sorted).

    Raises
    ------
    ValueError
        Naming ``field``, for anything else.
    """
    if isinstance(entry, Exchangeable):
        return tuple(entry.parameters), entry.label, entry.weights
    if not isinstance(entry, str):
        raise ValueError(
            f"{field}: each entry must be 'PARAMS[:LABEL[:WEIGHTS]]' (e.g. 'mu,sigma:z:w') "
            f"or an Exchangeable, got {type(entry).__name__}"
        )
    pieces = entry.split(":")
    if len(pieces) > 3 or any(not p.strip() for p in pieces):
        raise ValueError(
            f"{field}: {entry!r} must be 'PARAMS[:LABEL[:WEIGHTS]]', e.g. 'mu,sigma:z:w'"
        )
    parameters = tuple(p.strip() for p in pieces[0].split(","))
    if any(not p for p in parameters):
        raise ValueError(f"{field}: {entry!r} has an empty parameter name")
    label = pieces[1].strip() if len(pieces) > 1 else None
    weights = pieces[2].strip() if len(pieces) > 2 else None
    return parameters, label, weights


def declared_mixtures(
    model, parts: ModelParts, declared: Sequence, field: str = "exchangeable"
) -> list[Exchangeable]:
    """The user's declarations, checked against the model.

    Rules: every name a free variable of the model; the parameters' first axes all the
    same length ``K``, the number of components; the label an integer free variable
    (Bernoulli labels mean ``K = 2`` and a scalar weight); the weights of shape ``(K,)``,
    or ``()`` with Bernoulli labels; no variable in two declarations.

    Raises
    ------
    ValueError
        Naming ``field`` and the rule broken.
    """
    if isinstance(declared, str | Exchangeable):
        declared = [declared]
    if not isinstance(declared, Sequence):
        raise ValueError(
            f"{field}: must be a list of 'PARAMS[:LABEL[:WEIGHTS]]' or an Exchangeable, "
            f"got {type(declared).__name__}"
        )
    by_name = {rv.name: rv for rv in model.free_RVs}
    seen: set[str] = set()
    specs = []
    for entry in declared:
        parameters, label, weights = parse(entry, field)
        names = list(Exchangeable(parameters, label, weights).variables)
        unknown = [n for n in names if n not in by_name]
        if unknown:
            raise ValueError(
                f"{field}: {unknown} are not free variables of the model "
                f"(free: {', '.join(parts.free)})"
            )
        again = sorted(seen.intersection(names))
        if again or len(set(names)) != len(names):
            raise ValueError(
                f"{field}: a variable may be in one declaration once; {again or names}"
            )
        seen.update(names)
        sizes = {n: parts.shapes[n][0] if parts.shapes[n] else None for n in parameters}
        if None in sizes.values() or len(set(sizes.values())) != 1:
            raise ValueError(
                f"{field}: the parameters' first axes must all be the components, of one "
                f"length; shapes {[parts.shapes[n] for n in parameters]}"
            )
        components = next(iter(sizes.values()))
        binary = False
        if label is not None:
            if label not in parts.discrete:
                raise ValueError(f"{field}: the label {label!r} must be an integer free variable")
            binary = isinstance(by_name[label].owner.op, rvs.BernoulliRV)
            if binary and components != 2:
                raise ValueError(
                    f"{field}: {label!r} is Bernoulli, so there are 2 components; the "
                    f"parameters have {components}"
                )
        if weights is not None:
            if label is None:
                raise ValueError(
                    f"{field}: weights need a label variable ('PARAMS:LABEL:WEIGHTS')"
                )
            wanted = () if binary else (components,)
            if parts.shapes[weights] != wanted:
                raise ValueError(
                    f"{field}: the weights {weights!r} must have shape {wanted}, got "
                    f"{parts.shapes[weights]}"
                )
        specs.append(Exchangeable(parameters, label=label, weights=weights, binary=binary))
    return specs


def model_symmetry(model, parts: ModelParts, declared=None, field: str = "exchangeable"):
    """The exchangeable mixtures the checks use: found in the graph, plus declared.

    ``declared`` None: the graph's alone; False: none (the raw variables compared);
    otherwise a list for :func:`declared_mixtures`, each entry replacing a found mixture
    that shares a variable with it.
    """
    if declared is False:
        return ()
    if declared is not None and declared is not True:
        chosen = declared_mixtures(model, parts, declared, field)
    else:
        chosen = []
    taken = {n for spec in chosen for n in spec.variables}
    found = [spec for spec in exchangeable_mixtures(model) if not taken & set(spec.variables)]
    return tuple(found + chosen)


def unexchangeable_mixtures(model, symmetry: Sequence[Exchangeable]) -> tuple[Mixture, ...]:
    """The graph's mixtures that are compared raw: not shown exchangeable, nor declared."""
    covered = {n for spec in symmetry for n in spec.variables}
    return tuple(
        m
        for m in find_mixtures(model)
        if not m.exchangeable and not covered & set(m.spec.variables)
    )


def invariant_coords(spec: Exchangeable, parts: ModelParts) -> dict[str, np.ndarray]:
    """Coordinates of the invariant quantities' new dims: ``z_pair`` as ``"i-j"``.

    The pairs are named by the label's coordinate values (positions for a label of
    several dims).
    """
    if spec.label is None:
        return {}
    dims = parts.dims[spec.label]
    size = int(np.prod(parts.shapes[spec.label], dtype=int))
    names = parts.coords[dims[0]] if len(dims) == 1 else np.arange(size)
    pairs = coassignment_pairs(size)
    return {f"{spec.label}_pair": np.array([f"{names[i]}-{names[j]}" for i, j in pairs])}
