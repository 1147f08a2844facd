"""SBC's prior-predictive draws: data outside their support or type are redrawn.

The rejection argument (docs/design.md, "The verdict policy"): for an event ``A`` of the
data alone, ``p(theta | y, y in A) = p(theta | y)`` for ``y`` in ``A``, so a correct
sampler's ranks stay uniform when data sets outside ``A`` are drawn again. Its twin: a
rejection that looks at the parameters changes the posterior the truths come from, and
the same test fails. The model is the Beta-Binomial with a fixed Beta(2, 3) prior and the
exact conjugate sampler; the event ``A`` is "the first group has a success" (about 6.6%
of draws fall outside it: ``E[(1 - theta)^10] = 12 / 182``).
"""

import dataclasses

import pytest
import xarray as xr
from scipy import stats

import zoo
from tests.support.user_samplers import beta_binomial_conjugate
from zoo.core.contract import OutsideSupport
from zoo.diagnostics.findings import COULD_NOT_JUDGE
from zoo.diagnostics.sbc import (
    MAX_REDRAW_SHARE,
    MAX_REDRAWS,
    REDRAW_LEVEL,
    SIMULATION_ERROR,
    UNSIMULABLE,
    sbc_result,
    simulation_ranks,
)

BASE = zoo.get("beta-binomial")
PRIOR = BASE.Prior(a=2.0, b=3.0)
SIZE = {"groups": 3, "trials": 10}


def _model(reject):
    """The Beta-Binomial whose simulate raises OutsideSupport when ``reject(truth, data)``."""

    def simulate(prior, rng, **size):
        truth, data = BASE.simulate(prior, rng, **size)
        if reject(truth, data):
            raise OutsideSupport("no success in the first group")
        return truth, data

    return dataclasses.replace(BASE, simulate=simulate)


def _fit(data, prior, *, draws, chains, seed):
    """The exact conjugate posterior's draws, as the Fit protocol returns them."""
    theta = beta_binomial_conjugate(data, prior, draws=draws, chains=chains, seed=seed)["theta"]
    return xr.Dataset({"theta": (("chain", "draw", "group"), theta)})


def _records(model, simulations, seed=3):
    return [
        simulation_ranks(model, _fit, i, seed=seed, prior=PRIOR, size=SIZE, draws=100, chains=2)
        for i in range(simulations)
    ]


BY_DATA = _model(lambda truth, data: data.successes[0] == 0)


def test_a_redrawn_simulation_is_the_same_for_the_same_seed():
    first, again = _records(BY_DATA, 40), _records(BY_DATA, 40)
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in first]
    assert strip == [{k: v for k, v in r.items() if k != "seconds"} for r in again]
    assert sum(r["redraws"] for r in first) > 0
    assert all(r["status"] == "ok" for r in first)
    redrawn = next(r for r in first if r["redraws"])
    assert redrawn["outside"] == "no success in the first group"


def test_rejecting_on_the_data_alone_keeps_the_ranks_uniform_and_on_the_parameters_not():
    kept = sbc_result(_records(BY_DATA, 150), alpha=0.01)
    assert kept.verdict == "pass", kept.summary()
    assert 0 < kept.redraw_share < 0.1 and "redrawn" in kept.summary()
    # The twin: a rejection chosen by theta (theta_0 > 0.4, about 40% of draws) selects
    # the truths, while the sampler still targets p(theta | y): theta_0's ranks sink.
    by_theta = _model(lambda truth, data: truth["theta"][0] > 0.4)
    biased = sbc_result(_records(by_theta, 150), alpha=0.01)
    assert biased.verdict == "fail" and biased.failing() == ["theta[group=0]"], biased.summary()


def test_a_simulation_that_never_leaves_the_support_gives_up_and_says_so():
    (record,) = _records(_model(lambda truth, data: True), 1)
    assert record["status"] == UNSIMULABLE and record["redraws"] == MAX_REDRAWS + 1
    assert "no success in the first group" in record["message"]


def test_an_error_in_the_models_simulation_is_never_the_samplers():
    def broken(prior, rng, **size):
        raise FloatingPointError("overflow in the simulator")

    (record,) = _records(dataclasses.replace(BASE, simulate=broken), 1)
    assert record["status"] == SIMULATION_ERROR
    assert record["message"] == "FloatingPointError: overflow in the simulator"
    good = _records(BY_DATA, 30)
    result = sbc_result([*good, {**record, "index": 30}], alpha=0.01)
    assert result.verdict == COULD_NOT_JUDGE and not result.failures
    (finding,) = result.findings()
    assert finding.quantity == "simulation 30" and finding.verdict == COULD_NOT_JUDGE
    assert "the model's simulate raised (FloatingPointError" in finding.gate
    assert "not in the sampler" in finding.cure


def _ok(index: int, redraws: int, simulations: int = 40) -> dict:
    """A simulation's record, its ranks evenly spread over ``simulations``."""
    return {
        "index": index,
        "status": "ok",
        "ranks": {"a": (index + 0.5) / simulations},
        "thinned": 10,
        "redraws": redraws,
        "outside": "y holds counts beyond 2**53 (an integer overflow)",
    }


@pytest.mark.parametrize(
    ("redraws", "verdict"),
    # 40 data sets kept: beyond 10% redrawn at level 1% (negative binomial NB(40, 0.9))
    # from 11 redraws (P(R >= 11) = 0.0094), not at 10 (0.0208).
    [(0, "pass"), (10, "pass"), (11, COULD_NOT_JUDGE)],
)
def test_beyond_the_stated_share_redrawn_the_prior_is_not_simulable(redraws, verdict):
    records = [_ok(i, redraws if i == 7 else 0) for i in range(40)]
    result = sbc_result(records, alpha=0.01)
    assert (MAX_REDRAW_SHARE, REDRAW_LEVEL) == (0.10, 0.01)
    tail = stats.nbinom(40, 0.9).sf(redraws - 1)
    assert result.prior_not_simulable == (tail < REDRAW_LEVEL)
    assert result.redraws == redraws and result.verdict == verdict
    if verdict == COULD_NOT_JUDGE:
        (finding,) = result.findings()
        assert finding.gate.startswith("the prior is not simulable: 11 of 51 prior-predictive")
        assert "integer overflow" in finding.gate and "more informative" in finding.cure


def test_too_few_simulations_could_not_judge_with_the_cure():
    result = sbc_result([_ok(i, 0, 10) for i in range(10)], alpha=0.01)
    (finding,) = result.findings()
    assert result.verdict == COULD_NOT_JUDGE and finding.gate == "10 simulations < 20"
    assert "--simulations" in finding.cure


def test_a_failed_fit_still_fails_whatever_the_model_did():
    records = [_ok(i, 0) for i in range(30)]
    failed = {"index": 30, "status": "error", "message": "ValueError: bad draws"}
    unsimulable = {"index": 31, "status": UNSIMULABLE, "message": "x", "redraws": 100}
    result = sbc_result([*records, failed, unsimulable], alpha=0.01)
    assert result.verdict == "fail" and [f["index"] for f in result.failures] == [30]
