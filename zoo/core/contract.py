"""The model contract: what every model in the zoo offers, under the same names.

A model is a :class:`Model`: its ``Prior`` and ``Data`` types, ``simulate``,
``posterior`` (the exact reference), ``program`` (the PyMC model) and a Gibbs
:class:`Kernel`. Diagnostics, the CLI and the protocol tests are written once against
this contract, so a fifth model (a user's own) gets them for free through
:func:`zoo.register`.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from zoo.core.loading import load_object

__all__ = [
    "CannotAugment",
    "DerivedVariables",
    "Kernel",
    "KernelChecks",
    "Model",
    "OutsideSupport",
]


class OutsideSupport(ValueError):
    """A simulated data set outside the data's support or type, decided by the data alone.

    Raised by a model's ``simulate`` when the data it drew cannot be data of the model
    as a sampler receives it: counts that overflow their integer type or lie beyond
    what a double holds exactly, NaN or infinite values. The event depends on the data
    only, so simulation-based calibration may redraw such a data set without changing
    any other data set's posterior (``docs/design.md``, "The verdict policy").
    """


class CannotAugment(ValueError):
    """A data set that new observations cannot be appended to, and what would allow it.

    Raised by a model's ``augment`` (posterior SBC) when its data have no axis along
    which observations repeat given the parameters: a scalar observation, covariates
    that cannot be told apart from the data, a latent variable per observation.

    Parameters
    ----------
    reason : str
        Why, in the model's terms.
    cure : str
        What the user can change so that the data can be augmented.
    """

    def __init__(self, reason: str, cure: str):
        super().__init__(reason)
        self.cure = cure

    def __reduce__(self):
        return (type(self), (str(self), self.cure))


class Kernel(NamedTuple):
    """A Gibbs kernel as three pure functions, in the style of blackjax.

    Attributes
    ----------
    init : callable
        ``init(data, prior, rng) -> state``: a starting state drawn with ``rng``.
    step : callable
        ``step(state, data, prior, rng) -> state``: one full sweep. It must leave the
        posterior invariant and must not modify ``state`` in place.
    draw : callable
        ``draw(state, data, prior, rng) -> {name: array}``: the model's variables given
        the state, drawn from their conjugate conditionals (for a collapsed sampler this
        is the step that brings the integrated-out parameters back).
    describe : callable, optional
        ``describe(data, prior) -> str``: which sampler runs on this data, for a kernel
        that decides per data set (LDA's default picks its sampler from K and the
        corpus). ``zoo.sample`` records it in the output's attributes (``sampler``) and
        prints it where it shows progress.
    """

    init: Callable[..., Any]
    step: Callable[..., Any]
    draw: Callable[..., Mapping[str, np.ndarray]]
    describe: Callable[..., str] | None = None


class KernelChecks(NamedTuple):
    """What Geweke's test and the invariance check need to know about a model's kernel.

    Both checks move the *latent* part of a kernel's state (labels, topics,
    hyperparameters: whatever the kernel keeps between sweeps that is not a function of
    the data) between data sets, so they talk to the kernel through the model's own
    state type: a user's kernel under these checks accepts and returns that state.

    Attributes
    ----------
    latents : callable
        ``latents(params, data, prior, rng) -> {name: array}``: a draw of the latents
        from ``p(latents | params, data)``, exact (per point or token the conditionals are
        independent given the parameters). With a prior draw of ``(params, data)`` this
        completes an exact joint draw, hence an exact posterior draw for that data.
    redraw : callable
        ``redraw(params, latents, data, prior, rng) -> data``: new data from
        ``p(data | params, latents)``, of the same design (sizes, document lengths,
        which labels are hidden).
    state : callable
        ``state(latents, data, prior) -> state``: the kernel's state holding
        ``latents`` for ``data`` (counts and caches rebuilt).
    read : callable
        ``read(state, data) -> {name: array}``: the latents held by a state (inverse of
        ``state``).
    setup : callable
        ``setup() -> (prior, size)``: a proper prior under which the test functions have
        finite fourth moments, and a small design for ``simulate`` (the Geweke chain
        redraws the data every step, so it mixes only when each data set is weakly
        informative).
    variables : tuple of str, optional
        The variables whose moments are test functions (default: all of ``truth``).
    """

    latents: Callable[..., Mapping[str, np.ndarray]]
    redraw: Callable[..., Any]
    state: Callable[..., Any]
    read: Callable[[Any, Any], Mapping[str, np.ndarray]]
    setup: Callable[[], tuple[Any, dict]]
    variables: tuple[str, ...] | None = None


class DerivedVariables(NamedTuple):
    """Variables of a model that are functions of its other variables.

    A sampler under ``zoo validate`` may leave them out of its output; the zoo computes
    them from the draws (LDA's label-invariant ``doc_word`` and ``coassignment`` from
    ``theta`` and ``phi``).

    Attributes
    ----------
    names : tuple of str
        The variables computed.
    inputs : tuple of str
        The variables they are computed from.
    compute : callable
        ``compute(data, prior, draws) -> {name: array}`` with ``draws`` a mapping of the
        inputs as ``(chain, draw, ...)`` arrays; vectorised over the leading axes.
    """

    names: tuple[str, ...]
    inputs: tuple[str, ...]
    compute: Callable[[Any, Any, Mapping[str, np.ndarray]], Mapping[str, np.ndarray]]


@dataclass(frozen=True)
class Model:
    """One model of the zoo, in its three forms.

    Attributes
    ----------
    name : str
        Registry name, as used on the command line (``beta-binomial``).
    Prior, Data : type
        Validated hyperparameters and observed data.
    simulate : callable
        ``simulate(prior, rng, **size) -> (truth, data)``: one draw from the prior
        predictive distribution; raises :class:`OutsideSupport` for data that lie
        outside the data's support or type (SBC then draws again from ``rng``).
    posterior : callable
        ``posterior(data, prior) -> Reference | NoReference``: the exact answer.
    program : callable
        ``program(data, prior) -> pymc.Model``; variable names and dims match the
        Gibbs output.
    kernel : Kernel
        The hand-written collapsed Gibbs sampler.
    default_problem : callable
        ``default_problem() -> (data, prior)``: the data set ``zoo check`` runs on.
    variables : callable
        ``variables(prior) -> {name: dims}``: the posterior variables and their dims,
        as both engines name them (a hierarchical prior adds hyperparameters).
    simulation_setup : callable, optional
        ``simulation_setup() -> (prior, size)``: a proper prior and the keyword sizes
        for ``simulate``, used by simulation-based checks (the default prior may be
        improper).
    summary : str
        One line for ``zoo list``.
    faults : mapping of str to Kernel
        Deliberately wrong kernels (classic derivation bugs), named: the negative
        controls that the diagnostics must catch.
    log_likelihood : callable, optional
        ``log_likelihood(data, params) -> float``: ``log p(data | params)`` for one draw
        ``params`` (a mapping of the variables' values), latent labels summed out. A test
        quantity of simulation-based calibration and Geweke's test.
    pointwise_log_likelihood : callable, optional
        ``pointwise_log_likelihood(data, params) -> {name: (values, dims)}``: the
        log-likelihood of each observation, one entry per observed variable of the PyMC
        program, under its name and with the dims ``pymc.compute_log_likelihood`` gives
        it; ``params`` may carry leading sample dims (``chain``, ``draw``), which lead
        ``values`` too. The Gibbs engine's ``log_likelihood`` group (for LOO-CV); where
        a model gives both, ``log_likelihood`` is the sum of these terms, and the zoo
        evaluates many draws at once through this form
        (:func:`zoo.core.log_likelihood.log_likelihood_per_draw`).
    validation_problems : callable, optional
        ``validation_problems() -> [(name, data, prior), ...]``: small data sets with
        exact references, chosen to be sensitive (informative and asymmetric priors,
        unbalanced classes), on which ``zoo validate`` checks a sampler. Default: the
        default problem.
    comparable : callable, optional
        ``comparable(prior) -> [name, ...]``: the variables on which two samplers (or a
        sampler and the exact reference) can be compared, because their posterior is
        identified. Default: every variable. A mixture or topic model whose labels are
        exchangeable under ``prior`` lists only its label-invariant variables: chains
        that each stay near one labeling are correct yet disagree on the others.
    kernel_checks : KernelChecks, optional
        What Geweke's test and the one-sweep invariance check need (``zoo validate
        --kernel``).
    location : str, optional
        Where the model object lives, as ``package.module:attribute``. A model with a
        location is pickled as that reference (its faults and kernels may be closures,
        which pickle cannot carry) and imported again on the other side, so it reaches
        a worker process as itself. The built-in models set it; a user's model defined
        at module level should too.
    derived : DerivedVariables, optional
        Variables a sampler may leave out because the zoo computes them from the others.
    augment : callable, optional
        ``augment(data, params, prior, rng) -> data``: ``data`` with new observations
        drawn from ``p(y_new | params)`` appended along its observation axis (as many
        again, at the same design), the data set posterior SBC fits (Säilynoja et al.
        2025, arXiv:2502.03279). Raises :class:`CannotAugment` when the data have no
        such axis. None: the model cannot say (posterior SBC then cannot judge).
    """

    name: str
    Prior: type
    Data: type
    simulate: Callable[..., tuple[dict[str, np.ndarray], Any]]
    posterior: Callable[[Any, Any], Any]
    program: Callable[[Any, Any], Any]
    kernel: Kernel
    default_problem: Callable[[], tuple[Any, Any]]
    variables: Callable[[Any], Mapping[str, tuple[str, ...]]]
    simulation_setup: Callable[[], tuple[Any, dict]] | None = None
    summary: str = ""
    faults: Mapping[str, Kernel] = field(default_factory=dict)
    log_likelihood: Callable[[Any, Mapping[str, np.ndarray]], float] | None = None
    pointwise_log_likelihood: (
        Callable[[Any, Mapping[str, np.ndarray]], Mapping[str, tuple[np.ndarray, tuple]]] | None
    ) = None
    validation_problems: Callable[[], list[tuple[str, Any, Any]]] | None = None
    comparable: Callable[[Any], list[str]] | None = None
    kernel_checks: KernelChecks | None = None
    location: str | None = None
    derived: DerivedVariables | None = None
    augment: Callable[[Any, Mapping[str, np.ndarray], Any, np.random.Generator], Any] | None = None

    def __reduce__(self):
        # By reference only when the location holds this very object: a copy made with
        # dataclasses.replace keeps the field but not the identity, and must travel with
        # its own (changed) fields.
        if self.location is not None and _loaded_at(self.location) is self:
            return (_model_at, (self.location,))
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return (_model_from_fields, (fields,))

    def comparable_variables(self, prior) -> list[str]:
        """Variables that engines are compared on under ``prior`` (default: all)."""
        names = list(self.variables(prior))
        if self.comparable is None:
            return names
        chosen = list(self.comparable(prior))
        unknown = [name for name in chosen if name not in names]
        if unknown:
            raise ValueError(f"comparable: {unknown} are not variables of {self.name!r}")
        return chosen


def _loaded_at(location: str):
    """The object at ``location`` if its module is already imported, else None.

    Pickling asks only whether the location holds the model being pickled; that model
    exists, so its module is loaded. Looking in ``sys.modules`` imports nothing and
    leaves ``sys.path`` alone (``load_object`` adds the working directory to it).
    """
    module_name, _, attribute = location.partition(":")
    value = sys.modules.get(module_name)
    for part in attribute.split("."):
        value = getattr(value, part, None)
    return value


def _model_at(location: str) -> Model:
    """Unpickle a model by its location (see :attr:`Model.location`)."""
    model = load_object(location, field="model")
    if not isinstance(model, Model):
        raise ValueError(f"model: {location!r} is a {type(model).__name__}, not a zoo Model")
    return model


def _model_from_fields(fields: dict) -> Model:
    """Unpickle a model without a location (or a changed copy of one) by value."""
    return Model(**fields)
