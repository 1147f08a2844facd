"""Small problems for the per-class Gaussian classifiers (``qda``, ``gaussian-nb``).

Two classes whose means differ by 2 in the first feature and 1 in the others, unit
noise, and an informative prior of each structure, so that closed forms can be checked
against scipy on a few points.
"""

import numpy as np

from zoo.models.gaussian_classifiers import Data
from zoo.models.gaussian_classifiers.diagonal import DiagonalPrior
from zoo.models.gaussian_classifiers.quadratic import PerClassPrior


def small_prior(name, d=2, **extra):
    """A proper prior of the ``qda`` or ``gaussian-nb`` structure in ``d`` dimensions."""
    settings = {"m0": np.zeros(d), "kappa0": 0.5, "nu0": d + 1.5, **extra}
    if name == "qda":
        return PerClassPrior(psi0=np.eye(d) + 0.2, **settings)
    return DiagonalPrior(psi0=np.linspace(0.5, 1.5, d), **settings)


def small_problem(name, points=12, unlabelled=0, d=2, seed=0):
    """``(Data, prior)``: ``points`` in two alternating classes, the first ``unlabelled`` -1."""
    rng = np.random.default_rng(seed)
    y = np.arange(points) % 2
    x = np.array([[0.0] * d, [2.0] + [1.0] * (d - 1)])[y] + rng.standard_normal((points, d))
    y[:unlabelled] = -1
    return Data(x, y), small_prior(name, d)
