"""Gaussian classifiers (every covariance structure): the log-likelihood given the parameters."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numba
import numpy as np

from zoo.models.gaussian_classifiers.data import Data
from zoo.models.logspace import log_sum_exp_vector, logsumexp

__all__ = ["log_likelihood", "pointwise_log_likelihood"]


def _log_normal(x: np.ndarray, mu: np.ndarray, chol: np.ndarray) -> np.ndarray:
    """``log N(x | mu, L L^T)`` for points ``x`` (N, d) against means ``mu`` (..., N, d).

    Through the Cholesky factor ``L`` (..., N, d, d), or broadcastable to it:
    ``-d/2 log 2 pi - sum log diag L - |L^-1 (x - mu)|^2 / 2``; one batched solve for
    every draw and point.
    """
    dim = x.shape[-1]
    diff = x - mu  # (..., N, d)
    white = np.linalg.solve(chol, diff[..., None])[..., 0]
    log_det = np.sum(np.log(np.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)
    return -0.5 * dim * np.log(2.0 * np.pi) - log_det - 0.5 * np.sum(white**2, -1)


def _log_normal_shared(x: np.ndarray, mu: np.ndarray, chol: np.ndarray) -> np.ndarray:
    """As :func:`_log_normal` with one factor ``L`` (..., d, d) for every point.

    The points become the columns of one right-hand side: one solve per draw instead of
    one per point (for a single draw of GDA's, a third of Geweke's test).
    """
    dim = x.shape[-1]
    diff = np.swapaxes(x - mu, -1, -2)  # (..., d, N)
    white = np.linalg.solve(chol, diff)
    log_det = np.sum(np.log(np.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)[..., np.newaxis]
    return -0.5 * dim * np.log(2.0 * np.pi) - log_det - 0.5 * np.sum(white**2, axis=-2)


def _log_normal_diagonal(x: np.ndarray, mu: np.ndarray, variance: np.ndarray) -> np.ndarray:
    """``sum_j log N(x_j | mu_j, variance_j)``, shapes as :func:`_log_normal`'s."""
    return np.sum(-0.5 * np.log(2.0 * np.pi * variance) - 0.5 * (x - mu) ** 2 / variance, -1)


def _class_log_density(params: Mapping[str, np.ndarray]):
    """``f(x, classes)``: ``log p(x_n | y_n = classes_n, parameters)``, shape (..., N).

    For the shared ``Sigma`` (..., d, d), a ``Sigma`` per class (..., K, d, d), or a
    ``variance`` per class and feature (..., K, d).
    """
    mu = np.asarray(params["mu"], dtype=float)
    if "variance" in params:
        variance = np.asarray(params["variance"], dtype=float)
        return lambda x, ks: _log_normal_diagonal(x, mu[..., ks, :], variance[..., ks, :])
    sigma = np.asarray(params["Sigma"], dtype=float)
    chol = np.linalg.cholesky(sigma)
    if sigma.ndim == mu.ndim + 1:
        return lambda x, ks: _log_normal(x, mu[..., ks, :], chol[..., ks, :, :])
    # One Sigma for every class and point.
    return lambda x, ks: _log_normal_shared(x, mu[..., ks, :], chol)


