"""The Geweke check: Geweke's joint-distribution test of the kernel under test.

:mod:`zoo.diagnostics.geweke` at its default budget (5,000 independent joint draws
against 4 chains of 10,000 steps), streams ``geweke-chains``. The marginal side and each
chain are tasks of their own: they draw from separate streams, so the values are those
of :func:`~zoo.diagnostics.geweke.geweke` run in one process, and two workers take
half the wall time of one (Geweke was the longest check of ``zoo validate``).
"""

from __future__ import annotations

import time

from zoo.core.defaults import CHAINS, GEWEKE_DRAWS, GEWEKE_ITERATIONS
from zoo.diagnostics.geweke import chain_side, geweke_result, marginal_side
from zoo.sampling.parallel import FitPool, Task
from zoo.validation.kernel_check_task import check_setup, failed_task, judged
from zoo.validation.plan import Check, Plan
from zoo.validation.results import CheckOutcome

__all__ = ["GEWEKE"]


def _side_on_worker(chain: int | None, tested, seed: int, prior, iterations: int):
    """The marginal side (``chain`` None) or one chain, in the worker."""
    setup = check_setup(tested, prior)
    if chain is None:
        return marginal_side(tested.model, draws=GEWEKE_DRAWS, seed=seed, setup=setup)
    return chain_side(
        tested.model,
        tested.kernel_under_test,
        chain=chain,
        iterations=iterations,
        seed=seed,
        setup=setup,
    )


def _run(plan: Plan, pool: FitPool, alpha: float) -> CheckOutcome:
    started = time.perf_counter()
    prior = None if plan.sbc_setup is None else plan.sbc_setup[0]
    iterations = plan.geweke_iterations or GEWEKE_ITERATIONS
    # The chains first: each is longer than the marginal side, so two workers finish
    # together (chain, chain; chain, chain; marginal) rather than one waiting.
    sides = [*range(CHAINS), None]
    tasks = [
        Task(
            "geweke marginal" if chain is None else f"geweke chain {chain}",
            _side_on_worker,
            (chain, plan.tested, plan.seed, prior, iterations),
        )
        for chain in sides
    ]
    # The pool yields outcomes as they complete: put them back in task order.
    done = {outcome.key: outcome for outcome in pool.run(tasks)}
    outcomes = [done[task.key] for task in tasks]
    for outcome in outcomes:
        if outcome.status != "ok":
            return failed_task("geweke", outcome, alpha, started)
    *chains, marginal = (outcome.value for outcome in outcomes)
    result = geweke_result(marginal, chains, alpha=alpha, seconds=time.perf_counter() - started)
    return judged("geweke", result, alpha, started)


GEWEKE = Check("geweke", _run, needs_kernel=True)
