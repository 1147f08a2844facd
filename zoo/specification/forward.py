"""A PyMC model's forward draws and log-likelihood, compiled once.

Simulation-based calibration draws hundreds of data sets from the prior predictive,
and Geweke's test one fresh data set per step of a chain; a ``pm.sample_prior_predictive``
call per draw would compile the graph every time. :class:`Specification` compiles each
function once (on first use, in the process that uses it) and reseeds its random
generators from the caller's ``numpy.random.Generator``, so the same generator state
gives the same draws, bit for bit.

A Dask worker receives the specification with every task (pickled as its graph). Each
worker keeps the specifications it rebuilt, by their graph's bytes
(:func:`_from_graph`), so that a worker reading one model for a hundred SBC fits or
Geweke steps rebuilds it and compiles its functions once, as the zoo's own process
does, rather than once per task (about a second of graph reading and compilation per
task on a small model, measured in ``docs/validating.md``, "Budgets and presets").
"""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np

from zoo.core.contract import OutsideSupport
from zoo.core.reproducible import ieee_arithmetic
from zoo.specification.graph import ModelParts, model_parts, observed_values

__all__ = ["EXACT_INTEGER", "Specification", "outside_type"]

#: Distributions whose prior cannot be drawn from (improper): simulation refuses them.
_IMPROPER = ("Flat", "HalfFlat")

#: The largest integer a double holds exactly (2**53): a sampler computes in doubles,
#: and a count beyond it is not the count drawn (IEEE 754 binary64's 53-bit
#: significand). An int64 count that overflowed lands at -2**63, beyond it too.
EXACT_INTEGER = 2**53


def outside_type(data: Mapping[str, np.ndarray]) -> str:
    """Why simulated ``data`` are not data of their type, by the data alone ("" if they are).

    Floating-point values must be finite; integer values (counts) within
    ``+-``:data:`EXACT_INTEGER`. The event depends on the data only, never on the
    parameters that drew them, so rejecting it leaves the posterior of every data set
    kept unchanged (``docs/design.md``, "The verdict policy").
    """
    for name, value in data.items():
        value = np.asarray(value)
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            return f"{name} holds NaN or infinite values"
        if value.dtype.kind in "iu" and value.size:
            # Compared as Python integers: abs(-2**63) overflows int64 itself.
            if int(value.max()) > EXACT_INTEGER or int(value.min()) < -EXACT_INTEGER:
                return f"{name} holds counts beyond 2**53 (an integer overflow)"
    return ""


