"""A PyMC model's forward draws and log-likelihood, compiled once.

Simulation-based calibration draws hundreds of data sets from the prior predictive,
and Geweke's test one fresh data set per step of a chain; a ``pm.sample_prior_predictive``
call per draw would compile the graph every time. :class:`Specification` compiles each
function once (on first use, in the process that uses it) and reseeds its random
generators from the caller's ``numpy.random.Generator``, so the same generator state
gives the same draws, bit for bit.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping

import numpy as np

from zoo.core.reproducible import ieee_arithmetic
from zoo.specification.graph import ModelParts, model_parts, observed_values

__all__ = ["Specification"]

#: Distributions whose prior cannot be drawn from (improper): simulation refuses them.
_IMPROPER = ("Flat", "HalfFlat")


def _op_name(variable) -> str:
    return type(variable.owner.op).__name__.removesuffix("RV")


class Specification:
    """One PyMC model as the battery uses it: names, data, forward draws, likelihood.

    Parameters
    ----------
    model : pymc.Model
        With observed variables; it is not modified (every graph here is a clone).
    field : str
        Named in errors.

    Notes
    -----
    Pickled as its graph (PyMC's ``fgraph_from_model``), which pickle can carry; the
    compiled functions are rebuilt on the other side when first needed.
    """

    def __init__(self, model, *, field: str = "model"):
        self.model = model
        self.field = field
        self.parts: ModelParts = model_parts(model, field=field)
        self.values = observed_values(model)
        self._compiled: dict = {}

    # -- pickling ---------------------------------------------------------------------
    def __reduce__(self):
        # deferred: PyMC is imported only when a specification is used
        from pymc.model.fgraph import fgraph_from_model

        graph, _ = fgraph_from_model(self.model)
        return (_from_graph, (pickle.dumps(graph), self.field))

    # -- what simulation needs ----------------------------------------------------------
    def unsimulable(self) -> list[str]:
        """Why the prior predictive cannot be drawn: one phrase per offending term."""
        reasons = [
            f"{rv.name} has an improper prior ({_op_name(rv)})"
            for rv in self.model.free_RVs
            if _op_name(rv) in _IMPROPER
        ]
        reasons.extend(
            f"potential {pot.name or 'unnamed'!r} adds a term forward sampling cannot draw"
            for pot in self.model.potentials
        )
        return reasons

    def simulate(self, rng: np.random.Generator) -> tuple[dict, dict]:
        """One prior-predictive draw: ``(free variables, observed variables)`` by name."""
        function = self._function("simulate")
        _reseed(function, rng)
        drawn = function()
        n_free = len(self.parts.free)
        truth = {
            name: np.asarray(v) for name, v in zip(self.parts.free, drawn[:n_free], strict=True)
        }
        data = {
            name: np.asarray(v)
            for name, v in zip(self.parts.observed, drawn[n_free:], strict=True)
        }
        self._check_support(data, truth, "the prior predictive")
        return truth, data

    def redraw(self, params: Mapping[str, np.ndarray], rng: np.random.Generator) -> dict:
        """Observed variables drawn from ``p(data | params)``, the design unchanged."""
        function = self._function("redraw")
        _reseed(function, rng)
        inputs = [self._cast(name, params[name]) for name in self.parts.free]
        drawn = function(*inputs)
        data = {name: np.asarray(v) for name, v in zip(self.parts.observed, drawn, strict=True)}
        self._check_support(data, params, "p(data | parameters)")
        return data

    def log_likelihood(self, observed: Mapping[str, np.ndarray], params) -> float:
        """``log p(observed | params)``: the sum of the observed variables' log densities."""
        function = self._function("log_likelihood")
        inputs = [self._cast(name, params[name]) for name in self.parts.free]
        inputs += [self._cast(name, observed[name]) for name in self.parts.observed]
        return float(function(*inputs))

    def _check_support(self, data, params, source: str) -> None:
        """Raise when a forward draw left the support (an integer overflow, an infinity).

        A prior with heavy tails can draw rates so large that a Poisson or Binomial count
        overflows its integer type: the draw is then not from the model at all, and a
        sampler given it fails for the simulator's reason. Said here, with the cause.
        """
        if np.isfinite(self.log_likelihood(data, params)):
            return
        extreme = {
            name: float(np.max(np.abs(np.asarray(value, dtype=float))))
            for name, value in params.items()
        }
        raise ValueError(
            f"model: a draw from {source} is outside the support of the observed "
            f"variables (log-likelihood not finite; largest |parameter|: "
            f"{', '.join(f'{k} {v:.3g}' for k, v in extreme.items())}): the prior's tails "
            "reach values that overflow the data's type; a lighter-tailed (more "
            "informative) prior makes the model simulable"
        )

    # -- compiled functions -------------------------------------------------------------
    def _cast(self, name, value) -> np.ndarray:
        dtype = self.model[name].type.dtype
        return np.asarray(value, dtype=dtype)

    def _function(self, kind: str):
        if kind not in self._compiled:
            # The same arithmetic as the PyMC engine's (zoo.core.reproducible): the same
            # draws on a cold and a warm cache, and one compiled form of each op, not two.
            with ieee_arithmetic():
                self._compiled[kind] = getattr(self, f"_compile_{kind}")()
        return self._compiled[kind]

    def _compile_simulate(self):
        # deferred: PyMC is imported only when a specification is used
        from pymc.pytensorf import compile as compile_pymc

        model = self.model
        return compile_pymc([], [*model.free_RVs, *model.observed_RVs], random_seed=0)

    def _compile_redraw(self):
        # deferred: PyMC and PyTensor are imported only when a specification is used
        from pymc.pytensorf import compile as compile_pymc
        from pytensor.graph.replace import clone_replace

        model = self.model
        inputs = [rv.type() for rv in model.free_RVs]
        outputs = clone_replace(
            list(model.observed_RVs), replace=dict(zip(model.free_RVs, inputs, strict=True))
        )
        # A free variable the data do not depend on directly (a hyperparameter) is
        # still an input: every call passes all of them.
        return compile_pymc(inputs, outputs, random_seed=0, on_unused_input="ignore")

    def _compile_log_likelihood(self):
        # deferred: PyMC and PyTensor are imported only when a specification is used
        import pytensor
        from pymc.model.transform.conditioning import remove_value_transforms
        from pytensor.graph.replace import clone_replace

        # Values in the constrained space, as samplers return them: no transforms, and
        # no Jacobian (only observed terms, whose values are never transformed).
        model = remove_value_transforms(self.model)
        logp = model.logp(vars=model.observed_RVs, sum=True)
        constants = [model.rvs_to_values[rv] for rv in model.observed_RVs]
        placeholders = [c.type() for c in constants]
        (logp,) = clone_replace([logp], replace=dict(zip(constants, placeholders, strict=True)))
        inputs = [model.rvs_to_values[rv] for rv in model.free_RVs]
        return pytensor.function([*inputs, *placeholders], logp, on_unused_input="ignore")


def _reseed(function, rng: np.random.Generator) -> None:
    """Seed the function's random generators from ``rng`` (one integer drawn)."""
    # deferred: PyMC is imported only when a specification is used
    from pymc.pytensorf import reseed_rngs

    shared = [v for v in function.get_shared() if type(v.type).__name__ == "RandomGeneratorType"]
    reseed_rngs(shared, int(rng.integers(2**63)))


def _from_graph(graph_bytes: bytes, field: str) -> Specification:
    """Unpickle a :class:`Specification` from its graph."""
    # deferred: PyMC is imported only when a specification is used
    from pymc.model.fgraph import model_from_fgraph

    return Specification(
        model_from_fgraph(pickle.loads(graph_bytes), mutate_fgraph=True), field=field
    )
