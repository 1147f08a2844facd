"""``zoo validate`` and ``zoo.validate(...)``: a battery of checks of a sampler, with numbers.

The battery is the table :data:`CHECKS`, each check at its share of one stated
family-wise false-alarm rate (Bonferroni over the checks run):

1. ``exact``: the sampler's draws against the exact posterior on a fixed set of small
   data sets chosen to be sensitive (:mod:`zoo.validation.exact_check`).
2. ``nuts``: the sampler's draws against PyMC's NUTS on the same data sets, NUTS's own
   health a gate (:mod:`zoo.validation.nuts_check`); by default for a user's PyMC model.
3. ``sbc``: simulation-based calibration over data simulated from a proper prior
   (:mod:`zoo.validation.sbc_check`).
4. ``geweke`` and ``invariance`` (when a Gibbs kernel is under test): Geweke's
   joint-distribution test and a one-sweep invariance check of the kernel itself
   (:mod:`zoo.validation.geweke_check`, :mod:`zoo.validation.invariance_check`).

The model is one of the zoo's, or a user's PyMC program
(:func:`zoo.specification.adapter.specified_model`): its free variables are what the
sampler returns, its graph the prior, and conjugate pairs in it give the exact check
its reference.

Adding a check is writing its module (a :class:`~zoo.validation.plan.Check`) and one
entry in :data:`CHECKS`. Every fit runs through :class:`zoo.sampling.parallel.FitPool` (a Dask
cluster by default), with a per-fit timeout.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from zoo.core.arguments import (
    as_int,
    as_probability,
    as_seed,
    require_distinct,
    require_draws_fit_memory,
)
from zoo.core.contract import Kernel, Model
from zoo.core.defaults import (
    ALPHA,
    CHAINS,
    DRAWS,
    ENGINES,
    FIT_TIMEOUT,
    SBC_CHAINS,
    SBC_DRAWS,
    SIMULATIONS,
)
from zoo.registry import get
from zoo.sampling.parallel import FitPool
from zoo.sampling.sampler_output import NonFiniteDraws, SamplerOutputError
from zoo.specification.adapter import (
    DataOnlySampler,
    specified_model,
    unsimulable,
)
from zoo.validation.exact_check import EXACT
from zoo.validation.geweke_check import GEWEKE
from zoo.validation.invariance_check import INVARIANCE
from zoo.validation.nuts_check import NUTS
from zoo.validation.plan import Check, Plan
from zoo.validation.problem_selection import Problem, choose_problems, model_problems
from zoo.validation.reference_cache import exact_reference
from zoo.validation.results import ValidationResult
from zoo.validation.sampler_under_test import SamplerUnderTest
from zoo.validation.sbc_check import SBC, open_store

__all__ = ["CHECKS", "CHECK_NAMES", "ZOO_DEFAULT_CHECKS", "validate"]

#: The battery, in the order its checks run.
CHECKS: tuple[Check, ...] = (EXACT, NUTS, SBC, GEWEKE, INVARIANCE)
#: Their names, as ``checks=`` and ``--checks`` take them.
CHECK_NAMES = tuple(check.name for check in CHECKS)
_BY_NAME = {check.name: check for check in CHECKS}


#: Checks run by default on a zoo model (nuts on request: the zoo's models have exact
#: references on every validation problem, which NUTS could only approximate).
ZOO_DEFAULT_CHECKS = ("exact", "sbc", "geweke", "invariance")


def _default_checks(tested: SamplerUnderTest, specified: bool, references) -> tuple[Check, ...]:
    """The checks that apply to ``tested``.

    Kernel checks need a kernel; for a user's PyMC model, exact needs a conjugate (or
    given) reference and nuts a sampler other than NUTS itself.
    """
    model = tested.model
    kernel_checkable = tested.kernel_under_test is not None and model.kernel_checks is not None
    chosen = []
    for check in CHECKS:
        if check.needs_kernel and not kernel_checkable:
            continue
        if not specified and check.name not in ZOO_DEFAULT_CHECKS:
            continue
        if specified and check.name == "exact" and not _available(references):
            continue
        if check.name == "nuts" and tested.sampler is None and tested.engine == "pymc":
            continue
        chosen.append(check)
    return tuple(chosen)


def _references(model: Model, problems) -> dict:
    """Each problem's exact reference (or NoReference), by problem name: derived once."""
    return {problem.name: exact_reference(model, problem) for problem in problems}


