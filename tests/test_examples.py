"""Every script in examples/ runs, with small settings, and prints its result."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
MODEL_EXAMPLES = ["beta_binomial_rats.py", "naive_bayes_digits.py", "gda_iris.py"]
# Models outside the zoo, specified in PyMC, each with a Gibbs sampler and planted bugs
# (their statistics: tests/examples/).
OUTSIDE_EXAMPLES = [
    "pump_failures.py",
    "semi_conjugate_normal.py",
    "probit_regression.py",
    "linear_regression.py",
    "eight_schools.py",
    "coal_mining.py",
    "gaussian_mixture.py",
    "dirichlet_multinomial.py",
]
SMALL = ["--draws", "100", "--tune", "100", "--chains", "2"]


def _run(script, *args):
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_every_example_is_tested():
    tested = {
        *MODEL_EXAMPLES,
        *OUTSIDE_EXAMPLES,
        "validate_my_sampler.py",
        "lda_pydoc_topics.py",
        # not scripts: the package marker and the outside examples' harness (its tests:
        # tests/examples/test_harness.py)
        "__init__.py",
        "harness.py",
    }
    assert {p.name for p in EXAMPLES.glob("*.py")} == tested


@pytest.mark.pymc
@pytest.mark.parametrize(
    "script",
    # One in the default run; the mixture models' (30 to 50 s cold each) with -m slow.
    [
        "beta_binomial_rats.py",
        pytest.param("naive_bayes_digits.py", marks=pytest.mark.slow),
        pytest.param("gda_iris.py", marks=pytest.mark.slow),
    ],
)
def test_model_example_shows_three_forms_and_the_check(script):
    out = _run(script, *SMALL)
    assert "exact" in out and "gibbs" in out and "pymc" in out
    for line in ("Gibbs vs exact:", "PyMC vs exact:", "Gibbs vs PyMC:"):
        assert line in out


@pytest.mark.slow  # 23 s: the default run stays under 10 minutes on 2 cores, cold
def test_validate_my_sampler_passes_the_correct_kernel_and_catches_the_bug():
    # Default settings (4 x 1000 independent draws): it takes a few seconds.
    out = _run("validate_my_sampler.py")
    lines = out.splitlines()
    assert "  correct kernel: agree" in lines
    assert "  swapped a, b kernel: disagree" in lines
    assert any(line.startswith("  correct kernel: agree (0 of 71") for line in lines)
    assert any(line.startswith("  swapped a, b kernel: disagree (") for line in lines)
    assert "  correct sampler: pass" in lines
    assert "  swapped a, b sampler: fail" in lines


@pytest.mark.pymc
@pytest.mark.slow  # 30 s cold; the LDA model's own tests run by default
def test_lda_example_finds_topics_in_pythons_help_pages():
    out = _run("lda_pydoc_topics.py", *SMALL, "--topics", "4")
    assert "79 pages" in out
    assert sum(line.startswith("  topic ") for line in out.splitlines()) == 4
    assert "Gibbs vs PyMC (doc_word, coassignment):" in out
    assert "Gibbs vs exact (exact mixture over all 512" in out


@pytest.mark.pymc
@pytest.mark.parametrize(
    ("script", "bug"),
    # With -m slow (20 to 35 s each, cold): every kernel and bug of every example is
    # checked in tests/examples/ by default; this runs the scripts end to end.
    [
        pytest.param("pump_failures.py", "rate-as-scale", marks=pytest.mark.slow),
        pytest.param("semi_conjugate_normal.py", "variance-as-sd", marks=pytest.mark.slow),
        pytest.param("probit_regression.py", "wrong-side", marks=pytest.mark.slow),
    ],
)
def test_example_outside_the_zoo_passes_its_kernel_and_fails_a_bug(script, bug):
    # Small: NUTS comparison, 20 SBC simulations and the invariance check, on the
    # correct kernel and one planted bug (every bug is caught in tests/examples/).
    out = _run(
        script,
        *("--only", f"correct,{bug}", "--checks", "nuts,sbc,invariance"),
        *("--draws", "1000", "--chains", "2", "--simulations", "20"),
    )
    lines = out.splitlines()
    assert "zoo.validate on the correct kernel" in lines[0]
    assert lines[1] == "  correct: pass (nuts pass, sbc pass, invariance pass)"
    assert lines[2].startswith(f"  {bug}: fail (")
