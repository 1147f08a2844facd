"""Bayesian GDA: the log-likelihood of the data given the parameters."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.special import logsumexp

from zoo.models.gda.linalg import forward_solve
from zoo.models.gda.spec import Data

__all__ = ["log_likelihood"]


def log_likelihood(data: Data, params: Mapping[str, np.ndarray]) -> float:
    """``log p(x, labels | pi, mu, Sigma)``, the missing labels summed out.

    ``log N(x | mu_k, Sigma)`` through the Cholesky factor L of Sigma:
    ``-d/2 log 2 pi - sum log diag L - |L^-1 (x - mu_k)|^2 / 2``.
    """
    pi = np.asarray(params["pi"], dtype=float)
    mu = np.asarray(params["mu"], dtype=float)
    chol = np.linalg.cholesky(np.asarray(params["Sigma"], dtype=float))
    n_points, dim = data.x.shape
    normaliser = -0.5 * dim * np.log(2.0 * np.pi) - np.sum(np.log(np.diag(chol)))
    joint = np.empty((n_points, pi.shape[0]))
    with np.errstate(divide="ignore"):
        log_pi = np.log(pi)
    for k in range(pi.shape[0]):
        white = forward_solve(chol, (data.x - mu[k]).T)
        joint[:, k] = log_pi[k] + normaliser - 0.5 * np.sum(white**2, axis=0)
    labelled, unlabelled = data.labelled, data.unlabelled
    total = float(np.sum(joint[labelled, data.labels[labelled]]))
    if unlabelled.size:
        total += float(np.sum(logsumexp(joint[unlabelled], axis=1)))
    return total
