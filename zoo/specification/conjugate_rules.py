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
    "StudentT",
    "Term",
    "check_power",
    "initial_state",
    "normal_inverse_gamma",
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
    """The posterior state before any data: the prior's parameters, flat, checked.

    A Normal is kept in natural parameters (precision, precision times mean), which
    the observations add to.
    """
    for key, value in params.items():
        # An improper or invalid prior has no posterior to compare with.
        if key != "mu" and not np.all((value > 0) & np.isfinite(value)):
            raise NotRecognised(f"{name}: its {family} prior's {key} is not positive and finite")
    if family == "Normal":
        return {"precision": params["sigma"] ** -2.0, "shift": params["mu"] / params["sigma"] ** 2}
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


def normal_inverse_gamma(name, variance, family, link, m0, observations, state):
    """The normal-inverse-gamma (or normal-gamma) rule, BDA3 3.3, Murphy (2007) 5-6.

    Mean ``name`` with ``name | v ~ Normal(m, c sqrt(v))`` (``v`` a variance with an
    inverse gamma prior, or ``c / sqrt(v)`` for a precision with a gamma prior) and
    Normal observations ``y ~ Normal(name, c_y sqrt(v))`` (or ``c_y / sqrt(v)``).

    With weights ``w = 1 / c_y^2`` and ``kappa0 = 1 / c^2``, per element of the mean:
    ``kappa_n = kappa0 + W``, ``m_n = (kappa0 m + sum w y) / kappa_n`` with ``W = sum
    w``; the variance's shape gains ``#y / 2`` and its scale (rate for a precision)
    ``(sum w (y - ybar)^2 + kappa0 W / (kappa0 + W) (ybar - m)^2) / 2``, the centred
    form (no cancellation of large squares). Integrating the mean out leaves the
    variance's update additive, so known-mean terms of the same variance add to its
    state as well. The mean's marginal is Student t with ``2 a_n`` degrees of freedom,
    location ``m_n`` and scale ``sqrt(b_n / (a_n kappa_n))``.

    Parameters
    ----------
    name, variance : str
        The mean and the variance (or precision) variable.
    family : {"InverseGamma", "Gamma"}
        The variance's prior family.
    link : Term
        The mean's prior sd as a power of the variance, flat over the mean's elements.
    m0 : ndarray
        The mean's prior mean, flat.
    observations : list of (str, Term, Term, ndarray)
        Per observed variable: its name, its mu and sigma terms and its values, flat.
    state : dict
        The variance's posterior state, updated in place.

    Returns
    -------
    StudentT
        The mean's marginal, to be formed once the variance's state is complete.
    """
    expected = {"InverseGamma": 0.5, "Gamma": -0.5}.get(family)
    if expected is None or not np.isclose(link.power, expected):
        raise NotRecognised(
            f"{name}: its prior sd is {variance} to the power {link.power:g}; the "
            "normal-inverse-gamma rule needs sqrt of an InverseGamma variance or 1/sqrt "
            "of a Gamma precision"
        )
    if not np.all(link.coef > 0):
        raise NotRecognised(f"{name}: its prior sd scales {variance} by a non-positive factor")
    owner = link.labels  # the element of the variance each element of the mean uses
    size = owner.size
    kappa0 = 1.0 / link.coef**2
    rows = []  # (mean labels, weights, y) per observed variable
    for lik_name, mean, var, y in observations:
        if not (np.isclose(mean.power, 1.0) and np.all(mean.coef == 1.0)):
            raise NotRecognised(f"{lik_name}: its mu scales or powers {name}")
        if not np.isclose(var.power, expected) or not np.all(var.coef > 0):
            raise NotRecognised(
                f"{lik_name}: its sigma is not a positive multiple of {variance}'s "
                f"{'sqrt' if expected > 0 else '1/sqrt'}"
            )
        if not np.array_equal(var.labels, owner[mean.labels]):
            raise NotRecognised(
                f"{lik_name}: reads elements of {name} and {variance} that are not paired "
                f"as in {name}'s prior"
            )
        rows.append((mean.labels, var.coef**-2.0, y.astype(float)))
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
    scale_key = "scale" if family == "InverseGamma" else "rate"
    np.add.at(state["shape"], owner, 0.5 * count)
    np.add.at(
        state[scale_key],
        owner,
        0.5 * (spread + kappa0 * total / kappa_n * (ybar - m0) ** 2),
    )
    return StudentT(owner, m_n, kappa_n, variance, scale_key)


@dataclass(frozen=True)
class StudentT:
    """A Student t marginal waiting for the final state of its variance."""

    owner: np.ndarray
    m_n: np.ndarray
    kappa_n: np.ndarray
    variance: str
    scale_key: str

    def marginal(self, states, shape, dims):
        """The t, from the variance's final posterior state."""
        state = states[self.variance]
        a = state["shape"][self.owner]
        b = state[self.scale_key][self.owner]
        frozen = stats.t(
            df=(2.0 * a).reshape(shape),
            loc=self.m_n.reshape(shape),
            scale=np.sqrt(b / (a * self.kappa_n)).reshape(shape),
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


MARGINALS = {
    "Beta": _beta,
    "Gamma": _gamma,
    "InverseGamma": _inverse_gamma,
    "Normal": _normal,
    "Dirichlet": _dirichlet,
}
