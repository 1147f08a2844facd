"""The sequential-power summary: which checks carried runs past the first stage."""

from bench.sequential_power import _carried_by, summary


def _run(stages, stage_checks=None, verdict="pass"):
    record = {
        "mode": "m",
        "model": "gda",
        "sampler": "correct",
        "seed": 0,
        "verdict": verdict,
        "stages": stages,
        "cpu_seconds": 1.0,
        "host": {"cpu": "x"},
    }
    if stage_checks is not None:
        record["stage_checks"] = stage_checks
    return record


def test_a_check_counts_once_per_run_it_carried_past_the_first_stage():
    every = ["exact", "sbc", "geweke", "invariance"]
    runs = [
        _run(1, [every]),
        _run(2, [every, ["sbc"]]),
        _run(3, [every, ["sbc", "geweke"], ["geweke"]]),
        _run(2, [every, ["geweke"]]),
    ]
    assert _carried_by(runs) == "geweke 2, sbc 2"


def test_runs_without_their_stages_checks_are_counted_apart_and_one_stage_is_a_dash():
    assert _carried_by([_run(3), _run(2, [["exact"], ["exact"]])]) == ("exact 1, not recorded 1")
    assert _carried_by([_run(1, [["exact"]]), _run(1)]) == "-"


def test_the_summary_row_shows_the_carriers():
    row = summary([_run(2, [["exact", "sbc"], ["sbc"]])], hosts=False).splitlines()[2]
    assert "| 2 (2) | sbc 1 | - |" in row
