"""``zoo validate`` and ``zoo.validate(...)``: a battery of checks of a sampler, with numbers.

The battery, each check at its share of one stated family-wise false-alarm rate:

1. ``exact``: the sampler's draws against the exact posterior on a fixed set of small
   data sets chosen to be sensitive (the model's ``validation_problems``), by
   :func:`zoo.diagnostics.agreement`.
2. ``sbc``: simulation-based calibration over data simulated from a proper prior
   (:mod:`zoo.diagnostics.sbc`).
3. ``geweke`` and ``invariance`` (when a kernel is given): Geweke's joint-distribution
   test and a one-sweep invariance check of the kernel itself.

Every fit runs through :class:`zoo.parallel.FitPool` (a Dask cluster by default), with a
per-fit timeout. SBC results go to a JSON-lines store as they arrive, so an interrupted
run picks up where it stopped.
"""

from __future__ import annotations

import hashlib
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from zoo.core.contract import Kernel, Model
from zoo.parallel import FitPool, Task
from zoo.registry import _BUILTIN, get
from zoo.samplers import EngineSampler, checked_draws, describe
from zoo.store import ResultStore

__all__ = ["CheckOutcome", "ValidationResult", "validate"]

CHECKS = ("exact", "sbc", "geweke", "invariance")
KERNEL_CHECKS = ("geweke", "invariance")


@dataclass
class CheckOutcome:
    """One check of the battery.

    Attributes
    ----------
    name : str
        ``exact``, ``sbc``, ``geweke`` or ``invariance``.
    verdict : str
        ``pass``, ``fail`` or ``inconclusive``.
    summary : str
        One line saying what was run and, on failure, which quantities failed.
    failing : list of str
        The failing quantities (or problems / fits), most significant first.
    alpha : float
        The false-alarm rate this check was run at.
    details : object
        The full result(s): AgreementResult per problem, SBCResult, GewekeResult...
    """

    name: str
    verdict: str
    summary: str
    failing: list[str]
    alpha: float
    details: object = None
    seconds: float = 0.0

    def to_dict(self) -> dict:
        """JSON-ready form."""
        if isinstance(self.details, dict):
            details = {k: _as_dict(v) for k, v in self.details.items()}
        else:
            details = _as_dict(self.details)
        return {
            "check": self.name,
            "verdict": self.verdict,
            "summary": self.summary,
            "failing": self.failing,
            "alpha": self.alpha,
            "seconds": self.seconds,
            "details": details,
        }


def _as_dict(value):
    if value is None or isinstance(value, str | int | float):
        return value
    return value.to_dict() if hasattr(value, "to_dict") else str(value)


@dataclass
class ValidationResult:
    """Everything ``zoo validate`` found about one sampler."""

    model: str
    sampler: str
    alpha: float
    checks: list[CheckOutcome] = field(default_factory=list)
    settings: dict = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """``pass`` only when every check passes; else ``fail`` or ``inconclusive``."""
        verdicts = {check.verdict for check in self.checks}
        for worst in ("fail", "inconclusive"):
            if worst in verdicts:
                return worst
        return "pass" if self.checks else "inconclusive"

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {
            "model": self.model,
            "sampler": self.sampler,
            "verdict": self.verdict,
            "alpha": self.alpha,
            "settings": self.settings,
            "checks": [check.to_dict() for check in self.checks],
        }

    def __str__(self) -> str:
        lines = [f"{self.model}: {self.sampler}: {self.verdict.upper()} (alpha = {self.alpha:g})"]
        for check in self.checks:
            lines.append(f"  {check.name:<10} {check.verdict:<12} {check.summary}")
        return "\n".join(lines)


def _model_reference(model: Model):
    # Built-in models travel to Dask workers by name (their functions are module-level
    # but closures inside make_kernel are not importable); user models by value.
    return model.name if model.name in _BUILTIN else model


def _source_hash(value) -> str | None:
    """SHA-256 of the file defining ``value``: a resumed run must test the same code."""
    target = value.kernel if isinstance(value, EngineSampler) and value.kernel else value
    if isinstance(value, EngineSampler) and value.kernel is None:
        return None
    try:
        path = inspect.getsourcefile(target if callable(target) else type(target))
    except TypeError:
        path = None
    if path is None and isinstance(target, Kernel):
        path = inspect.getsourcefile(target.step)
    if path is None or not Path(path).exists():
        return None
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def _fit(model_ref, sampler, data, prior, draws: int, chains: int, seed: int):
    model = get(model_ref)
    output = sampler(data, prior, draws=draws, chains=chains, seed=seed)
    return checked_draws(output, model, data, prior, chains=chains, draws=draws)


