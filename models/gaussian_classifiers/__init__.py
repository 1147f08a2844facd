"""The Gaussian classifiers: Bayesian discriminant analysis in three covariance structures.

Three models, one sub-package each, with the file names of every other model
(``spec``, ``posterior``, ``pymc_program``, ``gibbs``, ``problems``, ``kernel_checks``,
``faults``, ``estimator``; the package's ``MODEL``):

- :mod:`~zoo.models.gaussian_classifiers.linear` (registry name ``gda``): linear
  discriminant analysis, one covariance ``Sigma`` shared by all classes;
- :mod:`~zoo.models.gaussian_classifiers.quadratic` (``qda``): quadratic discriminant
  analysis, a normal-inverse-Wishart ``(mu_k, Sigma_k)`` per class;
- :mod:`~zoo.models.gaussian_classifiers.diagonal` (``gaussian-nb``): Gaussian naive
  Bayes, a normal-inverse-gamma ``(mu_kj, variance_kj)`` per class and feature.

What they share sits here, once: the data and its simulation (``data``), the
hyperparameters and their data-scaled defaults (``prior``), the normal-inverse-Wishart
formulas (``niw``; per class, ``class_niw``), the enumeration over labelings and the
exact reference built from it (``enumeration``; per class, ``class_posterior``), the
class of a point given the parameters (``conditional``), the linear algebra
(``linalg``), the labels the collapsed Gibbs kernels move (``collapsed_gibbs``; the
per-class sweep, ``class_gibbs``), the log-likelihood (``loglik``), the PyMC programs'
common parts (``pymc_parts``), the data sets of the problems (``datasets``) and the
scikit-learn estimator's base (``estimator``). A member imports these, never another
member; ``docs/design.md`` ("The Gaussian classifiers") says why.

The shared structure:

``pi ~ Dirichlet(alpha)``, ``y_i ~ Categorical(pi)``, a covariance prior of ``nu0``
degrees of freedom and scale ``psi0``, ``mu_k | Sigma ~ N(m0, Sigma / kappa0)``,
``x_i | y_i = k ~ N(mu_k, Sigma)``; labels may be missing (``-1``).
"""

from __future__ import annotations

from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.prior import Hyperparameters, Prior
from zoo.models.labelings import MISSING

__all__ = ["MISSING", "Data", "Hyperparameters", "Prior"]
