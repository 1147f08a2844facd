"""Running a check of the kernel itself (Geweke's test, invariance) as one task.

Both diagnostics take the model and the kernel under test and return a
:class:`~zoo.diagnostics.kernel_result.KernelCheckResult`; here each becomes one task of
the pool, so the per-fit timeout bounds it like any fit.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from zoo.diagnostics.findings import Finding
from zoo.sampling.parallel import FitPool, Task
from zoo.validation.plan import Check, Plan
from zoo.validation.results import CheckOutcome, summarise
from zoo.validation.sampler_under_test import SamplerUnderTest

__all__ = ["kernel_check"]

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
    model = tested.model
    setup = None if prior is None else (prior, model.kernel_checks.setup()[1])
    return diagnostic(
        model, tested.kernel_under_test, seed=seed, alpha=alpha, setup=setup, **budget
    )


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
        task = Task(name, _on_worker, arguments)
        (outcome,) = pool.run([task])
        if outcome.status != "ok":
            hint = _STATE_HINT if outcome.status == "error" else ""
            said = f"{outcome.status}: {outcome.message}{hint}"
            finding = Finding("kernel", "fail", message=said)
            return CheckOutcome(
                name,
                "fail",
                finding.describe(),
                alpha,
                [finding],
                seconds=time.perf_counter() - started,
            )
        result = outcome.value
        t = result.table
        head = f"{t.sizes['test']} test functions, {t.attrs['settings']}"
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

    return Check(name, run, needs_kernel=True)
