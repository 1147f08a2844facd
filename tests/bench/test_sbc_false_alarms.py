"""The pooled-ranks table of bench.sbc_false_alarms: each of its two tests sees its departure."""

from __future__ import annotations

import numpy as np
import pytest

from bench.sbc_false_alarms import RANK_BINS, pooled

RUNS, SIMULATIONS = 200, 100


def _records(draw_run) -> dict:
    """``RUNS`` records of one quantity whose ranks each run draws with ``draw_run(rng)``."""
    rng = np.random.default_rng(7)
    records = []
    for seed in range(RUNS):
        ranks = draw_run(rng)
        counts = np.histogram(ranks, bins=RANK_BINS, range=(0.0, 1.0))[0].tolist()
        records.append({"seed": seed, "rank_counts": {"q": counts}})
    return {("model", "exact draws", "exact"): records}


def _p_values(by_model) -> tuple[float, float]:
    row = pooled(by_model)[2]  # the header, its rule, then the one quantity's row
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    return float(cells[5]), float(cells[6])


def test_independent_uniform_ranks_pass_both():
    pooled_p, between_p = _p_values(_records(lambda rng: rng.random(SIMULATIONS)))
    assert pooled_p > 1e-3
    assert between_p > 1e-3


def test_ranks_skewed_in_every_simulation_fail_the_pooled_test():
    # Each rank a little towards 0 (Beta(0.95, 1)): the marginal is off in every run.
    pooled_p, _ = _p_values(_records(lambda rng: rng.beta(0.95, 1.0, SIMULATIONS)))
    assert pooled_p < 1e-4


def test_a_shared_shift_within_runs_fails_the_between_runs_test_only():
    # Each run's simulations share a cause: their ranks fill only 0.8 of the circle,
    # starting at a point uniform over runs. Every simulation's rank is uniform (the
    # pooled ranks stay so), but within a run they are not independent.
    def run(rng):
        return (rng.random() + 0.8 * rng.random(SIMULATIONS)) % 1.0

    pooled_p, between_p = _p_values(_records(run))
    assert pooled_p > 1e-3
    assert between_p < 1e-4


@pytest.mark.parametrize("records", [{}, {("m", "exact draws", "exact"): [{"seed": 0}]}])
def test_records_without_counts_give_no_table(records):
    assert pooled(records) == []
