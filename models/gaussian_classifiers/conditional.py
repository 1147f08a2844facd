"""Gaussian classifiers: the class of a point given the parameters, ``p(y = k | x, ...)``.

This is the ``class_probability`` both engines report per draw and :func:`simulate`
reports as the truth, so it sits below ``spec`` (Bayes' rule with Gaussian
class-conditional densities sharing one covariance; Murphy 2012, section 4.2.2).
"""

from __future__ import annotations

import numpy as np

from zoo.models.gaussian_classifiers.linalg import forward_solve

__all__ = ["class_probability", "per_class_log_density", "per_class_probability"]


def class_probability(x: np.ndarray, pi: np.ndarray, mu: np.ndarray, sigma: np.ndarray):
    """``p(y = k | x, pi, mu, Sigma)`` for each row of ``x``: softmax of the log joint.

    The log-determinant of Sigma is common to all classes and cancels.
    """
    chol = np.linalg.cholesky(sigma)
    log_joint = np.empty((x.shape[0], pi.shape[0]))
    for k in range(pi.shape[0]):
        white = forward_solve(chol, (x - mu[k]).T)
        log_joint[:, k] = np.log(pi[k]) - 0.5 * np.sum(white**2, axis=0)
    return _softmax(log_joint)


def _softmax(log_joint: np.ndarray) -> np.ndarray:
    """Rows of ``exp(log_joint)`` normalised, shifted by their largest entry first."""
    log_joint = log_joint - log_joint.max(axis=1, keepdims=True)
    prob = np.exp(log_joint)
    return prob / prob.sum(axis=1, keepdims=True)


def per_class_log_density(x: np.ndarray, mu: np.ndarray, covariance: np.ndarray) -> np.ndarray:
    """``log N(x_i | mu_k, Sigma_k)`` for each row of ``x`` and each class, shape (n, K).

    ``covariance`` is ``Sigma_k`` (K, d, d), or the variances (K, d) of a diagonal one
    (naive Bayes: a product of univariate normals). Through Cholesky factors, the
    log-determinant included: with one covariance per class it does not cancel.
    """
    n_classes, d = mu.shape
    out = np.empty((x.shape[0], n_classes))
    for k in range(n_classes):
        if covariance.ndim == 2:
            white = (x - mu[k]) / np.sqrt(covariance[k])
            log_root = 0.5 * np.log(covariance[k]).sum()
            quad = np.sum(white**2, axis=1)
        else:
            chol = np.linalg.cholesky(covariance[k])
            quad = np.sum(forward_solve(chol, (x - mu[k]).T) ** 2, axis=0)
            log_root = np.log(np.diag(chol)).sum()
        out[:, k] = -0.5 * d * np.log(2.0 * np.pi) - log_root - 0.5 * quad
    return out


def per_class_probability(x, pi, mu, covariance) -> np.ndarray:
    """``p(y = k | x, pi, mu, Sigma_k)`` for each row of ``x``, one covariance per class.

    ``covariance`` as in :func:`per_class_log_density` (full or diagonal).
    """
    # A class weight drawn below the smallest double (pseudo-counts near 1e-3) is 0:
    # its log is -inf and the class's probability 0, as near enough it is.
    with np.errstate(divide="ignore"):
        log_pi = np.log(pi)
    return _softmax(log_pi + per_class_log_density(x, mu, covariance))
