"""Saved runs: Data/Prior round trips, the DataTree layout, `zoo report`, Ctrl-C."""

import dataclasses
import itertools
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import xarray as xr

import zoo
from tests.support.report_problems import PROBLEM, SPEC, gibbs_check
from zoo import registry
from zoo.check import judge
from zoo.cli import main
from zoo.cli.terminal import _drawn
from zoo.runs.problem_dataset import from_dataset, to_dataset
from zoo.runs.saved import FORMAT, load_runs, save_runs


def _same_judgement(a: dict, b: dict):
    """Same verdicts, row by row, and the same statistics up to rounding.

    Rebuilt from a file, the draws are bit-identical, but ArviZ's FFT-based ESS can
    differ in the last bits with the arrays' memory alignment.
    """
    assert a["verdict"] == b["verdict"]
    assert len(a["rows"]) == len(b["rows"])
    for x, y in zip(a["rows"], b["rows"], strict=True):
        for key, value in x.items():
            if isinstance(value, float):
                assert y[key] == pytest.approx(value, rel=1e-9, abs=1e-12), (x["element"], key)
            else:
                assert y[key] == value, (x["element"], key)


def _same_fields(a, b):
    assert type(a) is type(b)
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, list | tuple):
            assert len(x) == len(y)
            for u, v in zip(x, y, strict=True):
                np.testing.assert_array_equal(u, v)
        elif x is None or isinstance(x, str | bool | int | float):
            assert x == y, f.name
        else:
            assert np.asarray(x).dtype == np.asarray(y).dtype, f.name
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("name", zoo.names())
def test_every_model_problem_round_trips_through_netcdf(name, tmp_path):
    spec = zoo.get(name)
    data, prior = spec.default_problem()
    for obj in (data, prior):
        path = tmp_path / f"{type(obj).__name__}.nc"
        xr.DataTree(to_dataset(obj)).to_netcdf(path, engine="h5netcdf")
        back = from_dataset(type(obj), xr.open_datatree(path, engine="h5netcdf").load().dataset)
        _same_fields(obj, back)


def test_storing_rejects_what_it_cannot_rebuild():
    @dataclasses.dataclass(frozen=True)
    class Odd:
        table: dict

    with pytest.raises(ValueError, match=r"Odd\.table"):
        to_dataset(Odd({"a": 1}))
    with pytest.raises(ValueError, match="dataclass"):
        to_dataset({"a": 1})
    with pytest.raises(ValueError, match="does not take"):
        from_dataset(
            _Corpus,
            to_dataset(_Corpus([[1]], topics=1, vocabulary=["a", "b"])).assign_attrs(
                scalars='{"extra": 1}'
            ),
        )
    with pytest.raises(ValueError, match="holds a"):
        from_dataset(SPEC.Prior, to_dataset(PROBLEM[0]))


class _Corpus:
    """Built from token lists, held flat: its fields are not its constructor's arguments."""

    def __init__(self, corpus, *, topics, vocabulary):
        self.token_word = np.array([w for d in corpus for w in d], dtype=np.int64)
        self.doc_start = np.cumsum([0] + [len(d) for d in corpus])
        self.topics, self.vocabulary = topics, np.asarray(vocabulary)

    def stored_arguments(self):
        starts = self.doc_start
        corpus = [self.token_word[a:b] for a, b in itertools.pairwise(starts)]
        return {"corpus": corpus, "topics": self.topics, "vocabulary": self.vocabulary}


@pytest.mark.parametrize("documents", [[[1, 2, 3], [], [4, 4]], []])
def test_objects_with_stored_arguments_and_ragged_parts_round_trip(documents, tmp_path):
    corpus = _Corpus(documents, topics=2, vocabulary=["a", "b", "c", "d", "e"])
    path = tmp_path / "corpus.nc"
    xr.DataTree(to_dataset(corpus)).to_netcdf(path, engine="h5netcdf")
    back = from_dataset(_Corpus, xr.open_datatree(path, engine="h5netcdf").load().dataset)
    np.testing.assert_array_equal(back.token_word, corpus.token_word)
    np.testing.assert_array_equal(back.doc_start, corpus.doc_start)
    np.testing.assert_array_equal(back.vocabulary, corpus.vocabulary)
    assert back.topics == 2


def test_a_dataclass_whose_constructor_does_not_take_its_fields_must_say_how():
    @dataclasses.dataclass(frozen=True, init=False)
    class Flat:
        tokens: np.ndarray

        def __init__(self, corpus):
            object.__setattr__(self, "tokens", np.concatenate(corpus))

    with pytest.raises(ValueError, match="stored_arguments"):
        to_dataset(Flat([np.arange(3)]))