def pointwise_log_likelihood(
    data: Data, params: Mapping[str, np.ndarray]
) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
    """The log-likelihood of each observation, for any number of draws.

    One entry per observed variable of the PyMC program, under its name and with the
    dims ``pymc.compute_log_likelihood`` gives it:

    - ``labels`` (``labelled``): ``log pi_{y_n}``;
    - ``x_labelled`` (``labelled``): ``log N(x_n | mu_{y_n}, Sigma_{y_n})``;
    - ``x_unlabelled`` (``unlabelled``): ``log sum_k pi_k N(x_u | mu_k, Sigma_k)``, the
      missing label summed out.

    Parameters
    ----------
    data : Data
    params : mapping
        ``pi`` (..., K), ``mu`` (..., K, d) and the covariance, with the same leading
        sample dims: ``Sigma`` (..., d, d) shared, ``Sigma`` (..., K, d, d) per class,
        or ``variance`` (..., K, d) per class and feature (naive Bayes).

    Returns
    -------
    dict
        ``{name: (values, dims)}``, values with the sample dims first. A part with no
        point is left out, as in :attr:`Data.observed_data`.
    """
    pi = np.asarray(params["pi"], dtype=float)
    density = _class_log_density(params)
    with np.errstate(divide="ignore"):
        log_pi = np.log(pi)
    labelled, unlabelled = data.labelled, data.unlabelled
    out = {}
    if labelled.size:
        labels = data.labels[labelled]
        out["labels"] = (log_pi[..., labels], ("labelled",))
        out["x_labelled"] = (density(data.x[labelled], labels), ("labelled",))
    if unlabelled.size:
        x = data.x[unlabelled]
        # (..., U, K): one column per class, each a batched evaluation over draws and points.
        joint = np.stack(
            [
                log_pi[..., k, None] + density(x, np.full(unlabelled.size, k))
                for k in range(pi.shape[-1])
            ],
            axis=-1,
        )
        out["x_unlabelled"] = (logsumexp(joint, axis=-1), ("unlabelled",))
    return out


def log_likelihood(data: Data, params: Mapping[str, np.ndarray]) -> float:
    """``log p(x, labels | pi, mu, covariance)``, the missing labels summed out.

    The sum of :func:`pointwise_log_likelihood` for one draw, in one compiled pass:
    Geweke's test and the invariance check evaluate it once per step on a few points,
    where the batched NumPy form cost about 110 us a call in dispatch alone (seven
    times a compiled pass; more than the kernel's sweep).
    """
    pi = np.asarray(params["pi"], dtype=float)
    if pi.shape != (data.n_classes,):
        raise ValueError(f"pi: expected shape ({data.n_classes},), got {pi.shape}")
    mu = np.asarray(params["mu"], dtype=float)
    n_classes, d = pi.shape[0], data.x.shape[1]
    if mu.shape != (n_classes, d):
        raise ValueError(f"mu: expected shape ({n_classes}, {d}), got {mu.shape}")
    if "variance" in params:
        variance = np.asarray(params["variance"], dtype=float)
        if variance.shape != (n_classes, d):
            raise ValueError(f"variance: expected shape ({n_classes}, {d}), got {variance.shape}")
        # The Cholesky factor of a diagonal covariance: the standard deviations.
        factor = np.zeros((n_classes, d, d))
        factor[:, np.arange(d), np.arange(d)] = np.sqrt(variance)
    else:
        sigma = np.asarray(params["Sigma"], dtype=float)
        if sigma.shape not in ((d, d), (n_classes, d, d)):
            raise ValueError(
                f"Sigma: expected shape ({d}, {d}) or ({n_classes}, {d}, {d}), got {sigma.shape}"
            )
        factor = np.linalg.cholesky(np.broadcast_to(sigma, (n_classes, d, d)))
    with np.errstate(divide="ignore"):
        log_pi = np.log(pi)
    return float(_one_draw_log_likelihood(data.x, data.labels, log_pi, mu, factor))


@numba.njit(cache=True)
def _point_log_density(point, mean, chol):
    """``log N(point | mean, L L^T)`` by forward substitution in ``L`` (d, d)."""
    d = point.shape[0]
    white = np.empty(d)
    quad = 0.0
    log_root = 0.0
    for i in range(d):
        value = point[i] - mean[i]
        for j in range(i):
            value -= chol[i, j] * white[j]
        white[i] = value / chol[i, i]
        quad += white[i] * white[i]
        log_root += math.log(chol[i, i])
    return -0.5 * d * math.log(2.0 * math.pi) - log_root - 0.5 * quad


@numba.njit(cache=True)
def _one_draw_log_likelihood(x, labels, log_pi, mu, chol):
    """:func:`log_likelihood`'s sum: labelled points at their class, the others summed out."""
    n_classes = log_pi.shape[0]
    joint = np.empty(n_classes)
    total = 0.0
    for n in range(x.shape[0]):
        k = labels[n]
        if k >= 0:
            total += log_pi[k] + _point_log_density(x[n], mu[k], chol[k])
            continue
        for c in range(n_classes):
            joint[c] = log_pi[c] + _point_log_density(x[n], mu[c], chol[c])
        total += log_sum_exp_vector(joint)
    return total
