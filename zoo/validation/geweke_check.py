"""The Geweke check: Geweke's joint-distribution test of the kernel under test.

:mod:`zoo.diagnostics.geweke` at its default budget (5,000 independent joint draws, the
first 1,000 of which fix the test functions and the other ``marginal_draws`` are
compared, against 4 chains of 10,000 steps that double, to at most 20,000, while a test
function's ESS is below the gate and the gate is within reach; each chain restarted
from an exact joint draw every first-stage length over 20 batches), streams
``geweke-chains``. Each chain and the marginal side are tasks of their own (they draw
from separate stream items), so the values are those of
:func:`~zoo.diagnostics.geweke.geweke` run in one process, and two workers share the
check (it was the longest of ``zoo validate``). A stage runs only its chains, each
continued from where the last stage stopped it (:func:`~zoo.diagnostics.geweke.chain_side`
with ``after``): the marginal side is drawn once, and no step is run twice. A first
replicate that fails is confirmed as :func:`~zoo.diagnostics.geweke.geweke` confirms it:
an independent replicate from the stream ``geweke-confirmation``, run in stages of its
own, and the check fails only when both fail
(:func:`~zoo.diagnostics.geweke.confirmed`).
"""

from __future__ import annotations

from dataclasses import replace

from zoo.core.defaults import (
    CHAINS,
    GEWEKE_BATCHES,
    GEWEKE_COMPARED,
    GEWEKE_ITERATIONS,
    GEWEKE_MAX_ITERATIONS,
    GEWEKE_PILOT,
)
from zoo.diagnostics.geweke import (
    PURPOSE,
    chain_side,
    confirmed,
    look,
    marginal_side,
    next_length,
    segment_length,
    stage_lengths,
)
from zoo.validation.kernel_check_task import kernel_check
from zoo.validation.plan import Setting

__all__ = ["GEWEKE"]


def _chain(
    tested,
    seed: int,
    setup,
    chain: int,
    iterations: int,
    segment: int,
    after=None,
    replicate: int = 0,
):
    return chain_side(
        tested.model,
        tested.kernel_under_test,
        chain=chain,
        iterations=iterations,
        seed=seed,
        segment=segment,
        setup=setup,
        after=after,
        replicate=replicate,
    )


def _marginal(tested, seed: int, setup, compared: int, replicate: int = 0):
    # The pilot draws fix the test functions; the budget counts the draws compared.
    return marginal_side(
        tested.model,
        draws=GEWEKE_PILOT + compared,
        seed=seed,
        setup=setup,
        replicate=replicate,
    )


def _length(plan) -> int:
    """The chains' length at this stage (the budget's ``iterations`` at the first)."""
    return plan.budget.get("length", plan.budget["iterations"])


def _confirming(plan) -> bool:
    """Whether this stage is the confirmation's (the first replicate failed)."""
    return "first_length" in plan.budget


def _chain_key(chain: int, iterations: int, replicate: int = 0) -> str:
    return f"{'confirmation ' * replicate}chain {chain} x {iterations}"


def _marginal_key(replicate: int = 0) -> str:
    return f"{'confirmation ' * replicate}marginal"


def _stage_pieces(plan, earlier, iterations: int, replicate: int) -> list:
    """The pieces of one replicate's stage at ``iterations`` steps per chain."""
    before = [n for n in stage_lengths(plan.budget["iterations"], iterations) if n < iterations]
    # Restarted at the first stage's batch length, at every stage (geweke does so).
    segment = segment_length(plan.budget["iterations"], GEWEKE_BATCHES)
    # The chains first: each is longer than the marginal side, so two workers finish
    # together (chain, chain; chain, chain; marginal) rather than one waiting. Their
    # keys carry the length, so that a later stage runs them, not the marginal; each
    # continues its chain from where the last stage stopped it.
    chains = [
        (
            _chain_key(c, iterations, replicate),
            _chain,
            (
                c,
                iterations,
                segment,
                earlier.get(_chain_key(c, before[-1], replicate)) if before else None,
                replicate,
            ),
        )
        for c in range(CHAINS)
    ]
    marginal = (_marginal_key(replicate), _marginal, (plan.budget["marginal_draws"], replicate))
    return [*chains, marginal]


