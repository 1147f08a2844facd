"""Invariance of each conditional of a Gibbs kernel, from exact posterior draws.

A kernel is right when each of its two conditionals leaves the posterior invariant:
``step`` (one sweep over the latents given the data) and ``draw`` (the parameters given
the latents and the data). Both are checked from exact joint draws, with no Markov
chain in sight, so every standard error is an iid one:

1. ``(theta, y) ~ simulate(prior)`` and ``z ~ p(z | theta, y)``: an exact draw from the
   joint, hence ``(theta, z)`` is an exact posterior draw for ``y`` (the argument behind
   simulation-based calibration, Cook, Gelman & Rubin 2006). A data set outside the
   data's support or type is drawn again with its parameters, as SBC and Geweke's test
   do: the joint conditioned on an event of the data alone has the same posterior given
   each data set it keeps (``docs/design.md``, "SBC and data outside their support").
2. ``draw``: ``theta' = draw(state(z), y)``. If ``draw`` samples ``p(theta | z, y)``,
   ``theta'`` and ``theta`` have the same distribution given ``(z, y)``: the paired
   differences ``g(theta', y) - g(theta, y)`` have mean zero.
3. ``step``: ``z'' = step(state(z), y)`` and ``theta'' = draw(state(z''), y)``. If the
   sweep leaves ``p(z | y)`` invariant, ``(z'', y)`` has the law of ``(z, y)``, so
   ``g(theta'', z'', y) - g(theta', z, y)`` has mean zero whatever ``draw`` does: the
   two conditionals are judged separately.

Pairing removes the prior variance of ``g`` (the two sides share ``y`` and start from
the same ``z``), which is what gives a one-sweep check its power. Test functions as in
Geweke's test (:mod:`zoo.diagnostics.moments`); a paired t test per function and
conditional, Holm over all of them at ``alpha``.
"""

from __future__ import annotations

import time
from functools import partial
from typing import NamedTuple

import numpy as np

from zoo.core import streams
from zoo.core.arguments import as_int, as_probability
from zoo.core.contract import Model
from zoo.core.defaults import ALPHA, INVARIANCE_REPLICATES
from zoo.diagnostics.geweke import kernel_checks_of, moment_functions
from zoo.diagnostics.kernel_result import KernelCheckResult, welch_test
from zoo.diagnostics.sbc import drawn_inside

__all__ = [
    "PURPOSE",
    "ReplicateValues",
    "invariance",
    "invariance_replicates",
    "invariance_result",
]

#: The stream of :mod:`zoo.core.streams` the replicates draw from: replicate ``r`` from item ``r``.
PURPOSE = "invariance-replicates"


def invariance(
    model: Model,
    kernel=None,
    *,
    replicates: int = INVARIANCE_REPLICATES,
    seed: int = 0,
    alpha: float = ALPHA,
    setup=None,
) -> KernelCheckResult:
    """One-sweep invariance of ``step`` and of ``draw``, from exact joint draws.

    Parameters
    ----------
    model : Model
    kernel : Kernel, optional
        Default: the model's own.
    replicates : int
        Independent exact joint draws, each giving one paired difference per function.
    seed : int
        Root seed: replicate ``r`` draws from item ``r`` of the ``invariance-replicates``
        stream of :mod:`zoo.core.streams`, so the first ``r`` replicates do not depend
        on how many are run.
    alpha : float
        Family-wise false-alarm rate over all rows (Holm).
    setup : (prior, size), optional
        Default: ``model.kernel_checks.setup()``.

    Returns
    -------
    KernelCheckResult
        ``part`` is ``draw`` or ``step``; ``expected`` is the mean of the function before
        the conditional, ``observed`` after it.
    """
    kernel_checks_of(model)
    replicates = as_int("replicates", replicates, minimum=2)
    alpha = as_probability("alpha", alpha)
    started = time.perf_counter()
    part = invariance_replicates(model, kernel, start=0, stop=replicates, seed=seed, setup=setup)
    return invariance_result([part], alpha=alpha, seconds=time.perf_counter() - started)


class ReplicateValues(NamedTuple):
    """The test functions at replicates ``start .. stop - 1`` (:func:`invariance_replicates`).

    Attributes
    ----------
    labels : list of str
        The test functions, in order.
    latent : ndarray of bool
        Which of them are moments of latents (the draw conditional leaves those alone).
    exact, after_draw, after_step : ndarray, shape (replicates, functions)
        Each function at the exact joint draw, after ``draw``, and after ``step`` then
        ``draw``.
    redraws : int
        Data sets drawn again because they were outside the data's support or type.
    """

    labels: list
    latent: np.ndarray
    exact: np.ndarray
    after_draw: np.ndarray
    after_step: np.ndarray
    redraws: int = 0


