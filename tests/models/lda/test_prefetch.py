"""The prefetch intrinsics (zoo.models.lda.prefetch): hints that read and write nothing."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from zoo.models.lda.prefetch import prefetch_cell, prefetch_item


@numba.njit
def _sum_with_hints(values, table):
    total = 0.0
    for i in range(values.shape[0]):
        # Indices past the end are legal for a hint: the instruction never faults.
        prefetch_item(values, i + 64)
        prefetch_cell(table, np.int32(i % table.shape[0]), table.shape[1] - 1)
        total += values[i]
    return total


def test_hints_change_no_value_and_accept_narrow_indices():
    values = np.arange(100, dtype=np.float64)
    table = np.arange(12, dtype=np.uint16).reshape(4, 3)
    before = (values.copy(), table.copy())
    assert _sum_with_hints(values, table) == values.sum()
    assert np.array_equal(values, before[0]) and np.array_equal(table, before[1])


def test_wrong_dimensions_are_a_typing_error():
    @numba.njit
    def cell_of_a_vector(values):
        prefetch_cell(values, 0, 0)

    @numba.njit
    def item_with_a_float(values):
        prefetch_item(values, 1.5)

    for function in (cell_of_a_vector, item_with_a_float):
        with pytest.raises(numba.core.errors.TypingError):
            function(np.zeros(3))
