"""The exact posterior of a conjugate PyMC model, derived from its graph.

:func:`conjugate_reference` reads the graph (:mod:`zoo.specification.conjugate_graph`)
and, when every free variable's posterior is a known conjugate update with constant
hyperparameters, returns a :class:`zoo.core.reference.Reference` with one
:class:`Marginal` per free variable, in the constrained space, under the dims
:func:`zoo.specification.graph.model_parts` gives. Otherwise it returns a
:class:`NoReference` whose reason names the variable and what was not recognised: it
never guesses.

The rules (one function each, table :data:`RULES`), with ``c`` a known constant factor
read from the graph (exposure, scale) and sums over the observations of each element:

========================  ===================  ==========================================
prior                     likelihood           posterior
========================  ===================  ==========================================
theta ~ Beta(a, b)        Bernoulli(theta)     Beta(a + sum y, b + sum (1 - y))
theta ~ Beta(a, b)        Binomial(n, theta)   Beta(a + sum y, b + sum (n - y))
lam ~ Gamma(a, b)         Poisson(c lam)       Gamma(a + sum y, b + sum c)
lam ~ Gamma(a, b)         Exponential(c lam)   Gamma(a + #y, b + sum c y)
lam ~ Gamma(a, b)         Gamma(k, c lam)      Gamma(a + sum k, b + sum c y)
tau ~ Gamma(a, b)         Normal(m, c/√tau)    Gamma(a + #y/2, b + sum (y - m)² / 2c²)
s2 ~ InvGamma(a, b)       Normal(m, c √s2)     InvGamma(a + #y/2, b + sum (y - m)² / 2c²)
mu ~ Normal(m, s)         Normal(c mu, sigma)  Normal, precisions add
p ~ Dirichlet(a)          Categorical(p)       Dirichlet(a + counts)
p ~ Dirichlet(a)          Multinomial(n, p)    Dirichlet(a + sum y)
mu | s2 ~ N(m, √(s2/k))   Normal(mu, c √s2)    normal-inverse-gamma (or normal-gamma
s2 ~ InvGamma(a, b)                            with tau and 1/√tau): mu a Student t
========================  ===================  ==========================================

(Gamma with rate ``b``; ``Exponential(c lam)`` means rate ``c lam``, ``Gamma(k, c lam)``
shape ``k`` and rate ``c lam``.) Sources: Gelman et al., *Bayesian Data Analysis*, 3rd
ed. (BDA3), sections 2.4 (binomial), 2.5 (normal mean, known variance), 2.6 (Poisson
with exposure, exponential, normal variance with known mean), 3.2-3.3 (normal with
unknown mean and variance), 3.4 (multinomial); K. P. Murphy, "Conjugate Bayesian
analysis of the Gaussian distribution" (2007), sections 3 (known mean: precision and
variance), 5-6 (normal-gamma and normal-inverse-gamma, with the Student t marginal of
the mean).

Every free variable may have any shape; each element is its own conjugate pair (the
observations that read it are found by indexing, ``theta[group_idx]`` included), and
several observed variables reading one parameter add their statistics. A free variable
no observation reads keeps its prior. A Dirichlet's marginals are Betas, element by
element (BDA3, section 3.4).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats

from zoo.core.reference import Marginal, NoReference, Reference
from zoo.specification.conjugate_graph import (
    Likelihood,
    NotRecognised,
    Power,
    evaluate,
    read_likelihoods,
    read_priors,
)
from zoo.specification.graph import model_parts

__all__ = ["RULES", "Rule", "conjugate_reference"]


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
            marginals[name] = states[name].marginal(states, dims)
        else:
            marginals[name] = _MARGINALS[prior.family](states[name], parts.shapes[name], dims)
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


@dataclass(frozen=True)
class Rule:
    """One conjugate update.

    The power of the variable the likelihood parameter must be, whether a constant
    factor is allowed, and the update of the posterior state.
    """

    name: str
    power: float
    scalable: bool
    update: Callable


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


@dataclass(frozen=True)
class _Term:
    """A likelihood parameter ``coef * variable[labels] ** power``, numerically."""

    variable: str
    power: float
    coef: np.ndarray
    labels: np.ndarray


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

    def link(self, name, what) -> _Term:
        return self._term(self._links[name], self._priors[name][1], what)

    def constants(self, name):
        return {k: self._values[i] for k, i in self._likelihoods[name][0].items()}

    def term(self, name, slot) -> _Term:
        what = f"{name}: its {slot}"
        return self._term(self._powers[name, slot], self._likelihoods[name][1][slot], what)

    def _term(self, power, indices, what) -> _Term:
        coef, labels, checks = indices
        if not all(bool(self._values[c]) for c in checks):
            raise NotRecognised(f"{what} multiplies different elements of {power.variable}")
        return _Term(power.variable, power.power, self._values[coef], self._values[labels])


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
        if prior.link is not None:
            continue
        params = {
            k: np.array(_broadcast(v, shapes[name], f"the prior of {name}"), dtype=float).ravel()
            for k, v in numbers.prior(name).items()
        }
        for key, value in params.items():
            # An improper or invalid prior has no posterior to compare with.
            if key != "mu" and not np.all((value > 0) & np.isfinite(value)):
                raise NotRecognised(
                    f"{name}: its {prior.family} prior's {key} is not positive and finite"
                )
        if prior.family == "Normal":
            # natural parameters: precision and precision times mean add up
            params = {
                "precision": params["sigma"] ** -2.0,
                "shift": params["mu"] / params["sigma"] ** 2,
            }
        states[name] = params
    joint = []
    for lik in likelihoods:
        y = values[lik.name]
        batch = y.shape[: y.ndim - lik.ndim_supp]
        for (lik_name, slot), rule in plan.items():
            if lik_name != lik.name:
                continue
            if rule == "normal-inverse-gamma":
                joint.append((lik, y, batch))
                continue
            term = numbers.term(lik.name, slot)
            core = term.labels.shape[term.labels.ndim - lik.core_ndims[slot] :]
            target = batch + core
            term = replace(
                term,
                coef=_broadcast(term.coef, target, f"{lik.name}'s {slot}").reshape(-1, *core),
                labels=_broadcast(term.labels, target, f"{lik.name}'s {slot}").reshape(-1, *core),
            )
            _check_power(rule, term, lik.name, slot)
            constants = {
                k: _broadcast(
                    v, batch + v.shape[v.ndim - lik.core_ndims[k] :], f"{lik.name}'s {k}"
                ).reshape(-1, *v.shape[v.ndim - lik.core_ndims[k] :])
                for k, v in numbers.constants(lik.name).items()
            }
            rule.update(
                states[term.variable],
                y.reshape(-1, *y.shape[len(batch) :]),
                constants,
                term,
                lik.name,
            )
            used[term.variable].add(rule.name)
    for name, prior in priors.items():
        if prior.link is not None:
            states.update(
                _normal_inverse_gamma(name, prior, priors, numbers, joint, states, shapes)
            )
            used[name].add("normal-inverse-gamma")
            used[prior.link.variable].add("normal-inverse-gamma")
    return states, used


def _check_power(rule, term, name, slot):
    if not np.isclose(term.power, rule.power, rtol=0, atol=1e-12):
        raise NotRecognised(
            f"{name}: its {slot} is {term.variable} to the power {term.power:g}; the "
            f"{rule.name} rule needs the power {rule.power:g}"
        )
    if rule.scalable:
        if not np.all(term.coef > 0):
            raise NotRecognised(
                f"{name}: its {slot} scales {term.variable} by a non-positive factor"
            )
    elif not np.all(term.coef == 1.0):
        raise NotRecognised(
            f"{name}: its {slot} scales {term.variable}; the {rule.name} rule has no factor"
        )


def _require(condition, lik_name, message):
    if not np.all(condition):
        raise ValueError(f"data: {lik_name!r} {message}")


def _is_integer(y):
    return np.all(np.equal(np.mod(y, 1), 0))


def _add(target, labels, values):
    np.add.at(target, labels.ravel(), np.broadcast_to(values, labels.shape).ravel())


def _beta_bernoulli(state, y, constants, term, name):
    """BDA3 section 2.4: successes add to alpha, failures to beta."""
    _require((y == 0) | (y == 1), name, "must hold 0 or 1 (Bernoulli)")
    _add(state["alpha"], term.labels, y)
    _add(state["beta"], term.labels, 1.0 - y)


def _beta_binomial(state, y, constants, term, name):
    """BDA3 section 2.4: ``Beta(a + y, b + n - y)``."""
    n = constants["n"]
    _require(_is_integer(y) & (y >= 0) & (y <= n), name, "must hold integers in [0, n] (Binomial)")
    _add(state["alpha"], term.labels, y)
    _add(state["beta"], term.labels, n - y)


def _gamma_poisson(state, y, constants, term, name):
    """BDA3 section 2.6, Poisson with exposure ``c``: ``Gamma(a + sum y, b + sum c)``."""
    _require(_is_integer(y) & (y >= 0), name, "must hold non-negative integers (Poisson)")
    _add(state["shape"], term.labels, y)
    _add(state["rate"], term.labels, term.coef)


def _gamma_exponential(state, y, constants, term, name):
    """BDA3 section 2.6: rate ``lam / c`` (PyMC's scale ``c / lam``): each y adds 1 and y/c."""
    _require(y >= 0, name, "must hold non-negative values (Exponential)")
    _add(state["shape"], term.labels, 1.0)
    _add(state["rate"], term.labels, y / term.coef)


def _gamma_gamma(state, y, constants, term, name):
    """Gamma likelihood of known shape ``k`` and rate ``lam / c``: k and y/c add."""
    _require(y > 0, name, "must hold positive values (Gamma)")
    _add(state["shape"], term.labels, constants["alpha"])
    _add(state["rate"], term.labels, y / term.coef)


def _squared_deviation(y, constants, term, name):
    _require(np.isfinite(y), name, "must be finite")
    return (y - constants["mu"]) ** 2 / (2.0 * term.coef**2)


def _gamma_normal_precision(state, y, constants, term, name):
    """Murphy (2007) section 3 (BDA3 2.6): known mean, precision ``tau / c^2``."""
    _add(state["shape"], term.labels, 0.5)
    _add(state["rate"], term.labels, _squared_deviation(y, constants, term, name))


def _inverse_gamma_normal_variance(state, y, constants, term, name):
    """BDA3 section 2.6 (Murphy 2007, section 3): known mean, variance ``c^2 s2``."""
    _add(state["shape"], term.labels, 0.5)
    _add(state["scale"], term.labels, _squared_deviation(y, constants, term, name))


def _normal_normal(state, y, constants, term, name):
    """BDA3 section 2.5: precisions add; the precision-weighted data add to the shift.

    ``y ~ Normal(c mu, sigma)`` adds ``c^2 / sigma^2`` to the precision of ``mu`` and
    ``c y / sigma^2`` to precision times mean.
    """
    sigma = constants["sigma"]
    _require(sigma > 0, name, "has a sigma that is not positive")
    _add(state["precision"], term.labels, term.coef**2 / sigma**2)
    _add(state["shift"], term.labels, term.coef * y / sigma**2)


def _dirichlet_rows(term, name):
    """Flat index of each observation's Dirichlet row; refuse a shuffled simplex."""
    labels = term.labels  # (observations, K)
    k = labels.shape[-1]
    start = labels[:, :1]
    if not (np.all(start % k == 0) and np.all(labels == start + np.arange(k))):
        raise NotRecognised(f"{name}: its p is not a whole row of {term.variable} in order")
    return labels


def _dirichlet_categorical(state, y, constants, term, name):
    """BDA3 section 3.4: each category's count adds to its alpha."""
    labels = _dirichlet_rows(term, name)
    k = labels.shape[-1]
    _require(_is_integer(y) & (y >= 0) & (y < k), name, f"must hold integers in [0, {k})")
    _add(state["alpha"], labels[np.arange(len(y)), y.astype(int)], 1.0)


def _dirichlet_multinomial(state, y, constants, term, name):
    """BDA3 section 3.4: the counts add to alpha."""
    labels = _dirichlet_rows(term, name)
    _require(_is_integer(y) & (y >= 0), name, "must hold non-negative integer counts")
    _require(y.sum(axis=-1) == constants["n"], name, "counts must sum to n")
    _add(state["alpha"], labels, y)


#: (prior family, likelihood family, likelihood parameter) -> rule.
RULES = {
    ("Beta", "Bernoulli", "p"): Rule("Beta-Bernoulli", 1.0, False, _beta_bernoulli),
    ("Beta", "Binomial", "p"): Rule("Beta-Binomial", 1.0, False, _beta_binomial),
    ("Gamma", "Poisson", "mu"): Rule("Gamma-Poisson", 1.0, True, _gamma_poisson),
    ("Gamma", "Exponential", "scale"): Rule("Gamma-Exponential", -1.0, True, _gamma_exponential),
    ("Gamma", "Gamma", "scale"): Rule("Gamma-Gamma", -1.0, True, _gamma_gamma),
    ("Gamma", "Normal", "sigma"): Rule(
        "Gamma-Normal precision", -0.5, True, _gamma_normal_precision
    ),
    ("InverseGamma", "Normal", "sigma"): Rule(
        "InverseGamma-Normal variance", 0.5, True, _inverse_gamma_normal_variance
    ),
    ("Normal", "Normal", "mu"): Rule("Normal-Normal", 1.0, True, _normal_normal),
    ("Dirichlet", "Categorical", "p"): Rule(
        "Dirichlet-Categorical", 1.0, False, _dirichlet_categorical
    ),
    ("Dirichlet", "Multinomial", "p"): Rule(
        "Dirichlet-Multinomial", 1.0, False, _dirichlet_multinomial
    ),
}


def _normal_inverse_gamma(name, prior, priors, numbers, joint, states, shapes):
    """The normal-inverse-gamma (or normal-gamma) rule, BDA3 3.3, Murphy (2007) 5-6.

    Mean ``name`` with ``name | v ~ Normal(m, c sqrt(v))`` (v a variance, or
    ``c / sqrt(v)`` for a precision) and Normal observations ``y ~ Normal(name, c_y
    sqrt(v))``.

    With weights ``w = 1 / c_y^2`` and ``kappa0 = 1 / c^2``, per element of the mean:
    ``kappa_n = kappa0 + sum w``, ``m_n = (kappa0 m + sum w y) / kappa_n``; the
    variance's shape gains ``#y / 2`` and its scale (rate for a precision)
    ``(sum w (y - ybar)^2 + kappa0 W / (kappa0 + W) (ybar - m)^2) / 2`` with ``W = sum
    w`` (the centred form: no cancellation of large squares). The mean's marginal is
    Student t with ``2 a_n`` degrees of freedom, location ``m_n`` and scale
    ``sqrt(b_n / (a_n kappa_n))``.

    Returns the marginal of ``name``, and updates the variance's state in place (it
    must be complete, known-mean terms included, before the t is formed: the caller
    runs this after all single-variable rules, and each variable's t reads the final
    state only after every mean linked to it has been added).
    """
    link = prior.link
    variance = link.variable
    family = priors[variance].family
    expected = {"InverseGamma": 0.5, "Gamma": -0.5}.get(family)
    shape = shapes[name]
    size = int(np.prod(shape))
    term = numbers.link(name, f"{name}: the prior's sigma")
    if expected is None or not np.isclose(term.power, expected):
        raise NotRecognised(
            f"{name}: its prior sd is {variance} to the power {term.power:g}; the "
            "normal-inverse-gamma rule needs sqrt of an InverseGamma variance or 1/sqrt "
            "of a Gamma precision"
        )
    coef = np.broadcast_to(term.coef, shape).ravel()
    owner = np.broadcast_to(term.labels, shape).ravel()
    if not np.all(coef > 0):
        raise NotRecognised(f"{name}: its prior sd scales {variance} by a non-positive factor")
    kappa0 = 1.0 / coef**2
    m0 = np.broadcast_to(numbers.prior(name)["mu"], shape).ravel().astype(float)
    rows = []  # (mean labels, weights, y) per observed variable
    for lik, y, batch in joint:
        if lik.terms["mu"].variable != name:
            continue
        mean = numbers.term(lik.name, "mu")
        var = numbers.term(lik.name, "sigma")
        labels = np.broadcast_to(mean.labels, batch).ravel()
        var_labels = np.broadcast_to(var.labels, batch).ravel()
        if not (np.isclose(mean.power, 1.0) and np.all(mean.coef == 1.0)):
            raise NotRecognised(f"{lik.name}: its mu scales or powers {name}")
        if not np.isclose(var.power, expected) or not np.all(var.coef > 0):
            raise NotRecognised(
                f"{lik.name}: its sigma is not a positive multiple of {variance}'s "
                f"{'sqrt' if expected > 0 else '1/sqrt'}"
            )
        if not np.array_equal(var_labels, owner[labels]):
            raise NotRecognised(
                f"{lik.name}: reads elements of {name} and {variance} that are not paired "
                f"as in {name}'s prior"
            )
        weights = np.broadcast_to(var.coef, batch).ravel() ** -2.0
        rows.append((labels, weights, y.ravel().astype(float)))
    total = np.zeros(size)
    count = np.zeros(size)
    weighted = np.zeros(size)
    for labels, w, y in rows:
        np.add.at(total, labels, w)
        np.add.at(count, labels, 1.0)
        np.add.at(weighted, labels, w * y)
    ybar = np.divide(weighted, total, out=np.zeros(size), where=total > 0)
    spread = np.zeros(size)
    for labels, w, y in rows:
        np.add.at(spread, labels, w * (y - ybar[labels]) ** 2)
    kappa_n = kappa0 + total
    m_n = (kappa0 * m0 + weighted) / kappa_n
    state = states[variance]
    scale_key = "scale" if family == "InverseGamma" else "rate"
    np.add.at(state["shape"], owner, 0.5 * count)
    np.add.at(
        state[scale_key],
        owner,
        0.5 * (spread + kappa0 * total / kappa_n * (ybar - m0) ** 2),
    )
    return {name: _PendingT(shape, owner, m_n, kappa_n, variance, scale_key)}


@dataclass(frozen=True)
class _PendingT:
    """A Student t marginal waiting for the final state of its variance."""

    shape: tuple
    owner: np.ndarray
    m_n: np.ndarray
    kappa_n: np.ndarray
    variance: str
    scale_key: str

    def marginal(self, states, dims):
        state = states[self.variance]
        a = state["shape"][self.owner]
        b = state[self.scale_key][self.owner]
        frozen = stats.t(
            df=(2.0 * a).reshape(self.shape),
            loc=self.m_n.reshape(self.shape),
            scale=np.sqrt(b / (a * self.kappa_n)).reshape(self.shape),
        )
        return _from_scipy(frozen, dims)


# ---------------------------------------------------------------------------------------
# Marginals.


def _from_scipy(frozen, dims):
    """``Marginal.from_scipy``, with moments that do not exist as NaN.

    (A t with few degrees of freedom, an inverse gamma of small shape), as
    :class:`Marginal` asks.
    """
    with np.errstate(all="ignore"):
        marginal = Marginal.from_scipy(frozen, dims)

    def finite(value):
        value = np.asarray(value, dtype=float)
        return np.where(np.isfinite(value), value, np.nan)

    kurtosis = finite(marginal.kurtosis)
    return replace(
        marginal,
        mean=finite(marginal.mean),
        sd=finite(marginal.sd),
        kurtosis=None if np.any(np.isnan(kurtosis)) else kurtosis,
    )


def _beta(state, shape, dims):
    return _from_scipy(
        stats.beta(state["alpha"].reshape(shape), state["beta"].reshape(shape)), dims
    )


def _gamma(state, shape, dims):
    return _from_scipy(
        stats.gamma(state["shape"].reshape(shape), scale=1.0 / state["rate"].reshape(shape)), dims
    )


def _inverse_gamma(state, shape, dims):
    return _from_scipy(
        stats.invgamma(state["shape"].reshape(shape), scale=state["scale"].reshape(shape)), dims
    )


def _normal(state, shape, dims):
    precision = state["precision"].reshape(shape)
    return _from_scipy(
        stats.norm(state["shift"].reshape(shape) / precision, 1.0 / np.sqrt(precision)), dims
    )


def _dirichlet(state, shape, dims):
    # Each component of Dirichlet(alpha) is Beta(alpha_k, sum(alpha) - alpha_k).
    alpha = state["alpha"].reshape(shape)
    rest = alpha.sum(axis=-1, keepdims=True) - alpha
    return _from_scipy(stats.beta(alpha, rest), dims)


_MARGINALS = {
    "Beta": _beta,
    "Gamma": _gamma,
    "InverseGamma": _inverse_gamma,
    "Normal": _normal,
    "Dirichlet": _dirichlet,
}
