"""The exact check: the sampler's draws against the exact posterior on small data sets.

Each of the chosen problems (the model's ``validation_problems``: informative and
asymmetric priors, unbalanced classes) is fitted as one task of the pool and judged by
:func:`zoo.diagnostics.agreement` at an equal share of the check's rate (Bonferroni
over problems; Holm within each). Problem ``i`` is fitted with the seed of item ``i`` of
the ``exact-fits`` stream (:mod:`zoo.core.streams`).

The fits grow while the draws are too few to judge (``docs/design.md``, "The exact
check's length"): from ``draws`` per chain they double, to at most ``max_draws``, while
a quantity is below its gates and more draws would clear it, and each length is a look
of :mod:`zoo.diagnostics.looks` (the look where a problem's fit stops is judged at 90%
of its share, each earlier look may end it with a failure at its part of the other
10%). A Gibbs kernel run by the zoo's driver continues its chains: the longer fit has
the same seed and warm-up, so it begins with the shorter fit's draws, bit for bit
(:attr:`SamplerUnderTest.continuable`). A user's sampler function cannot be continued,
so its longer fit is a new one, seeded from the problem's item and the look
(``streams.item(seed, "exact-fits", i, look)``).

A user's sampler or kernel must draw from ``seed`` alone (``docs/design.md``, "Random
streams"): the first problem is fitted twice with the same seed, in parallel with the
others, and draws that differ are said in the check's summary; chains that are identical
draw for draw (every chain seeded alike) make the fit fail, because the MCSEs would
count one chain several times.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping

import numpy as np

from zoo.core import streams
from zoo.core.arguments import require_draws_fit_memory
from zoo.core.defaults import EXACT_MAX_DRAWS
from zoo.diagnostics.agreement import agreement
from zoo.diagnostics.findings import COULD_NOT_JUDGE, Finding
from zoo.diagnostics.looks import look_alpha, stage_lengths
from zoo.sampling.parallel import FitPool, Task
from zoo.specification.adapter import exchangeable_note
from zoo.validation.plan import FIT_BUDGET, Check, Plan, Setting
from zoo.validation.reference_cache import exact_reference
from zoo.validation.results import (
    CheckOutcome,
    agreement_verdict,
    failing_draws,
    summarise,
    worst_verdict,
)
from zoo.validation.sampler_under_test import fit_task

__all__ = ["EXACT", "PURPOSE", "maximum_draws", "more_draws_would_judge"]

#: The stream the fits draw from: problem ``i`` from item ``i`` (at a later look of a
#: sampler that cannot be continued, from part ``look`` of item ``i``).
PURPOSE = "exact-fits"


def maximum_draws(budget: Mapping[str, int]) -> int:
    """The most draws per chain a fit grows to: ``max_draws``, never below ``draws``.

    A first length at or above the maximum is the only look (``--draws 20000`` asks for
    one fit of that length, whatever the default maximum).
    """
    return max(budget["draws"], budget["max_draws"])


def more_draws_would_judge(result) -> bool:
    """Whether a fit should grow: some quantity is below its gates, all curable.

    More draws of chains mixing as these do would clear every such quantity. Only the
    chains' mixing (R-hat, ESS) decides, never the differences under test. A quantity
    more draws cannot clear (chains that disagree, a constant chain) stops the growth:
    the fit is then judged as it is.
    """
    if bool(np.all(result.table.gates_passed.values)):
        return False
    unjudged = [f for f in result.findings() if f.verdict == "inconclusive"]
    return bool(unjudged) and all(f.draws_per_chain for f in unjudged)


def _seed(plan: Plan, index: int, look: int) -> int:
    """The seed of problem ``index``'s fit at look ``look`` (0 the first)."""
    if look == 0 or plan.tested.continuable:
        return streams.integer(streams.item(plan.seed, PURPOSE, index))
    return streams.integer(streams.item(plan.seed, PURPOSE, index, look))