def _sbc_simulation(model_ref, sampler, index, seed, prior, size, draws, chains):
    from zoo.diagnostics.sbc import simulation_ranks

    return simulation_ranks(
        get(model_ref),
        sampler,
        index,
        seed=seed,
        prior=prior,
        size=size,
        draws=draws,
        chains=chains,
    )


def problems(model: Model) -> list[tuple[str, object, object]]:
    """The model's validation data sets: ``validation_problems`` or its default problem."""
    chosen = getattr(model, "validation_problems", None)
    if chosen is not None:
        return list(chosen())
    data, prior = model.default_problem()
    return [("default", data, prior)]


_REFERENCES: dict[tuple[str, str], object] = {}


def _reference(model: Model, problem: str, data, prior):
    """The exact reference of a validation problem.

    Kept for the process's lifetime for built-in models: their problems are fixed data,
    and the rats' quadrature takes seconds.
    """
    if model.name not in _BUILTIN:
        return model.posterior(data, prior)
    key = (model.name, problem)
    if key not in _REFERENCES:
        _REFERENCES[key] = model.posterior(data, prior)
    return _REFERENCES[key]


def _choose_problems(model: Model, chosen) -> list[tuple[str, object, object]]:
    """The exact check's data sets: all, some by name, or the caller's own (validated)."""
    known = problems(model)
    if chosen is None:
        return known
    if isinstance(chosen, str) or not len(chosen):
        raise ValueError("problems: expected a non-empty list of names or (name, data, prior)")
    out = []
    by_name = {name: (name, data, prior) for name, data, prior in known}
    for item in chosen:
        if isinstance(item, str):
            if item not in by_name:
                raise ValueError(
                    f"problems: {model.name} has no validation problem {item!r}; "
                    f"known: {', '.join(by_name)}"
                )
            out.append(by_name[item])
        elif (
            isinstance(item, tuple)
            and len(item) == 3
            and isinstance(item[1], model.Data)
            and isinstance(item[2], model.Prior)
        ):
            out.append(item)
        else:
            raise ValueError(
                f"problems: each item must be a problem name or a (name, {model.name} Data, "
                f"{model.name} Prior) tuple, got {item!r:.80}"
            )
    return out


def _exact_check(model, sampler, pool, *, draws, chains, seed, alpha, chosen=None) -> CheckOutcome:
    from zoo.diagnostics import agreement

    started = time.perf_counter()
    chosen = problems(model) if chosen is None else chosen
    fit_seeds = np.random.SeedSequence(seed, spawn_key=(0x5EED,)).generate_state(len(chosen))
    tasks = [
        Task(
            f"exact-{name}",
            _fit,
            (_model_reference(model), sampler, data, prior, draws, chains, int(fit_seed)),
        )
        for (name, data, prior), fit_seed in zip(chosen, fit_seeds, strict=True)
    ]
    outcomes = {outcome.key: outcome for outcome in pool.run(tasks)}
    share = alpha / len(chosen)
    results, failing, notes, verdicts = {}, [], [], []
    for name, data, prior in chosen:
        outcome = outcomes[f"exact-{name}"]
        if outcome.status != "ok":
            verdicts.append("fail")
            failing.append(f"{name}: {outcome.status}: {outcome.message}")
            results[name] = f"{outcome.status}: {outcome.message}"
            continue
        reference = _reference(model, name, data, prior)
        if not reference.available:
            notes.append(f"{name}: no exact reference ({reference.reason})")
            continue
        # Identified variables only: with exchangeable labels a correct sampler may sit
        # near any one labeling.
        judged = [n for n in model.comparable_variables(prior) if n in reference.marginals]
        result = agreement(outcome.value, reference, var_names=judged, alpha=share)
        results[name] = result
        verdicts.append({"agree": "pass", "disagree": "fail"}.get(result.verdict, "inconclusive"))
        if result.verdict != "agree":
            rows = sorted(
                result.failing(),
                key=lambda q: (q["verdict"] != "disagree", q["min_p_adjusted"]),
            )
            failing.extend(f"{name}: {q['element']} ({q['verdict']})" for q in rows)
            if not rows:
                failing.append(f"{name}: {result.verdict}")
    if "fail" in verdicts:
        verdict = "fail"
    elif "inconclusive" in verdicts or not verdicts:
        verdict = "inconclusive"
    else:
        verdict = "pass"
    summary = f"{len(chosen)} data set(s) ({', '.join(n for n, _, _ in chosen)})"
    if failing:
        summary += "; " + "; ".join(failing[:5])
    if notes:
        summary += "; " + "; ".join(notes)
    return CheckOutcome(
        "exact", verdict, summary, failing, alpha, results, time.perf_counter() - started
    )


