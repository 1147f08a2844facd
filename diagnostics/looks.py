"""Repeated looks at a growing sample: its lengths and the rate each look spends.

A check whose sample grows while its Monte Carlo error is too large to judge (Geweke's
chains, the exact check's draws) looks at the data once per length. The lengths double
from the first to a stated maximum (:func:`stage_lengths`). Whether to go on is decided
by the sample's autocorrelation (ESS) alone, never by the difference under test, as in
the fixed-width stopping rules of MCMC output analysis (Glynn & Whitt 1992, "The
asymptotic validity of sequential stopping rules for stochastic simulations", Ann.
Appl. Probab. 2; Jones, Haran, Caffo & Neath 2006, JASA 101). The look where the sample
stops is judged at ``(1 - EARLY_SHARE) x alpha``; each earlier look may end the run with
a failure at its share of ``EARLY_SHARE x alpha``, split evenly over the looks that can
come before the last, so that a grossly wrong sampler does not run to the maximum. By
the union bound over the looks (Bonferroni, the simplest spending rule of Jennison &
Turnbull 2000, "Group sequential methods", ch. 7) the false-alarm rate over all looks is
at most ``alpha`` (``docs/design.md``, "Geweke's test: its test functions and its
length", and "The exact check's length").
"""

from __future__ import annotations

__all__ = ["EARLY_SHARE", "look_alpha", "stage_lengths"]

#: The share of ``alpha`` spent on the looks before the last, to end a run early on a
#: failure; the look where the sample stops has the rest.
EARLY_SHARE = 0.1


def stage_lengths(first: int, maximum: int) -> list[int]:
    """Every length the sample may reach: ``first`` doubled up to ``maximum``.

    The last is ``maximum`` itself (a doubling past it is cut to it); with ``maximum``
    at most ``first``, ``first`` is the only one.
    """
    lengths = [first]
    while lengths[-1] < maximum:
        lengths.append(min(2 * lengths[-1], maximum))
    return lengths


def look_alpha(alpha: float, first: int, maximum: int, *, last: bool) -> float:
    """The rate of a look: the one where the sample stops (``last``) or an earlier one.

    With no look before the last (``first >= maximum``) the one look has all of
    ``alpha``; otherwise the last has ``(1 - EARLY_SHARE) x alpha`` and each earlier one
    ``EARLY_SHARE x alpha`` over the number of looks before the last.
    """
    early = len(stage_lengths(first, maximum)) - 1
    if early == 0:
        return alpha
    return (1.0 - EARLY_SHARE) * alpha if last else EARLY_SHARE * alpha / early