def invariance_replicates(
    model: Model, kernel=None, *, start: int, stop: int, seed: int = 0, setup=None
) -> ReplicateValues:
    """Replicates ``start .. stop - 1`` of the invariance check, each from its own stream.

    Replicate ``r`` draws from item ``r`` of the ``invariance-replicates`` stream, so
    ranges run apart (``zoo validate`` runs them as tasks) give the values of one run.
    """
    checks = kernel_checks_of(model)
    kernel = model.kernel if kernel is None else kernel
    start = as_int("start", start, minimum=0)
    stop = as_int("stop", stop, minimum=start + 1)
    prior, size = checks.setup() if setup is None else setup
    functions = None
    exact = after_draw = after_step = None
    redraws = 0
    for i, r in enumerate(range(start, stop)):
        rng = np.random.default_rng(streams.item(seed, PURPOSE, r))
        (truth, data), again = _simulated(model, prior, size, rng)
        redraws += again
        latents = checks.latents(truth, data, prior, rng)
        if functions is None:
            functions = moment_functions(model, checks, prior, truth, data, latents)
            exact, after_draw, after_step = (
                np.empty((stop - start, len(functions))) for _ in range(3)
            )
        state = checks.state(latents, data, prior)
        exact[i] = functions(truth, data, latents)
        after_draw[i] = functions(kernel.draw(state, data, prior, rng), data, latents)
        stepped = kernel.step(state, data, prior, rng)
        moved = checks.read(stepped, data)
        after_step[i] = functions(kernel.draw(stepped, data, prior, rng), data, moved)
    n_latent = sum(2 * int(np.prod(shape)) for shape in functions.latent_shapes.values())
    latent = np.zeros(len(functions), bool)
    first = 2 * sum(int(np.prod(shape)) for shape in functions.shapes.values())
    latent[first : first + n_latent] = True
    return ReplicateValues(functions.labels(), latent, exact, after_draw, after_step, redraws)


def _simulated(model: Model, prior, size, rng):
    """``((truth, data), redraws)``: a prior-predictive draw inside the data's support.

    Drawn again from the replicate's own generator while outside it (the same seed, the
    same redraws). When no such draw comes, the model's simulation is at fault, not the
    kernel: :class:`~zoo.diagnostics.sbc.SimulationFailed` says so.
    """
    what = "the invariance check's prior-predictive draws"
    return drawn_inside(partial(model.simulate, prior, rng, **size), what)


def invariance_result(parts, *, alpha: float = ALPHA, seconds: float = 0.0) -> KernelCheckResult:
    """Judge the replicates of :func:`invariance_replicates` ranges, in replicate order."""
    if not parts:
        raise ValueError("parts: need at least one range of replicates")
    labels, latent = parts[0].labels, parts[0].latent
    for i, part in enumerate(parts[1:], start=1):
        if list(part.labels) != list(labels):
            raise ValueError(f"parts[{i}]: its test functions differ from parts[0]'s")
    exact, after_draw, after_step = (
        np.concatenate([getattr(part, name) for part in parts])
        for name in ("exact", "after_draw", "after_step")
    )
    replicates = exact.shape[0]
    rows = {key: [] for key in ("expected", "observed", "se", "t", "df", "p")}
    rows["function"], rows["part"] = [], []
    # The draw conditional leaves the latents alone: their rows would be identically 0.
    for part, before, after, keep in (
        ("draw", exact, after_draw, ~latent),
        ("step", after_draw, after_step, np.ones(len(labels), bool)),
    ):
        difference = (after - before)[:, keep]
        se = difference.std(axis=0, ddof=1) / np.sqrt(replicates)
        t, df, p = welch_test(difference.mean(axis=0), se, replicates - 1)
        rows["expected"].extend(before[:, keep].mean(axis=0))
        rows["observed"].extend(after[:, keep].mean(axis=0))
        rows["se"].extend(se)
        rows["t"].extend(t)
        rows["df"].extend(df)
        rows["p"].extend(p)
        rows["function"].extend(np.asarray(labels)[keep])
        rows["part"].extend([part] * int(keep.sum()))
    rows = {k: (np.asarray(v) if k not in ("function", "part") else v) for k, v in rows.items()}
    settings = f"{replicates} exact joint draws ({seconds:.1f} s)"
    redraws = sum(part.redraws for part in parts)
    if redraws:
        settings += f"; {redraws} data set(s) redrawn outside their support or type"
    return KernelCheckResult.build(
        "invariance", rows, alpha=as_probability("alpha", alpha), settings=settings
    )
