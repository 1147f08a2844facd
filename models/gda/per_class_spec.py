"""Per-class covariances: the priors and simulation of QDA and Gaussian naive Bayes.

Both take the shared structure's :class:`~zoo.models.gda.spec.Data` and hyperparameters
(``alpha``, ``m0``, ``kappa0``, ``nu0``, ``psi0``), now one normal-inverse-Wishart per
class (QDA) or one normal-inverse-gamma per class and feature (Gaussian naive Bayes):

- :class:`PerClassPrior` (QDA): ``Sigma_k ~ InvWishart(nu0, Psi0)``, ``mu_k | Sigma_k ~
  N(m0, Sigma_k / kappa0)``, the same defaults as the shared structure (Fraley &
  Raftery 2007: ``nu0 = d + 2``, ``Psi0 = diag(var x) / K^(2/d)``).
- :class:`DiagonalPrior` (Gaussian naive Bayes): ``variance_kj ~ InvGamma(nu0 / 2,
  psi0_j / 2)``, ``mu_kj | variance_kj ~ N(m0_j, variance_kj / kappa0)``; ``psi0`` is a
  vector of scales. Defaults ``nu0 = 3`` and ``psi0_j = var(x_j) / K^(2/d)``: the
  marginal of each diagonal element under the QDA default prior (the diagonal of an
  ``InvWishart(d + 2, Psi0)`` is ``InvGamma(3 / 2, Psi0_jj / 2)``), so the two
  structures start from the same belief about each variance.

A covariance of its own per class needs its class to inform it: when ``psi0`` is
derived from the data, a class needs at least ``d + 1`` labelled points under QDA (a
nonsingular scatter matrix) and 2 under naive Bayes (a variance), and QDA refuses
collinear features (a singular covariance that the weak default prior would only just
regularise). Pass ``psi0`` to model such data with a prior of your own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zoo.core.arguments import as_positive_array
from zoo.models.gda.conditional import per_class_probability
from zoo.models.gda.linalg import draw_inverse_wishart
from zoo.models.gda.spec import Data, Prior, default_scales, simulation_design

__all__ = ["DiagonalPrior", "PerClassPrior", "simulate_per_class"]

#: Relative size below which an eigenvalue of the features' correlation matrix counts as
#: zero (collinear features): far above rounding (1e-16 d), far below any real spread.
COLLINEAR = 1e-10


def _check_class_sizes(data: Data, needed: int, why: str) -> None:
    counts = np.bincount(data.labels[data.labelled], minlength=data.n_classes)
    small = np.flatnonzero(counts < needed)
    if small.size:
        k = int(small[0])
        raise ValueError(
            f"labels: class {data.classes[k]!r} has {counts[k]} labelled points; {why} "
            f"needs at least {needed} to derive psi0 from the data: pass psi0, or use "
            "gda (one covariance shared by the classes)"
        )


@dataclass(frozen=True)
class PerClassPrior(Prior):
    """Hyperparameters of Bayesian QDA: one normal-inverse-Wishart per class.

    The parameters and defaults of :class:`zoo.models.gda.spec.Prior`, applied to each
    class's ``(mu_k, Sigma_k)``. A data-derived ``psi0`` needs ``d + 1`` labelled points
    in every class and features that are not collinear (module docstring).
    """

    def _check_derivable(self, data: Data) -> None:
        d = data.x.shape[1]
        _check_class_sizes(data, d + 1, f"its own covariance in {d} dimensions")
        if d > 1:
            correlation = np.corrcoef(data.x, rowvar=False)
            values, vectors = np.linalg.eigh(correlation)
            if values[0] < COLLINEAR * d:
                involved = np.flatnonzero(np.abs(vectors[:, 0]) > 1e-6)
                names = ", ".join(str(data.features[j]) for j in involved)
                raise ValueError(
                    f"x: features {names} are collinear (their correlation matrix is "
                    "singular), so psi0 cannot be derived from the data: drop one or pass "
                    "psi0"
                )


@dataclass(frozen=True)
class DiagonalPrior(Prior):
    """Hyperparameters of Bayesian Gaussian naive Bayes; ``None`` means "from the data".

    Parameters
    ----------
    alpha : float or array-like, shape (K,)
        Dirichlet concentration of the class proportions. Default 1.
    m0 : array-like, shape (d,), optional
        Prior mean of every class mean. Default: the mean of all features.
    kappa0 : float
        Prior pseudo-observations on each class mean (``mu_kj | variance_kj ~ N(m0_j,
        variance_kj / kappa0)``). Default 0.01.
    nu0 : float, optional
        Degrees of freedom of each variance, ``variance_kj ~ InvGamma(nu0 / 2, psi0_j /
        2)``, ``> 0``. Default 3.
    psi0 : array-like, shape (d,), optional
        Prior scale of each feature's variances, positive. Default ``var(x_j) /
        K^(2/d)``; needs 2 labelled points in every class.
    """

    def _checked_scale(self, value) -> np.ndarray:
        scales = as_positive_array("psi0", value)
        if scales.ndim != 1 or scales.size == 0:
            raise ValueError(
                f"psi0: expected one positive scale per feature (a vector), got shape "
                f"{scales.shape}"
            )
        return scales

    def _check_nu0(self, nu0: float, d: int) -> None:
        if nu0 <= 0:
            raise ValueError(f"nu0: must be > 0, got {nu0:g}")

    def _default_nu0(self, d: int) -> float:
        return 3.0

    def _scale(self, data: Data) -> np.ndarray:
        d = data.x.shape[1]
        if self.psi0 is None:
            _check_class_sizes(data, 2, "a variance of its own per feature")
            return default_scales(data)
        if self.psi0.shape != (d,):
            raise ValueError(f"psi0: expected {d} scales (one per feature), got {self.psi0.shape}")
        return self.psi0.copy()


def _simulated_prior(prior, d: int, diagonal: bool) -> tuple[float, np.ndarray]:
    """``nu0`` and ``psi0`` to simulate from (1 and the identity where derived from data)."""
    psi0 = prior.psi0
    if psi0 is None:
        psi0 = np.ones(d) if diagonal else np.eye(d)
    if psi0.shape[0] != d:
        raise ValueError(f"features: the prior is for {psi0.shape[0]} features, asked for {d}")
    nu0 = prior._default_nu0(d) if prior.nu0 is None else prior.nu0
    prior._check_nu0(nu0, d)
    return nu0, psi0


def simulate_per_class(prior: PerClassPrior | DiagonalPrior, rng: np.random.Generator, **size):
    """Draw ``(truth, data)`` from the prior predictive.

    ``size`` takes the keywords of :func:`zoo.models.gda.simulate` (``points``,
    ``classes``, ``features``, ``unlabelled``, ``hidden``), with the same defaults.
    The structure follows the prior: a :class:`PerClassPrior` gives ``truth`` with
    ``Sigma`` (one inverse-Wishart draw per class), a :class:`DiagonalPrior` with
    ``variance`` (class, feature), ``InvGamma(nu0 / 2, psi0 / 2)`` drawn as ``psi0 /
    chi2(nu0)``; both with ``pi``, ``mu`` and ``class_probability``.
    """
    diagonal = isinstance(prior, DiagonalPrior)
    design = simulation_design(prior, rng, **size)
    d, n_classes = design.features, design.classes
    nu0, psi0 = _simulated_prior(prior, d, diagonal)
    if diagonal:
        covariance = psi0 / rng.chisquare(nu0, size=(n_classes, d))
        root = np.sqrt(covariance)[..., np.newaxis] * np.eye(d)
    else:
        psi0_chol = np.linalg.cholesky(psi0)
        covariance = np.stack(
            [draw_inverse_wishart(nu0, psi0_chol, rng) for _ in range(n_classes)]
        )
        root = np.linalg.cholesky(covariance)
    noise = rng.standard_normal((n_classes, d))
    mu = design.m0 + np.einsum("kde,ke->kd", root, noise) / np.sqrt(prior.kappa0)
    y = design.labels(rng)
    x = mu[y] + np.einsum("nde,ne->nd", root[y], rng.standard_normal((design.points, d)))
    hide = design.hide(rng)
    truth = {
        "pi": design.pi,
        "mu": mu,
        "variance" if diagonal else "Sigma": covariance,
        "class_probability": per_class_probability(x[hide], design.pi, mu, covariance),
    }
    return truth, design.data(x, y, hide)
