"""Naive Bayes: the class of a document given the parameters, ``p(y_d = k | pi, phi, x_d)``.

This is the ``class_probability`` both engines report per draw and :func:`simulate`
reports as the truth, so it sits below ``spec`` (Murphy 2012, section 3.5.1: Bayes'
rule with the class-conditional densities of the event model).
"""

from __future__ import annotations

import numpy as np

__all__ = ["class_probability", "log_class_joint"]


def log_class_joint(counts, pi, phi, *, event_model: str) -> np.ndarray:
    """``log pi_k + log p(x_d | phi_k)`` up to a term constant in k, shape (N, K).

    The multinomial coefficient of each document does not depend on its class and is
    left out. Parameters that underflowed to 0 in a random draw are floored at the
    smallest normal double, so that ``0 * log 0`` counts as 0, not NaN.
    """
    counts = np.asarray(counts, dtype=float)
    tiny = np.finfo(float).tiny
    log_phi = np.log(np.maximum(phi, tiny))
    joint = np.log(np.maximum(pi, tiny)) + counts @ log_phi.T
    if event_model == "bernoulli":
        joint = joint + (1.0 - counts) @ np.log(np.maximum(1.0 - phi, tiny)).T
    return joint


def class_probability(counts, pi, phi, *, event_model: str) -> np.ndarray:
    """``p(y_d = k | pi, phi, x_d)`` for each row of ``counts``, shape (N, K)."""
    joint = log_class_joint(counts, pi, phi, event_model=event_model)
    # A plain max-shifted softmax: called once per Gibbs draw, where scipy's logsumexp
    # costs more than the rest of the draw.
    weights = np.exp(joint - joint.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)
