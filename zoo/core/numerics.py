"""Small numerical helpers shared by the layers above the contract."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["central_hessian"]


def central_hessian(function: Callable, center, step: float = 1e-3) -> np.ndarray:
    """The Hessian of a scalar ``function`` at ``center`` by central differences.

    ``H_ij = (f(c + e_i + e_j) - f(c + e_i - e_j) - f(c - e_i + e_j) + f(c - e_i -
    e_j)) / (4 h^2)`` with ``e_i = h`` times the i-th unit vector, error ``O(h^2)``
    (Abramowitz and Stegun 1964, eq. 25.3.27). Used for Laplace scales of quadrature
    grids, where a few digits suffice.
    """
    center = np.asarray(center, dtype=float)
    d = center.size
    hessian = np.empty((d, d))
    for i in range(d):
        for j in range(d):
            ei, ej = np.eye(d)[i] * step, np.eye(d)[j] * step
            hessian[i, j] = (
                function(center + ei + ej)
                - function(center + ei - ej)
                - function(center - ei + ej)
                + function(center - ei - ej)
            ) / (4 * step * step)
    return hessian
