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

Adding a check is writing its diagnostic, its module (a
:class:`~zoo.validation.plan.Check`: name, title, the models it runs on by default,
whether it simulates, its random stream, its budget) and one entry in :data:`CHECKS`:
the command line's options, ``budgets=``, the plan and the report are read from the
table. Every fit runs through :class:`zoo.sampling.parallel.FitPool` (a Dask cluster
by default), with a per-fit timeout.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Mapping

import numpy as np

from zoo.core import streams
from zoo.core.arguments import as_probability, as_seed, require_distinct
from zoo.core.contract import Kernel, Model
from zoo.core.defaults import ALPHA, ENGINES, FIT_TIMEOUT
from zoo.registry import get
from zoo.sampling.parallel import FitPool, Task, default_workers
from zoo.sampling.sampler_output import NonFiniteDraws, SamplerOutputError
from zoo.specification.adapter import (
    DataOnlySampler,
    specified_model,
    unsimulable,
)
from zoo.validation.estimate import plan_line, timed_fits
from zoo.validation.exact_check import EXACT
from zoo.validation.geweke_check import GEWEKE
from zoo.validation.invariance_check import INVARIANCE
from zoo.validation.nuts_check import NUTS
from zoo.validation.plan import Check, Plan, resolve_budgets
from zoo.validation.posterior_sbc_check import POSTERIOR_SBC
from zoo.validation.problem_selection import Problem, choose_problems, model_problems
from zoo.validation.reference_cache import exact_reference
from zoo.validation.results import CheckOutcome, ValidationResult
from zoo.validation.sampler_under_test import SamplerUnderTest, describe
from zoo.validation.sbc_check import SBC

__all__ = ["CHECKS", "CHECK_NAMES", "DEPRECATED_BUDGET_KEYWORDS", "ZOO_DEFAULT_CHECKS", "validate"]

#: The battery, in the order its checks run.
CHECKS: tuple[Check, ...] = (EXACT, NUTS, SBC, POSTERIOR_SBC, GEWEKE, INVARIANCE)
#: Their names, as ``checks=`` and ``--checks`` take them.
CHECK_NAMES = tuple(check.name for check in CHECKS)
#: Checks run by default on a zoo model.
ZOO_DEFAULT_CHECKS = tuple(check.name for check in CHECKS if "zoo" in check.default_on)

#: :func:`validate`'s budget keywords of 0.2, before ``budgets=``, kept for one release:
#: each sets the settings whose command-line option it names (``draws``: ``--draws``, the
#: exact and nuts checks' draws).
DEPRECATED_BUDGET_KEYWORDS = (
    "draws",
    "chains",
    "simulations",
    "sbc_draws",
    "sbc_chains",
    "geweke_iterations",
)


def _budgets_with_deprecated(budgets, given: dict):
    """``budgets`` with the deprecated keywords' values added, each with its warning."""
    unknown = [key for key in given if key not in DEPRECATED_BUDGET_KEYWORDS]
    if unknown:
        raise TypeError(f"validate() got an unexpected keyword argument {unknown[0]!r}")
    # geweke_iterations=None meant its default.
    given = {key: value for key, value in given.items() if value is not None}
    if not given:
        return budgets
    if budgets is not None and not isinstance(budgets, Mapping):
        return budgets  # refused, naming budgets, by resolve_budgets
    merged = {name: dict(settings) for name, settings in (budgets or {}).items()}
    for keyword, value in given.items():
        option = keyword.replace("_", "-")
        targets = [
            (check.name, setting.name)
            for check in CHECKS
            for setting in check.budget
            if check.option(setting) == option
        ]
        replacement = {check: {setting: value} for check, setting in targets}
        warnings.warn(
            f"validate({keyword}=...) is deprecated since 0.3 and will be removed in 0.4; use "
            f"budgets={replacement!r}",
            DeprecationWarning,
            stacklevel=3,
        )
        for check, setting in targets:
            if not isinstance(merged.get(check, {}), dict):
                continue  # refused, naming the entry, by resolve_budgets
            if setting in merged.get(check, {}):
                raise ValueError(
                    f"{keyword}: budgets[{check!r}][{setting!r}] sets it too; give budgets= only"
                )
            merged.setdefault(check, {})[setting] = value
    return merged


