"""What every example outside the zoo shares: the chain loop, the bug samplers, the script.

Each example (``pump_failures.py``, ``semi_conjugate_normal.py``, ...) holds only its
PyMC ``model()``, its hand-derived kernel and sampler, and its planted bugs; this module
runs them:

- :func:`run` loops a ``zoo.Kernel``: per chain, warm-up sweeps discarded, then the
  draws kept, each chain on its own stream spawned from ``default_rng(seed)``;
- :class:`BugSampler` is the same loop around a kernel with a planted bug, a picklable
  object (not a closure) that reports name ``BUG_SAMPLERS['name']``;
- :func:`main` parses ``--draws``, ``--chains``, ... (defaults from the environment
  variables ``ZOO_EXAMPLE_DRAWS``, ...), runs ``zoo.validate`` on the correct kernel (or
  sampler) and on every bug, and prints one verdict per line.

An example imports it as ``from examples import harness`` when it is imported from the
root of the repository (``zoo validate --model examples.pump_failures:model``, the
tests), and as ``import harness`` when it runs as a script (``python
examples/pump_failures.py``), where Python puts ``examples/`` itself first on the path.
"""

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import zoo

__all__ = ["BugSampler", "Example", "bug_samplers", "main", "run", "settings"]

#: The integer settings of an example script and their defaults.
SETTINGS = {"draws": 1000, "chains": 4, "simulations": 100, "seed": 0, "workers": 0}


