"""The exact posterior of a conjugate PyMC model, derived from its graph.

:func:`conjugate_reference` reads the graph (:mod:`zoo.specification.conjugate_graph`)
and, when every free variable's posterior is a known conjugate update with constant
hyperparameters, returns a :class:`zoo.core.reference.Reference` with one
:class:`Marginal` per free variable, in the constrained space, under the dims
:func:`zoo.specification.graph.model_parts` gives. Otherwise it returns a
:class:`NoReference` whose reason names the variable and what was not recognised: it
never guesses.

The rules, one function each, with their sources (BDA3; Murphy 2007), are in
:mod:`zoo.specification.conjugate_rules`: Beta-Bernoulli/Binomial, Gamma-Poisson (with
exposure), Gamma-Exponential, Gamma-Gamma (known shape), Normal-Normal (known variance),
InverseGamma-Normal and Gamma-Normal (known mean; variance or precision), Dirichlet-
Categorical/Multinomial, and normal-inverse-gamma (or normal-gamma) for a mean and
its variance jointly.

Every free variable may have any shape; each element is its own conjugate pair (the
observations that read it are found by indexing, ``theta[group_idx]`` included), and
several observed variables reading one parameter add their statistics. A free variable
no observation reads keeps its prior. A Dirichlet's marginals are Betas, element by
element (BDA3, section 3.4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from zoo.core.reference import NoReference, Reference
from zoo.specification.conjugate_graph import (
    Likelihood,
    NotRecognised,
    Power,
    evaluate,
    read_likelihoods,
    read_priors,
)
from zoo.specification.conjugate_rules import (
    MARGINALS,
    RULES,
    Term,
    check_power,
    initial_state,
    normal_inverse_gamma,
)
from zoo.specification.graph import model_parts

__all__ = ["conjugate_reference"]


def conjugate_reference(model, data: Mapping | None = None) -> Reference | NoReference:
    """The exact posterior of ``model`` when it is conjugate, read from its graph.

    Parameters
    ----------
    model : pymc.Model
        The model, with its observed values.
    data : mapping of str to array-like, optional
        Values replacing those of observed variables and ``pm.Data`` containers, by
        name (the model is not rebuilt, nor changed).

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
    values, replacements = _data(model, parts, data)
    if model.potentials:
        names = ", ".join(p.name or "unnamed" for p in model.potentials)
        return NoReference(f"{names}: a Potential adds a term no conjugate rule covers")
    free = {rv: rv.name for rv in model.free_RVs}
    try:
        priors, positive = read_priors(model, free, parts.shapes)
        likelihoods = read_likelihoods(model, free, parts.shapes, positive)
        plan = _plan(priors, likelihoods)
    except NotRecognised as refusal:
        return NoReference(str(refusal))
    numbers = _Numbers(priors, likelihoods, replacements)
    try:
        states, used = _update(priors, likelihoods, plan, numbers, values, parts.shapes)
    except NotRecognised as refusal:
        return NoReference(str(refusal))
    marginals = {}
    for name, prior in priors.items():
        dims = parts.dims[name]
        if prior.link is not None:
            # a Student t, formed once the variance's state is complete
            marginals[name] = states[name].marginal(states, parts.shapes[name], dims)
        else:
            marginals[name] = MARGINALS[prior.family](states[name], parts.shapes[name], dims)
    coords = {d: parts.coords[d] for m in marginals.values() for d in m.dims}
    rules = "; ".join(
        f"{name}: {', '.join(sorted(r)) or 'prior only'}" for name, r in used.items()
    )
    return Reference(marginals, coords, note=f"conjugate updates read from the graph ({rules})")


def _data(model, parts, data):
    """Observed values by observed name, and new values of the pm.Data containers."""
    data = {} if data is None else dict(data)
    known = set(parts.observed) | set(parts.data)
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(
            f"data: {', '.join(map(repr, unknown))} is neither an observed variable nor a "
            f"pm.Data container of the model ({', '.join(sorted(known))})"
        )
    shared = {var.name: var for var in model.data_vars}
    replacements = {shared[name]: data[name] for name in parts.data if name in data}
    values = {}
    for rv in model.observed_RVs:
        if rv.name in data:
            value = data[rv.name]
        else:
            # a constant, or a graph of pm.Data containers (whose new values apply)
            (value,) = evaluate([model.rvs_to_values[rv]], replacements)
        value = np.asarray(value)
        if not np.all(np.isfinite(value)):
            raise ValueError(f"data: {rv.name!r} has values that are not finite")
        values[rv.name] = value
    return values, replacements