def _named_checks(checks, table) -> tuple[Check, ...] | None:
    """The caller's ``checks`` (names of the table's checks, or Check objects), or None."""
    if checks is None:
        return None
    by_name = {check.name: check for check in table}
    given = (checks,) if isinstance(checks, str | Check) else tuple(checks)
    if not given:
        raise ValueError(f"checks: choose at least one of {tuple(by_name)}")
    unknown = [c for c in given if not isinstance(c, Check) and c not in by_name]
    if unknown:
        raise ValueError(f"checks: unknown {unknown}; choose from {tuple(by_name)}")
    chosen = tuple(c if isinstance(c, Check) else by_name[c] for c in given)
    # Run twice, a check would take two shares of alpha and halve every other's.
    require_distinct("checks", [c.name for c in chosen], "; each check runs once")
    return chosen


def _own_checks(checks) -> tuple[Check, ...]:
    """The Check objects among the caller's ``checks``."""
    given = (checks,) if isinstance(checks, str | Check) or checks is None else tuple(checks)
    return tuple(c for c in given if isinstance(c, Check) and c not in CHECKS)


def _table(extra: tuple[Check, ...]) -> tuple[Check, ...]:
    """The battery's table with the caller's own Check objects (``checks=``) after it."""
    clash = [c.name for c in extra if c.name in CHECK_NAMES]
    if clash:
        raise ValueError(f"checks: a Check named {clash[0]!r} is in the battery already")
    table = CHECKS + extra
    _require_own_streams(table)
    return table


def _require_own_streams(table) -> None:
    """Raise unless every check draws from a stream of its own, and no engine's.

    Two checks on one stream would draw the same numbers; the streams are told apart by
    the CRC-32 of the purpose (:func:`zoo.core.streams.key`), so those must differ too.
    """
    owners = {streams.key(purpose): f"the {purpose} engine stream" for purpose in streams.PURPOSES}
    for check in table:
        spawn = streams.key(check.purpose)
        if spawn in owners:
            raise ValueError(
                f"checks: {check.name}'s purpose {check.purpose!r} is the stream of "
                f"{owners[spawn]}; every check needs its own"
            )
        owners[spawn] = f"check {check.name}"


def _default_checks(tested: SamplerUnderTest, specified: bool, references) -> tuple[Check, ...]:
    """The checks of the table that apply to ``tested``, read from their entries.

    A check runs on the kinds of model its entry names; one that needs a kernel only
    with a kernel under test. On a user's PyMC model a check that judges against the
    exact posterior runs when every data set has a reference (conjugate or given), and
    a check against an engine (nuts) when one does not: NUTS could only approximate an
    exact reference, so it then runs only on request. A check against an engine never
    runs by default when that engine is what is under test.
    """
    model = tested.model
    kernel_checkable = tested.kernel_under_test is not None and model.kernel_checks is not None
    kind = "pymc" if specified else "zoo"
    exact = bool(references) and len(_available(references)) == len(references)
    chosen = []
    for check in CHECKS:
        if kind not in check.default_on:
            continue
        if check.needs_kernel and not kernel_checkable:
            continue
        if specified and check.needs_reference and not exact:
            continue
        if specified and check.against_engine is not None and exact:
            continue
        if (
            check.against_engine is not None
            and tested.sampler is None
            and tested.engine == check.against_engine
        ):
            continue
        chosen.append(check)
    return tuple(chosen)


def _references(model: Model, problems) -> dict:
    """Each problem's exact reference (or NoReference), by problem name: derived once."""
    return {problem.name: exact_reference(model, problem) for problem in problems}


def _available(references) -> dict:
    """The references that exist."""
    return {n: r for n, r in references.items() if getattr(r, "available", True)}


