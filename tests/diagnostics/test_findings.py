"""Every verdict explains itself: the findings of agreement, SBC and the kernel checks."""

import math

import numpy as np
import pandas as pd
import pytest

from tests.diagnostics.test_agreement import ar1, normal_reference
from zoo.diagnostics import agreement, sbc_result
from zoo.diagnostics.findings import Finding, draws_to_clear


def test_a_disagreeing_quantity_names_its_statistic_estimate_reference_mcse_and_z():
    draws = {"x": np.random.default_rng(4).normal(0.3, 1.0, size=(4, 1000, 3))}
    result = agreement(draws, normal_reference())
    found = result.findings(problem="shifted")
    assert {f.quantity for f in found} == {"x[item=a]", "x[item=b]", "x[item=c]"}
    for f in found:
        assert f.verdict == "fail" and f.problem == "shifted" and f.against == "exact"
        # The row that decided: its numbers are the table's and z is theirs.
        assert f.z == pytest.approx((f.estimate - f.reference) / f.mcse)
        assert f.p_adjusted <= result.alpha
        assert f.quantity in f.describe() and f.statistic in f.describe()
    mean_rows = [f for f in found if f.statistic == "mean"]
    assert all(abs(f.estimate - 0.3) < 0.1 and f.reference == 0.0 for f in mean_rows)


def test_agreeing_draws_have_no_findings():
    draws = {"x": np.random.default_rng(5).normal(size=(4, 1000, 3))}
    result = agreement(draws, normal_reference())
    assert result.verdict == "agree" and result.findings() == []


def test_an_unjudged_quantity_names_its_gate_and_the_draws_that_clear_it():
    # rho = 0.99: about 1 effective draw in 200; 4 x 500 draws give a bulk ESS near 10.
    rng = np.random.default_rng(6)
    result = agreement({"x": ar1(rng, 0.99, draws=500)}, normal_reference())
    found = result.findings()
    assert result.verdict == "inconclusive"
    assert found and all(f.verdict == "inconclusive" for f in found)
    assert all("ESS" in f.gate for f in found)
    needed = max(f.draws_per_chain for f in found)
    assert needed > 500
    # The prediction holds: at that many draws the gates pass (ESS per draw is a
    # property of the chain, so it carries over to a longer run of the same chain).
    longer = agreement({"x": ar1(rng, 0.99, draws=needed)}, normal_reference())
    assert longer.verdict == "agree", str(longer)


def test_draws_to_clear_follow_the_ess_rate_and_refuse_chains_that_disagree():
    # 4 chains x 1000 draws with ESS 200 (5% per draw): 400 needs 8000 in all.
    assert draws_to_clear(1.0, 200, 300, chains=4, draws=1000, rhat_max=1.01, ess_min=400) == 2000
    # R-hat alone, within what an ESS of 250 explains (R-hat^2 - 1 about 4 / 250):
    # (1.02^2 - 1) / (1.01^2 - 1) = 2.01 times the draws.
    assert draws_to_clear(1.02, 250, 250, chains=4, draws=1000, rhat_max=1.01, ess_min=50) == 2100
    # R-hat far beyond what an ample ESS explains: a stuck chain, which draws may not fix.
    gates = {"rhat_max": 1.01, "ess_min": 400}
    assert draws_to_clear(1.2, 5000, 5000, chains=4, draws=1000, **gates) is None
    assert draws_to_clear(1.0, math.nan, 10, chains=4, draws=10, **gates) is None


def test_sbc_findings_say_which_moment_of_the_ranks_moved():
    rng = np.random.default_rng(7)
    n = 200
    # Ranks pushed to the ends (a posterior too narrow: U shape) for "narrow"; shifted
    # up for "biased"; uniform for "fine".
    narrow = np.where(rng.random(n) < 0.5, rng.beta(0.4, 1, n), 1 - rng.beta(0.4, 1, n))
    records = [
        {
            "index": i,
            "status": "ok",
            "ranks": {"narrow": narrow[i], "biased": rng.beta(2, 1), "fine": rng.random()},
            "thinned": 100,
        }
        for i in range(n)
    ]
    result = sbc_result(records, alpha=0.01)
    by_quantity = {f.quantity: f for f in result.findings()}
    assert set(by_quantity) == {"narrow", "biased"}
    assert by_quantity["narrow"].statistic == "rank sd" and by_quantity["narrow"].z > 0
    assert by_quantity["biased"].statistic == "mean rank" and by_quantity["biased"].z > 0
    assert by_quantity["biased"].against == "uniform"


def test_sbc_fits_that_fail_alike_are_said_once():
    records = [
        {"index": i, "status": "error", "message": "TypeError: NoneType + int"} for i in range(30)
    ]
    result = sbc_result(records, alpha=0.01)
    (finding,) = result.findings()
    assert finding.quantity.startswith("30 simulations") and "TypeError" in finding.message
    assert result.summary().count("TypeError") == 1
    assert "all with" in result.summary()


def test_findings_are_json_ready_and_tabular():
    draws = {"x": np.random.default_rng(4).normal(0.3, 1.0, size=(4, 1000, 3))}
    result = agreement(draws, normal_reference())
    frame = result.to_dataframe()
    assert isinstance(frame, pd.DataFrame) and len(frame) == result.table.sizes["check"]
    assert {"statistic", "estimate", "reference", "mcse", "z", "verdict"} <= set(frame.columns)
    as_dict = result.findings()[0].to_dict()
    assert set(as_dict) == set(Finding._fields)
    assert "AgreementResult(verdict='disagree'" in repr(result)
    assert "<li>" in result._repr_html_()
