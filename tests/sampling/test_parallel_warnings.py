"""Warnings raised during fits are counted by the pool and said once, not once per fit.

(The pool's other behaviours, errors, timeouts and deaths, are tested through the
battery in tests/validation/test_validate.py.)
"""

import json
import logging
import warnings

from zoo.cli import main
from zoo.sampling.parallel import FitPool, Task

SAMPLERS = "tests.support.user_samplers"


def _noisy(index: int) -> int:
    """A fit that warns twice from one place, once from another, and logs as PyMC does."""
    for _ in range(2):
        warnings.warn("Compilation is falling back to object mode", UserWarning, stacklevel=1)
    warnings.warn(f"fit {index} ran long", RuntimeWarning, stacklevel=1)
    logging.getLogger("pymc").warning("There were 3 divergences after tuning.")
    logging.getLogger("pymc").info("Initializing NUTS using jitter+adapt_diag...")
    return index


def test_the_pool_counts_each_warning_of_the_fits_and_shows_none(recwarn):
    with FitPool(workers=0) as pool:
        values = sorted(o.value for o in pool.run(Task(f"t{i}", _noisy, (i,)) for i in range(5)))
    assert values == [0, 1, 2, 3, 4]
    # Once per location per fit (Python's default filter), so 5, not 10; each distinct
    # message its own line; the logger's WARNING too, its INFO left to its handlers.
    assert pool.warnings["UserWarning: Compilation is falling back to object mode"] == 5
    assert pool.warnings["RuntimeWarning: fit 3 ran long"] == 1
    assert pool.warnings["pymc: There were 3 divergences after tuning."] == 5
    assert len(pool.warnings) == 7
    assert not recwarn.list  # none escaped to the caller's warnings
    assert logging.getLogger("pymc").propagate  # the loggers are given back as they were


def test_validate_says_each_warning_of_the_fits_once_with_its_count(capsys):
    status = main(
        [
            "validate",
            "beta-binomial",
            "--sampler",
            f"{SAMPLERS}:beta_binomial_warns",
            *("--checks", "exact", "--problems", "informative-fixed"),
            *("--draws", "300", "--workers", "0", "--json"),
        ]
    )
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert status == 0, report
    # One data set, fitted again with the same seed to check reproducibility (two fits),
    # and the fits timed for the plan line: they are the sampler's fits too.
    line = "UserWarning: Compilation is falling back to object mode"
    ((warning, count),) = [(w["warning"], w["count"]) for w in report["warnings"]]
    assert warning == line and count >= 2
    assert captured.err.count("falling back to object mode") == 1, captured.err
    assert f"warning ({count} times): {line}" in captured.err
