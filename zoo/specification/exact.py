"""The exact posterior of a user's PyMC model: which closed form reads which part of it.

Two readers of the graph derive a reference, each refusing (never guessing) what it
does not cover:

- :mod:`zoo.specification.linear_gaussian`: Normal, MvNormal and Flat variables with
  Normal or MvNormal observations affine in them (regression, hierarchical Gaussians,
  the normal-inverse-gamma), as one joint Gaussian (or Student t) posterior;
- :mod:`zoo.specification.conjugacy`: the other conjugate pairs, variable by variable
  (Beta-Binomial, Gamma-Poisson, Dirichlet-Multinomial...).

:func:`derive_reference` splits the free variables into independent parts (variables
linked by an observation or a prior that reads both), gives every part that holds a
Normal, MvNormal or Flat variable to the first and the rest to the second, and joins
their marginals. A part either reader refuses goes to
:func:`zoo.specification.conditional.conditional_reference` with the same reader as its
inner engine: a few variables held fixed (a hierarchical scale, a noise sd under a
HalfCauchy prior, latent labels) and integrated by quadrature or enumeration.
:func:`exact_reference` is the public form (``zoo.exact_reference``):
it takes the model as ``zoo.validate`` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pymc.distributions.continuous import HalfFlatRV

from zoo.core.reference import NoReference, Reference
from zoo.diagnostics.label_invariants import Exchangeable
from zoo.specification.conditional import conditional_reference
from zoo.specification.conjugacy import conjugate_reference
from zoo.specification.conjugate_graph import NotRecognised, free_parents
from zoo.specification.graph import as_data_sets, model_parts
from zoo.specification.linear_gaussian import GAUSSIAN_OPS, linear_gaussian_reference

__all__ = ["derive_reference", "exact_reference"]


def exact_reference(model, data: Mapping | None = None):
    """The exact posterior the ``exact`` check would compare a sampler with.

    Parameters
    ----------
    model : pymc.Model, list of (str, pymc.Model), callable or str
        As ``zoo.validate`` takes it: the model with its data, several data sets of it
        as named pairs, a function returning either, or its location
        ``"package.module:function"``.
    data : mapping of str to array-like, optional
        Values replacing observed variables and ``pm.Data`` containers, by name (one
        model only). The model is never rebuilt nor changed.

    Returns
    -------
    Reference or NoReference, or dict of str to them
        The marginal posterior of every free variable (and ``Reference.joint``, the
        joint moments of correlated Gaussian variables); or a ``NoReference`` whose
        ``reason`` names the variable and what has no closed form, in the model's
        terms. For a list of data sets, one per name.

    Raises
    ------
    ValueError
        Naming the argument: not a model, a builder that fails, ``data`` naming what
        the model does not have or values that do not fit it.

    Examples
    --------
    >>> import numpy as np, pymc as pm, zoo
    >>> with pm.Model() as model:
    ...     beta = pm.Normal("beta", 0.0, 1.0, shape=2)
    ...     y = pm.Normal("y", np.ones((3, 2)) @ beta, 1.0, observed=[0.1, 0.3, 0.2])
    >>> zoo.exact_reference(model)["beta"].mean.shape
    (2,)
    """
    data_sets = as_data_sets(model, "model")
    if len(data_sets) > 1:
        if data is not None:
            raise ValueError("data: give data= with one model, not a list of data sets")
        return {name: derive_reference(pm_model) for name, pm_model in data_sets}
    return derive_reference(data_sets[0][1], data)


def derive_reference(
    model, data: Mapping | None = None, symmetry: Sequence[Exchangeable] = ()
) -> Reference | NoReference:
    """The exact posterior of a ``pymc.Model`` read from its graph, or why there is none.

    See the module docstring for how the model is split; ``data`` as in
    :func:`exact_reference`. ``symmetry``: mixtures with exchangeable components, whose
    label-invariant quantities get marginals too where their labels are enumerated
    (:func:`~zoo.specification.conditional.conditional_reference`).
    """
    parts = model_parts(model)
    if model.potentials:
        names = ", ".join(p.name or "unnamed" for p in model.potentials)
        return NoReference(f"{names}: a Potential adds a term no closed form covers")
    try:
        groups = _independent_parts(model)
    except NotRecognised as refusal:
        return NoReference(str(refusal))
    # A HalfFlat scale of known-mean Normals is the improper limit of the
    # normal-inverse-gamma, which only the linear-Gaussian reader has.
    gaussian = {
        rv.name for rv in model.free_RVs if type(rv.owner.op) in (*GAUSSIAN_OPS, HalfFlatRV)
    }
    linear = set().union(*(g for g in groups if g & gaussian))
    rest = set(parts.free) - linear
    references = []
    for names, gaussian in ((linear, True), (rest, False)):
        if not names:
            continue
        variables = names if linear and rest else None
        if gaussian:
            reference = linear_gaussian_reference(model, data, variables=variables)
        else:
            reference = conjugate_reference(model, data, variables=variables)
        refusal = reference.reason if not reference.available else None
        # the part's own reader as the inner engine first; then the pairwise rules, which
        # take what no closed form covers (a Normal under a logit link) as outer scalars
        for inner in (True, False) if gaussian else (False,):
            if reference.available:
                break
            reference = conditional_reference(
                model, data, refusal, gaussian=inner, variables=variables, symmetry=symmetry
            )
        if not reference.available:
            return reference
        references.append(reference)
    if len(references) == 1:
        return references[0]
    marginals = {name: m for r in references for name, m in r.marginals.items()}
    ordered = {name: marginals[name] for name in parts.free}
    ordered |= {name: m for name, m in marginals.items() if name not in ordered}
    coords = {d: v for r in references for d, v in r.coords.items()}
    note = "; ".join(r.note for r in references)
    return Reference(ordered, coords, note=note, joint=references[0].joint)


def _independent_parts(model) -> list[set[str]]:
    """The free variables in groups no observation or prior links to one another."""
    free = {rv: rv.name for rv in model.free_RVs}
    owner = {name: name for name in free.values()}

    def root(name):
        while owner[name] != name:
            owner[name] = owner[owner[name]]
            name = owner[name]
        return name

    def link(names):
        names = [root(n) for n in names]
        for other in names[1:]:
            owner[other] = names[0]

    for rv in (*model.free_RVs, *model.observed_RVs):
        reads = set().union(
            *(free_parents(i, free, what=rv.name) for i in rv.owner.op.dist_params(rv.owner))
        )
        if rv in free:
            reads.add(rv.name)
        link(sorted(reads))
    groups: dict[str, set[str]] = {}
    for name in free.values():
        groups.setdefault(root(name), set()).add(name)
    return list(groups.values())
