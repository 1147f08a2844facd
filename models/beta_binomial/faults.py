"""Beta-Binomial: the deliberately wrong kernels (negative controls), by name.

Each is the production kernel of :mod:`zoo.models.beta_binomial.gibbs` with one switch
of :func:`~zoo.models.beta_binomial.gibbs.make_kernel` flipped, so that a fault differs
from the correct sampler in exactly the line of its bug (classic derivation errors,
which the diagnostics must catch):

- ``swapped-a-b``: ``theta_j | a, b, y ~ Beta(b + y_j, a + n_j - y_j)``;
- ``failures-as-trials``: ``n_j`` counted as failures instead of ``n_j - y_j``;
- ``jacobian-omitted``: ``(u, v)`` slice-sampled under ``(a + b)^(-5/2)`` without the
  Jacobian of ``(a, b) -> (log(a / b), log(a + b))``.
"""

from __future__ import annotations

from zoo.models.beta_binomial.gibbs import make_kernel

__all__ = ["FAULTS"]

FAULTS = {
    "swapped-a-b": make_kernel(swap_ab=True),
    "failures-as-trials": make_kernel(failures_as_trials=True),
    "jacobian-omitted": make_kernel(jacobian=False),
}
