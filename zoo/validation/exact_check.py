"""The exact check: the sampler's draws against the exact posterior on small data sets.

Each of the chosen problems (the model's ``validation_problems``: informative and
asymmetric priors, unbalanced classes) is fitted once, as one task of the pool, and
judged by :func:`zoo.diagnostics.agreement` at an equal share of the check's rate
(Bonferroni over problems; Holm within each). Problem ``i`` is fitted with the seed of
item ``i`` of the ``exact-fits`` stream (:mod:`zoo.core.streams`).

A user's sampler or kernel must draw from ``seed`` alone (``docs/design.md``, "Random
streams"): the first problem is fitted twice with the same seed, in parallel with the
others, and draws that differ are said in the check's summary; chains that are identical
draw for draw (every chain seeded alike) make the fit fail, because the MCSEs would
count one chain several times.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from zoo.core import streams
from zoo.diagnostics.agreement import agreement
from zoo.diagnostics.findings import COULD_NOT_JUDGE, Finding
from zoo.sampling.parallel import FitPool, Task
from zoo.specification.adapter import exchangeable_note
from zoo.validation.plan import FIT_BUDGET, Check, Plan, draws_fit_memory
from zoo.validation.reference_cache import exact_reference
from zoo.validation.results import (
    CheckOutcome,
    agreement_verdict,
    failing_draws,
    summarise,
    worst_verdict,
)
from zoo.validation.sampler_under_test import fit_task

__all__ = ["EXACT", "PURPOSE"]

#: The stream the fits draw from: problem ``i`` from item ``i``.
PURPOSE = "exact-fits"


def run(plan: Plan, pool: FitPool, alpha: float) -> CheckOutcome:
    """Fit every problem, then judge each fit against its exact reference."""
    started = time.perf_counter()
    model = plan.tested.model
    tasks = [
        # Keyed by position: a caller may give two data sets the same name.
        Task(
            f"exact-{index}",
            fit_task,
            (
                plan.tested,
                problem.data,
                problem.prior,
                plan.budget["draws"],
                plan.budget["chains"],
                streams.integer(streams.item(plan.seed, PURPOSE, index)),
            ),
        )
        for index, problem in enumerate(plan.problems)
    ]
    if plan.tested.users_code:
        tasks.append(Task(_AGAIN, tasks[0].function, tasks[0].args))
    outcomes = {outcome.key: outcome for outcome in pool.run(tasks)}
    share = alpha / len(plan.problems)
    results, findings, notes, verdicts, kept = {}, [], [], [], {}
    for index, problem in enumerate(plan.problems):
        name = problem.name
        outcome = outcomes[f"exact-{index}"]
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
        # Identified variables only: with exchangeable labels a correct sampler may sit
        # near any one labeling.
        comparable = model.comparable_variables(problem.prior)
        judged = [n for n in comparable if n in reference.marginals]
        if not judged:
            # a user's reference for a model compared through label invariants
            verdicts.append(COULD_NOT_JUDGE)
            findings.append(
                _without_reference(
                    name,
                    f"the reference has none of the compared variables ({', '.join(comparable)})",
                    "give their marginals in the reference, or rely on sbc",
                )
            )
            continue
        result = agreement(outcome.value, reference, var_names=judged, alpha=share)
        results[name] = result
        verdict, found = agreement_verdict(name, result)
        verdicts.append(verdict)
        findings.extend(found)
        tree = failing_draws(outcome.value, found, name)
        if tree is not None:
            kept[name] = {"engines": {"sampler": tree}, "reference": reference}
    again = outcomes.get(_AGAIN)
    first = outcomes["exact-0"]
    if again is not None and first.status == again.status == "ok":
        if not same_draws(first.value, again.value):
            notes.append(
                f"{plan.problems[0].name}: the same seed gave different draws: the "
                "sampler does not draw from seed alone, so its results cannot be "
                "reproduced"
            )
    symmetric = exchangeable_note(model)
    if symmetric is not None:
        notes.insert(0, symmetric)
    verdict = worst_verdict(verdicts) if verdicts else COULD_NOT_JUDGE
    head = (
        f"{len(plan.problems)} data set(s) ({', '.join(p.name for p in plan.problems)}), "
        f"{plan.budget['chains']} x {plan.budget['draws']} draws each"
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


EXACT = Check(
    "exact",
    "Agreement with exact posteriors",
    run,
    PURPOSE,
    budget=FIT_BUDGET,
    needs_reference=True,
    rule=draws_fit_memory,
)


def _without_reference(problem: str, gate: str, cure: str) -> Finding:
    """The finding of a data set the exact check could not judge for want of a reference."""
    return Finding("exact reference", COULD_NOT_JUDGE, problem=problem, gate=gate, cure=cure)
