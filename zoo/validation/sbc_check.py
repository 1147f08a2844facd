"""The SBC check: simulation-based calibration of the sampler under test.

Each simulation (:func:`zoo.diagnostics.sbc.simulation_ranks`: simulate from a proper
prior, redrawing data outside their support or type, fit with the sampler under test,
thin, rank) is one task of the pool; its record goes to the result store as it arrives,
so an interrupted run resumes with the simulations still missing. The model's
simulation failing is never the sampler's failure: the check then could not judge
(``docs/design.md``, "The verdict policy").
"""

from __future__ import annotations

import time

from zoo.core.arguments import as_int, require_fits_memory
from zoo.diagnostics.findings import COULD_NOT_JUDGE, Finding
from zoo.diagnostics.sbc import PURPOSE, sbc_result, simulation_ranks
from zoo.sampling.parallel import FitPool, Task
from zoo.specification.adapter import (
    exchangeable_note,
    label_switching_note,
    model_digest,
)
from zoo.validation.plan import Check, Plan, Setting, draws_fit_memory
from zoo.validation.result_store import ResultStore
from zoo.validation.results import CheckOutcome, summarise
from zoo.validation.sampler_under_test import SamplerUnderTest
from zoo.validation.source_digest import source_digest

__all__ = ["SBC", "STORE_KIND", "open_store"]

#: The store header's ``kind``. Version 3: a simulated data set outside the data's
#: support or type is redrawn (its record counts the ``redraws``), and an error of the
#: model's ``simulate`` is a record of its own, not a failed fit; version 2 recorded both
#: as failed fits. Since version 2, simulations draw from the ``sbc-simulations`` stream
#: of zoo.core.streams. A file of an older version is refused, not mixed.
STORE_KIND = "zoo-sbc/3"


def _simulation(tested: SamplerUnderTest, index: int, seed: int, prior, size, draws, chains):
    return simulation_ranks(
        tested.model,
        tested.fit,
        index,
        seed=seed,
        prior=prior,
        size=size,
        draws=draws,
        chains=chains,
    )


def _store_settings(plan: Plan, prior, size) -> dict:
    """What defines the run's SBC records: a stored file must match all of it."""
    return {
        "kind": STORE_KIND,
        "model": plan.tested.model.name,
        "sampler": plan.tested.label,
        "sampler_source": source_digest(plan.tested),
        "model_source": model_digest(plan.tested.model),
        "seed": plan.seed,
        "draws": plan.budget["draws"],
        "chains": plan.budget["chains"],
        "prior": repr(prior),
        "size": {k: v if isinstance(v, int | float | str) else repr(v) for k, v in size.items()},
    } | _symmetry_setting(plan)


def _symmetry_setting(plan: Plan) -> dict:
    """Exchangeable components change the quantities ranked: part of the settings."""
    note = exchangeable_note(plan.tested.model)
    return {} if note is None else {"label_invariants": note}


def _check_record(record: dict) -> None:
    """Raise ValueError unless ``record`` is an SBC record as :func:`run` stores them.

    The fields :func:`zoo.diagnostics.sbc.sbc_result` reads, each of its type: a
    damaged store is refused here rather than failing deep in the pooling.
    """
    index = as_int("index", record.get("index"), minimum=0)
    if record["key"] != f"sbc-{index}":
        raise ValueError(f"key: must be 'sbc-{index}' for index {index}, got {record['key']!r}")
    status = record.get("status")
    if status != "ok":
        if not isinstance(status, str) or not isinstance(record.get("message", ""), str):
            raise ValueError(f"status: a failed fit needs a text status, got {status!r}")
        return
    ranks = record.get("ranks")
    if not isinstance(ranks, dict) or not all(
        isinstance(u, int | float) and not isinstance(u, bool) and 0 <= u <= 1
        for u in ranks.values()
    ):
        raise ValueError("ranks: must map each quantity to a normalised rank in [0, 1]")
    as_int("thinned", record.get("thinned"), minimum=1)
    as_int("redraws", record.get("redraws", 0), minimum=0)
    seconds = record.get("seconds", 0.0)
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
        raise ValueError(f"seconds: must be a number >= 0, got {seconds!r}")


def open_store(plan: Plan) -> ResultStore | None:
    """The run's SBC records, read from ``plan.store`` (None when SBC cannot run).

    Called before any fit by :func:`zoo.validation.validate`, so that a store that
    cannot be used (damaged, other settings, not writable) is refused at the start.
    """
    if plan.sbc_setup is None and plan.tested.model.simulation_setup is None:
        return None
    prior, size = _prior_and_size(plan)
    return ResultStore(plan.store, _store_settings(plan, prior, size), check=_check_record)


def _prior_and_size(plan: Plan):
    return plan.sbc_setup if plan.sbc_setup is not None else plan.tested.model.simulation_setup()


