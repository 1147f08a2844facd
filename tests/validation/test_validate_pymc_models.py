"""``zoo validate`` on a user's PyMC model: nuts, sbc and kernel checks, and refusals.

The model is a Beta-Binomial with fixed hyperparameters (tests/support/pymc_models.py),
whose right sampler draws the exact posterior and whose wrong twin swaps the counts.
Every verdict comes from the battery's stated rate (alpha = 0.01 family-wise).
"""

import json
import os

import numpy as np
import pytest

import zoo
from tests.support import pymc_models
from zoo.cli import main
from zoo.diagnostics import geweke
from zoo.specification.adapter import specified_model
from zoo.validation import validate
from zoo.validation.results import COULD_NOT_JUDGE

MODEL = "tests.support.pymc_models:beta_binomial"
FAST = {
    "budgets": {"sbc": {"simulations": 40, "draws": 100}, "nuts": {"draws": 500}},
    "workers": 0,
}


@pytest.mark.pymc
def test_right_sampler_passes_nuts_and_sbc_and_the_swapped_one_fails():
    right = validate(MODEL, pymc_models.right, checks=("nuts", "sbc"), seed=1, **FAST)
    assert right.verdict == "pass", str(right)
    wrong = validate(MODEL, pymc_models.swapped, checks=("nuts", "sbc"), seed=1, **FAST)
    assert [c.verdict for c in wrong.checks] == ["fail", "fail"], str(wrong)
    assert any("theta[group=" in item for item in wrong.checks[0].failing)


def test_kernel_checks_run_on_a_users_kernel():
    right = validate(MODEL, kernel=pymc_models.KERNEL, checks=("invariance",), seed=1, workers=0)
    assert [c.verdict for c in right.checks] == ["pass"], str(right)
    # A kernel check alone tests the kernel's parts, not its target: never a PASS.
    assert right.verdict == "inconclusive", str(right)
    wrong = validate(
        MODEL, kernel=pymc_models.KERNEL_SWAPPED, checks=("invariance",), seed=1, workers=0
    )
    assert wrong.verdict == "fail", str(wrong)
    assert "_step_swapped" in wrong.sampler


@pytest.mark.parametrize(("kernel", "verdict"), [("KERNEL", "pass"), ("KERNEL_SWAPPED", "fail")])
def test_gewekes_chain_alternates_the_users_kernel_with_compiled_redraws(kernel, verdict):
    # The diagnostic itself on the specified model, at a budget the default run affords.
    # Redrawing y ~ Binomial(40, theta) ties theta to its last value (lag-one
    # autocorrelation near 40 / 45), so 2 chains of 4,000 steps in 10 batches each.
    model = specified_model(MODEL, kernel=getattr(pymc_models, kernel))
    result = geweke(model, model.kernel, draws=2000, chains=2, iterations=4000, batches=10, seed=1)
    assert result.verdict == verdict, str(result)


@pytest.mark.pymc
def test_an_unhealthy_nuts_reference_could_not_judge_never_a_verdict():
    result = validate(
        "tests.support.pymc_models:funnel",
        pymc_models.funnel_prior,
        checks=("nuts",),
        workers=0,
        budgets={"nuts": {"draws": 300}},
    )
    (check,) = result.checks
    assert check.verdict == COULD_NOT_JUDGE, str(result)
    (finding,) = check.findings
    assert finding.gate.startswith("NUTS unhealthy (") and "divergent" in finding.gate
    assert finding.cure.startswith("reparameterise the PyMC model")
    # No evidence either way, and neither exact nor SBC judged: inconclusive, not fail.
    assert result.verdict == "inconclusive"
    assert result.reason == "neither exact nor sbc judged; nuts could not judge"


