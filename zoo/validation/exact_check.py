"""The exact check: the sampler's draws against the exact posterior on small data sets.

Each of the chosen problems (the model's ``validation_problems``: informative and
asymmetric priors, unbalanced classes) is fitted once, as one task of the pool, and
judged by :func:`zoo.diagnostics.agreement` at an equal share of the check's rate
(Bonferroni over problems; Holm within each). Problem ``i`` is fitted with the seed of
item ``i`` of the ``exact-fits`` stream (:mod:`zoo.core.streams`).
"""

from __future__ import annotations

import time

from zoo.core import streams
from zoo.diagnostics.agreement import agreement
from zoo.sampling.parallel import FitPool, Task
from zoo.validation.plan import Check, Plan
from zoo.validation.reference_cache import exact_reference
from zoo.validation.results import CheckOutcome, agreement_verdict, worst_verdict
from zoo.validation.sampler_under_test import fit_task

__all__ = ["EXACT"]


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
                plan.draws,
                plan.chains,
                streams.integer(streams.item(plan.seed, "exact-fits", index)),
            ),
        )
        for index, problem in enumerate(plan.problems)
    ]
    outcomes = {outcome.key: outcome for outcome in pool.run(tasks)}
    share = alpha / len(plan.problems)
    results, failing, notes, verdicts = {}, [], [], []
    for index, problem in enumerate(plan.problems):
        name = problem.name
        outcome = outcomes[f"exact-{index}"]
        if outcome.status != "ok":
            verdicts.append("fail")
            failing.append(f"{name}: {outcome.status}: {outcome.message}")
            results[name] = f"{outcome.status}: {outcome.message}"
            continue
        reference = exact_reference(model, problem)
        if not reference.available:
            notes.append(f"{name}: no exact reference ({reference.reason})")
            continue
        # Identified variables only: with exchangeable labels a correct sampler may sit
        # near any one labeling.
        judged = [n for n in model.comparable_variables(problem.prior) if n in reference.marginals]
        result = agreement(outcome.value, reference, var_names=judged, alpha=share)
        results[name] = result
        verdict, failed = agreement_verdict(name, result)
        verdicts.append(verdict)
        failing.extend(failed)
    verdict = worst_verdict(verdicts) if verdicts else "inconclusive"
    summary = f"{len(plan.problems)} data set(s) ({', '.join(p.name for p in plan.problems)})"
    if failing:
        summary += "; " + "; ".join(failing[:5])
    if notes:
        summary += "; " + "; ".join(notes)
    return CheckOutcome(
        "exact", verdict, summary, failing, alpha, results, time.perf_counter() - started
    )


EXACT = Check("exact", run)