def _available(references) -> dict:
    """The references that exist."""
    return {n: r for n, r in references.items() if getattr(r, "available", True)}


def _chosen_checks(tested: SamplerUnderTest, checks, specified, references) -> tuple[Check, ...]:
    """The checks to run: the caller's, or all that apply."""
    model = tested.model
    has_kernel = tested.kernel_under_test is not None
    if checks is None:
        return _default_checks(tested, specified, references)
    names = (checks,) if isinstance(checks, str) else tuple(checks)
    unknown = [name for name in names if name not in _BY_NAME]
    if unknown:
        raise ValueError(f"checks: unknown {unknown}; choose from {CHECK_NAMES}")
    if not names:
        raise ValueError(f"checks: choose at least one of {CHECK_NAMES}")
    # Run twice, a check would take two shares of alpha and halve every other's.
    require_distinct("checks", names, "; each check runs once")
    chosen = tuple(_BY_NAME[name] for name in names)
    on_kernel = [check.name for check in chosen if check.needs_kernel]
    if on_kernel and not has_kernel:
        raise ValueError(f"checks: {on_kernel} need a kernel (--kernel)")
    if on_kernel and model.kernel_checks is None:
        raise ValueError(
            f"checks: {model.name!r} has no kernel_checks (zoo.KernelChecks), which "
            "geweke and invariance need"
        )
    return chosen


def _checked_setup(model: Model, sbc_setup):
    """``sbc_setup`` as ``(prior, size)``, or a ValueError saying what was expected."""
    if sbc_setup is None:
        return None
    if (
        not isinstance(sbc_setup, tuple | list)
        or len(sbc_setup) != 2
        or not isinstance(sbc_setup[0], model.Prior)
        or not isinstance(sbc_setup[1], Mapping)
    ):
        raise ValueError(
            f"sbc_setup: expected ({model.name} Prior, {{size: value}}) for simulate, "
            f"got {sbc_setup!r:.80}"
        )
    return (sbc_setup[0], dict(sbc_setup[1]))


def _simulation_sizes(model: Model, field: str) -> dict:
    if model.simulation_setup is None:
        raise ValueError(
            f"{field}: {model.name!r} has no simulation_setup to take SBC's sizes from; "
            "give sbc_setup=(prior, sizes)"
        )
    return dict(model.simulation_setup()[1])


def _simulable(model: Model, prior, size: dict) -> bool:
    """Whether ``simulate`` accepts ``prior`` (a proper prior): one throwaway draw."""
    try:
        model.simulate(prior, np.random.default_rng(0), **size)
    except (ValueError, TypeError, ArithmeticError):
        return False
    return True


