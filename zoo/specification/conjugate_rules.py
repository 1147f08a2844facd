"""The conjugate rules: one update per (prior, likelihood) pair, and the marginals.

The rules (table :data:`RULES`), with ``c`` a known constant factor read from the
graph (exposure, scale) and sums over the observations of each element:

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
p ~ Dirichlet(a)          Categorical(p)       Dirichlet(a + counts)
p ~ Dirichlet(a)          Multinomial(n, p)    Dirichlet(a + sum y)
========================  ===================  ==========================================

(Gamma with rate ``b``; ``Exponential(c lam)`` means rate ``c lam``, ``Gamma(k, c lam)``
shape ``k`` and rate ``c lam``.) Sources: Gelman et al., *Bayesian Data Analysis*, 3rd
ed. (BDA3), sections 2.4 (binomial), 2.6 (Poisson with exposure, exponential, normal
variance with known mean), 3.4 (multinomial); K. P. Murphy, "Conjugate Bayesian
analysis of the Gaussian distribution" (2007), section 3 (known mean: precision and
variance). Normal, MvNormal and Flat variables (a normal mean, regression
coefficients, the normal-inverse-gamma) are one joint Gaussian posterior, in
:mod:`zoo.specification.linear_gaussian`.

Every free variable may have any shape; each element is its own conjugate pair (the
observations that read it are found by indexing, ``theta[group_idx]`` included), and
several observed variables reading one parameter add their statistics. A free variable
no observation reads keeps its prior. A Dirichlet's marginals are Betas, element by
element (BDA3, section 3.4).

Each rule also has its closed-form marginal likelihood ``log p(y)`` (the evidence, the
variable integrated out). Every pair is an exponential family with a conjugate prior,
so (Bernardo & Smith, *Bayesian Theory*, 1994, section 5.2; Murphy 2007, eq. 3.21 and
sections 5-6)::

    log p(y) = log Z(posterior state) - log Z(prior state) + sum_i log h(y_i)

with ``Z`` the prior family's normaliser (:data:`LOG_NORMALISERS`: ``log B(a, b)`` for
a Beta, ``lgamma(a) - a log b`` for a Gamma of rate ``b`` or an inverse gamma of scale
``b``, ``sum lgamma(alpha) - lgamma(sum alpha)`` for a Dirichlet) and ``h`` each
observation's base measure (:attr:`Rule.log_base`: the binomial coefficient,
``y log c - log y!`` for a Poisson, ``-log c`` for an exponential of rate ``lam /
c``...). The Gaussian evidence (Normal means,
regression, the normal-inverse-gamma) is :attr:`GaussianPosterior.log_evidence` of
:mod:`zoo.specification.linear_gaussian`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from scipy import special, stats

from zoo.core.reference import Marginal
from zoo.specification.conjugate_graph import NotRecognised

__all__ = [
    "FROZEN",
    "LOG_NORMALISERS",
    "LOG_NORMALISER_CHANGES",
    "MARGINALS",
    "RULES",
    "Rule",
    "Term",
    "check_power",
    "finite_marginal",
    "initial_state",
]


@dataclass(frozen=True)
class Rule:
    """One conjugate update.

    The power of the variable the likelihood parameter must be, whether a constant
    factor is allowed, the update of the posterior state, and ``log_base(y, constants,
    term)``: each observation's log base measure (one number per row of ``y``), the
    part of its log density that does not involve the variable.
    """

    name: str
    power: float
    scalable: bool
    update: Callable
    log_base: Callable


@dataclass(frozen=True)
class Term:
    """A likelihood parameter ``coef * variable[labels] ** power``, numerically."""

    variable: str
    power: float
    coef: np.ndarray
    labels: np.ndarray


def initial_state(name: str, family: str, params: dict) -> dict:
    """The posterior state before any data: the prior's parameters, flat, checked."""
    for key, value in params.items():
        # An improper or invalid prior has no posterior to compare with.
        if not np.all((value > 0) & np.isfinite(value)):
            raise NotRecognised(f"{name}: its {family} prior's {key} is not positive and finite")
    return dict(params)


def check_power(rule, term, name, slot):
    """Refuse a term whose power or constant factor the rule does not take."""
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


# ---------------------------------------------------------------------------------------
# Base measures: log h(y_i) of each observation, so that the evidence is
# log Z(posterior) - log Z(prior) + sum log h (module docstring).

_LOG_2PI = float(np.log(2.0 * np.pi))


def _no_base(y, constants, term):
    """Bernoulli and Categorical: ``p^y (1 - p)^(1 - y)``, nothing else."""
    return np.zeros(len(y))


def _binomial_base(y, constants, term):
    """``log C(n, y)``."""
    n = constants["n"]
    return special.gammaln(n + 1.0) - special.gammaln(y + 1.0) - special.gammaln(n - y + 1.0)


def _poisson_base(y, constants, term):
    """``(c lam)^y e^(-c lam) / y!``: ``y log c - log y!``."""
    return special.xlogy(y, term.coef) - special.gammaln(y + 1.0)


def _exponential_base(y, constants, term):
    """Rate ``lam / c``: ``(lam / c) e^(-lam y / c)``, so ``-log c``."""
    return -np.log(term.coef)


def _gamma_base(y, constants, term):
    """Shape ``k``, rate ``lam / c``: ``-k log c + (k - 1) log y - lgamma(k)``."""
    k = constants["alpha"]
    return -k * np.log(term.coef) + (k - 1.0) * np.log(y) - special.gammaln(k)


def _normal_scale_base(y, constants, term):
    """Normal with sd ``c`` times a power of the variable: ``-log(2 pi) / 2 - log c``."""
    return -0.5 * _LOG_2PI - np.log(term.coef)


