"""The sampler under test: one picklable value, built and validated once.

``zoo validate`` tests one of four things: the zoo's own engine (``gibbs`` with the
model's kernel, or ``pymc``), a user's kernel run by the zoo's Gibbs driver, one of the
model's catalogued wrong kernels (a *fault*), or a user's sampler function. Whichever it
is, it becomes one :class:`SamplerUnderTest`, checked when built; every check and every
worker receives that value as it is.

Pickling (Dask ships it to worker processes): the model travels as itself
(:meth:`zoo.Model.__reduce__` sends a built-in model as its location); a fault travels
as its name, resolved to a kernel through the model on the worker side, because the
kernels of faults may be closures, which pickle cannot carry; a user's function or
kernel travels by reference to its module, like any module-level object.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

import xarray as xr

from zoo.core.arguments import as_kernel
from zoo.core.contract import Kernel, Model
from zoo.core.defaults import ENGINES
from zoo.sampling.driver import sample
from zoo.sampling.sampler_output import checked_draws

__all__ = ["SamplerUnderTest", "describe", "fit_task"]


def describe(value) -> str:
    """``module:name`` of a user's sampler or kernel, as the user would pass it.

    The name the object itself is bound to at the top level of its module, when it is
    (a sampler built by a factory, ``sampler = make_sampler(...)``; a ``zoo.Kernel``
    assembled from functions, found in its ``step``'s module); else its qualified name,
    or its type's.
    """
    kernel = isinstance(value, Kernel)
    where = value.step if kernel else value
    module = getattr(where, "__module__", None) or type(where).__module__
    for name, bound in vars(sys.modules.get(module, object)).items():
        # A Kernel reaches a worker as a copy of its functions' references: equal parts.
        same = bound is value or (kernel and isinstance(bound, Kernel) and bound == value)
        if same and not name.startswith("__"):
            return f"{module}:{name}"
    name = getattr(value, "__qualname__", None) or type(value).__qualname__
    return f"{module}:{name}"


@dataclass(frozen=True)
class SamplerUnderTest:
    """What ``zoo validate`` tests, in one of four forms.

    At most one of ``sampler``, ``kernel`` and ``fault`` is given; with none, the zoo's
    own ``engine`` is under test.

    Parameters
    ----------
    model : Model
    engine : {"gibbs", "pymc"}
        The zoo engine that samples, when ``sampler`` is not given. A ``kernel`` or
        ``fault`` runs on the Gibbs engine.
    kernel : Kernel, optional
        A user's kernel (an object with ``init``, ``step`` and ``draw``), sampled by the
        zoo's driver.
    fault : str, optional
        A key of ``model.faults``: one of the model's catalogued wrong kernels.
    sampler : callable, optional
        A user's ``sampler(data, prior, *, draws, chains, seed)``.
    name : str, optional
        How the user named the sampler or kernel (``--sampler mod:name``, ``--kernel
        mod:name``): reports say it. Default: :func:`describe`'s.

    Raises
    ------
    ValueError
        Naming the argument, when the combination or a value is not one of the above.
    """

    model: Model
    engine: str = ENGINES[0]
    kernel: Kernel | None = None
    fault: str | None = None
    sampler: Callable | None = None
    name: str | None = None

    def __post_init__(self):
        if not isinstance(self.model, Model):
            raise ValueError(f"model: expected a zoo.Model, got {self.model!r:.80}")
        if self.sampler is not None and (self.kernel is not None or self.fault is not None):
            raise ValueError("sampler: give a sampler, or a kernel / fault, not both")
        if self.kernel is not None and self.fault is not None:
            raise ValueError("kernel: give a kernel or a fault, not both")
        if self.engine not in ENGINES:
            raise ValueError(
                f"engine: must be one of {', '.join(map(repr, ENGINES))}, got {self.engine!r}"
            )
        if (self.kernel is not None or self.fault is not None) and self.engine != ENGINES[0]:
            raise ValueError(
                f"engine: a kernel or fault runs on the {ENGINES[0]!r} engine, got {self.engine!r}"
            )
        if self.fault is not None and self.fault not in self.model.faults:
            raise ValueError(
                f"fault: {self.model.name} has no fault {self.fault!r}; "
                f"known: {', '.join(self.model.faults) or 'none'}"
            )
        if self.kernel is not None:
            as_kernel("kernel", self.kernel)
        if self.sampler is not None and not callable(self.sampler):
            raise ValueError(f"sampler: must be callable, got {type(self.sampler).__name__}")

    @property
    def kernel_under_test(self) -> Kernel | None:
        """The Gibbs kernel under test, or None for PyMC and a user's sampler function.

        A fault is looked up here, through the model, on whichever process asks.
        """
        if self.fault is not None:
            return self.model.faults[self.fault]
        if self.kernel is not None:
            return self.kernel
        if self.sampler is None and self.engine == ENGINES[0]:
            return self.model.kernel
        return None

    @property
    def users_code(self) -> bool:
        """True for a user's sampler or kernel (the zoo's own are tested by its tests)."""
        return self.sampler is not None or self.kernel is not None

    @property
    def label(self) -> str:
        """How the sampler is named in reports: as the user passed it.

        A user's sampler by its ``name`` (or :func:`describe`); a user's kernel likewise,
        with its step, "run by the zoo's driver" (the driver runs any kernel, Gibbs or
        Metropolis-Hastings: the label does not say which it is); the zoo's own by
        engine or fault.
        """
        if self.sampler is not None:
            return self.name or describe(self.sampler)
        if self.fault is not None:
            return f"zoo kernel with fault {self.fault!r}"
        if self.kernel is not None:
            kernel = self.name or describe(self.kernel)
            step = describe(getattr(self.kernel, "step", self.kernel))
            return f"kernel {kernel} (step {step}), run by the zoo's driver"
        return f"zoo {self.engine} engine"

    @property
    def continuable(self) -> bool:
        """Whether a longer fit of the same seed continues a shorter one's chains.

        True for a Gibbs kernel (the zoo's, a fault, a user's) run by the zoo's driver:
        each chain draws from its own stream in order, so with the same warm-up a fit of
        ``2 n`` draws begins with the ``n`` draws of a fit of ``n``, bit for bit. A
        user's sampler function and PyMC promise no such thing (a function may warm up
        for as long as it is asked to draw); a longer fit of theirs is a new fit.
        """
        return self.kernel_under_test is not None

    def sample(self, data, prior, *, draws: int, chains: int, seed: int, tune: int | None = None):
        """Sample ``data`` under ``prior``: the sampler protocol, output unchecked.

        The zoo's engines warm up for ``tune`` iterations, by default as many as they
        keep (``tune = draws``); a user's sampler function warms up as it chooses.
        """
        if self.sampler is not None:
            return self.sampler(data, prior, draws=draws, chains=chains, seed=seed)
        return sample(
            self.model,
            data,
            prior,
            engine=self.engine,
            draws=draws,
            tune=draws if tune is None else tune,
            chains=chains,
            seed=seed,
            kernel=self.kernel_under_test,
            progress=False,
            # The battery reads the posterior only.
            log_likelihood=False,
        )

    def fit(
        self, data, prior, *, draws: int, chains: int, seed: int, tune: int | None = None
    ) -> xr.Dataset:
        """Sample and check the output: a Dataset with the model's dims and coordinates.

        ``tune`` as in :meth:`sample`.

        Raises
        ------
        SamplerOutputError
            When the output lacks a variable, has the wrong shape, chains or draws, or
            holds NaN or infinite values.
        """
        output = self.sample(data, prior, draws=draws, chains=chains, seed=seed, tune=tune)
        return checked_draws(output, self.model, data, prior, chains=chains, draws=draws)


def fit_task(
    tested: SamplerUnderTest,
    data,
    prior,
    draws: int,
    chains: int,
    seed: int,
    tune: int | None = None,
):
    """``tested.fit(...)`` with positional arguments: a fit as one task of the pool."""
    return tested.fit(data, prior, draws=draws, chains=chains, seed=seed, tune=tune)
