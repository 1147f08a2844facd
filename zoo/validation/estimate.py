"""The plan line of ``zoo validate``: the checks, their budgets and an estimated time.

Before the checks run, the sampler under test is fitted twice on the first data set, in
the fit pool (a worker, where every fit runs): once with 2 draws per chain and once with
:data:`TIMED_DRAWS`, one chain each, after an untimed 2-draw fit that pays for imports
and compilation. The two times give a per-fit cost and a per-draw cost, ``t(d) = a + b
d`` (a straight line through the two points), and a few prior draws give the cost of a
simulation; each check's budget says how many fits, draws and simulations it asks for.
The sum, divided by the workers that share the fits, is *an estimate*: data sets of
other sizes, warm-up a sampler scales otherwise, NUTS's own fits (nuts), the checks' own
arithmetic (ESS, ranks, test functions) and the load of the machine all move it, and the
plan line says so.

Geweke's chains grow in stages until its ESS gate clears, up to ``max_iterations``
steps per chain; on slowly mixing successive-conditional chains they reach it (the
examples' known-noise regression at the default preset, when it was 80,000 steps:
three quarters of the run), so the first stage alone undershot such a run. A check whose
budget has ``max_iterations`` is given both figures: the first stage, and all stages
(:func:`most_check_seconds`); the line's total says both when they differ. A Geweke
replicate that fails is confirmed by a second (``zoo.diagnostics.geweke.confirmed``),
which the estimate leaves out: it runs only after a failure, when the check of a wrong
kernel may take up to twice its figure.

The rule reads the budget's settings by name, so a new check is estimated when its
budget is made of the same settings (``simulations``, ``draws``, ``chains``,
``iterations``); a check with none of them is listed without an estimate.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from zoo.core.defaults import CHAINS, GEWEKE_COMPARED, GEWEKE_PILOT
from zoo.diagnostics.looks import stage_lengths
from zoo.diagnostics.sbc import redrawn
from zoo.validation.plan import Check
from zoo.validation.sampler_under_test import SamplerUnderTest

__all__ = ["TIMED_DRAWS", "FitCost", "most_check_seconds", "plan_line", "timed_fits"]

#: Draws per chain of the longer timed fit.
TIMED_DRAWS = 50
#: Prior draws timed.
SIMULATIONS = 10


@dataclass(frozen=True)
class FitCost:
    """Seconds of one fit of the sampler under test: ``per_fit + per_draw * draws * chains``.

    Attributes
    ----------
    per_fit : float
        What a fit costs whatever its length (setting up, warm-up a sampler fixes).
    per_draw : float
        Seconds per draw of one chain, warm-up included as the sampler scales it (the
        zoo's driver warms up for as many sweeps as it keeps: two sweeps a draw).
    per_simulation : float
        Seconds of one draw of parameters and data from the prior (SBC draws one per
        fit, Geweke one per step, the invariance check one per replicate).
    """

    per_fit: float
    per_draw: float
    per_simulation: float = 0.0

    def fit(self, draws: int, chains: int) -> float:
        """Seconds of one fit of ``draws`` per chain and ``chains`` chains."""
        return self.per_fit + self.per_draw * draws * chains

    @property
    def per_sweep(self) -> float:
        """Seconds of one sweep of a kernel run by the zoo's driver (half a draw)."""
        return self.per_draw / 2


def timed_fits(tested: SamplerUnderTest, data, prior, seed: int, simulation=None) -> FitCost:
    """Fit ``tested`` on ``data`` at 2 and :data:`TIMED_DRAWS` draws: the line through them.

    An untimed 2-draw fit first, so that imports and just-in-time compilation are not
    counted as the sampler's per-fit cost. Fits are checked as the checks check them
    (:meth:`SamplerUnderTest.fit`); one that raises is left to the checks. With
    ``simulation`` (``(prior, size)``), the mean of :data:`SIMULATIONS` prior draws of
    parameters and data is timed too, redraws of data outside their support included
    (:func:`zoo.diagnostics.sbc.redrawn`, as SBC draws them).
    """
    try:
        tested.fit(data, prior, draws=2, chains=1, seed=seed)
    except (ValueError, ArithmeticError):
        pass  # NaN draws in 2 draws, say: the checks judge the fits
    times = []
    for draws in (2, TIMED_DRAWS):
        started = time.perf_counter()
        try:
            tested.fit(data, prior, draws=draws, chains=1, seed=seed)
        except (ValueError, ArithmeticError):
            pass
        times.append(time.perf_counter() - started)
    per_draw = max(times[1] - times[0], 0.0) / (TIMED_DRAWS - 2)
    per_simulation = 0.0
    if simulation is not None:
        simulation_prior, size = simulation
        rng = np.random.default_rng(seed)

        def simulate():
            return tested.model.simulate(simulation_prior, rng, **size)

        # As SBC simulates (redrawn): a data set outside the data's support is drawn
        # again, and its time counted, rather than raising and losing the estimate.
        redrawn(simulate)  # compiled on first use
        started = time.perf_counter()
        for _ in range(SIMULATIONS):
            redrawn(simulate)
        per_simulation = (time.perf_counter() - started) / SIMULATIONS
    return FitCost(max(times[0] - 2 * per_draw, 0.0), per_draw, per_simulation)


def check_seconds(check: Check, budget: Mapping[str, int], problems: int, cost: FitCost):
    """Seconds of sampling one check asks for, by its budget's settings; None if unknown.

    ``simulations`` fits of ``draws`` x ``chains`` (SBC); else one such fit per data set
    (exact, nuts); ``iterations`` sweeps per chain of :data:`~zoo.core.defaults.CHAINS`
    chains and the marginal side's draws (Geweke); the invariance check's ``replicates``
    of a step and two draws (about one and a half sweeps).
    """
    if "draws" in budget and "chains" in budget:
        if "simulations" in budget:
            fit = cost.fit(budget["draws"], budget["chains"]) + cost.per_simulation
            return budget["simulations"] * fit
        return problems * cost.fit(budget["draws"], budget["chains"])
    if "iterations" in budget:
        return _geweke_seconds(budget["iterations"], budget, cost)
    if check.needs_kernel and "replicates" in budget:
        return budget["replicates"] * (1.5 * cost.per_sweep + cost.per_simulation)
    return None


def _geweke_seconds(iterations: int, budget: Mapping[str, int], cost: FitCost) -> float:
    """``iterations`` steps (a sweep and a data redraw) per chain, and the marginal draws."""
    steps = CHAINS * iterations
    marginal = GEWEKE_PILOT + budget.get("marginal_draws", GEWEKE_COMPARED)
    return steps * (cost.per_sweep + cost.per_simulation) + marginal * cost.per_simulation


def most_check_seconds(
    check: Check, budget: Mapping[str, int], problems: int, cost: FitCost
) -> float | None:
    """Seconds of sampling when a growing check runs every stage; else :func:`check_seconds`.

    A budget with ``max_iterations`` (Geweke's) grows its chains up to that many steps
    each while its gate has not cleared; one with ``max_draws`` (the exact check's)
    fits each data set again at every doubled length up to that many draws, the most it
    can spend when every data set grows to the end
    (:func:`zoo.diagnostics.looks.stage_lengths`).
    """
    if "iterations" in budget and "max_iterations" in budget:
        longest = max(budget["max_iterations"], budget["iterations"])
        return _geweke_seconds(longest, budget, cost)
    if "draws" in budget and "max_draws" in budget and "simulations" not in budget:
        lengths = stage_lengths(budget["draws"], budget["max_draws"])
        return problems * sum(cost.fit(length, budget["chains"]) for length in lengths)
    return check_seconds(check, budget, problems, cost)


def _said(seconds: float) -> str:
    """``about 40 s``: rounded as an estimate deserves."""
    if seconds < 1:
        return "under 1 s"
    if seconds < 10:
        return f"about {seconds:.0f} s"
    if seconds < 120:
        return f"about {round(seconds, -1):.0f} s"
    return f"about {seconds / 60:.0f} min"


def plan_line(
    checks: Sequence[Check],
    budgets: Mapping[str, Mapping[str, int]],
    problems: int,
    cost: FitCost | None,
    workers: int,
) -> str:
    """One line: each check with its budget and, given ``cost``, about how long it takes.

    ``workers`` share each check's fits, so a check's time is its sampling divided by
    them (a check never waits less than one fit); 0 when the fits run one after the
    other in the battery's process, which the line then says.
    """
    parts = []
    total = most = 0.0
    share = max(workers, 1)
    for check in checks:
        budget = budgets[check.name]
        settings = ", ".join(f"{name} {value}" for name, value in budget.items())
        part = f"{check.name} ({settings})" if settings else check.name
        seconds = None if cost is None else check_seconds(check, budget, problems, cost)
        if seconds is not None:
            longest = most_check_seconds(check, budget, problems, cost) / share
            seconds = seconds / share
            total += seconds
            most += longest
            part += f" {_said(seconds)}"
            if _said(longest) != _said(seconds):
                part += f" (up to {_said(longest).removeprefix('about ')} if it draws more)"
        parts.append(part)
    line = "plan: " + "; ".join(parts)
    if cost is not None:
        upto = ""
        if _said(most) != _said(total):
            upto = f" to {_said(most).removeprefix('about ')}"
        where = f"on {workers} worker(s)" if workers else "in one process"
        line += (
            f"; in all {_said(total)}{upto} {where} (an estimate from two "
            f"timed fits of 2 and {TIMED_DRAWS} draws on the first data set and "
            f"{SIMULATIONS} prior draws; the checks' own arithmetic and NUTS's fits are "
            "not counted)"
        )
    return line
