"""Bayesian Gaussian naive Bayes (``gaussian-nb``): the prior and simulation.

The model, one normal-inverse-gamma per class and feature:

``pi ~ Dirichlet(alpha)``, ``y_i ~ Categorical(pi)``, ``variance_kj ~ InvGamma(nu0 / 2,
psi0_j / 2)``, ``mu_kj | variance_kj ~ N(m0_j, variance_kj / kappa0)``,
``x_ij | y_i = k ~ N(mu_kj, variance_kj)``,

with the family's data (:class:`~zoo.models.gaussian_classifiers.data.Data`); ``psi0``
is a vector of scales. Defaults ``nu0 = 3`` and ``psi0_j = var(x_j) / K^(2/d)``: the
marginal of each diagonal element under the QDA default prior (the diagonal of an
``InvWishart(d + 2, Psi0)`` is ``InvGamma(3 / 2, Psi0_jj / 2)``), so the two structures
start from the same belief about each variance. A data-derived ``psi0`` needs 2
labelled points in every class (a variance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zoo.core.arguments import as_positive_array
from zoo.models.gaussian_classifiers.data import Data, simulate_points, simulation_design
from zoo.models.gaussian_classifiers.prior import Prior, check_class_sizes, default_scales

__all__ = ["Data", "DiagonalPrior", "simulate"]


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

    def check_nu0(self, nu0: float, d: int) -> None:
        """Raise ValueError naming ``nu0`` unless it is positive (a proper inverse-gamma)."""
        if nu0 <= 0:
            raise ValueError(f"nu0: must be > 0, got {nu0:g}")

    def default_nu0(self, d: int) -> float:
        """``nu0`` when not given: 3, the QDA default's marginal of one variance."""
        return 3.0

    def _unit_scale(self, d: int) -> np.ndarray:
        return np.ones(d)

    def _checked_scale(self, value) -> np.ndarray:
        scales = as_positive_array("psi0", value)
        if scales.ndim != 1 or scales.size == 0:
            raise ValueError(
                f"psi0: expected one positive scale per feature (a vector), got shape "
                f"{scales.shape}"
            )
        return scales

    def _scale(self, data: Data) -> np.ndarray:
        d = data.x.shape[1]
        if self.psi0 is None:
            check_class_sizes(data, 2, "a variance of its own per feature")
            return default_scales(data)
        if self.psi0.shape != (d,):
            raise ValueError(f"psi0: expected {d} scales (one per feature), got {self.psi0.shape}")
        return self.psi0.copy()


def simulate(prior: DiagonalPrior, rng: np.random.Generator, **size):
    """Draw ``(truth, data)`` from the prior predictive: ``variance_kj = psi0_j / chi2(nu0)``.

    ``size`` takes the keywords of
    :func:`~zoo.models.gaussian_classifiers.data.simulation_design` (``points``,
    ``classes``, ``features``, ``unlabelled``, ``hidden``). ``truth`` holds ``pi``,
    ``mu``, ``variance`` (class, feature) and ``class_probability``.
    """
    if not isinstance(prior, DiagonalPrior):
        raise ValueError(f"prior: expected DiagonalPrior, got {type(prior).__name__}")
    design = simulation_design(prior, rng, **size)
    d = design.features
    nu0, psi0 = prior.simulation_hyperparameters(d)
    # InvGamma(nu0 / 2, psi0 / 2) is psi0 over a chi-squared with nu0 degrees of freedom.
    covariance = psi0 / rng.chisquare(nu0, size=(design.classes, d))
    root = np.sqrt(covariance)[..., np.newaxis] * np.eye(d)
    return simulate_points(design, prior.kappa0, covariance, root, "variance", rng)
