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

Every test function ``g`` (:mod:`zoo.diagnostics.moments`: first and second moments of
every parameter and latent, and the log-likelihood) has the same mean under both. The
marginal side's standard error is the iid one; the chain side's comes from batch means
(``batches`` per chain, pooled over chains), as Geweke prescribes, with ArviZ's bulk ESS
as a gate: a batch must span at least ten autocorrelation times (``ESS >= 10 x chains
x batches``), or the batch-means standard error is too small and the row is not judged.
A Welch t test per function, Holm over functions at ``alpha``.

Only the kernel is under test (``step`` and ``draw``); the model's own
:class:`zoo.KernelChecks` supply the exact latent draws, the data redraw and the state
built from latents, so a user's kernel under this test takes the model's state type.
"""

from __future__ import annotations

import time

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
)
from zoo.diagnostics.draws import design_coords
from zoo.diagnostics.kernel_result import KernelCheckResult, welch_test
from zoo.diagnostics.moments import MomentFunctions

__all__ = [
    "PURPOSE",
    "chain_side",
    "geweke",
    "geweke_result",
    "kernel_checks_of",
    "marginal_side",
    "moment_functions",
]

#: The stream of :mod:`zoo.core.streams` Geweke's test draws from: the marginal side
#: from item 0, successive-conditional chain ``c`` from item ``c + 1``.
PURPOSE = "geweke-chains"


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


def moment_functions(model, checks, prior, truth, data, latents) -> MomentFunctions:
    """Test functions for the design of ``data``: moments of variables and latents."""
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
        coords=design_coords(data),
    )


def _joint_draw(model, checks, prior, size, rng):
    truth, data = model.simulate(prior, rng, **size)
    latents = checks.latents(truth, data, prior, rng)
    return truth, data, latents


def _start(model, seed: int, item: int, setup):
    """What both simulators begin with: their stream, first joint draw and test functions.

    The generator of item ``item`` of the ``geweke-chains`` stream, the first exact
    joint draw from it, and the test functions for its design. Returns ``(checks,
    prior, size, rng, (truth, data, latents), functions)``.
    """
    checks = kernel_checks_of(model)
    prior, size = checks.setup() if setup is None else setup
    rng = np.random.default_rng(streams.item(seed, PURPOSE, item))
    first = _joint_draw(model, checks, prior, size, rng)
    functions = moment_functions(model, checks, prior, *first)
    return checks, prior, size, rng, first, functions


def _arguments(draws, chains, iterations, batches, alpha) -> tuple:
    draws = as_int("draws", draws, minimum=2)
    chains = as_int("chains", chains, minimum=1)
    batches = as_int("batches", batches, minimum=2)
    iterations = as_int("iterations", iterations, minimum=2)
    if iterations < batches:
        raise ValueError(f"iterations: must be >= batches = {batches}, got {iterations}")
    return draws, chains, iterations, batches, as_probability("alpha", alpha)


def marginal_side(model: Model, *, draws: int, seed: int, setup=None):
    """The marginal-conditional simulator: ``draws`` independent joint draws.

    From item 0 of the ``geweke-chains`` stream of ``seed``. Returns the test
    functions' labels and their values, shape (draws, functions).
    """
    draws = as_int("draws", draws, minimum=2)
    checks, prior, size, rng, (truth, data, latents), functions = _start(model, seed, 0, setup)
    values = np.empty((draws, len(functions)))
    values[0] = functions(truth, data, latents)
    for i in range(1, draws):
        truth, data, latents = _joint_draw(model, checks, prior, size, rng)
        values[i] = functions(truth, data, latents)
    return functions.labels(), values


def chain_side(model: Model, kernel=None, *, chain: int, iterations: int, seed: int, setup=None):
    """One successive-conditional chain of the kernel under test, ``iterations`` long.

    From item ``chain + 1`` of the ``geweke-chains`` stream of ``seed``: chains and the
    marginal side are independent of one another, so they may run in any order or
    process with the same values. Returns the test functions' labels and their values,
    shape (iterations, functions).
    """
    kernel = model.kernel if kernel is None else kernel
    chain = as_int("chain", chain, minimum=0)
    iterations = as_int("iterations", iterations, minimum=2)
    checks, prior, _, rng, (_, data, latents), functions = _start(model, seed, chain + 1, setup)
    state = checks.state(latents, data, prior)
    values = np.empty((iterations, len(functions)))
    for t in range(iterations):
        state = kernel.step(state, data, prior, rng)
        params = kernel.draw(state, data, prior, rng)
        latents = checks.read(state, data)
        values[t] = functions(params, data, latents)
        data = checks.redraw(params, latents, data, prior, rng)
        state = checks.state(latents, data, prior)
    return functions.labels(), values


def geweke_result(
    marginal, chains, *, batches: int = GEWEKE_BATCHES, alpha: float = ALPHA, seconds: float = 0.0
) -> KernelCheckResult:
    """Compare the two simulators: :func:`marginal_side` against :func:`chain_side` s.

    Parameters
    ----------
    marginal : (labels, values)
        What :func:`marginal_side` returned.
    chains : sequence of (labels, values)
        What :func:`chain_side` returned for each chain, all of one length.
    batches : int
        Batch means per chain.
    alpha : float
        Family-wise false-alarm rate over the test functions (Holm).
    seconds : float
        Time the sides took, for the settings line.
    """
    labels, marginal_values = marginal
    if not chains:
        raise ValueError("chains: need at least one chain")
    for c, (chain_labels, _) in enumerate(chains):
        if list(chain_labels) != list(labels):
            raise ValueError(f"chains[{c}]: its test functions differ from the marginal side's")
    chain_values = np.stack([values for _, values in chains])
    draws, chain_count, iterations, batches, alpha = _arguments(
        marginal_values.shape[0], len(chains), chain_values.shape[1], batches, alpha
    )
    rows, message = _compare(marginal_values, chain_values, batches)
    rows["function"] = list(labels)
    rows["part"] = ["joint"] * len(labels)
    settings = (
        f"{draws} marginal draws vs {chain_count} chains x {iterations} iterations "
        f"({seconds:.1f} s)"
    )
    return KernelCheckResult.build(
        "geweke",
        rows,
        alpha=alpha,
        settings=settings,
        gate_message=message,
        sizes={
            "chains": chain_count,
            "draws": iterations,
            "ess_min": 10.0 * chain_count * batches,
        },
    )


def geweke(
    model: Model,
    kernel=None,
    *,
    draws: int = GEWEKE_DRAWS,
    chains: int = CHAINS,
    iterations: int = GEWEKE_ITERATIONS,
    batches: int = GEWEKE_BATCHES,
    seed: int = 0,
    alpha: float = ALPHA,
    setup=None,
) -> KernelCheckResult:
    """Geweke's test of ``kernel`` (default: the model's own) for ``model``.

    The two sides run here one after the other; ``zoo validate`` runs the marginal side
    and each chain as tasks of its own (:func:`marginal_side`, :func:`chain_side`,
    :func:`geweke_result`), with the same values.

    Parameters
    ----------
    model : Model
    kernel : Kernel, optional
        ``init``/``step``/``draw`` on the model's state type.
    draws : int
        Marginal-conditional (independent) joint draws.
    chains, iterations : int
        Successive-conditional chains and their length.
    batches : int
        Batch means per chain.
    seed : int
        Root seed. The marginal side draws from item 0 of the ``geweke-chains`` stream
        of :mod:`zoo.core.streams`, successive-conditional chain ``c`` from item
        ``c + 1``.
    alpha : float
        Family-wise false-alarm rate over the test functions (Holm).
    setup : (prior, size), optional
        Prior and design (default: ``model.kernel_checks.setup()``).

    Returns
    -------
    KernelCheckResult
        ``part`` is ``"joint"`` for every row; ``expected`` is the marginal-conditional
        mean, ``observed`` the successive-conditional one.
    """
    kernel_checks_of(model)
    draws, chains, iterations, batches, alpha = _arguments(
        draws, chains, iterations, batches, alpha
    )
    started = time.perf_counter()
    marginal = marginal_side(model, draws=draws, seed=seed, setup=setup)
    sides = [
        chain_side(model, kernel, chain=c, iterations=iterations, seed=seed, setup=setup)
        for c in range(chains)
    ]
    return geweke_result(
        marginal, sides, batches=batches, alpha=alpha, seconds=time.perf_counter() - started
    )


def _compare(marginal: np.ndarray, chain_values: np.ndarray, batches: int):
    """Welch t tests of marginal means against batch-means chain means, with gates."""
    # deferred: arviz_stats takes about 0.5 s to import; `zoo list` needs none of it
    import arviz_stats as azs

    n_draws = marginal.shape[0]
    chains, iterations, n_functions = chain_values.shape
    expected = marginal.mean(axis=0)
    se_marginal = marginal.std(axis=0, ddof=1) / np.sqrt(n_draws)

    length = iterations // batches
    kept = chain_values[:, iterations - length * batches :]
    batch_means = kept.reshape(chains, batches, length, n_functions).mean(axis=2)
    batch_means = batch_means.reshape(chains * batches, n_functions)
    observed = batch_means.mean(axis=0)
    se_chain = batch_means.std(axis=0, ddof=1) / np.sqrt(chains * batches)

    t, df, p = welch_test(
        observed - expected, se_chain, chains * batches - 1, se_marginal, n_draws - 1
    )
    constant = np.ptp(chain_values.reshape(-1, n_functions), axis=0) == 0
    with np.errstate(invalid="ignore"):
        ess = np.atleast_1d(azs.ess(chain_values, method="bulk"))
        rhat = (
            np.atleast_1d(azs.rhat(chain_values)) if chains > 1 else np.full(n_functions, np.nan)
        )
    need = 10.0 * chains * batches
    gates = constant | (np.nan_to_num(ess, nan=0.0) >= need)
    message = ""
    if not gates.all():
        message = (
            f"{int((~gates).sum())} test functions mix too slowly for batch means "
            f"(ArviZ bulk ESS < {need:g}): raise iterations"
        )
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
    return rows, message
