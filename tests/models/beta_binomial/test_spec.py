"""The Beta-Binomial's augment: more trials per group, drawn given theta."""

import numpy as np
import pytest

from zoo.models.beta_binomial import MODEL, Data, Prior
from zoo.models.beta_binomial.spec import augment


def test_augment_doubles_the_trials_and_adds_binomial_successes():
    data = Data([3, 0, 7], [10, 5, 8], groups=["a", "b", "c"])
    theta = np.array([0.3, 0.9, 0.5])
    joined = augment(data, {"theta": theta}, Prior(a=1, b=1), np.random.default_rng(0))
    assert joined.trials.tolist() == [20, 10, 16]
    assert joined.groups.tolist() == ["a", "b", "c"]
    new = joined.successes - data.successes
    assert ((new >= 0) & (new <= data.trials)).all()
    # The new successes are Binomial(n_j, theta_j): their mean over many draws.
    rng = np.random.default_rng(1)
    draws = np.array(
        [augment(data, {"theta": theta}, Prior(a=1, b=1), rng).successes for _ in range(4000)]
    )
    mean = (draws - data.successes).mean(axis=0)
    se = np.sqrt(data.trials * theta * (1 - theta) / 4000)
    assert (np.abs(mean - data.trials * theta) < 5 * se).all()
    assert data.successes.tolist() == [3, 0, 7]  # nothing given is modified


def test_augment_refuses_a_theta_of_another_shape():
    data = Data([3, 0], [10, 5])
    with pytest.raises(ValueError, match=r"params: theta must have shape \(2,\)"):
        augment(data, {"theta": np.array([0.5])}, Prior(a=1, b=1), np.random.default_rng(0))


def test_the_model_offers_it():
    assert MODEL.augment is augment
