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
    free_parents,
    read_likelihoods,
    read_priors,
)
from zoo.specification.conjugate_rules import (
    FROZEN,
    LOG_NORMALISER_CHANGES,
    RULES,
    Term,
    check_power,
    initial_state,
)
from zoo.specification.graph import ModelParts

__all__ = ["BLOCK", "Conditional", "ConjugateRules", "InnerEngine"]

#: Outer values updated in one stacked update (bounds the memory of an enumeration).
BLOCK = 4096


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
    description: str  # what integrates the inner variables, for the reference's note

    def condition(self, outer_values: Mapping[str, np.ndarray]) -> Conditional:
        """Evidence and inner conditionals for ``B`` joint values of the outer variables."""


class ConjugateRules:
    """The conjugate rules as an :class:`InnerEngine`.

    Parameters
    ----------
    model : pymc.Model
    parts : ModelParts
        :func:`zoo.specification.graph.model_parts` of ``model``.
    values, replacements : dict
        :func:`zoo.specification.conjugate_graph.read_data`: observed values and new
        ``pm.Data`` values.
    outer : sequence of str
        Free variables held fixed (may be empty).
    variables : collection of str, optional
        Only these free variables (not held fixed) and the observations that read them;
        default every free variable not held fixed.
    direct : bool
        Whether the evidence includes the observations that read outer variables only
        (False when another engine beside this one counts them:
        :class:`~zoo.specification.gaussian_engine.LinearGaussianEngine` does).

    Raises
    ------
    NotRecognised
        Naming the variable, when the variables not held fixed are not all in
        conjugate pairs with constant (given the outer ones) hyperparameters.
    """

    description = "conjugate updates read from the graph"

    def __init__(
        self,
        model,
        parts: ModelParts,
        values,
        replacements,
        outer=(),
        variables=None,
        direct=True,
    ):
        if model.potentials:
            names = ", ".join(p.name or "unnamed" for p in model.potentials)
            raise NotRecognised(f"{names}: a Potential adds a term no conjugate rule covers")
        self.outer = tuple(outer)
        held = {rv: rv.name for rv in model.free_RVs if rv.name in self.outer}
        free = {
            rv: rv.name
            for rv in model.free_RVs
            if rv.name not in self.outer and (variables is None or rv.name in variables)
        }
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
        observed = None
        if variables is not None:
            # only the observations of this part of the model (the rest is another engine's)
            every = {rv: rv.name for rv in model.free_RVs}
            observed = [
                rv
                for rv in model.observed_RVs
                if any(
                    free_parents(i, every, what=rv.name) & set(free.values())
                    for i in rv.owner.inputs
                )
            ]
        self._likelihoods = read_likelihoods(
            model, free, parts.shapes, positive, given=held, pseudo=pseudo, observed=observed
        )
        self._plan = _plan(self._priors, self._likelihoods)
        self._values = values
        # Observations that read no inner variable but outer ones: their density is
        # part of the evidence, which varies with the outer values.
        reading = {lik.name for lik in self._likelihoods}
        direct = [
            logp(rv, np.asarray(values[rv.name])).sum()
            for rv in model.observed_RVs
            if direct
            and rv.name not in reading
            and any(var in held for var in ancestors(rv.owner.inputs, blockers=list(held)))
        ]
        self._layout = _Layout(self._priors, self._likelihoods, direct)
        self._function = compile_values(self._layout.expressions, replacements, list(held))
        self._held = list(held.values())
        # Latent labels (absorbed) change only the pseudo-observations, not the priors'
        # parameters nor the factors: then every value's update is one stacked update.
        self._shared_numbers = not set(held) & set(ancestors(self._layout.expressions))

    def _update(self, numbers, values, count: int):
        """:func:`_update` of ``count`` problems that differ in the absorbed values."""
        return _update(
            self._priors,
            self._likelihoods,
            self._plan,
            numbers,
            values,
            self._shapes,
            count=count,
            batched=self.absorbed,
        )

    def condition(self, outer_values: Mapping[str, np.ndarray]) -> Conditional:
        """Evidence and conditionals for ``B`` joint outer values (see the module).

        When the graph's numbers do not depend on the outer values (only absorbed
        pseudo-observations change, as latent labels do) the ``B`` updates are one
        stacked update per block of :data:`BLOCK` values (:func:`_update`); otherwise
        one update per value.
        """
        arrays = [np.asarray(outer_values[name]) for name in self._held]
        count = len(arrays[0]) if arrays else 1
        if self._shared_numbers:
            numbers = _Numbers(self._layout, self._function(*[a[0] for a in arrays]))
            blocks = []
            for start in range(0, count, BLOCK):
                block = slice(start, min(start + BLOCK, count))
                values = dict(self._values)
                values.update(
                    (name, array[block])
                    for name, array in zip(self._held, arrays, strict=True)
                    if name in self.absorbed
                )
                blocks.append(self._update(numbers, values, block.stop - block.start))
            evidence = np.concatenate([b[0] for b in blocks])
            parameters = {
                name: {
                    k: np.concatenate([b[1][name][k] for b in blocks]) for k in blocks[0][1][name]
                }
                for name in self._priors
            }
            rules = blocks[0][2]
        else:
            evidence = np.empty(count)
            per_value = {name: [] for name in self._priors}
            rules = {}
            for b in range(count):
                held = [array[b] for array in arrays]
                numbers = _Numbers(self._layout, self._function(*held))
                values = dict(self._values)
                values.update(
                    (name, np.asarray(array[b : b + 1]))
                    for name, array in zip(self._held, arrays, strict=True)
                    if name in self.absorbed
                )
                (evidence[b],), flat, rules = self._update(numbers, values, 1)
                for name, state in flat.items():
                    per_value[name].append(state)
            parameters = {
                name: {k: np.concatenate([p[k] for p in states]) for k in states[0]}
                for name, states in per_value.items()
            }
        marginals = {}
        for name, state in parameters.items():
            shape = (count, *self._shapes[name])
            marginals[name] = FROZEN[self._priors[name].family](state, shape)
        return Conditional(evidence, marginals, rules)