def _sbc_setup(model: Model, sbc_setup, sbc_prior, problems, chosen, specified):
    """The prior SBC (and the kernel checks) draw from, and where it came from.

    In order: ``sbc_setup``; ``sbc_prior`` (a validation problem's name or a Prior) with
    the model's simulation sizes; the one prior shared by the problems the caller chose,
    when it is proper (a sampler written for fixed hyperparameters, validated on the
    fixed-prior problems, is calibrated under that kind of prior too); else the model's
    own ``simulation_setup``.
    """
    if sbc_setup is not None and sbc_prior is not None:
        raise ValueError("sbc_prior: give sbc_prior or sbc_setup, not both")
    if sbc_prior is not None and specified:
        raise ValueError("sbc_prior: a PyMC model's prior is its graph; it has no other")
    if sbc_setup is not None:
        return _checked_setup(model, sbc_setup), "sbc_setup"
    if sbc_prior is not None:
        size = _simulation_sizes(model, "sbc_prior")
        if isinstance(sbc_prior, str):
            by_name = {p.name: p for p in model_problems(model)}
            if sbc_prior not in by_name:
                raise ValueError(
                    f"sbc_prior: {model.name} has no validation problem {sbc_prior!r}; "
                    f"known: {', '.join(by_name)}"
                )
            prior, source = by_name[sbc_prior].prior, f"the prior of {sbc_prior}"
        elif isinstance(sbc_prior, model.Prior):
            prior, source = sbc_prior, "sbc_prior"
        else:
            raise ValueError(
                f"sbc_prior: expected a validation problem's name or a {model.name} Prior, "
                f"got {sbc_prior!r:.80}"
            )
        if not _simulable(model, prior, size):
            raise ValueError(
                f"sbc_prior: cannot simulate from {source} ({prior!r:.80}): SBC needs a "
                "proper prior"
            )
        return (prior, size), source
    if chosen is not None and not specified and model.simulation_setup is not None:
        priors = {repr(problem.prior): problem.prior for problem in problems}
        default_prior, size = model.simulation_setup()
        if len(priors) == 1 and repr(default_prior) not in priors:
            (prior,) = priors.values()
            if _simulable(model, prior, dict(size)):
                names = ", ".join(problem.name for problem in problems)
                return (prior, dict(size)), f"the prior of {names}"
    return None, "the model's simulation prior"


