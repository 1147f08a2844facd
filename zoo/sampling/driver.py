"""One driver for both engines: ``zoo.sample(model, data, prior, engine=...)``.

Both engines return an ``xarray.DataTree`` shaped like ``pymc.sample``'s: groups
``posterior``, ``log_likelihood``, ``sample_stats``, ``observed_data`` and
``constant_data``; dims ``chain``, ``draw``, then the model's named dims with
coordinates. Every ArviZ function works on either, ``arviz.loo`` included.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
import warnings
from collections.abc import Mapping

import numpy as np
import xarray as xr
from arviz_base import from_dict

from zoo.core import __version__, streams
from zoo.core.arguments import as_int, as_kernel, require_draws_fit_memory
from zoo.core.contract import Kernel, Model
from zoo.core.defaults import CHAINS, DRAWS, ENGINES, TUNE
from zoo.core.log_likelihood import log_likelihood_per_draw, pointwise_size
from zoo.core.reproducible import ieee_arithmetic
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
    log_likelihood: bool | None = None,
    cores: int | None = None,
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
    log_likelihood : bool, optional
        Add the ``log_likelihood`` group: the log-likelihood of every observation at
        every draw, one variable per observed variable of the model's PyMC program with
        the names and dims ``pymc.compute_log_likelihood`` gives (a mixture's missing
        labels summed out, as the program does), what ``arviz.loo`` reads. ``None``
        (default): the Gibbs engine adds it unless it would take more than
        :data:`LOG_LIKELIHOOD_BYTES` (then a warning says so); the PyMC engine does not,
        as ``pymc.sample`` does not by default (it compiles another function: seconds
        per model, more on a cold cache). ``True``: always; ``False``: never, and no
        ``log_likelihood_total`` either. The Gibbs engine computes it from the draws
        after sampling (it never changes them), the PyMC engine with
        ``pymc.compute_log_likelihood``.
    cores : int, optional
        PyMC engine only: processes its chains run in, as ``pymc.sample``'s ``cores``
        (the draws do not depend on it). Default: one per chain up to the CPUs, and one
        inside a daemon process, which may not start processes (a Dask worker).

    Returns
    -------
    xarray.DataTree
        ``posterior``, ``log_likelihood``, ``sample_stats``, ``observed_data``,
        ``constant_data``. ``sample_stats`` holds ``log_likelihood_total`` (the
        log-likelihood of all the data at each draw, the sum of the ``log_likelihood``
        group) when it is computed, and for Gibbs ``sweep_seconds`` (each kept sweep's
        time); PyMC's holds NUTS's own statistics. ``sampling_time`` (seconds, warm-up
        included) is an attribute of ``posterior`` and ``sample_stats``, where
        ``pymc.sample`` puts it. Interrupting a run with Ctrl-C returns the draws
        completed so far (Gibbs: every chain cut to the same length; PyMC: as
        ``pm.sample`` keeps them), with their log-likelihood, and
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
    require_draws_fit_memory("draws", draws, chains)
    root = streams.root(seed)
    if kernel is not None:
        if engine != "gibbs":
            raise ValueError("kernel: only the gibbs engine runs a kernel")
        as_kernel("kernel", kernel)
    if cores is not None:
        cores = as_int("cores", cores, minimum=1)
        if engine != "pymc":
            raise ValueError("cores: only the pymc engine runs chains in processes")
    if log_likelihood is not None and not isinstance(log_likelihood, bool | np.bool_):
        raise ValueError(f"log_likelihood: must be True, False or None, got {log_likelihood!r}")
    if log_likelihood and model.pointwise_log_likelihood is None and engine == "gibbs":
        raise ValueError(
            f"log_likelihood: model {model.name!r} has no pointwise_log_likelihood; "
            "pass log_likelihood=False or None"
        )
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
    # Decided before sampling, so that a group too large to keep warns at once, not after
    # an hour of sweeps.
    keep = _keep_log_likelihood(data, log_likelihood, chains, draws)
    compute = log_likelihood is not False
    if engine == "gibbs":
        compute = compute and model.pointwise_log_likelihood is not None
        kernel = kernel or model.kernel
        return _sample_gibbs(
            model, data, prior, kernel, draws, tune, chains, root, progress, attrs, compute, keep
        )
    # PyMC's own default: no log-likelihood unless asked for.
    compute = log_likelihood is True
    return _sample_pymc(
        model, data, prior, draws, tune, chains, root, progress, attrs, compute, keep, cores
    )


#: Largest ``log_likelihood`` group (bytes) that ``zoo.sample`` adds unasked: 1 GiB,
#: 8 bytes per observation and draw (an LDA corpus of 33,000 tokens at 4 x 1000 draws).
LOG_LIKELIHOOD_BYTES = 2**30


def _keep_log_likelihood(data, wanted, chains, draws) -> bool:
    """Whether to store the ``log_likelihood`` group (its per-draw total is kept anyway)."""
    if wanted is not None:
        return wanted
    size = pointwise_size(data)
    if size is None:
        return True
    needed = 8 * size * chains * draws
    if needed <= LOG_LIKELIHOOD_BYTES:
        return True
    warnings.warn(
        f"log_likelihood: the group would take about {needed / 2**30:.1f} GiB "
        f"({chains} chains x {draws} draws x {size} observations), more than "
        f"{LOG_LIKELIHOOD_BYTES / 2**30:.0f} GiB; left out (sample_stats keeps "
        "log_likelihood_total). Pass log_likelihood=True to keep it anyway.",
        RuntimeWarning,
        stacklevel=3,
    )
    return False


def _sample_gibbs(
    model, data, prior, kernel, draws, tune, chains, root, progress, attrs, compute, keep
):
    rngs = [np.random.default_rng(child) for child in streams.items(root, "gibbs-chains", chains)]
    describe = getattr(kernel, "describe", None)
    sampler = describe(data, prior) if callable(describe) else None
    if sampler is not None and progress:
        # One line where the progress is shown (the bar itself leaves none behind).
        print(f"{model.name}: sampling with {sampler}", file=sys.stderr, flush=True)
    states = [kernel.init(data, prior, rng) for rng in rngs]
    shapes = {
        name: tuple(len(data.coords[d]) for d in dims)
        for name, dims in model.variables(prior).items()
    }
    # Variables the model computes from the others (label invariants) when the kernel
    # does not draw them.
    derivable = model.derived.names if model.derived is not None else ()
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
                        _record(
                            store,
                            values,
                            shapes,
                            chain,
                            iteration - tune,
                            chains,
                            draws,
                            derivable,
                        )
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
    if sampler is not None:
        attrs["sampler"] = sampler
    if interrupted:
        attrs.update(interrupted=True, draws=completed)
    posterior = {name: values[:, :completed] for name, values in store.items()}
    posterior |= _derived_draws(model, data, prior, posterior)
    stats = {"sweep_seconds": sweep_seconds[:, :completed]}
    pointwise: dict[str, tuple[np.ndarray, tuple[str, ...]]] = {}
    if compute:
        started = time.perf_counter()
        stats["log_likelihood_total"], pointwise = log_likelihood_per_draw(
            model, data, posterior, keep=keep
        )
        attrs["log_likelihood_time"] = time.perf_counter() - started
    return _datatree(model, data, prior, posterior, stats, attrs, pointwise)


def _derived_draws(model, data, prior, posterior) -> dict[str, np.ndarray]:
    """The model's derived variables the draws lack, computed from the draws."""
    derived = model.derived
    if derived is None:
        return {}
    wanted = [n for n in derived.names if n not in posterior and n in model.variables(prior)]
    if not wanted or not all(n in posterior for n in derived.inputs):
        return {}
    computed = derived.compute(data, prior, {n: posterior[n] for n in derived.inputs})
    return {n: np.asarray(computed[n], dtype=float) for n in wanted}


