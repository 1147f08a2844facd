"""The sequential-power summary: which checks carried runs past the first stage."""

from bench.sequential_power import _carried_by, false_alarms, paired_costs, summary


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


def test_paired_rows_show_the_median_ratio_within_a_pair():
    runs = []
    for seconds, fixed in ((1.0, 2.0), (3.0, 2.0), (2.0, 4.0)):
        run = {**_run(1), "cpu_seconds": seconds}
        run["fixed"] = {"verdict": "pass", "cpu_seconds": fixed}
        runs.append(run)
    row = summary(runs, hosts=False).splitlines()[2]
    # ratios 0.5, 1.5, 0.5: the median of the ratios, not the ratio of the medians (1.0)
    assert "(paired, 3; ratio 0.50)" in row


def test_pooled_false_alarms_count_correct_runs_of_the_mode_with_an_upper_bound():
    runs = [_run(1) for _ in range(59)] + [_run(1, verdict="fail")]
    runs += [{**_run(1, verdict="fail"), "sampler": "swapped"}, {**_run(1), "mode": "other"}]
    line = false_alarms(runs, "m")
    # one failure in 60: the exact one-sided 95% bound is beta(0.95; 2, 59) = 0.0766
    assert "failed in 1 of 60 runs (1 kernels), inconclusive in 0;" in line
    assert line.endswith("upper bound of the rate 0.077")
    # none in 20: 1 - 0.05 ** (1 / 20) = 0.139
    assert false_alarms([_run(1)] * 20, "m").endswith("0.139")


def test_inconclusive_correct_runs_are_counted_beside_the_failures_not_among_them():
    runs = [_run(1) for _ in range(19)] + [_run(1, verdict="inconclusive")]
    line = false_alarms(runs, "m")
    assert "failed in 0 of 20 runs (1 kernels), inconclusive in 1;" in line
    assert line.endswith("0.139")


def _pair(seconds, fixed):
    return {**_run(1), "cpu_seconds": seconds, "fixed": {"verdict": "pass", "cpu_seconds": fixed}}


def test_pooled_paired_costs_take_the_mode_s_correct_pairs_only():
    runs = [
        _pair(1.0, 2.0),
        _pair(3.0, 2.0),
        {**_pair(2.0, 4.0), "model": "qda"},
        {**_pair(4.0, 4.0), "model": "lda"},
        # neither another design's pairs, nor a fault, nor an unpaired run counts
        {**_pair(10.0, 1.0), "mode": "other"},
        {**_pair(10.0, 1.0), "sampler": "swapped"},
        {**_run(1), "cpu_seconds": 10.0},
    ]
    line = paired_costs(runs, "m")
    # ratios 0.5, 1.5, 0.5, 1.0: the median of the ratios is 0.75, the least 0.5, the
    # most 1.5, and two of the four lie below 1 (1.0 itself does not)
    assert line == (
        "m: paired with the fixed 1% battery in 4 correct runs (3 kernels); a pair's CPU "
        "seconds, sequential over fixed: median 0.75 (0.50 to 1.50; 2 of 4 below 1)"
    )
    assert paired_costs(runs, "none") == "none: no correct runs paired with the fixed battery"