def validate(
    model,
    sampler: Callable | None = None,
    *,
    kernel: Kernel | None = None,
    reference: Callable | None = None,
    engine: str = ENGINES[0],
    fault: str | None = None,
    checks: tuple[str, ...] | None = None,
    draws: int = DRAWS,
    chains: int = CHAINS,
    simulations: int = SIMULATIONS,
    sbc_draws: int = SBC_DRAWS,
    sbc_chains: int = SBC_CHAINS,
    sbc_setup: tuple | None = None,
    sbc_prior=None,
    geweke_iterations: int | None = None,
    problems: list | None = None,
    seed: int = 0,
    alpha: float = ALPHA,
    workers: int | None = None,
    scheduler: str | None = None,
    timeout: float | None = FIT_TIMEOUT,
    store=None,
    on_simulation: Callable[[int, int], None] | None = None,
    status: Callable[[str], None] | None = None,
) -> ValidationResult:
    """Validate a sampler for a zoo model or for a model of your own written in PyMC.

    Parameters
    ----------
    model : str, Model, pymc.Model, list of (str, pymc.Model), or callable
        A zoo model (its name or the :class:`Model`); or your own PyMC model with the
        data to check on in its observed variables, several named data sets of it, a
        function returning either, or such a function's location
        ``"package.module:function"``.
    sampler : callable, optional
        For a zoo model, ``sampler(data, prior, *, draws, chains, seed)``; for a PyMC
        model, ``sampler(data, *, draws, chains, seed)`` with ``data`` a dict of the
        observed variables and ``pm.Data`` containers by name. It returns a DataTree,
        Dataset or dict of ``(chain, draw, ...)`` arrays of every free variable under
        its name (constrained space). Default: the zoo's own ``engine`` (with ``kernel``
        or ``fault`` if given).
    kernel : Kernel, optional
        A kernel with ``init``, ``step``, ``draw``: sampled by the zoo's driver, and
        checked by Geweke's test and the one-sweep invariance check as well. For a PyMC
        model: ``init(data, rng)``, ``step(state, data, rng)``, ``draw(state, data,
        rng)``, the state a dict of every free variable.
    reference : callable, optional
        For a PyMC model: ``reference(data) -> zoo.Reference`` (one ``zoo.Marginal`` per
        free variable), the exact posterior when the zoo cannot derive it from the graph
        (it does for conjugate pairs: README, "Validate a sampler for your own model").
    engine : {"gibbs", "pymc"}
        The zoo engine used when ``sampler`` is not given.
    fault : str, optional
        One of the model's catalogued wrong kernels (``zoo list --faults``): the
        negative controls behind the measured power.
    checks : tuple of str, optional
        Subset of ``exact``, ``nuts``, ``sbc``, ``geweke``, ``invariance`` (default: all
        that apply: the last two need a kernel; ``nuts`` runs by default on a PyMC model
        only, ``exact`` there only when a reference exists).
    draws, chains : int
        Per fit of the exact check.
    simulations, sbc_draws, sbc_chains : int
        SBC: number of simulated data sets, and draws and chains per fit.
    sbc_setup : (prior, size), optional
        The proper prior and ``simulate`` sizes for SBC and the kernel checks.
    sbc_prior : str or Prior, optional
        The prior SBC and the kernel checks draw from, with the model's simulation
        sizes: a validation problem's name (``--sbc-prior``) or a Prior. Default: the
        one prior shared by the ``problems`` chosen, when it is proper; else
        ``model.simulation_setup()``. A sampler written for one kind of prior only (say
        fixed hyperparameters) is validated under that kind by choosing its problems.
    geweke_iterations : int, optional
        Steps per chain of Geweke's test (default 10,000): raise it when a test function
        is not judged for want of ESS (the finding says how many would do).
    problems : list of (name, data, prior) or of str, optional
        Data sets of the exact check: the model's ``validation_problems`` (default), a
        selection of them by name, or your own (with exact references).
    seed : int
        Root seed: the whole battery is reproducible from it (each check draws from its
        own streams, :mod:`zoo.core.streams`).
    alpha : float
        Family-wise false-alarm rate of the battery, split equally over the checks run
        (Bonferroni); each check splits its share further (Holm within a check).
    workers, scheduler, timeout :
        Where fits run and how long one may take; see :class:`zoo.sampling.parallel.FitPool`.
    store : path, optional
        JSON-lines file for SBC results: written as they arrive, and read back by a run
        with the same settings, which then runs only the missing simulations.
    on_simulation : callable, optional
        ``on_simulation(done, total)`` after each SBC simulation (progress display).
    status : callable, optional
        Called with a short message as each check starts.

    Returns
    -------
    ValidationResult

    Raises
    ------
    ValueError
        Naming the argument, for any bad argument, before any fit.
    """
    specified = _is_specified(model)
    if specified:
        if fault is not None:
            raise ValueError("fault: only the zoo's own models have catalogued faults")
        if sampler is not None and not callable(sampler):
            raise ValueError(f"sampler: must be callable, got {type(sampler).__name__}")
        if sampler is not None and kernel is not None:
            raise ValueError("sampler: give a sampler or a kernel, not both")
        model = specified_model(model, kernel=kernel, reference=reference)
        kernel = model.kernel
        sampler = DataOnlySampler(sampler) if sampler is not None else None
        if sampler is None and kernel is None and engine == ENGINES[0]:
            raise ValueError(
                "sampler: a PyMC model has no Gibbs kernel of the zoo's; give sampler= or "
                "kernel= (--sampler / --kernel), or engine='pymc' to validate NUTS itself"
            )
    else:
        if reference is not None:
            raise ValueError(
                "reference: only for a PyMC model; a zoo model has its own exact posterior"
            )
        model = get(model)
    alpha = as_probability("alpha", alpha)
    counts = {
        name: as_int(name, value, minimum=1)
        for name, value in (
            ("draws", draws),
            ("chains", chains),
            ("simulations", simulations),
            ("sbc_draws", sbc_draws),
            ("sbc_chains", sbc_chains),
        )
    }
    require_draws_fit_memory("draws", counts["draws"], counts["chains"])
    require_draws_fit_memory("sbc_draws", counts["sbc_draws"], counts["sbc_chains"])
    seed = as_seed("seed", seed)
    # At least the 20 batches of the batch-means standard error, 10 steps each.
    geweke_iterations = as_int(
        "geweke_iterations", geweke_iterations, minimum=200, allow_none=True
    )
    tested = SamplerUnderTest(model, engine, kernel, fault, sampler)
    chosen_problems = problems
    problems = tuple(choose_problems(model, problems))
    setup, sbc_source = _sbc_setup(
        model, sbc_setup, sbc_prior, problems, chosen_problems, specified
    )
    # A user's model: its references are derived here, once, when the exact check may
    # run (by default it runs only where they exist).
    wants_exact = checks is None or "exact" in ((checks,) if isinstance(checks, str) else checks)
    references = _references(model, problems) if specified and wants_exact else {}
    chosen = _chosen_checks(tested, checks, specified, references)
    if specified:
        _refuse_what_cannot_run(tested, chosen, problems, references, seed)
    plan = Plan(
        tested=tested,
        problems=problems,
        sbc_setup=setup,
        sbc_source=sbc_source,
        geweke_iterations=geweke_iterations,
        seed=seed,
        store=store,
        on_simulation=on_simulation,
        **counts,
    )
    settings = {
        **counts,
        "seed": seed,
        "timeout": timeout,
        "checks": [c.name for c in chosen],
        "sbc_prior": sbc_source,
    }
    if store is not None and SBC in chosen:
        open_store(plan)  # a store it cannot use is refused before any fit
    result = ValidationResult(model.name, tested.label, alpha, settings=settings)
    if specified and EXACT not in chosen and references:
        # a default run says why the strongest check did not run
        name, missing = next((n, r) for n, r in references.items() if not r.available)
        result.skipped["exact"] = f"no exact reference for data set {name!r}: {missing.reason}"
    share = alpha / len(chosen)
    say = status or (lambda message: None)
    with FitPool(workers=workers, scheduler=scheduler, timeout=timeout) as pool:
        for check in chosen:
            say(f"{model.name}: {check.name}")
            result.checks.append(check.run(plan, pool, share))
    return result