# ---------------------------------------------------------------------------------------
# Which rule each likelihood term takes.


def _plan(priors: dict, likelihoods: list[Likelihood]) -> dict:
    """The rule of each (likelihood, slot), or NotRecognised naming the variable."""
    plan = {}
    for lik in likelihoods:
        slots = sorted(lik.terms)
        variables = {lik.terms[s].variable for s in slots}
        if len(slots) == 2 and lik.family == "Normal":
            mean, var = lik.terms["mu"].variable, lik.terms["sigma"].variable
            link = priors[mean].link
            if link is None or link.variable != var:
                raise NotRecognised(
                    f"{lik.name}: its mean reads {mean} and its sd reads {var}, but {mean}'s "
                    f"prior sd is not a scale of {var} (normal-inverse-gamma); independent "
                    "priors on a mean and a variance are not conjugate"
                )
            plan[lik.name, "mu"] = "normal-inverse-gamma"
            continue
        if len(slots) != 1:
            raise NotRecognised(
                f"{lik.name}: its parameters {', '.join(slots)} read "
                f"{', '.join(sorted(variables))}; a conjugate rule updates one parameter"
            )
        slot = slots[0]
        name = lik.terms[slot].variable
        prior = priors[name]
        if prior.link is not None:
            raise NotRecognised(
                f"{name}: its prior sd reads {prior.link.variable}, and {lik.name} reads it "
                f"as the {slot} of a {lik.family} without that variance; only "
                f"Normal(mu={name}, sigma=sqrt of {prior.link.variable}) is conjugate then"
            )
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
            name: (
                {k: add(v) for k, v in prior.params.items()},
                None if prior.link is None else add_power(prior.link),
            )
            for name, prior in priors.items()
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
        self._links = {name: p.link for name, p in priors.items() if p.link is not None}

    def prior(self, name):
        params, _ = self._priors[name]
        return {k: self._values[i] for k, i in params.items()}

    def link(self, name, what) -> Term:
        return self._term(self._links[name], self._priors[name][1], what)

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
    for name, prior in priors.items():
        if prior.link is None:
            params = {
                k: np.array(_broadcast(v, shapes[name], f"the prior of {name}"), float).ravel()
                for k, v in numbers.prior(name).items()
            }
            states[name] = initial_state(name, prior.family, params)
    joint = {name: [] for name, prior in priors.items() if prior.link is not None}
    for lik in likelihoods:
        y = values[lik.name]
        batch = y.shape[: y.ndim - lik.ndim_supp]
        flat_y = y.reshape(-1, *y.shape[len(batch) :])
        for slot in lik.terms:
            rule = plan.get((lik.name, slot))
            if rule is None:
                continue  # the sigma of a normal-inverse-gamma observation: read with mu
            term = _flat_term(numbers.term(lik.name, slot), batch, lik, slot)
            if rule == "normal-inverse-gamma":
                sigma = _flat_term(numbers.term(lik.name, "sigma"), batch, lik, "sigma")
                joint[term.variable].append((lik.name, term, sigma, flat_y))
                continue
            check_power(rule, term, lik.name, slot)
            constants = {}
            for key, value in numbers.constants(lik.name).items():
                core = value.shape[value.ndim - lik.core_ndims[key] :]
                constants[key] = _broadcast(value, batch + core, f"{lik.name}'s {key}").reshape(
                    -1, *core
                )
            rule.update(states[term.variable], flat_y, constants, term, lik.name)
            used[term.variable].add(rule.name)
    for name, observations in joint.items():
        # after every single-variable rule: the t of the mean reads the final state of
        # its variance, which other terms may also have updated
        variance = priors[name].link.variable
        shape = shapes[name]
        link = numbers.link(name, f"{name}: the prior's sigma")
        link = replace(
            link,
            coef=np.broadcast_to(link.coef, shape).ravel(),
            labels=np.broadcast_to(link.labels, shape).ravel(),
        )
        m0 = np.broadcast_to(numbers.prior(name)["mu"], shape).astype(float).ravel()
        family = priors[variance].family
        states[name] = normal_inverse_gamma(
            name, variance, family, link, m0, observations, states[variance]
        )
        used[name].add("normal-inverse-gamma")
        used[variance].add("normal-inverse-gamma")
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
