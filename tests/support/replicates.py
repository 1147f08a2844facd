"""A disagreement confirmed on an independent replicate before a test fails.

A fixed-seed agreement test at the family-wise rate alpha = 1% fails a correct sampler
once in a hundred seeds; the suite holds dozens of them, so any change of random
streams (as in 0.2, CHANGELOG.md) re-rolls every seed and some correct sampler is
bound to be flagged. A test that uses this helper fails only when the draws disagree
on the first seed *and* on an independent second one: a false-alarm rate of
alpha^2 = 1e-4 per test, while a real bug (which moves the posterior on every seed)
is caught as before. The second replicate is drawn only after a disagreement, so the
cost of a passing test is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable

from zoo.diagnostics import AgreementResult

#: Independent replicates: the run's own seed, then this offset from it.
SECOND_SEED_OFFSET = 1_000_003


def agreement_on_replicates(judge: Callable[[int], AgreementResult], seed: int) -> list:
    """Judge at ``seed``; after a disagreement, judge once more at an independent seed.

    Returns the results, one or two: the test's verdict is the best of them.
    """
    first = judge(seed)
    if first.verdict == "agree":
        return [first]
    return [first, judge(seed + SECOND_SEED_OFFSET)]
