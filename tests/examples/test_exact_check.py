"""``zoo.validate``'s exact check on the classic examples, with a hand-written reference.

The references here are written by hand (``references.py``), independently of the
zoo's own derivation from the graph (``tests/specification``), and ``reference=`` gives
them to the check: the closed form, not the zoo's reading of it. The correct kernel
passes and each planted bug fails, through the same check a user runs. The kernels are those of
``test_posteriors.py``; here they run through the zoo's driver and its own verdict.
"""

import pytest

import zoo
from examples import dirichlet_multinomial, linear_regression
from tests.examples import references


def known_noise_reference(data):
    """The Gaussian posterior of the known-noise regression, for the data given."""
    r = linear_regression
    return references.regression_known_noise(data["y"], data["X"], sigma=r.SIGMA, s0=r.S0)


def nig_reference(data):
    """The Normal-Inverse-Gamma posterior, for the data given."""
    r = linear_regression
    return references.regression_nig(data["y"], data["X"], a=r.A, b=r.B, g=r.G)


def dirichlet_reference(data):
    """The Dirichlet posterior, for the data given."""
    return references.dirichlet_multinomial(data["counts"], alpha=dirichlet_multinomial.ALPHA)


CASES = {
    "known-noise": (linear_regression.EXAMPLES[0], known_noise_reference),
    "nig": (linear_regression.EXAMPLES[1], nig_reference),
    "dirichlet-multinomial": (dirichlet_multinomial.EXAMPLES[0], dirichlet_reference),
}
#: One pair by default (about 12 s each: the model is read and compiled per call); the
#: rest with -m slow (test_posteriors.py checks every bug against the same references).
BY_DEFAULT = {("dirichlet-multinomial", "correct"), ("dirichlet-multinomial", "prior-ignored")}
RUNS = [
    pytest.param(
        case, candidate, marks=() if (case, candidate) in BY_DEFAULT else pytest.mark.slow
    )
    for case, (example, _) in CASES.items()
    for candidate in ("correct", *example.bug_kernels)
]


@pytest.mark.pymc
@pytest.mark.parametrize(("case", "candidate"), RUNS)
def test_the_correct_kernel_passes_the_exact_check_and_each_bug_fails_it(case, candidate):
    example, reference = CASES[case]
    kernel = example.kernel if candidate == "correct" else example.bug_kernels[candidate]
    result = zoo.validate(
        example.model, kernel=kernel, reference=reference, checks=("exact",), seed=1, workers=0
    )
    (check,) = result.checks
    assert check.name == "exact"
    assert check.verdict == ("pass" if candidate == "correct" else "fail")
