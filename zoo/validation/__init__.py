"""The validation battery of ``zoo validate``: a sampler checked, with numbers.

Modules: :mod:`~zoo.validation.plan` (what a check is: :class:`Check`, its budget's
:class:`Setting`, and the :class:`Plan` it receives), :mod:`~zoo.validation.battery` (the
table of checks and :func:`validate`), one module per check (``exact_check``,
``nuts_check``, ``sbc_check``, ``geweke_check``, ``invariance_check``),
:mod:`~zoo.validation.sampler_under_test` (the one picklable
value every worker receives; a sampler's output is checked against the model by
:mod:`zoo.sampling.sampler_output`), :mod:`~zoo.validation.problem_selection`,
:mod:`~zoo.validation.results` and :mod:`~zoo.validation.result_store` (resumable SBC
records).
"""

from zoo.sampling.sampler_output import SamplerOutputError, checked_draws
from zoo.validation.battery import CHECK_NAMES, CHECKS, ZOO_DEFAULT_CHECKS, validate
from zoo.validation.plan import Check, Plan, Setting
from zoo.validation.results import CheckOutcome, ValidationResult
from zoo.validation.sampler_under_test import SamplerUnderTest

__all__ = [
    "CHECKS",
    "CHECK_NAMES",
    "ZOO_DEFAULT_CHECKS",
    "Check",
    "CheckOutcome",
    "Plan",
    "SamplerOutputError",
    "SamplerUnderTest",
    "Setting",
    "ValidationResult",
    "checked_draws",
    "validate",
]
