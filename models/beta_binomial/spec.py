"""Beta-Binomial: hyperparameters, observed data and simulation from the prior.

``theta_j ~ Beta(a, b)`` and ``y_j ~ Binomial(n_j, theta_j)`` for groups ``j``. The
hyperparameters are either fixed numbers or given the hyperprior of Gelman et al.,
*Bayesian Data Analysis* (3rd ed., 2013), section 5.3, eq. 5.9:
``p(a, b) ∝ (a + b)^(-5/2)``.

That hyperprior is uniform on ``(a / (a + b), (a + b)^(-1/2))`` (BDA3, p. 110), so it
factorises as ``a / (a + b) ~ Uniform(0, 1)`` and a concentration ``c = a + b`` with
density ``∝ c^(-3/2)``, improper at ``c -> 0``. Truncating it to ``c >= c_min`` gives a
proper prior (a Pareto with shape 1/2) that can be simulated from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zoo.core.arguments import (
    as_count_array,
    as_int,
    as_positive_scalar,
    check_generator,
    require_same_length,
)

__all__ = ["Data", "Prior", "augment", "simulate"]


@dataclass(frozen=True)
class Prior:
    """Hyperparameters of the Beta-Binomial model.

    Parameters
    ----------
    a, b : float, optional
        Fixed Beta hyperparameters (pseudo-counts of successes and failures). Give both
        or neither: with neither, ``(a, b)`` get the BDA3 hyperprior
        ``p(a, b) ∝ (a + b)^(-5/2)``.
    min_concentration : float, optional
        Hierarchical prior only: truncate the hyperprior to ``a + b >= min_concentration``,
        which makes it proper (needed to :func:`simulate` from it). ``None`` keeps the
        improper hyperprior of the book.

    Examples
    --------
    >>> Prior(a=5, b=5)            # fixed: the seeds' 1:1 pseudo-counts
    >>> Prior()                    # hierarchical, BDA3 section 5.3
    """

    a: float | None = None
    b: float | None = None
    min_concentration: float | None = None

    def __post_init__(self):
        if (self.a is None) != (self.b is None):
            raise ValueError(
                "a, b: give both fixed hyperparameters or neither (neither means the "
                "hierarchical prior p(a, b) ∝ (a + b)^(-5/2))"
            )
        if self.a is not None:
            object.__setattr__(self, "a", as_positive_scalar("a", self.a))
            object.__setattr__(self, "b", as_positive_scalar("b", self.b))
            if self.min_concentration is not None:
                raise ValueError(
                    "min_concentration: only applies to the hierarchical prior (a and b unset)"
                )
        elif self.min_concentration is not None:
            object.__setattr__(
                self,
                "min_concentration",
                as_positive_scalar("min_concentration", self.min_concentration),
            )

    @property
    def hierarchical(self) -> bool:
        """True when ``(a, b)`` are unknown and carry the BDA3 hyperprior."""
        return self.a is None

    @property
    def proper(self) -> bool:
        """True when the prior is a probability distribution (can be simulated from)."""
        return not self.hierarchical or self.min_concentration is not None


@dataclass(frozen=True, init=False)
class Data:
    """Successes out of trials in ``J >= 1`` independent groups.

    Parameters
    ----------
    successes : array-like of int, shape (J,)
        ``y_j``, the number of successes in group ``j``.
    trials : array-like of int, shape (J,)
        ``n_j >= y_j``, the number of trials in group ``j``.
    groups : array-like, shape (J,), optional
        Labels of the groups (coordinate ``group``); default ``0 .. J-1``.
    """

    successes: np.ndarray
    trials: np.ndarray
    groups: np.ndarray

    def __init__(self, successes, trials, groups=None):
        successes = as_count_array("successes", successes)
        trials = as_count_array("trials", trials)
        n_groups = require_same_length(successes=successes, trials=trials)
        if n_groups == 0:
            raise ValueError("successes: need at least one group, got none")
        _check_not_above(successes, trials)
        groups = np.arange(n_groups) if groups is None else np.array(groups, copy=True)
        if groups.shape != (n_groups,):
            raise ValueError(f"groups: expected {n_groups} labels, got shape {groups.shape}")
        if len(np.unique(groups)) != n_groups:
            raise ValueError("groups: labels must be unique")
        for array in (successes, trials, groups):
            array.flags.writeable = False
        object.__setattr__(self, "successes", successes)
        object.__setattr__(self, "trials", trials)
        object.__setattr__(self, "groups", groups)

    def with_successes(self, successes) -> Data:
        """The same groups and trials with new successes (a simulated data set).

        Only ``successes`` is checked: the rest was when this data set was built.
        Geweke's test builds 40,000 such data sets, and checking the groups' labels
        again for each was a tenth of its time.
        """
        successes = as_count_array("successes", successes)
        if successes.shape != self.trials.shape:
            raise ValueError(
                f"successes: expected shape {self.trials.shape}, got {successes.shape}"
            )
        _check_not_above(successes, self.trials)
        successes.flags.writeable = False
        new = object.__new__(type(self))
        object.__setattr__(new, "successes", successes)
        object.__setattr__(new, "trials", self.trials)
        object.__setattr__(new, "groups", self.groups)
        return new

    @property
    def failures(self) -> np.ndarray:
        """``n_j - y_j``."""
        return self.trials - self.successes

    @property
    def coords(self) -> dict[str, np.ndarray]:
        """Coordinates of the model's dims."""
        return {"group": self.groups}

    @property
    def observed_data(self) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
        """Observed variables with their dims, as PyMC stores them."""
        return {"y": (self.successes, ("group",))}

    @property
    def constant_data(self) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
        """Fixed inputs with their dims, as PyMC stores them."""
        return {"trials": (self.trials, ("group",))}