def _is_specified(model) -> bool:
    """True for a user's PyMC model (in any of its forms), False for a zoo model."""
    if isinstance(model, Model):
        return False
    if isinstance(model, str):
        # A registry name has no colon; a builder's location always has one.
        return ":" in model
    return True


def _refuse_what_cannot_run(
    tested: SamplerUnderTest, chosen, problems, references, seed: int
) -> None:
    """For a user's PyMC model, the errors a check would otherwise meet after hours."""
    model = tested.model
    names = [check.name for check in chosen]
    simulating = [n for n in names if n in ("sbc", "geweke", "invariance")]
    reasons = unsimulable(model)
    if simulating and reasons:
        raise ValueError(
            f"{simulating[0]}: cannot simulate from the model's prior: {'; '.join(reasons)}. "
            "Give the variable a proper prior, or leave these checks out "
            "(checks=('exact', 'nuts'))"
        )
    if "exact" in names:
        missing = [name for name in references if name not in _available(references)]
        if missing:
            why = references[missing[0]]
            raise ValueError(
                f"exact: no exact reference for data set {missing[0]!r}: {why.reason}. "
                "Pass reference= (a function returning a zoo.Reference), or leave exact out"
            )
    if tested.sampler is None and tested.kernel_under_test is None:
        return
    # One tiny fit on the first data set: a sampler that does not return the model's
    # free variables, under their names and shapes, is told so now rather than once
    # per fit. What may depend on the data (NaN draws, exceptions) is left to the
    # checks, which report it per fit as for the zoo's models.
    first: Problem = problems[0]
    try:
        tested.fit(first.data, first.prior, draws=2, chains=1, seed=seed)
    except NonFiniteDraws:
        pass
    except SamplerOutputError as error:
        raise ValueError(f"sampler: on data set {first.name!r}, {error}") from None
    except Exception:  # reported by the checks, fit by fit
        pass