def _sbc_check(
    model,
    sampler,
    pool,
    *,
    simulations,
    draws,
    chains,
    seed,
    alpha,
    store,
    on_simulation,
    setup=None,
) -> CheckOutcome:
    from zoo.diagnostics.sbc import summarise

    started = time.perf_counter()
    if setup is None and model.simulation_setup is None:
        return CheckOutcome(
            "sbc",
            "inconclusive",
            "the model has no simulation_setup (a proper prior)",
            [],
            alpha,
        )
    prior, size = setup if setup is not None else model.simulation_setup()
    settings = {
        "kind": "zoo-sbc",
        "model": model.name,
        "sampler": describe(sampler),
        "sampler_source": _source_hash(sampler),
        "seed": seed,
        "draws": draws,
        "chains": chains,
        "prior": repr(prior),
        "size": {k: v if isinstance(v, int | float | str) else repr(v) for k, v in size.items()},
    }
    results = ResultStore(store, settings)
    model_ref = _model_reference(model)
    tasks = [
        Task(
            f"sbc-{index}",
            _sbc_simulation,
            (model_ref, sampler, index, seed, prior, size, draws, chains),
        )
        for index in range(simulations)
        if f"sbc-{index}" not in results
    ]
    done = simulations - len(tasks)
    if on_simulation is not None:
        on_simulation(done, simulations)
    for outcome in pool.run(tasks):
        index = int(outcome.key.split("-")[1])
        if outcome.status == "ok":
            record = dict(outcome.value)
        else:
            record = {"index": index, "status": outcome.status, "message": outcome.message}
        record["key"] = outcome.key
        results.add(record)
        done += 1
        if on_simulation is not None:
            on_simulation(done, simulations)
    records = [r for r in results.records.values() if r["index"] < simulations]
    result = summarise(records, alpha=alpha, settings=settings)
    result.seconds = time.perf_counter() - started
    return CheckOutcome(
        "sbc",
        result.verdict,
        result.summary(),
        result.failing() or [f"simulation {f['index']}: {f['status']}" for f in result.failures],
        alpha,
        result,
        result.seconds,
    )


