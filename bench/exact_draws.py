"""Samplers that return exact, independent posterior draws, for SBC's null study.

Each follows the sampler protocol (``sampler(data, prior, *, draws, chains, seed)``,
a dict of ``(chain, draw, ...)`` arrays), so that ``zoo.validate(model,
sampler=..., checks=("sbc",))`` runs SBC through the zoo's own machinery
(``zoo.validation.sbc_check``, ``zoo.diagnostics.sbc``) on draws with no
autocorrelation and no approximation: whatever its false-alarm rate is then, it
belongs to the test and the rank computation, not to a Gibbs kernel's mixing
(``bench/sbc_false_alarms.py --exact-draws``).

- Beta-Binomial (hierarchical, the truncated BDA3 hyperprior SBC simulates from):
  rejection sampling of ``(a, b)`` with the prior as proposal, accepted with
  probability ``p(y | a, b) / M`` (``M`` at or above the likelihood's supremum, and
  checked against every proposal;
  Robert & Casella, *Monte Carlo Statistical Methods*, 2004, sec. 2.3), then
  ``theta_j | a, b, y ~ Beta(a + y_j, b + n_j - y_j)`` (BDA3 sec. 5.3).
- Naive Bayes: the model's exact posterior is a mixture over the labelings of the
  unlabelled documents (:func:`zoo.models.naive_bayes.posterior`); a draw picks a
  labeling by its weight, then ``pi`` and each ``phi_k`` from their conjugate
  Dirichlets (Beta for the Bernoulli model), and ``class_probability`` from them.
- LDA (SBC's tiny corpus: ``K^N = 2^9`` topic assignments): a draw picks an
  assignment ``z`` by its collapsed joint ``p(w, z)`` (Griffiths & Steyvers, PNAS 101,
  2004, eqs. 2-3, as :func:`zoo.models.lda.posterior.log_joint` writes it), then
  ``theta_d | z ~ Dir(alpha + n_d.)`` and ``phi_k | z ~ Dir(beta + n_k.)``, and the
  label-invariant quantities from them (:func:`zoo.models.lda.label_invariants`).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

from zoo.models.beta_binomial.marginal_likelihood import likelihood_terms, log_likelihood_grid
from zoo.models.lda import label_invariants
from zoo.models.naive_bayes.conditional import class_probability
from zoo.models.naive_bayes.posterior import posterior as naive_bayes_posterior
from zoo.models.simplex import dirichlet

__all__ = ["SAMPLERS", "beta_binomial", "lda", "naive_bayes"]

# Proposals per batch of the rejection sampler (its acceptance rate on SBC's simulated
# data sets is 0.5% to 7%, so the 400 draws of a fit take 1 to 8 batches).
_BATCH = 10_000
# The bound M is the likelihood's largest value found, times e^(1e-3).
_MARGIN = 1e-3


def _log_likelihood(u, v, terms) -> np.ndarray:
    """``log p(y | a, b)`` at ``u = log(a / b)``, ``v = log(a + b)`` (the model's own)."""
    u, v = np.broadcast_arrays(np.asarray(u, dtype=float), np.asarray(v, dtype=float))
    share, total = special.expit(u), np.exp(v)
    a = np.ascontiguousarray(total * share)
    b = np.ascontiguousarray(total * (1.0 - share))
    return log_likelihood_grid(a, b, terms)


def _likelihood_bound(terms, floor: float) -> float:
    """A bound of ``log p(y | a, b)`` over ``a + b >= e^floor``, to be checked.

    The largest value on a grid over ``(u, v)`` reaching ``a + b = e^40`` (where the
    likelihood is the pooled binomial's, its limit), refined by Nelder-Mead from the
    grid's best point with a simplex as wide as the grid's cells, plus
    :data:`_MARGIN`; the sampler checks every proposal against it and starts again with
    a higher bound when one lies above.
    """
    u, v = np.meshgrid(np.linspace(-10.0, 10.0, 41), np.linspace(floor, 40.0, 41))
    grid = _log_likelihood(u, v, terms)
    best = np.unravel_index(np.argmax(grid), grid.shape)
    # v = floor + w^2: the truncation without a boundary for the simplex to stick on.
    start = np.array([u[best], np.sqrt(v[best] - floor)])
    found = optimize.minimize(
        lambda x: -_log_likelihood(x[0], floor + x[1] ** 2, terms)[()],
        start,
        method="Nelder-Mead",
        options={
            "initial_simplex": [start, start + np.array([0.5, 0.0]), start + np.array([0.0, 0.5])],
            "xatol": 1e-6,
            "fatol": 1e-9,
        },
    )
    return max(float(grid.max()), -float(found.fun)) + _MARGIN


def beta_binomial(data, prior, *, draws: int, chains: int, seed: int) -> dict:
    """Exact posterior draws of the hierarchical Beta-Binomial model (module notes).

    Rejection sampling is exact only with a bound at or above the likelihood's
    supremum. A proposal above the bound shows it too low: every draw so far is
    discarded and the sampling starts again under a bound raised above that proposal
    (a bound fixed before the draws it judges, and never exceeded in the run whose
    draws are kept).
    """
    if not prior.hierarchical or prior.min_concentration is None:
        raise ValueError("prior: the exact sampler needs the truncated hierarchical prior")
    rng = np.random.default_rng(seed)
    terms = likelihood_terms(data.successes, data.trials)
    bound = _likelihood_bound(terms, float(np.log(prior.min_concentration)))
    need = draws * chains
    means, totals = [], []
    while sum(m.size for m in means) < need:
        # The prior of spec.simulate: mean ~ U(0, 1), a + b Pareto(1/2) above its floor.
        mean = rng.uniform(size=_BATCH)
        total = prior.min_concentration / (1.0 - rng.uniform(size=_BATCH)) ** 2
        log_lik = log_likelihood_grid(mean * total, (1.0 - mean) * total, terms)
        if log_lik.max() > bound:
            bound = float(log_lik.max()) + _MARGIN
            means, totals = [], []
            continue
        accept = np.log(rng.uniform(size=_BATCH)) < log_lik - bound
        means.append(mean[accept])
        totals.append(total[accept])
    mean, total = np.concatenate(means)[:need], np.concatenate(totals)[:need]
    a, b = mean * total, (1.0 - mean) * total
    theta = rng.beta(a[:, None] + data.successes, b[:, None] + data.failures)
    shape = (chains, draws)
    return {
        "a": a.reshape(shape),
        "b": b.reshape(shape),
        "logit_mean": np.log(a / b).reshape(shape),
        "log_concentration": np.log(total).reshape(shape),
        "theta": theta.reshape(*shape, -1),
    }


def naive_bayes(data, prior, *, draws: int, chains: int, seed: int) -> dict:
    """Exact posterior draws of Naive Bayes, over the labelings of the unlabelled documents."""
    rng = np.random.default_rng(seed)
    exact = naive_bayes_posterior(data, prior)
    parts = exact.components
    need = draws * chains
    which = rng.choice(parts.weights.size, size=need, p=parts.weights)
    pi = dirichlet(rng, parts.alpha[which])
    if parts.beta0 is None:
        phi = dirichlet(rng, parts.beta[which])
    else:
        phi = rng.beta(parts.beta[which], parts.beta0[which])
    unlabelled = data.counts[data.unlabelled]
    probability = np.stack(
        [
            class_probability(unlabelled, pi[i], phi[i], event_model=data.event_model)
            for i in range(need)
        ]
    )
    shape = (chains, draws)
    return {
        "pi": pi.reshape(*shape, *pi.shape[1:]),
        "phi": phi.reshape(*shape, *phi.shape[1:]),
        "class_probability": probability.reshape(*shape, *probability.shape[1:]),
    }


#: Topic assignments enumerated at most (``K^N``): SBC's corpus has 2^9.
_MAX_ASSIGNMENTS = 2**16


def _assignment_log_weights(data, hyper, assignments: np.ndarray) -> tuple:
    """``log p(w, z)`` of every row of ``assignments`` (A, N) up to a constant, and counts.

    The collapsed joint of Griffiths & Steyvers (2004, eqs. 2-3) without its factors
    free of ``z`` (``Gamma(A) / Gamma(A + L_d)`` and the ``Gamma(alpha_k)``,
    ``Gamma(beta_w)``, ``Gamma(B)`` of the normalisers), vectorised over assignments.
    """
    k = data.n_topics
    topic = np.eye(k, dtype=float)[assignments]  # (A, N, K) one-hot
    doc = np.eye(data.n_documents, dtype=float)[data.token_document]  # (N, D)
    word = np.eye(data.n_words, dtype=float)[data.token_word]  # (N, V)
    doc_topic = np.einsum("nd,ank->adk", doc, topic)
    word_topic = np.einsum("nv,ank->avk", word, topic)
    log_weight = special.gammaln(hyper.alpha + doc_topic).sum(axis=(1, 2))
    log_weight += special.gammaln(hyper.beta[:, None] + word_topic).sum(axis=(1, 2))
    log_weight -= special.gammaln(hyper.beta_sum + word_topic.sum(axis=1)).sum(axis=1)
    return log_weight, doc_topic, word_topic


def lda(data, prior, *, draws: int, chains: int, seed: int) -> dict:
    """Exact posterior draws of LDA on a corpus small enough to enumerate (module notes)."""
    k, n = data.n_topics, data.n_tokens
    if k**n > _MAX_ASSIGNMENTS:
        raise ValueError(f"data: {k}^{n} topic assignments, more than {_MAX_ASSIGNMENTS}")
    rng = np.random.default_rng(seed)
    hyper = prior.resolve(data)
    assignments = np.stack(np.unravel_index(np.arange(k**n), (k,) * n), axis=1)
    log_weight, doc_topic, word_topic = _assignment_log_weights(data, hyper, assignments)
    weight = np.exp(log_weight - log_weight.max())
    need = draws * chains
    which = rng.choice(weight.size, size=need, p=weight / weight.sum())
    theta = dirichlet(rng, hyper.alpha + doc_topic[which])
    phi = dirichlet(rng, hyper.beta + np.swapaxes(word_topic[which], 1, 2))
    shape = (chains, draws)
    theta = theta.reshape(*shape, *theta.shape[1:])
    phi = phi.reshape(*shape, *phi.shape[1:])
    return {"theta": theta, "phi": phi, **label_invariants(data, theta, phi)}


#: The exact sampler of each model that has one here, by the model's name.
SAMPLERS = {"beta-binomial": beta_binomial, "lda": lda, "naive-bayes": naive_bayes}
