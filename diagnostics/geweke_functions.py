"""Geweke's test functions: bounded functions of each scalar, fixed by a pilot sample.

Geweke (2004, sec. 2) compares the means of test functions ``g`` under two simulators
of the joint distribution, with a t test whose standard errors come from the sample
variance (marginal side) and from the means of the chains' independent segments
(chain side, :mod:`zoo.diagnostics.geweke`). Both need ``g`` to have a finite variance,
and the segments' means need it to settle over a segment's length. Raw
moments ``x`` and ``x**2`` of a heavy-tailed quantity (a variance under an inverse-gamma
prior of shape at most 2, a Gamma(0.1, 1) hyperparameter, a Wishart covariance's
elements) have neither: their standard errors are themselves too noisy to calibrate
the test, so the records showed false alarms on correct kernels and test functions
whose ESS never cleared the gate. And a raw second moment ``x**2 = (x - m)**2 + 2 m x
- m**2`` is dominated by the location when ``|m|`` is large next to the spread, so a
kernel that gets the spread wrong (the semi-conjugate normal's ``no-prior`` bug) went
unseen.

So every scalar ``x`` (each element of each tested variable and latent, and the
log-likelihood) is first put on the marginal-conditional scale: a *pilot* of independent
joint draws fixes its empirical distribution function ``F`` (mid-ranks against the
pilot, ``(rank + 1/2) / (n + 1)``), and ``x`` enters only through ``F(x)``. The
functions, each bounded, so all their moments exist whatever the tails of ``x``:

- ``z = Phi^-1(F(x))``, the *normal score* (the rank normalisation of Vehtari, Gelman,
  Simpson, Carpenter & Buerkner 2021, "Rank-normalization, folding, and localization",
  Bayesian Analysis 16, sec. 4, which ArviZ's bulk ESS uses): a centred, standardised
  first moment, N(0, 1) under the joint distribution up to the pilot's resolution
  (``|z| <= Phi^-1(1 - 1/(2 (n + 1)))``, 3.3 for 1,000 pilot draws); it sees location;
- ``z**2``, the centred second moment of the normal score (1 under the joint
  distribution): it sees spread, too wide or too narrow, whatever the location;
- ``1{x <= q_p}`` at the pilot's quantiles ``p`` = 10%, 50%, 90%: indicators, each a
  probability ``p`` under the joint distribution; the outer two see each tail's share
  (spread, skew), the median location.

The pilot draws are not among the marginal side's compared draws: given the pilot the
functions are fixed, and the compared draws are independent of it, so the t test is
the plain one. Discrete scalars (labels, counts) get the same functions; ties take
mid-ranks, and a function constant on both sides is not tested.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import special

__all__ = ["QUANTILES", "TestFunctions"]

#: Pilot quantiles whose indicators are test functions.
QUANTILES = (0.1, 0.5, 0.9)


class TestFunctions:
    """The test functions of a set of scalars, fixed by a pilot sample of them.

    Parameters
    ----------
    names : sequence of str
        One per scalar (``theta[group=3]``, ``log_likelihood``).
    pilot : array, shape (n, scalars)
        Independent joint draws of the scalars (the marginal-conditional simulator),
        ``n >= 2``.
    """

    # pytest would otherwise collect a class whose name starts with "Test".
    __test__ = False

    def __init__(self, names: Sequence[str], pilot):
        pilot = np.asarray(pilot, dtype=float)
        self.names = list(names)
        if pilot.ndim != 2 or pilot.shape[1] != len(self.names):
            raise ValueError(
                f"pilot: expected shape (draws, {len(self.names)}), got {pilot.shape}"
            )
        if pilot.shape[0] < 2:
            raise ValueError(f"pilot: needs at least 2 draws, got {pilot.shape[0]}")
        if not np.isfinite(pilot).all():
            raise ValueError("pilot: the marginal-conditional draws hold NaN or inf")
        self._sorted = np.sort(pilot, axis=0)
        # "inverted_cdf": each cut is a pilot value, so a discrete scalar's indicator
        # is P(x <= that value), not P(x <= a value between two of its points).
        self._cuts = np.quantile(pilot, QUANTILES, axis=0, method="inverted_cdf")

    def __len__(self) -> int:
        return len(self.names) * (2 + len(QUANTILES))

    def labels(self) -> list[str]:
        """``"normal score theta[0]"``, ``"squared normal score theta[0]"``, ...

        Ordered function by function: every scalar's normal score, then every squared
        score, then each quantile's indicators.
        """
        kinds = ["normal score", "squared normal score"]
        kinds += [f"P(x <= q{round(100 * p)})" for p in QUANTILES]
        return [f"{kind} {name}" for kind in kinds for name in self.names]

    def normal_scores(self, values) -> np.ndarray:
        """``Phi^-1(F(x))`` of each value against the pilot, shape of ``values``."""
        values = np.asarray(values, dtype=float)
        n = self._sorted.shape[0]
        ranks = np.empty_like(values)
        for j in range(values.shape[1]):
            column = self._sorted[:, j]
            below = np.searchsorted(column, values[:, j], side="left")
            at_or_below = np.searchsorted(column, values[:, j], side="right")
            ranks[:, j] = 0.5 * (below + at_or_below)
        return special.ndtri((ranks + 0.5) / (n + 1))

    def __call__(self, values) -> np.ndarray:
        """Every test function at each row of ``values`` (draws, scalars).

        Returns
        -------
        ndarray, shape (draws, len(self))
            In the order of :meth:`labels`.
        """
        values = np.asarray(values, dtype=float)
        if values.ndim != 2 or values.shape[1] != len(self.names):
            raise ValueError(
                f"values: expected shape (draws, {len(self.names)}), got {values.shape}"
            )
        scores = self.normal_scores(values)
        indicators = [(values <= cut).astype(float) for cut in self._cuts]
        return np.concatenate([scores, scores * scores, *indicators], axis=1)
