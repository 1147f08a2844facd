"""The linear-Gaussian posterior as an inner engine of the conditional layer.

:class:`zoo.specification.linear_gaussian.LinearGaussian` already takes the variables
held fixed as compiled inputs and returns ``log p(y | fixed)`` with every Gaussian (and
conjugate scale) variable integrated out; :class:`LinearGaussianEngine` only stacks its
solutions over a batch of outer values into the
:class:`~zoo.specification.conjugate_engine.InnerEngine` protocol, so that
:mod:`zoo.specification.conditional` integrates a hierarchical scale (eight schools'
``tau``) or a regression's noise sd under a HalfNormal, HalfCauchy or Exponential
prior by quadrature. It is an adapter, not a second Gaussian implementation.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import numpy as np
from scipy import stats

from zoo.specification.conjugate_engine import Conditional
from zoo.specification.conjugate_graph import NotRecognised
from zoo.specification.linear_gaussian import LinearGaussian

__all__ = ["JoinedEngines", "LinearGaussianEngine"]

_RULE = "linear-Gaussian"


class LinearGaussianEngine:
    """:class:`LinearGaussian` as an :class:`~zoo.specification.conjugate_engine.InnerEngine`.

    Parameters
    ----------
    model : pymc.Model
    data : mapping, optional
        As :func:`zoo.specification.exact.exact_reference` takes it.
    outer : sequence of str
        Free variables held fixed.
    variables : collection of str, optional
        Only these free variables and the observations that read them.

    Raises
    ------
    NotRecognised
        When the model given ``outer`` is not linear-Gaussian, or a scale variable's
        conditional is the root of an inverse gamma (no scipy distribution to mix).
    """

    description = "the linear-Gaussian posterior read from the graph"

    def __init__(
        self, model, data: Mapping | None, outer=(), variables: Collection[str] | None = None
    ):
        self._solver = LinearGaussian(model, data, fixed=tuple(outer), variables=variables)
        self.outer = tuple(outer)
        self.absorbed = ()
        self.inner = (*self._solver.layout, *self._solver.scales)
        for name, scale in self._solver.scales.items():
            if scale["exponent"] not in (1.0, -1.0):
                raise NotRecognised(
                    f"{name}: its conditional given {', '.join(self.outer)} is the root of "
                    "an inverse gamma, which the quadrature does not mix"
                )

    def condition(self, outer_values: Mapping[str, np.ndarray]) -> Conditional:
        """Evidence and Gaussian conditionals for ``B`` joint outer values."""
        # every value at once (LinearGaussian.solve_batch: vectorised, in blocks)
        evidence, found = self._solver.solve_batch(
            {name: np.asarray(outer_values[name]) for name in self.outer}
        )
        marginals = {
            name: _frozen(found[name], name in self._solver.scales) for name in self.inner
        }
        return Conditional(evidence, marginals, {name: {_RULE} for name in self.inner})


def _frozen(stacked: dict, is_scale: bool):
    """One scipy distribution whose parameters hold every outer value's conditional."""
    if is_scale:
        # s2 = v^(2p) ~ InvGamma(a, b): p = 1/2 is v itself; p = -1/2 a Gamma precision
        if stacked["exponent"].flat[0] == 1.0:
            return stats.invgamma(stacked["shape"], scale=stacked["scale"])
        return stats.gamma(stacked["shape"], scale=1.0 / stacked["scale"])
    if np.all(np.isinf(stacked["df"])):
        return stats.norm(loc=stacked["loc"], scale=stacked["scale"])
    return stats.t(stacked["df"], loc=stacked["loc"], scale=stacked["scale"])


class JoinedEngines:
    """Engines of disjoint inner variables, given the same outer values, as one.

    Given the outer values the inner variables fall into parts no observation links
    (a mixture's means and its weights, given the labels), so the evidence is the sum
    of the parts' and the conditionals are each part's. The first engine counts the
    observations that read outer variables only; the others must not.
    """

    def __init__(self, engines):
        self._engines = tuple(engines)
        self.outer = self._engines[0].outer
        self.inner = tuple(name for engine in self._engines for name in engine.inner)
        self.absorbed = tuple(name for engine in self._engines for name in engine.absorbed)
        self.description = " and ".join(engine.description for engine in self._engines)

    def condition(self, outer_values: Mapping[str, np.ndarray]) -> Conditional:
        """The sum of the engines' evidence and all their conditionals."""
        found = [engine.condition(outer_values) for engine in self._engines]
        return Conditional(
            sum(c.log_evidence for c in found),
            {name: m for c in found for name, m in c.marginals.items()},
            {name: r for c in found for name, r in c.rules.items()},
        )