def _chosen_checks(
    tested: SamplerUnderTest, named: tuple[Check, ...] | None, specified, references
) -> tuple[Check, ...]:
    """The checks to run: the caller's, or all that apply."""
    model = tested.model
    if named is None:
        return _default_checks(tested, specified, references)
    on_kernel = [check.name for check in named if check.needs_kernel]
    if on_kernel and tested.kernel_under_test is None:
        raise ValueError(f"checks: {on_kernel} need a kernel (--kernel)")
    if on_kernel and model.kernel_checks is None:
        raise ValueError(
            f"checks: {model.name!r} has no kernel_checks (zoo.KernelChecks), which "
            f"{' and '.join(on_kernel)} need"
        )
    return named


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
    exchangeable=None,
    engine: str = ENGINES[0],
    fault: str | None = None,
    checks: tuple | None = None,
    budgets: Mapping[str, Mapping[str, int]] | None = None,
    budget: str = "default",
    sbc_setup: tuple | None = None,
    sbc_prior=None,
    problems: list | None = None,
    seed: int = 0,
    alpha: float = ALPHA,
    workers: int | None = None,
    scheduler: str | None = None,
    timeout: float | None = FIT_TIMEOUT,
    store=None,
    on_simulation: Callable[[int, int], None] | None = None,
    status: Callable[[str], None] | None = None,
    on_plan: Callable[[str], None] | None = None,
    on_check: Callable[[str, CheckOutcome | None], None] | None = None,
    label: str | None = None,
    stop_at_failure: bool = False,
    **deprecated,
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
        (it does for conjugate pairs: docs/validating.md, "For a model of your own").
    exchangeable : list of str or Exchangeable, or False, optional
        For a PyMC model: mixtures whose components are exchangeable where the graph
        cannot show it, each ``"PARAMS[:LABEL[:WEIGHTS]]"`` (``"mu,sigma:z:w"``) or a
        :class:`~zoo.diagnostics.label_invariants.Exchangeable`; every check then
        compares label-invariant quantities (docs/validating.md, "Mixtures and label
        switching"). The mixtures the graph shows are found without it; False turns
        that off.
    engine : {"gibbs", "pymc"}
        The zoo engine used when ``sampler`` is not given.
    fault : str, optional
        One of the model's catalogued wrong kernels (``zoo list --faults``): the
        negative controls behind the measured power.
    checks : tuple of str or Check, optional
        Names of the battery's checks (:data:`CHECKS`: ``exact``, ``nuts``, ``sbc``,
        ``geweke``, ``invariance``), or :class:`~zoo.validation.plan.Check` objects of
        your own (default: every check of the table that applies, as its entry says:
        ``geweke`` and ``invariance`` need a kernel; on a PyMC model ``exact`` when every
        data set has a reference, else ``nuts``; on a zoo model ``nuts`` only on request).
    budgets : dict, optional
        Per check, the budget settings to change from their defaults:
        ``budgets={"sbc": {"simulations": 200}, "exact": {"draws": 2000}}``. Each
        check's settings and their defaults are in its entry of :data:`CHECKS`
        (``Check.budget``; ``zoo validate --help`` lists them): today ``exact`` and
        ``nuts``: ``draws``, ``chains`` per fit (1000, 4); ``sbc``: ``simulations``
        (100), ``draws`` (200), ``chains`` (2) per fit; ``geweke``: ``iterations``
        (10,000 steps per chain at the first stage) and ``max_iterations`` (20,000: the
        chains double up to it while a test function is not judged for want of ESS and
        the length that would judge it is within reach; raise it when the finding says
        more would do).
    budget : {"quick", "default", "thorough"}
        A budget preset (:data:`zoo.core.defaults.BUDGET_PRESETS`, ``--budget``): check
        settings applied where ``budgets`` does not set them. ``quick`` spends a
        quarter of the default evidence, ``thorough`` four times it; docs/validating.md
        states what each costs. ``zoo validate --budget quick`` runs its fits in one
        process; here pass ``workers=0`` for the same (``workers`` is not tied to the
        budget, so the default here still starts one worker per core, which costs a
        quick run more than its fits: ``python -m bench.preset_breakdown``).
    sbc_setup : (prior, size), optional
        The proper prior and ``simulate`` sizes for SBC and the kernel checks.
    sbc_prior : str or Prior, optional
        The prior SBC and the kernel checks draw from, with the model's simulation
        sizes: a validation problem's name (``--sbc-prior``) or a Prior. Default: the
        one prior shared by the ``problems`` chosen, when it is proper; else
        ``model.simulation_setup()``. A sampler written for one kind of prior only (say
        fixed hyperparameters) is validated under that kind by choosing its problems.
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
    on_plan : callable, optional
        Called once, before the first check, with the plan line: the checks, their
        budgets and an estimate of the time of each, from two timed fits of the sampler
        under test on the first data set (:mod:`zoo.validation.estimate`; asking for it
        costs those fits).
    on_check : callable, optional
        ``on_check(name, None)`` as a check starts and ``on_check(name, outcome)`` (its
        :class:`~zoo.validation.results.CheckOutcome`) as it ends.
    label : str, optional
        How reports name ``sampler`` or ``kernel`` (``zoo validate`` passes the
        ``--sampler`` or ``--kernel`` location). Default: ``module:name`` where it is
        bound at its module's top level.
    stop_at_failure : bool
        Run no check after one that fails: the verdict is FAIL whatever the rest would
        say, so a gross bug costs one check rather than the battery (the sequential
        assertion, :func:`zoo.testing.assert_valid`, uses it). The checks not run are
        in ``result.skipped`` with the reason. Default False: every check runs and
        the report shows them all.
    draws, chains, simulations, sbc_draws, sbc_chains, geweke_iterations : int
        Deprecated in 0.3, removed in 0.4: the budget keywords before ``budgets=``, each
        setting what its command-line option sets (``draws``: the exact and nuts
        checks' draws; ``sbc_draws``: SBC's). A DeprecationWarning names the
        replacement.

    Returns
    -------
    ValidationResult

    Raises
    ------
    ValueError
        Naming the argument, for any bad argument, before any fit.
    """
    budgets = _budgets_with_deprecated(budgets, deprecated)
    if label is not None and not isinstance(label, str):
        raise ValueError(f"label: must be a str, got {type(label).__name__}")
    if not isinstance(stop_at_failure, bool):
        raise ValueError(f"stop_at_failure: must be True or False, got {stop_at_failure!r}")
    # Named before a PyMC model's adapters wrap the user's objects.
    users = sampler if sampler is not None else kernel
    name = label if label is not None or users is None else describe(users)
    specified = _is_specified(model)
    if specified:
        if fault is not None:
            raise ValueError("fault: only the zoo's own models have catalogued faults")
        if sampler is not None and not callable(sampler):
            raise ValueError(f"sampler: must be callable, got {type(sampler).__name__}")
        if sampler is not None and kernel is not None:
            raise ValueError("sampler: give a sampler or a kernel, not both")
        model = specified_model(
            model, kernel=kernel, reference=reference, exchangeable=exchangeable
        )
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
        if exchangeable is not None:
            raise ValueError(
                "exchangeable: only for a PyMC model; a zoo model states its own symmetry"
            )
        model = get(model)
    alpha = as_probability("alpha", alpha)
    table = _table(_own_checks(checks))
    named = _named_checks(checks, table)
    resolved = resolve_budgets(table, budgets, budget)
    seed = as_seed("seed", seed)
    tested = SamplerUnderTest(model, engine, kernel, fault, sampler, name)
    chosen_problems = problems
    problems = tuple(choose_problems(model, problems))
    setup, sbc_source = _sbc_setup(
        model, sbc_setup, sbc_prior, problems, chosen_problems, specified
    )
    # A user's model: its references are derived here, once, when a check that judges
    # against them may run (by default it runs only where they exist).
    candidates = CHECKS if named is None else named
    wants_reference = any(check.needs_reference for check in candidates)
    references = _references(model, problems) if specified and wants_reference else {}
    chosen = _chosen_checks(tested, named, specified, references)
    if specified:
        _refuse_what_cannot_run(tested, chosen, problems, references, seed)
    plan = Plan(
        tested=tested,
        problems=problems,
        seed=seed,
        budget={},
        sbc_setup=setup,
        sbc_source=sbc_source,
        store=store,
        on_simulation=on_simulation,
    )
    # Each check receives the plan with its own budget.
    plans = {c.name: dataclasses.replace(plan, budget=resolved[c.name]) for c in chosen}
    settings = {
        "budget": budget,
        "budgets": {c.name: resolved[c.name] for c in chosen},
        "seed": seed,
        "timeout": timeout,
        "checks": [c.name for c in chosen],
        "sbc_prior": sbc_source,
    }
    for check in chosen:
        if check.preflight is not None:
            check.preflight(plans[check.name])
    result = ValidationResult(model.name, tested.label, alpha, settings=settings)
    if specified and EXACT not in chosen and references:
        # a default run says why the strongest check did not run
        name, missing = next((n, r) for n, r in references.items() if not r.available)
        result.skipped["exact"] = f"no exact reference for data set {name!r}: {missing.reason}"
    share = alpha / len(chosen)
    say = status or (lambda message: None)
    with FitPool(workers=workers, scheduler=scheduler, timeout=timeout) as pool:
        if specified:
            _refuse_bad_output(tested, problems[0], pool, seed)
        if on_plan is not None:
            simulation = setup or (model.simulation_setup() if model.simulation_setup else None)
            cost = _fit_cost(tested, problems[0], simulation, pool, seed)
            workers = 0 if pool.in_process else pool.workers or default_workers()
            on_plan(plan_line(chosen, settings["budgets"], len(problems), cost, workers))
        told = on_check or (lambda name, outcome: None)
        for index, check in enumerate(chosen):
            say(f"{model.name}: {check.name}")
            told(check.name, None)
            outcome = check.run(plans[check.name], pool, share)
            result.checks.append(outcome)
            told(check.name, outcome)
            if stop_at_failure and outcome.verdict == "fail":
                for rest in chosen[index + 1 :]:
                    result.skipped[rest.name] = f"not run: {check.name} failed first"
                break
        result.warnings = dict(pool.warnings)
    return result


def _is_specified(model) -> bool:
    """True for a user's PyMC model (in any of its forms), False for a zoo model."""
    if isinstance(model, Model):
        return False
    if isinstance(model, str):
        # A registry name has no colon; a builder's location always has one.
        return ":" in model
    return True


