"""Running a check of the kernel itself (Geweke's test, invariance) as tasks of the pool.

Both diagnostics draw each of their pieces from a stream item of its own (a Geweke
chain or its marginal side, a range of invariance replicates), so the pieces run as
separate tasks, on as many workers as there are, with the values of one run in one
process; the per-fit timeout bounds each piece like any fit. :func:`kernel_check`
builds such a check from the pieces' function and the diagnostic's combining step.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from zoo.core.contract import Kernel
from zoo.diagnostics.findings import COULD_NOT_JUDGE, Finding
from zoo.diagnostics.sbc import SimulationFailed
from zoo.sampling.parallel import FitPool, Task
from zoo.validation.plan import Check, Plan, Setting
from zoo.validation.results import CheckOutcome, summarise
from zoo.validation.sampler_under_test import SamplerUnderTest, describe

__all__ = ["KernelRaised", "check_setup", "describe_state", "kernel_check", "naming_errors"]

# Said when a user's kernel raises under these checks: the usual cause is a kernel
# written for a state of its own making.
_STATE_HINT = (
    " (Geweke and invariance hand the kernel the model's own state type, built from exact "
    "draws of its latents; for a PyMC model a dict of every free variable)"
)


_SIMULATION_FAILED = f"{SimulationFailed.__name__}: "


class KernelRaised(Exception):
    """A user's kernel function raised: which one, and the state it was given."""


def describe_state(state) -> str:
    """Names, shapes and dtypes of a kernel's state: ``{mu: float64 (), eta: float64 (8,)}``.

    A dict by its keys, a dataclass or named tuple by its fields, anything else by its
    type.
    """
    if isinstance(state, Mapping):
        parts, kind = state.items(), ""
    elif dataclasses.is_dataclass(state) and not isinstance(state, type):
        parts = ((f.name, getattr(state, f.name)) for f in dataclasses.fields(state))
        kind = type(state).__qualname__
    elif isinstance(state, tuple) and hasattr(state, "_fields"):
        parts, kind = zip(state._fields, state, strict=True), type(state).__qualname__
    else:
        return f"a {type(state).__module__}.{type(state).__qualname__}"

    def one(value) -> str:
        if isinstance(value, np.ndarray | np.generic):
            return f"{value.dtype} {value.shape}"
        if isinstance(value, bool | int | float | complex):
            return type(value).__name__
        shape = np.shape(value) if isinstance(value, list | tuple) else None
        return type(value).__name__ + (f" of shape {shape}" if shape else "")

    return f"{kind}{{{', '.join(f'{name}: {one(value)}' for name, value in parts)}}}"


@dataclass(frozen=True)
class _Named:
    """One of a user's kernel functions, whose errors name it and the state it got."""

    function: Callable
    role: str
    kernel: str

    def __call__(self, *args):
        try:
            return self.function(*args)
        except Exception as error:
            given = "" if self.role == "init" else f", given the state {describe_state(args[0])}"
            raise KernelRaised(
                f"{self.kernel}: its {self.role} {describe(self.function)} raised "
                f"{type(error).__name__}: {error}{given}"
            ) from error


def naming_errors(tested: SamplerUnderTest) -> SamplerUnderTest:
    """``tested`` with a user's kernel whose errors name its function and the state.

    The zoo's own kernels and faults are left as they are: their errors are the zoo's.
    """
    kernel = tested.kernel
    if kernel is None:
        return tested
    name = tested.name or describe(kernel)
    parts = {role: _Named(getattr(kernel, role), role, name) for role in ("init", "step", "draw")}
    return dataclasses.replace(tested, kernel=Kernel(**parts, describe=kernel.describe))


def check_setup(tested: SamplerUnderTest, prior):
    """The kernel checks' (prior, design): SBC's prior when the caller chose one.

    ``prior`` replaces the prior of the model's kernel-check setup; the design stays
    the setup's.
    """
    return None if prior is None else (prior, tested.model.kernel_checks.setup()[1])


