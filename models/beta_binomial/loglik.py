"""Beta-Binomial: the log-likelihood of the data given the parameters."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.special import gammaln

from zoo.models.beta_binomial.spec import Data

__all__ = ["log_likelihood"]


def log_likelihood(data: Data, params: Mapping[str, np.ndarray]) -> float:
    """``log p(y | theta) = sum_j log Binomial(y_j | n_j, theta_j)``, with the coefficient.

    Used as a test quantity by simulation-based calibration and Geweke's test (Talts
    et al. 2018, sec. 4: a statistic of data and parameters jointly). Parameters at 0 or
    1 (possible in a float draw) give ``-inf`` only when the data rule them out.
    """
    theta = np.asarray(params["theta"], dtype=float)
    y = data.successes.astype(float)
    n = data.trials.astype(float)
    coefficient = gammaln(n + 1.0) - gammaln(y + 1.0) - gammaln(n - y + 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        # xlogy semantics: 0 * log 0 = 0.
        success = np.where(y > 0, y * np.log(theta), 0.0)
        failure = np.where(n - y > 0, (n - y) * np.log1p(-theta), 0.0)
    return float(np.sum(coefficient + success + failure))
