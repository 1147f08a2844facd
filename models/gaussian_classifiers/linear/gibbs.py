"""Bayesian linear discriminant analysis (``gda``): the collapsed Gibbs kernel.

The state is the full label vector; only the unlabelled points' labels move. With
``pi``, every ``mu_k`` and the shared ``Sigma`` integrated out, the conditional of one
unlabelled label is (Murphy 2007, "Conjugate Bayesian analysis of the Gaussian
distribution", eq. 258; the Dirichlet part as in Resnik & Hardisty 2010)

``p(y_i = k | x, y_-i) ∝ (n_k^-i + alpha_k) t(x_i | nu^-i - d + 1, m_k^-i,
Psi^-i (kappa_k^-i + 1) / (kappa_k^-i (nu^-i - d + 1)))``

where the statistics with superscript ``-i`` leave point ``i`` out. ``Psi^-i`` is the
same for every candidate class (Sigma is shared), so only one Cholesky factor is kept.
Adding a point ``x`` to a class with ``(kappa, m)`` changes ``Psi`` by the rank-one term
``kappa / (kappa + 1) (x - m)(x - m)^T`` (the sequential form of the scatter-matrix
update), so removing and re-adding a point are a rank-one Cholesky downdate and update
(:func:`~zoo.models.gaussian_classifiers.linalg.rank_one_update`), ``O(d^2)`` each
instead of an ``O(d^3)`` refactorisation. Everything is computed in log space from the
Cholesky factor (triangular solves, never an inverse).

:func:`draw` then returns ``pi``, ``Sigma`` and ``mu`` from their conjugate
conditionals given the labels (Sigma by the Bartlett decomposition), and the class
probabilities of the unlabelled points given those parameters: the same function of
the parameters that the PyMC program computes, so the two outputs compare name by name.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from zoo.core.contract import Kernel
from zoo.models.gaussian_classifiers.collapsed_gibbs import State, draw_class, initial_state
from zoo.models.gaussian_classifiers.conditional import class_probability
from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.linalg import (
    draw_inverse_wishart,
    mahalanobis,
    rank_one_update,
)
from zoo.models.gaussian_classifiers.niw import class_statistics
from zoo.models.gaussian_classifiers.prior import Prior
from zoo.models.simplex import dirichlet

__all__ = ["State", "kernel", "make_kernel"]


@numba.njit(cache=True)
def _sweep(
    x, labels, hidden, counts, sums, chol, alpha, m0, kappa0, nu_rest, kappa_fixed, downdate, rng
):
    """One systematic-scan sweep over the unlabelled points; updates arrays in place.

    ``sums`` holds ``kappa0 m0 + sum of the class's points``, so ``m_k = sums_k / kappa_k``.
    ``nu_rest`` is the inverse-Wishart degrees of freedom with one point left out.
    Returns False if the Cholesky factor broke down (never for a positive definite
    ``psi0``, kept as a guard).
    """
    n_classes, d = sums.shape
    diff = np.empty(d)
    work = np.empty(d)
    log_weight = np.empty(n_classes)
    df = nu_rest - d + 1.0
    for i in hidden:
        point = x[i]
        old = labels[i]
        # Leave point i out: Psi^-i = Psi - kappa^-i / (kappa^-i + 1) (x - m^-i)(...)^T.
        counts[old] -= 1
        for j in range(d):
            sums[old, j] -= point[j]
        kappa = kappa0 + counts[old]
        for j in range(d):
            diff[j] = (point[j] - sums[old, j] / kappa) * math.sqrt(kappa / (kappa + 1.0))
        # (not downdate: the bug, Psi keeps point i while its conditional is formed)
        if downdate and not rank_one_update(chol, diff, -1.0):
            return False
        top = -math.inf
        for k in range(n_classes):
            kappa = kappa0 + counts[k]
            for j in range(d):
                diff[j] = point[j] - sums[k, j] / kappa
            spread_kappa = kappa0 if kappa_fixed else kappa
            factor = (spread_kappa + 1.0) / (spread_kappa * df)
            quad = mahalanobis(chol, diff, work) / factor
            # Terms common to all classes (log |Psi^-i|, Gamma functions) cancel.
            log_weight[k] = (
                math.log(counts[k] + alpha[k])
                - 0.5 * d * math.log(factor)
                - 0.5 * (df + d) * math.log1p(quad / df)
            )
            top = max(top, log_weight[k])
        new = draw_class(log_weight, top, rng)
        kappa = kappa0 + counts[new]
        for j in range(d):
            diff[j] = (point[j] - sums[new, j] / kappa) * math.sqrt(kappa / (kappa + 1.0))
        rank_one_update(chol, diff, 1.0)
        counts[new] += 1
        for j in range(d):
            sums[new, j] += point[j]
        labels[i] = new
    return True


def _statistics(
    data: Data, labels: np.ndarray, hyper, *, sample_covariance: bool, gap_term: bool = True
):
    """``n_k``, ``kappa_k``, ``m_k`` and ``Psi_N`` (scatter-matrix form) for full labels."""
    onehot = (labels[:, np.newaxis] == np.arange(data.n_classes)).astype(float)
    counts, means, scatter = (part[0] for part in class_statistics(data.x, onehot[np.newaxis]))
    if sample_covariance:
        # The planted bug: the class covariance S_k / n_k instead of the scatter S_k.
        scatter = scatter / np.maximum(counts, 1)[:, np.newaxis, np.newaxis]
    kappa = hyper.kappa0 + counts
    mean = (hyper.kappa0 * hyper.m0 + counts[:, np.newaxis] * means) / kappa[:, np.newaxis]
    gap = means - hyper.m0
    # (not gap_term: the bug, Psi_N without the prior-mean term; Murphy 2007, NIW posterior)
    shrink = hyper.kappa0 * counts / kappa if gap_term else np.zeros_like(counts)
    psi = hyper.psi0 + np.sum(
        scatter + shrink[:, None, None] * gap[:, :, None] * gap[:, None, :], 0
    )
    return counts, kappa, mean, psi


def make_kernel(
    *,
    nu_offset: int = 0,
    sample_covariance: bool = False,
    kappa_fixed: bool = False,
    downdate: bool = True,
    gap_term: bool = True,
    mu_scale_sqrt: bool = True,
    probability_from_draw: bool = True,
) -> Kernel:
    """Build the kernel; the flags plant classic derivation bugs (negative controls).

    All flags at their defaults give the correct sampler;
    :mod:`zoo.models.gaussian_classifiers.linear.faults` names the wrong ones.

    Parameters
    ----------
    nu_offset : int
        Add this to the inverse-Wishart degrees of freedom ``nu_N = nu0 + N`` (and to
        the collapsed predictive's): ``1`` is the off-by-one bug.
    sample_covariance : bool
        Use the class sample covariance ``S_k / n_k`` in ``Psi_N`` instead of the
        scatter matrix ``S_k``.
    kappa_fixed : bool
        Never update ``kappa_k``: use ``kappa0`` in ``mu_k | Sigma ~ N(m_k, Sigma /
        kappa_k)`` and in the predictive scale.
    downdate : bool
        False: the point being resampled is taken out of its class's count and sum but
        not out of ``Psi`` (no rank-one downdate), and is added to ``Psi`` again after.
    gap_term : bool
        False: ``Psi_N = Psi0 + sum_k S_k`` without the prior-mean term
        ``sum_k kappa0 n_k / (kappa0 + n_k) (xbar_k - m0)(xbar_k - m0)^T``.
    mu_scale_sqrt : bool
        False: ``mu_k`` drawn as ``m_k + L z / kappa_k`` (the variance's divisor on the
        standard deviation) instead of ``m_k + L z / sqrt(kappa_k)``.
    probability_from_draw : bool
        False: ``class_probability`` computed at the conditional mean ``m_k`` instead of
        the drawn ``mu_k``.
    """

    def step(state: State, data: Data, prior: Prior, rng: np.random.Generator) -> State:
        hidden = data.unlabelled
        if hidden.size == 0:
            return state
        hyper = prior.resolve(data)
        labels = state.labels.copy()
        counts, kappa, mean, psi = _statistics(
            data, labels, hyper, sample_covariance=False, gap_term=gap_term
        )
        sums = kappa[:, np.newaxis] * mean
        # One factorisation per sweep (not per point) also stops rounding drift of the
        # rank-one updates from accumulating over sweeps.
        chol = np.linalg.cholesky(psi)
        nu_rest = hyper.nu0 + data.x.shape[0] - 1 + nu_offset
        ok = _sweep(
            data.x,
            labels,
            hidden,
            counts.astype(np.int64),
            sums,
            chol,
            hyper.alpha,
            hyper.m0,
            hyper.kappa0,
            float(nu_rest),
            kappa_fixed,
            downdate,
            rng,
        )
        if not ok:
            raise FloatingPointError("gda.step: Cholesky downdate lost positive definiteness")
        return State(labels)

    def draw(state: State, data: Data, prior: Prior, rng: np.random.Generator) -> dict:
        hyper = prior.resolve(data)
        counts, kappa, mean, psi = _statistics(
            data, state.labels, hyper, sample_covariance=sample_covariance, gap_term=gap_term
        )
        d = data.x.shape[1]
        nu = hyper.nu0 + data.x.shape[0] + nu_offset
        pi = dirichlet(rng, hyper.alpha + counts)
        sigma, root = draw_inverse_wishart(nu, np.linalg.cholesky(psi), rng, return_root=True)
        spread = np.full_like(kappa, hyper.kappa0) if kappa_fixed else kappa
        # (not mu_scale_sqrt: the bug, the sd of mu_k divided by kappa_k, not its root)
        scale = np.sqrt(spread) if mu_scale_sqrt else spread
        mu = mean + rng.standard_normal((data.n_classes, d)) @ root.T / scale[:, None]
        # (not probability_from_draw: the bug, the class means' conditional mean stored)
        at = mu if probability_from_draw else mean
        return {
            "pi": pi,
            "mu": mu,
            "Sigma": sigma,
            "class_probability": class_probability(data.x[data.unlabelled], pi, at, sigma),
        }

    return Kernel(init=initial_state, step=step, draw=draw)


kernel = make_kernel()
