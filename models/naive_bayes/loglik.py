"""Dirichlet-prior Naive Bayes: the log-likelihood of the data given the parameters."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.special import gammaln

from zoo.models.logspace import logsumexp
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
    :func:`pointwise_log_likelihood` for one draw.
    """
    pi = np.asarray(params["pi"], dtype=float)
    if pi.shape != (data.n_classes,):
        raise ValueError(f"pi: expected shape ({data.n_classes},), got {pi.shape}")
    terms = pointwise_log_likelihood(data, params)
    return float(sum(np.sum(values) for values, _ in terms.values()))
