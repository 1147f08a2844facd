"""The invariance check never blames the kernel for the model's simulation.

The pumps under BUGS's own hyperprior (tests/support/bugs_pumps.py): about 4% of
prior-predictive data sets hold counts beyond 2**53, outside the data's type. Before,
the first such data set among the check's exact joint draws raised OutsideSupport and
the correct kernel FAILED (bench/results/acceptance/, pumps-bugs-hyperprior seed 0); now
it is drawn again with its parameters and counted, as SBC and Geweke's test do.
"""

import pytest

from examples import pump_failures
from tests.support import bugs_pumps
from zoo.validation import validate

MODEL = "tests.support.bugs_pumps:model"
# 500 exact joint draws: about 20 redrawn, none with probability about 1e-9.
QUICK = {
    "checks": ("invariance",),
    "budgets": {"invariance": {"replicates": 500}},
    "seed": 0,
    "workers": 0,
}


@pytest.mark.pymc
def test_the_pumps_under_bugs_hyperprior_pass_with_overflowing_data_sets_redrawn():
    right = validate(MODEL, kernel=pump_failures.kernel, **QUICK)
    (invariance,) = right.checks
    assert invariance.verdict == "pass", str(right)
    assert "data set(s) redrawn outside their support or type" in invariance.summary
    # The twin: the kernel derived for Gamma(6, 2.5), wrong under BUGS's hyperprior.
    wrong = validate(MODEL, kernel=bugs_pumps.six_and_a_half.kernel, **QUICK)
    assert wrong.checks[0].verdict == "fail", str(wrong)
    assert "redrawn" in wrong.checks[0].summary  # judged, not an error of the simulation
