"""Dirichlet-prior Naive Bayes: the collapsed Gibbs kernel over the missing labels.

The state is the full label vector; labelled documents keep their labels. One sweep
visits every unlabelled document ``d`` in turn, removes it from the class counts, and
draws its label from (Resnik & Hardisty, "Gibbs sampling for the uninitiated", 2010,
with pi and phi integrated out)

    p(y_d = k | y_-d, X) ∝ (n_k^-d + alpha_k) * DirMult(x_d | beta_k + N_k^-d)

where, for the multinomial event model (Minka, "Estimating a Dirichlet
distribution", 2000; the multinomial coefficient is the same for every k and cancels),

    log DirMult(x_d | b) = lgamma(sum_v b_v) - lgamma(sum_v b_v + L_d)
                           + sum_{v: x_dv > 0} [lgamma(b_v + x_dv) - lgamma(b_v)]

and for the Bernoulli model the same with one two-outcome Dirichlet per feature,
which reduces to ``prod_v (b1_kv + N_kv)^x (b0_kv + n_k - N_kv)^(1-x) / (b1 + b0 + n_k)``
(``lgamma(a + 1) - lgamma(a) = log a``, so plain logarithms are exact and cheaper).

:func:`draw` then brings the parameters back from their conjugate conditionals,
``pi | y ~ Dir(alpha + n)``, ``phi_k | X, y ~ Dir(beta_k + N_k)`` (or Beta), and
reports ``class_probability = p(y_u = k | pi, phi, x_u)``, the Rao-Blackwellised label
of each unlabelled document: the same quantity the PyMC program computes per draw.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from zoo.core.contract import Kernel
from zoo.models.naive_bayes.conditional import class_probability
from zoo.models.naive_bayes.spec import Data, Prior
from zoo.models.simplex import dirichlet

__all__ = ["State", "kernel", "make_kernel"]


class State(NamedTuple):
    """Labels of all documents (the unlabelled ones are the chain's current draw)."""

    labels: np.ndarray


@numba.njit(cache=True)
def _counts(labels, doc_start, word, count, n_classes, n_features):
    class_docs = np.zeros(n_classes)
    class_feature = np.zeros((n_classes, n_features))
    for d in range(labels.shape[0]):
        k = labels[d]
        class_docs[k] += 1.0
        for i in range(doc_start[d], doc_start[d + 1]):
            class_feature[k, word[i]] += count[i]
    return class_docs, class_feature


@numba.njit(cache=True)
def _sample_index(log_weights, scaled, rng):
    top = log_weights.max()
    total = 0.0
    weights = np.empty(log_weights.shape[0])
    for k in range(log_weights.shape[0]):
        weights[k] = math.exp(log_weights[k] - top)
        total += weights[k]
    # (not scaled: the bug, a uniform on [0, 1) against weights that sum to `total`)
    target = rng.random() * total if scaled else rng.random()
    for k in range(log_weights.shape[0] - 1):
        target -= weights[k]
        if target < 0.0:
            return k
    return log_weights.shape[0] - 1


@numba.njit(cache=True)
def _sweep(
    labels,
    unlabelled,
    doc_start,
    word,
    count,
    n_features,
    alpha,
    beta,
    beta0,
    bernoulli,
    remove_document,
    normaliser_offset,
    normaliser,
    alpha_offset,
    remove_length,
    scaled,
    rng,
):
    """One systematic-scan sweep over the unlabelled documents, in place on ``labels``.

    ``remove_document=False``, ``normaliser_offset != 0``, ``normaliser=False``,
    ``alpha_offset != 0``, ``remove_length=False`` and ``scaled=False`` plant classic
    bugs (negative controls); the correct sampler has True, 0, True, 0, True, True.
    """
    n_classes = alpha.shape[0]
    class_docs, class_feature = _counts(labels, doc_start, word, count, n_classes, n_features)
    class_total = class_feature.sum(axis=1)
    beta_total = beta.sum(axis=1)
    log_weights = np.empty(n_classes)
    for d in unlabelled:
        current = labels[d]
        length = 0.0
        for i in range(doc_start[d], doc_start[d + 1]):
            length += count[i]
        if remove_document:
            class_docs[current] -= 1.0
            if remove_length:  # (False: the bug, the running total keeps the document)
                class_total[current] -= length
            for i in range(doc_start[d], doc_start[d + 1]):
                class_feature[current, word[i]] -= count[i]
        for k in range(n_classes):
            # The normaliser's class: k itself, or (bug) a neighbouring class.
            j = (k + normaliser_offset) % n_classes
            # alpha_offset = -1: the bug, the Dirichlet mode's alpha - 1 for the
            # predictive's alpha.
            log_w = math.log(class_docs[k] + alpha[k] + alpha_offset)
            if bernoulli:
                # Features absent from the document contribute b0 + n_k - N_kv; start
                # from "all absent" and correct the present ones.
                for v in range(n_features):
                    log_w += math.log(beta0[k, v] + class_docs[k] - class_feature[k, v])
                    if normaliser:
                        log_w -= math.log(beta[k, v] + beta0[k, v] + class_docs[j])
                for i in range(doc_start[d], doc_start[d + 1]):
                    v = word[i]
                    log_w += math.log(beta[k, v] + class_feature[k, v]) - math.log(
                        beta0[k, v] + class_docs[k] - class_feature[k, v]
                    )
            else:
                if normaliser:
                    log_w += math.lgamma(beta_total[j] + class_total[j]) - math.lgamma(
                        beta_total[j] + class_total[j] + length
                    )
                for i in range(doc_start[d], doc_start[d + 1]):
                    b = beta[k, word[i]] + class_feature[k, word[i]]
                    log_w += math.lgamma(b + count[i]) - math.lgamma(b)
            log_weights[k] = log_w
        new = _sample_index(log_weights, scaled, rng)
        if remove_document:
            class_docs[new] += 1.0
            class_total[new] += length
            for i in range(doc_start[d], doc_start[d + 1]):
                class_feature[new, word[i]] += count[i]
        elif new != current:
            # The buggy sampler never took the document out: move it now.
            class_docs[current] -= 1.0
            class_docs[new] += 1.0
            class_total[current] -= length
            class_total[new] += length
            for i in range(doc_start[d], doc_start[d + 1]):
                class_feature[current, word[i]] -= count[i]
                class_feature[new, word[i]] += count[i]
        labels[d] = new


class _Sparse(NamedTuple):
    doc_start: np.ndarray
    word: np.ndarray
    count: np.ndarray


def _sparse(data: Data) -> _Sparse:
    """Documents as compressed rows (CSR): only the words present are visited."""
    rows, columns = np.nonzero(data.counts)
    doc_start = np.zeros(data.counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=data.counts.shape[0]), out=doc_start[1:])
    return _Sparse(doc_start, columns.astype(np.int64), data.counts[rows, columns].astype(float))


