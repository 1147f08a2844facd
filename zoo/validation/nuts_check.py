"""The nuts check: the sampler's draws against PyMC's NUTS on each data set.

For a model with no exact reference, the next best is a sampler that is trusted for
a different reason: NUTS on the same PyMC program. Each data set is fitted twice, by
the sampler under test and by ``pm.sample`` (the zoo's ``pymc`` engine, ``draws``
draws after as many tuning steps, the same chains), and the two sets of draws are
tested by :func:`zoo.diagnostics.compare` (MCSE z-scores of means, sds and tail
quantiles, two-sample Kolmogorov-Smirnov, Holm) at an equal share of the check's rate
(Bonferroni over data sets).

NUTS is a reference only when it is healthy (Vehtari et al. 2021, "Rank-normalization,
folding, and localization: an improved R-hat", sections 4-5; Betancourt 2017, "A
conceptual introduction to Hamiltonian Monte Carlo", section 6.2): no divergent
transition, rank-normalised R-hat below :data:`RHAT_MAX` and bulk ESS above
:data:`ESS_MIN` for every element of every variable. An unhealthy NUTS fit (or one that
raised) leaves its data set unjudged (``could not judge``, with the reason and its
cure), never a verdict on the sampler; when no data set can be judged, neither can the
check (``docs/design.md``, "The verdict policy"). Fits draw
their seeds from the ``nuts-fits`` stream (:mod:`zoo.core.streams`): item ``2 i`` for
the sampler under test on data set ``i``, item ``2 i + 1`` for NUTS.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from zoo.core import streams
from zoo.diagnostics.agreement import compare
from zoo.diagnostics.findings import COULD_NOT_JUDGE, Finding
from zoo.sampling.driver import sample
from zoo.sampling.parallel import FitPool, Task
from zoo.specification.adapter import exchangeable_note
from zoo.validation.plan import FIT_BUDGET, Check, Plan, draws_fit_memory
from zoo.validation.results import (
    CheckOutcome,
    agreement_verdict,
    failing_draws,
    summarise,
    worst_verdict,
)
from zoo.validation.sampler_under_test import SamplerUnderTest, fit_task

__all__ = [
    "ESS_MIN",
    "NUTS",
    "PURPOSE",
    "RHAT_MAX",
    "nuts_health",
    "reference_fit",
    "unhealthy_cure",
]

#: The stream the fits draw from: item ``2 i`` the sampler on data set ``i``, ``2 i + 1`` NUTS.
PURPOSE = "nuts-fits"

#: NUTS's health gate: the largest R-hat and smallest bulk ESS of a trusted fit.
RHAT_MAX = 1.01
ESS_MIN = 400.0


def _fit_nuts(tested: SamplerUnderTest, data, prior, draws: int, chains: int, seed: int):
    return reference_fit(tested.model, "pymc", data, prior, draws, chains, seed)


def reference_fit(model, engine: str, data, prior, draws: int, chains: int, seed: int):
    """A zoo engine's fit as a reference: its posterior and its divergence flags.

    ``draws`` draws per chain after as many warm-up steps; the flags are PyMC's
    ``sample_stats.diverging`` (an empty array for the Gibbs engine, which has none):
    all a check reads, and light to ship from a worker. :func:`nuts_health` judges it.
    """
    # PyMC announces every fit on its logger ("Initializing NUTS ..."); the check's
    # table says what ran.
    logger = logging.getLogger("pymc")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        tree = sample(
            model,
            data,
            prior,
            engine=engine,
            draws=draws,
            tune=draws,
            chains=chains,
            seed=seed,
            progress=False,
            # The checks read the posterior only: no log-likelihood function to compile.
            log_likelihood=False,
        )
    finally:
        logger.setLevel(level)
    stats = tree.children.get("sample_stats")
    diverging = stats["diverging"].values if stats is not None and "diverging" in stats else ()
    return tree["posterior"].to_dataset(), np.asarray(diverging)


def nuts_health(posterior, diverging) -> list[str]:
    """Why a NUTS fit is not a trustworthy reference: empty when it is.

    Parameters
    ----------
    posterior : xarray.Dataset
        Draws with ``(chain, draw, ...)`` dims.
    diverging : ndarray
        PyMC's ``sample_stats.diverging`` flags.
    """
    # deferred: arviz_stats takes about 0.5 s to import
    import arviz_stats as azs

    problems = []
    divergent = int(np.count_nonzero(diverging))
    if divergent:
        problems.append(f"{divergent} divergent transition(s)")
    chains = posterior.sizes["chain"]
    for name in posterior.data_vars:
        values = posterior[name].values.reshape(chains, posterior.sizes["draw"], -1)
        if values.shape[-1] == 0 or np.ptp(values) == 0:
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            ess = np.atleast_1d(azs.ess(values, method="bulk", chain_axis=0, draw_axis=1))
            rhat = (
                np.atleast_1d(azs.rhat(values, chain_axis=0, draw_axis=1))
                if chains > 1
                else np.zeros(1)
            )
        if np.nanmax(rhat) > RHAT_MAX:
            problems.append(f"{name}: R-hat {np.nanmax(rhat):.3f} > {RHAT_MAX}")
        if np.nanmin(ess) < ESS_MIN:
            problems.append(f"{name}: bulk ESS {np.nanmin(ess):.0f} < {ESS_MIN:g}")
    return problems


def unhealthy_cure(posterior, diverging) -> str:
    """What would make an unhealthy NUTS fit a reference, or what to rely on instead.

    Divergences mean the step size cannot follow the posterior's geometry (a centred
    hierarchy's funnel: Betancourt & Girolami 2015, "Hamiltonian Monte Carlo for
    hierarchical models"), which more draws do not cure. A discrete variable is sampled
    by PyMC's compound step with Metropolis, whose slow mixing spoils the R-hat and ESS
    of everything tied to it.
    """
    instead = "or rely on exact and sbc, which judge the sampler without NUTS"
    if np.count_nonzero(diverging):
        return f"reparameterise the PyMC model (a non-centred hierarchy, say), {instead}"
    discrete = [str(name) for name in posterior.data_vars if posterior[name].dtype.kind in "biu"]
    if discrete:
        return (
            f"PyMC samples the discrete {', '.join(discrete)} by Metropolis, which mixes "
            f"too slowly for a reference: marginalise it out of the model, {instead}"
        )
    return f"raise --draws (NUTS draws and tunes as many), {instead}"


def run(plan: Plan, pool: FitPool, alpha: float) -> CheckOutcome:
    """Fit every data set with the sampler and with NUTS, then compare the draws."""
    started = time.perf_counter()
    tasks = []
    for index, problem in enumerate(plan.problems):
        for which, function, offset in (("tested", fit_task, 0), ("nuts", _fit_nuts, 1)):
            seed = streams.integer(streams.item(plan.seed, PURPOSE, 2 * index + offset))
            draws, chains = plan.budget["draws"], plan.budget["chains"]
            arguments = (plan.tested, problem.data, problem.prior, draws, chains, seed)
            tasks.append(Task(f"nuts-{index}-{which}", function, arguments))
    outcomes = {outcome.key: outcome for outcome in pool.run(tasks)}
    share = alpha / len(plan.problems)
    results, findings, verdicts, kept = {}, [], [], {}
    for index, problem in enumerate(plan.problems):
        name = problem.name
        tested, nuts = outcomes[f"nuts-{index}-tested"], outcomes[f"nuts-{index}-nuts"]
        if tested.status != "ok":
            verdicts.append("fail")
            findings.append(
                Finding("fit", "fail", problem=name, message=f"{tested.status}: {tested.message}")
            )
            results[name] = f"{tested.status}: {tested.message}"
            continue
        if nuts.status != "ok":
            verdicts.append(COULD_NOT_JUDGE)
            findings.append(
                Finding(
                    "NUTS fit",
                    COULD_NOT_JUDGE,
                    problem=name,
                    gate=f"NUTS {nuts.status}: {nuts.message}",
                    cure="PyMC's NUTS itself failed on this data set: rely on exact or "
                    "sbc, which do not need it",
                )
            )
            results[name] = f"NUTS {nuts.status}: {nuts.message}"
            continue
        posterior, diverging = nuts.value
        judged = plan.tested.model.comparable_variables(problem.prior)
        # With exchangeable components NUTS's labels switch (or not) as they will: its
        # health is judged on what is compared, the label-invariant quantities.
        unhealthy = nuts_health(posterior[judged], diverging)
        if unhealthy:
            verdicts.append(COULD_NOT_JUDGE)
            findings.append(
                Finding(
                    "NUTS fit",
                    COULD_NOT_JUDGE,
                    problem=name,
                    gate=f"NUTS unhealthy ({'; '.join(unhealthy)}): not a reference here",
                    cure=unhealthy_cure(posterior, diverging),
                )
            )
            results[name] = "NUTS unhealthy: " + "; ".join(unhealthy)
            continue
        result = compare(tested.value, posterior, var_names=judged, alpha=share)
        results[name] = result
        verdict, found = agreement_verdict(name, result)
        verdicts.append(verdict)
        found = [f._replace(against="NUTS") for f in found]
        findings.extend(found)
        mine = failing_draws(tested.value, found, name)
        theirs = failing_draws(posterior, found, name)
        if mine is not None and theirs is not None:
            kept[name] = {"engines": {"sampler": mine, "NUTS": theirs}, "reference": None}
    verdict = worst_verdict(verdicts) if verdicts else COULD_NOT_JUDGE
    head = (
        f"{len(plan.problems)} data set(s) against PyMC NUTS "
        f"({plan.budget['chains']} x {plan.budget['draws']} draws each)"
    )
    symmetric = exchangeable_note(plan.tested.model)
    notes = [symmetric] if symmetric is not None else []
    return CheckOutcome(
        "nuts",
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


NUTS = Check(
    "nuts",
    "Agreement with PyMC's NUTS (two-sample)",
    run,
    PURPOSE,
    # One --draws and --chains for both agreement checks, as before budgets were per check.
    budget=FIT_BUDGET,
    # The zoo's models have exact references on every validation problem, which NUTS
    # could only approximate: on request only there.
    default_on=("pymc",),
    against_engine="pymc",
    rule=draws_fit_memory,
)
