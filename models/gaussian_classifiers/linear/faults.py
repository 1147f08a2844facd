"""Bayesian linear discriminant analysis (``gda``): the deliberately wrong kernels, by name.

Each is the production kernel of :mod:`zoo.models.gaussian_classifiers.linear.gibbs`
with one switch of :func:`~zoo.models.gaussian_classifiers.linear.gibbs.make_kernel`
flipped, so that a fault differs from the
correct sampler in exactly the line of its bug (classic derivation errors of the
normal-inverse-Wishart update, which the diagnostics must catch):

- ``nu-off-by-one`` (the conditional's formula): inverse-Wishart degrees of freedom
  ``nu0 + N + 1`` where ``nu_N = nu0 + N`` belongs;
- ``sample-covariance`` (the conditional's formula): the class sample covariance
  ``S_k / n_k`` in ``Psi_N`` instead of the scatter matrix ``S_k``;
- ``kappa-not-updated`` (the conditional's formula): ``kappa0`` where
  ``kappa_k = kappa0 + n_k`` belongs;
- ``scatter-not-downdated`` (bookkeeping of counts): the point being resampled leaves
  its class's ``n_k`` and sum but not ``Psi`` (the rank-one downdate
  ``Psi - kappa/(kappa + 1) (x - m)(x - m)^T`` skipped), and is added to ``Psi`` again
  after its draw, so ``Psi`` grows through the sweep and the predictive is too wide;
- ``gap-term-dropped`` (the conditional's formula, the prior's mean): ``Psi_N = Psi0 +
  sum_k S_k`` without ``sum_k kappa0 n_k / (kappa0 + n_k) (xbar_k - m0)(xbar_k -
  m0)^T`` (the NIW posterior's scale, Murphy 2007); matters where ``kappa0`` is not
  small against ``n_k`` and the class means lie far from ``m0``;
- ``mu-scale-as-variance`` (the draw step; a wrong random variate): ``mu_k = m_k + L z /
  kappa_k`` with ``L L^T = Sigma``, ``z ~ N(0, I)``, where ``m_k + L z / sqrt(kappa_k)``
  (covariance ``Sigma / kappa_k``) belongs;
- ``probability-at-mean`` (storage of draws): ``class_probability`` recorded at the
  conditional mean ``m_k`` of ``mu_k`` instead of at the ``mu_k`` just drawn, so the
  recorded draw is not the function of the recorded parameters it claims to be.
"""

from __future__ import annotations

from zoo.models.gaussian_classifiers.linear.gibbs import make_kernel

__all__ = ["FAULTS", "KINDS"]

FAULTS = {
    "nu-off-by-one": make_kernel(nu_offset=1),
    "sample-covariance": make_kernel(sample_covariance=True),
    "kappa-not-updated": make_kernel(kappa_fixed=True),
    "scatter-not-downdated": make_kernel(downdate=False),
    "gap-term-dropped": make_kernel(gap_term=False),
    "mu-scale-as-variance": make_kernel(mu_scale_sqrt=False),
    "probability-at-mean": make_kernel(probability_from_draw=False),
}

#: The kind of each bug (module docstring): "formula" (the conditional's formula),
#: "counts" (bookkeeping of counts), "draw" (the draw step), "prior" / "prior support"
#: (the prior's pseudo-counts or support), "slice" (the slice sampler's details),
#: "storage" (what is recorded as a draw).
KINDS = {
    "nu-off-by-one": "formula",
    "sample-covariance": "formula",
    "kappa-not-updated": "formula",
    "scatter-not-downdated": "counts",
    "gap-term-dropped": "formula (prior mean)",
    "mu-scale-as-variance": "draw",
    "probability-at-mean": "storage",
}
