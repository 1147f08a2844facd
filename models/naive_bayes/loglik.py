"""Dirichlet-prior Naive Bayes: the log-likelihood of the data given the parameters."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numba
import numpy as np
from scipy.special import gammaln

from zoo.models.logspace import log_sum_exp_vector, logsumexp
from zoo.models.naive_bayes.spec import Data

__all__ = ["log_likelihood", "pointwise_log_likelihood"]


def _log(values: np.ndarray) -> np.ndarray:
    # Floored at the smallest normal double, as conditional.log_class_joint does, so that
    # a parameter that underflowed to 0 in a draw counts 0 * log 0 as 0, not NaN.
    return np.log(np.maximum(values, np.finfo(float).tiny))


def _multinomial_coefficient(counts: np.ndarray) -> np.ndarray:
    """``log L! - sum_v log x_v!`` per document: the pmf's term free of parameters."""
    counts = counts.astype(float)
    return gammaln(counts.sum(axis=-1) + 1.0) - gammaln(counts + 1.0).sum(axis=-1)


def pointwise_log_likelihood(
    data: Data, params: Mapping[str, np.ndarray]
) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
    """The log-likelihood of each observation, for any number of draws.

    One entry per observed variable of the PyMC program, under its name and with the
    dims ``pymc.compute_log_likelihood`` gives it:

    - ``labels`` (``labelled``): ``log pi_{y_d}``;
    - ``x_labelled``: ``log p(x_d | phi_{y_d})`` per document (``labelled``) for the
      multinomial event model, the multinomial coefficient included; per document and
      feature (``labelled``, ``feature``) for the Bernoulli one, whose features are
      separate Bernoulli observations;
    - ``x_unlabelled`` (``unlabelled``): ``log sum_k pi_k p(x_u | phi_k)``, the missing
      label summed out, as the program's ``CustomDist`` does (Murphy 2012, eq. 3.65
      for the class-conditional densities).

    Parameters
    ----------
    data : Data
    params : mapping
        ``pi`` of shape ``(..., K)`` and ``phi`` of shape ``(..., K, V)``, with the same
        leading sample dims.

    Returns
    -------
    dict
        ``{name: (values, dims)}``, values with the sample dims first. A part with no
        document is left out, as in :attr:`Data.observed_data`.
    """
    pi = np.asarray(params["pi"], dtype=float)
    phi = np.asarray(params["phi"], dtype=float)
    bernoulli = data.event_model == "bernoulli"
    log_pi, log_phi = _log(pi), _log(phi)
    log_not_phi = _log(1.0 - phi) if bernoulli else None
    labelled, unlabelled = data.labelled, data.unlabelled
    out = {}
    if labelled.size:
        labels = data.labels[labelled]
        x = data.counts[labelled].astype(float)
        out["labels"] = (log_pi[..., labels], ("labelled",))
        if bernoulli:
            values = x * log_phi[..., labels, :] + (1.0 - x) * log_not_phi[..., labels, :]
            out["x_labelled"] = (values, ("labelled", "feature"))
        else:
            # Every class's term by one matrix product (..., L, K), then each document's
            # own: cheaper than gathering phi's rows into an (..., L, V) array.
            joint = x @ np.swapaxes(log_phi, -1, -2)
            index = np.broadcast_to(labels[:, None], (*joint.shape[:-1], 1))
            values = np.take_along_axis(joint, index, axis=-1)[..., 0]
            out["x_labelled"] = (values + _multinomial_coefficient(x), ("labelled",))
    if unlabelled.size:
        x = data.counts[unlabelled].astype(float)
        # (..., U, K): log pi_k + log p(x_u | phi_k), by matrix products over features.
        joint = log_pi[..., None, :] + x @ np.swapaxes(log_phi, -1, -2)
        if bernoulli:
            joint = joint + (1.0 - x) @ np.swapaxes(log_not_phi, -1, -2)
        values = logsumexp(joint, axis=-1)
        if not bernoulli:
            values = values + _multinomial_coefficient(x)
        out["x_unlabelled"] = (values, ("unlabelled",))
    return out


def log_likelihood(data: Data, params: Mapping[str, np.ndarray]) -> float:
    """``log p(X, y_labelled | pi, phi)``, the missing labels summed out.

    Labelled documents contribute ``log pi_y + log p(x | phi_y)``, unlabelled ones
    ``log sum_k pi_k p(x | phi_k)``; for the multinomial event model the multinomial
    coefficient ``L! / prod_v x_v!`` is included, so the value is a proper log-density
    (it matters for Geweke's moment tests, not for ranks). The sum of
    :func:`pointwise_log_likelihood` for one draw, in one compiled pass: Geweke's test
    and the invariance check call it at every step on a few documents, where the
    batched NumPy form's dispatch cost about 70 us a call.
    """
    pi = np.asarray(params["pi"], dtype=float)
    if pi.shape != (data.n_classes,):
        raise ValueError(f"pi: expected shape ({data.n_classes},), got {pi.shape}")
    phi = np.asarray(params["phi"], dtype=float)
    expected = (data.n_classes, data.counts.shape[1])
    if phi.shape != expected:
        raise ValueError(f"phi: expected shape {expected}, got {phi.shape}")
    bernoulli = data.event_model == "bernoulli"
    # The multinomial model never reads log(1 - phi): an empty row per class.
    log_not_phi = _log(1.0 - phi) if bernoulli else np.empty((data.n_classes, 0))
    return float(
        _one_draw_log_likelihood(
            data.counts, data.labels, _log(pi), _log(phi), log_not_phi, bernoulli
        )
    )


@numba.njit(cache=True)
def _document_log_density(row, log_phi, log_not_phi, bernoulli):
    """``log p(x | phi_k)`` of one document without the multinomial coefficient."""
    value = 0.0
    for v in range(row.shape[0]):
        if bernoulli:
            value += log_phi[v] if row[v] else log_not_phi[v]
        elif row[v]:
            value += row[v] * log_phi[v]
    return value


@numba.njit(cache=True)
def _one_draw_log_likelihood(counts, labels, log_pi, log_phi, log_not_phi, bernoulli):
    """:func:`log_likelihood`'s sum: labelled documents at their class, the others summed out."""
    n_classes = log_pi.shape[0]
    joint = np.empty(n_classes)
    total = 0.0
    for d in range(counts.shape[0]):
        row = counts[d]
        if not bernoulli:
            # log L! - sum_v log x_v!
            length = 0
            for v in range(row.shape[0]):
                length += row[v]
                total -= math.lgamma(row[v] + 1.0)
            total += math.lgamma(length + 1.0)
        k = labels[d]
        if k >= 0:
            total += log_pi[k] + _document_log_density(row, log_phi[k], log_not_phi[k], bernoulli)
            continue
        for c in range(n_classes):
            joint[c] = log_pi[c] + _document_log_density(
                row, log_phi[c], log_not_phi[c], bernoulli
            )
        total += log_sum_exp_vector(joint)
    return total
