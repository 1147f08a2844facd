"""Read-only arrays and hyperparameters, as every model's ``Prior`` and ``Data`` keep them.

A model copies what a user passes and freezes the copy (``writeable = False``), so that
nothing the user holds is aliased and nothing a sampler holds can be changed under it.
The checks themselves are :mod:`zoo.core.arguments`; this module only adds the two
shapes the models' specs share.
"""

from __future__ import annotations

import numpy as np

from zoo.core.arguments import as_positive_array

__all__ = ["as_hyperparameter", "read_only"]


def read_only(array: np.ndarray) -> np.ndarray:
    """Mark ``array`` read-only and return it (the array itself, not a copy)."""
    array.flags.writeable = False
    return array


def as_hyperparameter(field: str, value, *, max_ndim: int) -> float | np.ndarray:
    """A positive scalar, or a read-only copy of a non-empty array of positive numbers.

    Parameters
    ----------
    field : str
        Name used in the error message.
    value : float or array-like
        The hyperparameter as given (a symmetric prior's scalar, or one value per class,
        feature or word).
    max_ndim : int
        Most dimensions the array may have.

    Raises
    ------
    ValueError
        Naming ``field``, for a boolean, a non-positive or non-finite entry, an empty
        array or too many dimensions.
    """
    if isinstance(value, bool):
        raise ValueError(f"{field}: expected positive numbers, got {value!r}")
    array = as_positive_array(field, value)
    if array.ndim == 0:
        return float(array)
    if array.ndim > max_ndim:
        raise ValueError(
            f"{field}: expected a scalar or an array of at most {max_ndim} dimensions, "
            f"got shape {array.shape}"
        )
    if array.size == 0:
        raise ValueError(f"{field}: expected positive numbers, got an empty array")
    return read_only(array)
