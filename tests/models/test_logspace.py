"""``logsumexp``: scipy's values, -inf terms and slices, any axis."""

import numpy as np
import pytest
from scipy import special

from zoo.models.logspace import log_sum_exp_vector, logsumexp


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_agrees_with_scipy(axis, keepdims):
    values = np.random.default_rng(0).normal(scale=300.0, size=(4, 5, 3))
    np.testing.assert_allclose(
        logsumexp(values, axis=axis, keepdims=keepdims),
        special.logsumexp(values, axis=axis, keepdims=keepdims),
        rtol=1e-13,
    )


def test_minus_infinity_terms_add_nothing_and_an_empty_mixture_is_minus_infinity():
    values = np.array([[-np.inf, 0.0, np.log(3.0)], [-np.inf, -np.inf, -np.inf]])
    with np.errstate(invalid="raise"):
        out = logsumexp(values)
    assert out[0] == pytest.approx(np.log(4.0), rel=1e-15)
    assert out[1] == -np.inf


def test_large_terms_do_not_overflow():
    assert logsumexp(np.array([1000.0, 1000.0])) == pytest.approx(1000.0 + np.log(2.0))


def test_the_compiled_vector_form_agrees_with_the_numpy_one():
    rng = np.random.default_rng(0)
    for values in (
        rng.normal(0.0, 30.0, 7),
        np.array([1000.0, 1000.0]),
        np.array([-np.inf, 0.0, np.log(3.0)]),
        np.full(3, -np.inf),
    ):
        assert log_sum_exp_vector(values) == pytest.approx(logsumexp(values), rel=1e-14)
