"""zoo.core.numerics: the central-difference Hessian."""

import numpy as np

from zoo.core.numerics import central_hessian


def test_central_hessian_is_exact_on_a_quadratic_and_close_on_a_smooth_function():
    a = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, -0.3], [0.0, -0.3, 3.0]])
    found = central_hessian(lambda x: 0.5 * x @ a @ x + x.sum(), np.array([0.2, -1.0, 0.7]))
    np.testing.assert_allclose(found, a, rtol=0, atol=1e-7)
    # exp(x0 + 2 x1) at 0: Hessian [[1, 2], [2, 4]], error O(h^2) = O(1e-6)
    found = central_hessian(lambda x: np.exp(x[0] + 2 * x[1]), np.zeros(2))
    np.testing.assert_allclose(found, [[1.0, 2.0], [2.0, 4.0]], rtol=1e-5)
