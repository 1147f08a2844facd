"""One driver for both engines: ``zoo.sample(model, data, prior, engine=...)``.

Both engines return an ``xarray.DataTree`` shaped like ``pymc.sample``'s: groups
``posterior``, ``sample_stats``, ``observed_data`` and ``constant_data``; dims ``chain``,
``draw``, then the model's named dims with coordinates. Every ArviZ function works on
either.
"""

from __future__ import annotations

import multiprocessing
import os
import time
import warnings
from collections.abc import Mapping

import numpy as np
import xarray as xr
from arviz_base import from_dict

from zoo.core import __version__, streams
from zoo.core.arguments import as_int
from zoo.core.contract import Kernel, Model
from zoo.core.defaults import CHAINS, DRAWS, ENGINES, TUNE
from zoo.registry import get
from zoo.sampling.progress import ChainProgress

__all__ = ["sample"]


def sample(
    model: str | Model,
    data,
    prior,
    *,
    engine: str = "gibbs",
    draws: int = DRAWS,
    tune: int = TUNE,
    chains: int = CHAINS,
    seed=None,
    kernel: Kernel | None = None,
    progress: bool | None = None,
) -> xr.DataTree:
    """Sample the posterior of a zoo model with either engine.

    Parameters
    ----------
    model : str or Model
        A registered name (``zoo.names()``) or a :class:`zoo.Model`.
    data, prior
        Instances of ``model.Data`` and ``model.Prior``.
    engine : {"gibbs", "pymc"}
        The hand-written collapsed Gibbs kernel, or NUTS on the PyMC program.
    draws, tune, chains : int
        Kept draws per chain, discarded warm-up sweeps per chain, number of chains.
    seed : int, SeedSequence or None
        Root seed. Gibbs chain ``i`` draws from item ``i`` of the ``gibbs-chains``
        stream, PyMC takes its integer seed from the ``pymc`` stream
        (:mod:`zoo.core.streams`), so the same seed gives the same draws bit for bit, and
        ``zoo check --seed s`` draws what ``zoo.sample(..., seed=s)`` draws. ``None``
        draws fresh entropy and records it in the output's attributes (``seed``) so the
        run can be repeated.
    kernel : Kernel, optional
        Gibbs engine only: run this kernel instead of the model's own (a hand-derived
        sampler under test, or one of ``model.faults``).
    progress : bool, optional
        Show a progress display; default: only when standard error is a terminal.

    Returns
    -------
    xarray.DataTree
        Interrupting a run with Ctrl-C returns the draws completed so far (Gibbs: every
        chain cut to the same length; PyMC: as ``pm.sample`` keeps them), with
        ``attrs["interrupted"] = True`` on the ``posterior`` and ``sample_stats`` groups.
    """
    model = get(model)
    if engine not in ENGINES:
        raise ValueError(f"engine: must be one of {ENGINES}, got {engine!r}")
    if not isinstance(data, model.Data):
        raise ValueError(
            f"data: expected {model.name} Data, got {type(data).__module__}.{type(data).__name__}"
        )
    if not isinstance(prior, model.Prior):
        raise ValueError(
            f"prior: expected {model.name} Prior, got "
            f"{type(prior).__module__}.{type(prior).__name__}"
        )
    draws = as_int("draws", draws, minimum=1)
    tune = as_int("tune", tune, minimum=0)
    chains = as_int("chains", chains, minimum=1)
    root = streams.root(seed)
    if kernel is not None and engine != "gibbs":
        raise ValueError("kernel: only the gibbs engine runs a kernel")
    if progress is None:
        progress = ChainProgress.wanted()
    attrs = {
        "zoo_model": model.name,
        "engine": engine,
        "seed": str(root.entropy),
        "draws": draws,
        "tuning_steps": tune,
        "chains": chains,
        "zoo_version": __version__,
    }
    if engine == "gibbs":
        return _sample_gibbs(
            model, data, prior, kernel or model.kernel, draws, tune, chains, root, progress, attrs
        )
    return _sample_pymc(model, data, prior, draws, tune, chains, root, progress, attrs)


