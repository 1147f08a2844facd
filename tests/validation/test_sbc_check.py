"""The SBC check never blames the sampler for the model's simulation.

The pumps of examples/pump_failures.py under BUGS's own hyperprior ``beta ~ Gamma(0.1,
1.0)`` (tests/support/bugs_pumps.py): about 2% of prior-predictive data sets hold counts
that overflow int64. Before, one such data set in 100 made a correct Gibbs sampler FAIL;
now it is drawn again and counted, and the ranks are judged as usual. The 19-of-20-seeds
study at the default 100 simulations is bench/sbc_redraws.py (records in
bench/results/sbc_redraws/).
"""

import pytest

from tests.support import bugs_pumps
from zoo.validation import validate

MODEL = "tests.support.bugs_pumps:model"
# At the root seed 0 the 18th of 20 simulations's first data set overflows: the path under test
# is taken (tests/diagnostics/test_sbc.py tests the redraw itself on every seed).
QUICK = {
    "checks": ("sbc",),
    "budgets": {"sbc": {"simulations": 20, "draws": 100}},
    "seed": 0,
    "workers": 0,
}


@pytest.mark.pymc
def test_the_pumps_under_bugs_hyperprior_pass_with_overflowing_data_sets_redrawn():
    right = validate(MODEL, bugs_pumps.sampler, **QUICK)
    (sbc,) = right.checks
    assert sbc.verdict == "pass" and right.verdict == "pass", str(right)
    assert sbc.details.redraws == 1 and not sbc.details.failures, str(right)
    assert "1 data set(s) redrawn" in sbc.summary
    # The twin: the example's sampler, derived for Gamma(6, 2.5), is wrong here.
    wrong = validate(MODEL, bugs_pumps.six_and_a_half, **QUICK)
    assert wrong.verdict == "fail", str(wrong)
    assert wrong.checks[0].failing and not wrong.checks[0].details.failures
