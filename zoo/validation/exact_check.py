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
from zoo.diagnostics.findings import Finding
from zoo.sampling.parallel import FitPool, Task
from zoo.validation.plan import Check, Plan
from zoo.validation.reference_cache import exact_reference
from zoo.validation.results import (
    CheckOutcome,
    agreement_verdict,
    failing_draws,
    summarise,
    worst_verdict,
)
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
    results, findings, notes, verdicts, kept = {}, [], [], [], {}
    for index, problem in enumerate(plan.problems):
        name = problem.name
        outcome = outcomes[f"exact-{index}"]
        if outcome.status != "ok":
            verdicts.append("fail")
            findings.append(_fit_failed(name, outcome))
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
        verdict, found = agreement_verdict(name, result)
        verdicts.append(verdict)
        findings.extend(found)
        tree = failing_draws(outcome.value, found, name)
        if tree is not None:
            kept[name] = {"engines": {"sampler": tree}, "reference": reference}
    verdict = worst_verdict(verdicts) if verdicts else "inconclusive"
    head = (
        f"{len(plan.problems)} data set(s) ({', '.join(p.name for p in plan.problems)}), "
        f"{plan.chains} x {plan.draws} draws each"
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
    )


def _fit_failed(problem: str, outcome) -> Finding:
    """A fit that raised, timed out or returned bad output, as a finding."""
    return Finding("fit", "fail", problem=problem, message=f"{outcome.status}: {outcome.message}")


EXACT = Check("exact", run)
