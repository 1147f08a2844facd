"""One covariance per class: the collapsed Gibbs kernel of QDA and of Gaussian naive Bayes.

The state is the full label vector; only the unlabelled points' labels move. With
``pi`` and every class's mean and covariance integrated out, the conditional of one
unlabelled label is (Murphy 2007, "Conjugate Bayesian analysis of the Gaussian
distribution", eq. 258; the Dirichlet part as in Resnik & Hardisty 2010)

``p(y_i = k | x, y_-i) ∝ (n_k^-i + alpha_k) t(x_i | nu_k^-i - e + 1, m_k^-i,
Psi_k^-i (kappa_k^-i + 1) / (kappa_k^-i (nu_k^-i - e + 1)))``,

with ``e = d`` (QDA, a full ``Psi_k``) or ``e = 1`` feature by feature (naive Bayes, a
product of univariate t's). Unlike the shared structure, each class has its own
``Psi_k`` and ``nu_k``, so ``log |Psi_k|`` and the Gamma functions stay in the weights.
Moving a point out of or into class ``k`` changes ``Psi_k`` by the rank-one term
``kappa / (kappa + 1) (x - m)(x - m)^T`` (``kappa`` and ``m`` without the point): a
rank-one Cholesky downdate or update of that class's factor
(:func:`~zoo.models.gaussian_classifiers.linalg.rank_one_update`), ``O(d^2)``, or ``d``
scalar updates of its scales when diagonal. Everything in log space from the Cholesky factors.

:func:`draw` then returns ``pi``, every ``Sigma_k`` (Bartlett) or ``variance_kj``
(``Psi_kj / chi2(nu_k)``) and ``mu`` from their conjugate conditionals, and the class
probabilities of the unlabelled points given those parameters, as the PyMC program
computes them.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from zoo.core.contract import Kernel
from zoo.models.gaussian_classifiers.class_niw import class_update
from zoo.models.gaussian_classifiers.collapsed_gibbs import State, draw_class, initial_state
from zoo.models.gaussian_classifiers.conditional import per_class_probability
from zoo.models.gaussian_classifiers.linalg import (
    draw_inverse_wishart,
    mahalanobis,
    rank_one_update,
)
from zoo.models.gaussian_classifiers.niw import class_statistics
from zoo.models.simplex import dirichlet

__all__ = ["FAULT_KINDS", "FAULT_SWITCHES", "class_faults", "make_per_class_kernel"]

#: The kind of each fault (module docstring), as in every model's ``faults.KINDS``.
FAULT_KINDS = {
    "log-det-dropped": "formula",
    "nu-off-by-one": "formula",
    "kappa-not-updated": "formula",
    "sample-covariance": "formula",
    "mu-scale-as-variance": "draw",
    "probability-at-mean": "storage",
}

#: The switch of :func:`make_per_class_kernel` that plants each fault.
FAULT_SWITCHES = {
    "log-det-dropped": {"log_det_term": False},
    "nu-off-by-one": {"nu_offset": 1},
    "kappa-not-updated": {"kappa_fixed": True},
    "sample-covariance": {"sample_covariance": True},
    "mu-scale-as-variance": {"mu_scale_sqrt": False},
    "probability-at-mean": {"probability_from_draw": False},
}


@numba.njit(cache=True)
def _log_t(df, dim, log_root, quad):
    """Log density of a ``dim``-variate t from ``log |scale|^(1/2)`` and the distance."""
    return (
        math.lgamma(0.5 * (df + dim))
        - math.lgamma(0.5 * df)
        - 0.5 * dim * math.log(df * math.pi)
        - log_root
        - 0.5 * (df + dim) * math.log1p(quad / df)
    )


@numba.njit(cache=True)
def _move(point, k, counts, sums, chol, scales, kappa0, diagonal, sign):
    """Take ``point`` out of class ``k`` (``sign = -1``) or put it in (``+1``), in place.

    The rank-one change of ``Psi_k`` uses ``kappa`` and ``m`` of the class without the
    point. Returns False if a downdate lost positive definiteness.
    """
    d = point.shape[0]
    if sign < 0:
        counts[k] -= 1
        for j in range(d):
            sums[k, j] -= point[j]
    kappa = kappa0 + counts[k]
    root = math.sqrt(kappa / (kappa + 1.0))
    diff = np.empty(d)
    for j in range(d):
        diff[j] = (point[j] - sums[k, j] / kappa) * root
    if diagonal:
        for j in range(d):
            scales[k, j] += sign * diff[j] * diff[j]
            if scales[k, j] <= 0.0:
                return False
    elif not rank_one_update(chol[k], diff, sign):
        return False
    if sign > 0:
        counts[k] += 1
        for j in range(d):
            sums[k, j] += point[j]
    return True


@numba.njit(cache=True)
def _sweep(
    x,
    labels,
    hidden,
    counts,
    sums,
    chol,
    scales,
    alpha,
    kappa0,
    nu0,
    diagonal,
    kappa_fixed,
    log_det_term,
    downdate,
    rng,
):
    """One systematic-scan sweep over the unlabelled points; updates arrays in place.

    ``sums`` holds ``kappa0 m0 + sum of the class's points``; ``chol`` the Cholesky
    factors of ``Psi_k`` (full) or ``scales`` the ``Psi_kj`` (diagonal); ``nu0`` the
    prior degrees of freedom (plus a fault's offset). Returns False if a factor broke
    down (never for a positive definite ``psi0``, kept as a guard).
    """
    n_classes, d = sums.shape
    diff = np.empty(d)
    work = np.empty(d)
    log_weight = np.empty(n_classes)
    block = 1 if diagonal else d
    for i in hidden:
        point = x[i]
        old = labels[i]
        if downdate:
            if not _move(point, old, counts, sums, chol, scales, kappa0, diagonal, -1.0):
                return False
        else:
            # The bug: counts and sums lose the point, Psi_k keeps it.
            counts[old] -= 1
            for j in range(d):
                sums[old, j] -= point[j]
        top = -math.inf
        for k in range(n_classes):
            kappa = kappa0 + counts[k]
            spread = kappa0 if kappa_fixed else kappa
            df = nu0 + counts[k] - block + 1.0
            factor = (spread + 1.0) / (spread * df)
            for j in range(d):
                diff[j] = point[j] - sums[k, j] / kappa
            total = 0.0
            if diagonal:
                for j in range(d):
                    # (not log_det_term: the bug, log |Psi_k| dropped as if it cancelled)
                    log_root = 0.5 * math.log(factor)
                    if log_det_term:
                        log_root += 0.5 * math.log(scales[k, j])
                    quad = diff[j] * diff[j] / (scales[k, j] * factor)
                    total += _log_t(df, 1, log_root, quad)
            else:
                log_root = 0.5 * d * math.log(factor)
                if log_det_term:
                    for j in range(d):
                        log_root += math.log(chol[k, j, j])
                quad = mahalanobis(chol[k], diff, work) / factor
                total = _log_t(df, d, log_root, quad)
            log_weight[k] = math.log(counts[k] + alpha[k]) + total
            top = max(top, log_weight[k])
        new = draw_class(log_weight, top, rng)
        # (not downdate: Psi_new gains the point a second time if it never left)
        _move(point, new, counts, sums, chol, scales, kappa0, diagonal, 1.0)
        labels[i] = new
    return True


def _statistics(data, labels, hyper, *, diagonal: bool, sample_covariance: bool = False):
    """The per-class posterior (one component) given every label."""
    onehot = (labels[:, np.newaxis] == np.arange(data.n_classes)).astype(float)
    counts, means, scatter = class_statistics(data.x, onehot[np.newaxis])
    if sample_covariance:
        # The planted bug: the class covariance S_k / n_k instead of the scatter S_k.
        scatter = scatter / np.maximum(counts, 1)[..., np.newaxis, np.newaxis]
    kappa, mean, nu, psi = class_update(counts, means, scatter, hyper, diagonal=diagonal)
    return counts[0], kappa[0], mean[0], nu[0], psi[0]


def make_per_class_kernel(
    *,
    diagonal: bool,
    nu_offset: int = 0,
    sample_covariance: bool = False,
    kappa_fixed: bool = False,
    log_det_term: bool = True,
    downdate: bool = True,
    mu_scale_sqrt: bool = True,
    probability_from_draw: bool = True,
) -> Kernel:
    """Build the kernel of QDA (``diagonal=False``) or naive Bayes (``diagonal=True``).

    The other flags at their defaults give the correct sampler; each plants one classic
    derivation bug (negative controls, named in :data:`FAULT_SWITCHES`).

    Parameters
    ----------
    diagonal : bool
    nu_offset : int
        Add this to every ``nu_k = nu0 + n_k`` (step and draw): ``1`` is off by one.
    sample_covariance : bool
        The class sample covariance ``S_k / n_k`` in ``Psi_k`` instead of the scatter
        ``S_k`` (draw).
    kappa_fixed : bool
        ``kappa0`` where ``kappa_k = kappa0 + n_k`` belongs in the spread of ``mu_k``
        and of the predictive (step and draw).
    log_det_term : bool
        False: the collapsed conditional without ``log |Psi_k|`` (step), which cancels
        only when the classes share one covariance.
    downdate : bool
        False: the point being resampled leaves its class's count and sum but not
        ``Psi_k`` (step).
    mu_scale_sqrt : bool
        False: ``mu_k`` drawn with the spread divided by ``kappa_k``, not its root (draw).
    probability_from_draw : bool
        False: ``class_probability`` recorded at the conditional mean ``m_k`` instead of
        the drawn ``mu_k`` (storage).
    """

    def step(state: State, data, prior, rng: np.random.Generator) -> State:
        hidden = data.unlabelled
        if hidden.size == 0:
            return state
        hyper = prior.resolve(data)
        labels = state.labels.copy()
        counts, kappa, mean, _, psi = _statistics(data, labels, hyper, diagonal=diagonal)
        d = data.x.shape[1]
        # One factorisation per sweep (not per point) also stops rounding drift of the
        # rank-one updates from accumulating over sweeps.
        if diagonal:
            chol, scales = np.zeros((1, 1, 1)), psi.copy()
        else:
            chol, scales = np.linalg.cholesky(psi), np.zeros((1, d))
        ok = _sweep(
            data.x,
            labels,
            hidden,
            counts.astype(np.int64),
            kappa[:, np.newaxis] * mean,
            np.ascontiguousarray(chol),
            scales,
            hyper.alpha,
            hyper.kappa0,
            float(hyper.nu0 + nu_offset),
            diagonal,
            kappa_fixed,
            log_det_term,
            downdate,
            rng,
        )
        if not ok:
            raise FloatingPointError("step: a rank-one downdate lost positive definiteness")
        return State(labels)

    def draw(state: State, data, prior, rng: np.random.Generator) -> dict:
        hyper = prior.resolve(data)
        counts, kappa, mean, nu, psi = _statistics(
            data, state.labels, hyper, diagonal=diagonal, sample_covariance=sample_covariance
        )
        nu = nu + nu_offset
        pi = dirichlet(rng, hyper.alpha + counts)
        spread = np.full_like(kappa, hyper.kappa0) if kappa_fixed else kappa
        # (not mu_scale_sqrt: the bug, the sd of mu_k divided by kappa_k, not its root)
        scale = np.sqrt(spread) if mu_scale_sqrt else spread
        n_classes, d = mean.shape
        if diagonal:
            covariance = psi / rng.chisquare(np.repeat(nu[:, np.newaxis], d, axis=1))
            noise = rng.standard_normal((n_classes, d)) * np.sqrt(covariance)
        else:
            covariance = np.empty((n_classes, d, d))
            noise = np.empty((n_classes, d))
            for k in range(n_classes):
                covariance[k], root = draw_inverse_wishart(
                    nu[k], np.linalg.cholesky(psi[k]), rng, return_root=True
                )
                noise[k] = root @ rng.standard_normal(d)
        mu = mean + noise / scale[:, np.newaxis]
        # (not probability_from_draw: the bug, the class means' conditional mean stored)
        at = mu if probability_from_draw else mean
        return {
            "pi": pi,
            "mu": mu,
            "variance" if diagonal else "Sigma": covariance,
            "class_probability": per_class_probability(
                data.x[data.unlabelled], pi, at, covariance
            ),
        }

    return Kernel(init=initial_state, step=step, draw=draw)


def class_faults(*, diagonal: bool) -> dict:
    """The named wrong kernels of one structure: :data:`FAULT_SWITCHES`, each flipped alone."""
    return {
        name: make_per_class_kernel(diagonal=diagonal, **switch)
        for name, switch in FAULT_SWITCHES.items()
    }
