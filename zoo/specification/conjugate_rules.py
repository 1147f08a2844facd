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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats

from zoo.core.reference import Marginal
from zoo.specification.conjugate_graph import NotRecognised

__all__ = [
    "MARGINALS",
    "RULES",
    "Rule",
    "Term",
    "check_power",
    "initial_state",
    "scipy_marginal",
]


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
    ("Dirichlet", "Categorical", "p"): Rule(
        "Dirichlet-Categorical", 1.0, False, _dirichlet_categorical
    ),
    ("Dirichlet", "Multinomial", "p"): Rule(
        "Dirichlet-Multinomial", 1.0, False, _dirichlet_multinomial
    ),
}


# ---------------------------------------------------------------------------------------
# Marginals.


def scipy_marginal(frozen, dims) -> Marginal:
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
    return scipy_marginal(
        stats.beta(state["alpha"].reshape(shape), state["beta"].reshape(shape)), dims
    )


def _gamma(state, shape, dims):
    return scipy_marginal(
        stats.gamma(state["shape"].reshape(shape), scale=1.0 / state["rate"].reshape(shape)), dims
    )


def _inverse_gamma(state, shape, dims):
    return scipy_marginal(
        stats.invgamma(state["shape"].reshape(shape), scale=state["scale"].reshape(shape)), dims
    )


def _dirichlet(state, shape, dims):
    # Each component of Dirichlet(alpha) is Beta(alpha_k, sum(alpha) - alpha_k).
    alpha = state["alpha"].reshape(shape)
    rest = alpha.sum(axis=-1, keepdims=True) - alpha
    return scipy_marginal(stats.beta(alpha, rest), dims)


MARGINALS = {
    "Beta": _beta,
    "Gamma": _gamma,
    "InverseGamma": _inverse_gamma,
    "Dirichlet": _dirichlet,
}
