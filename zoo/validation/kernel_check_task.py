"""Running a check of the kernel itself (Geweke's test, invariance) as tasks of the pool.

Both diagnostics take the model and the kernel under test and return a
:class:`~zoo.diagnostics.kernel_result.KernelCheckResult`. :func:`kernel_check` makes a
diagnostic one task of the pool (the invariance check), so the per-fit timeout bounds
it like any fit; a check split into several tasks (Geweke's, in
:mod:`zoo.validation.geweke_check`) shares the outcome-building here
(:func:`failed_task`, :func:`judged`) and the prior's substitution (:func:`check_setup`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from zoo.diagnostics.findings import Finding
from zoo.sampling.parallel import FitPool, Task
from zoo.validation.plan import Check, Plan
from zoo.validation.results import CheckOutcome, summarise
from zoo.validation.sampler_under_test import SamplerUnderTest

__all__ = ["check_setup", "failed_task", "judged", "kernel_check"]

# Said when a kernel raises under these checks: the usual cause is a kernel written for
# a state type of its own.
_STATE_HINT = (
    " (Geweke and invariance hand the kernel the model's own state type, "
    "built from exact latents: see MODEL.kernel_checks)"
)


def _on_worker(
    diagnostic: Callable, tested: SamplerUnderTest, seed: int, alpha: float, prior, budget: dict
):
    """Run ``diagnostic`` on the kernel under test, in the worker.

    ``prior`` (SBC's, when the caller chose it) replaces the prior of the model's
    kernel-check setup; the design stays the setup's.
    """
    return diagnostic(
        tested.model,
        tested.kernel_under_test,
        seed=seed,
        alpha=alpha,
        setup=check_setup(tested, prior),
        **budget,
    )


def failed_task(name: str, outcome, alpha: float, started: float) -> CheckOutcome:
    """The check's outcome when one of its tasks raised, timed out or lost its worker."""
    hint = _STATE_HINT if outcome.status == "error" else ""
    finding = Finding("kernel", "fail", message=f"{outcome.status}: {outcome.message}{hint}")
    return CheckOutcome(
        name, "fail", finding.describe(), alpha, [finding], seconds=time.perf_counter() - started
    )


def judged(name: str, result, alpha: float, started: float) -> CheckOutcome:
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


def check_setup(tested: SamplerUnderTest, prior):
    """The kernel checks' (prior, design): SBC's prior when the caller chose one."""
    model = tested.model
    return None if prior is None else (prior, model.kernel_checks.setup()[1])


def kernel_check(
    name: str, diagnostic: Callable, budget: Callable[[Plan], dict] = lambda plan: {}
) -> Check:
    """The battery's entry for ``diagnostic(model, kernel, *, seed, alpha, setup, ...)``.

    ``budget(plan)`` gives the diagnostic's own keyword arguments the plan sets (Geweke's
    iterations).
    """

    def run(plan: Plan, pool: FitPool, alpha: float) -> CheckOutcome:
        started = time.perf_counter()
        prior = None if plan.sbc_setup is None else plan.sbc_setup[0]
        arguments = (diagnostic, plan.tested, plan.seed, alpha, prior, budget(plan))
        (outcome,) = pool.run([Task(name, _on_worker, arguments)])
        if outcome.status != "ok":
            return failed_task(name, outcome, alpha, started)
        return judged(name, outcome.value, alpha, started)

    return Check(name, run, needs_kernel=True)
