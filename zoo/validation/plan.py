"""What a check of the battery is, and what every check receives.

A :class:`Check` describes itself: its name and title, the models it runs on by
default, whether it simulates from the prior, the random stream it draws from and its
budget (:class:`Setting`: named parameters with their defaults, rules and command-line
options). The battery's table (:data:`zoo.validation.battery.CHECKS`) is a tuple of
them; the command line's options, :func:`zoo.validate`'s ``budgets=``, the plan, the
streams and the report are read from it, so adding a check is writing its diagnostic,
its module (the :class:`Check` and its ``run``) and one entry in the table.

:func:`zoo.validate` validates its arguments once into a :class:`Plan`; each check's
``run(plan, pool, alpha)`` receives the plan with its own budget and returns a
:class:`~zoo.validation.results.CheckOutcome`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from zoo.core.arguments import as_int, require_draws_fit_memory
from zoo.core.defaults import BUDGET_PRESETS, CHAINS, DRAWS
from zoo.sampling.parallel import FitPool
from zoo.validation.problem_selection import Problem
from zoo.validation.results import CheckOutcome
from zoo.validation.sampler_under_test import SamplerUnderTest

__all__ = [
    "FIT_BUDGET",
    "MODEL_KINDS",
    "Check",
    "Plan",
    "Setting",
    "as_preset",
    "draws_fit_memory",
    "resolve_budgets",
]

#: The kinds of model a check can run on by default: the zoo's own, a user's PyMC model.
MODEL_KINDS = ("zoo", "pymc")
#: A check's name and a stream purpose: lower-case words joined by hyphens.
_NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


@dataclass(frozen=True)
class Setting:
    """One parameter of a check's budget: a whole number with a floor.

    Attributes
    ----------
    name : str
        Its key in the check's budget (``budgets={"sbc": {"draws": 200}}``).
    default : int
        Used when the caller does not give it.
    help : str
        What it counts, for ``zoo validate --help``.
    minimum : int
        The smallest value allowed.
    option : str, optional
        The command-line option without its dashes; default ``CHECK-NAME`` (say
        ``--sbc-draws``). Checks whose settings share an option (``--draws`` sets the
        exact and the nuts check's draws) take one value from it and must share the
        default.
    """

    name: str
    default: int
    help: str
    minimum: int = 1
    option: str | None = None

    def checked(self, field: str, value) -> int:
        """``value`` as an int, or a ValueError naming ``field`` and the rule."""
        return as_int(field, value, minimum=self.minimum)


@dataclass(frozen=True)
class Plan:
    """One run of the battery: the sampler under test and the validated settings.

    Attributes
    ----------
    tested : SamplerUnderTest
    problems : tuple of Problem
        Data sets of the exact and nuts checks.
    seed : int
        Root seed; each check draws from its own stream (its ``purpose``) of
        :mod:`zoo.core.streams`.
    budget : mapping
        The running check's budget, every :class:`Setting` by name (the battery hands
        each check the plan with its own).
    sbc_setup : (prior, size), optional
        The proper prior and ``simulate`` sizes for SBC (default: the model's
        ``simulation_setup()``); its prior also replaces the prior of the kernel checks.
    sbc_source : str
        Where the SBC prior came from (said in the check's summary).
    store : path, optional
        JSON-lines file of SBC results.
    on_simulation : callable, optional
        ``on_simulation(done, total)`` after each SBC simulation.
    """

    tested: SamplerUnderTest
    problems: tuple[Problem, ...]
    seed: int
    budget: Mapping[str, int]
    sbc_setup: tuple[Any, dict] | None = None
    sbc_source: str = "the model's simulation prior"
    store: Any = None
    on_simulation: Callable[[int, int], None] | None = None


#: The budget of a check that fits each data set once (exact, nuts): draws and chains
#: per fit, both set by ``--draws`` and ``--chains``.
FIT_BUDGET = (
    Setting("draws", DRAWS, "draws per chain of each fit", option="draws"),
    Setting("chains", CHAINS, "chains of each fit", option="chains"),
)


def draws_fit_memory(budget: Mapping[str, int], field: Callable[[str], str]) -> None:
    """The rule of a budget with ``draws`` and ``chains``: one scalar's draws fit in RAM."""
    require_draws_fit_memory(field("draws"), budget["draws"], budget["chains"])


@dataclass(frozen=True)
class Check:
    """One entry of the battery's table: everything the battery needs to know of a check.

    Attributes
    ----------
    name : str
        As given to ``checks=``, ``--checks`` and ``budgets=``.
    title : str
        Its heading in the report.
    run : callable
        ``run(plan, pool, alpha) -> CheckOutcome``, at false-alarm rate ``alpha``, with
        ``plan.budget`` this check's budget.
    purpose : str
        The random stream its draws come from (:mod:`zoo.core.streams`): its own, so
        that adding or removing a check changes no other check's draws.
    budget : tuple of Setting
        What the caller may set (``budgets={name: {...}}``, command-line options).
    default_on : tuple of str
        The kinds of model it runs on when the caller does not choose the checks
        (:data:`MODEL_KINDS`).
    needs_kernel : bool
        Tests a Gibbs kernel itself (through the model's ``kernel_checks``), so it
        applies only when the sampler under test has one.
    simulates : bool
        Draws parameters and data from the prior, so it is refused, before any fit,
        for a user's model whose prior cannot be simulated (an improper prior).
    needs_reference : bool
        Judges against the exact posterior: by default it runs on a user's model only
        where a reference exists, and when chosen every data set needs one.
    against_engine : str, optional
        The zoo engine it compares the sampler with; not run by default when that
        engine is itself the sampler under test.
    description : str
        What its report section shows, said under the heading.
    rule : callable, optional
        ``rule(budget, field)``: a ValueError for a budget whose settings do not go
        together, ``field(name)`` naming a setting as the caller gave it.
    preflight : callable, optional
        ``preflight(plan)``, run before any fit of the battery: a ValueError for what
        the check would otherwise meet only when its turn comes (SBC's result store).
    """

    name: str
    title: str
    run: Callable[[Plan, FitPool, float], CheckOutcome]
    purpose: str
    budget: tuple[Setting, ...] = ()
    default_on: tuple[str, ...] = MODEL_KINDS
    needs_kernel: bool = False
    simulates: bool = False
    needs_reference: bool = False
    against_engine: str | None = None
    description: str = ""
    rule: Callable[[Mapping[str, int], Callable[[str], str]], None] | None = None
    preflight: Callable[[Plan], None] | None = None

    def __post_init__(self):
        for field, value in (("name", self.name), ("purpose", self.purpose)):
            if not isinstance(value, str) or not _NAME.fullmatch(value):
                raise ValueError(
                    f"Check.{field}: lower-case words joined by hyphens, got {value!r}"
                )
        unknown = [kind for kind in self.default_on if kind not in MODEL_KINDS]
        if unknown:
            raise ValueError(f"Check.default_on: {unknown} not among {MODEL_KINDS}")
        names = [setting.name for setting in self.budget]
        if len(set(names)) != len(names):
            raise ValueError(f"Check.budget: {self.name} names a setting twice: {names}")

    def option(self, setting: Setting) -> str:
        """The command-line option of one of its settings, without the dashes."""
        return setting.option or f"{self.name}-{setting.name.replace('_', '-')}"

    def defaults(self) -> dict[str, int]:
        """Its budget at the defaults."""
        return {setting.name: setting.default for setting in self.budget}

    def checked_budget(self, given: Mapping, field: Callable[[str], str]) -> dict[str, int]:
        """Its budget with ``given`` over the defaults, every value checked.

        ``field(name)`` names a setting in an error as the caller gave it (a key of
        ``budgets=`` or a command-line option).
        """
        if not isinstance(given, Mapping):
            raise ValueError(
                f"{field('')}: must map setting names to values, got {type(given).__name__}"
            )
        known = {setting.name: setting for setting in self.budget}
        unknown = [key for key in given if key not in known]
        if unknown:
            raise ValueError(
                f"{field(unknown[0])}: {self.name} has no budget setting {unknown[0]!r}; "
                f"its settings: {', '.join(known) or 'none'}"
            )
        budget = self.defaults()
        for name, value in given.items():
            budget[name] = known[name].checked(field(name), value)
        if self.rule is not None:
            self.rule(budget, field)
        return budget


def as_preset(field: str, preset) -> str:
    """``preset`` when it names one of :data:`~zoo.core.defaults.BUDGET_PRESETS`.

    Raises
    ------
    ValueError
        Naming ``field`` and the presets.
    """
    if not isinstance(preset, str) or preset not in BUDGET_PRESETS:
        raise ValueError(f"{field}: must be one of {', '.join(BUDGET_PRESETS)}, got {preset!r}")
    return preset


def resolve_budgets(table, budgets, preset: str = "default") -> dict[str, dict[str, int]]:
    """Every check's budget: ``budgets`` over the ``preset`` over the defaults.

    ``budgets`` is ``{check: {setting: value}}``; ``preset`` a key of
    :data:`~zoo.core.defaults.BUDGET_PRESETS`, whose settings apply where ``budgets``
    does not set them (a check the preset does not name keeps its entry's defaults).

    Raises
    ------
    ValueError
        Naming the entry: an unknown preset, an unknown check, an unknown setting, a
        value that breaks a setting's rule or the check's.
    """
    preset = as_preset("budget", preset)
    budgets = {} if budgets is None else budgets
    if not isinstance(budgets, Mapping):
        raise ValueError(
            "budgets: must map check names to their settings "
            f"({{'sbc': {{'simulations': 200}}}}), got {type(budgets).__name__}"
        )
    by_name = {check.name: check for check in table}
    unknown = [name for name in budgets if name not in by_name]
    if unknown:
        raise ValueError(f"budgets: unknown check {unknown[0]!r}; choose from {tuple(by_name)}")
    resolved = {}
    for check in table:

        def field(setting: str, check=check) -> str:
            return f"budgets[{check.name!r}]" + (f"[{setting!r}]" if setting else "")

        given = budgets.get(check.name, {})
        if isinstance(given, Mapping):
            given = {**BUDGET_PRESETS[preset].get(check.name, {}), **given}
        resolved[check.name] = check.checked_budget(given, field)
    return resolved