def _sample_gibbs(model, data, prior, kernel, draws, tune, chains, root, progress, attrs):
    rngs = [np.random.default_rng(child) for child in streams.items(root, "gibbs-chains", chains)]
    states = [kernel.init(data, prior, rng) for rng in rngs]
    shapes = {
        name: tuple(len(data.coords[d]) for d in dims)
        for name, dims in model.variables(prior).items()
    }
    store: dict[str, np.ndarray] = {}
    sweep_seconds = np.zeros((chains, draws))
    completed = 0
    interrupted = False
    started = time.perf_counter()
    # Chains advance round-robin, one sweep each, so that an interruption leaves them all
    # with the same number of draws.
    with ChainProgress(tune + draws, chains, enabled=progress, label=model.name) as bar:
        try:
            for iteration in range(tune + draws):
                for chain in range(chains):
                    tick = time.perf_counter()
                    states[chain] = kernel.step(states[chain], data, prior, rngs[chain])
                    if iteration >= tune:
                        values = kernel.draw(states[chain], data, prior, rngs[chain])
                        _record(store, values, shapes, chain, iteration - tune, chains, draws)
                        sweep_seconds[chain, iteration - tune] = time.perf_counter() - tick
                if iteration >= tune:
                    completed = iteration - tune + 1
                bar.advance(iteration + 1)
        except KeyboardInterrupt:
            if completed == 0:
                raise
            interrupted = True
            warnings.warn(
                f"interrupted: keeping the {completed} draws per chain completed so far",
                RuntimeWarning,
                stacklevel=3,
            )
    attrs = {**attrs, "sampling_time": time.perf_counter() - started, "kernel": _describe(kernel)}
    if interrupted:
        attrs.update(interrupted=True, draws=completed)
    posterior = {name: values[:, :completed] for name, values in store.items()}
    stats = {"sweep_seconds": sweep_seconds[:, :completed]}
    return _datatree(model, data, prior, posterior, stats, attrs)


def _describe(kernel: Kernel) -> str:
    module = getattr(kernel.step, "__module__", "?")
    return f"{module}.{getattr(kernel.step, '__qualname__', 'step')}"


def _record(store, values, shapes, chain, index, chains, draws):
    if not isinstance(values, Mapping):
        raise ValueError(f"kernel.draw: must return a dict of arrays, got {type(values).__name__}")
    missing = sorted(set(shapes) - set(values))
    if missing:
        raise ValueError(f"kernel.draw: missing variables {missing}; expected {sorted(shapes)}")
    for name, shape in shapes.items():
        value = np.asarray(values[name], dtype=float)
        if value.shape != shape:
            raise ValueError(
                f"kernel.draw: variable {name!r} has shape {value.shape}, expected {shape}"
            )
        if name not in store:
            store[name] = np.empty((chains, draws, *shape))
        store[name][chain, index] = value


def _datatree(model, data, prior, posterior, stats, attrs) -> xr.DataTree:

    dims = dict(model.variables(prior))
    observed = {name: value for name, (value, _) in data.observed_data.items()}
    constant = {name: value for name, (value, _) in data.constant_data.items()}
    dims.update({name: list(d) for name, (_, d) in data.observed_data.items()})
    dims.update({name: list(d) for name, (_, d) in data.constant_data.items()})
    tree = from_dict(
        {
            "posterior": posterior,
            "sample_stats": stats,
            "observed_data": observed,
            "constant_data": constant,
        },
        dims={name: list(d) for name, d in dims.items()},
        coords=dict(data.coords),
    )
    # Where pymc.sample puts its run attributes: on the sampled groups.
    for group in ("posterior", "sample_stats"):
        tree[group].attrs.update(
            {
                **attrs,
                "inference_library": "bayes-zoo",
                "inference_library_version": __version__,
            }
        )
    return tree


def _sample_pymc(model, data, prior, draws, tune, chains, root, progress, attrs):
    # deferred: PyMC takes seconds to import, and `zoo list` or a Gibbs run never needs it
    import pymc as pm

    program = model.program(data, prior)
    names = list(model.variables(prior))
    # PyMC takes an integer seed and spawns per-chain streams from it itself.
    random_seed = streams.integer(streams.stream(root, "pymc"))
    # A Dask worker is a daemon process, which may not start the processes PyMC runs
    # chains in: there the chains run one after the other (the pool is the parallelism).
    daemon = multiprocessing.current_process().daemon
    cores = 1 if daemon else max(1, min(chains, os.cpu_count() or 1))
    started = time.perf_counter()
    with warnings.catch_warnings():
        # PyMC's advice to run more chains is not ours to give here.
        warnings.filterwarnings("ignore", message=".*We recommend running at least.*")
        tree = pm.sample(
            draws=draws,
            tune=tune,
            chains=chains,
            cores=cores,
            random_seed=random_seed,
            progressbar=progress,
            nuts_sampler="pymc",
            var_names=names,
            compute_convergence_checks=False,
            model=program,
        )
    attrs = {
        **attrs,
        "nuts_sampler": "pymc",
        "pymc_seed": random_seed,
        "wall_time": time.perf_counter() - started,
    }
    kept = tree["posterior"].sizes["draw"]
    if kept < draws:
        # pm.sample swallows Ctrl-C and returns the draws so far: say so, as for Gibbs.
        attrs.update(interrupted=True, draws=kept)
    for group in ("posterior", "sample_stats"):
        tree[group].attrs.update(attrs)
    return tree
