"""The verdict policy (``zoo.validation.results.battery_verdict``), branch by branch.

Pure unit tests on lists of CheckOutcome: no fit runs. The policy is stated in
docs/design.md, "The verdict policy".
"""

import pytest

from zoo.diagnostics.findings import Finding
from zoo.validation.results import (
    COULD_NOT_JUDGE,
    CheckOutcome,
    ValidationResult,
    battery_verdict,
    worst_verdict,
)


def _check(name: str, verdict: str) -> CheckOutcome:
    findings = []
    if verdict == COULD_NOT_JUDGE:
        findings = [
            Finding(
                "NUTS fit",
                COULD_NOT_JUDGE,
                problem="schools",
                gate="NUTS unhealthy (187 divergent transition(s)): not a reference here",
                cure="reparameterise the PyMC model",
            )
        ]
    return CheckOutcome(name, verdict, f"{name} {verdict}", 0.002, findings)


def _verdict(**checks) -> tuple[str, str]:
    return battery_verdict([_check(name, verdict) for name, verdict in checks.items()])


@pytest.mark.parametrize(
    "checks",
    [
        {"exact": "pass", "sbc": "fail"},
        {"exact": "fail", "nuts": COULD_NOT_JUDGE},
        {"nuts": "fail", "geweke": "inconclusive", "sbc": "pass"},
        {"sbc": COULD_NOT_JUDGE, "invariance": "fail"},
    ],
)
def test_any_failing_check_fails_the_battery(checks):
    verdict, reason = _verdict(**checks)
    failed = [name for name, v in checks.items() if v == "fail"]
    assert verdict == "fail" and reason == f"{', '.join(failed)} failed"


@pytest.mark.parametrize(
    "checks",
    [
        {"exact": "pass"},
        {"sbc": "pass"},
        {"exact": "pass", "sbc": "pass", "geweke": "pass", "invariance": "pass"},
        {"nuts": "pass", "sbc": "pass"},
    ],
)
def test_every_check_passing_with_exact_or_sbc_among_them_passes(checks):
    verdict, reason = _verdict(**checks)
    assert verdict == "pass"
    assert reason == f"every check that could judge passed ({', '.join(checks)})"


def test_a_check_that_could_not_judge_never_spoils_a_pass():
    # The centred eight schools: NUTS diverges, SBC passes. NUTS is no evidence.
    verdict, reason = _verdict(nuts=COULD_NOT_JUDGE, sbc="pass")
    assert verdict == "pass"
    assert reason == "every check that could judge passed (sbc); nuts could not judge"


def test_a_gate_the_samplers_draws_did_not_pass_is_inconclusive():
    verdict, reason = _verdict(exact="pass", geweke="inconclusive", nuts=COULD_NOT_JUDGE)
    assert verdict == "inconclusive"
    assert reason.startswith("geweke inconclusive (the sampler's draws did not pass a gate)")
    assert reason.endswith("; nuts could not judge")


@pytest.mark.parametrize(
    ("checks", "reason"),
    [
        ({"nuts": "pass", "geweke": "pass"}, "neither exact nor sbc judged (nuts, geweke passed)"),
        (
            {"nuts": "pass", "sbc": COULD_NOT_JUDGE},
            "neither exact nor sbc judged (nuts passed); sbc could not judge",
        ),
        ({"exact": COULD_NOT_JUDGE}, "neither exact nor sbc judged; exact could not judge"),
        ({}, "no check ran"),
    ],
)
def test_without_exact_or_sbc_judging_the_battery_is_inconclusive(checks, reason):
    assert _verdict(**checks) == ("inconclusive", reason)


def test_an_unknown_check_verdict_is_refused():
    with pytest.raises(ValueError, match="verdict: must be one of"):
        _verdict(sbc="agree")


@pytest.mark.parametrize(
    ("per_data_set", "check"),
    [
        ([COULD_NOT_JUDGE, "pass"], "pass"),
        ([COULD_NOT_JUDGE, COULD_NOT_JUDGE], COULD_NOT_JUDGE),
        (["pass", "inconclusive", COULD_NOT_JUDGE], "inconclusive"),
        (["inconclusive", "fail", "pass"], "fail"),
    ],
)
def test_a_data_set_that_could_not_be_judged_leaves_the_others_verdict(per_data_set, check):
    assert worst_verdict(per_data_set) == check


def test_the_three_views_carry_the_reason_and_the_cure():
    result = ValidationResult(
        "schools", "mine:sampler", 0.01, [_check("nuts", COULD_NOT_JUDGE), _check("sbc", "pass")]
    )
    assert result.verdict == "pass"
    as_json = result.to_dict()
    assert as_json["verdict"] == "pass" and as_json["reason"] == result.reason
    (finding,) = as_json["checks"][0]["findings"]
    assert finding["verdict"] == COULD_NOT_JUDGE
    assert finding["cure"] == "reparameterise the PyMC model"
    [(check, unjudged)] = result.unjudged
    assert check == "nuts" and unjudged.gate.startswith("NUTS unhealthy")
    assert "could not judge (NUTS unhealthy" in unjudged.describe()
    assert "cure: reparameterise the PyMC model" in unjudged.describe()
    assert str(result).startswith("schools: mine:sampler: PASS (alpha = 0.01): every check")
