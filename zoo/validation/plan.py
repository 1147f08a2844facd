"""What every check of the battery receives, and what a check is.

:func:`zoo.validate` validates its arguments once into a :class:`Plan`; each entry of
the battery's table (:data:`zoo.validation.battery.CHECKS`) is a :class:`Check` whose
``run(plan, pool, alpha)`` returns a :class:`~zoo.validation.results.CheckOutcome`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zoo.sampling.parallel import FitPool
from zoo.validation.problem_selection import Problem
from zoo.validation.results import CheckOutcome
from zoo.validation.sampler_under_test import SamplerUnderTest

__all__ = ["Check", "Plan"]


@dataclass(frozen=True)
class Plan:
    """One run of the battery: the sampler under test and the validated budget.

    Attributes
    ----------
    tested : SamplerUnderTest
    problems : tuple of Problem
        Data sets of the exact check.
    draws, chains : int
        Per fit of the exact check.
    simulations, sbc_draws, sbc_chains : int
        SBC: simulated data sets, and draws and chains per fit.
    sbc_setup : (prior, size), optional
        The proper prior and ``simulate`` sizes for SBC (default: the model's
        ``simulation_setup()``); its prior also replaces the prior of the kernel checks.
    seed : int
        Root seed; each check draws from its own streams of :mod:`zoo.core.streams`.
    geweke_iterations : int, optional
        Steps per chain of Geweke's successive-conditional chains (default: the
        diagnostic's own).
    sbc_source : str
        Where the SBC prior came from (said in the check's summary).
    store : path, optional
        JSON-lines file of SBC results.
    on_simulation : callable, optional
        ``on_simulation(done, total)`` after each SBC simulation.
    """

    tested: SamplerUnderTest
    problems: tuple[Problem, ...]
    draws: int
    chains: int
    simulations: int
    sbc_draws: int
    sbc_chains: int
    sbc_setup: tuple[Any, dict] | None
    seed: int
    sbc_source: str = "the model's simulation prior"
    geweke_iterations: int | None = None
    store: Any = None
    on_simulation: Callable[[int, int], None] | None = None


@dataclass(frozen=True)
class Check:
    """One entry of the battery's table.

    Attributes
    ----------
    name : str
        As given to ``checks=`` and ``--checks``.
    run : callable
        ``run(plan, pool, alpha) -> CheckOutcome``, at false-alarm rate ``alpha``.
    needs_kernel : bool
        Tests a Gibbs kernel itself (through the model's ``kernel_checks``), so it
        applies only when the sampler under test has one.
    """

    name: str
    run: Callable[[Plan, FitPool, float], CheckOutcome]
    needs_kernel: bool = False