def _refuse_bad_output(tested: SamplerUnderTest, first: Problem, pool: FitPool, seed: int):
    """One tiny fit of a user's sampler on the first data set, in the fit pool.

    A sampler that does not return the model's free variables, under their names and
    shapes, is told so now rather than once per fit. The fit runs where every fit runs
    (a worker process, unless ``workers=0`` asked for this one): the zoo never runs a
    user's code in its own process unasked. What may depend on the data (NaN draws,
    exceptions) is left to the checks, which report it per fit.
    """
    if tested.sampler is None and tested.kernel_under_test is None:
        return
    task = Task("output-check", _output_problem, (tested, first.data, first.prior, seed))
    (outcome,) = pool.run([task])
    if outcome.status == "ok" and outcome.value is not None:
        raise ValueError(f"sampler: on data set {first.name!r}, {outcome.value}")


def _fit_cost(tested: SamplerUnderTest, first: Problem, simulation, pool: FitPool, seed: int):
    """The sampler's cost per fit and per draw on the first data set, or None if it failed.

    Timed in the fit pool, where the checks' fits run (:func:`~zoo.validation.estimate.
    timed_fits`); a sampler that raises or times out here is left to the checks, which
    report it per fit.
    """
    task = Task("timing", timed_fits, (tested, first.data, first.prior, seed, simulation))
    (outcome,) = pool.run([task])
    return outcome.value if outcome.status == "ok" else None


