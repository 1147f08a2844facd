"""The exact posterior of a conjugate PyMC model, derived from its graph, pair by pair.

:func:`conjugate_reference` reads the graph (:mod:`zoo.specification.conjugate_graph`)
and, when every free variable's posterior is a known conjugate update with constant
hyperparameters, returns a :class:`zoo.core.reference.Reference` with one
:class:`Marginal` per free variable, in the constrained space, under the dims
:func:`zoo.specification.graph.model_parts` gives. Otherwise it returns a
:class:`NoReference` whose reason names the variable and what was not recognised: it
never guesses.

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
from dataclasses import replace

import numpy as np

from zoo.core.reference import NoReference, Reference
from zoo.specification.conjugate_graph import (
    Likelihood,
    NotRecognised,
    Power,
    evaluate,
    free_parents,
    read_data,
    read_likelihoods,
    read_priors,
)
from zoo.specification.conjugate_rules import (
    MARGINALS,
    RULES,
    Term,
    check_power,
    initial_state,
)
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
    if model.potentials:
        names = ", ".join(p.name or "unnamed" for p in model.potentials)
        return NoReference(f"{names}: a Potential adds a term no conjugate rule covers")
    free = {rv: rv.name for rv in model.free_RVs if variables is None or rv.name in variables}
    observed = None
    if variables is not None:
        every = {rv: rv.name for rv in model.free_RVs}
        observed = [
            rv
            for rv in model.observed_RVs
            if any(
                free_parents(i, every, what=rv.name) & set(free.values()) for i in rv.owner.inputs
            )
        ]
    try:
        priors, positive = read_priors(model, free, parts.shapes)
        likelihoods = read_likelihoods(model, free, parts.shapes, positive, observed)
        plan = _plan(priors, likelihoods)
    except NotRecognised as refusal:
        return NoReference(str(refusal))
    numbers = _Numbers(priors, likelihoods, replacements)
    try:
        states, used = _update(priors, likelihoods, plan, numbers, values, parts.shapes)
    except NotRecognised as refusal:
        return NoReference(str(refusal))
    marginals = {
        name: MARGINALS[prior.family](states[name], parts.shapes[name], parts.dims[name])
        for name, prior in priors.items()
    }
    coords = {d: parts.coords[d] for m in marginals.values() for d in m.dims}
    rules = "; ".join(
        f"{name}: {', '.join(sorted(r)) or 'prior only'}" for name, r in used.items()
    )
    return Reference(marginals, coords, note=f"conjugate updates read from the graph ({rules})")


# ---------------------------------------------------------------------------------------
# Which rule each likelihood term takes.


def _plan(priors: dict, likelihoods: list[Likelihood]) -> dict:
    """The rule of each (likelihood, slot), or NotRecognised naming the variable."""
    plan = {}
    for lik in likelihoods:
        slots = sorted(lik.terms)
        variables = {lik.terms[s].variable for s in slots}
        if len(slots) != 1:
            raise NotRecognised(
                f"{lik.name}: its parameters {', '.join(slots)} read "
                f"{', '.join(sorted(variables))}; a conjugate rule updates one parameter"
            )
        slot = slots[0]
        name = lik.terms[slot].variable
        prior = priors[name]
        rule = RULES.get((prior.family, lik.family, slot))
        if rule is None:
            raise NotRecognised(
                f"{name}: a {prior.family} prior with {lik.name} ~ {lik.family} reading it as "
                f"{slot} is not a conjugate pair the zoo knows"
            )
        plan[lik.name, slot] = rule
    return plan


# ---------------------------------------------------------------------------------------
# Numbers: everything the rules need, evaluated in one compiled function.


class _Numbers:
    """Evaluates prior parameters, likelihood constants and term labels at once."""

    def __init__(self, priors, likelihoods, replacements):
        expressions = []

        def add(expression):
            expressions.append(expression)
            return len(expressions) - 1

        def add_power(power: Power):
            return (add(power.coef), add(power.labels), [add(c) for c in power.checks])

        self._priors = {
            name: {k: add(v) for k, v in prior.params.items()} for name, prior in priors.items()
        }
        self._likelihoods = {
            lik.name: (
                {k: add(v) for k, v in lik.constants.items()},
                {k: add_power(v) for k, v in lik.terms.items()},
            )
            for lik in likelihoods
        }
        self._values = evaluate(expressions, replacements)
        self._powers = {
            (lik.name, slot): power for lik in likelihoods for slot, power in lik.terms.items()
        }

    def prior(self, name):
        return {k: self._values[i] for k, i in self._priors[name].items()}

    def constants(self, name):
        return {k: self._values[i] for k, i in self._likelihoods[name][0].items()}

    def term(self, name, slot) -> Term:
        what = f"{name}: its {slot}"
        return self._term(self._powers[name, slot], self._likelihoods[name][1][slot], what)

    def _term(self, power, indices, what) -> Term:
        coef, labels, checks = indices
        if not all(bool(self._values[c]) for c in checks):
            raise NotRecognised(f"{what} multiplies different elements of {power.variable}")
        return Term(power.variable, power.power, self._values[coef], self._values[labels])


def _broadcast(array, shape, what):
    try:
        return np.broadcast_to(array, shape)
    except ValueError:
        raise ValueError(
            f"data: {what} has shape {np.shape(array)}, which does not broadcast to the "
            f"data's {shape}"
        ) from None


# ---------------------------------------------------------------------------------------
# The updates.


def _update(priors, likelihoods, plan, numbers, values, shapes):
    """Posterior states of all variables, and the rules used on each."""
    states, used = {}, {name: set() for name in priors}
    for name in priors:
        params = {
            k: np.array(_broadcast(v, shapes[name], f"the prior of {name}"), float).ravel()
            for k, v in numbers.prior(name).items()
        }
        states[name] = initial_state(name, priors[name].family, params)
    for lik in likelihoods:
        y = values[lik.name]
        batch = y.shape[: y.ndim - lik.ndim_supp]
        flat_y = y.reshape(-1, *y.shape[len(batch) :])
        for slot in lik.terms:
            rule = plan[lik.name, slot]
            term = _flat_term(numbers.term(lik.name, slot), batch, lik, slot)
            check_power(rule, term, lik.name, slot)
            constants = {}
            for key, value in numbers.constants(lik.name).items():
                core = value.shape[value.ndim - lik.core_ndims[key] :]
                constants[key] = _broadcast(value, batch + core, f"{lik.name}'s {key}").reshape(
                    -1, *core
                )
            rule.update(states[term.variable], flat_y, constants, term, lik.name)
            used[term.variable].add(rule.name)
    return states, used


def _flat_term(term: Term, batch: tuple, lik: Likelihood, slot: str) -> Term:
    """The term broadcast to the observations, one row per observation."""
    core = term.labels.shape[term.labels.ndim - lik.core_ndims[slot] :]
    what = f"{lik.name}'s {slot}"
    return replace(
        term,
        coef=_broadcast(term.coef, batch + core, what).reshape(-1, *core),
        labels=_broadcast(term.labels, batch + core, what).reshape(-1, *core),
    )
