"""Option checks of zoo.core.arguments: one rule per check, the field named."""

from __future__ import annotations

import re

import numpy as np
import pytest

from zoo.core.arguments import (
    as_count_array,
    as_finite_array,
    as_int,
    as_positive_array,
    as_probability,
    as_seed,
)


@pytest.mark.parametrize("value", [3, np.int64(3), np.uint8(3)])
def test_as_int_takes_python_and_numpy_integers(value):
    assert as_int("draws", value, minimum=1) == 3
    assert type(as_int("draws", value, minimum=1)) is int


@pytest.mark.parametrize("value", [0, -1, 2.0, "2", True, None, np.float64(2)])
def test_as_int_refuses_with_field_and_rule(value):
    with pytest.raises(ValueError, match=r"^draws: must be an integer >= 1"):
        as_int("draws", value, minimum=1)


def test_as_int_none_only_when_allowed():
    assert as_int("workers", None, minimum=0, allow_none=True) is None
    with pytest.raises(ValueError, match="or None"):
        as_int("workers", "x", minimum=0, allow_none=True)


@pytest.mark.parametrize("value", [0, 1, -0.5, 1.5, float("nan"), "0.1", True])
def test_as_probability_refuses_outside_the_open_interval(value):
    with pytest.raises(ValueError, match=r"^alpha: must be a probability in \(0, 1\)"):
        as_probability("alpha", value)


def test_as_probability_and_seed_accept_good_values():
    assert as_probability("alpha", 0.01) == 0.01
    assert as_seed("seed", 0) == 0
    assert as_seed("seed", None, allow_none=True) is None
    with pytest.raises(ValueError, match="seed: must be an integer >= 0"):
        as_seed("seed", -1)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([2**63], "at most 2^53"),  # once wrapped to -2^63 through int64
        ([2**53 + 1], "at most 2^53"),  # once rounded to 2^53 through float64
        (np.array([1, 2**60], dtype=np.uint64), "at most 2^53"),
        ([-1], ">= 0"),
        ([1.5], "integers"),
    ],
)
def test_counts_are_checked_exactly_not_through_floats(value, message):
    with pytest.raises(ValueError, match=f"counts: .*{re.escape(message)}"):
        as_count_array("counts", value)


def test_counts_up_to_2_to_the_53_are_kept_exactly():
    counts = as_count_array("counts", [0, 2**53, np.int64(7)])
    assert counts.dtype == np.int64 and counts.tolist() == [0, 2**53, 7]


@pytest.mark.parametrize(
    ("check", "value", "message"),
    [
        (as_positive_array, -1.0, "timeout: must be > 0, found -1"),
        (as_finite_array, float("nan"), "timeout: must be finite, found nan"),
    ],
)
def test_a_single_bad_number_is_named_without_an_empty_index(check, value, message):
    # `zoo validate --timeout -1` said "found -1 at index ()".
    with pytest.raises(ValueError) as raised:
        check("timeout", value)
    assert str(raised.value) == message
    with pytest.raises(ValueError, match=r"found -1 at index \(1,\)$"):
        as_positive_array("timeout", [1.0, -1.0])
