"""What the scikit-learn estimators of the labelled models share: unlabelled rows.

scikit-learn's convention for semi-supervised learning, and the zoo's own
(:data:`zoo.models.labelings.MISSING`), is that a label of ``-1`` marks an unlabelled
row. With such rows the posterior of a conjugate classifier is a finite mixture over
the labelings of those rows, each labeling a conjugate posterior weighted by its
marginal likelihood (Nigam et al., Machine Learning 39, 2000). The estimators
represent it the same way whether the mixture was enumerated or sampled:

- ``labelings`` of shape (C, U): the class (an index into ``classes_``) of each
  unlabelled row under each component, and ``weights`` of shape (C,) summing to 1.
  Enumerated: every labeling with its exact weight (:class:`zoo.models.labelings.Labelings`,
  pruned by :func:`zoo.models.labelings.heaviest`). Sampled: the distinct labelings
  visited by the model's collapsed Gibbs kernel (:func:`labeling_draws`), each weighted
  by how often it was visited, so that the predictive is the Rao-Blackwellised Monte
  Carlo average ``(1/S) sum_s p(y*, x* | D, z_s)``.

This module holds the checks of labels and weights, the cap on what is enumerated and
the Gibbs driver loop; the formulas stay with each model.
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import _check_sample_weight

from zoo.core.contract import Kernel
from zoo.models.labelings import MISSING, Labelings

__all__ = [
    "MAX_ENUMERATED",
    "check_enumeration",
    "checked_weights",
    "distinct_labelings",
    "generator",
    "labeling_draws",
    "unlabelled_rows",
]


#: Most labelings an estimator enumerates, whatever ``max_labelings`` allows: 2^24 =
#: 16,777,216. Their weights take 24 bytes each while they are normalised and pruned
#: (log weights, weights, the sort's order: 400 MB here), and at the 1.4 to 7.4
#: microseconds per labeling measured for the four estimators' weights (2 classes, 3 or
#: 6 features, 22 to 30 unlabelled rows, one core, 2026-11-26) they take half a minute
#: to two minutes, the whole fit about twice that. Past it an exact answer is out of
#: reach in a session and the Gibbs average is the way.
MAX_ENUMERATED = 2**24


def _duration(seconds: float) -> str:
    """``seconds`` in the unit a reader grasps: seconds, minutes, hours, days or years."""
    for unit, size in (("years", 365.25 * 86400.0), ("days", 86400.0)):
        if seconds >= 2.0 * size:
            return f"about {seconds / size:,.0f} {unit}"
    if seconds >= 3600.0:
        return f"about {seconds / 3600.0:.1f} hours"
    if seconds >= 120.0:
        return f"about {seconds / 60.0:.0f} minutes"
    return f"about {seconds:.0f} seconds"


def check_enumeration(
    space: Labelings, log_weights: Callable[[np.ndarray], object], per_labeling: int
) -> None:
    """Refuse an enumeration of more than :data:`MAX_ENUMERATED` labelings, before it starts.

    ``max_labelings`` promises an exact mixture up to that many labelings; a user who
    raises it far enough (``10**12`` with 30 unlabelled rows is ``2^30`` labelings)
    would otherwise start hours of work and gigabytes of weights without a word. The
    promise is not quietly broken by sampling instead: the error says how long the
    enumeration would take and how to get the Gibbs average (a lower
    ``max_labelings``).

    Parameters
    ----------
    space : Labelings
        The labelings the estimator is about to enumerate (``space.limit`` is its
        ``max_labelings``).
    log_weights : callable
        ``log_weights(index)`` computes the log weights of the labelings numbered
        ``index``, as the enumeration would; it is timed (CPU time of this process) on
        the enumeration's first chunk, a tenth of a second or so, to state the total.
    per_labeling : int
        Numbers held per labeling, which sets the chunks' size
        (:meth:`~zoo.models.labelings.Labelings.chunks`), as in the enumeration.

    Raises
    ------
    ValueError
        Naming ``max_labelings``, with the number of labelings, the time and memory
        they would take, and the cap.
    """
    if not space.enumerable or space.count <= MAX_ENUMERATED:
        return
    probe = next(space.chunks(per_labeling))
    start = time.process_time()
    log_weights(probe)
    seconds = max(time.process_time() - start, 1e-9) / probe.size
    # The weights alone: normalising, pruning and building the kept components come on
    # top (at 2^22 labelings the whole fit took about twice as long as its weights).
    raise ValueError(
        f"max_labelings: {space.n_classes}^{space.n_items} = {space.count:,} labelings of "
        f"the {space.n_items} unlabelled rows (each counted by its weight) would be "
        f"enumerated: {_duration(seconds * space.count)} for their weights alone, at the "
        f"{seconds * 1e6:.1f} microseconds per labeling measured here, and "
        f"{24 * space.count / 1e9:,.1f} GB to hold them. The estimators enumerate at "
        f"most 2^24 = {MAX_ENUMERATED:,} labelings whatever max_labelings allows: set "
        f"max_labelings below {space.count:,} to average over Gibbs draws of the labelings "
        "(n_draws sweeps), or label more rows"
    )


def unlabelled_rows(y: np.ndarray) -> np.ndarray:
    """Boolean mask of the rows labelled ``-1`` (unlabelled).

    String labels are never unlabelled; in an object array only the integer ``-1`` is.

    Raises
    ------
    ValueError
        Naming ``y`` when every row is unlabelled: a classifier needs at least one
        labelled row to know its classes.
    """
    y = np.asarray(y)
    if y.dtype.kind in "iuf":
        mask = y == MISSING
    elif y.dtype == object:
        mask = np.fromiter(
            (isinstance(v, numbers.Real) and not isinstance(v, bool) and v == MISSING for v in y),
            dtype=bool,
            count=y.shape[0],
        )
    else:
        mask = np.zeros(y.shape[0], dtype=bool)
    if y.shape[0] and mask.all():
        raise ValueError(
            f"y: every label is {MISSING} (unlabelled); at least one labelled row is needed "
            "to know the classes"
        )
    return mask


def checked_weights(sample_weight, X, unlabelled: np.ndarray) -> np.ndarray:
    """Validated sample weights as a new float array (ones when None).

    Weights are non-negative, one per row (scikit-learn's ``_check_sample_weight``).
    A labelled row may have any such weight: its likelihood is raised to that power,
    which keeps the posterior conjugate. An unlabelled row's likelihood is a mixture
    over classes, ``sum_k pi_k p(x | k)``, and only an integer power of a mixture is
    again a mixture over labelings (``w`` copies of the row, each with its own label),
    so an unlabelled row's weight must be an integer.

    Raises
    ------
    ValueError
        Naming ``sample_weight``: wrong length, a negative or non-finite weight, all
        weights zero, or a fractional weight on an unlabelled row.
    """
    try:
        weights = _check_sample_weight(
            sample_weight, X, dtype=np.float64, ensure_non_negative=True, copy=True
        )
    except ValueError as err:
        raise ValueError(f"sample_weight: {err}") from err
    fractional = unlabelled & (weights != np.floor(weights))
    if fractional.any():
        where = int(np.argmax(fractional))
        raise ValueError(
            f"sample_weight: an unlabelled row (y = {MISSING}) takes an integer weight (a "
            f"weight w counts the row w times, each copy with its own label), found "
            f"{weights[where]:g} at row {where}"
        )
    return weights


def generator(random_state) -> np.random.Generator:
    """A NumPy ``Generator`` from a scikit-learn ``random_state``.

    An integer seeds ``numpy.random.default_rng`` directly (same seed, same draws);
    ``None`` or a ``RandomState`` gives a seed drawn from
    :func:`sklearn.utils.check_random_state`.
    """
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return np.random.default_rng(int(random_state))
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    return np.random.default_rng(seed)


def labeling_draws(
    kernel: Kernel, data, prior, *, n_draws: int, n_tune: int, rng: np.random.Generator
) -> np.ndarray:
    """Labels of the unlabelled items after each of ``n_draws`` sweeps of ``kernel``.

    One chain: ``kernel.init``, ``n_tune`` sweeps discarded, then one stored draw per
    sweep. ``data`` must have a ``labels`` field with ``-1`` for the unlabelled items
    and ``unlabelled`` (their indices); the state must hold ``labels``, as every
    labelled model's collapsed kernel does.

    Returns
    -------
    ndarray of int, shape (n_draws, U)
    """
    hidden = data.unlabelled
    state = kernel.init(data, prior, rng)
    for _ in range(n_tune):
        state = kernel.step(state, data, prior, rng)
    draws = np.empty((n_draws, hidden.size), dtype=np.int64)
    for s in range(n_draws):
        state = kernel.step(state, data, prior, rng)
        draws[s] = np.asarray(state.labels)[hidden]
    return draws


def distinct_labelings(draws: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of ``draws``, the share of draws each takes, and which is each draw.

    Averaging a function of the labeling over the draws equals its average over the
    distinct labelings with these weights; a concentrated posterior then costs one
    component, not ``n_draws``.

    Returns
    -------
    labelings : ndarray of int, shape (C, U)
        The distinct labelings, in lexicographic order.
    weights : ndarray, shape (C,)
        Share of the draws equal to each.
    index : ndarray of int, shape (n_draws,)
        ``labelings[index]`` is ``draws``: the chain in sweep order, for Monte Carlo
        standard errors that account for autocorrelation.
    """
    labelings, index, counts = np.unique(draws, axis=0, return_inverse=True, return_counts=True)
    return labelings, counts / counts.sum(), index.reshape(-1)
