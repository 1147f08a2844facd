"""Running a check of the kernel itself (Geweke's test, invariance) as tasks of the pool.

Both diagnostics draw each of their pieces from a stream item of its own (a Geweke
chain or its marginal side, a range of invariance replicates), so the pieces run as
separate tasks, on as many workers as there are, with the values of one run in one
process; the per-fit timeout bounds each piece like any fit. :func:`kernel_check`
builds such a check from the pieces' function and the diagnostic's combining step.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from zoo.diagnostics.findings import Finding
from zoo.sampling.parallel import FitPool, Task
from zoo.validation.plan import Check, Plan, Setting
from zoo.validation.results import CheckOutcome, summarise
from zoo.validation.sampler_under_test import SamplerUnderTest

__all__ = ["check_setup", "kernel_check"]

# Said when a kernel raises under these checks: the usual cause is a kernel written for
# a state type of its own.
_STATE_HINT = (
    " (Geweke and invariance hand the kernel the model's own state type, "
    "built from exact latents: see MODEL.kernel_checks)"
)


def check_setup(tested: SamplerUnderTest, prior):
    """The kernel checks' (prior, design): SBC's prior when the caller chose one.

    ``prior`` replaces the prior of the model's kernel-check setup; the design stays
    the setup's.
    """
    return None if prior is None else (prior, tested.model.kernel_checks.setup()[1])


def _failed(name: str, outcome, alpha: float, started: float) -> CheckOutcome:
    """The check's outcome when one of its tasks raised, timed out or lost its worker."""
    hint = _STATE_HINT if outcome.status == "error" else ""
    finding = Finding("kernel", "fail", message=f"{outcome.status}: {outcome.message}{hint}")
    return CheckOutcome(
        name, "fail", finding.describe(), alpha, [finding], seconds=time.perf_counter() - started
    )


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
        answer. ``combine`` then receives ``plan=`` too. A piece whose key a stage
        repeats is not run again.
    """

    def run(plan: Plan, pool: FitPool, alpha: float) -> CheckOutcome:
        started = time.perf_counter()
        prior = None if plan.sbc_setup is None else plan.sbc_setup[0]
        setup = check_setup(plan.tested, prior)
        done = {}
        while True:
            tasks = [
                Task(f"{name} {key}", function, (plan.tested, plan.seed, setup, *args))
                for key, function, args in pieces(plan)
            ]
            # The pool yields outcomes as they complete: put them back in task order.
            missing = [task for task in tasks if task.key not in done]
            done.update({outcome.key: outcome for outcome in pool.run(missing)})
            outcomes = [done[task.key] for task in tasks]
            for outcome in outcomes:
                if outcome.status != "ok":
                    return _failed(name, outcome, alpha, started)
            values = [outcome.value for outcome in outcomes]
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
