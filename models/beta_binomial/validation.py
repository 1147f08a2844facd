"""Beta-Binomial: the data sets ``zoo validate`` checks a sampler on, against exact answers."""

from __future__ import annotations

from zoo.models.beta_binomial.spec import Data, Prior

__all__ = ["validation_problems"]


def validation_problems() -> list[tuple[str, Data, Prior]]:
    """Three problems, each sensitive to a different part of a derivation.

    - ``rats-hierarchical``: the rat tumours under the BDA3 hyperprior (heavy-tailed
      a + b: the collapsed update of (a, b) and its Jacobian).
    - ``informative-fixed``: fixed, strongly asymmetric ``Beta(2, 8)`` on five groups of
      ten with successes from 0 to 9: the conjugate update ``Beta(a + y, b + n - y)``, where
      swapping a and b or successes and failures moves every theta.
    - ``six-groups-truncated``: the proper prior truncated at ``a + b >= 1`` on six small
      groups: few data, so the prior's shape shows in the posterior.
    """
    from zoo.models.beta_binomial import default_problem

    rats, bda3 = default_problem()
    return [
        ("rats-hierarchical", rats, bda3),
        ("informative-fixed", Data([0, 1, 3, 5, 9], [10, 10, 10, 10, 10]), Prior(a=2.0, b=8.0)),
        (
            "six-groups-truncated",
            Data([1, 4, 2, 7, 3, 9], [12, 15, 10, 14, 9, 20]),
            Prior(min_concentration=1.0),
        ),
    ]
