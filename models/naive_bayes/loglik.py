"""Dirichlet-prior Naive Bayes: the log-likelihood of the data given the parameters."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.special import gammaln, logsumexp

from zoo.models.naive_bayes.conditional import log_class_joint
from zoo.models.naive_bayes.spec import Data

__all__ = ["log_likelihood"]


def log_likelihood(data: Data, params: Mapping[str, np.ndarray]) -> float:
    """``log p(X, y_labelled | pi, phi)``, the missing labels summed out.

    Labelled documents contribute ``log pi_y + log p(x | phi_y)``, unlabelled ones
    ``log sum_k pi_k p(x | phi_k)``; for the multinomial event model the multinomial
    coefficient ``L! / prod_v x_v!`` is included, so the value is a proper log-density
    (it matters for Geweke's moment tests, not for ranks).
    """
    pi = np.asarray(params["pi"], dtype=float)
    phi = np.asarray(params["phi"], dtype=float)
    joint = log_class_joint(data.counts, pi, phi, event_model=data.event_model)
    labelled, unlabelled = data.labelled, data.unlabelled
    total = float(np.sum(joint[labelled, data.labels[labelled]]))
    if unlabelled.size:
        total += float(np.sum(logsumexp(joint[unlabelled], axis=1)))
    if data.event_model == "multinomial":
        counts = data.counts.astype(float)
        total += float(np.sum(gammaln(counts.sum(axis=1) + 1.0) - gammaln(counts + 1.0).sum(1)))
    return total
