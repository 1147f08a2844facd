"""Bayesian quadratic discriminant analysis (``qda``): the prior and simulation.

The model, one normal-inverse-Wishart per class:

``pi ~ Dirichlet(alpha)``, ``y_i ~ Categorical(pi)``, ``Sigma_k ~ InvWishart(nu0,
Psi0)``, ``mu_k | Sigma_k ~ N(m0, Sigma_k / kappa0)``, ``x_i | y_i = k ~ N(mu_k,
Sigma_k)``,

with the family's data (:class:`~zoo.models.gaussian_classifiers.data.Data`) and the
shared structure's hyperparameters and defaults (Fraley & Raftery 2007: ``nu0 = d +
2``, ``Psi0 = diag(var x) / K^(2/d)``).

A covariance of its own per class needs its class to inform it: when ``psi0`` is
derived from the data, a class needs at least ``d + 1`` labelled points (a nonsingular
scatter matrix), and collinear features are refused (a singular covariance that the
weak default prior would only just regularise). Pass ``psi0`` to model such data with a
prior of your own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zoo.models.gaussian_classifiers.data import Data, simulate_points, simulation_design
from zoo.models.gaussian_classifiers.linalg import draw_inverse_wishart
from zoo.models.gaussian_classifiers.prior import Prior, check_class_sizes

__all__ = ["COLLINEAR", "Data", "PerClassPrior", "simulate"]

#: Relative size below which an eigenvalue of the features' correlation matrix counts as
#: zero (collinear features): far above rounding (1e-16 d), far below any real spread.
COLLINEAR = 1e-10


@dataclass(frozen=True)
class PerClassPrior(Prior):
    """Hyperparameters of Bayesian QDA: one normal-inverse-Wishart per class.

    The parameters and defaults of :class:`zoo.models.gaussian_classifiers.prior.Prior`,
    applied to each class's ``(mu_k, Sigma_k)``. A data-derived ``psi0`` needs ``d + 1``
    labelled points in every class and features that are not collinear (module
    docstring).
    """

    def _check_derivable(self, data: Data) -> None:
        d = data.x.shape[1]
        check_class_sizes(data, d + 1, f"its own covariance in {d} dimensions")
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


def simulate(prior: PerClassPrior, rng: np.random.Generator, **size):
    """Draw ``(truth, data)`` from the prior predictive: one inverse-Wishart ``Sigma_k`` per class.

    ``size`` takes the keywords of
    :func:`~zoo.models.gaussian_classifiers.data.simulation_design` (``points``,
    ``classes``, ``features``, ``unlabelled``, ``hidden``). ``truth`` holds ``pi``,
    ``mu``, ``Sigma`` (class, feature, feature_bis) and ``class_probability``.
    """
    if not isinstance(prior, PerClassPrior):
        raise ValueError(f"prior: expected PerClassPrior, got {type(prior).__name__}")
    design = simulation_design(prior, rng, **size)
    nu0, psi0 = prior.simulation_hyperparameters(design.features)
    psi0_chol = np.linalg.cholesky(psi0)
    covariance = np.stack(
        [draw_inverse_wishart(nu0, psi0_chol, rng) for _ in range(design.classes)]
    )
    root = np.linalg.cholesky(covariance)
    return simulate_points(design, prior.kappa0, covariance, root, "Sigma", rng)
