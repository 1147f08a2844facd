"""Reading a PyMC graph for conjugacy: how each parameter depends on the free variables.

:func:`zoo.specification.conjugacy.conjugate_reference` needs to know, for every
likelihood parameter, whether it is a constant or a recognised function of one free
variable. The recognised functions are the monomials

    parameter = coef * S(variable) ** power

where ``S`` is structural (indexing by known integers, broadcasting, a
``pm.Deterministic`` wrapper) and ``coef`` is a constant (an exposure, a known scale).
They cover ``Poisson(rate * exposure)``, ``Exponential(lam)`` (PyMC passes
``scale = 1 / lam``), ``Normal(sigma=pt.sqrt(sigma2))``, ``Normal(tau=tau)`` (PyMC
passes ``sigma = |tau| ** -0.5 * sign(tau)``) and ``theta[group_idx]``. Anything else
raises :class:`NotRecognised`, whose message names the operation: the caller turns it
into a ``NoReference``, never a guess.

Everything is kept symbolic here. The labels (the flat index, in the variable, of
each element of the parameter) and the coefficient are built by re-applying the
structural operations to an integer array and to an array of ones, so that a single
compiled PyTensor function (:func:`evaluate`) evaluates them with the caller's data
swapped in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pytensor
import pytensor.scalar.basic as ps
import pytensor.tensor as pt
from pymc.distributions.transforms import _default_transform
from pytensor.compile.mode import Mode
from pytensor.compile.ops import ViewOp
from pytensor.graph.traversal import ancestors
from pytensor.tensor.basic import Alloc, get_underlying_scalar_constant_value
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.exceptions import NotScalarConstantError
from pytensor.tensor.random import basic as rvs
from pytensor.tensor.random.op import RandomVariable
from pytensor.tensor.shape import SpecifyShape
from pytensor.tensor.subtensor import AdvancedSubtensor, Subtensor

__all__ = [
    "LIKELIHOOD_OPS",
    "MODE",
    "PRIOR_OPS",
    "Likelihood",
    "NotRecognised",
    "Power",
    "Prior",
    "compile_values",
    "data_error",
    "data_givens",
    "evaluate",
    "free_parents",
    "read_data",
    "read_likelihoods",
    "read_power",
    "read_priors",
]

#: Operations that move or copy elements without changing them: applied to the labels
#: and the coefficient alike, with the same (constant) index or shape inputs.
_STRUCTURAL = (DimShuffle, Subtensor, AdvancedSubtensor, Alloc, SpecifyShape)

#: A py-linker mode: these graphs are tiny, and compiling them through the default
#: backend costs about a second each (0.005 s this way).
MODE = Mode(linker="py", optimizer="fast_compile")


class NotRecognised(Exception):
    """A parameter depends on a free variable in a way no conjugate rule covers."""


@dataclass(frozen=True)
class Power:
    """A parameter ``coef * S(variable) ** power``, symbolically.

    Attributes
    ----------
    variable : str
        The free variable.
    power : float
        The exponent.
    coef : TensorVariable
        The constant factor, with the parameter's shape.
    labels : TensorVariable
        Integer array of the parameter's shape: the flat index, in ``variable``, of the
        element each entry reads.
    checks : tuple of TensorVariable
        Boolean scalars that must all hold (two factors of a product read the same
        elements, as in ``|tau| ** -0.5 * sign(tau)``).
    scaled : bool
        Whether a product or quotient with a constant was met (``coef`` may differ
        from 1).
    via : tuple of str
        Named deterministics on the way (for messages).
    """

    variable: str
    power: float
    coef: pt.TensorVariable
    labels: pt.TensorVariable
    checks: tuple = ()
    scaled: bool = False
    via: tuple[str, ...] = ()


def free_parents(expression, free: Mapping, *, what: str, given=frozenset()) -> set[str]:
    """Names of the free variables ``expression`` depends on, stopping at them.

    ``given`` holds random variables read as constants (the outer variables of
    :mod:`zoo.specification.conditional`, whose values are inputs of the compiled
    function): the search stops at them too.

    Raises
    ------
    NotRecognised
        When it depends on a random variable that is not free (an observed variable
        used as a parameter, or a ``.dist`` inside the graph): its value would be
        data, and no rule treats data as a parameter.
    """
    found = set()
    for var in ancestors([expression], blockers=[*free, *given]):
        if var in free:
            found.add(free[var])
        elif var in given:
            continue
        elif var.owner is not None and isinstance(var.owner.op, RandomVariable):
            label = var.name or type(var.owner.op).__name__
            raise NotRecognised(
                f"{what} depends on the random variable {label}, which is not free"
            )
    return found


def read_power(
    expression, free: Mapping, shapes: Mapping, positive: set, *, what: str, given=frozenset()
):
    """Read ``expression`` as a :class:`Power` of one free variable, or None if constant.

    Parameters
    ----------
    expression : TensorVariable
        A parameter of a likelihood or prior.
    free : mapping of TensorVariable to str
        The model's free random variables and their names.
    shapes : mapping of str to tuple of int
        Shape of each free variable.
    positive : set of str
        Free variables with positive support, for which ``|v| = v`` and
        ``sign(v) = 1``.
    what : str
        How messages name the parameter.
    given : collection of TensorVariable
        Random variables held fixed: constants here (:func:`free_parents`).

    Raises
    ------
    NotRecognised
        Naming the operation, for anything but the monomials of the module docstring.
    """
    parents = free_parents(expression, free, what=what, given=given)
    if not parents:
        return None
    if len(parents) > 1:
        raise NotRecognised(f"{what} depends on {' and '.join(sorted(parents))} together")
    return _read(expression, free, given, shapes, positive, what)


def _read(var, free, given, shapes, positive, what) -> Power | None:
    if not free_parents(var, free, what=what, given=given):
        return None
    if var in free:
        name = free[var]
        shape = tuple(shapes[name])
        labels = pt.as_tensor_variable(
            np.arange(int(np.prod(shape)), dtype="int64").reshape(shape)
        )
        return Power(name, 1.0, pt.ones(shape, dtype="float64"), labels)
    node = var.owner
    op = node.op
    if isinstance(op, ViewOp):
        try:
            inner = _read(node.inputs[0], free, given, shapes, positive, what)
        except NotRecognised as refusal:
            raise NotRecognised(f"{refusal} (inside the Deterministic {var.name})") from None
        return replace(inner, via=(*inner.via, var.name)) if var.name else inner
    if isinstance(op, _STRUCTURAL):
        for other in node.inputs[1:]:
            if free_parents(other, free, what=what, given=given):
                raise NotRecognised(
                    f"{what}: an index or shape of {type(op).__name__} depends on a free variable"
                )
        inner = _read(node.inputs[0], free, given, shapes, positive, what)
        rest = node.inputs[1:]
        return replace(
            inner,
            coef=op.make_node(inner.coef, *rest).outputs[0],
            labels=op.make_node(inner.labels, *rest).outputs[0],
        )
    if isinstance(op, Elemwise):
        return _elemwise(node, free, given, shapes, positive, what)
    raise NotRecognised(f"{what} goes through {_describe(var)}, which no conjugate rule reads")


def _elemwise(node, free, given, shapes, positive, what) -> Power:
    scalar = node.op.scalar_op
    inputs = node.inputs
    parts = [_read(i, free, given, shapes, positive, what) for i in inputs]
    if isinstance(scalar, ps.Cast | ps.Identity):
        if not node.outputs[0].dtype.startswith("float"):
            raise NotRecognised(f"{what} casts a free variable to {node.outputs[0].dtype}")
        return parts[0]
    if isinstance(scalar, ps.Mul):
        return _product(parts, inputs, [1.0] * len(inputs), what)
    if isinstance(scalar, ps.TrueDiv):
        return _product(parts, inputs, [1.0, -1.0], what)
    if isinstance(scalar, ps.Reciprocal):
        return _raise(parts[0], -1.0)
    if isinstance(scalar, ps.Sqrt):
        return _raise(parts[0], 0.5)
    if isinstance(scalar, ps.Pow):
        if parts[1] is not None:
            raise NotRecognised(f"{what} has a free variable in an exponent")
        try:
            exponent = float(get_underlying_scalar_constant_value(inputs[1]))
        except NotScalarConstantError:
            raise NotRecognised(f"{what} has a power whose exponent is not one constant") from None
        return _raise(parts[0], exponent)
    if isinstance(scalar, ps.Abs | ps.Sign) and parts[0].variable in positive:
        # For a positive variable |c v^p| = |c| v^p and sign(c v^p) = sign(c) v^0: PyMC
        # writes Normal(tau=tau) as |tau|^-0.5 * sign(tau).
        inner = parts[0]
        if isinstance(scalar, ps.Abs):
            return replace(inner, coef=pt.abs(inner.coef))
        return replace(inner, coef=pt.sign(inner.coef), power=0.0)
    raise NotRecognised(
        f"{what} applies {type(scalar).__name__} to a free variable, which no conjugate rule reads"
    )


def _raise(part: Power, exponent: float) -> Power:
    return replace(
        part,
        coef=pt.power(part.coef, exponent),
        power=part.power * exponent,
    )


def _product(parts: Sequence, inputs: Sequence, signs: Sequence[float], what: str) -> Power:
    """``prod inputs_i ** signs_i`` where some inputs are powers of one variable."""
    result = None
    constant = None
    for part, var, sign in zip(parts, inputs, signs, strict=True):
        if part is None:
            factor = pt.power(var, sign) if sign != 1.0 else var
            constant = factor if constant is None else constant * factor
            continue
        part = _raise(part, sign) if sign != 1.0 else part
        if result is None:
            result = part
            continue
        if part.variable != result.variable:
            raise NotRecognised(f"{what} multiplies {result.variable} and {part.variable}")
        # Same variable twice: the elements read must be the same ones, elementwise.
        left = result.labels + pt.zeros_like(part.labels)
        right = part.labels + pt.zeros_like(result.labels)
        result = Power(
            result.variable,
            result.power + part.power,
            result.coef * part.coef,
            left,
            (*result.checks, *part.checks, pt.all(pt.eq(left, right))),
            result.scaled or part.scaled,
            (*result.via, *part.via),
        )
    if constant is not None:
        zeros = pt.zeros_like(constant, dtype="int64")
        result = replace(
            result, coef=result.coef * constant, labels=result.labels + zeros, scaled=True
        )
    return result


def _describe(var) -> str:
    op = var.owner.op
    label = type(getattr(op, "scalar_op", op)).__name__
    return f"{label} ({var.name})" if var.name else label


def data_givens(replacements: Mapping) -> dict:
    """``givens`` that swap new values into ``pm.Data`` containers (shared variables).

    The model is never rebuilt: a compiled function reads the new values in place of
    the containers'. Values that do not convert to a container's dtype without loss are
    refused, naming it.
    """
    givens = {}
    for shared, value in replacements.items():
        value = np.asarray(value)
        target = shared.type.dtype
        cast = value.astype(target)
        if not np.array_equal(cast, value):
            raise ValueError(
                f"data: {shared.name!r} holds {shared.type.dtype}; the values given do "
                f"not convert to it without loss"
            )
        givens[shared] = pt.as_tensor_variable(cast)
    return givens


def evaluate(expressions: Sequence, replacements: Mapping) -> list[np.ndarray]:
    """Evaluate constant expressions in one compiled function, data swapped in.

    ``replacements`` maps shared variables (``pm.Data`` containers) to new values.
    """
    return compile_values(expressions, replacements)()


def compile_values(expressions: Sequence, replacements: Mapping, inputs: Sequence = ()):
    """Compile ``expressions`` once, as a function of the values of ``inputs``.

    Parameters
    ----------
    expressions : sequence of TensorVariable
        Constant given ``inputs``.
    replacements : mapping
        Shared variables (``pm.Data`` containers) to new values.
    inputs : sequence of TensorVariable
        Random variables held fixed (the outer variables of
        :mod:`zoo.specification.conditional`): the compiled function takes one value
        for each, in order, and the graph is cut there (it is never rebuilt).

    Returns
    -------
    callable
        ``function(*values) -> list of ndarray``. Raises ValueError naming the data
        when they no longer fit the model (an index out of range).
    """
    if not expressions:
        return lambda *values: []
    givens = data_givens(replacements)
    placeholders = [var.type() for var in inputs]
    givens.update(zip(inputs, placeholders, strict=True))
    outputs = [pt.as_tensor_variable(e) for e in expressions]
    function = pytensor.function(
        placeholders, outputs, givens=givens, mode=MODE, on_unused_input="ignore"
    )

    def values(*held):
        try:
            return [np.asarray(v) for v in function(*held)]
        except (IndexError, ValueError) as error:
            raise data_error(error, replacements) from None

    return values


def data_error(error: Exception, replacements: Mapping) -> ValueError:
    """The error of a compiled function that failed on new data, naming the containers.

    An index out of range or shapes that no longer fit come from the data, not the model.
    """
    names = ", ".join(sorted(str(s.name) for s in replacements)) or "the model's own data"
    return ValueError(f"data: the model's parameters cannot be computed from {names}: {error}")


def read_data(model, parts, data):
    """Observed values by observed name, and new values of the pm.Data containers.

    Raises
    ------
    ValueError
        For a name the model does not have, or observed values that are not finite.
    """
    data = {} if data is None else dict(data)
    known = set(parts.observed) | set(parts.data)
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(
            f"data: {', '.join(map(repr, unknown))} is neither an observed variable nor a "
            f"pm.Data container of the model ({', '.join(sorted(known))})"
        )
    shared = {var.name: var for var in model.data_vars}
    replacements = {shared[name]: data[name] for name in parts.data if name in data}
    values = {}
    for rv in model.observed_RVs:
        if rv.name in data:
            value = data[rv.name]
        else:
            # a constant, or a graph of pm.Data containers (whose new values apply)
            (value,) = evaluate([model.rvs_to_values[rv]], replacements)
        value = np.asarray(value)
        if not np.all(np.isfinite(value)):
            raise ValueError(f"data: {rv.name!r} has values that are not finite")
        values[rv.name] = value
    return values, replacements


# ---------------------------------------------------------------------------------------
# The model as conjugacy sees it: priors and likelihood terms.


#: Prior families with a conjugate rule: op -> (family the posterior stays in, the
#: op's parameter names). An Exponential prior is Gamma(1, rate = 1 / scale).
PRIOR_OPS = {
    rvs.BetaRV: ("Beta", ("alpha", "beta")),
    rvs.GammaRV: ("Gamma", ("alpha", "scale")),
    rvs.ExponentialRV: ("Gamma", ("scale",)),
    rvs.InvGammaRV: ("InverseGamma", ("alpha", "beta")),
    rvs.DirichletRV: ("Dirichlet", ("a",)),
}

#: Likelihood families with a conjugate rule: op -> (family, the op's parameter names).
LIKELIHOOD_OPS = {
    rvs.BernoulliRV: ("Bernoulli", ("p",)),
    rvs.BinomialRV: ("Binomial", ("n", "p")),
    rvs.PoissonRV: ("Poisson", ("mu",)),
    rvs.ExponentialRV: ("Exponential", ("scale",)),
    rvs.GammaRV: ("Gamma", ("alpha", "scale")),
    rvs.NormalRV: ("Normal", ("mu", "sigma")),
    rvs.CategoricalRV: ("Categorical", ("p",)),
    rvs.MultinomialRV: ("Multinomial", ("n", "p")),
}

#: Families of positive support: |v| = v and sign(v) = 1 there.
_POSITIVE = {"Beta", "Gamma", "InverseGamma", "Dirichlet"}


@dataclass(frozen=True)
class Prior:
    """A free variable's prior, its parameters in the posterior family's terms.

    ``params``: Beta ``alpha, beta``; Gamma ``shape, rate``; InverseGamma ``shape,
    scale``; Dirichlet ``alpha``. (Normal, MvNormal and Flat priors are read by
    :mod:`zoo.specification.linear_gaussian`.)
    """

    name: str
    family: str
    params: dict
    core_ndim: int


@dataclass(frozen=True)
class Likelihood:
    """An observed variable: constant parameters and those that read free variables.

    ``where`` (boolean, the parameter's shape) marks the elements this piece covers
    when a parameter switches between free variables; None for all of them.
    """

    name: str
    family: str
    value: object
    ndim_supp: int
    core_ndims: dict
    constants: dict
    terms: dict
    where: object = None


def _op_name(op) -> str:
    return type(op).__name__.removesuffix("RV")


def read_priors(model, free: Mapping, shapes: Mapping, given=frozenset()) -> tuple[dict, set]:
    """Read every free variable's prior, or raise :class:`NotRecognised` naming it.

    A prior parameter that depends on ``given`` variables only (held fixed) is a
    constant here, evaluated for each of their values.
    """
    positive = set()
    for rv, name in free.items():
        entry = PRIOR_OPS.get(type(rv.owner.op))
        if entry is not None and entry[0] in _POSITIVE:
            positive.add(name)
    priors = {}
    for rv, name in free.items():
        op = rv.owner.op
        entry = PRIOR_OPS.get(type(op))
        if entry is None:
            raise NotRecognised(f"{name}: no conjugate rule has a {_op_name(op)} prior")
        transform = model.rvs_to_transforms.get(rv)
        default = _default_transform(op, rv)
        if transform is not None and type(transform) is not type(default):
            # A transform other than the default can change the support (ordered, an
            # interval inside the support): the density is then not the family's.
            raise NotRecognised(
                f"{name}: the transform {type(transform).__name__} is not {_op_name(op)}'s "
                "default, which conjugacy assumes"
            )
        family, slots = entry
        raw = dict(zip(slots, op.dist_params(rv.owner), strict=True))
        for slot, expression in raw.items():
            what = f"{name}: the prior's {slot}"
            parents = free_parents(expression, free, what=what, given=given)
            if not parents:
                continue
            raise NotRecognised(
                f"{name}: the prior's {slot} depends on the free variable "
                f"{' and '.join(sorted(parents))} (a hyperprior); conjugate rules need "
                "constant hyperparameters"
            )
        priors[name] = Prior(name, family, _prior_params(op, raw), op.ndims_params[0])
    return priors, positive


def _prior_params(op, raw: dict) -> dict:
    if isinstance(op, rvs.ExponentialRV):
        return {"shape": pt.ones_like(raw["scale"]), "rate": pt.reciprocal(raw["scale"])}
    if isinstance(op, rvs.GammaRV):
        return {"shape": raw["alpha"], "rate": pt.reciprocal(raw["scale"])}
    if isinstance(op, rvs.InvGammaRV):
        return {"shape": raw["alpha"], "scale": raw["beta"]}
    if isinstance(op, rvs.DirichletRV):
        return {"alpha": raw["a"]}
    return dict(raw)


def read_likelihoods(
    model,
    free: Mapping,
    shapes: Mapping,
    positive: set,
    given=frozenset(),
    pseudo=(),
    observed: Sequence | None = None,
) -> list[Likelihood]:
    """Read every observed variable (of ``observed``, default all) that reads ``free``.

    ``pseudo`` holds variables held fixed whose own distribution reads free variables
    (latent labels ``z ~ Categorical(w)`` given ``z``): their value is data for ``w``,
    read like an observation. A parameter ``switch(c, e, l)`` whose condition is
    constant (given the fixed variables) and whose branches read free variables splits
    the observation into one :class:`Likelihood` per branch, each with its ``where``.
    """
    found = []
    readers = [
        (rv, model.rvs_to_values[rv])
        for rv in (model.observed_RVs if observed is None else observed)
    ]
    readers += [(rv, rv) for rv in pseudo]
    for rv, value in readers:
        name = rv.name
        op = rv.owner.op
        entry = LIKELIHOOD_OPS.get(type(op))
        if entry is None:
            if any(free_parents(i, free, what=name, given=given) for i in rv.owner.inputs):
                raise NotRecognised(f"{name}: no conjugate rule has a {_op_name(op)} likelihood")
            continue
        family, slots = entry
        params = dict(zip(slots, op.dist_params(rv.owner), strict=True))
        constants, terms, switched = {}, {}, {}
        for slot, expression in params.items():
            what = f"{name}: its {slot}"
            branches = _switch_branches(expression, free, given, shapes, positive, what)
            if branches is not None:
                switched[slot] = branches
                continue
            power = read_power(expression, free, shapes, positive, what=what, given=given)
            if power is None:
                constants[slot] = expression
            else:
                terms[slot] = power
        if len(switched) > 1:
            raise NotRecognised(
                f"{name}: its {' and '.join(sorted(switched))} are each a switch between "
                "free variables; one switched parameter per observation is read"
            )
        pieces = [(None, terms)]
        if switched:
            ((slot, branches),) = switched.items()
            pieces = [(where, {**terms, slot: power}) for where, power in branches]
        for where, piece in pieces:
            if piece:
                found.append(
                    Likelihood(
                        name,
                        family,
                        value,
                        op.ndim_supp,
                        dict(zip(slots, op.ndims_params, strict=True)),
                        constants,
                        piece,
                        where,
                    )
                )
    return found


def _switch_branches(expression, free, given, shapes, positive, what):
    """``[(where, Power), (where, Power)]`` for ``switch(c, e, l)``, else None.

    ``c`` must be constant (it may read variables held fixed: ``k > years`` given the
    change point ``k``); each branch is read as a :class:`Power` of one free variable,
    on the elements where it is chosen. Deterministic wrappers are looked through.
    """
    var = expression
    while var.owner is not None and isinstance(var.owner.op, ViewOp):
        var = var.owner.inputs[0]
    node = var.owner
    if not (
        node is not None
        and isinstance(node.op, Elemwise)
        and isinstance(node.op.scalar_op, ps.Switch)
    ):
        return None
    condition, first, second = node.inputs
    if not free_parents(expression, free, what=what, given=given):
        return None  # constant: read as such
    parents = free_parents(condition, free, what=what, given=given)
    if parents:
        raise NotRecognised(
            f"{what} switches on a condition that depends on {' and '.join(sorted(parents))}"
        )
    chosen = pt.switch(condition, pt.ones_like(var), pt.zeros_like(var)) > 0.5
    branches = []
    for where, branch in ((chosen, first), (pt.invert(chosen), second)):
        power = read_power(branch, free, shapes, positive, what=what, given=given)
        if power is None:
            raise NotRecognised(
                f"{what} switches between a free variable and a constant; each branch "
                "must read a free variable"
            )
        branches.append((where, power))
    return branches