def _task(plan: Plan, index: int, look: int, draws: int, key: str) -> Task:
    problem = plan.problems[index]
    # A continued chain keeps the first look's warm-up, so its first draws are the same.
    tune = plan.budget["draws"] if plan.tested.continuable else None
    return Task(
        key,
        fit_task,
        (
            plan.tested,
            problem.data,
            problem.prior,
            draws,
            plan.budget["chains"],
            _seed(plan, index, look),
            tune,
        ),
    )


def _key(index: int, look: int) -> str:
    # Keyed by position: a caller may give two data sets the same name.
    return f"exact-{index}" if look == 0 else f"exact-{index}-look-{look}"


def run(plan: Plan, pool: FitPool, alpha: float) -> CheckOutcome:
    """Fit every problem and judge each fit against its exact reference.

    A fit with quantities below their gates grows (module docstring) until it can be
    judged or reaches the maximum.
    """
    started = time.perf_counter()
    model = plan.tested.model
    first, maximum = plan.budget["draws"], maximum_draws(plan.budget)
    lengths = stage_lengths(first, maximum)
    share = alpha / len(plan.problems)
    results, findings, notes, verdicts, kept = {}, [], [], [], {}
    stopped: dict[int, int] = {}
    pending = list(range(len(plan.problems)))
    firsts = {}
    for look, draws in enumerate(lengths):
        tasks = [_task(plan, index, look, draws, _key(index, look)) for index in pending]
        if look == 0 and plan.tested.users_code:
            tasks.append(dataclasses.replace(tasks[0], key=_AGAIN))
        outcomes = {outcome.key: outcome for outcome in pool.run(tasks)}
        if look == 0:
            firsts = outcomes
        going_on = []
        for index in pending:
            problem = plan.problems[index]
            name = problem.name
            outcome = outcomes[_key(index, look)]
            if outcome.status == "ok" and (twins := identical_chains(outcome.value)):
                outcome = dataclasses.replace(
                    outcome,
                    status="error",
                    message=f"chains {twins[0]} and {twins[1]} are identical draw for draw: "
                    "every chain needs its own random stream (derive each from seed)",
                )
            if outcome.status != "ok":
                verdicts.append("fail")
                findings.append(_fit_failed(name, outcome))
                results[name] = f"{outcome.status}: {outcome.message}"
                continue
            reference = exact_reference(model, problem)
            if not reference.available:
                verdicts.append(COULD_NOT_JUDGE)
                findings.append(
                    _without_reference(
                        name,
                        f"no exact reference ({reference.reason})",
                        "give the exact posterior (reference=, --reference), or rely on sbc",
                    )
                )
                continue
            # Identified variables only: with exchangeable labels a correct sampler may
            # sit near any one labeling.
            comparable = model.comparable_variables(problem.prior)
            judged = [n for n in comparable if n in reference.marginals]
            if not judged:
                # a user's reference for a model compared through label invariants
                verdicts.append(COULD_NOT_JUDGE)
                findings.append(
                    _without_reference(
                        name,
                        "the reference has none of the compared variables "
                        f"({', '.join(comparable)})",
                        "give their marginals in the reference, or rely on sbc",
                    )
                )
                continue

            def judge(last: bool, draws=outcome.value, reference=reference, judged=judged):
                rate = look_alpha(share, first, maximum, last=last)
                return agreement(draws, reference, var_names=judged, alpha=rate)

            # Judged as the look where the fit stops; whether it stops is read from
            # that result's gates, whose R-hat noise level depends on the rate.
            result = judge(last=True)
            if draws < maximum and more_draws_would_judge(result):
                early = judge(last=False)
                if early.verdict != "disagree":
                    going_on.append(index)
                    continue
                result = early
            stopped[index] = draws
            results[name] = result
            verdict, found = agreement_verdict(name, result)
            verdicts.append(verdict)
            findings.extend(found)
            tree = failing_draws(outcome.value, found, name)
            if tree is not None:
                kept[name] = {"engines": {"sampler": tree}, "reference": reference}
        pending = going_on
        if not pending:
            break
    again = firsts.get(_AGAIN)
    first_fit = firsts["exact-0"]
    if again is not None and first_fit.status == again.status == "ok":
        if not same_draws(first_fit.value, again.value):
            notes.append(
                f"{plan.problems[0].name}: the same seed gave different draws: the "
                "sampler does not draw from seed alone, so its results cannot be "
                "reproduced"
            )
    grown = [f"{plan.problems[i].name} at {n}" for i, n in sorted(stopped.items()) if n > first]
    if grown:
        notes.append(
            "draws doubled while a quantity was below its gates: "
            + ", ".join(grown)
            + " draws per chain"
        )
    symmetric = exchangeable_note(model)
    if symmetric is not None:
        notes.insert(0, symmetric)
    verdict = worst_verdict(verdicts) if verdicts else COULD_NOT_JUDGE
    growth = (
        f", doubling to at most {maximum} while a quantity is below its gates"
        if maximum > first
        else ""
    )
    head = (
        f"{len(plan.problems)} data set(s) ({', '.join(p.name for p in plan.problems)}), "
        f"{plan.budget['chains']} x {first} draws each{growth}"
    )
    return CheckOutcome(
        "exact",
        verdict,
        summarise(head, findings, notes),
        alpha,
        findings,
        results,
        time.perf_counter() - started,
        head,
        kept,
        notes,
    )