@pytest.fixture(scope="module")
def check():
    return gibbs_check()


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_saved_run_layout_and_verdicts_round_trip(check, suffix, tmp_path):
    path = save_runs(
        tmp_path / f"run{suffix}",
        [check.run],
        verdicts={check.model: check.verdicts()},
        command="zoo check beta-binomial",
    )
    if suffix == ".zarr":
        tree = xr.open_datatree(path, engine="zarr", consolidated=False)
    else:
        tree = xr.open_datatree(path, engine="h5netcdf")
    assert tree.attrs["format"] == FORMAT
    versions = json.loads(tree.attrs["versions"])
    for package in ("python", "bayes-zoo", "pymc", "pytensor", "arviz-base", "numpy", "numba"):
        assert package in versions
    node = tree["beta-binomial"]
    assert node.attrs["model"] == "beta-binomial"
    for key in ("seed", "draws", "tune", "chains", "alpha", "nuts_sampler", "versions"):
        assert key in node.attrs
    assert set(node["gibbs"].children) >= {"posterior", "sample_stats", "observed_data"}
    assert set(node["problem"].children) == {"data", "prior"}
    np.testing.assert_array_equal(
        node["gibbs/posterior"]["theta"].values,
        check.run.trees["gibbs"]["posterior"]["theta"].values,
    )
    (run,) = load_runs(path)
    _same_fields(run.data, check.run.data)
    _same_fields(run.prior, check.run.prior)
    assert run.settings == check.run.settings
    assert run.stored_verdicts == check.verdicts()
    again = judge(run)
    assert again.verdicts() == check.verdicts()
    _same_judgement(again.gibbs.to_dict(), check.gibbs.to_dict())


def test_zoo_report_rebuilds_verdicts_and_report(check, tmp_path, capsys):
    path = save_runs(tmp_path / "run.nc", [check.run], verdicts={check.model: check.verdicts()})
    status = main(["report", str(path), "--report", str(tmp_path / "html"), "--json"])
    captured = capsys.readouterr()
    payload = json.loads(captured.out)
    assert status == 0 and captured.err == ""
    (model,) = payload["models"]
    _same_judgement(model["gibbs_vs_exact"], json.loads(json.dumps(check.gibbs.to_dict())))
    assert (tmp_path / "html" / "index.html").is_file()


def test_zoo_report_on_a_missing_or_foreign_file_exits_2(tmp_path, capsys):
    assert main(["report", str(tmp_path / "none.nc")]) == 2
    xr.DataTree(xr.Dataset({"x": ("a", [1.0])})).to_netcdf(tmp_path / "x.nc", engine="h5netcdf")
    assert main(["report", str(tmp_path / "x.nc")]) == 2
    assert "not a saved zoo run" in capsys.readouterr().err


@pytest.fixture
def interrupting_model():
    """A Beta-Binomial whose kernel is interrupted (Ctrl-C) during its 30th sweep."""
    calls = {"n": 0}

    def step(state, data, prior, rng):
        calls["n"] += 1
        if calls["n"] == 2 * 29 + 1:  # 2 chains: first chain of sweep 30
            raise KeyboardInterrupt
        return SPEC.kernel.step(state, data, prior, rng)

    spec = dataclasses.replace(
        SPEC,
        name="beta-binomial-interrupted",
        kernel=SPEC.kernel._replace(step=step),
        default_problem=lambda: PROBLEM,
    )
    zoo.register(spec)
    yield spec
    registry._registered.pop(spec.name)


