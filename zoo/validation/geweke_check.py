"""The Geweke check: Geweke's joint-distribution test of the kernel under test.

:mod:`zoo.diagnostics.geweke` at its default budget (5,000 independent joint draws
against 4 chains of 10,000 steps), streams ``geweke-chains``. Each chain and the
marginal side are tasks of their own (they draw from separate stream items), so the
values are those of :func:`~zoo.diagnostics.geweke.geweke` run in one process, and two
workers share the check (it was the longest of ``zoo validate``).
"""

from __future__ import annotations

from zoo.core.defaults import CHAINS, GEWEKE_DRAWS, GEWEKE_ITERATIONS
from zoo.diagnostics.geweke import PURPOSE, chain_side, geweke_result, marginal_side
from zoo.validation.kernel_check_task import kernel_check
from zoo.validation.plan import Setting

__all__ = ["GEWEKE"]


def _chain(tested, seed: int, setup, chain: int, iterations: int):
    return chain_side(
        tested.model,
        tested.kernel_under_test,
        chain=chain,
        iterations=iterations,
        seed=seed,
        setup=setup,
    )


def _marginal(tested, seed: int, setup):
    return marginal_side(tested.model, draws=GEWEKE_DRAWS, seed=seed, setup=setup)


def _pieces(plan) -> list:
    iterations = plan.budget["iterations"]
    # The chains first: each is longer than the marginal side, so two workers finish
    # together (chain, chain; chain, chain; marginal) rather than one waiting.
    chains = [(f"chain {c}", _chain, (c, iterations)) for c in range(CHAINS)]
    return [*chains, ("marginal", _marginal, ())]


def _combine(values, *, alpha: float, seconds: float):
    *chains, marginal = values
    return geweke_result(marginal, chains, alpha=alpha, seconds=seconds)


GEWEKE = kernel_check(
    "geweke",
    "Geweke's joint-distribution test",
    _pieces,
    _combine,
    purpose=PURPOSE,
    description="Means of each test function under independent joint draws (expected) "
    "and under the chain that alternates the kernel with fresh data (observed).",
    # Raise it when a test function is not judged for want of ESS (the finding says how
    # many would do). At least the 20 batches of the batch-means standard error, 10
    # steps each.
    budget=(Setting("iterations", GEWEKE_ITERATIONS, "steps per chain of Geweke's test", 200),),
)