def _largest(params) -> str:
    """``beta 2.1e-17, theta 3.2e+22``: each parameter's largest magnitude."""
    return ", ".join(
        f"{name} {float(np.max(np.abs(np.asarray(value, dtype=float)))):.3g}"
        for name, value in params.items()
    )


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
    compiled functions are rebuilt on the other side when first needed, once per
    process (:func:`_from_graph`). The graph is read at construction (``parts``,
    ``values``) and pickled once: the model must not be changed afterwards.

    A specification may serve several threads: each forward draw reseeds a compiled
    function's generators and calls it under one lock, so that two draws never mix
    their seeds.
    """

    def __init__(self, model, *, field: str = "model", parts: ModelParts | None = None):
        self.model = model
        self.field = field
        # A rebuilt graph lists its variables in another order than the user's model
        # (model_from_fgraph's): it is given the original's parts, whose order every
        # compiled function below follows.
        self.parts: ModelParts = model_parts(model, field=field) if parts is None else parts
        self.values = observed_values(model)
        self._compiled: dict = {}
        self._graph_bytes: bytes | None = None
        self._lock = threading.RLock()

    # -- pickling ---------------------------------------------------------------------
    def __reduce__(self):
        # Read once: a run ships the specification with every task.
        with self._lock:
            if self._graph_bytes is None:
                # deferred: PyMC is imported only when a specification is used
                from pymc.model.fgraph import fgraph_from_model

                graph, _ = fgraph_from_model(self.model)
                self._graph_bytes = pickle.dumps(graph)
        return (_from_graph, (self._graph_bytes, self.field, self.parts))

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
        with self._lock:
            _reseed(self._rngs("simulate"), rng)
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
        inputs = self._inputs(self.parts.free, params)
        with self._lock:
            _reseed(self._rngs("redraw"), rng)
            drawn = function(*inputs)
        data = {name: np.asarray(v) for name, v in zip(self.parts.observed, drawn, strict=True)}
        self._check_support(data, params, "p(data | parameters)")
        return data

    def log_likelihood(self, observed: Mapping[str, np.ndarray], params) -> float:
        """``log p(observed | params)``: the sum of the observed variables' log densities."""
        function = self._function("log_likelihood")
        inputs = self._inputs(self.parts.free, params)
        inputs += self._inputs(self.parts.observed, observed)
        with self._lock:
            return float(function(*inputs))

    def _check_support(self, data, params, source: str) -> None:
        """Raise when a forward draw left the data's type or support.

        First the data alone (:func:`outside_type`): a prior with heavy tails can draw
        rates so large that a Poisson count overflows its 64-bit integer (it comes back
        as ``-2**63``) or exceeds what a double holds exactly, and such data are not
        data of the model at all. That event depends on the data only, so
        :class:`zoo.core.contract.OutsideSupport` is raised and a caller may draw again
        (SBC does). Then the draw as a whole: data of the right type whose
        log-likelihood under the parameters that drew them is not finite mean the
        model's own simulation went wrong, a ValueError with the cause.
        """
        why = outside_type(data)
        if why:
            raise OutsideSupport(
                f"model: a draw from {source} is outside the data's type ({why}; largest "
                f"|parameter|: {_largest(params)}): the prior's tails reach values that "
                "overflow it; a lighter-tailed (more informative) prior makes the model "
                "simulable"
            )
        if np.isfinite(self.log_likelihood(data, params)):
            return
        raise ValueError(
            f"model: a draw from {source} is outside the support of the observed "
            f"variables (log-likelihood not finite; largest |parameter|: "
            f"{_largest(params)}): the model's simulation does not draw its own data"
        )

    # -- compiled functions -------------------------------------------------------------
    def _inputs(self, names, values: Mapping) -> list[np.ndarray]:
        """``values`` of ``names`` as a compiled function takes them, checked here.

        Each an array of its variable's dtype and number of dimensions. The functions
        trust their inputs (PyTensor's ``trust_input``): its own check of every input
        costs more than a small model's draw, and Geweke's chains call them at every
        step; the check that matters, the rank, is made here, naming the variable.
        """
        arrays = []
        for name in names:
            kind = self.model[name].type
            value = np.asarray(values[name], dtype=kind.dtype)
            if value.ndim != kind.ndim:
                raise ValueError(
                    f"{name}: expected an array of {kind.ndim} dimension(s) (the model's "
                    f"{name}), got shape {value.shape}"
                )
            arrays.append(value)
        return arrays

    def _function(self, kind: str):
        with self._lock:
            if kind not in self._compiled:
                # The same arithmetic as the PyMC engine's (zoo.core.reproducible): the
                # same draws on a cold and a warm cache, and one compiled form of each
                # op, not two.
                with ieee_arithmetic():
                    function = getattr(self, f"_compile_{kind}")()
                # Inputs are checked by _inputs; simulate has none.
                function.trust_input = True
                self._compiled[kind] = function
            return self._compiled[kind]

    def _variables(self) -> list:
        """The free, then the observed random variables, in the order of ``parts``."""
        return [self.model[name] for name in (*self.parts.free, *self.parts.observed)]

    def _rngs(self, kind: str) -> list:
        """The compiled function's random generators, each named by the variable it feeds.

        Ordered by the variables' order in ``parts`` (a generator no variable owns, after
        them in the function's order): seeds go to variables, not to positions in a
        graph, so that a specification rebuilt from its pickled graph, whose generators
        the function lists in another order, draws the same values from the same
        generator.
        """
        kept = self._compiled.get(("rngs", kind))
        if kept is not None:
            return kept
        function = self._function(kind)
        shared = [v for v in function.get_shared() if type(v.type).__name__ == _RNG_TYPE]
        rank = {}
        for position, variable in enumerate(self._variables()):
            for given in variable.owner.inputs:
                if type(given.type).__name__ == _RNG_TYPE:
                    rank.setdefault(id(given), position)
        unowned = len(rank)
        ordered = sorted(shared, key=lambda v: rank.get(id(v), unowned))
        self._compiled["rngs", kind] = ordered
        return ordered

    def _compile_simulate(self):
        # deferred: PyMC is imported only when a specification is used
        from pymc.pytensorf import compile as compile_pymc

        return compile_pymc([], self._variables(), random_seed=0)

    def _compile_redraw(self):
        # deferred: PyMC and PyTensor are imported only when a specification is used
        import pytensor
        from pymc.pytensorf import compile as compile_pymc
        from pytensor.graph.replace import clone_replace

        free = [self.model[name] for name in self.parts.free]
        observed = [self.model[name] for name in self.parts.observed]
        inputs = [rv.type() for rv in free]
        outputs = clone_replace(observed, replace=dict(zip(free, inputs, strict=True)))
        # Without PyTensor's on-disk Numba cache: its cached form wraps the compiled
        # graph in a function of *args, whose call Numba types in Python, argument by
        # argument (measured: 120 of the 150 microseconds a call of eight schools'
        # redraw takes); the function itself, compiled here with its arguments named,
        # is typed in C. Geweke's chains call it once a step, up to hundreds of
        # thousands of times a run, for a compilation of about a second per process.
        # The same Numba code either way: the same draws, bit for bit (tested).
        with pytensor.config.change_flags(numba__cache=False):
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
        # In the order callers pass them (parts.free, parts.observed), by name: the
        # transformed copy may list its variables in another order than the user's
        # model (its graph's), and a positional match then feeds mu where eta belongs.
        values = {rv.name: model.rvs_to_values[rv] for rv in model.free_RVs}
        observed = {rv.name: model.rvs_to_values[rv] for rv in model.observed_RVs}
        constants = [observed[name] for name in self.parts.observed]
        placeholders = [c.type() for c in constants]
        (logp,) = clone_replace([logp], replace=dict(zip(constants, placeholders, strict=True)))
        inputs = [values[name] for name in self.parts.free]
        return pytensor.function([*inputs, *placeholders], logp, on_unused_input="ignore")


