"""bench.acceptance: its candidates, and its table's counts and judgement of item 8."""

from bench import acceptance


def _records(example, candidate, verdicts, checks=None):
    return [
        {
            "example": example,
            "candidate": candidate,
            "seed": seed,
            "verdict": verdict,
            "checks": checks or {"exact": verdict},
            "cpu_seconds": 10.0 + seed,
            "commit": "abcdef0123",
        }
        for seed, verdict in enumerate(verdicts)
    ]


def _row(table, example, candidate):
    (row,) = [r for r in table.splitlines() if r.startswith(f"| {example} | {candidate} |")]
    return [cell.strip() for cell in row.strip("|").split("|")]


def test_every_example_of_item_8_has_a_correct_kernel_and_planted_bugs():
    # the acceptance table names the centred eight schools, the change point and the mixture
    named = ("eight-schools-centred", "coal-mining", "gaussian-mixture-exchangeable")
    assert set(named) <= set(acceptance.EXAMPLES)
    for slug in acceptance.EXAMPLES:
        kernels = acceptance.candidates(acceptance.EXAMPLES[slug])
        assert kernels["correct"] is acceptance.EXAMPLES[slug].kernel
        assert len(kernels) >= 4, slug  # the correct one and at least three bugs
    assert {"pumps", "probit-regression", "semi-conjugate-normal"} <= set(acceptance.EXAMPLES)


def test_a_correct_kernel_meets_it_at_19_passes_of_20_and_a_bug_misses_it_at_2_passes():
    records = _records("coal-mining", "correct", ["pass"] * 19 + ["inconclusive"])
    records += _records("coal-mining", "wrong-side", ["fail"] * 18 + ["pass"] * 2)
    table = acceptance.summary(records)
    correct = _row(table, "coal-mining", "correct")
    assert correct[2:7] == ["19", "0", "1", "19 / 20 [0.75, 1.00]", "yes"]
    bug = _row(table, "coal-mining", "wrong-side")
    assert bug[2:7] == ["2", "18", "0", "18 / 20 [0.68, 0.99]", "**no**"]
    assert bug[7] == "exact 18"


def test_the_newest_record_of_a_seed_counts_and_too_few_seeds_decide_nothing():
    records = _records("pumps", "correct", ["fail", "pass", "pass"])
    records += _records("pumps", "correct", ["pass"])  # seed 0 again, newer
    row = _row(acceptance.summary(records), "pumps", "correct")
    assert row[2:7] == ["3", "0", "0", "3 / 3 [0.29, 1.00]", "-"]


def test_runs_stopped_at_their_first_failing_check_say_so_in_the_table():
    records = _records("pumps", "no-prior-rate", ["fail", "fail"], {"exact": "fail"})
    records[1]["stop_at_failure"] = True
    row = _row(acceptance.summary(records), "pumps", "no-prior-rate")
    assert row[7] == "exact 2 (1 stopped at the first)"
