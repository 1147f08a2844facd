"""The conjugate rules as an inner engine: evidence and conditionals given outer values.

An *inner engine* integrates some free variables (the inner ones) out of a PyMC model
in closed form, given values of the others (the outer ones, held fixed). Its protocol,
:class:`InnerEngine`, is what :mod:`zoo.specification.conditional` builds exact
references on by quadrature and enumeration over the outer variables:

- ``inner`` and ``outer``: the names of the variables it integrates and holds fixed;
  ``absorbed``: the outer variables whose own distribution reads inner variables
  (latent labels ``z ~ Categorical(w)``), whose density it includes;
- ``condition(outer_values)`` with, per outer name, an array of shape ``(B, *shape)``
  (``B`` values of the outer variables, jointly) returns a :class:`Conditional`: for
  each of the ``B`` values the log evidence ``log p(y, absorbed | other outer)`` (every
  observation's density, with the inner variables integrated out and every normalising
  constant kept) and each inner variable's conditional posterior as a scipy frozen
  distribution whose parameters have shape ``(B, *shape)``.

An engine is built once per model and data: it reads the graph with the outer
variables as inputs (:func:`zoo.specification.conjugate_graph.compile_values`, compiled
once; the graph is never rebuilt) and refuses with :class:`NotRecognised`, naming the
variable, what it cannot integrate. :class:`ConjugateRules` is the engine of the
conjugate pairs of :mod:`zoo.specification.conjugate_rules`; with no outer variable it
is the plain conjugate posterior of :func:`zoo.specification.conjugacy.conjugate_reference`.
Another engine (a joint linear-Gaussian one) plugs in by offering the same three
attributes and ``condition``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np
from pymc.logprob.basic import logp
from pytensor.graph.traversal import ancestors

from zoo.specification.conjugate_graph import (
    Likelihood,
    NotRecognised,
    Power,
    compile_values,
    evaluate,
    free_parents,
    read_likelihoods,
    read_priors,
)
from zoo.specification.conjugate_rules import (
    FROZEN,
    LOG_NORMALISER_CHANGES,
    RULES,
    StudentT,
    Term,
    check_power,
    initial_state,
    normal_inverse_gamma,
    student_t,
)
from zoo.specification.graph import ModelParts

__all__ = ["Conditional", "ConjugateRules", "InnerEngine", "model_data"]


@dataclass(frozen=True)
class Conditional:
    """An inner engine's answer for ``B`` values of the outer variables.

    Attributes
    ----------
    log_evidence : ndarray, shape (B,)
        ``log p(y, absorbed | outer)`` with the inner variables integrated out.
    marginals : dict of str to scipy frozen distribution
        Each inner variable's conditional posterior, parameters of shape ``(B, *shape)``.
    rules : dict of str to set of str
        The rules each inner variable was updated by (for the reference's note).
    """

    log_evidence: np.ndarray
    marginals: dict
    rules: dict


class InnerEngine(Protocol):
    """What the quadrature and enumeration layer needs of an inner engine."""

    inner: tuple[str, ...]
    outer: tuple[str, ...]
    absorbed: tuple[str, ...]

    def condition(self, outer_values: Mapping[str, np.ndarray]) -> Conditional:
        """Evidence and inner conditionals for ``B`` joint values of the outer variables."""


def model_data(model, parts: ModelParts, data: Mapping | None):
    """Observed values by observed name, and new values of the pm.Data containers.

    Raises
    ------
    ValueError
        For a name the model does not have, or values that are not finite.
    """
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


class ConjugateRules:
    """The conjugate rules as an :class:`InnerEngine`.

    Parameters
    ----------
    model : pymc.Model
    parts : ModelParts
        :func:`zoo.specification.graph.model_parts` of ``model``.
    values, replacements : dict
        :func:`model_data`: observed values and new ``pm.Data`` values.
    outer : sequence of str
        Free variables held fixed (may be empty).

    Raises
    ------
    NotRecognised
        Naming the variable, when the variables not held fixed are not all in
        conjugate pairs with constant (given the outer ones) hyperparameters.
    """

    def __init__(self, model, parts: ModelParts, values, replacements, outer=()):
        if model.potentials:
            names = ", ".join(p.name or "unnamed" for p in model.potentials)
            raise NotRecognised(f"{names}: a Potential adds a term no conjugate rule covers")
        self.outer = tuple(outer)
        held = {rv: rv.name for rv in model.free_RVs if rv.name in self.outer}
        free = {rv: rv.name for rv in model.free_RVs if rv.name not in self.outer}
        self.inner = tuple(free.values())
        self._shapes = parts.shapes
        # An outer variable whose distribution reads inner ones is data for them.
        pseudo = [
            rv
            for rv in held
            if any(
                free_parents(i, free, what=rv.name, given=held)
                for i in rv.owner.op.dist_params(rv.owner)
            )
        ]
        self.absorbed = tuple(rv.name for rv in pseudo)
        self._priors, positive = read_priors(model, free, parts.shapes, given=held)
        self._likelihoods = read_likelihoods(
            model, free, parts.shapes, positive, given=held, pseudo=pseudo
        )
        self._plan = _plan(self._priors, self._likelihoods)
        self._values = values
        # Observations that read no inner variable but outer ones: their density is
        # part of the evidence, which varies with the outer values.
        reading = {lik.name for lik in self._likelihoods}
        direct = [
            logp(rv, np.asarray(values[rv.name])).sum()
            for rv in model.observed_RVs
            if rv.name not in reading
            and any(var in held for var in ancestors(rv.owner.inputs, blockers=list(held)))
        ]
        self._layout = _Layout(self._priors, self._likelihoods, direct)
        self._function = compile_values(self._layout.expressions, replacements, list(held))
        self._held = list(held.values())

    def condition(self, outer_values: Mapping[str, np.ndarray]) -> Conditional:
        """Evidence and conditionals for ``B`` joint outer values (see the module)."""
        arrays = [np.asarray(outer_values[name]) for name in self._held]
        count = len(arrays[0]) if arrays else 1
        evidence = np.empty(count)
        conditionals = {name: [] for name in self._priors}
        rules = {}
        for b in range(count):
            held = [array[b] for array in arrays]
            numbers = _Numbers(self._layout, self._function(*held))
            values = dict(self._values)
            values.update(
                (name, np.asarray(array[b]))
                for name, array in zip(self._held, arrays, strict=True)
                if name in self.absorbed
            )
            evidence[b], parameters, rules = _update(
                self._priors, self._likelihoods, self._plan, numbers, values, self._shapes
            )
            for name, flat in parameters.items():
                conditionals[name].append(flat)
        marginals = {}
        for name, per_value in conditionals.items():
            stacked = {k: np.stack([p[k] for p in per_value]) for k in per_value[0]}
            shape = (count, *self._shapes[name])
            if self._priors[name].link is not None:
                marginals[name] = student_t(stacked, shape)
            else:
                marginals[name] = FROZEN[self._priors[name].family](stacked, shape)
        return Conditional(evidence, marginals, rules)


# ---------------------------------------------------------------------------------------
# Which rule each likelihood term takes.


def _plan(priors: dict, likelihoods: list[Likelihood]) -> dict:
    """The rule of each (likelihood piece, slot), or NotRecognised naming the variable."""
    plan = {}
    for index, lik in enumerate(likelihoods):
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
            plan[index, "mu"] = "normal-inverse-gamma"
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
        plan[index, slot] = rule
    return plan


# ---------------------------------------------------------------------------------------
# Numbers: everything the rules need, evaluated in one compiled function.


class _Layout:
    """Where each prior parameter, likelihood constant and term label sits in the outputs."""

    def __init__(self, priors, likelihoods, direct):
        self.expressions = []

        def add(expression):
            self.expressions.append(expression)
            return len(self.expressions) - 1

        def add_power(power: Power):
            return (add(power.coef), add(power.labels), [add(c) for c in power.checks])

        self.priors = {
            name: (
                {k: add(v) for k, v in prior.params.items()},
                None if prior.link is None else add_power(prior.link),
            )
            for name, prior in priors.items()
        }
        self.likelihoods = [
            (
                {k: add(v) for k, v in lik.constants.items()},
                {k: add_power(v) for k, v in lik.terms.items()},
                None if lik.where is None else add(lik.where),
            )
            for lik in likelihoods
        ]
        self.direct = [add(e) for e in direct]
        self.powers = {
            (index, slot): power
            for index, lik in enumerate(likelihoods)
            for slot, power in lik.terms.items()
        }
        self.links = {name: p.link for name, p in priors.items() if p.link is not None}


class _Numbers:
    """The numbers of one evaluation of a :class:`_Layout`."""

    def __init__(self, layout: _Layout, values: list):
        self._layout, self._values = layout, values

    def prior(self, name):
        params, _ = self._layout.priors[name]
        return {k: self._values[i] for k, i in params.items()}

    def link(self, name, what) -> Term:
        return self._term(self._layout.links[name], self._layout.priors[name][1], what)

    def constants(self, index):
        return {k: self._values[i] for k, i in self._layout.likelihoods[index][0].items()}

    def where(self, index):
        position = self._layout.likelihoods[index][2]
        return None if position is None else self._values[position]

    def direct(self) -> float:
        return float(sum(self._values[i] for i in self._layout.direct))

    def term(self, index, name, slot) -> Term:
        what = f"{name}: its {slot}"
        indices = self._layout.likelihoods[index][1][slot]
        return self._term(self._layout.powers[index, slot], indices, what)

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
    """Log evidence, the posterior marginal of every variable, and the rules used.

    The evidence is ``log Z(posterior) - log Z(prior)`` summed over the variables, plus
    each observation's base measure, plus the normal-inverse-gamma means' share and the
    densities of observations that read only outer variables
    (:mod:`zoo.specification.conjugate_rules`).
    """
    states, used = {}, {name: set() for name in priors}
    evidence = numbers.direct()
    for name, prior in priors.items():
        if prior.link is None:
            params = {
                k: np.array(_broadcast(v, shapes[name], f"the prior of {name}"), float).ravel()
                for k, v in numbers.prior(name).items()
            }
            states[name] = initial_state(name, prior.family, params)
    initial = {name: {k: v.copy() for k, v in state.items()} for name, state in states.items()}
    joint = {name: [] for name, prior in priors.items() if prior.link is not None}
    for index, lik in enumerate(likelihoods):
        y = values[lik.name]
        batch = y.shape[: y.ndim - lik.ndim_supp]
        flat_y = y.reshape(-1, *y.shape[len(batch) :])
        rows = _rows(numbers.where(index), batch, lik)
        for slot in lik.terms:
            rule = plan.get((index, slot))
            if rule is None:
                continue  # the sigma of a normal-inverse-gamma observation: read with mu
            term = _flat_term(numbers.term(index, lik.name, slot), batch, lik, slot, rows)
            if rule == "normal-inverse-gamma":
                sigma = numbers.term(index, lik.name, "sigma")
                sigma = _flat_term(sigma, batch, lik, "sigma", rows)
                joint[term.variable].append((lik.name, term, sigma, flat_y[rows]))
                continue
            check_power(rule, term, lik.name, slot)
            constants = {}
            for key, value in numbers.constants(index).items():
                core = value.shape[value.ndim - lik.core_ndims[key] :]
                constants[key] = _broadcast(value, batch + core, f"{lik.name}'s {key}").reshape(
                    -1, *core
                )[rows]
            rule.update(states[term.variable], flat_y[rows], constants, term, lik.name)
            evidence += float(np.sum(rule.log_base(flat_y[rows], constants, term)))
            used[term.variable].add(rule.name)
    marginals = {}
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
        marginals[name] = normal_inverse_gamma(
            name, variance, family, link, m0, observations, states[variance]
        )
        evidence += float(np.sum(marginals[name].log_evidence))
        used[name].add("normal-inverse-gamma")
        used[variance].add("normal-inverse-gamma")
    for name, prior in priors.items():
        if prior.link is None:
            core = shapes[name][-1] if prior.core_ndim else 1
            change = LOG_NORMALISER_CHANGES[prior.family](initial[name], states[name], core)
            evidence += float(np.sum(change))
    # flat parameters, frozen once for the whole batch (freezing a scipy distribution
    # costs more than the update itself)
    parameters = {
        name: marginals[name].parameters(states)
        if isinstance(marginals.get(name), StudentT)
        else states[name]
        for name in priors
    }
    return evidence, parameters, used


def _rows(where, batch, lik):
    """The observations (flat rows) a likelihood piece covers: all, or its switch's."""
    if where is None:
        return slice(None)
    where = np.asarray(where)
    core = where.ndim - lik.core_ndims[next(iter(lik.terms))]
    mask = _broadcast(where, batch + where.shape[core:], f"{lik.name}'s switch")
    return mask.reshape(int(np.prod(batch, dtype=int)), -1)[:, 0]


def _flat_term(term: Term, batch: tuple, lik: Likelihood, slot: str, rows) -> Term:
    """The term broadcast to the observations, one row per observation (of ``rows``)."""
    core = term.labels.shape[term.labels.ndim - lik.core_ndims[slot] :]
    what = f"{lik.name}'s {slot}"
    return replace(
        term,
        coef=_broadcast(term.coef, batch + core, what).reshape(-1, *core)[rows],
        labels=_broadcast(term.labels, batch + core, what).reshape(-1, *core)[rows],
    )
