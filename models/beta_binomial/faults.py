"""Beta-Binomial: the deliberately wrong kernels (negative controls), by name.

Each is the production kernel of :mod:`zoo.models.beta_binomial.gibbs` with one switch
of :func:`~zoo.models.beta_binomial.gibbs.make_kernel` flipped, so that a fault differs
from the correct sampler in exactly the line of its bug (classic derivation errors,
which the diagnostics must catch):

- ``swapped-a-b`` (the conditional's formula): ``theta_j | a, b, y ~ Beta(b + y_j,
  a + n_j - y_j)``;
- ``failures-as-trials`` (bookkeeping of counts): ``n_j`` counted as failures instead of
  ``n_j - y_j``;
- ``jacobian-omitted`` (the conditional's formula): ``(u, v)`` slice-sampled under
  ``(a + b)^(-5/2)`` without the Jacobian ``(a + b)^2 s (1 - s)`` of
  ``(a, b) -> (u, v) = (log(a / b), log(a + b))``;
- ``truncation-ignored`` (the prior's support): the slice target on ``(u, v)`` is
  ``p(y | a, b) (a + b)^(-1/2) s (1 - s)`` on all of ``R^2``, without the indicator
  ``1{v >= log c}`` of the truncated prior ``a + b >= c`` (``Prior.min_concentration``):
  the chain samples the untruncated BDA3 posterior. Only a problem whose posterior puts
  mass below ``a + b = c`` exposes it;
- ``slice-level-uniform`` (slice details; a wrong random variate): the slice level
  ``log f(x0) - U`` with ``U ~ Uniform(0, 1)`` where ``log(U f(x0)) = log f(x0) - E``,
  ``E ~ Exp(1)``, belongs (Neal 2003, section 4): the slice is cut at most one nat
  below ``f(x0)``, so the chain over-weights the mode;
- ``theta-conditional-mean`` (storage of draws): ``theta_j`` recorded as its
  conditional mean ``E[theta_j | a, b, y] = (a + y_j) / (a + b + n_j)`` (a
  Rao-Blackwellised value) in place of the draw from ``Beta(a + y_j, b + n_j - y_j)``:
  the posterior mean of ``theta`` is right, its spread too small by the conditional
  variance.
"""

from __future__ import annotations

from zoo.models.beta_binomial.gibbs import make_kernel

__all__ = ["FAULTS", "KINDS"]

FAULTS = {
    "swapped-a-b": make_kernel(swap_ab=True),
    "failures-as-trials": make_kernel(failures_as_trials=True),
    "jacobian-omitted": make_kernel(jacobian=False),
    "truncation-ignored": make_kernel(truncation=False),
    "slice-level-uniform": make_kernel(uniform_level=True),
    "theta-conditional-mean": make_kernel(theta_drawn=False),
}

#: The kind of each bug (module docstring): "formula" (the conditional's formula),
#: "counts" (bookkeeping of counts), "draw" (the draw step), "prior" / "prior support"
#: (the prior's pseudo-counts or support), "slice" (the slice sampler's details),
#: "storage" (what is recorded as a draw).
KINDS = {
    "swapped-a-b": "formula",
    "failures-as-trials": "counts",
    "jacobian-omitted": "formula",
    "truncation-ignored": "prior support",
    "slice-level-uniform": "slice (draw)",
    "theta-conditional-mean": "storage",
}