def test_ctrl_c_saves_the_partial_run_and_says_so(interrupting_model, tmp_path, capsys):
    out = tmp_path / "partial.nc"
    args = ["check", interrupting_model.name, "--draws", "100", "--tune", "10"]
    status = main([*args, "--chains", "2", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert status == 130
    assert "interrupted" in err and str(out) in err and "zoo report" in err
    (run,) = load_runs(out)
    assert run.interrupted
    assert list(run.trees) == ["gibbs"]  # PyMC never started
    assert run.trees["gibbs"]["posterior"].sizes["draw"] == 29 - 10
    # The partial run can be judged and reported (too few draws: inconclusive).
    assert main(["report", str(out), "--report", str(tmp_path / "html"), "--quiet"]) == 1
    page = (tmp_path / "html" / "index.html").read_text()
    assert "Gibbs 2 chains x 19 draws (interrupted), PyMC not run" in page
    assert "PyMC vs exact: not made" in page and "at best inconclusive" in page


def _interrupted_copy(run):
    """``run`` as the driver leaves a Gibbs run cut short by Ctrl-C before PyMC started."""
    tree = run.trees["gibbs"].copy()
    tree["posterior"].attrs["interrupted"] = True
    return dataclasses.replace(run, trees={"gibbs": tree}, interrupted=True)


def test_an_interrupted_run_whose_draws_agree_is_inconclusive_and_says_pymc_did_not_run(
    check, tmp_path
):
    # zoo report of an interrupted run once said AGREE (exit 0) although PyMC never ran.
    # Judged as zoo report judges it (read back from the file), without its report:
    # test_ctrl_c_saves_the_partial_run_and_says_so runs the command on a real Ctrl-C.
    assert check.gibbs.verdict == "agree" and check.verdict == "agree"
    path = save_runs(tmp_path / "partial.nc", [_interrupted_copy(check.run)])
    (run,) = load_runs(path)
    again = judge(run)
    assert again.gibbs.verdict == "agree" and again.pymc is None
    assert again.verdict == "inconclusive"
    assert again.verdicts()["overall"] == "inconclusive"
    kept = {"gibbs": "2 chains x 500 draws (interrupted)", "pymc": "not run"}
    assert again.to_dict()["kept"] == kept
    assert _drawn(again).startswith(
        "interrupted: gibbs 2 chains x 500 draws (interrupted), pymc not run;"
    )


def test_ctrl_c_without_out_says_nothing_was_saved(interrupting_model, capsys):
    status = main(["check", interrupting_model.name, "--chains", "2", "--tune", "10"])
    assert status == 130
    assert "nothing saved (pass --out" in capsys.readouterr().err


def test_ctrl_c_before_the_first_draw_saves_nothing(interrupting_model, tmp_path, capsys):
    out = tmp_path / "none.nc"
    args = ["check", interrupting_model.name, "--chains", "2", "--tune", "50"]
    assert main([*args, "--out", str(out)]) == 130  # interrupted while tuning
    assert "before any draw" in capsys.readouterr().err
    assert not out.exists()


def test_out_must_be_nc_or_zarr_and_report_a_folder(tmp_path, capsys):
    assert main(["check", "beta-binomial", "--out", "run.txt"]) == 2
    assert "--out" in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    assert main(["check", "beta-binomial", "--report", str(tmp_path / "file")]) == 2
    assert "not a folder" in capsys.readouterr().err


@pytest.mark.pymc
@pytest.mark.slow  # 45 s cold; the other saved-run tests cover --out and zoo report
def test_check_out_and_report_in_a_pipe_are_quiet_and_agree(tmp_path):
    # Not a terminal: no progress, no PyMC log lines, nothing on standard error.
    out, html = tmp_path / "run.nc", tmp_path / "html"
    command = [sys.executable, "-m", "zoo.cli", "check", "gda", "--json"]
    settings = ["--draws", "150", "--tune", "150", "--chains", "2", "--seed", "3"]
    result = subprocess.run(
        [*command, *settings, "--out", str(out), "--report", str(html)],
        capture_output=True,
        text=True,
    )
    assert result.stderr == ""
    checked = json.loads(result.stdout)
    assert (html / "index.html").is_file()
    again = subprocess.run(
        [sys.executable, "-m", "zoo.cli", "report", str(out), "--json", "--report", str(html)],
        capture_output=True,
        text=True,
    )
    assert again.stderr == ""
    assert again.returncode == result.returncode
    rejudged = json.loads(again.stdout)
    assert rejudged["verdict"] == checked["verdict"]
    for key in ("gibbs_vs_exact", "pymc_vs_exact", "gibbs_vs_pymc"):
        _same_judgement(rejudged["models"][0][key], checked["models"][0][key])
    images = list(html.glob("*.png"))
    assert len(images) == 5  # posterior, and rank and trace per engine


def test_zoo_report_says_when_verdicts_differ_from_the_recorded_ones(check, tmp_path, capsys):
    recorded = {**check.verdicts(), "gibbs": "disagree", "overall": "disagree"}
    path = save_runs(tmp_path / "run.nc", [check.run], verdicts={check.model: recorded})
    assert main(["report", str(path), "--report", str(tmp_path / "html"), "--quiet"]) == 0
    assert "differ from those recorded" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_a_staging_name_planted_beforehand_is_not_written_through(check, suffix, tmp_path):
    # The file was written at `.NAME.partial-PID` first: a symbolic link planted there had
    # the run written into the victim's file. The staging name is now unpredictable.
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    planted = tmp_path / f".run{suffix}.partial-{os.getpid()}"
    planted.symlink_to(victim)
    path = save_runs(tmp_path / f"run{suffix}", [check.run])
    assert victim.read_text() == "mine" and planted.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [planted.name, f"run{suffix}", "victim.txt"]
    )
    (run,) = load_runs(path)
    assert run.model == check.run.model
