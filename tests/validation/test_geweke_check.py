"""The Geweke check's budget: its rule is checked before any work, naming the field."""

import pytest

from zoo.core.defaults import GEWEKE_DRAWS, GEWEKE_PILOT
from zoo.validation import validate
from zoo.validation.battery import CHECKS


def test_the_budget_has_a_first_length_and_a_maximum():
    (check,) = [c for c in CHECKS if c.name == "geweke"]
    assert check.defaults() == {
        "iterations": 10000,
        "max_iterations": 20000,
        "marginal_draws": GEWEKE_DRAWS - GEWEKE_PILOT,
    }
    assert check.option(check.budget[1]) == "geweke-max-iterations"
    assert check.option(check.budget[2]) == "geweke-marginal-draws"


@pytest.mark.parametrize(
    ("budget", "message"),
    [
        (
            {"max_iterations": 5000},
            r"budgets\['geweke'\]\['max_iterations'\]: must be >= iterations = 10000 "
            r"\(the chains' first length\), got 5000",
        ),
        (
            {"iterations": 100000},
            r"budgets\['geweke'\]\['max_iterations'\]: must be >= iterations = 100000",
        ),
        ({"max_iterations": 100}, r"budgets\['geweke'\]\['max_iterations'\]: must be .* >= 200"),
        ({"max_iterations": 2.5}, r"budgets\['geweke'\]\['max_iterations'\]: must be an integer"),
    ],
)
def test_a_bad_budget_is_refused_before_any_work(budget, message):
    with pytest.raises(ValueError, match=message):
        validate("beta-binomial", checks=("geweke",), budgets={"geweke": budget}, workers=0)
