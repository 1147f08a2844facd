"""The Gaussian classifiers' linear algebra: triangular solves, rank-one updates, Wishart draws.

SciPy's ``solve_triangular`` costs about a millisecond per call on tiny matrices (input
checks and LAPACK dispatch), more than everything else in a sweep; for the ``d <= 10``
matrices of these models a compiled forward substitution is faster by orders of
magnitude. The Gibbs kernels call :func:`rank_one_update` and :func:`mahalanobis` from
their compiled sweeps.
"""

from __future__ import annotations

import functools
import math

import numba
import numpy as np

__all__ = ["draw_inverse_wishart", "forward_solve", "mahalanobis", "rank_one_update"]


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


@numba.njit(cache=True)
def rank_one_update(chol, vector, sign):
    """In place: ``L L^T + sign v v^T`` for lower ``L``; ``vector`` is overwritten.

    The rank-one Cholesky update (``sign = 1``) or downdate (``-1``) of Golub & Van
    Loan, *Matrix Computations*, 4th ed., section 6.5.4: ``O(d^2)`` instead of an
    ``O(d^3)`` refactorisation. Returns False if a downdate would lose positive
    definiteness.
    """
    d = chol.shape[0]
    for k in range(d):
        squared = chol[k, k] * chol[k, k] + sign * vector[k] * vector[k]
        if squared <= 0.0:
            return False
        root = math.sqrt(squared)
        cosine = root / chol[k, k]
        sine = vector[k] / chol[k, k]
        chol[k, k] = root
        for i in range(k + 1, d):
            chol[i, k] = (chol[i, k] + sign * sine * vector[i]) / cosine
            vector[i] = cosine * vector[i] - sine * chol[i, k]
    return True


@numba.njit(cache=True)
def mahalanobis(chol, diff, work):
    """``diff^T (L L^T)^-1 diff`` by forward substitution (``work`` is scratch, length d)."""
    d = chol.shape[0]
    total = 0.0
    for i in range(d):
        value = diff[i]
        for j in range(i):
            value -= chol[i, j] * work[j]
        value /= chol[i, i]
        work[i] = value
        total += value * value
    return total


@functools.cache
def _bartlett_indices(d: int):
    """The diagonal's and the strict lower triangle's indices of a (d, d) matrix.

    Built once per ``d``: ``numpy.tril_indices`` cost a tenth of a QDA fit, drawn every
    sweep for every class.
    """
    diagonal = np.diag_indices(d)
    below = np.tril_indices(d, -1)
    for index in (*diagonal, *below):
        index.flags.writeable = False
    return diagonal, below


def draw_inverse_wishart(
    nu: float, psi_chol: np.ndarray, rng: np.random.Generator, *, return_root: bool = False
):
    """One draw of ``Sigma ~ InvWishart(nu, Psi)`` given the Cholesky factor of ``Psi``.

    Bartlett decomposition (Bartlett 1933; Anderson, *An Introduction to Multivariate
    Statistical Analysis*, 3rd ed., theorem 7.2.1): the precision
    ``Sigma^-1 = L^-T A A^T L^-1`` is ``Wishart(nu, Psi^-1)`` when ``Psi = L L^T`` and
    ``A`` is lower triangular with ``A_jj^2 ~ chi2(nu - j)`` and standard normal entries
    below the diagonal; so ``Sigma = (L A^-T)(L A^-T)^T``. Only triangular solves, and
    non-integer ``nu`` is exact.

    Returns
    -------
    sigma : ndarray, shape (d, d)
    root : ndarray, shape (d, d)
        Only with ``return_root``: ``R = L A^-T`` with ``Sigma = R R^T`` (a square root,
        not triangular), so that ``m + R z / sqrt(kappa)`` draws ``N(m, Sigma / kappa)``.
    """
    d = psi_chol.shape[0]
    bartlett = np.zeros((d, d))
    diagonal, below = _bartlett_indices(d)
    bartlett[diagonal] = np.sqrt(rng.chisquare(nu - np.arange(d)))
    bartlett[below] = rng.standard_normal(below[0].size)
    # L A^-T = (A^-1 L^T)^T: one triangular solve.
    root = forward_solve(bartlett, psi_chol.T).T
    sigma = root @ root.T
    return (sigma, root) if return_root else sigma
