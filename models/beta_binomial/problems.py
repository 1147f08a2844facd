"""Beta-Binomial: the data sets ``zoo check`` and ``zoo validate`` run on, with exact answers."""

from __future__ import annotations

from zoo.datasets import rat_tumours
from zoo.models.beta_binomial.spec import Data, Prior

__all__ = ["default_problem", "validation_problems"]


def default_problem() -> tuple[Data, Prior]:
    """The rat tumour data (BDA3 Table 5.1) under the BDA3 hyperprior."""
    rats = rat_tumours()
    return Data(rats["tumours"], rats["rats"], groups=rats["experiment"]), Prior()


def validation_problems() -> list[tuple[str, Data, Prior]]:
    """Three problems, each sensitive to a different part of a derivation.

    - ``rats-hierarchical``: the rat tumours under the BDA3 hyperprior (heavy-tailed
      a + b: the collapsed update of (a, b) and its Jacobian).
    - ``informative-fixed``: fixed, strongly asymmetric ``Beta(2, 8)`` on five groups of
      ten with successes from 0 to 9: the conjugate update ``Beta(a + y, b + n - y)``, where
      swapping a and b or successes and failures moves every theta.
    - ``overdispersed-truncated``: the proper prior truncated at ``a + b >= 1`` on six
      small groups whose rates range from 0 to 0.9: the spread pulls ``a + b`` down
      against the truncation, so the prior's support shows in the posterior (sampling
      the untruncated posterior moves ``log_concentration`` by 1.26 posterior sd; on
      the six homogeneous groups this problem replaces, by 0.009 sd:
      ``bench/results/catalogue/problem_sensitivity.md``).
    """
    rats, bda3 = default_problem()
    return [
        ("rats-hierarchical", rats, bda3),
        ("informative-fixed", Data([0, 1, 3, 5, 9], [10, 10, 10, 10, 10]), Prior(a=2.0, b=8.0)),
        (
            "overdispersed-truncated",
            Data([0, 9, 1, 11, 2, 14], [12, 12, 15, 14, 10, 16]),
            Prior(min_concentration=1.0),
        ),
    ]