def _pieces(plan, earlier) -> list:
    if not _confirming(plan):
        return _stage_pieces(plan, earlier, _length(plan), 0)
    # The first replicate's last stage is listed again, so that its values (done
    # before: not run again) reach _combine with the confirmation's.
    first = _stage_pieces(plan, earlier, plan.budget["first_length"], 0)
    return [*first, *_stage_pieces(plan, earlier, _length(plan), 1)]


def _look(values, *, alpha: float, seconds: float, plan, length: int):
    """One replicate's look at ``length`` steps per chain: its result and next length."""
    *chains, marginal = values
    first, maximum = plan.budget["iterations"], plan.budget["max_iterations"]
    lengths = [n for n in stage_lengths(first, maximum) if n < length]
    return look(
        marginal,
        chains,
        alpha=alpha,
        first=first,
        max_iterations=maximum,
        seconds=seconds,
        lengths=lengths,
    )


def _combine(values, *, alpha: float, seconds: float, plan):
    if not _confirming(plan):
        result, _ = _look(values, alpha=alpha, seconds=seconds, plan=plan, length=_length(plan))
        return result
    split = CHAINS + 1
    first, _ = _look(
        values[:split], alpha=alpha, seconds=seconds, plan=plan, length=plan.budget["first_length"]
    )
    confirmation, following = _look(
        values[split:], alpha=alpha, seconds=seconds, plan=plan, length=_length(plan)
    )
    # The confirmation's own stages go on as the first's did; where they stop, the two
    # replicates give the answer.
    return confirmation if following is not None else confirmed(first, confirmation)


def _again(plan, result):
    """The next stage's plan, or None when ``result`` is the answer.

    A first replicate that fails goes on to its confirmation, from the first length;
    a confirmation goes on while its chains would (``result`` is then its own, without
    the ``confirmation`` note :func:`~zoo.diagnostics.geweke.confirmed` adds).
    """
    if "confirmation" in result.table.attrs:
        return None
    if result.verdict == "fail":
        if _confirming(plan):
            return None
        budget = {
            **plan.budget,
            "first_length": _length(plan),
            "length": plan.budget["iterations"],
        }
        return replace(plan, budget=budget)
    following = next_length(result, _length(plan), plan.budget["max_iterations"])
    return (
        None if following is None else replace(plan, budget={**plan.budget, "length": following})
    )


def _rule(budget, field) -> None:
    if budget["max_iterations"] < budget["iterations"]:
        raise ValueError(
            f"{field('max_iterations')}: must be >= iterations = {budget['iterations']} "
            f"(the chains' first length), got {budget['max_iterations']}"
        )


GEWEKE = kernel_check(
    "geweke",
    "Geweke's joint-distribution test",
    _pieces,
    _combine,
    purpose=PURPOSE,
    description="Means of each test function (normal scores, their squares, indicators "
    "at the 10/50/90% quantiles of independent joint draws) under independent joint "
    "draws (expected) and under the chain that alternates the kernel with fresh data, "
    "restarted from an exact joint draw every first length / 20 steps (observed); a "
    "failure counts only when an independent replicate fails too.",
    # At least the 20 batches, each a segment of 10 steps begun at an exact joint draw.
    budget=(
        Setting("iterations", GEWEKE_ITERATIONS, "steps per chain of Geweke's first stage", 200),
        Setting(
            "max_iterations",
            GEWEKE_MAX_ITERATIONS,
            "most steps per chain: Geweke's chains double from --geweke-iterations while "
            "a test function's ESS is below the gate",
            200,
        ),
        Setting(
            "marginal_draws",
            GEWEKE_COMPARED,
            "independent joint draws Geweke compares with its chains (beyond the "
            f"{GEWEKE_PILOT:,} that fix the test functions)",
            2,
        ),
    ),
    rule=_rule,
    again=_again,
)
