"""``zoo report`` on files it cannot judge: one table of bad inputs, one test per row.

Every row once ended in a traceback, or worse, a verdict (before 0.2): each must end
with one line on standard error naming the file and what is wrong, exit status 2, and
no work done (no report folder). The rows start from one small saved run written by the
runs layer's own writer and damage it: its bytes, its attributes, its groups, its draws.
"""

import json
import shutil

import h5py
import numpy as np
import pytest
import xarray as xr

from tests.support.report_problems import PROBLEM
from zoo.cli import main
from zoo.runs.model_run import sample_model
from zoo.runs.saved import FORMAT, load_runs, save_runs

MODEL = "beta-binomial"


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A saved Gibbs run of a small fixed-prior problem, 2 chains x 20 draws."""
    run = sample_model(
        MODEL, draws=20, tune=5, chains=2, seed=0, engines=("gibbs",), problem=PROBLEM
    )
    return save_runs(tmp_path_factory.mktemp("saved") / "run.nc", [run])


# Damage done to the file's bytes.


def _truncated(good, bad):
    data = good.read_bytes()
    bad.write_bytes(data[: len(data) // 2])


def _flipped_in_the_middle(good, bad):
    # Every 509th byte of the middle half: HDF5's metadata there is checksummed.
    data = bytearray(good.read_bytes())
    for i in range(len(data) // 4, 3 * len(data) // 4, 509):
        data[i] ^= 0x5A
    bad.write_bytes(bytes(data))


def _one_draw_flipped(good, bad):
    # One bit of one draw: raw arrays carry HDF5's Fletcher-32 checksum since 0.2
    # (without it the draw read back as another number and was judged).
    data = bytearray(good.read_bytes())
    theta = xr.open_datatree(good, engine="h5netcdf")[f"{MODEL}/gibbs/posterior"]["theta"]
    at = bytes(data).find(theta.values[1, 7, 3].tobytes())
    assert at > 0
    data[at] ^= 0x01
    bad.write_bytes(bytes(data))


def _text(good, bad):
    bad.write_text("draws,theta\n1,0.5\n")


def _empty(good, bad):
    bad.write_bytes(b"")


def _folder(good, bad):
    bad.mkdir()


# Damage done inside the file with h5py (HDF5's own library, under h5netcdf), in place.


def _in_place(edit):
    def damage(good, bad):
        shutil.copyfile(good, bad)
        with h5py.File(bad, "r+") as file:
            edit(file)

    return damage


def _set(node, key, value):
    return _in_place(lambda file: file[node].attrs.__setitem__(key, value))


def _remove(node):
    return _in_place(lambda file: file.__delitem__(node))


def _draw(value):
    return _in_place(
        lambda file: file[f"{MODEL}/gibbs/posterior/theta"].__setitem__((1, 7, 3), value)
    )


def _no_draws(good, bad):
    # An empty posterior is easier made with xarray than inside HDF5's dimension scales.
    tree = xr.open_datatree(good, engine="h5netcdf").load()
    posterior = tree[f"{MODEL}/gibbs/posterior"].to_dataset(inherit=False)
    tree[f"{MODEL}/gibbs/posterior"] = xr.DataTree(posterior.isel(draw=slice(0, 0)))
    tree.to_netcdf(bad, engine="h5netcdf")


def _prior_scalars(text):
    return _set(f"{MODEL}/problem/prior", "scalars", text)


#: (id, damage(good, bad), what the message must say).
BAD_FILES = [
    ("truncated", _truncated, "cannot be read as a NetCDF (HDF5) file"),
    ("bytes-flipped-in-the-middle", _flipped_in_the_middle, "cannot be read as a NetCDF"),
    ("one-draw-bit-flipped", _one_draw_flipped, "cannot be read as a NetCDF"),
    ("not-netcdf-at-all", _text, "cannot be read as a NetCDF (HDF5) file"),
    ("empty-file", _empty, "cannot be read as a NetCDF (HDF5) file"),
    ("a-folder", _folder, "is not a NetCDF (HDF5) file"),
    ("no-format", _set("/", "format", "something-else/1"), "is not a saved zoo run"),
    ("future-format", _set("/", "format", "bayes-zoo-run/2"), "newer than the bayes-zoo-run/1"),
    ("models-unknown", _set("/", "models", '["no-such-model"]'), "models: unknown model"),
    ("models-not-a-list", _set("/", "models", json.dumps(MODEL)), "models: must be a JSON list"),
    ("models-not-json", _set("/", "models", MODEL), "models: is not JSON"),
    ("models-not-names", _set("/", "models", "[1]"), "models: must be a list of model names"),
    ("models-twice", _set("/", "models", json.dumps([MODEL, MODEL])), "named more than once"),
    ("models-no-group", _set("/", "models", '["gda"]'), "which has no group in the file"),
    ("model-renamed", _set(MODEL, "model", "gda"), "is not its group's name"),
    ("alpha-above-1", _set(MODEL, "alpha", 1.5), "alpha: must be a probability in (0, 1)"),
    ("alpha-zero", _set(MODEL, "alpha", 0.0), "alpha: must be a probability in (0, 1)"),
    ("alpha-not-a-number", _set(MODEL, "alpha", "0.01"), "alpha: must be a probability"),
    ("alpha-nan", _set(MODEL, "alpha", float("nan")), "alpha: must be a probability"),
    ("draws-zero", _set(MODEL, "draws", 0), "draws: must be an integer >= 1"),
    ("chains-text", _set(MODEL, "chains", "two"), "chains: must be an integer >= 1"),
    ("seed-negative", _set(MODEL, "seed", -1), "seed: must be an integer >= 0"),
    ("engines-unknown", _set(MODEL, "engines", '["stan"]'), "engines: unknown engine 'stan'"),
    ("engines-malformed", _set(MODEL, "engines", '{"gibbs": 1}'), "engines: must be a JSON list"),
    ("engines-not-json", _set(MODEL, "engines", "gibbs"), "engines: is not JSON"),
    ("engines-twice", _set(MODEL, "engines", '["gibbs", "gibbs"]'), "named more than once"),
    ("engine-without-draws", _set(MODEL, "engines", '["gibbs", "pymc"]'), "no posterior group"),
    ("seconds-negative", _set(MODEL, "seconds", '{"gibbs": -1.0}'), "seconds: gibbs: must be > 0"),
    ("seconds-nan", _set(MODEL, "seconds", '{"gibbs": NaN}'), "seconds: gibbs: must be finite"),
    ("seconds-text", _set(MODEL, "seconds", '{"gibbs": "fast"}'), "expected a positive number"),
    ("seconds-a-list", _set(MODEL, "seconds", "[1.0]"), "seconds: must be a JSON dict"),
    ("interrupted-7", _set(MODEL, "interrupted", 7), "interrupted: must be 0 or 1"),
    ("verdicts-unknown", _set(MODEL, "verdicts", '{"gibbs": "fine"}'), "is not a verdict"),
    ("prior-out-of-range", _prior_scalars('{"a": -2.0, "b": 8.0}'), "problem/prior: a"),
    ("prior-not-json", _prior_scalars("a=2"), "problem/prior"),
    ("no-problem-data", _remove(f"{MODEL}/problem/data"), "group problem/data is missing"),
    ("no-posterior", _remove(f"{MODEL}/gibbs/posterior"), "no posterior group"),
    ("no-model-group", _remove(MODEL), "which has no group in the file"),
    ("draw-nan", _draw(np.nan), "gibbs/posterior: theta has 1 NaN or infinite value(s)"),
    ("draw-inf", _draw(-np.inf), "gibbs/posterior: theta has 1 NaN or infinite value(s)"),
    (
        "variable-missing",
        _remove(f"{MODEL}/gibbs/posterior/theta"),
        "gibbs/posterior: missing variable(s) ['theta']",
    ),
    ("no-draws", _no_draws, "gibbs/posterior: holds no draws"),
]


#: Rows run with ``-m slow`` only: each opens the file (0.1 s of CPU). The default run
#: keeps a row per rule of the list (bytes, format, models, alpha, engines,
#: seconds, draws, a missing group); the further rows of the same checks are here.
SLOW = {
    "models-not-json",
    "models-not-names",
    "models-twice",
    "models-no-group",
    "model-renamed",
    "alpha-zero",
    "alpha-nan",
    "draws-zero",
    "chains-text",
    "seed-negative",
    "engines-not-json",
    "engines-twice",
    "engine-without-draws",
    "seconds-a-list",
    "interrupted-7",
    "verdicts-unknown",
    "prior-not-json",
    "no-model-group",
    "no-draws",
}


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        pytest.param(*row[1:], id=row[0], marks=[pytest.mark.slow] if row[0] in SLOW else [])
        for row in BAD_FILES
    ],
)
def test_a_file_zoo_report_cannot_judge_is_refused_in_one_line_with_exit_2(
    saved, damage, message, tmp_path, capsys
):
    bad = tmp_path / "run.nc"
    damage(saved, bad)
    folder = tmp_path / "html"
    assert main(["report", str(bad), "--report", str(folder), "--quiet"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    assert lines[0].startswith(f"zoo report: {bad}: ") and message in lines[0], lines[0]
    assert captured.out == "" and not folder.exists()  # refused before any work


def test_the_undamaged_file_is_read(saved):
    # The twin of the table: the file every row starts from is a readable run.
    (run,) = load_runs(saved)
    assert run.model == MODEL and run.trees["gibbs"]["posterior"].sizes["draw"] == 20
    assert xr.open_datatree(saved, engine="h5netcdf").attrs["format"] == FORMAT


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda path: path.write_text("not a folder"), "is not a Zarr store (a folder)"),
        (lambda path: path.mkdir(), "cannot be read as a Zarr store"),
    ],
    ids=["a-file", "an-empty-folder"],
)
def test_a_zarr_path_that_is_not_a_store_is_refused(make, message, tmp_path, capsys):
    bad = tmp_path / "run.zarr"
    make(bad)
    assert main(["report", str(bad), "--report", str(tmp_path / "html")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err and str(bad) in err
    shutil.rmtree(tmp_path / "html", ignore_errors=True)
