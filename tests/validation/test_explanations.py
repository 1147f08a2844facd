"""``zoo validate`` as a user meets it: no dead end for a fixed-prior sampler, verdicts
that say what failed and why, results that show themselves."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from zoo.cli import main
from zoo.diagnostics.findings import COULD_NOT_JUDGE
from zoo.validation import validate

ROOT = Path(__file__).resolve().parents[2]
SAMPLERS = "tests.support.user_samplers"
QUIET = ["--workers", "0", "--quiet"]


def _run(capsys, *args):
    status = main(["validate", "beta-binomial", *args, *QUIET, "--json"])
    return status, json.loads(capsys.readouterr().out)


def test_a_fixed_prior_sampler_is_validated_by_every_check_from_the_shell(capsys):
    # The README's recipe: the problems chosen share a fixed prior, so SBC draws from it
    # too (it used to draw from the hierarchical prior and every fit raised).
    recipe = ["--problems", "informative-fixed"]
    status, right = _run(capsys, "--sampler", f"{SAMPLERS}:beta_binomial_conjugate", *recipe)
    assert status == 0, right
    assert [c["check"] for c in right["checks"]] == ["exact", "sbc"]
    assert right["settings"]["sbc_prior"] == "the prior of informative-fixed"
    status, wrong = _run(capsys, "--sampler", f"{SAMPLERS}:beta_binomial_swapped", *recipe)
    assert status == 1
    assert {c["check"]: c["verdict"] for c in wrong["checks"]} == {"exact": "fail", "sbc": "fail"}


def test_sbc_prior_names_a_validation_problem(capsys):
    status, result = _run(
        capsys,
        "--sampler",
        f"{SAMPLERS}:beta_binomial_conjugate",
        "--checks",
        "sbc",
        "--sbc-prior",
        "informative-fixed",
        "--simulations",
        "40",
    )
    assert status == 0, result
    assert result["settings"]["sbc_prior"] == "the prior of informative-fixed"


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("nonesuch", "sbc_prior: beta-binomial has no validation problem 'nonesuch'"),
        ("rats-hierarchical", "sbc_prior: cannot simulate from the prior of rats-hierarchical"),
    ],
)
def test_a_bad_sbc_prior_is_refused_before_any_fit(capsys, option, message):
    assert main(["validate", "beta-binomial", "--sbc-prior", option, *QUIET]) == 2
    assert message in capsys.readouterr().err


def test_sbc_prior_and_sbc_setup_exclude_each_other():
    from zoo.models.beta_binomial import Prior

    with pytest.raises(ValueError, match="give sbc_prior or sbc_setup, not both"):
        validate(
            "beta-binomial",
            sbc_prior="informative-fixed",
            sbc_setup=(Prior(a=1.0, b=1.0), {"groups": 3, "trials": 5}),
        )


def test_when_every_sbc_fit_raises_the_message_says_what_to_change_once(capsys):
    # The fixed-prior sampler under the hierarchical simulation prior: a is None.
    status, result = _run(
        capsys,
        "--sampler",
        f"{SAMPLERS}:beta_binomial_conjugate",
        "--checks",
        "sbc",
        "--simulations",
        "20",
    )
    assert status == 1
    (sbc,) = result["checks"]
    assert sbc["summary"].count("TypeError") == 1
    assert "--sbc-prior PROBLEM" in sbc["summary"]
    (finding,) = sbc["findings"]
    assert finding["quantity"] == "20 simulations (0, 1, 2, ...)"


def test_every_failing_quantity_is_listed_with_its_numbers(capsys):
    status, result = _run(
        capsys, "--fault", "swapped-a-b", "--checks", "exact", "--draws", "500", "--chains", "2"
    )
    assert status == 1
    (exact,) = result["checks"]
    findings = exact["findings"]
    counts = exact["failing_per_problem"]
    # Every data set with a failure is counted, and every finding is in the JSON.
    assert sum(counts.values()) == len(findings) == len(exact["failing"])
    assert set(counts) == {f["problem"] for f in findings}
    for f in findings:
        if f["verdict"] == "fail" and f["statistic"] != "ks":
            for key in ("estimate", "reference", "mcse", "z", "p_adjusted"):
                assert f[key] is not None, (key, f)
    for problem, count in counts.items():
        verdicts = [f["verdict"] for f in findings if f["problem"] == problem]
        failed, unjudged = verdicts.count("fail"), verdicts.count("inconclusive")
        said = ", ".join(
            text
            for text in (
                f"{failed} failing" if failed else "",
                f"{unjudged} not judged" if unjudged else "",
            )
            if text
        )
        assert f"{problem}: {said}" in exact["summary"]
        if count > 3:
            assert f"and {count - 3} more" in exact["summary"]


def test_the_terminal_lists_findings_per_data_set_with_how_many_more(capsys):
    status = main(
        ["validate", "beta-binomial", "--fault", "swapped-a-b", "--checks", "exact", *QUIET]
    )
    out = capsys.readouterr().out
    assert status == 1
    assert "exact: fail" in out  # the findings table's title
    for column in ("statistic", "estimate", "reference", "MCSE", "z", "Holm p"):
        assert column in out
    assert "(exact)" in out


def test_results_have_a_short_repr_html_and_a_data_frame():
    from tests.support.user_samplers import beta_binomial_swapped

    result = validate(
        "beta-binomial",
        beta_binomial_swapped,
        checks=("exact",),
        problems=["informative-fixed"],
        workers=0,
    )
    assert repr(result) == (
        "ValidationResult(model='beta-binomial', sampler='tests.support.user_samplers:"
        "beta_binomial_swapped', verdict='fail', exact=fail)"
    ) or repr(result).startswith("ValidationResult(model='beta-binomial'")
    assert len(repr(result)) < 200 and len(repr(result.checks[0])) < 200
    assert "<table>" in result._repr_html_() and "<li>" in result._repr_html_()
    frame = result.to_dataframe()
    assert isinstance(frame, pd.DataFrame)
    assert len(frame) == len(result.checks[0].findings) > 0
    assert {"check", "quantity", "statistic", "estimate", "reference", "mcse", "z"} <= set(
        frame.columns
    )


def _script(tmp_path, body: str) -> subprocess.CompletedProcess:
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(body))
    return subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=600,
        check=False,
    )


def test_a_script_without_a_main_guard_runs_in_process_with_one_warning(tmp_path):
    done = _script(
        tmp_path,
        """
        import zoo

        result = zoo.validate(
            "beta-binomial", checks=("exact",), problems=["informative-fixed"], draws=300
        )
        print(result.verdict)
        """,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "pass"
    assert "Traceback" not in done.stderr and "Nanny" not in done.stderr
    warning = [line for line in done.stderr.splitlines() if "InProcessWarning" in line]
    assert len(warning) == 1 and 'if __name__ == "__main__":' in warning[0]
    assert warning[0].startswith(str(tmp_path / "script.py") + ":4:")


def test_a_guarded_call_is_not_taken_for_an_unguarded_one(tmp_path):
    done = _script(
        tmp_path,
        """
        from zoo.sampling.parallel import unguarded_script_call

        print(unguarded_script_call())

        if __name__ == "__main__":
            print(unguarded_script_call())
        """,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["script.py:4", "None"]


def test_geweke_iterations_set_the_chains_and_the_finding_says_how_many_would_do():
    result = validate(
        "beta-binomial",
        checks=("geweke",),
        budgets={"geweke": {"iterations": 400, "max_iterations": 400}},
        workers=0,
    )
    (geweke,) = result.checks
    assert "x 400 iterations" in geweke.head
    # 20 batches of 20 steps: the hyperparameters mix too slowly for that, and the
    # chains may not grow: the check could not judge, and says what would let it.
    assert geweke.verdict == COULD_NOT_JUDGE
    assert result.verdict != "fail"
    unjudged = [f for f in geweke.findings if f.verdict == COULD_NOT_JUDGE]
    assert unjudged and all(f.draws_per_chain > 400 for f in unjudged if f.draws_per_chain)
    assert all("max_iterations" in f.cure for f in unjudged)
    with pytest.raises(
        ValueError, match=r"budgets\['geweke'\]\['iterations'\]: must be .* >= 200"
    ):
        validate("beta-binomial", checks=("geweke",), budgets={"geweke": {"iterations": 10}})


def test_a_sampler_that_fails_alike_everywhere_is_said_once(capsys):
    sampler = ["--sampler", f"{SAMPLERS}:raises"]
    status = main(["validate", "beta-binomial", *sampler, "--checks", "exact", *QUIET])
    out = capsys.readouterr().out
    assert status == 1
    assert out.count("my sampler broke") == 1, out
    assert "rats-hierarchical, informative-fixed" in out
