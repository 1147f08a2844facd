"""zoo.specification.exact: which closed form reads which part of a user's model.

A model whose linear-Gaussian part and Gamma-Poisson part are independent gets both
references, each as it would alone; ``zoo.exact_reference`` takes the model in every
form ``zoo.validate`` does. The closed forms themselves are tested in
test_linear_gaussian.py and test_conjugacy.py.
"""

import numpy as np
import pymc as pm
import pytest
from scipy import stats

import zoo
from tests.specification.test_linear_gaussian import (
    DESIGN,
    NOISE,
    PRIOR_MEAN,
    PRIOR_SD,
    Y,
    assert_matches,
    reference_of,
    regression,
)


def test_a_linear_gaussian_part_and_a_gamma_poisson_part_in_one_model():
    counts = np.array([3, 5, 2])
    with pm.Model() as model:
        beta = pm.Normal("beta", PRIOR_MEAN, PRIOR_SD)
        lam = pm.Gamma("lam", 2.0, 1.0)
        pm.Normal("y", DESIGN @ beta, NOISE, observed=Y)
        pm.Poisson("c", lam, observed=counts)
    reference = zoo.exact_reference(model)
    assert list(reference.marginals) == ["beta", "lam"]
    assert_matches(reference["lam"], stats.gamma(2.0 + counts.sum(), scale=1 / 4.0), ())
    alone = reference_of(regression())["beta"]
    np.testing.assert_allclose(reference["beta"].mean, alone.mean, rtol=1e-12)


def test_exact_reference_takes_a_builder_and_a_list_of_data_sets():
    assert zoo.exact_reference(regression).available
    both = zoo.exact_reference([("first", regression()), ("second", regression(y=-Y))])
    assert set(both) == {"first", "second"}
    assert both["first"]["beta"].mean[0] != both["second"]["beta"].mean[0]
    with pytest.raises(ValueError, match=r"model: expected a pymc\.Model"):
        zoo.exact_reference(3)
