"""The posterior SBC check: calibration conditional on the observed data.

On the first data set of the plan (the user's observed data; a zoo model's first
validation problem): one long reference run samples ``p(theta | y)`` (the zoo's own
Gibbs kernel for a zoo model, PyMC's NUTS for a user's PyMC model: trusted for another
reason than the sampler under test, and gated by the nuts check's health gate); each
simulation takes one of its thinned draws ``theta'``, appends new data drawn given it
(the model's ``augment``), fits the augmented data with the sampler under test and
ranks ``theta'`` among the draws (:mod:`zoo.diagnostics.posterior_sbc`). The ranks are
pooled and judged as SBC's (:func:`zoo.diagnostics.sbc.sbc_result`).

It cannot judge, and says why and the cure, when the model cannot augment its data (no
repeatable observation axis), when the reference run is unhealthy or too short for the
simulations asked, or when the sampler under test is PyMC's NUTS on a user's model
(the reference run itself, and the PyMC engine fits the user's model at its own design
only).
"""

from __future__ import annotations

import time

import numpy as np

from zoo.core.contract import CannotAugment
from zoo.diagnostics.findings import COULD_NOT_JUDGE, Finding
from zoo.diagnostics.posterior_sbc import (
    PURPOSE,
    posterior_simulation_ranks,
    reference_draws,
    reference_seed,
)
from zoo.diagnostics.sbc import sbc_result
from zoo.sampling.parallel import FitPool, Task
from zoo.specification.adapter import SpecifiedData
from zoo.validation.nuts_check import nuts_health, reference_fit
from zoo.validation.plan import Check, Plan, Setting, draws_fit_memory
from zoo.validation.results import CheckOutcome, summarise
from zoo.validation.sampler_under_test import SamplerUnderTest

__all__ = ["POSTERIOR_SBC"]

NAME = "posterior-sbc"


def _simulation(tested: SamplerUnderTest, index, seed, data, prior, truth, draws, chains):
    return posterior_simulation_ranks(
        tested.model,
        tested.fit,
        index,
        seed=seed,
        data=data,
        prior=prior,
        truth=truth,
        draws=draws,
        chains=chains,
    )


def _cannot(why: str, cure: str, quantity: str = "data", alpha: float = 0.0) -> CheckOutcome:
    found = [Finding(quantity, COULD_NOT_JUDGE, gate=why, cure=cure)]
    return CheckOutcome(NAME, COULD_NOT_JUDGE, f"could not judge: {why}", alpha, found)


def run(plan: Plan, pool: FitPool, alpha: float) -> CheckOutcome:
    """The reference run, the simulations, the pooled ranks."""
    started = time.perf_counter()
    tested, problem = plan.tested, plan.problems[0]
    model, data, prior = tested.model, problem.data, problem.prior
    specified = isinstance(data, SpecifiedData)
    budget = plan.budget
    total = budget["simulations"]
    if model.augment is None:
        return _cannot(
            f"{model.name} has no augment: new observations cannot be appended to its data",
            "give the model an augment (zoo.Model.augment), or leave posterior-sbc out",
            alpha=alpha,
        )
    if specified and tested.sampler is None and tested.kernel_under_test is None:
        return _cannot(
            "the sampler under test is PyMC's NUTS, which is the reference run itself",
            "validate NUTS with exact, nuts and sbc; posterior-sbc judges a sampler of your own",
            "sampler",
            alpha,
        )
    engine = "pymc" if specified else "gibbs"
    task = Task(
        "posterior-sbc-reference",
        reference_fit,
        (
            model,
            engine,
            data,
            prior,
            budget["reference_draws"],
            budget["reference_chains"],
            reference_seed(plan.seed),
        ),
    )
    (outcome,) = pool.run([task])
    where = f"the reference run ({engine}) on {problem.name!r}"
    if outcome.status != "ok":
        return _cannot(
            f"{where} failed: {outcome.status}: {outcome.message}",
            "run the zoo's engine on the data by hand (zoo.sample) to see why",
            "reference",
            alpha,
        )
    run_draws, diverging = outcome.value
    unhealthy = nuts_health(run_draws, diverging)
    if unhealthy:
        return _cannot(
            f"{where} is not a reference: {'; '.join(unhealthy)}",
            "raise --posterior-sbc-reference-draws (budgets={'posterior-sbc': "
            "{'reference_draws': ...}}); divergences call for a reparameterised model",
            "reference",
            alpha,
        )
    reference = reference_draws(run_draws, total)
    if reference.available < total:
        per_chain = budget["reference_draws"] * total // max(reference.available, 1) + 1
        return _cannot(
            f"{where} leaves {reference.available} near-independent draws (ESS "
            f"{reference.min_ess:.0f}) for {total} simulations",
            f"raise --posterior-sbc-reference-draws to about {per_chain}, or run fewer "
            "simulations",
            "reference",
            alpha,
        )
    try:
        # Only whether the data can be augmented is read: a throwaway generator.
        model.augment(data, reference.draws[0], prior, np.random.default_rng(0))
    except CannotAugment as error:
        return _cannot(f"{problem.name!r}: {error}", error.cure, alpha=alpha)
    draws, chains = budget["draws"], budget["chains"]
    tasks = (
        Task(
            f"{NAME}-{index}",
            _simulation,
            (tested, index, plan.seed, data, prior, reference.draws[index], draws, chains),
        )
        for index in range(total)
    )
    records = []
    progress = plan.on_simulation or (lambda done, total: None)
    for outcome in pool.run(tasks):
        index = int(outcome.key.rsplit("-", 1)[1])
        if outcome.status == "ok":
            records.append(dict(outcome.value))
        else:
            records.append({"index": index, "status": outcome.status, "message": outcome.message})
        progress(len(records), total)
    result = sbc_result(records, alpha=alpha, settings={"data set": problem.name, **budget})
    result.seconds = time.perf_counter() - started
    findings = result.findings()
    head = (
        f"{result.n_simulations} of {total} simulations conditional on {problem.name!r}, "
        f"{len(result.quantities)} quantities, {chains} x {draws} draws per fit of the "
        f"augmented data; reference: {engine}, ESS {reference.min_ess:.0f}"
    )
    return CheckOutcome(
        NAME,
        result.verdict,
        summarise(head, findings),
        alpha,
        findings,
        result,
        result.seconds,
        head,
    )


def _rule(budget, field) -> None:
    """Each fit's draws fit in memory; the reference run leaves a draw per simulation."""
    draws_fit_memory(budget, field)
    supplied = budget["reference_draws"] * budget["reference_chains"]
    if supplied < budget["simulations"]:
        raise ValueError(
            f"{field('reference_draws')}: reference_draws x reference_chains "
            f"({supplied}) must be at least the simulations ({budget['simulations']}): "
            "one draw of the reference run per simulation"
        )


POSTERIOR_SBC = Check(
    NAME,
    "Posterior SBC (calibration conditional on the observed data)",
    run,
    PURPOSE,
    budget=(
        Setting("simulations", 100, "augmented data sets"),
        Setting("draws", 200, "draws per chain of each fit of augmented data"),
        Setting("chains", 2, "chains of each fit of augmented data"),
        Setting("reference_draws", 2000, "draws per chain of the reference run"),
        Setting("reference_chains", 4, "chains of the reference run", minimum=2),
    ),
    default_on=(),
    description=(
        "ranks of draws from the posterior given the observed data among the sampler's "
        "draws given those data and new data simulated from them (uniform if right)"
    ),
    rule=_rule,
)
