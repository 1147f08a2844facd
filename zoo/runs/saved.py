"""Saved runs of ``zoo check``: the file format, writing and reading.

A saved run is one ``xarray.DataTree`` in a NetCDF file (``.nc``, through h5netcdf) or
a Zarr store (``.zarr``, for traces too large for one file)::

    /                       attrs: format, created, versions (zoo, pymc, arviz-*, ...)
    /<model>/               attrs: model, seed, draws, tune, chains, alpha, nuts_sampler,
                                   interrupted, seconds, verdicts, versions
    /<model>/problem/data   the model's Data   (zoo.runs.problem_dataset: array arguments
    /<model>/problem/prior  the model's Prior   as variables, scalar ones as JSON in attrs)
    /<model>/gibbs/...      posterior, log_likelihood, sample_stats, observed_data,
                            constant_data
    /<model>/pymc/...       the same, as pymc.sample returned it

so ``xarray.open_datatree(path)["rats/gibbs"]`` works with every ArviZ function, and
:func:`load_runs` rebuilds ``Data`` and ``Prior`` to recompute the exact reference.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import xarray as xr

from zoo.core.arguments import as_int, as_positive_scalar, as_probability, require_distinct
from zoo.core.defaults import ENGINES
from zoo.registry import get, names
from zoo.runs.model_run import ModelRun, versions
from zoo.runs.problem_dataset import from_dataset, to_dataset
from zoo.sampling.sampler_output import checked_draws

__all__ = ["FORMAT", "load_runs", "save_runs"]

#: Version of the saved-run layout, in the root's ``format`` attribute.
FORMAT = "bayes-zoo-run/1"


def _storable(value):
    """An attribute value netCDF and Zarr both accept (no None, bool or dict)."""
    if isinstance(value, bool | np.bool_):
        return int(value)
    if value is None:
        return "None"
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, default=str)
    if isinstance(value, str | int | float | np.number | np.ndarray):
        return value
    return str(value)


def _clean(node: xr.DataTree) -> xr.DataTree:
    dataset = node.to_dataset(inherit=False)
    dataset.attrs = {k: _storable(v) for k, v in dataset.attrs.items()}
    for name in dataset.variables:
        dataset[name].attrs = {k: _storable(v) for k, v in dataset[name].attrs.items()}
    return dataset


def _model_tree(run: ModelRun, verdicts: dict | None, found: dict) -> xr.DataTree:
    nodes = {
        "problem/data": to_dataset(run.data),
        "problem/prior": to_dataset(run.prior),
    }
    for engine, tree in run.trees.items():
        for node in tree.subtree:
            relative = node.relative_to(tree)
            nodes[engine if relative == "." else f"{engine}/{relative}"] = _clean(node)
    attrs = {
        "model": run.model,
        **{k: run.settings[k] for k in ("draws", "tune", "chains", "seed", "alpha")},
        "nuts_sampler": run.settings.get("nuts_sampler", "none"),
        "engines": json.dumps(list(run.trees)),
        "interrupted": int(run.interrupted),
        "seconds": json.dumps(run.seconds),
        "verdicts": json.dumps(verdicts or {}),
        "versions": json.dumps(found),
    }
    return xr.DataTree.from_dict({"/": xr.Dataset(attrs=attrs), **nodes})


def save_runs(path, runs, *, verdicts: dict | None = None, command: str = "") -> Path:
    """Write runs to ``path``: NetCDF for a ``.nc`` path, Zarr for a ``.zarr`` path.

    Parameters
    ----------
    path : str or Path
        An existing file or store there is replaced.
    runs : sequence of ModelRun
    verdicts : dict, optional
        ``{model: {"gibbs": ..., "pymc": ..., "cross": ..., "overall": ...}}``, kept so
        that ``zoo report`` can confirm it reaches the same ones.
    command : str
        The command line that made the run.
    """
    path = Path(path)
    if path.suffix not in (".nc", ".zarr"):
        raise ValueError(f"path: must end in .nc (NetCDF) or .zarr (Zarr), got {path.name!r}")
    runs = list(runs)
    names = [r.model for r in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"runs: one run per model, got {names}")
    found = versions()
    root = xr.Dataset(
        attrs={
            "format": FORMAT,
            "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "command": command,
            "models": json.dumps(names),
            "interrupted": int(any(r.interrupted for r in runs)),
            "versions": json.dumps(found),
            **{f"version_{k}": v for k, v in found.items()},
        }
    )
    tree = xr.DataTree(root)
    for run in runs:
        tree[run.model] = _model_tree(run, (verdicts or {}).get(run.model), found)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written beside the target and moved into place whole: an interrupt or a full disk
    # while writing leaves the previous file (or none), never a truncated one.
    # Its name unpredictable and made fresh (mkdtemp): a fixed ``.NAME.partial-PID`` could
    # be planted beforehand as a symbolic link to someone else's file.
    staging = Path(tempfile.mkdtemp(prefix=".zoo-partial-", dir=path.parent))
    partial = staging / path.name
    try:
        if path.suffix == ".zarr":
            # Zarr v3 does not specify consolidated metadata; write the plain store.
            tree.to_zarr(partial, consolidated=False)
            if path.is_dir() and not path.is_symlink():
                # The old store is moved into the staging folder and removed from there,
                # never removed where it is named.
                path.replace(staging / "previous")
        else:
            tree.to_netcdf(partial, engine="h5netcdf", encoding=_checksummed(tree))
        os.replace(partial, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return path


def _checksummed(tree: xr.DataTree) -> dict:
    """A Fletcher-32 checksum on every array of the file (HDF5's ``fletcher32`` filter).

    HDF5 checksums its own metadata but not the arrays: a flipped byte in the draws
    read back as another number, and the run was judged on it. With the filter the
    read fails instead. Only numeric arrays with at least one element can carry it
    (HDF5 filters need chunked storage of fixed-size elements): scalars, empty arrays
    and text (a vocabulary) go without.
    """
    return {
        node.path: {
            name: {"fletcher32": True}
            for name, variable in node.to_dataset(inherit=False).variables.items()
            if variable.ndim and variable.size and variable.dtype.kind in "biufc"
        }
        for node in tree.subtree
    }


def load_runs(path) -> list[ModelRun]:
    """Read runs saved by :func:`save_runs`, rebuilding each model's Data and Prior.

    Everything read is checked before it is used, so a damaged or edited file is
    refused with a message naming the file and what is wrong in it, never judged.

    Raises
    ------
    ValueError
        Starting with ``path``: no such file; not readable as NetCDF or Zarr (truncated,
        corrupted, empty, a folder); not a saved run, or one of a newer format; an
        attribute of a model (``models``, ``model``, ``draws``, ``tune``, ``chains``,
        ``seed``, ``alpha``, ``engines``, ``interrupted``, ``seconds``, ``verdicts``)
        missing or out of its range; a group missing; draws that are not the model's
        variables with its dims, or that hold NaN or infinite values.
    """
    path = Path(path)
    tree = _opened(path)
    try:
        return [_model_run(path, tree, name) for name in _model_names(path, tree)]
    finally:
        tree.close()


def _one_line(error: Exception) -> str:
    """An exception as one line: its type and its message with whitespace collapsed."""
    return f"{type(error).__name__}: {' '.join(str(error).split())}"


def _opened(path: Path) -> xr.DataTree:
    """The file's tree, loaded into memory, with its format checked."""
    if not path.exists():
        raise ValueError(f"{path}: no such file")
    if path.suffix == ".zarr":
        kind, engine, options = "a Zarr store (a folder)", "zarr", {"consolidated": False}
        wrong_kind = not path.is_dir()
    elif path.suffix == ".nc":
        kind, engine, options = "a NetCDF (HDF5) file", "h5netcdf", {}
        wrong_kind = path.is_dir()
    else:
        raise ValueError(f"{path}: must end in .nc (NetCDF) or .zarr (Zarr)")
    if wrong_kind:
        raise ValueError(f"{path}: is not {kind}")
    try:
        tree = xr.open_datatree(path, engine=engine, **options).load()
    except Exception as error:
        # A truncated or overwritten file fails deep in h5py, HDF5 or zarr with any of
        # their exception types; each means the same thing to the reader.
        raise ValueError(f"{path}: cannot be read as {kind} ({_one_line(error)})") from None
    found = tree.attrs.get("format")
    if found != FORMAT:
        tree.close()
        family, _, version = str(found).rpartition("/")
        ours, _, current = FORMAT.rpartition("/")
        if family == ours and version.isdigit() and int(version) > int(current):
            raise ValueError(
                f"{path}: written in format {found}, newer than the {FORMAT} this bayes-zoo "
                "reads; read it with a newer bayes-zoo"
            )
        raise ValueError(f"{path}: is not a saved zoo run (format {found!r}, expected {FORMAT!r})")
    return tree


def _json_attribute(where: str, attrs, key: str, kind: type, default=None):
    """A JSON-encoded attribute, decoded and of type ``kind``."""
    if key not in attrs:
        if default is not None:
            return default
        raise ValueError(f"{where}: attribute {key!r} is missing")
    try:
        value = json.loads(str(attrs[key]))
    except ValueError:
        raise ValueError(f"{where}: {key}: is not JSON, got {attrs[key]!r:.80}") from None
    if not isinstance(value, kind):
        raise ValueError(f"{where}: {key}: must be a JSON {kind.__name__}, got {value!r:.80}")
    return value


def _model_names(path: Path, tree: xr.DataTree) -> list[str]:
    """The models the file holds: distinct registered names, each with its group."""
    models = _json_attribute(str(path), tree.attrs, "models", list)
    for name in models:
        if not isinstance(name, str):
            raise ValueError(f"{path}: models: must be a list of model names, got {models!r}")
        if name not in names():
            raise ValueError(
                f"{path}: models: unknown model {name!r}; known models are {', '.join(names())}"
            )
        if name not in tree.children:
            raise ValueError(f"{path}: models: names {name!r}, which has no group in the file")
    require_distinct(f"{path}: models", models)
    return models


def _settings(where: str, attrs) -> dict:
    """Draws, tune, chains, seed, alpha and the NUTS sampler, each checked."""
    minimum = {"draws": 1, "tune": 0, "chains": 1, "seed": 0}
    for key in (*minimum, "alpha"):
        if key not in attrs:
            raise ValueError(f"{where}: attribute {key!r} is missing")
    settings = {
        key: as_int(f"{where}: {key}", attrs[key], minimum=low) for key, low in minimum.items()
    }
    settings["alpha"] = as_probability(f"{where}: alpha", attrs["alpha"])
    sampler = attrs.get("nuts_sampler", "none")
    if not isinstance(sampler, str):
        raise ValueError(f"{where}: nuts_sampler: must be a name, got {sampler!r}")
    if sampler != "none":
        settings["nuts_sampler"] = sampler
    return settings


#: What a saved verdict may be (None: the comparison was not made).
_VERDICTS = ("agree", "disagree", "inconclusive", None)


def _run_record(where: str, attrs) -> dict:
    """``interrupted``, ``seconds`` and ``verdicts``, each checked."""
    interrupted = attrs.get("interrupted", 0)
    if isinstance(interrupted, bool) or interrupted not in (0, 1):
        raise ValueError(f"{where}: interrupted: must be 0 or 1, got {interrupted!r}")
    seconds = _json_attribute(where, attrs, "seconds", dict, default={})
    for stage, value in seconds.items():
        as_positive_scalar(f"{where}: seconds: {stage}", value)
    verdicts = _json_attribute(where, attrs, "verdicts", dict, default={})
    for key, value in verdicts.items():
        if key not in (*ENGINES, "cross", "overall") or value not in _VERDICTS:
            raise ValueError(
                f"{where}: verdicts: {key!r}: {value!r} is not a verdict of a comparison"
            )
    return {"interrupted": bool(interrupted), "seconds": seconds, "stored_verdicts": verdicts}


def _problem(where: str, node: xr.DataTree, model):
    """The model's Data and Prior, rebuilt (and so checked) by their own constructors."""
    rebuilt = []
    for part, cls in (("data", model.Data), ("prior", model.Prior)):
        if "problem" not in node.children or part not in node["problem"].children:
            raise ValueError(f"{where}: group problem/{part} is missing")
        try:
            rebuilt.append(from_dataset(cls, node[f"problem/{part}"].to_dataset()))
        except (ValueError, TypeError) as error:
            raise ValueError(f"{where}/problem/{part}: {error}") from None
    return rebuilt


def _engine_tree(where: str, node: xr.DataTree, engine: str, model, data, prior):
    """One engine's groups as a tree of their own, its posterior checked against the model.

    A detached copy: ArviZ expects the engine's groups at the top of the tree.
    """
    if engine not in node.children or "posterior" not in node[engine].children:
        raise ValueError(f"{where}: engines: names {engine!r}, which has no posterior group")
    top = node[engine]
    tree = xr.DataTree.from_dict(
        {
            "/" if child is top else child.relative_to(top): child.to_dataset(inherit=False)
            for child in top.subtree
        }
    )
    group = f"{where}/{engine}/posterior"
    checked_draws(tree, model, data, prior, field=group)
    sizes = tree["posterior"].sizes
    if not sizes.get("chain") or not sizes.get("draw"):
        raise ValueError(f"{group}: holds no draws ({dict(sizes)})")
    return tree


def _model_run(path: Path, tree: xr.DataTree, name: str) -> ModelRun:
    """One model's run, every attribute and group it is judged on checked first."""
    where = f"{path}: {name}"
    node = tree[name]
    if node.attrs.get("model") != name:
        raise ValueError(f"{where}: model: {node.attrs.get('model')!r} is not its group's name")
    model = get(name)
    settings = _settings(where, node.attrs)
    record = _run_record(where, node.attrs)
    data, prior = _problem(where, node, model)
    engines = _json_attribute(where, node.attrs, "engines", list)
    for engine in engines:
        if engine not in ENGINES:
            raise ValueError(f"{where}: engines: unknown engine {engine!r}; known: {ENGINES}")
    require_distinct(f"{where}: engines", engines)
    trees = {engine: _engine_tree(where, node, engine, model, data, prior) for engine in engines}
    return ModelRun(model.name, data, prior, settings, trees, **record)
