"""Bayesian linear discriminant analysis (``gda``): the exact posterior.

Fully labelled, the posterior is conjugate (Murphy 2007, "Conjugate Bayesian analysis
of the Gaussian distribution", section 9; Gelman et al., BDA3, section 3.6), with one
normal-inverse-Wishart factor shared by the K class means:

``Sigma | X, y ~ InvWishart(nu_N, Psi_N)``, ``mu_k | Sigma, X, y ~ N(m_k, Sigma / kappa_k)``,
``pi | y ~ Dirichlet(alpha + n)``, where ``kappa_k = kappa0 + n_k``,
``m_k = (kappa0 m0 + n_k xbar_k) / kappa_k``, ``nu_N = nu0 + N`` and

``Psi_N = Psi0 + sum_k [S_k + kappa0 n_k / kappa_k (xbar_k - m0)(xbar_k - m0)^T]``

with ``S_k = sum_{i in k} (x_i - xbar_k)(x_i - xbar_k)^T`` the class scatter matrix. This
sum of positive semi-definite terms stays positive definite in floating point, unlike
the algebraically equal difference of outer products
``Psi0 + sum x x^T + sum_k (kappa0 m0 m0^T - kappa_k m_k m_k^T)``.

Marginals: ``mu_k`` is multivariate t with ``nu_N - d + 1`` degrees of freedom, location
``m_k`` and scale ``Psi_N / (kappa_k (nu_N - d + 1))`` (Murphy 2007, eq. 252); the
diagonal of Sigma is scaled inverse-gamma, ``Sigma_jj ~ InvGamma((nu_N - d + 1) / 2,
Psi_N,jj / 2)``; off-diagonal elements have the inverse-Wishart moments
``E = Psi / (nu - d - 1)`` and ``Var = [(nu - d + 1) Psi_ij^2 + (nu - d - 1) Psi_ii
Psi_jj] / [(nu - d)(nu - d - 1)^2 (nu - d - 3)]`` (Press, *Applied Multivariate
Analysis*, 1972, section 5.2) but no closed-form CDF. ``pi_k ~ Beta(a_k, sum(a) - a_k)``.

The marginal likelihood of the features given the labels is (Murphy 2007, eq. 266, one
Sigma for all classes)

``p(X | y) = pi^(-N d / 2) Gamma_d(nu_N / 2) / Gamma_d(nu0 / 2) |Psi0|^(nu0 / 2) /
|Psi_N|^(nu_N / 2) prod_k (kappa0 / kappa_k)^(d / 2)``

and the labels' own is Dirichlet-multinomial (of the sequence, not of the counts).

With ``U`` unlabelled points, the posterior is a mixture over the ``K^U`` labelings of
those points, weighted by ``p(X | y) p(y)``; it is enumerated when ``K^U <= 2^16``
(:data:`MAX_LABELINGS`, by :mod:`zoo.models.gaussian_classifiers.enumeration`),
otherwise :func:`posterior` answers :class:`~zoo.diagnostics.NoReference`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from zoo.core.reference import Marginal, NoReference
from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.enumeration import (
    MixturePosterior,
    checked_new_points,
    enumerate_labelings,
    mixture_reference,
)
from zoo.models.gaussian_classifiers.linalg import forward_solve
from zoo.models.gaussian_classifiers.niw import (
    NIW,
    class_statistics,
    log_det,
    log_evidence,
    log_label_probability,
    mvt_logpdf,
    testable_moments,
)
from zoo.models.gaussian_classifiers.prior import Hyperparameters, Prior
from zoo.models.labelings import MAX_LABELINGS, Labelings
from zoo.models.mixtures import mixture_marginal

__all__ = [
    "MAX_LABELINGS",
    "GDAPosterior",
    "log_marginal_likelihood",
    "niw_from_statistics",
    "niw_posterior",
    "posterior",
    "predictive_log_joint",
]


def niw_from_statistics(counts, means, scatter, hyper: Hyperparameters, n_points) -> NIW:
    """The shared-covariance posterior from batched class statistics (module docstring)."""
    kappa = hyper.kappa0 + counts
    mean = (hyper.kappa0 * hyper.m0 + counts[..., np.newaxis] * means) / kappa[..., np.newaxis]
    gap = means - hyper.m0
    shrink = hyper.kappa0 * counts / kappa
    psi = hyper.psi0 + np.sum(
        scatter + shrink[..., np.newaxis, np.newaxis] * np.einsum("bkd,bke->bkde", gap, gap),
        axis=1,
    )
    nu = hyper.nu0 + n_points
    d = hyper.m0.shape[0]
    log_likelihood = log_evidence(n_points, kappa, nu, log_det(psi), hyper, log_det(hyper.psi0), d)
    log_labels = log_label_probability(hyper.alpha, counts)
    return NIW(counts, kappa, mean, float(nu), psi, log_likelihood, log_labels)


def niw_posterior(x: np.ndarray, labels: np.ndarray, hyper: Hyperparameters) -> NIW:
    """The conjugate posterior given complete labels (a batch of one).

    Parameters
    ----------
    x : ndarray, shape (N, d)
    labels : ndarray of int, shape (N,)
        Every label in ``0 .. K-1``.
    hyper : Hyperparameters
        From :meth:`Prior.resolve`.
    """
    n_classes = hyper.alpha.shape[0]
    onehot = (labels[:, np.newaxis] == np.arange(n_classes)).astype(float)[np.newaxis]
    counts, means, scatter = class_statistics(x, onehot)
    return niw_from_statistics(counts, means, scatter, hyper, x.shape[0])


def log_marginal_likelihood(x: np.ndarray, labels: np.ndarray, hyper: Hyperparameters) -> float:
    """``log p(X, y)`` for complete labels: Murphy (2007) eq. 266 times ``p(y | alpha)``."""
    niw = niw_posterior(x, labels, hyper)
    return float(niw.log_likelihood[0] + niw.log_label_probability[0])


@dataclass(frozen=True)
class GDAPosterior(MixturePosterior):
    """Exact posterior of Bayesian GDA: a mixture of NIW posteriors over labelings.

    The attributes of :class:`~zoo.models.gaussian_classifiers.enumeration.MixturePosterior`,
    with ``components`` an :class:`~zoo.models.gaussian_classifiers.niw.NIW`; the
    predictive per class is a multivariate t with ``nu_N - d + 1`` degrees of freedom,
    location ``m_k`` and scale ``Psi_N (kappa_k + 1) / (kappa_k (nu_N - d + 1))``
    (Murphy 2007, eq. 258).
    """

    def _log_joint(self, x_new) -> np.ndarray:
        return predictive_log_joint(self.components, self.weights, self.hyper, x_new)


def predictive_log_joint(components: NIW, weights: np.ndarray, hyper: Hyperparameters, x_new):
    """``log p(y* = k, x* | D)`` for new points, shape (M, K); see :class:`GDAPosterior`.

    A plain function of picklable arrays, so that estimators can store its inputs.
    """
    c = components
    d = c.mean.shape[-1]
    x_new = checked_new_points(x_new, d)
    df = c.nu - d + 1
    alpha = hyper.alpha
    per_component = []
    for b in range(c.kappa.shape[0]):
        chol = np.linalg.cholesky(c.psi[b])
        log_diag = np.log(np.diag(chol)).sum()
        factor = (c.kappa[b] + 1.0) / (c.kappa[b] * df)
        log_label = np.log(alpha + c.counts[b]) - np.log(alpha.sum() + c.counts[b].sum())
        rows = []
        for k in range(alpha.shape[0]):
            white = forward_solve(chol, (x_new - c.mean[b, k]).T)
            quad = np.sum(white**2, axis=0) / factor[k]
            log_scale = log_diag + 0.5 * d * np.log(factor[k])
            rows.append(mvt_logpdf(df, log_scale, quad, d) + log_label[k])
        per_component.append(np.log(weights[b]) + np.stack(rows, axis=1))
    return special.logsumexp(np.stack(per_component), axis=0)


def posterior(data: Data, prior: Prior):
    """Exact posterior of Bayesian GDA.

    Parameters
    ----------
    data : Data
    prior : Prior

    Returns
    -------
    GDAPosterior or NoReference
        A :class:`zoo.diagnostics.Reference` with marginals of ``pi``, ``mu``,
        ``Sigma`` and ``class_probability`` (posterior mean only: ``P(y_u = k | D)``;
        NaN, i.e. not tested, within :data:`zoo.models.labelings.NEAR_CERTAIN` of 0 or
        1; the exact values are in ``class_probability_exact``),
        or :class:`~zoo.diagnostics.NoReference` if more than :data:`MAX_LABELINGS`
        labelings would have to be enumerated.
    """
    if not isinstance(data, Data):
        raise ValueError(f"data: expected gaussian_classifiers.Data, got {type(data).__name__}")
    if not isinstance(prior, Prior):
        raise ValueError(f"prior: expected gaussian_classifiers.Prior, got {type(prior).__name__}")
    hyper = prior.resolve(data)
    n_points = data.x.shape[0]
    mixture = enumerate_labelings(
        data, lambda *stats: niw_from_statistics(*stats, hyper, n_points)
    )
    if isinstance(mixture, Labelings):
        return NoReference(mixture.too_many("unlabelled points"))
    marginals = _marginals(mixture.components, mixture.weights, hyper)
    return mixture_reference(
        GDAPosterior, data, hyper, mixture, marginals, "normal-inverse-Wishart and Dirichlet"
    )


def _marginals(components: NIW, weights, hyper: Hyperparameters):
    c = components
    d = c.mean.shape[-1]
    df = c.nu - d + 1
    psi_diag = np.diagonal(c.psi, axis1=-2, axis2=-1)  # (C, d)
    a = hyper.alpha + c.counts  # (C, K)
    pi = stats.beta(a, a.sum(axis=1, keepdims=True) - a)
    scale = np.sqrt(psi_diag[:, np.newaxis, :] / (c.kappa[..., np.newaxis] * df))
    mu = stats.t(df, loc=c.mean, scale=scale)
    marginals = {
        "pi": mixture_marginal(("class",), weights, pi),
        "mu": testable_moments(mixture_marginal(("class", "feature"), weights, mu), df),
    }
    # Sigma: moments of every element from the inverse-Wishart; CDFs of the diagonal
    # (scaled inverse-gamma) only.
    w = weights[:, np.newaxis, np.newaxis]
    spread = c.nu - d
    with np.errstate(divide="ignore", invalid="ignore"):
        comp_mean = c.psi / (c.nu - d - 1) if c.nu > d + 1 else np.full_like(c.psi, np.nan)
        if c.nu > d + 3:
            diag = psi_diag
            comp_var = (
                (spread + 1) * c.psi**2 + (spread - 1) * np.einsum("ci,cj->cij", diag, diag)
            ) / (spread * (spread - 1) ** 2 * (spread - 3))
        else:
            comp_var = np.full_like(c.psi, np.nan)
    mean = np.sum(w * comp_mean, axis=0)
    sd = np.sqrt(np.maximum(np.sum(w * (comp_var + comp_mean**2), axis=0) - mean**2, 0.0))
    sd = np.where(np.isfinite(comp_var).all(axis=0), sd, np.nan)
    diagonal = mixture_marginal(
        ("feature",), weights, stats.invgamma(0.5 * df, scale=0.5 * psi_diag)
    )
    index = np.arange(d)

    def sigma_cdf(x):
        x = np.asarray(x, dtype=float)
        return diagonal.cdf(x[:, index, index])[:, :, np.newaxis]

    def sigma_ppf(prob):
        # Off-diagonal quantiles are NaN: no closed form, and agreement() skips them.
        out = np.full((d, d), np.nan)
        out[index, index] = diagonal.ppf(prob)
        return out

    # The KS test needs a CDF for every element; only d = 1 has one for all of Sigma.
    sigma = Marginal(
        dims=("feature", "feature_bis"),
        mean=mean,
        sd=sd,
        cdf=sigma_cdf if d == 1 else None,
        ppf=sigma_ppf,
    )
    # Moments of an inverse-Wishart element exist up to order < (nu - d + 1) / 2, those
    # of the t marginals up to order < df: the same tail index 2 a = nu - d + 1 = df.
    marginals["Sigma"] = testable_moments(sigma, df)
    return marginals
