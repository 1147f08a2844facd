"""Bayesian GDA: the class of a point given the parameters, ``p(y = k | x, pi, mu, Sigma)``.

This is the ``class_probability`` both engines report per draw and :func:`simulate`
reports as the truth, so it sits below ``spec`` (Bayes' rule with Gaussian
class-conditional densities sharing one covariance; Murphy 2012, section 4.2.2).
"""

from __future__ import annotations

import numpy as np

from zoo.models.gda.linalg import forward_solve

__all__ = ["class_probability"]


def class_probability(x: np.ndarray, pi: np.ndarray, mu: np.ndarray, sigma: np.ndarray):
    """``p(y = k | x, pi, mu, Sigma)`` for each row of ``x``: softmax of the log joint.

    The log-determinant of Sigma is common to all classes and cancels.
    """
    chol = np.linalg.cholesky(sigma)
    log_joint = np.empty((x.shape[0], pi.shape[0]))
    for k in range(pi.shape[0]):
        white = forward_solve(chol, (x - mu[k]).T)
        log_joint[:, k] = np.log(pi[k]) - 0.5 * np.sum(white**2, axis=0)
    log_joint -= log_joint.max(axis=1, keepdims=True)
    prob = np.exp(log_joint)
    return prob / prob.sum(axis=1, keepdims=True)