def validate(
    model: str | Model,
    sampler: Callable | None = None,
    *,
    kernel: Kernel | None = None,
    engine: str = "gibbs",
    fault: str | None = None,
    checks: tuple[str, ...] | None = None,
    draws: int = 1000,
    chains: int = 4,
    simulations: int = 100,
    sbc_draws: int = 200,
    sbc_chains: int = 2,
    sbc_setup: tuple | None = None,
    problems: list | None = None,
    seed: int = 0,
    alpha: float = 0.01,
    workers: int | None = None,
    scheduler: str | None = None,
    timeout: float | None = 600.0,
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
        Root seed: the whole battery is reproducible from it.
    alpha : float
        Family-wise false-alarm rate of the battery, split equally over the checks run
        (Bonferroni); each check splits its share further (Holm within a check).
    workers, scheduler, timeout :
        Where fits run and how long one may take; see :class:`zoo.parallel.FitPool`.
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
    """
    spec = get(model)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: must lie in (0, 1), got {alpha}")
    for field_name, value, minimum in (
        ("draws", draws, 1),
        ("chains", chains, 1),
        ("simulations", simulations, 1),
        ("sbc_draws", sbc_draws, 1),
        ("sbc_chains", sbc_chains, 1),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ValueError(f"{field_name}: must be an integer >= {minimum}, got {value!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed: must be an integer >= 0, got {seed!r}")
    if sampler is not None and (kernel is not None or fault is not None):
        raise ValueError("sampler: give a sampler, or a kernel / fault, not both")
    if engine not in ("gibbs", "pymc"):
        raise ValueError(f"engine: must be 'gibbs' or 'pymc', got {engine!r}")
    if fault is not None and fault not in spec.faults:
        raise ValueError(
            f"fault: {spec.name} has no fault {fault!r}; known: {', '.join(spec.faults)}"
        )
    if kernel is not None and not all(hasattr(kernel, a) for a in ("init", "step", "draw")):
        raise ValueError("kernel: needs init, step and draw (see zoo.Kernel)")
    if sampler is not None and not callable(sampler):
        raise ValueError(f"sampler: must be callable, got {type(sampler).__name__}")

    # How workers find the kernel under test: catalogued kernels are closures, so they
    # travel by name, a user's kernel object by value (pickled by reference to its module).
    tested_kernel = kernel
    if fault is not None:
        tested_kernel = ("fault", fault)
    elif sampler is None and kernel is None and engine == "gibbs":
        tested_kernel = ("own",)
    if sampler is None:
        sampler = EngineSampler(_model_reference(spec), engine, kernel, fault)

    kernel_checkable = tested_kernel is not None and spec.kernel_checks is not None
    available = ["exact", "sbc"] + (list(KERNEL_CHECKS) if kernel_checkable else [])
    if checks is None:
        checks = tuple(available)
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        raise ValueError(f"checks: unknown {unknown}; choose from {CHECKS}")
    missing_kernel = [c for c in checks if c in KERNEL_CHECKS and tested_kernel is None]
    if missing_kernel:
        raise ValueError(f"checks: {missing_kernel} need a kernel (--kernel)")
    if spec.kernel_checks is None and any(c in KERNEL_CHECKS for c in checks):
        raise ValueError(
            f"checks: {spec.name!r} has no kernel_checks (zoo.KernelChecks), which "
            "geweke and invariance need"
        )
    chosen = _choose_problems(spec, problems)
    share = alpha / len(checks)
    say = status or (lambda message: None)
    settings = {
        "draws": draws,
        "chains": chains,
        "simulations": simulations,
        "sbc_draws": sbc_draws,
        "sbc_chains": sbc_chains,
        "seed": seed,
        "timeout": timeout,
        "checks": list(checks),
    }
    result = ValidationResult(spec.name, describe(sampler), alpha, settings=settings)
    with FitPool(workers=workers, scheduler=scheduler, timeout=timeout) as pool:
        for check in checks:
            say(f"{spec.name}: {check}")
            if check == "exact":
                outcome = _exact_check(
                    spec,
                    sampler,
                    pool,
                    draws=draws,
                    chains=chains,
                    seed=seed,
                    alpha=share,
                    chosen=chosen,
                )
            elif check == "sbc":
                outcome = _sbc_check(
                    spec,
                    sampler,
                    pool,
                    simulations=simulations,
                    draws=sbc_draws,
                    chains=sbc_chains,
                    seed=seed,
                    alpha=share,
                    store=store,
                    on_simulation=on_simulation,
                    setup=sbc_setup,
                )
            else:
                prior = None if sbc_setup is None else sbc_setup[0]
                outcome = _kernel_check(
                    check, spec, tested_kernel, pool, seed=seed, alpha=share, prior=prior
                )
            result.checks.append(outcome)
    return result


def _kernel_check(name, model, kernel_ref, pool, *, seed, alpha, prior=None) -> CheckOutcome:
    """Geweke or one-sweep invariance, run as one task (so the timeout applies).

    ``prior`` (the one SBC draws from, when the caller chose it) replaces the prior of
    the model's kernel-check setup; the design stays the setup's.
    """
    started = time.perf_counter()
    args = (name, _model_reference(model), kernel_ref, seed, alpha, prior)
    (outcome,) = pool.run([Task(name, _run_kernel_check, args)])
    if outcome.status != "ok":
        hint = ""
        if outcome.status == "error":
            hint = (
                " (Geweke and invariance hand the kernel the model's own state type, "
                "built from exact latents: see MODEL.kernel_checks)"
            )
        return CheckOutcome(
            name,
            "fail",
            f"{outcome.status}: {outcome.message}{hint}",
            [name],
            alpha,
            seconds=time.perf_counter() - started,
        )
    result = outcome.value
    verdict = result.verdict
    failing = list(result.failing())
    summary = str(result).splitlines()[0]
    return CheckOutcome(
        name, verdict, summary, failing, alpha, result, time.perf_counter() - started
    )


def _run_kernel_check(name, model_ref, kernel_ref, seed, alpha, prior=None):
    model = get(model_ref)
    setup = None
    if prior is not None and model.kernel_checks is not None:
        setup = (prior, model.kernel_checks.setup()[1])
    if kernel_ref == ("own",):
        kernel = model.kernel
    elif isinstance(kernel_ref, tuple) and kernel_ref[:1] == ("fault",):
        kernel = model.faults[kernel_ref[1]]
    else:
        kernel = kernel_ref
    if name == "geweke":
        from zoo.diagnostics.geweke import geweke

        return geweke(model, kernel, seed=seed, alpha=alpha, setup=setup)
    from zoo.diagnostics.invariance import invariance

    return invariance(model, kernel, seed=seed, alpha=alpha, setup=setup)