# ---------------------------------------------------------------------------------------
# Which rule each likelihood term takes.


def _plan(priors: dict, likelihoods: list[Likelihood]) -> dict:
    """The rule of each (likelihood piece, slot), or NotRecognised naming the variable."""
    plan = {}
    for index, lik in enumerate(likelihoods):
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
            name: {k: add(v) for k, v in prior.params.items()} for name, prior in priors.items()
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


class _Numbers:
    """The numbers of one evaluation of a :class:`_Layout`."""

    def __init__(self, layout: _Layout, values: list):
        self._layout, self._values = layout, values

    def prior(self, name):
        return {k: self._values[i] for k, i in self._layout.priors[name].items()}

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


def _update(priors, likelihoods, plan, numbers, values, shapes, *, count=1, batched=()):
    """Log evidence, the posterior state of every variable, and the rules used.

    The evidence is ``log Z(posterior) - log Z(prior)`` summed over the variables, plus
    each observation's base measure and the densities of observations that read only
    outer variables (:mod:`zoo.specification.conjugate_rules`).

    ``count`` problems at once that share ``numbers`` and differ only in the values of
    the observed (or absorbed) variables named in ``batched``, each of which has a
    first axis of length ``count``: every variable's state holds ``count`` copies end
    to end, and each copy's observations are labelled into its own copy, so that one
    call of each rule updates them all (the rules add statistics by label). Returns
    the ``count`` evidences and the stacked flat states.
    """
    states, used = {}, {name: set() for name in priors}
    evidence = np.full(count, numbers.direct())
    sizes = {name: int(np.prod(shapes[name], dtype=int)) for name in priors}
    for name, prior in priors.items():
        params = {
            k: np.tile(
                np.array(_broadcast(v, shapes[name], f"the prior of {name}"), float).ravel(),
                count,
            )
            for k, v in numbers.prior(name).items()
        }
        states[name] = initial_state(name, prior.family, params)
    initial = {name: {k: v.copy() for k, v in state.items()} for name, state in states.items()}
    for index, lik in enumerate(likelihoods):
        y = np.asarray(values[lik.name])
        if lik.name not in batched:
            y = np.broadcast_to(y, (count, *y.shape))
        batch = y.shape[1 : y.ndim - lik.ndim_supp]
        rows = _rows(numbers.where(index), batch, lik)
        flat_y = y.reshape(count, -1, *y.shape[1 + len(batch) :])[:, rows]
        flat_y = flat_y.reshape(-1, *flat_y.shape[2:])
        for slot in lik.terms:
            rule = plan[index, slot]
            term = _flat_term(numbers.term(index, lik.name, slot), batch, lik, slot, rows)
            check_power(rule, term, lik.name, slot)
            term = _copies(term, count, sizes[term.variable])
            constants = {}
            for key, value in numbers.constants(index).items():
                core = value.shape[value.ndim - lik.core_ndims[key] :]
                one = _broadcast(value, batch + core, f"{lik.name}'s {key}").reshape(-1, *core)
                constants[key] = np.tile(one[rows], (count,) + (1,) * len(core))
            rule.update(states[term.variable], flat_y, constants, term, lik.name)
            base = rule.log_base(flat_y, constants, term)
            evidence += np.sum(np.reshape(base, (count, -1)), axis=1)
            used[term.variable].add(rule.name)
    for name, prior in priors.items():
        core = shapes[name][-1] if prior.core_ndim else 1
        change = LOG_NORMALISER_CHANGES[prior.family](initial[name], states[name], core)
        evidence += np.sum(np.reshape(change, (count, -1)), axis=1)
    # flat states, frozen once for the whole batch (freezing a scipy distribution costs
    # more than the update itself)
    return evidence, states, used


def _copies(term: Term, count: int, size: int) -> Term:
    """``count`` copies of a term end to end, copy ``c`` labelling ``size c`` onwards."""
    if count == 1:
        return term
    core = term.labels.shape[1:]
    shift = (np.arange(count) * size).reshape((count,) + (1,) * (1 + len(core)))
    labels = (term.labels[np.newaxis] + shift).reshape(-1, *core)
    coef = np.tile(term.coef, (count,) + (1,) * (term.coef.ndim - 1))
    return replace(term, coef=coef, labels=labels)


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
