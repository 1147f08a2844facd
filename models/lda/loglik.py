"""LDA: the log-likelihood of the corpus given the parameters, topics summed out."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.special import logsumexp

from zoo.models.lda.spec import Data

__all__ = ["log_likelihood"]


def log_likelihood(data: Data, params: Mapping[str, np.ndarray]) -> float:
    """``log p(w | theta, phi) = sum_i log sum_k theta_{d_i k} phi_{k w_i}``.

    Each token's topic summed out (Blei, Ng & Jordan 2003, eq. 3), as the PyMC program
    does. Invariant under relabelling the topics, so it is a test quantity for
    simulation-based calibration whatever the prior's symmetry.
    """
    theta = np.asarray(params["theta"], dtype=float)
    phi = np.asarray(params["phi"], dtype=float)
    with np.errstate(divide="ignore"):
        log_theta = np.log(theta)[data.token_document]
        log_phi = np.log(phi).T[data.token_word]
    return float(np.sum(logsumexp(log_theta + log_phi, axis=1)))