def _check_not_above(successes: np.ndarray, trials: np.ndarray) -> None:
    over = successes > trials
    if over.any():
        j = int(np.argmax(over))
        raise ValueError(
            f"successes: must not exceed trials, found {successes[j]} successes in "
            f"{trials[j]} trials for group {j}"
        )


def simulate(prior: Prior, rng: np.random.Generator, *, groups: int = 10, trials=20):
    """Draw ``(truth, data)`` from the prior predictive distribution.

    Parameters
    ----------
    prior : Prior
        Must be proper: a hierarchical prior needs ``min_concentration``.
    rng : numpy.random.Generator
        Source of randomness.
    groups : int
        Number of groups ``J``.
    trials : int or array-like of int
        Trials per group, one number for all or one per group.

    Returns
    -------
    truth : dict of str to ndarray
        The drawn parameters under the names both engines use.
    data : Data
    """
    check_generator("rng", rng)
    if not prior.proper:
        raise ValueError(
            "prior: the hyperprior p(a, b) ∝ (a + b)^(-5/2) is improper and cannot be "
            "simulated from; set min_concentration to truncate it"
        )
    groups = as_int("groups", groups, minimum=1)
    trials = np.broadcast_to(as_count_array("trials", trials, ndim=None), (int(groups),))
    truth: dict[str, np.ndarray] = {}
    if prior.hierarchical:
        mean = rng.uniform()
        # Inverse CDF of the Pareto(1/2) concentration: P(c > x) = (x / c_min)^(-1/2).
        concentration = prior.min_concentration / (1.0 - rng.uniform()) ** 2
        a, b = mean * concentration, (1.0 - mean) * concentration
        truth.update(
            a=np.float64(a),
            b=np.float64(b),
            logit_mean=np.float64(np.log(a / b)),
            log_concentration=np.float64(np.log(concentration)),
        )
    else:
        a, b = prior.a, prior.b
    theta = rng.beta(a, b, size=int(groups))
    truth["theta"] = theta
    successes = rng.binomial(trials, theta)
    return truth, Data(successes, trials)


def augment(data: Data, params, prior: Prior, rng: np.random.Generator) -> Data:
    """``data`` with as many trials again in every group, drawn given ``params``.

    The observation axis of a group is its trials: ``y_new_j ~ Binomial(n_j,
    theta_j)``, independent of ``y_j`` given ``theta_j``, and the binomial counts of
    both sets add (``y_j + y_new_j`` successes in ``2 n_j`` trials: the same likelihood
    of ``theta_j`` up to a constant). What posterior SBC fits.
    """
    check_generator("rng", rng)
    theta = np.asarray(params["theta"], dtype=float)
    if theta.shape != data.trials.shape:
        raise ValueError(f"params: theta must have shape {data.trials.shape}, got {theta.shape}")
    new = rng.binomial(data.trials, theta)
    return Data(data.successes + new, 2 * data.trials, groups=data.groups)