def run(kernel, data, *, draws, chains, seed, warmup):
    """Run ``kernel``: ``chains`` chains of ``warmup`` discarded steps and ``draws`` kept.

    Each chain has its own stream, spawned from ``numpy.random.default_rng(seed)``.

    Parameters
    ----------
    kernel : zoo.Kernel
    data : dict
        Observed and ``pm.Data`` values by name, as ``zoo validate`` passes them.
    draws, chains, warmup : int
        Steps kept per chain (>= 1), chains (>= 1), steps discarded first (>= 0).
    seed : int or None

    Returns
    -------
    dict of str to ndarray
        Every variable of ``kernel.draw``, shaped ``(chain, draw, *shape)``.

    Raises
    ------
    ValueError
        Naming the setting, before any step, when one is not an integer in range.
    """
    for name, value in (("draws", draws), ("chains", chains), ("warmup", warmup)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
            raise ValueError(f"{name}: must be an integer >= 0, got {value!r}")
    if draws < 1 or chains < 1:
        raise ValueError(f"draws, chains: must be >= 1, got {draws}, {chains}")
    out = {}
    for c, rng in enumerate(np.random.default_rng(seed).spawn(chains)):
        state = kernel.init(data, rng)
        for _ in range(warmup):
            state = kernel.step(state, data, rng)
        for d in range(draws):
            state = kernel.step(state, data, rng)
            for name, value in kernel.draw(state, data, rng).items():
                if name not in out:
                    out[name] = np.empty((chains, draws, *np.shape(value)))
                out[name][c, d] = value
    return out


class BugSampler:
    """A sampler with a planted bug: :func:`run` around the kernel with the bug.

    An object rather than a closure, so it pickles (by its kernel's functions, which
    pickle by reference) for worker processes. Reports name it
    ``<example module>:BUG_SAMPLERS['name']``.

    Parameters
    ----------
    name : str
        The bug's key in the example's ``BUG_KERNELS`` and ``BUG_SAMPLERS``.
    kernel : zoo.Kernel
        The kernel with the bug.
    warmup : int
        Steps discarded at the start of each chain, as for the example's ``sampler``.
    collection : str
        The name of the example's dict that holds it (a file with several models names
        one per model).
    """

    def __init__(self, name, kernel, *, warmup, collection="BUG_SAMPLERS"):
        self.name = name
        self.kernel = kernel
        self.warmup = warmup
        self.collection = collection
        # what `zoo validate` prints for it: the example's module, not this one
        self.__module__ = kernel.step.__module__
        self.__qualname__ = f"{collection}[{name!r}]"

    def __call__(self, data, *, draws, chains, seed, warmup=None):
        """Draws from the kernel with the bug; arguments as for the example's ``sampler``."""
        warmup = self.warmup if warmup is None else warmup
        return run(self.kernel, data, draws=draws, chains=chains, seed=seed, warmup=warmup)

    def __repr__(self):
        return f"{self.collection}[{self.name!r}]"


def bug_samplers(bug_kernels, *, warmup, collection="BUG_SAMPLERS"):
    """``BUG_SAMPLERS``: a :class:`BugSampler` per kernel of ``BUG_KERNELS``, same names."""
    return {
        name: BugSampler(name, kernel, warmup=warmup, collection=collection)
        for name, kernel in bug_kernels.items()
    }


def settings(description, argv=None):
    """Command-line settings of an example; defaults from ZOO_EXAMPLE_* variables.

    Parameters
    ----------
    description : str
        The ``--help`` text's first line.
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    argparse.Namespace
        ``draws``, ``chains``, ``simulations``, ``seed``, ``workers`` (int), ``checks``
        and ``only`` (str or None) and ``sampler`` (bool).
    """
    parser = argparse.ArgumentParser(description=description)
    for name, default in SETTINGS.items():
        env = os.environ.get(f"ZOO_EXAMPLE_{name.upper()}")
        parser.add_argument(f"--{name}", type=int, default=int(env) if env else default)
    parser.add_argument(
        "--checks", help="comma-separated subset of the checks (default: all that apply)"
    )
    parser.add_argument(
        "--sampler",
        action="store_true",
        help="validate the sampler functions (nuts, sbc) rather than the kernels (all checks)",
    )
    parser.add_argument("--only", help="comma-separated: correct and/or names of bugs")
    return parser.parse_args(argv)


@dataclass(frozen=True)
class Example:
    """One model of an example file with its correct forms and its planted bugs.

    Parameters
    ----------
    title : str
        The data's name, first on the heading line of the verdicts.
    model : callable
        A function returning the ``pymc.Model``.
    kernel : zoo.Kernel
        The correct kernel.
    sampler : callable
        The correct ``sampler(data, *, draws, chains, seed)``.
    bug_kernels, bug_samplers : dict
        ``BUG_KERNELS`` and ``BUG_SAMPLERS``: the same names in both.
    """

    title: str
    model: Callable
    kernel: object
    sampler: Callable
    bug_kernels: dict = field(default_factory=dict)
    bug_samplers: dict = field(default_factory=dict)


def main(description, examples, argv=None):
    """Run ``zoo.validate`` on the correct kernel (or sampler) and on each planted bug.

    Prints, per example, a heading and one line per candidate: ``  name: verdict (check
    verdict, ...)``.

    Parameters
    ----------
    description : str
        The ``--help`` text's first line.
    examples : list of Example
        The models of the file (most files have one).
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).
    """
    args = settings(description, argv)
    form = "sampler" if args.sampler else "kernel"
    every = [
        {"correct": e.sampler, **e.bug_samplers}
        if args.sampler
        else {"correct": e.kernel, **e.bug_kernels}
        for e in examples
    ]
    known = [name for candidates in every for name in candidates]
    names = args.only.split(",") if args.only else list(dict.fromkeys(known))
    unknown = [name for name in names if name not in known]
    if unknown:
        raise SystemExit(f"--only: unknown {unknown}; choose from {sorted(set(known))}")
    checks = tuple(args.checks.split(",")) if args.checks else None
    for example, candidates in zip(examples, every, strict=True):
        print(f"{example.title}: zoo.validate on the correct {form} and each planted bug")
        for name in (name for name in names if name in candidates):
            result = zoo.validate(
                example.model,
                **{form: candidates[name]},
                checks=checks,
                budgets={
                    "exact": {"draws": args.draws, "chains": args.chains},
                    "nuts": {"draws": args.draws, "chains": args.chains},
                    "sbc": {"simulations": args.simulations},
                },
                seed=args.seed,
                # in this process: a sampler defined in a script is not importable by workers
                workers=args.workers,
            )
            detail = ", ".join(f"{check.name} {check.verdict}" for check in result.checks)
            print(f"  {name}: {result.verdict} ({detail})")
