"""Labels, weights and Gibbs draws shared by the labelled models' estimators."""

import numpy as np
import pytest

from zoo.models.labelings import Labelings
from zoo.models.naive_bayes import Data, Prior
from zoo.models.naive_bayes.gibbs import kernel
from zoo.models.semi_supervised import (
    MAX_ENUMERATED,
    check_enumeration,
    checked_weights,
    distinct_labelings,
    generator,
    labeling_draws,
    unlabelled_rows,
)


def test_unlabelled_rows_by_label_type():
    np.testing.assert_array_equal(unlabelled_rows(np.array([0, -1, 2])), [False, True, False])
    np.testing.assert_array_equal(unlabelled_rows(np.array([0.0, -1.0])), [False, True])
    np.testing.assert_array_equal(
        unlabelled_rows(np.array(["a", -1, "-1", True], dtype=object)), [False, True, False, False]
    )
    np.testing.assert_array_equal(unlabelled_rows(np.array(["-1", "a"])), [False, False])
    with pytest.raises(ValueError, match=r"^y: every label is -1"):
        unlabelled_rows(np.array([-1, -1]))


def test_checked_weights():
    x = np.zeros((3, 2))
    mask = np.array([False, False, True])
    np.testing.assert_array_equal(checked_weights(None, x, mask), [1.0, 1.0, 1.0])
    given = np.array([0.5, 2.0, 3.0])
    checked = checked_weights(given, x, mask)
    checked[0] = 9.0
    assert given[0] == 0.5  # a new array: the caller's is never modified
    for bad, rule in (
        ([1.0, -1.0, 1.0], "Negative"),
        ([1.0, 1.0], "shape"),
        ([0.0, 0.0, 0.0], "non-zero"),
        ([1.0, 1.0, 1.5], "an unlabelled row"),
    ):
        with pytest.raises(ValueError, match=f"^sample_weight: .*{rule}"):
            checked_weights(np.array(bad), x, mask)


def test_generator_same_seed_same_stream():
    assert generator(5).random() == generator(5).random()
    assert (
        generator(np.random.RandomState(1)).random()
        == generator(np.random.RandomState(1)).random()
    )
    assert generator(None).random() != generator(None).random()


def test_labeling_draws_and_distinct_labelings():
    data = Data(
        np.array([[3, 1, 0], [0, 1, 4], [2, 2, 0], [0, 2, 3], [1, 1, 1]]),
        [0, 1, -1, -1, -1],
        classes=2,
    )
    draws = labeling_draws(kernel, data, Prior(), n_draws=300, n_tune=10, rng=generator(0))
    again = labeling_draws(kernel, data, Prior(), n_draws=300, n_tune=10, rng=generator(0))
    np.testing.assert_array_equal(draws, again)
    assert draws.shape == (300, 3) and set(np.unique(draws)) <= {0, 1}
    labelings, weights, index = distinct_labelings(draws)
    np.testing.assert_array_equal(labelings[index], draws)
    np.testing.assert_allclose(weights, np.bincount(index) / 300)
    assert len(np.unique(labelings, axis=0)) == len(labelings)


def _timed_weights(calls):
    def log_weights(index):
        calls.append(index.copy())
        return np.zeros(index.size)

    return log_weights


def test_an_enumeration_past_the_cap_is_refused_with_its_size_and_time():
    calls = []
    space = Labelings(2, 30, limit=10**12)
    with pytest.raises(
        ValueError,
        match=(
            r"^max_labelings: 2\^30 = 1,073,741,824 labelings of the 30 unlabelled rows .* "
            r"would be enumerated: about [\d.,]+ (seconds|minutes|hours|days|years) for their "
            r"weights alone, at the [\d.]+ microseconds per labeling measured here, and 25\.8 "
            r"GB to hold them\. .*at most 2\^24 = "
            r"16,777,216 labelings .*set max_labelings below 1,073,741,824"
        ),
    ):
        check_enumeration(space, _timed_weights(calls), 100)
    # Only the first chunk was computed (2e6 numbers at 100 a labeling), not the rest.
    assert len(calls) == 1
    np.testing.assert_array_equal(calls[0], np.arange(20_000))


def test_an_enumeration_within_the_cap_is_left_alone():
    calls = []
    check_enumeration(Labelings(2, 24, limit=MAX_ENUMERATED), _timed_weights(calls), 100)
    check_enumeration(Labelings(2, 30), _timed_weights(calls), 100)  # sampled, not enumerated
    assert calls == []
