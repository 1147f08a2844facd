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
from pathlib import Path

import numpy as np
import xarray as xr

from zoo.registry import get
from zoo.runs.model_run import ModelRun, versions
from zoo.runs.problem_dataset import from_dataset, to_dataset

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
    partial = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        if path.suffix == ".zarr":
            # Zarr v3 does not specify consolidated metadata; write the plain store.
            tree.to_zarr(partial, consolidated=False)
            if path.exists():
                shutil.rmtree(path)
        else:
            tree.to_netcdf(partial, engine="h5netcdf")
        os.replace(partial, path)
    finally:
        if partial.is_dir():
            shutil.rmtree(partial, ignore_errors=True)
        elif partial.exists():
            partial.unlink()
    return path


def load_runs(path) -> list[ModelRun]:
    """Read runs saved by :func:`save_runs`, rebuilding each model's Data and Prior."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"path: no saved run at {path}")
    if path.suffix == ".zarr":
        tree = xr.open_datatree(path, engine="zarr", consolidated=False)
    elif path.suffix == ".nc":
        tree = xr.open_datatree(path, engine="h5netcdf")
    else:
        raise ValueError(f"path: must end in .nc or .zarr, got {path.name!r}")
    tree = tree.load()
    if tree.attrs.get("format") != FORMAT:
        raise ValueError(
            f"path: {path} is not a saved zoo run (format {tree.attrs.get('format')!r}, "
            f"expected {FORMAT!r})"
        )
    runs = []
    for name in json.loads(tree.attrs["models"]):
        node = tree[name]
        model = get(str(node.attrs["model"]))
        data = from_dataset(model.Data, node["problem/data"].to_dataset())
        prior = from_dataset(model.Prior, node["problem/prior"].to_dataset())
        settings = {
            k: int(node.attrs[k]) for k in ("draws", "tune", "chains", "seed") if k in node.attrs
        }
        settings["alpha"] = float(node.attrs["alpha"])
        if node.attrs.get("nuts_sampler", "none") != "none":
            settings["nuts_sampler"] = str(node.attrs["nuts_sampler"])
        trees = {}
        for engine in json.loads(node.attrs["engines"]):
            # A detached copy: ArviZ expects the engine's groups at the top of the tree.
            top = node[engine]
            trees[engine] = xr.DataTree.from_dict(
                {
                    "/" if child is top else child.relative_to(top): child.to_dataset(
                        inherit=False
                    )
                    for child in top.subtree
                }
            )
        runs.append(
            ModelRun(
                model.name,
                data,
                prior,
                settings,
                trees,
                interrupted=bool(int(node.attrs.get("interrupted", 0))),
                seconds=json.loads(node.attrs.get("seconds", "{}")),
                stored_verdicts=json.loads(node.attrs.get("verdicts", "{}")),
            )
        )
    tree.close()
    return runs
