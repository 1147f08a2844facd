"""The small parts of the battery: problem selection, the reference cache, source digests."""

import hashlib
import tomllib
from pathlib import Path

import numpy as np

import zoo
from zoo.core.loading import load_object
from zoo.validation import SamplerUnderTest, validate
from zoo.validation.problem_selection import Problem, choose_problems
from zoo.validation.reference_cache import exact_reference
from zoo.validation.source_digest import source_digest

SPEC = zoo.get("beta-binomial")
ROOT = Path(__file__).resolve().parents[2]
USER_FILE = ROOT / "tests" / "support" / "user_samplers.py"


def test_a_callers_data_set_is_never_answered_from_the_cache():
    (own,) = choose_problems(SPEC, ["informative-fixed"])
    assert own.own
    kept = exact_reference(SPEC, own)
    assert exact_reference(SPEC, own) is kept  # the model's own fixed data: kept
    mine = SPEC.Data([9, 8, 6, 4, 1], [10, 10, 10, 10, 10])  # the same design, other data
    (theirs,) = choose_problems(SPEC, [("informative-fixed", mine, own.prior)])
    assert not theirs.own
    answer = exact_reference(SPEC, theirs)
    assert answer is not kept
    assert not np.allclose(answer["theta"].mean, kept["theta"].mean)


def test_two_data_sets_of_one_name_are_both_judged():
    prior = SPEC.Prior(a=2.0, b=3.0)
    problems = [("mine", SPEC.Data([2, 7], [10, 12]), prior), ("mine", SPEC.Data([5], [9]), prior)]
    sampler = load_object("tests.support.user_samplers:beta_binomial_conjugate")
    result = validate(
        SPEC,
        sampler,
        checks=("exact",),
        problems=problems,
        budgets={"exact": {"draws": 200}},
        workers=0,
    )
    (check,) = result.checks
    assert "2 data set(s) (mine, mine)" in check.summary
    assert check.verdict == "pass", str(result)


def test_source_digest_names_the_users_file_and_not_the_zoos():
    expected = hashlib.sha256(USER_FILE.read_bytes()).hexdigest()[:16]
    kernel = load_object("tests.support.user_samplers:own_state_kernel", field="kernel")
    function = load_object("tests.support.user_samplers:beta_binomial_conjugate")
    assert source_digest(SamplerUnderTest(SPEC, kernel=kernel)) == expected
    assert source_digest(SamplerUnderTest(SPEC, sampler=function)) == expected
    assert source_digest(SamplerUnderTest(SPEC)) is None
    assert source_digest(SamplerUnderTest(SPEC, fault="swapped-a-b")) is None


def test_problem_records_its_origin():
    assert Problem("x", None, None).own is False
    assert all(problem.own for problem in choose_problems(SPEC))


def test_the_validation_package_is_in_the_distribution():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "zoo.validation" in config["tool"]["setuptools"]["packages"]
