"""Small dense triangular solves for the hot paths of the GDA kernel.

SciPy's ``solve_triangular`` costs about a millisecond per call on tiny matrices (input
checks and LAPACK dispatch), more than everything else in a sweep; for the ``d <= 10``
matrices of a GDA model a compiled forward substitution is faster by orders of
magnitude.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["forward_solve"]


@numba.njit(cache=True)
def _forward_solve(lower, rhs):
    d, m = rhs.shape
    out = np.empty((d, m))
    for c in range(m):
        for i in range(d):
            value = rhs[i, c]
            for j in range(i):
                value -= lower[i, j] * out[j, c]
            out[i, c] = value / lower[i, i]
    return out


def forward_solve(lower: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Solve ``L X = B`` for lower-triangular ``L`` (d, d) and ``B`` (d, m)."""
    return _forward_solve(
        np.ascontiguousarray(lower, dtype=float), np.ascontiguousarray(rhs, dtype=float)
    )
