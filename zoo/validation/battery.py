"""``zoo validate`` and ``zoo.validate(...)``: a battery of checks of a sampler, with numbers.

The battery is the table :data:`CHECKS`, each check at its share of one stated
family-wise false-alarm rate (Bonferroni over the checks run):

1. ``exact``: the sampler's draws against the exact posterior on a fixed set of small
   data sets chosen to be sensitive (:mod:`zoo.validation.exact_check`).
2. ``sbc``: simulation-based calibration over data simulated from a proper prior
   (:mod:`zoo.validation.sbc_check`).
3. ``geweke`` and ``invariance`` (when a Gibbs kernel is under test): Geweke's
   joint-distribution test and a one-sweep invariance check of the kernel itself
   (:mod:`zoo.validation.geweke_check`, :mod:`zoo.validation.invariance_check`).

Adding a check is writing its module (a :class:`~zoo.validation.plan.Check`) and one
entry in :data:`CHECKS`. Every fit runs through :class:`zoo.sampling.parallel.FitPool` (a Dask
cluster by default), with a per-fit timeout.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from zoo.core.arguments import as_int, as_probability, as_seed
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
from zoo.validation.exact_check import EXACT
from zoo.validation.geweke_check import GEWEKE
from zoo.validation.invariance_check import INVARIANCE
from zoo.validation.plan import Check, Plan
from zoo.validation.problem_selection import choose_problems
from zoo.validation.results import ValidationResult
from zoo.validation.sampler_under_test import SamplerUnderTest
from zoo.validation.sbc_check import SBC

__all__ = ["CHECKS", "CHECK_NAMES", "validate"]

#: The battery, in the order its checks run.
CHECKS: tuple[Check, ...] = (EXACT, SBC, GEWEKE, INVARIANCE)
#: Their names, as ``checks=`` and ``--checks`` take them.
CHECK_NAMES = tuple(check.name for check in CHECKS)
_BY_NAME = {check.name: check for check in CHECKS}


def _chosen_checks(tested: SamplerUnderTest, checks) -> tuple[Check, ...]:
    """The checks to run: the caller's, or all that apply (kernel checks need a kernel)."""
    model = tested.model
    has_kernel = tested.kernel_under_test is not None
    if checks is None:
        kernel_checkable = has_kernel and model.kernel_checks is not None
        return tuple(c for c in CHECKS if kernel_checkable or not c.needs_kernel)
    names = (checks,) if isinstance(checks, str) else tuple(checks)
    unknown = [name for name in names if name not in _BY_NAME]
    if unknown:
        raise ValueError(f"checks: unknown {unknown}; choose from {CHECK_NAMES}")
    if not names:
        raise ValueError(f"checks: choose at least one of {CHECK_NAMES}")
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


def validate(
    model: str | Model,
    sampler: Callable | None = None,
    *,
    kernel: Kernel | None = None,
    engine: str = ENGINES[0],
    fault: str | None = None,
    checks: tuple[str, ...] | None = None,
    draws: int = DRAWS,
    chains: int = CHAINS,
    simulations: int = SIMULATIONS,
    sbc_draws: int = SBC_DRAWS,
    sbc_chains: int = SBC_CHAINS,
    sbc_setup: tuple | None = None,
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
    """Validate a sampler for a zoo model.

    Parameters
    ----------
    model : str or Model
    sampler : callable, optional
        ``sampler(data, prior, *, draws, chains, seed)`` returning a DataTree, Dataset or
        dict of ``(chain, draw, ...)`` arrays with the model's variable names. Default:
        the zoo's own ``engine`` (with ``kernel`` or ``fault`` if given).
    kernel : Kernel, optional
        A kernel with ``init``, ``step``, ``draw``: sampled by the zoo's driver, and
        checked by Geweke's test and the one-sweep invariance check as well.
    engine : {"gibbs", "pymc"}
        The zoo engine used when ``sampler`` is not given.
    fault : str, optional
        One of the model's catalogued wrong kernels (``zoo list --faults``): the
        negative controls behind the measured power.
    checks : tuple of str, optional
        Subset of ``exact``, ``sbc``, ``geweke``, ``invariance`` (default: all that
        apply: the last two need a kernel).
    draws, chains : int
        Per fit of the exact check.
    simulations, sbc_draws, sbc_chains : int
        SBC: number of simulated data sets, and draws and chains per fit.
    sbc_setup : (prior, size), optional
        The proper prior and ``simulate`` sizes for SBC (default:
        ``model.simulation_setup()``). A sampler written for one kind of prior only
        (say fixed hyperparameters) is validated under that kind with this and
        ``problems``.
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
    seed = as_seed("seed", seed)
    tested = SamplerUnderTest(model, engine, kernel, fault, sampler)
    chosen = _chosen_checks(tested, checks)
    plan = Plan(
        tested=tested,
        problems=tuple(choose_problems(model, problems)),
        sbc_setup=_checked_setup(model, sbc_setup),
        seed=seed,
        store=store,
        on_simulation=on_simulation,
        **counts,
    )
    settings = {**counts, "seed": seed, "timeout": timeout, "checks": [c.name for c in chosen]}
    result = ValidationResult(model.name, tested.label, alpha, settings=settings)
    share = alpha / len(chosen)
    say = status or (lambda message: None)
    with FitPool(workers=workers, scheduler=scheduler, timeout=timeout) as pool:
        for check in chosen:
            say(f"{model.name}: {check.name}")
            result.checks.append(check.run(plan, pool, share))
    return result