#: PyTensor's type of a random generator variable, by name (PyTensor loads on first use).
_RNG_TYPE = "RandomGeneratorType"


def _reseed(shared: list, rng: np.random.Generator) -> None:
    """Seed ``shared``, a function's generators in order, from ``rng`` (one integer drawn)."""
    # deferred: PyMC is imported only when a specification is used
    from pymc.pytensorf import reseed_rngs

    reseed_rngs(shared, int(rng.integers(2**63)))


#: How many rebuilt specifications a process keeps (the most recently used): a run
#: ships one per data set of its model; a long-lived worker of a shared cluster serves
#: runs of other models after it.
_REBUILT_KEPT = 16

#: ``(graph bytes, field) -> Specification`` rebuilt in this process, oldest first.
_REBUILT: OrderedDict[tuple[bytes, str], Specification] = OrderedDict()
_REBUILT_LOCK = threading.Lock()


def _from_graph(graph_bytes: bytes, field: str, parts: ModelParts) -> Specification:
    """Unpickle a :class:`Specification` from its graph, once per process.

    The same bytes are the same graph (data included: PyMC keeps observed values as
    constants of it), so the specification rebuilt the first time, with the functions
    it has compiled since, serves every later task that brings them. Its forward draws
    depend only on the generator they are given (each call reseeds), so sharing it
    changes no draw.
    """
    key = (graph_bytes, field)
    with _REBUILT_LOCK:
        kept = _REBUILT.get(key)
        if kept is not None:
            _REBUILT.move_to_end(key)
            return kept
    # deferred: PyMC is imported only when a specification is used
    from pymc.model.fgraph import model_from_fgraph

    rebuilt = Specification(
        model_from_fgraph(pickle.loads(graph_bytes), mutate_fgraph=True), field=field, parts=parts
    )
    # Pickled again (to a worker of its own, a store) as the same bytes.
    rebuilt._graph_bytes = graph_bytes
    with _REBUILT_LOCK:
        rebuilt = _REBUILT.setdefault(key, rebuilt)
        _REBUILT.move_to_end(key)
        while len(_REBUILT) > _REBUILT_KEPT:
            _REBUILT.popitem(last=False)
    return rebuilt
