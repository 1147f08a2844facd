"""The exact posterior of a conjugate PyMC model, derived from its graph, pair by pair.

:func:`conjugate_reference` reads the graph (:mod:`zoo.specification.conjugate_graph`)
and, when every free variable's posterior is a known conjugate update with constant
hyperparameters, returns a :class:`zoo.core.reference.Reference` with one
:class:`Marginal` per free variable, in the constrained space, under the dims
:func:`zoo.specification.graph.model_parts` gives. Otherwise it returns a
:class:`NoReference` whose reason names the variable and what was not recognised: it
never guesses.

When the plain rules refuse, :func:`zoo.specification.exact.derive_reference` tries
:func:`zoo.specification.conditional.conditional_reference`: holding a few variables
fixed (at most two continuous scalars, integrated by quadrature, and bounded discrete
variables, enumerated) so that the rest is conjugate given them.

The rules, one function each, with their sources (BDA3; Murphy 2007), are in
:mod:`zoo.specification.conjugate_rules`: Beta-Bernoulli/Binomial, Gamma-Poisson (with
exposure), Gamma-Exponential, Gamma-Gamma (known shape), InverseGamma-Normal and
Gamma-Normal (known mean; variance or precision), Dirichlet-Categorical/Multinomial.
Normal, MvNormal and Flat variables are read jointly by
:mod:`zoo.specification.linear_gaussian`; :func:`zoo.specification.exact.exact_reference`
chooses between the two, part by part of the model.

Every free variable may have any shape; each element is its own conjugate pair (the
observations that read it are found by indexing, ``theta[group_idx]`` included), and
several observed variables reading one parameter add their statistics. A free variable
no observation reads keeps its prior. A Dirichlet's marginals are Betas, element by
element (BDA3, section 3.4).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from zoo.core.reference import NoReference, Reference
from zoo.specification.conjugate_engine import ConjugateRules
from zoo.specification.conjugate_graph import NotRecognised, read_data
from zoo.specification.conjugate_rules import finite_marginal
from zoo.specification.graph import model_parts

__all__ = ["conjugate_reference"]


def conjugate_reference(
    model, data: Mapping | None = None, variables: Collection[str] | None = None
) -> Reference | NoReference:
    """The exact posterior of ``model`` when it is conjugate, read from its graph.

    Parameters
    ----------
    model : pymc.Model
        The model, with its observed values.
    data : mapping of str to array-like, optional
        Values replacing those of observed variables and ``pm.Data`` containers, by
        name (the model is not rebuilt, nor changed).
    variables : collection of str, optional
        Only these free variables and the observed variables that read them (a part of
        the model independent of the rest, :func:`zoo.specification.exact.exact_reference`);
        default all.

    Returns
    -------
    Reference or NoReference
        One :class:`Marginal` per free variable (constrained space, the model's dims or
        ``{name}_dim_{i}``), or the reason no rule applies, naming the variable.

    Raises
    ------
    ValueError
        For a ``data`` name the model does not have, values that do not fit the
        model's shapes, or data outside the likelihood's support (a Bernoulli 2).
    """
    parts = model_parts(model)
    values, replacements = read_data(model, parts, data)
    try:
        engine = ConjugateRules(model, parts, values, replacements, variables=variables)
        conditional = engine.condition({})
    except NotRecognised as refusal:
        return NoReference(str(refusal))
    marginals = {
        name: finite_marginal(_first(frozen), parts.dims[name])
        for name, frozen in conditional.marginals.items()
    }
    coords = {d: parts.coords[d] for m in marginals.values() for d in m.dims}
    rules = "; ".join(
        f"{name}: {', '.join(sorted(r)) or 'prior only'}" for name, r in conditional.rules.items()
    )
    return Reference(marginals, coords, note=f"conjugate updates read from the graph ({rules})")


def _first(frozen):
    """The distribution of the only outer value (none held fixed): index 0 of each parameter."""
    args = [a[0] for a in frozen.args]
    kwds = {k: v[0] for k, v in frozen.kwds.items()}
    return frozen.dist(*args, **kwds)