#: The key of the first problem's second fit with the same seed.
_AGAIN = "exact-0-again"


def identical_chains(draws) -> tuple[int, int] | None:
    """The first pair of chains equal in every variable, draw for draw, or None.

    Chains that never move are left out: a posterior concentrated on one value (a
    discrete variable, say) makes every correct chain constant, and so equal.
    """
    arrays = [np.asarray(draws[name]) for name in draws.data_vars]
    chains = arrays[0].shape[0] if arrays else 0
    moving = [
        any((a[c] != a[c][:1]).any() for a in arrays if a.shape[1] > 1) for c in range(chains)
    ]
    for first in range(chains):
        if not moving[first]:
            continue
        for second in range(first + 1, chains):
            if all(np.array_equal(a[first], a[second], equal_nan=True) for a in arrays):
                return first, second
    return None


def same_draws(first, second) -> bool:
    """Whether two fits hold the same variables and the same draws, bit for bit."""
    if set(first.data_vars) != set(second.data_vars):
        return False
    return all(
        np.array_equal(np.asarray(first[n]), np.asarray(second[n]), equal_nan=True)
        for n in first.data_vars
    )


def _fit_failed(problem: str, outcome) -> Finding:
    """A fit that raised, timed out or returned bad output, as a finding."""
    return Finding("fit", "fail", problem=problem, message=f"{outcome.status}: {outcome.message}")


def _rule(budget: Mapping[str, int], field) -> None:
    """The longest fit's draws of one scalar fit in memory."""
    require_draws_fit_memory(
        field("max_draws" if budget["max_draws"] > budget["draws"] else "draws"),
        maximum_draws(budget),
        budget["chains"],
    )


EXACT = Check(
    "exact",
    "Agreement with exact posteriors",
    run,
    PURPOSE,
    budget=(
        *FIT_BUDGET,
        Setting(
            "max_draws",
            EXACT_MAX_DRAWS,
            "most draws per chain: the exact check's fits double from --draws while a "
            "quantity is below its gates (none when at most --draws)",
        ),
    ),
    needs_reference=True,
    rule=_rule,
)


def _without_reference(problem: str, gate: str, cure: str) -> Finding:
    """The finding of a data set the exact check could not judge for want of a reference."""
    return Finding("exact reference", COULD_NOT_JUDGE, problem=problem, gate=gate, cure=cure)