def _output_problem(tested: SamplerUnderTest, data, prior, seed: int) -> str | None:
    """What is wrong with the sampler's output on a two-draw fit (None: nothing)."""
    try:
        tested.fit(data, prior, draws=2, chains=1, seed=seed)
    except NonFiniteDraws:
        return None
    except SamplerOutputError as error:
        return str(error)
    return None


def _refuse_what_cannot_run(
    tested: SamplerUnderTest, chosen, problems, references, seed: int
) -> None:
    """For a user's PyMC model, the errors a check would otherwise meet after hours."""
    model = tested.model
    simulating = [check.name for check in chosen if check.simulates]
    reasons = unsimulable(model)
    if simulating and reasons:
        raise ValueError(
            f"{simulating[0]}: cannot simulate from the model's prior: {'; '.join(reasons)}. "
            "Give the variable a proper prior, or leave these checks out "
            f"(checks={tuple(c.name for c in CHECKS if not c.simulates)!r})"
        )
    judging = [check.name for check in chosen if check.needs_reference]
    if judging:
        missing = [name for name in references if name not in _available(references)]
        if missing:
            why = references[missing[0]]
            raise ValueError(
                f"{judging[0]}: no exact reference for data set {missing[0]!r}: {why.reason}. "
                "Pass reference= (a function returning a zoo.Reference), or leave "
                f"{' and '.join(judging)} out"
            )
