"""Beta-Binomial: the log-likelihood of the data given the parameters."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.special import gammaln

from zoo.models.beta_binomial.spec import Data

__all__ = ["log_likelihood", "pointwise_log_likelihood"]


def pointwise_log_likelihood(
    data: Data, params: Mapping[str, np.ndarray]
) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
    """``log Binomial(y_j | n_j, theta_j)`` per group, for any number of draws.

    Parameters
    ----------
    data : Data
    params : mapping
        ``theta`` with any leading sample dims, shape ``(..., J)``.

    Returns
    -------
    dict
        ``{"y": (values, ("group",))}``, values of shape ``(..., J)``: the observed
        variable of the PyMC program under its name and dims, as
        ``pymc.compute_log_likelihood`` gives it (the binomial coefficient included).
        Parameters at 0 or 1 give ``-inf`` only where the data rule them out.
    """
    theta = np.asarray(params["theta"], dtype=float)
    y = data.successes.astype(float)
    n = data.trials.astype(float)
    coefficient = gammaln(n + 1.0) - gammaln(y + 1.0) - gammaln(n - y + 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        # xlogy semantics: 0 * log 0 = 0.
        success = np.where(y > 0, y * np.log(theta), 0.0)
        failure = np.where(n - y > 0, (n - y) * np.log1p(-theta), 0.0)
    return {"y": (coefficient + success + failure, ("group",))}


def log_likelihood(data: Data, params: Mapping[str, np.ndarray]) -> float:
    """``log p(y | theta) = sum_j log Binomial(y_j | n_j, theta_j)``, with the coefficient.

    Used as a test quantity by simulation-based calibration and Geweke's test (Talts
    et al. 2018, sec. 4: a statistic of data and parameters jointly). The sum of
    :func:`pointwise_log_likelihood` for one draw.
    """
    theta = np.asarray(params["theta"], dtype=float)
    if theta.shape != data.successes.shape:
        raise ValueError(f"theta: expected shape {data.successes.shape}, got {theta.shape}")
    values, _ = pointwise_log_likelihood(data, {"theta": theta})["y"]
    return float(np.sum(values))