def _describe(kernel: Kernel) -> str:
    module = getattr(kernel.step, "__module__", "?")
    return f"{module}.{getattr(kernel.step, '__qualname__', 'step')}"


def _record(store, values, shapes, chain, index, chains, draws, derivable=()):
    if not isinstance(values, Mapping):
        raise ValueError(f"kernel.draw: must return a dict of arrays, got {type(values).__name__}")
    missing = sorted(set(shapes) - set(values) - set(derivable))
    if missing:
        raise ValueError(f"kernel.draw: missing variables {missing}; expected {sorted(shapes)}")
    for name, shape in shapes.items():
        if name not in values:  # derivable: computed from the draws after sampling
            continue
        value = np.asarray(values[name], dtype=float)
        if value.shape != shape:
            raise ValueError(
                f"kernel.draw: variable {name!r} has shape {value.shape}, expected {shape}"
            )
        if name not in store:
            store[name] = np.empty((chains, draws, *shape))
        store[name][chain, index] = value


def _datatree(model, data, prior, posterior, stats, attrs, pointwise) -> xr.DataTree:

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
    if not pointwise:
        return tree
    # A group of its own: the log-likelihood of a multivariate observation has fewer
    # dims than its observed_data counterpart of the same name.
    group = from_dict(
        {"log_likelihood": {name: values for name, (values, _) in pointwise.items()}},
        dims={name: list(d) for name, (_, d) in pointwise.items()},
        coords=dict(data.coords),
    )["log_likelihood"].to_dataset()
    group.attrs.update(inference_library="bayes-zoo", inference_library_version=__version__)
    # pymc.sample's order of groups: log_likelihood right after posterior.
    children = {name: tree[name].to_dataset() for name in tree.children}
    ordered = {"posterior": children.pop("posterior"), "log_likelihood": group, **children}
    return xr.DataTree.from_dict({"/": tree.to_dataset(inherit=False), **ordered})