def make_kernel(
    *,
    remove_document: bool = True,
    normaliser_offset: int = 0,
    normaliser: bool = True,
    alpha_offset: float = 0.0,
    remove_length: bool = True,
    scaled_uniform: bool = True,
) -> Kernel:
    """Build the kernel; the flags plant classic derivation bugs (negative controls).

    All flags at their defaults give the correct sampler; :mod:`zoo.models.naive_bayes.faults`
    names the wrong ones.

    Parameters
    ----------
    remove_document : bool
        False: the document being resampled is left in its current class's counts
        while its conditional is computed ("document not removed from the counts").
    normaliser_offset : int
        Nonzero: the Dirichlet-multinomial normaliser ``Gamma(V beta + T) /
        Gamma(V beta + T + L)`` (Bernoulli: ``b1 + b0 + n``) of class k is computed with
        the counts of class ``k + offset`` ("normaliser over the wrong class").
    normaliser : bool
        False: leave that normaliser out altogether, as if the collapsed conditional
        were ``prod_w Gamma(n_kw + x_w + beta_w) / Gamma(n_kw + beta_w)`` alone ("only
        the numerator of the Dirichlet-multinomial").
    alpha_offset : float
        Added to ``alpha_k`` in the label prior's factor ``n_k^-d + alpha_k``: ``-1`` is
        the Dirichlet mode's ``alpha_k - 1`` put where the predictive's ``alpha_k``
        belongs.
    remove_length : bool
        False: the document's words leave the class's word counts but not the class's
        running total ``T_k`` (multinomial), so the normaliser of its own class sees
        ``T_k`` with the document still in it.
    scaled_uniform : bool
        False: the categorical draw compares a ``Uniform(0, 1)`` with the cumulative
        unnormalised weights (the largest is 1) instead of ``Uniform(0, total)``.
    """
    # Data and priors are frozen, so per-data precomputations are cached by identity:
    # one tuple, read once per call, so threads sharing the kernel never mix entries.
    cached: tuple = (None, None, None, None, None)

    def prepared(data: Data, prior: Prior):
        nonlocal cached
        entry = cached
        if entry[0] is not data or entry[1] is not prior:
            hyper = prior.resolve(data)
            beta0 = hyper.beta0 if hyper.beta0 is not None else np.zeros((1, 1))
            entry = (data, prior, hyper, beta0, _sparse(data))
            cached = entry
        return entry[2:]

    def init(data: Data, prior: Prior, rng: np.random.Generator) -> State:
        prepared(data, prior)
        labels = np.array(data.labels, dtype=np.int64)
        # Uniform random labels: over-dispersed starts let R-hat see chains that stick.
        labels[data.unlabelled] = rng.integers(0, data.n_classes, size=data.unlabelled.size)
        return State(labels)

    def step(state: State, data: Data, prior: Prior, rng: np.random.Generator) -> State:
        hyper, beta0, sparse = prepared(data, prior)
        labels = state.labels.copy()
        _sweep(
            labels,
            data.unlabelled,
            sparse.doc_start,
            sparse.word,
            sparse.count,
            data.n_features,
            hyper.alpha,
            hyper.beta,
            beta0,
            data.event_model == "bernoulli",
            remove_document,
            normaliser_offset,
            normaliser,
            float(alpha_offset),
            remove_length,
            scaled_uniform,
            rng,
        )
        return State(labels)

    def draw(state: State, data: Data, prior: Prior, rng: np.random.Generator) -> dict:
        hyper, _, sparse = prepared(data, prior)
        k = data.n_classes
        class_docs, class_feature = _counts(
            state.labels, sparse.doc_start, sparse.word, sparse.count, k, data.n_features
        )
        pi = dirichlet(rng, hyper.alpha + class_docs)
        if data.event_model == "multinomial":
            phi = dirichlet(rng, hyper.beta + class_feature)
        else:
            phi = rng.beta(
                hyper.beta + class_feature, hyper.beta0 + class_docs[:, None] - class_feature
            )
        probability = class_probability(
            data.counts[data.unlabelled], pi, phi, event_model=data.event_model
        )
        return {"pi": pi, "phi": phi, "class_probability": probability}

    return Kernel(init=init, step=step, draw=draw)


kernel = make_kernel()
