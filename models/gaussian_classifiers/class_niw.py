"""One covariance per class: the conjugate posterior of QDA and of Gaussian naive Bayes.

Both structures give every class its own covariance, independent a priori and, given
the labels, a posteriori (Murphy 2007, "Conjugate Bayesian analysis of the Gaussian
distribution", sections 9 and 5 for d = 1; Gelman et al., BDA3, sections 3.3 and 3.6):

- **full** (quadratic discriminant analysis): ``Sigma_k ~ InvWishart(nu0, Psi0)``,
  ``mu_k | Sigma_k ~ N(m0, Sigma_k / kappa0)``; given the labels
  ``Sigma_k | D ~ InvWishart(nu_k, Psi_k)``, ``mu_k | Sigma_k, D ~ N(m_k, Sigma_k /
  kappa_k)`` with ``nu_k = nu0 + n_k``, ``kappa_k = kappa0 + n_k``,
  ``m_k = (kappa0 m0 + n_k xbar_k) / kappa_k`` and
  ``Psi_k = Psi0 + S_k + kappa0 n_k / kappa_k (xbar_k - m0)(xbar_k - m0)^T``
  (scatter-matrix form, a sum of positive semi-definite terms);
- **diagonal** (Gaussian naive Bayes): one normal-inverse-gamma per class and feature,
  ``variance_kj ~ InvGamma(nu0 / 2, psi0_j / 2)``, ``mu_kj | variance_kj ~ N(m0_j,
  variance_kj / kappa0)``: the full structure with ``d = 1``, feature by feature, the
  features sharing ``n_k``, ``kappa_k`` and ``nu_k``; ``Psi_k`` is then the vector of
  ``psi0_j + S_k,jj + kappa0 n_k / kappa_k (xbar_kj - m0_j)^2``.

One formula serves both, with ``e`` the dimension of one inverse-Wishart (``d`` full,
1 diagonal): the evidence of a class (Murphy 2007, eq. 266)

``log p(X_k | y) = -n_k e / 2 log pi + log Gamma_e(nu_k / 2) - log Gamma_e(nu0 / 2)
+ nu0 / 2 log |Psi0| - nu_k / 2 log |Psi_k| + e / 2 (log kappa0 - log kappa_k)``

(summed over the features when diagonal), the marginals ``mu_kj ~ t(nu_k - e + 1, m_kj,
Psi_k,jj / (kappa_k (nu_k - e + 1)))`` and ``Sigma_k,jj ~ InvGamma((nu_k - e + 1) / 2,
Psi_k,jj / 2)``, and the predictive, a Student t with ``nu_k - e + 1`` degrees of
freedom, location ``m_k`` and scale ``Psi_k (kappa_k + 1) / (kappa_k (nu_k - e + 1))``
(Murphy 2007, eq. 258; a product of univariate t's when diagonal).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from zoo.core.reference import Marginal
from zoo.models.gaussian_classifiers.linalg import forward_solve
from zoo.models.gaussian_classifiers.niw import (
    NIW,
    log_det,
    log_evidence,
    log_label_probability,
    mvt_logpdf,
    testable_moments,
)
from zoo.models.mixtures import mixture_marginal

__all__ = [
    "ClassNIW",
    "class_niw",
    "class_update",
    "per_class_marginals",
    "per_class_predictive_log_joint",
]


@dataclass(frozen=True)
class ClassNIW(NIW):
    """Per-class normal-inverse-Wishart (or -gamma) posteriors, batched over labelings.

    The fields of :class:`~zoo.models.gaussian_classifiers.niw.NIW`, per class: ``nu`` has shape
    (B, K) (``nu_k = nu0 + n_k``), and ``psi`` shape (B, K, d, d) (full: ``Psi_k``) or
    (B, K, d) (diagonal: a scale per class and feature).

    Attributes
    ----------
    diagonal : bool
        Which structure.
    """

    diagonal: bool = False

    @property
    def block(self) -> int:
        """``e``, the dimension of one inverse-Wishart: d (full) or 1 (diagonal)."""
        return 1 if self.diagonal else self.mean.shape[-1]

    @property
    def df(self) -> np.ndarray:
        """Degrees of freedom of the t marginals and predictive, ``nu_k - e + 1``, (B, K)."""
        return self.nu - self.block + 1.0

    @property
    def scales(self) -> np.ndarray:
        """``Psi_k,jj``, shape (B, K, d): the diagonal of each class's scale."""
        return self.psi if self.diagonal else np.diagonal(self.psi, axis1=-2, axis2=-1)