def run(plan: Plan, pool: FitPool, alpha: float) -> CheckOutcome:
    """Run the simulations missing from the store, then pool every record."""
    started = time.perf_counter()
    results = open_store(plan)
    if results is None:
        why = "the model has no simulation_setup (a proper prior)"
        cure = "give SBC a proper prior and the sizes to simulate (sbc_setup=(prior, size))"
        found = [Finding("prior", COULD_NOT_JUDGE, gate=why, cure=cure)]
        return CheckOutcome("sbc", COULD_NOT_JUDGE, f"could not judge: {why}", alpha, found)
    total, draws, chains = (plan.budget[k] for k in ("simulations", "draws", "chains"))
    with results:
        _fit_missing(plan, pool, results)
        settings = results.settings
        records = [r for r in results.records.values() if r["index"] < total]
    result = sbc_result(records, alpha=alpha, settings=settings)
    result.seconds = time.perf_counter() - started
    findings = result.findings()
    head = (
        f"{result.n_simulations} of {total} simulations, {len(result.quantities)} quantities, "
        f"{chains} x {draws} draws per fit, under {plan.sbc_source}"
    )
    notes = [result.redraw_note()] if result.redraws else []
    symmetric = exchangeable_note(plan.tested.model)
    if symmetric is not None:
        notes.insert(0, symmetric)
    switching = label_switching_note(plan.tested.model, findings)
    if switching is not None:
        notes.append(switching)
    if result.failures and not result.n_simulations:
        notes.append(_every_fit_failed(plan, _prior_and_size(plan)[0]))
    return CheckOutcome(
        "sbc",
        result.verdict,
        summarise(head, findings, notes),
        alpha,
        findings,
        result,
        result.seconds,
        head,
    )


def _fit_missing(plan: Plan, pool: FitPool, results: ResultStore) -> None:
    """Fit the simulations the store lacks, each claimed first: a store shared by runs.

    A simulation another run has claimed is skipped, then waited for; if that run ended
    without its record, the claim ended with it and this run fits it.
    """
    prior, size = _prior_and_size(plan)
    total, draws, chains = (plan.budget[k] for k in ("simulations", "draws", "chains"))
    progress = plan.on_simulation or (lambda done, total: None)

    def done() -> int:
        return sum(f"sbc-{index}" in results for index in range(total))

    def claimed(indices, others):
        for index in indices:
            key = f"sbc-{index}"
            if key in results:
                continue
            if not results.claim(key):
                others.append(index)
                continue
            yield Task(
                key,
                _simulation,
                (plan.tested, index, plan.seed, prior, size, draws, chains),
            )

    missing = [index for index in range(total) if f"sbc-{index}" not in results]
    progress(done(), total)
    while missing:
        others: list[int] = []
        for outcome in pool.run(claimed(missing, others)):
            index = int(outcome.key.split("-")[1])
            if outcome.status == "ok":
                record = dict(outcome.value)
            else:
                record = {"index": index, "status": outcome.status, "message": outcome.message}
            record["key"] = outcome.key
            results.add(record)
            results.release(outcome.key)
            progress(done(), total)
        for index in others:
            results.wait(f"sbc-{index}")
        progress(done(), total)
        missing = [index for index in others if f"sbc-{index}" not in results]


def _every_fit_failed(plan: Plan, prior) -> str:
    """What to change when no SBC fit succeeded: usually the prior SBC draws from."""
    model = plan.tested.model
    problems = getattr(model, "validation_problems", None)
    names = [name for name, _, _ in problems()] if problems is not None else []
    if not names or model.location is None:
        return (
            "every fit failed: run the sampler on one simulated data set by hand "
            "(model.simulate) to see why"
        )
    return (
        f"every fit failed under the prior SBC draws from ({prior!r:.100}): a sampler "
        "written for another kind of prior is checked under that kind with --sbc-prior "
        f"PROBLEM (the prior of one of {', '.join(names)}), or sbc_prior= in Python"
    )


def _rule(budget, field) -> None:
    """One scalar's draws of a fit, and one rank of every simulation, fit in RAM.

    ``--simulations 1000000000000`` started its fits (a run that could never end, and
    whose ranks alone could never be held); refused now, as ``--draws`` is.
    """
    draws_fit_memory(budget, field)
    simulations = budget["simulations"]
    require_fits_memory(field("simulations"), simulations, f"{simulations} simulations' ranks")


def _preflight(plan: Plan) -> None:
    if plan.store is not None:
        open_store(plan)  # a store it cannot use is refused before any fit


SBC = Check(
    "sbc",
    "Simulation-based calibration",
    run,
    PURPOSE,
    # The power records (docs/power.md) were taken at these.
    budget=(
        Setting("simulations", 100, "simulated data sets", option="simulations"),
        # Ranks are thinned to each fit's ESS.
        Setting("draws", 200, "draws per chain of each fit"),
        Setting("chains", 2, "chains of each fit"),
    ),
    simulates=True,
    rule=_rule,
    preflight=_preflight,
)