def _failed(name: str, outcome, alpha: float, started: float) -> CheckOutcome:
    """The check's outcome when one of its tasks raised, timed out or lost its worker.

    A task whose model could not simulate its data (:class:`SimulationFailed`) could
    not judge: the model's simulation is not the kernel's failure (the verdict
    policy, ``docs/design.md``). Anything else the kernel's step raised is a failure.
    """
    seconds = time.perf_counter() - started
    # An outcome carries the error as text ("Type: message"), from a worker too.
    if outcome.status == "error" and outcome.message.startswith(_SIMULATION_FAILED):
        why = outcome.message[len(_SIMULATION_FAILED) :]
        cure = (
            "a prior whose prior-predictive data stay inside the data's support and type "
            "(counts that fit in int64, finite values), or a model whose simulate does"
        )
        finding = Finding("model", COULD_NOT_JUDGE, gate=why, cure=cure)
        return CheckOutcome(
            name, COULD_NOT_JUDGE, f"could not judge: {why}", alpha, [finding], seconds=seconds
        )
    hint = _STATE_HINT if outcome.status == "error" else ""
    finding = Finding("kernel", "fail", message=f"{outcome.status}: {outcome.message}{hint}")
    return CheckOutcome(name, "fail", finding.describe(), alpha, [finding], seconds=seconds)


def _judged(name: str, result, alpha: float, started: float) -> CheckOutcome:
    """The check's outcome from its :class:`~zoo.diagnostics.kernel_result.KernelCheckResult`."""
    head = f"{result.table.sizes['test']} test functions, {result.table.attrs['settings']}"
    findings = result.findings()
    return CheckOutcome(
        name,
        result.verdict,
        summarise(head, findings),
        alpha,
        findings,
        result,
        time.perf_counter() - started,
        head,
    )


def kernel_check(
    name: str,
    title: str,
    pieces: Callable[[Plan], Sequence[tuple[str, Callable, tuple]]],
    combine: Callable[..., object],
    *,
    purpose: str,
    description: str = "",
    budget: tuple[Setting, ...] = (),
    rule=None,
    again: Callable[[Plan, object], Plan | None] | None = None,
) -> Check:
    """The battery's entry for a kernel diagnostic run in pieces.

    Parameters
    ----------
    name, title : str
        The check's name and report heading.
    pieces : callable
        ``pieces(plan) -> [(key, function, args), ...]``: the tasks, each
        ``function(tested, seed, setup, *args)`` run in a worker.
    combine : callable
        ``combine(values, *, alpha, seconds) -> KernelCheckResult`` from the pieces'
        values, in the order ``pieces`` gave them.
    purpose, description, budget, rule :
        As :class:`~zoo.validation.plan.Check` has them. The diagnostic draws from
        ``purpose`` itself, from the root seed each piece receives.
    again : callable, optional
        ``again(plan, result) -> Plan or None``: for a check run in stages (Geweke's
        chains doubling), the plan of the next stage, or None when ``result`` is the
        answer. ``combine`` then receives ``plan=`` too, and ``pieces`` the values of
        every piece finished at earlier stages, by key (``pieces(plan, earlier)``), so
        that a piece may continue one of them (a chain from where it stopped). A piece
        whose key a stage repeats is not run again.
    """

    def run(plan: Plan, pool: FitPool, alpha: float) -> CheckOutcome:
        started = time.perf_counter()
        prior = None if plan.sbc_setup is None else plan.sbc_setup[0]
        setup = check_setup(plan.tested, prior)
        tested = naming_errors(plan.tested)
        done = {}
        # The values of the pieces finished so far, by the key ``pieces`` gave them.
        earlier = {}
        while True:
            listed = pieces(plan) if again is None else pieces(plan, dict(earlier))
            tasks = [
                Task(f"{name} {key}", function, (tested, plan.seed, setup, *args))
                for key, function, args in listed
            ]
            # The pool yields outcomes as they complete: put them back in task order.
            missing = [task for task in tasks if task.key not in done]
            done.update({outcome.key: outcome for outcome in pool.run(missing)})
            outcomes = [done[task.key] for task in tasks]
            for outcome in outcomes:
                if outcome.status != "ok":
                    return _failed(name, outcome, alpha, started)
            values = [outcome.value for outcome in outcomes]
            earlier.update((key, value) for (key, _, _), value in zip(listed, values, strict=True))
            seconds = time.perf_counter() - started
            if again is None:
                result = combine(values, alpha=alpha, seconds=seconds)
                return _judged(name, result, alpha, started)
            result = combine(values, alpha=alpha, seconds=seconds, plan=plan)
            following = again(plan, result)
            if following is None:
                return _judged(name, result, alpha, started)
            plan = following

    return Check(
        name,
        title,
        run,
        purpose,
        budget=budget,
        rule=rule,
        needs_kernel=True,
        simulates=True,
        description=description,
    )