def class_update(counts, means, scatter, hyper, *, diagonal: bool):
    """``kappa_k``, ``m_k``, ``nu_k`` and ``Psi_k`` from class statistics (module docstring).

    Parameters
    ----------
    counts : ndarray, shape (B, K)
    means : ndarray, shape (B, K, d)
        Class means (any value for an empty class).
    scatter : ndarray, shape (B, K, d, d)
        Class scatter matrices ``S_k``; only their diagonal is read when ``diagonal``.
    hyper
        Resolved hyperparameters with ``m0``, ``kappa0``, ``nu0`` and ``psi0`` (a
        matrix for the full structure, a vector of scales when diagonal).
    diagonal : bool
    """
    kappa = hyper.kappa0 + counts
    mean = (hyper.kappa0 * hyper.m0 + counts[..., np.newaxis] * means) / kappa[..., np.newaxis]
    gap = means - hyper.m0
    shrink = (hyper.kappa0 * counts / kappa)[..., np.newaxis]
    if diagonal:
        psi = hyper.psi0 + np.diagonal(scatter, axis1=-2, axis2=-1) + shrink * gap**2
    else:
        outer = np.einsum("...d,...e->...de", gap, gap)
        psi = hyper.psi0 + scatter + shrink[..., np.newaxis] * outer
    return kappa, mean, hyper.nu0 + counts, psi


def class_niw(counts, means, scatter, hyper, *, diagonal: bool) -> ClassNIW:
    """The per-class conjugate posterior and its evidence, from class statistics.

    :func:`class_update`'s parameters, and ``log p(X | y)`` (Murphy 2007, eq. 266, per
    class, or per class and feature when diagonal) and ``log p(y | alpha)``; ``hyper``
    also needs ``alpha``.
    """
    kappa, mean, nu, psi = class_update(counts, means, scatter, hyper, diagonal=diagonal)
    if diagonal:
        # One block per class and feature; each feature's mean has the class's kappa.
        terms = log_evidence(
            counts[..., np.newaxis],
            kappa[..., np.newaxis, np.newaxis],
            nu[..., np.newaxis],
            np.log(psi),
            hyper,
            np.log(hyper.psi0),
            1,
        )
        log_likelihood = terms.sum(axis=(-2, -1))
    else:
        d = means.shape[-1]
        terms = log_evidence(
            counts, kappa[..., np.newaxis], nu, log_det(psi), hyper, log_det(hyper.psi0), d
        )
        log_likelihood = terms.sum(axis=-1)
    return ClassNIW(
        counts,
        kappa,
        mean,
        nu,
        psi,
        log_likelihood,
        log_label_probability(hyper.alpha, counts),
        diagonal,
    )


def per_class_marginals(c: ClassNIW, weights: np.ndarray, alpha: np.ndarray) -> dict:
    """Marginals of ``pi``, ``mu`` and ``Sigma`` (full) or ``variance`` (diagonal).

    Mixtures over the components ``c`` with ``weights`` (one component when every label
    is observed). ``mu`` and the diagonal of the covariances have exact CDFs (t and
    inverse-gamma mixtures); the off-diagonal elements of a full ``Sigma_k`` have the
    inverse-Wishart moments only (Press, *Applied Multivariate Analysis*, 1972, section
    5.2), as in the shared structure. Moments are tested only where the tail index
    allows (:func:`zoo.models.gaussian_classifiers.niw.testable_moments`), class by class.
    """
    df = c.df  # (C, K)
    scales = c.scales  # (C, K, d)
    a = alpha + c.counts
    pi = stats.beta(a, a.sum(axis=1, keepdims=True) - a)
    mu = stats.t(
        df[..., np.newaxis],
        loc=c.mean,
        scale=np.sqrt(scales / (c.kappa[..., np.newaxis] * df[..., np.newaxis])),
    )
    # The heaviest tail of a class over the components bounds its moments.
    tail = df.min(axis=0)[:, np.newaxis]  # (K, 1)
    marginals = {
        "pi": mixture_marginal(("class",), weights, pi),
        "mu": testable_moments(mixture_marginal(("class", "feature"), weights, mu), tail),
    }
    diagonal = mixture_marginal(
        ("class", "feature"),
        weights,
        stats.invgamma(0.5 * df[..., np.newaxis], scale=0.5 * scales),
    )
    if c.diagonal:
        marginals["variance"] = testable_moments(diagonal, tail)
        return marginals
    marginals["Sigma"] = testable_moments(
        _full_covariance_marginal(c, weights, diagonal), tail[..., np.newaxis]
    )
    return marginals


