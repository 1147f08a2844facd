"""Geweke's joint-distribution test of a Gibbs kernel.

Geweke, "Getting it right: joint distribution tests of posterior simulators", JASA 99
(2004), sec. 2-3. Two simulators of the joint distribution ``p(theta, z, y)`` of
parameters, latents and data:

- marginal-conditional: ``(theta, y) ~ simulate(prior)``, then ``z ~ p(z | theta, y)``;
  independent draws.
- successive-conditional: a chain that alternates the kernel under test (one sweep of
  the latents given ``y``, then ``theta`` from ``draw``) with a fresh data set
  ``y ~ p(y | theta, z)``. If the kernel leaves ``p(z, theta | y)`` invariant, the
  joint distribution is the chain's stationary distribution; the chain starts from an
  exact joint draw, so it is there from the first step.

Every test function ``g`` (:mod:`zoo.diagnostics.geweke_functions`: the normal score
of every scalar of every parameter, latent and the log-likelihood against a pilot of
marginal-conditional draws, its square, and indicators at the pilot's 10%, 50% and 90%
quantiles; bounded, so heavy tails do not spoil the standard errors) has the same mean
under both. A Welch t test per function, Holm over functions at ``alpha``. The marginal
side's standard error is the iid one.

The chain side's standard error comes from *independent segments*: every chain starts
again from a fresh exact joint draw every ``segment`` steps (:func:`segment_length`:
the first stage's length over ``batches``, 500 steps by default), so under a correct
kernel each step of each segment is a joint draw, the segments share no draw, and
their means are independent and identically distributed with the joint's mean: their
spread over the ``segments - 1`` degrees of freedom is an honest error whatever the
chain's mixing time, and the test is the two-sample one. This is Geweke's (2004, sec.
3) argument that the successive-conditional chain is stationary from an exact start,
used as Cook, Gelman & Rubin (2006, "Validation of software for Bayesian models using
posterior quantiles", JCGS 15) and Gandy & Scott (2020, "Unit testing for MCMC and
other Monte Carlo methods", arXiv 2001.06465) use it: replicates that each begin at an
exact draw are independent by construction, so no autocorrelation needs estimating.
It replaced batch means over chains run on, which need a batch to span the chain's
mixing time, checked by an ESS gate; no ESS from the chain can check it when a slow
component's excursions are longer than the run: on eight schools, centred, the chain
(``y`` redrawn given ``theta``, which ties ``tau`` to them) visits large ``tau`` in
excursions that outlast 20,000 steps, so four long chains under-visited the joint's
tail (seed 7: ``tau > 100`` in 3.2% of the joint draws, 0.4% to 2.5% of each chain's
steps), every row cleared the gate (ESS 840 and more), and the correct kernel failed
in 2 of 20 seeds (six and nine rows, ``theta`` less spread than the joint draws;
independent chains of 500 or 1,000 steps from exact draws, as the restarts make them,
passed both seeds, adjusted p 0.47 and more; ``docs/design.md``, "Geweke's test:
independent segments"). A restart costs one joint draw, so the chain is the kernel's for
``segment`` steps at a time: a wrong kernel is seen through its drift within a
segment.

The ESS gate stays, for what the test can see and for the t test's normal
approximation: a row whose chain moves too little within its segments (ArviZ's bulk ESS
over the chains below ``10 x chains x batches``) compares little more than the
segments' exact starts with the marginal draws, and its segment means are as lumpy as
single draws (an indicator's nearly all 0 or 1), so their spread understates the error
(correct kernels gave such rows adjusted p down to 3e-6; ``docs/design.md``, "Geweke's
test: independent segments"). It is not judged, and such rows leave the verdict *could
not judge* unless another row fails.

The chains' length adapts (:func:`next_length`): from ``iterations`` it doubles, the
chains continuing from where they stopped (the values of chains run from their start
to the new length, bit for bit), until every test function's ESS
clears the gate, ``max_iterations`` is reached, or the gate is out of reach of it
(:func:`within_reach`, the futility rule). Whether to go on looks at the chains'
autocorrelation (ESS), never at the difference between the simulators, as in the
fixed-width stopping rules of MCMC output analysis (Glynn & Whitt 1992, "The asymptotic
validity of sequential stopping rules for stochastic simulations", Ann. Appl. Probab.
2; Jones, Haran, Caffo & Neath 2006, JASA 101). The test is made at the stage where the
chains stop, at ``(1 - EARLY_SHARE) x alpha``; each earlier stage may end the run with a
failure at its share of ``EARLY_SHARE x alpha`` (split evenly over the stages that can
come before the last), so that a grossly wrong kernel does not run to the maximum. By
the union bound (Bonferroni over the looks, the spending rule of Jennison & Turnbull
2000, "Group sequential methods", ch. 7, at its simplest) the false-alarm rate over all
looks is at most ``alpha``. Chains that stop at the maximum with test functions below
the gate could not judge them: the finding says so with the length that would clear
them (an unjudged row is the successive-conditional chain's slowness, which must move
through the data as well, not evidence against the kernel).

Data outside their support or type (:class:`zoo.core.contract.OutsideSupport`: an
overflowing count under a heavy-tailed prior) are drawn again and counted on both sides,
so that both simulate the joint distribution conditioned on the same event of the data
(:func:`_joint_draw`; ``docs/design.md``, "SBC and data outside their support").

**The confirmation.** A replicate that fails is run again from streams of its own
(``geweke-confirmation``: another marginal side, other chains, the same settings), and
the test fails only when the confirmation fails too (:func:`confirmed`). The segments'
means are independent and identically distributed, but on a model with a slow, heavy
tailed component they are a mixture: most segments stay in the bulk, a few percent
wander into the tail and stay there, and a run that drew fewer of the rare kind than
their share is off in many rows at once while its standard error, made of the segments
it drew, never saw them (eight schools, centred, seed 163: no segment of the failing
look stayed in ``tau``'s upper tail, the next 80 segments held five; correct kernels
of eight schools failed 17 and 9 times in 300 seeds at a stated 1%; ``docs/design.md``,
"Geweke's test: the confirmation"). No test on one replicate's segments can see what
they lack; an independent replicate does not share it. Under a correct kernel the two
replicates fail independently, so the test's false-alarm rate is the square of a
replicate's, however a replicate errs: at most ``alpha ** 2`` where a replicate is
calibrated, 0.36% where it fails 6% of the time. A wrong kernel fails both (166 of
the catalogue's 168 failed first replicates of planted bugs were confirmed,
``docs/power.md``); the confirmation costs one more run, and only when the first fails.

Only the kernel is under test (``step`` and ``draw``); the model's own
:class:`zoo.KernelChecks` supply the exact latent draws, the data redraw and the state
built from latents, so a user's kernel under this test takes the model's state type.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Mapping, Sequence
from functools import partial
from typing import NamedTuple

import numpy as np

from zoo.core import streams
from zoo.core.arguments import as_int, as_probability
from zoo.core.contract import Model
from zoo.core.defaults import (
    ALPHA,
    CHAINS,
    GEWEKE_BATCHES,
    GEWEKE_DRAWS,
    GEWEKE_ITERATIONS,
    GEWEKE_MAX_ITERATIONS,
    GEWEKE_PILOT,
)
from zoo.diagnostics.draws import design_coords
from zoo.diagnostics.findings import draws_to_clear
from zoo.diagnostics.geweke_functions import TestFunctions
from zoo.diagnostics.kernel_result import KernelCheckResult, welch_test
from zoo.diagnostics.looks import EARLY_SHARE, look_alpha, stage_lengths
from zoo.diagnostics.moments import MomentFunctions
from zoo.diagnostics.sbc import drawn_inside, redrawn

__all__ = [
    "CONFIRMATION_PURPOSE",
    "EARLY_SHARE",
    "FUTILITY_MARGIN",
    "PURPOSE",
    "ChainEnd",
    "Side",
    "chain_side",
    "confirmed",
    "geweke",
    "geweke_result",
    "kernel_checks_of",
    "length_to_clear",
    "look",
    "look_alpha",
    "marginal_side",
    "moment_functions",
    "next_length",
    "segment_length",
    "stage_lengths",
    "tested_latents",
    "within_reach",
]

#: The futility rule's margin (:func:`within_reach`): the chains go on only while the
#: length that would clear the slowest test function, projected from its ESS in
#: proportion to the length, is at most this many times ``max_iterations``. A margin,
#: not 1, because a slow function's ESS from short chains is a noisy underestimate
#: (docs/design.md, "Geweke's test: its test functions and its length").
FUTILITY_MARGIN = 4.0

#: The stream of :mod:`zoo.core.streams` Geweke's test draws from: the marginal side
#: from item 0, successive-conditional chain ``c`` from item ``c + 1``.
PURPOSE = "geweke-chains"

#: The stream of the confirmation (:func:`geweke`): a replicate of the whole test, its
#: marginal side and chains drawn as the first's are but from this stream, so that the
#: two replicates share no draw and are independent.
CONFIRMATION_PURPOSE = "geweke-confirmation"


class ChainEnd(NamedTuple):
    """Where a successive-conditional chain stopped, to continue it (:func:`chain_side`).

    ``steps`` it has run; the latents and the data its next step starts from (the data
    already redrawn given the last draw); its generator, in the state the next step
    draws from; the steps between its restarts from exact joint draws (``segment``).
    The kernel's state is rebuilt from the latents and data at every step, so these
    are the whole of what the next step depends on.
    """

    steps: int
    latents: object
    data: object
    rng: np.random.Generator
    segment: int


class Side(NamedTuple):
    """What one simulator drew: the scalars' names, their values, and the redraws.

    ``redraws`` counts data sets drawn again because they were outside the data's
    support or type (:func:`zoo.diagnostics.sbc.redrawn`); a pair ``(names, values)``
    is a side with none. A chain's side carries its ``end`` (:class:`ChainEnd`), from
    which a longer chain continues; the marginal side has none.
    """

    names: list
    values: np.ndarray
    redraws: int = 0
    end: ChainEnd | None = None


def kernel_checks_of(model: Model):
    """The model's :class:`zoo.KernelChecks`.

    Raises a ValueError when ``model`` is not a zoo :class:`~zoo.Model` (a name is not
    looked up here: ``zoo.get(name)`` gives the model) or has no kernel checks.
    """
    if not isinstance(model, Model):
        raise ValueError(
            f"model: expected a zoo.Model (zoo.get(name) returns one), got {model!r:.80}"
        )
    checks = model.kernel_checks
    if checks is None:
        raise ValueError(
            f"model: {model.name!r} has no kernel_checks (zoo.KernelChecks), which Geweke's "
            "test and the invariance check need"
        )
    return checks


def moment_functions(
    model, checks, prior, truth, data, latents, *, second_moments: bool = True
) -> MomentFunctions:
    """Test functions for the design of ``data``: moments of variables and latents.

    Geweke's sides take the values alone (``second_moments=False``) and build their
    test functions from them (:mod:`zoo.diagnostics.geweke_functions`).
    """
    variables = dict(model.variables(prior))
    # An empty tuple is a choice: a model whose latents are all its variables.
    if checks.variables is not None:
        chosen = checks.variables
    else:
        chosen = tuple(name for name in truth if name in variables)
    missing = [name for name in chosen if name not in truth]
    if missing:
        raise ValueError(f"kernel_checks.variables: {missing} are not in simulate's truth")
    shapes = {name: np.shape(truth[name]) for name in chosen}
    return MomentFunctions(
        chosen,
        shapes,
        log_likelihood=model.log_likelihood,
        latents={name: np.shape(value) for name, value in latents.items()},
        dims={**variables},
        second_moments=second_moments,
        coords=design_coords(data),
    )


def tested_latents(model, prior, data, latents):
    """The latents whose moments are test functions.

    A model whose latents are its own variables (a PyMC-specified model) and which
    computes label-invariant variables from them (``Model.derived``, exchangeable
    mixture components) is tested on its comparable variables: a kernel that keeps one
    labelling is right, but its chain then moves between labellings too slowly for the
    moments of ``mu`` or ``z`` to be judged (``docs/design.md``, "Label symmetry").
    """
    derived = model.derived
    if model.comparable is None or derived is None or not set(derived.inputs) <= set(latents):
        return latents
    kept = {n: latents[n] for n in model.comparable_variables(prior) if n in latents}
    one = {n: np.asarray(latents[n])[np.newaxis, np.newaxis] for n in derived.inputs}
    computed = derived.compute(data, prior, one)
    return kept | {n: np.asarray(v)[0, 0] for n, v in computed.items()}


def _joint_draw(model, checks, prior, size, rng):
    """One exact joint draw ``(truth, data, latents)`` and the data sets redrawn for it.

    Data outside their support or type are drawn again, in both simulators, so both
    condition on the same event of the data, ``y in A`` (every value of its type): the
    marginal side draws ``(theta, y)`` again when ``y`` is outside, and the chain draws
    ``y ~ p(y | theta, z)`` again, which is then the exact conditional ``p(y | theta, z,
    y in A)``. The chain is a Gibbs sampler of the joint distribution conditioned on
    ``y in A``, of which the marginal side's draws are independent draws, and the
    kernel's step is unchanged by it: ``p(theta, z | y, y in A) = p(theta, z | y)`` for
    ``y`` in ``A`` (``docs/design.md``, "SBC and data outside their support"). When the
    prior-predictive data cannot be drawn, the model's simulation is at fault, never
    the kernel: :class:`~zoo.diagnostics.sbc.SimulationFailed` says so. (The chain's
    data given the parameters the kernel drew may be the kernel's fault: a ValueError.)
    """
    (truth, data), redraws = drawn_inside(
        partial(model.simulate, prior, rng, **size), "Geweke's prior-predictive draws"
    )
    latents = checks.latents(truth, data, prior, rng)
    return truth, data, latents, redraws


def _start(model, seed: int, item: int, setup, purpose: str = PURPOSE):
    """What both simulators begin with: their stream, first joint draw and test functions.

    The generator of item ``item`` of the ``purpose`` stream (``geweke-chains``, or
    ``geweke-confirmation`` for the confirmation), the first exact joint draw from it,
    and the test functions for its design. Returns ``(checks,
    prior, size, rng, (truth, data, latents, redraws), functions)``.
    """
    checks = kernel_checks_of(model)
    prior, size = checks.setup() if setup is None else setup
    rng = np.random.default_rng(streams.item(seed, purpose, item))
    first = _joint_draw(model, checks, prior, size, rng)
    truth, data, latents, _ = first
    tested = tested_latents(model, prior, data, latents)
    functions = moment_functions(model, checks, prior, truth, data, tested, second_moments=False)
    return checks, prior, size, rng, first, functions


def _arguments(draws, chains, iterations, batches, alpha, pilot) -> tuple:
    pilot = as_int("pilot", pilot, minimum=2)
    draws = as_int("draws", draws, minimum=2)
    if draws < pilot + 2:
        raise ValueError(
            f"draws: must be >= pilot + 2 = {pilot + 2} (the first pilot = {pilot} fix the "
            f"test functions, at least two more are compared), got {draws}"
        )
    chains = as_int("chains", chains, minimum=1)
    batches = as_int("batches", batches, minimum=2)
    iterations = as_int("iterations", iterations, minimum=2)
    if iterations < batches:
        raise ValueError(f"iterations: must be >= batches = {batches}, got {iterations}")
    return draws, chains, iterations, batches, as_probability("alpha", alpha), pilot


def segment_length(iterations: int, batches: int) -> int:
    """Steps between a chain's restarts: the first stage's length over ``batches``.

    At the first stage each chain is ``batches`` segments, each begun at an exact joint
    draw; a later stage, double the length, has twice as many segments of the same
    length (the module's docstring says why a chain restarts).
    """
    return max(1, as_int("iterations", iterations, minimum=1) // as_int("batches", batches))


def _segment_of(chains: Sequence[Side], segment, iterations: int) -> int:
    """The chains' restart interval: ``segment``, or what their ends say; checked."""
    ends = {side.end.segment for side in chains if side.end is not None}
    if segment is None:
        if len(ends) != 1 or any(side.end is None for side in chains):
            raise ValueError(
                "segment: the steps between the chains' restarts must be given for sides "
                "that do not say it (chain_side's ends do), and be one for all chains"
            )
        (segment,) = ends
    segment = as_int("segment", segment, minimum=1)
    if ends - {segment}:
        raise ValueError(f"segment: {segment}, but the chains restarted every {sorted(ends)}")
    if iterations < 2 * segment:
        raise ValueError(
            f"segment: each chain must hold two segments at least (2 x {segment} steps), "
            f"got chains of {iterations}"
        )
    return segment


def _maximum(iterations: int, max_iterations) -> int:
    """``max_iterations`` checked: a whole number at least ``iterations``."""
    if max_iterations is None:
        return iterations
    return as_int("max_iterations", max_iterations, minimum=iterations)


def _purpose(replicate) -> str:
    """The stream replicate 0 (the first) or 1 (the confirmation) draws from."""
    if isinstance(replicate, bool) or replicate not in (0, 1):
        raise ValueError(f"replicate: must be 0 or 1, got {replicate!r:.40}")
    return CONFIRMATION_PURPOSE if replicate == 1 else PURPOSE


def marginal_side(model: Model, *, draws: int, seed: int, setup=None, replicate: int = 0):
    """The marginal-conditional simulator: ``draws`` independent joint draws.

    From item 0 of the ``geweke-chains`` stream of ``seed`` (of ``geweke-confirmation``
    for ``replicate`` 1: the confirmation's, :func:`geweke`). Returns a :class:`Side`:
    the names of the scalars the test functions are built from, their values, shape
    (draws, scalars), and the data sets redrawn outside their support or type.
    """
    draws = as_int("draws", draws, minimum=2)
    purpose = _purpose(replicate)
    checks, prior, size, rng, first, functions = _start(model, seed, 0, setup, purpose)
    truth, data, latents, redraws = first
    values = np.empty((draws, len(functions)))
    values[0] = functions(truth, data, tested_latents(model, prior, data, latents))
    for i in range(1, draws):
        truth, data, latents, again = _joint_draw(model, checks, prior, size, rng)
        redraws += again
        values[i] = functions(truth, data, tested_latents(model, prior, data, latents))
    return Side(list(functions.names), values, redraws)


def chain_side(
    model: Model,
    kernel=None,
    *,
    chain: int,
    iterations: int,
    seed: int,
    segment: int | None = None,
    setup=None,
    after: Side | None = None,
    replicate: int = 0,
):
    """One successive-conditional chain of the kernel under test, ``iterations`` long.

    From item ``chain + 1`` of the ``geweke-chains`` stream of ``seed`` (of
    ``geweke-confirmation`` for ``replicate`` 1: the confirmation's): chains and the
    marginal side are independent of one another, so they may run in any order or
    process with the same values, and a longer chain of the same seed begins with the
    values of a shorter one. Every ``segment`` steps the chain starts again from a
    fresh exact joint draw (:func:`segment_length`; the module's docstring says why),
    so its segments are independent of one another. Returns a :class:`Side`: the
    names of the scalars the test functions are built from, their values, shape
    (iterations, scalars), the data sets redrawn outside their support or type (the
    chain's starts included), and where the chain stopped.

    ``after``, this chain's side at a shorter length (what this function returned for
    the same model, kernel, chain, seed, setup and ``replicate``), is continued from where it
    stopped rather than run again from the start: the side returned is the same, bit
    for bit, as the longer chain run from its start (the steps depend on nothing but
    the latents, data and generator its end holds), at the cost of the new steps only.
    """
    kernel = model.kernel if kernel is None else kernel
    chain = as_int("chain", chain, minimum=0)
    iterations = as_int("iterations", iterations, minimum=2)
    # The default budget's restart interval (geweke's, with its default arguments).
    segment = segment_length(GEWEKE_ITERATIONS, GEWEKE_BATCHES) if segment is None else segment
    segment = as_int("segment", segment, minimum=1)
    purpose = _purpose(replicate)
    checks, prior, size, rng, first, functions = _start(model, seed, chain + 1, setup, purpose)
    _, data, latents, redraws = first
    done = 0
    if after is not None:
        after = Side(*after)
        if after.end is None or list(after.names) != list(functions.names):
            raise ValueError("after: must be a side chain_side returned for this model")
        if after.end.segment != segment:
            raise ValueError(
                f"after: its chain restarted every {after.end.segment} steps, not every "
                f"segment = {segment}"
            )
        if after.end.steps > iterations:
            raise ValueError(
                f"after: its chain ran {after.end.steps} steps, more than iterations = "
                f"{iterations}"
            )
        # A copy: a kernel may change its state, hence the latents, in place, and
        # the side given stays as it was, to be continued again.
        end = copy.deepcopy(after.end)
        done, latents, data, rng, redraws = (
            end.steps,
            end.latents,
            end.data,
            end.rng,
            after.redraws,
        )
    values = np.empty((iterations, len(functions)))
    if after is not None:
        values[:done] = after.values
    state = checks.state(latents, data, prior)
    for t in range(done, iterations):
        if t > 0 and t % segment == 0:
            # A restart: the next segment starts from an exact joint draw, as the
            # first does, so it is independent of the segments before it.
            _, data, latents, again = _joint_draw(model, checks, prior, size, rng)
            redraws += again
            state = checks.state(latents, data, prior)
        state = kernel.step(state, data, prior, rng)
        params = kernel.draw(state, data, prior, rng)
        latents = checks.read(state, data)
        values[t] = functions(params, data, tested_latents(model, prior, data, latents))
        drawn = redrawn(partial(checks.redraw, params, latents, data, prior, rng))
        if drawn["status"] != "ok":
            # Given the parameters the kernel drew, not the prior's: a kernel that
            # drifts to where the model cannot simulate fails here, never excused as
            # the model's simulation (which the prior-predictive draws alone can be).
            raise ValueError(
                "kernel: Geweke's data given the parameters the kernel drew could not be "
                f"drawn ({drawn['status']}: {drawn['message']})"
            )
        data, again = drawn["draw"], drawn["redraws"]
        redraws += again
        state = checks.state(latents, data, prior)
    end = ChainEnd(iterations, latents, data, rng, segment)
    return Side(list(functions.names), values, redraws, end)


def geweke_result(
    marginal,
    chains,
    *,
    batches: int = GEWEKE_BATCHES,
    alpha: float = ALPHA,
    seconds: float = 0.0,
    pilot: int = GEWEKE_PILOT,
    max_iterations: int | None = None,
    lengths: Sequence[int] = (),
    segment: int | None = None,
) -> KernelCheckResult:
    """Compare the two simulators: :func:`marginal_side` against :func:`chain_side` s.

    Parameters
    ----------
    marginal : Side or (names, values)
        What :func:`marginal_side` returned. Its first ``pilot`` draws fix the test
        functions (:class:`~zoo.diagnostics.geweke_functions.TestFunctions`); the rest
        are the marginal side's sample.
    chains : sequence of Side or (names, values)
        What :func:`chain_side` returned for each chain, all of one length.
    batches : int
        Batch means per chain.
    alpha : float
        Family-wise false-alarm rate over the test functions (Holm).
    seconds : float
        Time the sides took, for the settings line.
    pilot : int
        Marginal draws that fix the test functions.
    max_iterations : int, optional
        The most the chains may run (:func:`next_length`); said in the settings and in
        the cure of rows below the ESS gate. Default: the chains' length.
    lengths : sequence of int
        The lengths run at earlier stages, for the settings line.
    segment : int, optional
        The steps between the chains' restarts from exact joint draws: their segments'
        means give the chain side's standard error. Default: what the sides' ends say
        (a side built by hand, with no end, must give it).

    Returns
    -------
    KernelCheckResult
        Verdict ``pass`` or ``fail``, or ``could not judge`` when no row is rejected but
        some are below the ESS gate: each such finding carries the length per chain
        that would clear it, and ``table.attrs["cure"]``.
    """
    marginal = Side(*marginal)
    names, marginal_values = marginal.names, marginal.values
    if not chains:
        raise ValueError("chains: need at least one chain")
    chains = [Side(*side) for side in chains]
    for c, side in enumerate(chains):
        if list(side.names) != list(names):
            raise ValueError(f"chains[{c}]: its test functions differ from the marginal side's")
    chain_values = np.stack([np.asarray(side.values, dtype=float) for side in chains])
    draws, chain_count, iterations, batches, alpha, pilot = _arguments(
        marginal_values.shape[0], len(chains), chain_values.shape[1], batches, alpha, pilot
    )
    segment = _segment_of(chains, segment, iterations)
    maximum = _maximum(iterations, max_iterations)
    functions = TestFunctions(names, marginal_values[:pilot])
    compared = functions(marginal_values[pilot:])
    chain_functions = np.stack([functions(values) for values in chain_values])
    rows, gate_message, ess_min, slowest = _compare(compared, chain_functions, batches, segment)
    labels = functions.labels()
    rows["function"] = labels
    rows["part"] = ["joint"] * len(labels)
    stages = [*lengths, iterations]
    settings = (
        f"{draws - pilot} marginal draws ({pilot} more fix the test functions) vs "
        f"{chain_count} chains x {iterations} iterations, restarted from exact joint "
        f"draws every {segment} "
        f"(stages {', '.join(str(n) for n in stages)}; at most {maximum}; {seconds:.1f} s)"
    )
    redraws = marginal.redraws + sum(side.redraws for side in chains)
    if redraws:
        share = marginal.redraws / (marginal.redraws + draws)
        settings += (
            f"; {redraws} data set(s) redrawn outside their support or type, both sides "
            f"conditioned alike ({marginal.redraws} for the marginal draws: {share:.1%})"
        )
    sizes = {
        "chains": chain_count,
        "draws": iterations,
        "ess_min": ess_min,
        "max_iterations": maximum,
        "slowest_ess": slowest,
    }
    cure = ""
    if gate_message:
        needed = length_to_clear(sizes)
        longer = f"about {needed}" if needed is not None else f"more than {maximum}"
        cure = (
            f"longer Geweke chains: {longer} steps per chain (max_iterations, "
            f"--geweke-max-iterations; they stopped at {iterations} of at most {maximum})"
        )
        gate_message = f"{gate_message}; stopped at {iterations} of at most {maximum}"
        if iterations < maximum and not within_reach(sizes, maximum):
            gate_message += (
                f", the gate out of reach (the slowest function needs {longer} steps, "
                f"over {FUTILITY_MARGIN:g} x the maximum)"
            )
    return KernelCheckResult.build(
        "geweke",
        rows,
        alpha=alpha,
        settings=settings,
        gate_message=gate_message,
        sizes=sizes,
        cure=cure,
    )


def look(marginal, chains, *, alpha: float, first: int, max_iterations: int, **options):
    """One stage of the adaptive test: its result, and the next length or None.

    ``chains`` ran ``iterations`` steps each. The result is judged at the last look's
    rate when the chains stop here (:func:`next_length`), and otherwise at an early
    look's, where a failure ends the run (None) and anything else goes on to the next
    length. ``options`` go to :func:`geweke_result` (``batches``, ``seconds``,
    ``pilot``, ``lengths``).
    """
    iterations = np.shape(chains[0][1])[0]

    def judged(last: bool) -> KernelCheckResult:
        rate = look_alpha(alpha, first, max_iterations, last=last)
        return geweke_result(
            marginal, chains, alpha=rate, max_iterations=max_iterations, **options
        )

    early = judged(last=False)
    following = next_length(early, iterations, max_iterations)
    if following is None:
        return judged(last=True), None
    if early.verdict == "fail":
        return early, None
    return early, following


def next_length(result: KernelCheckResult, iterations: int, max_iterations: int) -> int | None:
    """The chains' next length, or None when they stop at ``iterations``.

    They stop when every test function cleared its ESS gate, at ``max_iterations``, or
    when the gate is out of reach (:func:`within_reach`: the futility rule, so that a
    chain far too slow for the maximum does not run to it only to be unjudged there);
    otherwise they double, to at most ``max_iterations``. The rows' p-values play no
    part here: the caller judges ``result`` at the rate of its look (the module's
    docstring gives the rule and its sources).
    """
    if bool(np.all(result.table.gates_passed.values)) or iterations >= max_iterations:
        return None
    if not within_reach(result.table.attrs, max_iterations):
        return None
    return min(2 * iterations, max_iterations)


def confirmed(first: KernelCheckResult, confirmation: KernelCheckResult) -> KernelCheckResult:
    """The verdict of a failed run and its confirmation: FAIL only when both failed.

    ``first`` is a replicate that failed and ``confirmation`` an independent replicate
    of the same test (:func:`geweke` with ``replicate=1``: other draws, the same
    settings). When the confirmation fails too, the answer is ``first``, failing, its
    settings naming what the confirmation rejected; otherwise the answer is the
    confirmation's (pass, or could not judge), its settings naming what the first run
    rejected. Under a correct kernel the two replicates fail independently, so a FAIL
    has probability the product of a run's false-alarm rate with itself (module
    docstring, "The confirmation").
    """
    if first.verdict != "fail":
        raise ValueError(f"first: only a failed run is confirmed, got {first.verdict!r}")

    def rejected(result: KernelCheckResult) -> str:
        t = result.table
        judged = t.p_adjusted.values[t.rejected.values]
        # a p below the smallest double is 0: say so rather than print "0"
        smallest = judged.min()
        p = f"{smallest:.2g}" if smallest > 0 else "below 1e-300"
        return f"{judged.size} test functions ({result.failing_named(3)}; smallest adjusted p {p})"

    if confirmation.verdict == "fail":
        note = (
            f"confirmed: an independent replicate (stream {CONFIRMATION_PURPOSE}) failed "
            f"too, rejecting {rejected(confirmation)}"
        )
        answer = first
    else:
        note = (
            f"not confirmed: a first replicate rejected {rejected(first)}, an independent "
            f"one (stream {CONFIRMATION_PURPOSE}, these values) did not; a FAIL needs both"
        )
        answer = confirmation
    table = answer.table.copy()
    table.attrs = {
        **answer.table.attrs,
        "settings": f"{answer.table.attrs['settings']}; {note}",
        "confirmation": note,
    }
    return KernelCheckResult(table)


def _replicate(model, kernel, seed: int, setup, replicate: int, settings: tuple):
    """One replicate's stages, from the first stream or the confirmation's.

    ``settings`` are :func:`geweke`'s, checked: ``(draws, chains, iterations, batches,
    alpha, pilot, max_iterations)``.
    """
    draws, chains, iterations, batches, alpha, pilot, max_iterations = settings
    segment = segment_length(iterations, batches)
    started = time.perf_counter()
    marginal = marginal_side(model, draws=draws, seed=seed, setup=setup, replicate=replicate)
    first = iterations
    lengths = []
    sides = [None] * chains
    while True:
        # A longer chain of the same seed begins with the shorter one's steps: each
        # stage continues its chains from where the last stopped.
        sides = [
            chain_side(
                model,
                kernel,
                chain=c,
                iterations=iterations,
                seed=seed,
                segment=segment,
                setup=setup,
                after=side,
                replicate=replicate,
            )
            for c, side in enumerate(sides)
        ]
        result, following = look(
            marginal,
            sides,
            alpha=alpha,
            first=first,
            max_iterations=max_iterations,
            batches=batches,
            seconds=time.perf_counter() - started,
            pilot=pilot,
            lengths=lengths,
        )
        if following is None:
            return result
        lengths.append(iterations)
        iterations = following


def geweke(
    model: Model,
    kernel=None,
    *,
    draws: int = GEWEKE_DRAWS,
    chains: int = CHAINS,
    iterations: int = GEWEKE_ITERATIONS,
    max_iterations: int = GEWEKE_MAX_ITERATIONS,
    batches: int = GEWEKE_BATCHES,
    seed: int = 0,
    alpha: float = ALPHA,
    setup=None,
    pilot: int = GEWEKE_PILOT,
    replicate: int | None = None,
) -> KernelCheckResult:
    """Geweke's test of ``kernel`` (default: the model's own) for ``model``.

    A replicate that fails is confirmed by an independent one from its own stream, and
    the test fails only when both do (:func:`confirmed`; the module's docstring says
    why). The two sides run here one after the other; ``zoo validate`` runs the marginal
    side and each chain as tasks of their own (:func:`marginal_side`,
    :func:`chain_side`, :func:`geweke_result`), with the same values.

    Parameters
    ----------
    model : Model
    kernel : Kernel, optional
        ``init``/``step``/``draw`` on the model's state type.
    draws : int
        Marginal-conditional (independent) joint draws, ``pilot`` of them fixing the
        test functions.
    chains, iterations : int
        Successive-conditional chains and their first length.
    max_iterations : int
        The most each chain runs: the length doubles from ``iterations`` while a test
        function's ESS is below the gate (:func:`next_length`); at least ``iterations``.
    batches : int
        Batch means per chain.
    seed : int
        Root seed. The marginal side draws from item 0 of the ``geweke-chains`` stream
        of :mod:`zoo.core.streams`, successive-conditional chain ``c`` from item
        ``c + 1``; the confirmation likewise from the ``geweke-confirmation`` stream.
    alpha : float
        Family-wise false-alarm rate over the test functions (Holm) of a replicate.
    setup : (prior, size), optional
        Prior and design (default: ``model.kernel_checks.setup()``).
    pilot : int
        Marginal draws that fix the test functions (at most ``draws - 2``).
    replicate : {None, 0, 1}
        None, the test: the first replicate, confirmed when it fails. 0 or 1: that
        replicate alone (the first, or the confirmation), as the test runs it; a study of
        the test's rates records them apart (``bench.geweke_calibration``).

    Returns
    -------
    KernelCheckResult
        ``part`` is ``"joint"`` for every row; ``expected`` is the marginal-conditional
        mean, ``observed`` the successive-conditional one; ``table.attrs["draws"]`` the
        length the chains stopped at; after a confirmation, ``table.attrs
        ["confirmation"]`` says what it found.
    """
    kernel_checks_of(model)
    checked = _arguments(draws, chains, iterations, batches, alpha, pilot)
    settings = (*checked, _maximum(checked[2], max_iterations))
    if replicate not in (None, 0, 1) or isinstance(replicate, bool):
        raise ValueError(f"replicate: must be None, 0 or 1, got {replicate!r:.40}")
    if replicate is not None:
        return _replicate(model, kernel, seed, setup, replicate, settings)
    first = _replicate(model, kernel, seed, setup, 0, settings)
    if first.verdict != "fail":
        return first
    return confirmed(first, _replicate(model, kernel, seed, setup, 1, settings))


def length_to_clear(attrs: Mapping) -> int | None:
    """Steps per chain at which the slowest test function would clear the ESS gate.

    ``attrs`` are a result's ``table.attrs`` (``chains``, ``draws``, ``ess_min`` and
    ``slowest_ess``, the smallest ESS of the rows below the gate that the chain moved).
    At the mixing measured (ESS in proportion to the length,
    :func:`zoo.diagnostics.findings.draws_to_clear`). None when no row that moved is
    below the gate: every row cleared, or those below it are constant on the chain
    side (stuck: no rate to project from).
    """
    slowest = float(attrs.get("slowest_ess", np.inf))
    if not np.isfinite(slowest) or slowest <= 0:
        return None
    return draws_to_clear(
        1.0,
        slowest,
        slowest,
        chains=int(attrs["chains"]),
        draws=int(attrs["draws"]),
        rhat_max=np.inf,
        ess_min=float(attrs["ess_min"]),
    )


def within_reach(attrs: Mapping, max_iterations: int) -> bool:
    """Whether chains of ``max_iterations`` steps may clear the gate: the futility rule.

    ``attrs`` are a result's ``table.attrs``. True when the length that would clear the
    slowest test function that moved, at the mixing measured (:func:`length_to_clear`),
    is at most :data:`FUTILITY_MARGIN` times ``max_iterations``, and when only stuck
    functions are below the gate (a rare event the chains have not crossed yet: no
    rate says they cannot); False otherwise. Only the chains' ESS decides, never the
    differences under test.
    """
    if not np.isfinite(float(attrs.get("slowest_ess", np.inf))):
        return True
    needed = length_to_clear(attrs)
    return needed is not None and needed <= FUTILITY_MARGIN * max_iterations


def _rounding(*sides: np.ndarray) -> np.ndarray:
    """Per test function, the spread of values that differ by rounding only.

    64 units in the last place of the largest magnitude the function takes on either
    side: far below any spread a draw produces, far above what summing equal values in
    another order or the asymmetry of the normal quantile function leave.
    """
    scale = np.max([np.max(np.abs(side), axis=0) for side in sides], axis=0)
    return 64.0 * np.finfo(float).eps * scale


def _compare(marginal: np.ndarray, chain_values: np.ndarray, batches: int, segment: int):
    """Welch t tests of marginal means against the chains' means, with gates.

    ``chain_values`` (chains, iterations, functions) come from chains restarted from an
    exact joint draw every ``segment`` steps: the means of their whole segments are
    independent and identically distributed, and their spread is the chain side's
    standard error (a trailing part segment is left out). Returns the rows, the gate's
    message (empty when every row passed it), the ESS the gate asks for and the
    smallest ESS of the rows below it that the chain moved (inf when none is).
    """
    # deferred: arviz_stats takes about 0.5 s to import; `zoo list` needs none of it
    import arviz_stats as azs

    n_draws = marginal.shape[0]
    chains, iterations, n_functions = chain_values.shape
    expected = marginal.mean(axis=0)
    se_marginal = marginal.std(axis=0, ddof=1) / np.sqrt(n_draws)

    # Each segment starts at an exact joint draw, so under a correct kernel every step
    # of it is a joint draw and its mean has the joint's mean; segments share no draw,
    # so their means are independent, whatever the chain's mixing time. Batch means
    # of a chain run on without restarts are right only when a batch spans that time,
    # which no ESS estimate from the chain can vouch for when a slow component's
    # excursions are longer than the chain (eight schools, centred: docs/design.md,
    # "Geweke's test: independent segments").
    per_chain = iterations // segment
    kept = chain_values[:, : per_chain * segment]
    segment_means = kept.reshape(chains * per_chain, segment, n_functions).mean(axis=1)
    segments = chains * per_chain
    observed = segment_means.mean(axis=0)
    se_chain = segment_means.std(axis=0, ddof=1) / np.sqrt(segments)

    # Constant on both sides: nothing to compare, and nothing mixes. Constant on the
    # chain side only is a chain stuck where the marginal side varies (an indicator
    # never crossed in 4 x 2,500 steps): its error is 0 and its t infinite, so it must
    # clear the ESS gate like any other row (a correct regression kernel failed here).
    #
    # "Constant" is to rounding: the squared normal score of a latent label split about
    # evenly takes two values a**2 and (-a)**2 that differ in their last bits (the normal
    # quantiles of p and 1 - p are not exact negatives), and means of equal values
    # differ in their last bits by summation order; either gave a t of several with
    # standard errors of 1e-16 (a correct mixture kernel failed, seed 9: z[obs=10]'s
    # squared score, 0.4539 against 0.4539, MCSE 1e-16, z -4.5). A row that is
    # constant to rounding on both sides, at the same value to rounding, has nothing to
    # compare: its difference is zero.
    chain_flat = chain_values.reshape(-1, n_functions)
    rounding = _rounding(marginal, chain_flat)
    chain_constant = np.ptp(chain_flat, axis=0) <= rounding
    constant = chain_constant & (np.ptp(marginal, axis=0) <= rounding)
    observed = np.where(constant & (np.abs(observed - expected) <= rounding), expected, observed)
    with np.errstate(invalid="ignore"):
        ess = np.atleast_1d(azs.ess(chain_values, method="bulk"))
        rhat = (
            np.atleast_1d(azs.rhat(chain_values)) if chains > 1 else np.full(n_functions, np.nan)
        )
    # ArviZ gives a constant series a full ESS; a stuck one has none.
    ess = np.where(chain_constant & ~constant, 0.0, ess)
    # A row whose chain hardly moves within its segments compares little more than the
    # segments' exact starts with the marginal draws, and its lumpy segment means make
    # the t test's normal approximation fail (module docstring): it is not judged.
    need = 10.0 * chains * batches
    gates = constant | (np.nan_to_num(ess, nan=0.0) >= need)
    slowest = np.inf
    message = ""
    if not gates.all():
        # A function the chain never moved (stuck) gives no rate: the slowest that
        # moved sets the length the chains would need (length_to_clear).
        moved = ~gates & ~chain_constant
        slowest = float(np.min(np.nan_to_num(ess[moved], nan=0.0))) if moved.any() else np.inf
        message = (
            f"{int((~gates).sum())} test functions move too little to test the kernel "
            f"(ArviZ bulk ESS < {need:g}; the slowest that moved, ESS {slowest:.0f})"
        )
    t, df, p = welch_test(observed - expected, se_chain, segments - 1, se_marginal, n_draws - 1)
    rows = {
        "expected": expected,
        "expected_se": se_marginal,
        "observed": observed,
        "se": se_chain,
        "t": t,
        "df": df,
        "p": p,
        "ess_bulk": ess,
        "rhat": rhat,
        "gates_passed": gates,
    }
    return rows, message, need, slowest