@pytest.mark.pymc
def test_a_default_run_lists_exact_as_skipped_with_the_reason():
    # exact cannot run (a logistic regression on a 3-vector has no closed form, even
    # with one scalar integrated numerically: the funnel now has one, by quadrature over
    # log_scale): a default run says why.
    result = validate(
        "tests.support.pymc_models:logistic",
        pymc_models.logistic_prior,
        workers=0,
        budgets={"nuts": {"draws": 300}, "sbc": {"simulations": 20, "draws": 100}},
    )
    reason = "y: a Bernoulli observation reads beta; only Normal or MvNormal observations"
    assert reason in result.skipped["exact"]
    assert "exact      skipped" in str(result)
    assert result.to_dict()["skipped"] == result.skipped


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"model": pymc_models.improper, "checks": ("sbc",)}, "sigma has an improper prior"),
        (
            {"model": pymc_models.with_potential, "checks": ("geweke",), "sampler": None},
            "kernel",
        ),
        ({"model": pymc_models.with_potential, "checks": ("sbc",)}, "'soft_constraint'"),
        ({"model": pymc_models.unobserved}, "no observed variable"),
        ({"model": pymc_models.not_a_model}, "expected a pymc.Model"),
        ({"sampler": pymc_models.misnamed}, r"missing variable\(s\) \['theta'\]"),
        ({"fault": "swapped"}, "fault: only the zoo's own models"),
        ({"sampler": None}, "a PyMC model has no Gibbs kernel of the zoo's"),
        ({"sampler": 3}, "sampler: must be callable"),
        ({"kernel": pymc_models.KERNEL}, "give a sampler or a kernel, not both"),
        ({"exchangeable": ["theta:nope"]}, r"exchangeable: \['nope'\] are not free variables"),
        ({"exchangeable": "theta::"}, "exchangeable: 'theta::' must be 'PARAMS"),
    ],
)
def test_bad_input_is_refused_before_any_fit(kwargs, message):
    arguments = {"model": MODEL, "sampler": pymc_models.right, "workers": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        validate(arguments.pop("model"), arguments.pop("sampler"), **arguments)


def test_a_reference_is_for_pymc_models_only():
    with pytest.raises(ValueError, match="reference: only for a PyMC model"):
        zoo.validate("beta-binomial", reference=lambda data: None)
    with pytest.raises(ValueError, match="exchangeable: only for a PyMC model"):
        zoo.validate("beta-binomial", exchangeable=["theta"])


@pytest.mark.pymc
def test_cli_validates_a_users_model(capsys, tmp_path):
    common = ["--checks", "nuts", "--workers", "0", "--draws", "500", "--json"]
    status = main(
        [
            "validate",
            "--model",
            MODEL,
            "--sampler",
            f"{MODEL.split(':')[0]}:right",
            *common,
            "--report",
            str(tmp_path),
        ]
    )
    report = json.loads(capsys.readouterr().out)
    # nuts passed, but without exact or SBC the battery is not a PASS (exit 1).
    assert [c["verdict"] for c in report["checks"]] == ["pass"], report
    assert status == 1 and report["verdict"] == "inconclusive"
    assert report["reason"] == "neither exact nor sbc judged (nuts passed)"
    assert report["model"] == MODEL
    assert "Agreement with PyMC&#x27;s NUTS" in (tmp_path / "index.html").read_text()
    status = main(
        ["validate", "--model", MODEL, "--sampler", f"{MODEL.split(':')[0]}:swapped", *common]
    )
    report = json.loads(capsys.readouterr().out)
    assert status == 1 and report["verdict"] == "fail"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["validate"], "give a zoo model (MODEL"),
        (["validate", "gda", "--model", MODEL], "not both"),
        (["validate", "gda", "--reference", "a:b"], "--reference: only with --model"),
        (
            ["validate", "--model", "tests.support.pymc_models:not_a_model", "--sampler", "a:b"],
            "--sampler: cannot import module 'a'",
        ),
        (
            [
                "validate",
                "--model",
                "tests.support.pymc_models:not_a_model",
                "--sampler",
                "tests.support.pymc_models:right",
            ],
            "expected a pymc.Model",
        ),
        (
            [
                "validate",
                "--model",
                "tests.support.pymc_models:improper",
                "--sampler",
                "tests.support.pymc_models:right",
                "--checks",
                "sbc",
            ],
            "sigma has an improper prior",
        ),
    ],
)
def test_cli_refuses_bad_input_with_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_store_resumes_and_refuses_another_models_records(tmp_path):
    store = tmp_path / "sbc.jsonl"
    options = {
        "checks": ("sbc",),
        "budgets": {"sbc": {"simulations": 20, "draws": 60}},
        "workers": 0,
    }
    first = validate(MODEL, pymc_models.right, store=store, **options)
    lines = store.read_text().splitlines()
    assert len(lines) == 1 + 20
    header = json.loads(lines[0])
    assert header["header"]["sampler_source"] is not None
    assert header["header"]["model_source"] is not None
    again = validate(MODEL, pymc_models.right, store=store, **options)
    assert store.read_text().splitlines() == lines, "nothing was refitted"
    assert first.checks[0].details.n_simulations == again.checks[0].details.n_simulations
    other = "tests.support.pymc_models:two_data_sets"
    with pytest.raises(ValueError, match="model_source"):
        validate(other, pymc_models.right, store=store, **options)


def test_a_discrete_free_variable_with_a_users_reference():
    options = {
        "reference": pymc_models.which_mean_reference,
        "checks": ("exact", "sbc"),
        "budgets": {"sbc": {"simulations": 40, "draws": 100}},
        "workers": 0,
    }
    model = "tests.support.pymc_models:which_mean"
    right = validate(model, pymc_models.which_mean_sampler, **options)
    assert right.verdict == "pass", str(right)
    wrong = validate(model, pymc_models.which_mean_prior, **options)
    assert [c.verdict for c in wrong.checks] == ["fail", "fail"], str(wrong)


def test_a_reference_of_the_wrong_type_is_refused():
    with pytest.raises(ValueError, match=r"reference: must return a zoo\.Reference"):
        validate(
            "tests.support.pymc_models:which_mean",
            pymc_models.which_mean_sampler,
            reference=lambda data: {"k": 1},
            checks=("exact",),
            workers=0,
        )


def test_a_dask_worker_gets_the_same_ranks_as_this_process():
    # The model reaches the worker pickled as its graph, the sampler by reference.
    options = {"checks": ("sbc",), "budgets": {"sbc": {"simulations": 12, "draws": 60}}, "seed": 3}
    here = validate(MODEL, pymc_models.right, workers=0, **options)
    there = validate(MODEL, pymc_models.right, workers=1, **options)
    assert np.array_equal(here.checks[0].details.ranks, there.checks[0].details.ranks)


def test_the_users_sampler_never_runs_in_the_zoos_process_unasked(tmp_path, monkeypatch):
    # Issue 32: the two-draw output check ran the sampler here whatever --workers said.
    pids = tmp_path / "pids"
    monkeypatch.setenv("ZOO_TEST_PIDS", str(pids))
    result = validate(
        pymc_models.beta_binomial,
        pymc_models.right_noting_its_process,
        checks=("exact",),
        workers=1,
        budgets={"exact": {"draws": 200}},
    )
    assert result.verdict == "pass", str(result)
    ran_in = {int(line) for line in pids.read_text().split()}
    assert ran_in and os.getpid() not in ran_in