def _multinomial_base(y, constants, term):
    """``log n! - sum log y_k!``."""
    return special.gammaln(constants["n"] + 1.0) - special.gammaln(y + 1.0).sum(axis=-1)


#: (prior family, likelihood family, likelihood parameter) -> rule.
RULES = {
    ("Beta", "Bernoulli", "p"): Rule("Beta-Bernoulli", 1.0, False, _beta_bernoulli, _no_base),
    ("Beta", "Binomial", "p"): Rule("Beta-Binomial", 1.0, False, _beta_binomial, _binomial_base),
    ("Gamma", "Poisson", "mu"): Rule("Gamma-Poisson", 1.0, True, _gamma_poisson, _poisson_base),
    ("Gamma", "Exponential", "scale"): Rule(
        "Gamma-Exponential", -1.0, True, _gamma_exponential, _exponential_base
    ),
    ("Gamma", "Gamma", "scale"): Rule("Gamma-Gamma", -1.0, True, _gamma_gamma, _gamma_base),
    ("Gamma", "Normal", "sigma"): Rule(
        "Gamma-Normal precision", -0.5, True, _gamma_normal_precision, _normal_scale_base
    ),
    ("InverseGamma", "Normal", "sigma"): Rule(
        "InverseGamma-Normal variance",
        0.5,
        True,
        _inverse_gamma_normal_variance,
        _normal_scale_base,
    ),
    ("Dirichlet", "Categorical", "p"): Rule(
        "Dirichlet-Categorical", 1.0, False, _dirichlet_categorical, _no_base
    ),
    ("Dirichlet", "Multinomial", "p"): Rule(
        "Dirichlet-Multinomial", 1.0, False, _dirichlet_multinomial, _multinomial_base
    ),
}


# ---------------------------------------------------------------------------------------
# Marginals.


def finite_marginal(frozen, dims) -> Marginal:
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


def _beta(state, shape):
    return stats.beta(state["alpha"].reshape(shape), state["beta"].reshape(shape))


def _gamma(state, shape):
    return stats.gamma(state["shape"].reshape(shape), scale=1.0 / state["rate"].reshape(shape))


def _inverse_gamma(state, shape):
    return stats.invgamma(state["shape"].reshape(shape), scale=state["scale"].reshape(shape))


def _dirichlet(state, shape):
    # Each component of Dirichlet(alpha) is Beta(alpha_k, sum(alpha) - alpha_k).
    alpha = state["alpha"].reshape(shape)
    rest = alpha.sum(axis=-1, keepdims=True) - alpha
    return stats.beta(alpha, rest)


#: Posterior family -> ``frozen(state, shape)``: each element's marginal as a scipy
#: distribution with array parameters of ``shape`` (flat states reshaped).
FROZEN = {
    "Beta": _beta,
    "Gamma": _gamma,
    "InverseGamma": _inverse_gamma,
    "Dirichlet": _dirichlet,
}


def _marginal_of(family):
    def marginal(state, shape, dims):
        return finite_marginal(FROZEN[family](state, shape), dims)

    return marginal


#: Posterior family -> ``marginal(state, shape, dims)``, a :class:`Marginal`.
MARGINALS = {family: _marginal_of(family) for family in FROZEN}


# ---------------------------------------------------------------------------------------
# Log normalisers of the prior families (module docstring), one number per element.


def _beta_normaliser(state, core):
    return special.betaln(state["alpha"], state["beta"])


def _gamma_normaliser(state, core):
    return special.gammaln(state["shape"]) - state["shape"] * np.log(state["rate"])


def _inverse_gamma_normaliser(state, core):
    return special.gammaln(state["shape"]) - state["shape"] * np.log(state["scale"])


def _dirichlet_normaliser(state, core):
    # log B(alpha) = sum lgamma(alpha_k) - lgamma(sum alpha_k), per row of length K; the
    # row's second term is put on its first element so that sums per element add up.
    alpha = state["alpha"].reshape(-1, core)
    result = special.gammaln(alpha)
    result[:, 0] -= special.gammaln(alpha.sum(axis=1))
    return result.ravel()


def _gamma_normaliser_change(initial, final, core, key="rate"):
    """``log Z(final) - log Z(initial)`` of a Gamma (rate) or inverse gamma (scale).

    ``a_n log b_n - a_0 log b_0 = a_0 log1p(d_b / b_0) + d_a log b_n``: no large terms.
    """
    a0, a = initial["shape"], final["shape"]
    b0, b = initial[key], final[key]
    return (
        special.gammaln(a)
        - special.gammaln(a0)
        - a0 * np.log1p((b - b0) / b0)
        - (a - a0) * np.log(b)
    )


def _inverse_gamma_normaliser_change(initial, final, core):
    return _gamma_normaliser_change(initial, final, core, key="scale")


def _difference(normaliser):
    def change(initial, final, core):
        return normaliser(final, core) - normaliser(initial, core)

    return change


#: Prior family -> ``log_normaliser(state, core)``: ``log Z`` per flat element (``core``
#: the length of one simplex for a Dirichlet).
LOG_NORMALISERS = {
    "Beta": _beta_normaliser,
    "Gamma": _gamma_normaliser,
    "InverseGamma": _inverse_gamma_normaliser,
    "Dirichlet": _dirichlet_normaliser,
}


#: Prior family -> ``change(initial, final, core)``: ``log Z(final) - log Z(initial)``
#: per flat element, in a form without cancellation where the plain difference has it.
LOG_NORMALISER_CHANGES = {
    "Beta": _difference(_beta_normaliser),
    "Gamma": _gamma_normaliser_change,
    "InverseGamma": _inverse_gamma_normaliser_change,
    "Dirichlet": _difference(_dirichlet_normaliser),
}
