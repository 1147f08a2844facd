"""``LastResolved``: the last result by identity, weakly held."""

import gc
import weakref

import numpy as np

from zoo.models import gaussian_classifiers, lda
from zoo.models.memo import LastResolved


def test_the_same_pair_is_resolved_once_and_an_equal_one_again():
    calls = []
    last = LastResolved()
    prior = lda.Prior(alpha=0.5, beta=0.1)
    data = lda.Data([[0, 1], [1, 2]], topics=2)

    def resolve(d):
        calls.append(d)
        return prior.resolve(d)

    first = last(prior, data, resolve)
    assert last(prior, data, resolve) is first and len(calls) == 1
    twin = lda.Data([[0, 1], [1, 2]], topics=2)
    assert last(prior, twin, resolve) is not first and len(calls) == 2
    assert last(lda.Prior(alpha=0.5, beta=0.1), twin, resolve) is not first and len(calls) == 3


def test_what_was_resolved_is_not_kept_alive():
    last = LastResolved()
    data = gaussian_classifiers.Data(
        np.array([[0.0, 1.0], [1.0, 0.5], [2.0, 2.5], [3.0, 1.0]]), [0, 1, 0, 1]
    )
    prior = gaussian_classifiers.Prior()
    last(prior, data, prior.resolve)
    gone = weakref.ref(data)
    del data
    gc.collect()
    assert gone() is None


def test_gda_prior_resolve_hands_back_its_last_result():
    x = np.array([[0.0, 1.0], [1.0, 0.5], [2.0, 2.5], [3.0, 1.0], [0.5, 0.2]])
    data, prior = gaussian_classifiers.Data(x, [0, 1, 0, 1, -1]), gaussian_classifiers.Prior()
    first = prior.resolve(data)
    assert prior.resolve(data) is first
    assert not first.psi0.flags.writeable  # shared, so read-only
    assert gaussian_classifiers.Prior(kappa0=2.0).resolve(data).kappa0 == 2.0
