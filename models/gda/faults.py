"""Bayesian GDA: the deliberately wrong kernels (negative controls), by name.

Each is the production kernel of :mod:`zoo.models.gda.gibbs` with one switch of
:func:`~zoo.models.gda.gibbs.make_kernel` flipped, so that a fault differs from the
correct sampler in exactly the line of its bug (classic derivation errors of the
normal-inverse-Wishart update, which the diagnostics must catch):

- ``nu-off-by-one``: inverse-Wishart degrees of freedom ``nu0 + N + 1``;
- ``sample-covariance``: the class sample covariance ``S_k / n_k`` in ``Psi_N`` instead
  of the scatter matrix ``S_k``;
- ``kappa-not-updated``: ``kappa0`` where ``kappa_k = kappa0 + n_k`` belongs.
"""

from __future__ import annotations

from zoo.models.gda.gibbs import make_kernel

__all__ = ["FAULTS"]

FAULTS = {
    "nu-off-by-one": make_kernel(nu_offset=1),
    "sample-covariance": make_kernel(sample_covariance=True),
    "kappa-not-updated": make_kernel(kappa_fixed=True),
}