def _sample_pymc(
    model, data, prior, draws, tune, chains, root, progress, attrs, compute, keep, cores
):
    # deferred: PyMC takes seconds to import, and `zoo list` or a Gibbs run never needs it
    import pymc as pm

    program = model.program(data, prior)
    program_names = {rv.name for rv in program.free_RVs} | set(program.named_vars)
    # Derived variables (label invariants) are not in the program: computed after.
    names = [n for n in model.variables(prior) if n in program_names]
    # pm.compute_log_likelihood reads the free variables; those the zoo does not report
    # (a hyperprior's or a Bartlett parameterisation's) are traced and dropped after.
    # Always, so that the draws do not depend on log_likelihood: the trace function
    # computes the deterministics, and another set of outputs can move them by an ulp.
    hidden = [rv.name for rv in program.free_RVs if rv.name not in names]
    # PyMC takes an integer seed and spawns per-chain streams from it itself.
    random_seed = streams.integer(streams.stream(root, "pymc"))
    # A Dask worker is a daemon process, which may not start the processes PyMC runs
    # chains in: there the chains run one after the other (the pool is the parallelism).
    if multiprocessing.current_process().daemon:
        cores = 1
    elif cores is None:
        cores = max(1, min(chains, os.cpu_count() or 1))
    started = time.perf_counter()
    with warnings.catch_warnings(), ieee_arithmetic():
        # PyMC's advice to run more chains is not ours to give here.
        warnings.filterwarnings("ignore", message=".*We recommend running at least.*")
        try:
            tree = pm.sample(
                draws=draws,
                tune=tune,
                chains=chains,
                cores=cores,
                random_seed=random_seed,
                progressbar=progress,
                nuts_sampler="pymc",
                var_names=names + hidden,
                compute_convergence_checks=False,
                model=program,
            )
        except ValueError as error:
            # pm.sample swallows Ctrl-C; interrupted while tuning it has no draw to return
            # and says so with this error. It is the interrupt, not a bad argument.
            if "Not enough samples to build a trace" in str(error):
                raise KeyboardInterrupt from error
            raise
    attrs = {
        **attrs,
        "nuts_sampler": "pymc",
        "pymc_seed": random_seed,
        "wall_time": time.perf_counter() - started,
    }
    kept = tree["posterior"].sizes["draw"]
    kept_chains = tree["posterior"].sizes["chain"]
    if kept < draws or kept_chains < chains:
        # pm.sample swallows Ctrl-C and returns the draws so far (with cores < chains, the
        # chains of the batches that had finished): say so, as for Gibbs.
        attrs.update(interrupted=True, draws=kept, chains=kept_chains)
    if compute and program.observed_RVs:
        started = time.perf_counter()
        with ieee_arithmetic():
            pm.compute_log_likelihood(
                tree, model=program, extend_inferencedata=True, progressbar=False
            )
        attrs["log_likelihood_time"] = time.perf_counter() - started
        group = tree["log_likelihood"].to_dataset()
        stats = tree["sample_stats"].to_dataset()
        stats["log_likelihood_total"] = sum(
            values.sum([d for d in values.dims if d not in ("chain", "draw")])
            for values in group.data_vars.values()
        )
        tree["sample_stats"] = stats
        if not keep:
            del tree["log_likelihood"]
    if hidden:
        tree["posterior"] = _without(tree["posterior"].to_dataset(), hidden)
    posterior = tree["posterior"].to_dataset()
    arrays = {name: posterior[name].values for name in posterior.data_vars}
    extra = _derived_draws(model, data, prior, arrays)
    if extra:
        dims = model.variables(prior)
        for name, values in extra.items():
            coords = {d: data.coords[d] for d in dims[name]}
            posterior[name] = xr.DataArray(
                values, dims=("chain", "draw", *dims[name]), coords=coords
            )
        tree["posterior"] = posterior
    for group in ("posterior", "sample_stats"):
        tree[group].attrs.update(attrs)
    return tree


def _without(dataset: xr.Dataset, names: list[str]) -> xr.Dataset:
    """``dataset`` without the variables ``names`` and the coordinates only they used."""
    dataset = dataset.drop_vars(names)
    used = {dim for values in dataset.data_vars.values() for dim in values.dims}
    unused = [name for name in dataset.coords if name not in used]
    return dataset.drop_vars(unused)