def _full_covariance_marginal(c: ClassNIW, weights, diagonal: Marginal) -> Marginal:
    """``Sigma_k`` (class, feature, feature_bis): inverse-Wishart moments, diagonal CDFs."""
    d = c.mean.shape[-1]
    nu = c.nu[..., np.newaxis, np.newaxis]  # (C, K, 1, 1)
    scales = c.scales
    spread = nu - d
    with np.errstate(divide="ignore", invalid="ignore"):
        comp_mean = np.where(nu > d + 1, c.psi / (nu - d - 1), np.nan)
        comp_var = np.where(
            nu > d + 3,
            ((spread + 1) * c.psi**2 + (spread - 1) * np.einsum("ckj,cki->ckji", scales, scales))
            / (spread * (spread - 1) ** 2 * (spread - 3)),
            np.nan,
        )
    w = weights[:, np.newaxis, np.newaxis, np.newaxis]
    mean = np.sum(w * comp_mean, axis=0)
    sd = np.sqrt(np.maximum(np.sum(w * (comp_var + comp_mean**2), axis=0) - mean**2, 0.0))
    sd = np.where(np.isfinite(comp_var).all(axis=0), sd, np.nan)
    index = np.arange(d)

    def sigma_cdf(x):
        x = np.asarray(x, dtype=float)
        return diagonal.cdf(x[:, :, index, index])[..., np.newaxis]

    def sigma_ppf(prob):
        # Off-diagonal quantiles are NaN: no closed form, and agreement() skips them.
        out = np.full(mean.shape, np.nan)
        out[:, index, index] = diagonal.ppf(prob)
        return out

    return Marginal(
        dims=("class", "feature", "feature_bis"),
        mean=mean,
        sd=sd,
        cdf=sigma_cdf if d == 1 else None,
        ppf=sigma_ppf,
    )


def per_class_predictive_log_joint(
    components: ClassNIW, weights: np.ndarray, alpha: np.ndarray, x_new: np.ndarray
) -> np.ndarray:
    """``log p(y* = k, x* | D)`` for new points ``x_new`` (M, d), shape (M, K).

    ``sum_z w_z E[pi_k | z] t(x* | nu_k - e + 1, m_k, Psi_k (kappa_k + 1) / (kappa_k
    (nu_k - e + 1)))``, the t a product over the features when diagonal (module
    docstring). A plain function of picklable arrays, for the estimators.
    """
    c = components
    d = c.mean.shape[-1]
    block = c.block
    per_component = []
    for b in range(c.kappa.shape[0]):
        log_label = np.log(alpha + c.counts[b]) - np.log(alpha.sum() + c.counts[b].sum())
        columns = []
        for k in range(alpha.shape[0]):
            df = c.df[b, k]
            factor = (c.kappa[b, k] + 1.0) / (c.kappa[b, k] * df)
            if c.diagonal:
                scale = c.psi[b, k] * factor  # (d,)
                quad = (x_new - c.mean[b, k]) ** 2 / scale
                log_density = mvt_logpdf(df, 0.5 * np.log(scale), quad, block).sum(axis=1)
            else:
                chol = np.linalg.cholesky(c.psi[b, k])
                white = forward_solve(chol, (x_new - c.mean[b, k]).T)
                quad = np.sum(white**2, axis=0) / factor
                log_root = np.log(np.diag(chol)).sum() + 0.5 * d * np.log(factor)
                log_density = mvt_logpdf(df, log_root, quad, d)
            columns.append(log_density + log_label[k])
        per_component.append(np.log(weights[b]) + np.stack(columns, axis=1))
    return special.logsumexp(np.stack(per_component), axis=0)
