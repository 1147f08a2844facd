"""``zoo check``: both engines on a model's default data, judged against the exact answer."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from zoo.diagnostics import AgreementResult, agreement, compare
from zoo.registry import get

__all__ = ["ModelCheck", "run_check"]


@dataclass
class ModelCheck:
    """Everything ``zoo check`` learned about one model.

    Attributes
    ----------
    model : str
        Registry name.
    gibbs, pymc : AgreementResult or None
        Each engine against the exact reference (None when there is no reference).
    cross : AgreementResult
        Gibbs against PyMC, two-sample.
    reference_note : str
        How the exact reference was obtained, or why there is none.
    seconds : dict
        Wall time of each stage.
    """

    model: str
    gibbs: AgreementResult | None
    pymc: AgreementResult | None
    cross: AgreementResult
    reference_note: str
    settings: dict
    seconds: dict = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """``agree`` only when every comparison agrees; otherwise the worst verdict."""
        verdicts = [r.verdict for r in (self.gibbs, self.pymc, self.cross) if r is not None]
        for worst in ("disagree", "inconclusive"):
            if worst in verdicts:
                return worst
        return "agree"

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {
            "model": self.model,
            "verdict": self.verdict,
            "settings": self.settings,
            "reference": self.reference_note,
            "seconds": self.seconds,
            "gibbs_vs_exact": None if self.gibbs is None else self.gibbs.to_dict(),
            "pymc_vs_exact": None if self.pymc is None else self.pymc.to_dict(),
            "gibbs_vs_pymc": self.cross.to_dict(),
        }


def run_check(
    name: str,
    *,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    seed: int = 0,
    alpha: float = 0.01,
    progress: bool | None = None,
    status=None,
) -> ModelCheck:
    """Sample a model's default problem with both engines and test them.

    The Gibbs and PyMC runs get independent streams spawned from ``seed``. ``status``,
    if given, is called with a short message before each stage.
    """
    from zoo.driver import sample

    say = status or (lambda message: None)
    spec = get(name)
    data, prior = spec.default_problem()
    gibbs_seed, pymc_seed = np.random.SeedSequence(seed).spawn(2)
    seconds = {}
    settings = {"draws": draws, "tune": tune, "chains": chains, "seed": seed, "alpha": alpha}

    say(f"{spec.name}: exact reference")
    started = time.perf_counter()
    reference = spec.posterior(data, prior)
    seconds["reference"] = time.perf_counter() - started

    say(f"{spec.name}: sampling with the Gibbs kernel")
    started = time.perf_counter()
    gibbs = sample(
        spec,
        data,
        prior,
        engine="gibbs",
        draws=draws,
        tune=tune,
        chains=chains,
        seed=gibbs_seed,
        progress=progress,
    )
    seconds["gibbs"] = time.perf_counter() - started

    say(f"{spec.name}: sampling with PyMC (NUTS; compiling first)")
    started = time.perf_counter()
    pymc = sample(
        spec,
        data,
        prior,
        engine="pymc",
        draws=draws,
        tune=tune,
        chains=chains,
        seed=pymc_seed,
        progress=progress,
    )
    seconds["pymc"] = time.perf_counter() - started

    say(f"{spec.name}: agreement tests")
    started = time.perf_counter()
    # Only identified variables are compared (label-invariant ones when the model's
    # labels are exchangeable under this prior).
    comparable = spec.comparable_variables(prior)
    if reference.available:
        exact = [name for name in comparable if name in reference.marginals]
        gibbs_result = agreement(gibbs, reference, var_names=exact, alpha=alpha)
        pymc_result = agreement(pymc, reference, var_names=exact, alpha=alpha)
        note = reference.note
    else:
        gibbs_result = pymc_result = None
        note = f"no exact reference: {reference.reason}"
    cross = compare(gibbs, pymc, var_names=comparable, alpha=alpha)
    seconds["diagnostics"] = time.perf_counter() - started
    return ModelCheck(spec.name, gibbs_result, pymc_result, cross, note, settings, seconds)
