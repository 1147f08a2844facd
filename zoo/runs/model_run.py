"""A run of ``zoo check``: one model's problem sampled by each engine."""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import xarray as xr

from zoo.core.defaults import ALPHA, CHAINS, DRAWS, ENGINES, TUNE
from zoo.registry import get
from zoo.sampling.driver import sample

__all__ = ["ModelRun", "sample_model", "versions"]

_PACKAGES = (
    "bayes-zoo",
    "pymc",
    "pytensor",
    "arviz-base",
    "arviz-stats",
    "arviz-plots",
    "numpy",
    "scipy",
    "xarray",
    "numba",
)


@dataclass
class ModelRun:
    """The draws of one model's problem, by engine, with what is needed to judge them.

    Attributes
    ----------
    model : str
        Registry name.
    data, prior
        The model's ``Data`` and ``Prior``.
    settings : dict
        ``draws``, ``tune``, ``chains``, ``seed``, ``alpha`` and (after PyMC ran)
        ``nuts_sampler``.
    trees : dict of str to DataTree
        Draws per engine (``gibbs``, ``pymc``); an engine that did not run is absent.
    interrupted : bool
        Sampling was stopped by Ctrl-C: ``trees`` holds what was drawn until then.
    seconds : dict
        Wall time of each stage.
    stored_verdicts : dict
        Verdicts recorded in a saved run (empty for a fresh one).
    """

    model: str
    data: Any
    prior: Any
    settings: dict
    trees: dict[str, xr.DataTree] = field(default_factory=dict)
    interrupted: bool = False
    seconds: dict = field(default_factory=dict)
    stored_verdicts: dict = field(default_factory=dict)

    def kept(self) -> dict[str, str]:
        """What each engine drew, in words, for every engine of the zoo.

        ``"2 chains x 500 draws"``; ``"2 chains x 19 draws (interrupted)"`` when Ctrl-C
        cut the engine short; ``"not run"`` when it has no draws. One wording for the
        terminal, the report and the JSON, so an AGREE is never read as a full check of
        an engine that did not run.
        """
        words = {}
        for engine in [*ENGINES, *(e for e in self.trees if e not in ENGINES)]:
            tree = self.trees.get(engine)
            if tree is None:
                words[engine] = "not run"
                continue
            posterior = tree["posterior"]
            cut = " (interrupted)" if posterior.attrs.get("interrupted") else ""
            words[engine] = (
                f"{posterior.sizes['chain']} chains x {posterior.sizes['draw']} draws{cut}"
            )
        return words


def versions() -> dict[str, str]:
    """Versions of Python and of the packages a run depends on."""
    found = {"python": platform.python_version()}
    for package in _PACKAGES:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def sample_model(
    name,
    *,
    draws: int = DRAWS,
    tune: int = TUNE,
    chains: int = CHAINS,
    seed: int = 0,
    alpha: float = ALPHA,
    engines=ENGINES,
    problem=None,
    progress: bool | None = None,
    status=None,
    cores: int | None = None,
) -> ModelRun:
    """Sample a model's problem (default: ``default_problem()``) with each engine.

    Each engine draws from its own stream of ``seed`` (:mod:`zoo.core.streams`), so an
    engine's draws are those of ``zoo.sample(..., seed=seed)`` alone. Ctrl-C does not
    raise: the run comes back with ``interrupted=True`` and the draws completed so far
    (a Gibbs run keeps its completed sweeps; the engines after it are skipped).

    Parameters
    ----------
    name : str or Model
    draws, tune, chains, seed
        As for :func:`zoo.sample`.
    alpha : float
        Recorded in the settings for the agreement tests.
    engines : sequence of {"gibbs", "pymc"}
    problem : (data, prior), optional
    progress : bool, optional
        Progress displays (default: when standard error is a terminal).
    status : callable, optional
        Called with a short message before each stage.
    cores : int, optional
        Processes PyMC's chains run in (:func:`zoo.sample`); the draws do not depend on it.
    """
    say = status or (lambda message: None)
    model = get(name)
    unknown = [e for e in engines if e not in ENGINES]
    if unknown or not engines:
        raise ValueError(f"engines: must be a non-empty subset of {ENGINES}, got {engines!r}")
    data, prior = model.default_problem() if problem is None else problem
    settings = {"draws": draws, "tune": tune, "chains": chains, "seed": seed, "alpha": alpha}
    run = ModelRun(model.name, data, prior, settings)
    messages = {"gibbs": "sampling with the Gibbs kernel", "pymc": "sampling with PyMC (NUTS)"}
    for engine in engines:
        say(f"{model.name}: {messages[engine]}")
        started = time.perf_counter()
        try:
            tree = sample(
                model,
                data,
                prior,
                engine=engine,
                draws=draws,
                tune=tune,
                chains=chains,
                seed=seed,
                progress=progress,
                **({"cores": cores} if engine == "pymc" else {}),
            )
        except KeyboardInterrupt:
            run.interrupted = True
            break
        run.seconds[engine] = time.perf_counter() - started
        run.trees[engine] = tree
        if "nuts_sampler" in tree["posterior"].attrs:
            run.settings["nuts_sampler"] = tree["posterior"].attrs["nuts_sampler"]
        if tree["posterior"].attrs.get("interrupted"):
            run.interrupted = True
            break
    return run
