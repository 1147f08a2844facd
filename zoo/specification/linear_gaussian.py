"""The exact posterior of a linear-Gaussian PyMC model, in information form.

A model is linear-Gaussian when its free variables ``x`` (flattened and concatenated)
are Normal, MvNormal or Flat, and every observed variable that reads them is a Normal
or an MvNormal whose mean is affine in ``x`` and whose sd (covariance) does not depend
on ``x``. Each Gaussian node (a free Normal / MvNormal, or an observation) with mean
``A x + b`` and covariance ``S`` contributes the squared residual ``r' S^-1 r``, with
``r = E x - (A x + b)`` for a free variable (``E`` picks its elements out of ``x``) and
``r = y - (A x + b)`` for an observation; a Flat prior contributes nothing (PyMC's
density 1). Whitening each residual by the Cholesky factor of ``S`` stacks them into
one least-squares system ``|W x + z|^2``, so that

    x | y ~ N(m, Q^-1),   Q = W'W,   m = -Q^-1 W'z,

computed by the QR factorisation of ``W``, whose ``R^T`` is the Cholesky factor of
``Q`` without forming ``Q`` (Bishop 2006, section 2.3.3; BDA3 section 14.2; Golub and
Van Loan 2013, section 5.3). A ``Q`` that is not positive definite (flat coefficients
the observations do not determine, e.g. fewer observations than flat coefficients) is
an improper posterior, refused naming the variables. The log marginal likelihood is, in
centred form (no cancellation of large quadratic forms),

    log p(y) = -|W m + z|^2 / 2 - sum log|L_S| - N/2 log 2 pi + d/2 log 2 pi - log|L_Q|

over the ``N`` rows and ``d`` elements of ``x``. With flat priors it is the integral
of PyMC's own joint density (the Flat's density is the constant 1), so it is not a
normalised evidence but is still right, as a function of anything held fixed, for a
caller integrating over a noise scale (:meth:`LinearGaussian.solve`).

**Normal-inverse-gamma.** When the sd of Gaussian nodes is ``c sqrt(v)`` with ``v`` an
InverseGamma variance, ``c / sqrt(v)`` with ``v`` a Gamma precision, or a power of a
HalfFlat ``v`` (``c v`` for an sd, ``c sqrt(v)`` for a variance, ``c / sqrt(v)`` for
a precision), and every Gaussian prior of the coefficients it reaches scales with the
same ``v`` (or is flat), the variance ``s2`` those nodes share integrates out in
closed form (BDA3 section 14.2 and 14.8; Murphy 2007, section 7.6): with ``N_g`` rows
and ``d_g`` coefficients of group ``g`` (one per element of ``v``), ``s2`` has the
posterior ``InvGamma(a + (N_g - d_g) / 2, b + R_g / 2)`` with ``R_g`` the group's
minimum of ``|W x + z|^2``, and each coefficient the Student t with ``2 a_n`` degrees
of freedom, location ``m`` and scale ``sqrt(b_n / a_n (Q^-1)_jj)``. A HalfFlat ``v``
is the improper ``InvGamma(-1 / (2p), 0)`` on ``s2 = v^(2p)``. One scalar
normal-inverse-gamma (a mean and its variance) is the special case ``d = 1``.

Structure is read from the graph: each Gaussian node's mean is walked from the node
down to ``x`` through operations that are linear (see :func:`_offending`); anything
else is refused in the model's terms (``"y's mean is exp(beta): not linear in
beta"``). The numbers ``A`` and ``b`` are then computed, not derived: the means at
``x = 0`` and at every basis vector, in one compiled function of a batch of points
(``vectorize_graph``), with ``pm.Data`` containers swapped in through ``givens``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pytensor
import pytensor.scalar.basic as ps
import pytensor.tensor as pt
from pymc.distributions.continuous import FlatRV, HalfFlatRV
from pymc.distributions.transforms import _default_transform
from pytensor.compile.ops import ViewOp
from pytensor.graph.basic import Constant
from pytensor.graph.replace import graph_replace, vectorize_graph
from pytensor.graph.traversal import ancestors
from pytensor.tensor.basic import Alloc, Join
from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.math import Dot
from pytensor.tensor.random import basic as rvs
from pytensor.tensor.shape import Reshape, Shape, Shape_i, SpecifyShape
from pytensor.tensor.sharedvar import TensorSharedVariable
from pytensor.tensor.subtensor import (
    AdvancedIncSubtensor,
    AdvancedSubtensor,
    IncSubtensor,
    Subtensor,
)
from scipy import linalg, special, stats

from zoo.core.reference import JointMoments, Marginal, NoReference, Reference
from zoo.specification.conjugate_graph import (
    MODE,
    NotRecognised,
    data_error,
    data_givens,
    free_parents,
    read_data,
    read_power,
)
from zoo.specification.conjugate_rules import finite_marginal
from zoo.specification.graph import model_parts

__all__ = [
    "GAUSSIAN_OPS",
    "SCALE_OPS",
    "GaussianPosterior",
    "LinearGaussian",
    "linear_gaussian_reference",
]

#: Free variables that are Gaussian nodes (or flat): op -> (family, parameter names).
GAUSSIAN_OPS = {
    rvs.NormalRV: ("Normal", ("mu", "sigma")),
    rvs.MvNormalRV: ("MvNormal", ("mu", "cov")),
    FlatRV: ("Flat", ()),
}

#: Free variables that may scale the Gaussian nodes' sd: op -> (family, the exponents
#: ``2p`` of ``s2 = v^(2p)`` allowed, where the nodes' sd is ``c v^p``).
SCALE_OPS = {
    rvs.InvGammaRV: ("InverseGamma", (1.0,)),
    rvs.GammaRV: ("Gamma", (-1.0,)),
    HalfFlatRV: ("HalfFlat", (1.0, -1.0, 2.0)),
}

#: How a variance, precision or sd relates to ``s2`` (for messages).
_KIND = {1.0: "variance", -1.0: "precision", 2.0: "sd"}

#: Operations linear in their first input, the others (indices, shapes) constant.
_LINEAR_IN_FIRST = (
    ViewOp,
    DimShuffle,
    Reshape,
    SpecifyShape,
    Subtensor,
    AdvancedSubtensor,
    Alloc,
)
#: Operations linear in their first two inputs (``set_subtensor`` and its kin).
_LINEAR_IN_TWO = (IncSubtensor, AdvancedIncSubtensor)

_LOG_2PI = np.log(2.0 * np.pi)


# ---------------------------------------------------------------------------------------
# Reading the graph.


@dataclass(frozen=True)
class _Node:
    """A Gaussian node: a free Normal / MvNormal, or an observation.

    ``mean`` and ``spread`` (sd or covariance without the scale variable) are
    expressions; ``labels`` (the element of ``scale`` each entry uses) is None for a
    node of known scale.
    """

    name: str
    free: bool
    multivariate: bool
    shape: tuple
    mean: object
    spread: object
    scale: str | None = None
    power: float = 0.0
    labels: object = None


def _op_name(op) -> str:
    return type(op).__name__.removesuffix("RV")


class _Reader:
    """Reads the Gaussian nodes of ``model``, or raises NotRecognised in its terms."""

    def __init__(self, model, shapes, fixed, variables):
        # shapes: of every free variable and of every observed one (its data, maybe new)
        self.model = model
        self.free = {rv: rv.name for rv in model.free_RVs}
        self.fixed = set(fixed)
        self.variables = {
            name for name in self.free.values() if name not in self.fixed and name in variables
        }
        self.gaussian = {
            rv: rv.name
            for rv in model.free_RVs
            if rv.name in self.variables and type(rv.owner.op) in GAUSSIAN_OPS
        }
        self.shapes = shapes
        self._depends: dict = {}

    def parents(self, expression, what):
        """Free variables ``expression`` reads, those held fixed left out."""
        return free_parents(expression, self.free, what=what) - self.fixed

    def nodes(self) -> tuple[list[_Node], dict]:
        nodes = []
        for rv, name in self.gaussian.items():
            op = rv.owner.op
            transform = self.model.rvs_to_transforms.get(rv)
            default = _default_transform(op, rv)
            if transform is not None and type(transform) is not type(default):
                raise NotRecognised(
                    f"{name}: the transform {type(transform).__name__} changes the support "
                    f"of its {_op_name(op)} prior, which the Gaussian posterior assumes"
                )
            family, slots = GAUSSIAN_OPS[type(op)]
            if family == "Flat":
                continue
            params = dict(zip(slots, op.dist_params(rv.owner), strict=True))
            nodes.append(
                self._node(name, True, family, self.shapes[name], params, f"{name}'s prior")
            )
        for rv in self.model.observed_RVs:
            op = rv.owner.op
            name = rv.name
            reads, held = set(), set()
            for expression in op.dist_params(rv.owner):
                reads |= self.parents(expression, name)
                held |= free_parents(expression, self.free, what=name) & self.fixed
            entry = GAUSSIAN_OPS.get(type(op))
            if not reads & self.variables and not held:
                continue  # a constant term, or one of another part of the model
            if entry is None or entry[0] == "Flat":
                # one that reads only fixed variables would be missing from log p(y | fixed)
                raise NotRecognised(
                    f"{name}: a {_op_name(op)} observation reads "
                    f"{', '.join(sorted(reads | held))}; only Normal or MvNormal observations "
                    "keep the posterior Gaussian"
                )
            family, slots = entry
            params = dict(zip(slots, op.dist_params(rv.owner), strict=True))
            nodes.append(self._node(name, False, family, self.shapes[name], params, name))
        scales = {}
        for rv, name in self.free.items():
            if name not in self.variables or rv in self.gaussian:
                continue
            users = [node for node in nodes if node.scale == name]
            if not users:
                reader = [node.name for node in nodes if name in self._reads_of(node)]
                raise NotRecognised(
                    f"{name}: a {_op_name(rv.owner.op)} prior is neither Gaussian nor the "
                    "variance of Gaussian variables"
                    + (f" ({', '.join(reader)} reads it)" if reader else "")
                    + "; no closed form covers it"
                )
            scales[name] = self._scale(rv, users)
        return nodes, scales

    def _reads_of(self, node):
        return self.parents(node.mean, node.name) | (
            self.parents(node.spread, node.name) if node.spread is not None else set()
        )

    def _node(self, name, free, family, shape, params, what) -> _Node:
        multivariate = family == "MvNormal"
        mean = params["mu"]
        spread = params["cov" if multivariate else "sigma"]
        word = "covariance" if multivariate else "sd"
        gaussian_names = set(self.gaussian.values())
        self.parents(mean, f"{what}'s mean")  # refuses a random variable that is not free
        others = self._values_read(mean) - gaussian_names
        if others:
            families = {n: _op_name(rv.owner.op) for rv, n in self.free.items() if n in others}
            named = ", ".join(f"{n} (a {families[n]} prior)" for n in sorted(others))
            raise NotRecognised(
                f"{what}'s mean reads {named}, which is not Gaussian: a linear-Gaussian "
                "mean reads Normal, MvNormal or Flat variables only (integrate it "
                "numerically, or fix it)"
            )
        offending = self._offending(mean)
        if offending is not None:
            culprits = sorted(self.parents(offending, what) & gaussian_names)
            inside = [
                v.name
                for v in ancestors([mean], blockers=list(self.free))
                if v is not offending
                and v.name
                and v.owner is not None
                and isinstance(v.owner.op, ViewOp)
                and offending in set(ancestors([v], blockers=list(self.free)))
            ]
            where = f" (inside the Deterministic {', '.join(inside)})" if inside else ""
            raise NotRecognised(
                f"{what}'s mean is {render(offending, self.free)}{where}: not linear in "
                f"{', '.join(culprits)}"
            )
        spread_reads = self.parents(spread, f"{what}'s {word}")
        gaussian_in_spread = spread_reads & gaussian_names
        if gaussian_in_spread:
            raise NotRecognised(
                f"{what}'s {word} reads {', '.join(sorted(gaussian_in_spread))}: the "
                f"{word} of a Gaussian must not depend on the Gaussian variables"
            )
        if not spread_reads:
            return _Node(name, free, multivariate, shape, mean, spread)
        if len(spread_reads) > 1:
            raise NotRecognised(
                f"{what}'s {word} reads {' and '.join(sorted(spread_reads))} together; a "
                "closed form needs one variance"
            )
        (scale,) = spread_reads
        rv = next(r for r, n in self.free.items() if n == scale)
        entry = SCALE_OPS.get(type(rv.owner.op))
        if entry is None:
            raise NotRecognised(
                f"{what}'s {word} reads {scale}, which has a {_op_name(rv.owner.op)} prior: "
                "only an InverseGamma variance, a Gamma precision or a HalfFlat scale "
                f"keeps the posterior closed form (integrate {scale} numerically, or fix it)"
            )
        power = read_power(
            spread,
            {r: n for r, n in self.free.items() if n not in self.fixed},
            self.shapes,
            {scale},
            what=f"{what}'s {word}",
        )
        # s2 = v^(2p) where the sd is c v^p (the covariance c v^(2p))
        exponent = power.power if multivariate else 2.0 * power.power
        return _Node(
            name, free, multivariate, shape, mean, power.coef, scale, exponent, power.labels
        )

    def _scale(self, rv, users) -> dict:
        name = rv.name
        family, allowed = SCALE_OPS[type(rv.owner.op)]
        exponents = {node.power for node in users}
        bad = [e for e in exponents if not any(np.isclose(e, a) for a in allowed)]
        if bad or len(exponents) > 1:
            forms = {
                "InverseGamma": f"c * sqrt({name})",
                "Gamma": f"c / sqrt({name})",
                "HalfFlat": f"c * {name}, c * sqrt({name}) or c / sqrt({name})",
            }[family]
            raise NotRecognised(
                f"{users[0].name}'s sd reads {name} ({family}) as {name} to the power "
                f"{sorted(exponents)[0] / 2:g}; the normal-inverse-gamma closed form needs "
                f"the sd of every Gaussian reading it to be {forms}"
            )
        exponent = float(next(a for a in allowed if np.isclose(a, users[0].power)))
        params = dict(
            zip(
                {"InverseGamma": ("alpha", "beta"), "Gamma": ("alpha", "scale")}.get(family, ()),
                rv.owner.op.dist_params(rv.owner),
                strict=True,
            )
        )
        for key, expression in params.items():
            reads = self.parents(expression, name)
            if reads:
                raise NotRecognised(
                    f"{name}: the prior's {key} depends on {', '.join(sorted(reads))} (a "
                    "hyperprior); the closed form needs constant hyperparameters"
                )
        return {"family": family, "exponent": exponent, "params": params}

    def _values_read(self, var) -> set[str]:
        """Free variables (not fixed) whose values, not just shapes, ``var`` reads.

        PyMC broadcasts an MvNormal's mean against its covariance with ``fill(cov[...,
        -1], mu)``: the covariance gives a shape only, and ``s2 * V`` there is not a read
        of ``s2``.
        """
        found, seen, stack = set(), set(), [var]
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            if current in self.free:
                if self.free[current] not in self.fixed:
                    found.add(self.free[current])
                continue
            node = current.owner
            if node is None or isinstance(node.op, Shape | Shape_i):
                continue
            inputs = node.inputs
            if isinstance(node.op, Elemwise) and isinstance(node.op.scalar_op, ps.Second):
                inputs = inputs[1:]
            stack.extend(inputs)
        return found

    def _depends_on_x(self, var) -> bool:
        if var not in self._depends:
            self._depends[var] = any(
                a in self.gaussian for a in ancestors([var], blockers=list(self.free))
            )
        return self._depends[var]

    def _offending(self, var):
        """The first sub-expression of ``var`` that is not affine in ``x``, or None.

        Linear: the free Gaussian variables themselves; indexing, reshaping, broadcasting
        and Deterministics; ``+``, ``-``, casts; products with one factor constant,
        quotients by a constant; sums; ``switch`` on a constant condition; dot products
        and matrix products with one side constant; ``set_subtensor`` with constant
        indices. Constant means: reads no free Gaussian variable.
        """
        if not self._depends_on_x(var) or var in self.gaussian:
            return None
        node = var.owner
        op = node.op
        inputs = node.inputs
        if isinstance(op, _LINEAR_IN_FIRST):
            linear, rest = inputs[:1], inputs[1:]
        elif isinstance(op, _LINEAR_IN_TWO):
            linear, rest = inputs[:2], inputs[2:]
        elif isinstance(op, Join):
            # the axis is an integer input in some PyTensor versions, a property in others
            rest = [i for i in inputs if i.dtype.startswith(("int", "uint"))]
            linear = [i for i in inputs if i not in rest]
        elif isinstance(op, CAReduce) and isinstance(op.scalar_op, ps.Add):
            linear, rest = inputs, []
        elif isinstance(op, Dot) or (isinstance(op, Blockwise) and isinstance(op.core_op, Dot)):
            depending = [i for i in inputs if self._depends_on_x(i)]
            if len(depending) > 1:
                return var
            linear, rest = depending, []
        elif isinstance(op, Elemwise):
            return self._elemwise(var, op.scalar_op, inputs)
        else:
            return var
        if any(self._depends_on_x(i) for i in rest):
            return var
        return self._first_offending(linear)

    def _first_offending(self, inputs):
        for i in inputs:
            found = self._offending(i)
            if found is not None:
                return found
        return None

    def _elemwise(self, var, scalar, inputs):
        depending = [i for i in inputs if self._depends_on_x(i)]
        if isinstance(scalar, ps.Add | ps.Sub | ps.Neg | ps.Identity):
            linear = depending
        elif isinstance(scalar, ps.Cast):
            linear = depending if var.dtype.startswith("float") else None
        elif isinstance(scalar, ps.Mul):
            linear = depending if len(depending) == 1 else None
        elif isinstance(scalar, ps.TrueDiv):
            linear = depending if depending == [inputs[0]] else None
        elif isinstance(scalar, ps.Switch):
            linear = depending if inputs[0] not in depending else None
        elif isinstance(scalar, ps.Second):
            # fill(shape_of, value): linear in the value
            linear = depending if inputs[0] not in depending else None
        else:
            linear = None
        if linear is None:
            return var
        return self._first_offending(linear)


_INFIX = {ps.Add: "+", ps.Sub: "-", ps.Mul: "*", ps.TrueDiv: "/", ps.Pow: "**"}


def render(var, free: Mapping, depth: int = 6) -> str:
    """A short rendering of ``var`` in the model's names (``exp(beta)``, ``X @ beta``).

    Named variables (free variables, Deterministics, ``pm.Data``) by name, constants by
    value, Elemwise operations by their mathematical names; structural operations
    (broadcasting, reshaping) are transparent and indexing is ``[...]``.
    """
    if var in free:
        return free[var]
    if var.name and (var.owner is None or isinstance(var.owner.op, ViewOp)):
        return var.name
    if isinstance(var, Constant):
        value = np.asarray(var.data)
        return f"{value.item():g}" if value.size == 1 else "a constant array"
    if isinstance(var, TensorSharedVariable) or var.owner is None:
        return var.name or "a data array"
    if depth == 0:
        return "..."
    op = var.owner.op
    args = [render(i, free, depth - 1) for i in var.owner.inputs]
    if isinstance(op, ViewOp | DimShuffle | SpecifyShape | Reshape):
        return args[0]
    if isinstance(op, Subtensor | AdvancedSubtensor):
        return f"{args[0]}[...]"
    if isinstance(op, Dot) or (isinstance(op, Blockwise) and isinstance(op.core_op, Dot)):
        return f"{args[0]} @ {args[1]}"
    if isinstance(op, Elemwise):
        scalar = op.scalar_op
        symbol = _INFIX.get(type(scalar))
        if symbol is not None and len(args) >= 2:
            return f"({f' {symbol} '.join(args)})" if depth < 6 else f" {symbol} ".join(args)
        if isinstance(scalar, ps.Neg):
            return f"-{args[0]}"
        return f"{type(scalar).__name__.lower()}({', '.join(args)})"
    if isinstance(op, CAReduce) and isinstance(op.scalar_op, ps.Add):
        return f"sum({args[0]})"
    core = op.core_op if isinstance(op, Blockwise) else op
    return f"{type(core).__name__.lower()}({', '.join(args[:3])})"


# ---------------------------------------------------------------------------------------
# The posterior.


@dataclass(frozen=True)
class GaussianPosterior:
    """The posterior of the Gaussian variables (and of the variances that scale them).

    Attributes
    ----------
    layout : dict of str to (int, tuple)
        Offset in ``x`` and shape of each Gaussian variable.
    mean : ndarray, shape (d,)
        Posterior mean of ``x`` (the location of its Student t when scaled).
    covariance : ndarray, shape (d, d)
        Posterior covariance of ``x`` given the scales: ``Q^-1``, times ``b_n / a_n``
        of the group for scaled elements (the t's scale matrix, not its covariance).
    df : ndarray, shape (d,)
        Degrees of freedom of each element's Student t (infinite: Gaussian).
    scales : dict of str to dict
        Per scale variable: ``family``, ``exponent`` (``2p`` in ``s2 = v^(2p)``), and
        the posterior ``shape`` and ``scale`` of ``s2 ~ InvGamma`` per element.
    log_evidence : float
        ``log p(y | fixed)``, ``x`` and the scale variables integrated out; the Flat
        priors' densities taken as 1.
    """

    layout: dict
    mean: np.ndarray
    covariance: np.ndarray
    df: np.ndarray
    scales: dict
    log_evidence: float

    def parameters(self) -> dict[str, dict[str, np.ndarray]]:
        """Each variable's marginal parameters, shaped like the variable.

        Gaussian variables: ``loc``, ``scale`` and ``df`` of a Student t (``df``
        infinite: Normal). Scale variables: ``shape`` and ``scale`` of ``s2 ~
        InvGamma``, and ``exponent`` (``2p`` in ``s2 = v^(2p)``). What a caller that
        mixes posteriors over quadrature nodes or configurations stacks.
        """
        sd = np.sqrt(np.diag(self.covariance))
        found = {}
        for name, (offset, shape) in self.layout.items():
            part = slice(offset, offset + int(np.prod(shape, dtype=int)))
            found[name] = {
                "loc": self.mean[part].reshape(shape),
                "scale": sd[part].reshape(shape),
                "df": self.df[part].reshape(shape),
            }
        for name, scale in self.scales.items():
            found[name] = {k: scale[k] for k in ("shape", "scale", "exponent")}
        return found

    def joint(self) -> JointMoments:
        """The joint mean and covariance of the Gaussian variables (NaN: infinite)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = np.where(self.df > 2.0, self.df / (self.df - 2.0), np.nan)
        factor = np.where(np.isinf(self.df), 1.0, factor)
        # the t's scale matrix times df / (df - 2) within each group (equal df there);
        # between groups the covariance is 0
        root = np.sqrt(factor)
        return JointMoments(
            dict(self.layout), self.mean.copy(), self.covariance * np.outer(root, root)
        )

    def marginals(self, dims: Mapping) -> dict[str, Marginal]:
        """Each variable's marginal: Normal, Student t, or the scale's (inverse) gamma."""
        marginals = {}
        for name, found in self.parameters().items():
            if name in self.scales:
                marginals[name] = _scale_marginal(found, dims[name])
            elif np.all(np.isinf(found["df"])):
                marginals[name] = finite_marginal(
                    stats.norm(found["loc"], found["scale"]), dims[name]
                )
            else:
                frozen = stats.t(found["df"], found["loc"], found["scale"])
                marginals[name] = finite_marginal(frozen, dims[name])
        return marginals


def _scale_marginal(scale: dict, dims) -> Marginal:
    """The marginal of ``v`` where ``s2 = v^(2p) ~ InvGamma(a, b)``."""
    a, b = scale["shape"], scale["scale"]
    exponent = scale["exponent"]
    if exponent == 1.0:
        return finite_marginal(stats.invgamma(a, scale=b), dims)
    if exponent == -1.0:
        return finite_marginal(stats.gamma(a, scale=1.0 / b), dims)
    return _root_inverse_gamma(a, b, dims)


def _root_inverse_gamma(a, b, dims) -> Marginal:
    """``sqrt(V)`` with ``V ~ InvGamma(a, b)``: the sd of a normal-inverse-gamma.

    ``E[V^(k/2)] = b^(k/2) Gamma(a - k/2) / Gamma(a)`` for ``a > k/2``.
    """
    variance = stats.invgamma(a, scale=b)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(
            a > 0.5,
            np.exp(0.5 * np.log(b) + special.gammaln(a - 0.5) - special.gammaln(a)),
            np.nan,
        )
        second = np.where(a > 1.0, b / (a - 1.0), np.nan)
        sd = np.sqrt(np.maximum(second - mean**2, 0.0))

    def cdf(x):
        x = np.asarray(x, dtype=float)
        return variance.cdf(np.where(x > 0, x, 0.0) ** 2)

    def ppf(prob):
        return np.sqrt(variance.ppf(prob))

    return Marginal(tuple(dims), np.asarray(mean, float), np.asarray(sd, float), cdf, ppf)


#: Fixed values :meth:`LinearGaussian.solve_batch` solves in one block.
SOLVE_BLOCK = 4096


def _item(names, arrays, index) -> dict:
    """The ``index``-th of a batch of fixed values, by name."""
    return {name: array[index] for name, array in zip(names, arrays, strict=True)}


def _stacked(posteriors) -> tuple[np.ndarray, dict]:
    """Evidence and parameters of one-at-a-time solves, stacked as ``solve_batch``'s."""
    found = [p.parameters() for p in posteriors]
    parameters = {
        name: {k: np.stack([f[name][k] for f in found]) for k in found[0][name]}
        for name in found[0]
    }
    return np.array([p.log_evidence for p in posteriors]), parameters


class LinearGaussian:
    """A linear-Gaussian model read once and compiled once; solved for any fixed values.

    Parameters
    ----------
    model : pymc.Model
        The model, with its observed values.
    data : mapping of str to array-like, optional
        Values replacing those of observed variables and ``pm.Data`` containers, by name
        (the model is never rebuilt nor changed).
    fixed : sequence of str
        Free variables held fixed: they become inputs of :meth:`solve`. A caller that
        integrates them out (quadrature over a noise sd, enumeration of a change point)
        reads and compiles once, then solves per node.
    variables : collection of str, optional
        Only these free variables, and the observed variables that read them: a part of
        the model independent of the rest (default: every free variable not fixed).

    Raises
    ------
    NotRecognised
        When the model, the fixed variables held as constants, is not linear-Gaussian:
        the message names the variable and the reason in the model's terms.
    ValueError
        For ``data`` or ``fixed`` naming what the model does not have.

    Notes
    -----
    The contract for a caller that integrates the fixed variables out (quadrature,
    enumeration): :meth:`solve` gives ``log p(y | fixed)`` with every other free variable
    integrated out, including the Gaussian observations that read only fixed variables
    (a non-Gaussian observation that reads one is refused, since it would be missing);
    it does not include the fixed variables' own prior densities, which the caller
    adds. Weights ``exp(log_evidence + log prior(fixed))`` over the caller's nodes, and
    :meth:`GaussianPosterior.parameters` at each node, are the mixture. Reading and
    compiling happen once here (tens of milliseconds for the classic models); a solve
    is one call of the compiled function (the means at ``x = 0`` and at the ``d`` basis
    vectors), a Cholesky factorisation of the ``d x d`` precision and a few products:
    milliseconds for tens of coefficients (``bench/exact_reference_cost.py``). The
    batch of ``d + 1`` points makes memory ``O(d (d + n))`` for ``n`` observed values.
    """

    def __init__(
        self,
        model,
        data: Mapping | None = None,
        fixed: Sequence[str] = (),
        variables: Collection[str] | None = None,
    ):
        parts = model_parts(model)
        unknown = sorted(set(fixed) - set(parts.free))
        if unknown:
            raise ValueError(
                f"fixed: {', '.join(map(repr, unknown))} is not a free variable of the model "
                f"({', '.join(parts.free)})"
            )
        self.fixed = tuple(fixed)
        self.dims = parts.dims
        self.shapes = parts.shapes
        self.coords = parts.coords
        values, replacements = read_data(model, parts, data)
        if model.potentials:
            names = ", ".join(p.name or "unnamed" for p in model.potentials)
            raise NotRecognised(f"{names}: a Potential adds a term no closed form covers")
        shapes = {**parts.shapes, **{name: np.shape(v) for name, v in values.items()}}
        reader = _Reader(model, shapes, self.fixed, parts.free if variables is None else variables)
        nodes, self.scales = reader.nodes()
        self.nodes = nodes
        layout, offset = {}, 0
        for name in reader.gaussian.values():
            shape = parts.shapes[name]
            layout[name] = (offset, shape)
            offset += int(np.prod(shape, dtype=int))
        self.layout = layout
        self.size = offset
        self.flat = [n for n in reader.gaussian.values() if n not in {m.name for m in nodes}]
        self.values = {node.name: values[node.name] for node in nodes if not node.free}
        self._compile(model, reader, replacements)

    def _compile(self, model, reader, replacements):
        x = pt.dvector("x")
        swap = {}
        for rv, name in reader.gaussian.items():
            offset, shape = self.layout[name]
            size = int(np.prod(shape, dtype=int))
            swap[rv] = x[offset : offset + size].reshape(shape).astype(rv.dtype)
        by_name = {rv.name: rv for rv in model.free_RVs}
        self._inputs = []
        for name in self.fixed:
            rv = by_name[name]
            symbol = rv.type(name)
            swap[rv] = symbol
            self._inputs.append(symbol)
        for name in self.scales:
            # read by the means for their shape only (checked): a constant of that shape,
            # so that the compiled function draws no random variable
            rv = by_name[name]
            swap[rv] = pt.as_tensor_variable(np.ones(self.shapes[name], dtype=rv.dtype))
        means = [pt.as_tensor_variable(node.mean) for node in self.nodes]
        constants = []
        for node in self.nodes:
            constants.append(pt.as_tensor_variable(node.spread))
            if node.scale is not None:
                constants.append(pt.as_tensor_variable(node.labels))
        for scale in self.scales.values():
            constants.extend(pt.as_tensor_variable(p) for p in scale["params"].values())
        replaced = graph_replace([*means, *constants], swap, strict=False)
        points = pt.dmatrix("points")
        batched = vectorize_graph(replaced[: len(means)], {x: points})
        # a mean that does not read x comes back as it was: one point, not a batch
        self._batched = [b is not r for b, r in zip(batched, replaced, strict=False)]
        outputs = [*batched, *replaced[len(means) :]]
        # kept for solve_batch, which vectorises them over a batch of fixed values
        self._graph = (points, outputs, data_givens(replacements))
        self._batch = None
        try:
            self._function = pytensor.function(
                [points, *self._inputs],
                outputs,
                givens=data_givens(replacements),
                mode=MODE,
                on_unused_input="ignore",
            )
        except (IndexError, ValueError) as error:
            raise data_error(error, replacements) from None
        self._replacements = replacements
        self._points = np.vstack([np.zeros(self.size), np.eye(self.size)])

    def solve(self, fixed: Mapping | None = None) -> GaussianPosterior:
        """The posterior given values of the fixed variables.

        Parameters
        ----------
        fixed : mapping of str to array-like
            A value for every variable named in ``fixed`` when this was built.

        Returns
        -------
        GaussianPosterior
            Posterior mean and covariance of ``x``, per-element degrees of freedom, the
            scale variables' inverse gamma parameters, and ``log p(y | fixed)``.

        Raises
        ------
        NotRecognised
            For an improper posterior (naming the variables the data do not determine)
            or a covariance that is not positive definite at these values.
        """
        fixed = {} if fixed is None else dict(fixed)
        missing = [name for name in self.fixed if name not in fixed]
        if missing:
            raise ValueError(f"fixed: no value for {', '.join(missing)}")
        try:
            outputs = self._function(self._points, *(fixed[name] for name in self.fixed))
        except (IndexError, ValueError) as error:
            raise data_error(error, self._replacements) from None
        means = outputs[: len(self.nodes)]
        rest = iter(outputs[len(self.nodes) :])
        rows, targets, groups, log_constant = [], [], [], 0.0
        group_offset, offsets = 0, {}
        for name in self.scales:
            offsets[name] = group_offset
            group_offset += int(np.prod(self.shapes[name], dtype=int))
        for node, batch, batched in zip(self.nodes, means, self._batched, strict=True):
            spread = np.asarray(next(rest), dtype=float)
            labels = np.asarray(next(rest)) if node.scale is not None else None
            batch = np.asarray(batch, dtype=float)
            if not batched:
                batch = batch[np.newaxis]
            w, z, g, c = self._whiten(node, batch, spread, labels)
            rows.append(w)
            targets.append(z)
            groups.append(g if node.scale is None else g + offsets[node.scale])
            log_constant += c
        params = {
            name: [np.asarray(next(rest), dtype=float) for _ in scale["params"]]
            for name, scale in self.scales.items()
        }
        w = np.concatenate(rows) if rows else np.zeros((0, self.size))
        z = np.concatenate(targets) if targets else np.zeros(0)
        row_group = np.concatenate(groups) if groups else np.zeros(0, int)
        row_node = np.concatenate(
            [np.full(len(r), i) for i, r in enumerate(rows)] or [np.zeros(0, int)]
        )
        column_group = self._column_groups(w, row_group, row_node)
        factor, rotated, orthogonal = self._factor(w, z)
        mean = (
            -linalg.solve_triangular(factor, rotated, lower=True, trans="T")
            if self.size
            else np.zeros(0)
        )
        # W m + z is z less its projection on W's columns: computed so, no large terms
        # cancel (W m does, when a hierarchical scale near 0 makes W's prior rows large)
        residual = z - orthogonal @ rotated
        inverse_factor = linalg.solve_triangular(factor, np.eye(self.size), lower=True)
        covariance = inverse_factor.T @ inverse_factor
        log_evidence = log_constant + 0.5 * self.size * _LOG_2PI - np.sum(np.log(np.diag(factor)))
        known = row_group < 0
        log_evidence -= 0.5 * np.sum(residual[known] ** 2)
        df = np.full(self.size, np.inf)
        scales = {}
        for name, scale in self.scales.items():
            size = int(np.prod(self.shapes[name], dtype=int))
            shape_a, scale_b, prior_term = self._scale_prior(name, scale, params[name], size)
            owned = np.arange(size) + offsets[name]
            counts = np.array([np.sum(row_group == g) for g in owned], float)
            coefficients = np.array([np.sum(column_group == g) for g in owned], float)
            squares = np.array([np.sum(residual[row_group == g] ** 2) for g in owned])
            a_n = shape_a + 0.5 * (counts - coefficients)
            b_n = scale_b + 0.5 * squares
            if not (np.all(a_n > 0) and np.all(b_n > 0)):
                raise NotRecognised(
                    f"improper posterior: {name} has a {scale['family']} prior and too few "
                    f"observations ({int(counts.sum())} Gaussian values for "
                    f"{int(coefficients.sum())} coefficients it scales)"
                )
            log_evidence += np.sum(prior_term + special.gammaln(a_n) - a_n * np.log(b_n))
            for g, a, b in zip(owned, a_n, b_n, strict=True):
                columns = column_group == g
                df[columns] = 2.0 * a
                covariance[np.ix_(columns, columns)] *= b / a
            shape = self.shapes[name]
            scales[name] = {
                "family": scale["family"],
                "exponent": scale["exponent"],
                "shape": a_n.reshape(shape),
                "scale": b_n.reshape(shape),
            }
        return GaussianPosterior(
            dict(self.layout), mean, covariance, df, scales, float(log_evidence)
        )

    def solve_batch(self, fixed: Mapping) -> tuple[np.ndarray, dict]:
        """:meth:`solve` at ``B`` joint values of the fixed variables at once.

        The enumeration of latent labels asks for thousands of solves of the same small
        system (``2^16`` for sixteen labels): one compiled call per value and a QR
        factorisation each cost milliseconds in Python. Here the graph is vectorised
        over the batch (``pytensor.graph.replace.vectorize_graph``), the whitened rows
        are stacked ``(B, rows, d)`` and factorised by numpy's batched Householder QR,
        in blocks of :data:`SOLVE_BLOCK` values (memory ``O(block (d + 1) n)``). The
        numbers are those of :meth:`solve`, the same algorithm (rows sorted by norm,
        signs fixed so that ``R``'s diagonal is positive); a test holds them to it.

        Models with a conjugate scale, an MvNormal or flat priors, and values at which
        the system is singular or a spread not positive, are solved one value at a
        time by :meth:`solve` (which also gives the refusal's message).

        Parameters
        ----------
        fixed : mapping of str to array-like
            Per fixed variable, its ``B`` values, shape ``(B, *shape)``.

        Returns
        -------
        log_evidence : ndarray, shape (B,)
        parameters : dict of str to dict of str to ndarray
            :meth:`GaussianPosterior.parameters` of every value, stacked on a first
            axis of length ``B``.
        """
        missing = [name for name in self.fixed if name not in fixed]
        if missing:
            raise ValueError(f"fixed: no value for {', '.join(missing)}")
        arrays = [np.asarray(fixed[name]) for name in self.fixed]
        count = len(arrays[0]) if arrays else 1
        simple = not (self.scales or self.flat or not self.fixed or not self.size) and not any(
            node.multivariate for node in self.nodes
        )
        if not simple:
            return _stacked([self.solve(_item(self.fixed, arrays, b)) for b in range(count)])
        blocks = [
            self._solve_block([a[start : start + SOLVE_BLOCK] for a in arrays])
            for start in range(0, count, SOLVE_BLOCK)
        ]
        evidence = np.concatenate([e for e, _ in blocks])
        parameters = {
            name: {k: np.concatenate([p[name][k] for _, p in blocks]) for k in blocks[0][1][name]}
            for name in blocks[0][1]
        }
        return evidence, parameters

    def _batch_function(self):
        """The compiled graph vectorised over a first axis of the fixed inputs (once)."""
        if self._batch is None:
            points, outputs, givens = self._graph
            inputs = {
                symbol: pt.tensor(dtype=symbol.dtype, shape=(None, *symbol.type.shape))
                for symbol in self._inputs
            }
            vectorised = vectorize_graph(outputs, inputs)
            # an output that reads no fixed variable comes back as it was: no batch axis
            over = [v is not o for v, o in zip(vectorised, outputs, strict=True)]
            function = pytensor.function(
                [points, *inputs.values()],
                vectorised,
                givens=givens,
                mode=MODE,
                on_unused_input="ignore",
            )
            self._batch = (function, over)
        return self._batch

    def _solve_block(self, arrays) -> tuple[np.ndarray, dict]:
        """:meth:`solve_batch` of one block: univariate nodes, known scales, no flat prior."""
        function, over = self._batch_function()
        count = len(arrays[0])
        try:
            outputs = function(self._points, *arrays)
        except (IndexError, ValueError) as error:
            raise data_error(error, self._replacements) from None
        rest = iter(zip(outputs[len(self.nodes) :], over[len(self.nodes) :], strict=True))
        rows, targets = [], []
        log_constant = np.zeros(count)
        bad = np.zeros(count, bool)
        for node, batch, batched, batch_over in zip(
            self.nodes, outputs, self._batched, over, strict=False
        ):
            spread, spread_over = next(rest)
            batch = np.asarray(batch, dtype=float)
            if not batch_over:
                batch = np.broadcast_to(batch, (count, *batch.shape))
            if not batched:
                batch = batch[:, np.newaxis]
            flat = np.broadcast_to(batch, (*batch.shape[:2], *node.shape)).reshape(
                count, batch.shape[1], -1
            )
            b = flat[:, 0]
            n = b.shape[1]
            if batched:
                a = np.swapaxes(flat[:, 1:] - b[:, np.newaxis], 1, 2)
            else:
                a = np.zeros((count, n, self.size))
            if node.free:
                offset, _ = self.layout[node.name]
                row_rows, shift = -a, -b
                row_rows[:, np.arange(n), offset + np.arange(n)] += 1.0
            else:
                y = np.asarray(self.values[node.name], dtype=float).ravel()
                row_rows, shift = -a, y - b
            spread = np.asarray(spread, dtype=float)
            if not spread_over:
                spread = np.broadcast_to(spread, (count, *spread.shape))
            sd = np.broadcast_to(spread, (count, *node.shape)).reshape(count, n)
            with np.errstate(divide="ignore", invalid="ignore"):
                bad |= ~np.all((sd > 0) & np.isfinite(sd), axis=1)
                sd = np.where(bad[:, np.newaxis], 1.0, sd)
                log_constant += -np.sum(np.log(sd), axis=1) - 0.5 * n * _LOG_2PI
            rows.append(row_rows / sd[:, :, np.newaxis])
            targets.append(shift / sd)
        w = np.concatenate(rows, axis=1)
        z = np.concatenate(targets, axis=1)
        # as _factor: rows by decreasing norm, Householder QR, R's diagonal positive
        order = np.argsort(-np.linalg.norm(w, axis=2), axis=1, kind="stable")
        w = np.take_along_axis(w, order[:, :, np.newaxis], axis=1)
        z = np.take_along_axis(z, order, axis=1)
        orthogonal, upper = np.linalg.qr(w, mode="reduced")
        diagonal = np.diagonal(upper, axis1=1, axis2=2)
        signs = np.where(diagonal < 0, -1.0, 1.0)
        upper = upper * signs[:, :, np.newaxis]
        orthogonal = orthogonal * signs[:, np.newaxis, :]
        pivots = np.abs(diagonal)
        bad |= np.any(pivots <= 0.0, axis=1) | ~np.all(np.isfinite(pivots), axis=1)
        if np.any(bad):
            # the one-at-a-time solve says what is wrong (or solves what is merely stiff)
            first = int(np.flatnonzero(bad)[0])
            self.solve(_item(self.fixed, arrays, first))
        rotated = np.einsum("brd,br->bd", orthogonal, z)
        residual = z - np.einsum("brd,bd->br", orthogonal, rotated)
        # R^-1 by triangular solves: mean -R^-1 Q'z, covariance R^-1 R^-T (as solve)
        inverse = np.linalg.solve(upper, np.broadcast_to(np.eye(self.size), upper.shape))
        mean = -np.einsum("bij,bj->bi", inverse, rotated)
        variance = np.einsum("bij,bij->bi", inverse, inverse)
        log_evidence = (
            log_constant
            + 0.5 * self.size * _LOG_2PI
            - np.sum(np.log(pivots), axis=1)
            - 0.5 * np.sum(residual**2, axis=1)
        )
        sd = np.sqrt(variance)
        parameters = {}
        for name, (offset, shape) in self.layout.items():
            part = slice(offset, offset + int(np.prod(shape, dtype=int)))
            parameters[name] = {
                "loc": mean[:, part].reshape(count, *shape),
                "scale": sd[:, part].reshape(count, *shape),
                "df": np.full((count, *shape), np.inf),
            }
        return log_evidence, parameters

    def _scale_prior(self, name, scale, params, size):
        """``(a, b)`` of the prior InvGamma on ``s2`` per element, and its log constant."""
        family = scale["family"]
        if family == "HalfFlat":
            # p(v) = 1 is p(s2) = |dv/ds2| = s2^(1/(2p) - 1) / |2p|: InvGamma(-1/(2p), 0)
            exponent = scale["exponent"]
            a = np.full(size, -1.0 / exponent)
            return a, np.zeros(size), -np.log(abs(exponent))
        shape = self.shapes[name]
        alpha = np.broadcast_to(params[0], shape).ravel()
        second = np.broadcast_to(params[1], shape).ravel()
        # InvGamma(alpha, beta) on a variance; Gamma(alpha, scale) on a precision is
        # InvGamma(alpha, 1 / scale) on the variance
        beta = second if family == "InverseGamma" else 1.0 / second
        if not (np.all(alpha > 0) and np.all(beta > 0) and np.all(np.isfinite(beta))):
            raise NotRecognised(f"{name}: its {family} prior's parameters are not positive")
        return alpha, beta, alpha * np.log(beta) - special.gammaln(alpha)

    def _whiten(self, node, batch, spread, labels):
        """The node's rows of ``W`` and ``z``, their groups, and its log constant."""
        size = self.size
        shape = node.shape
        points = batch.shape[0]
        flat = np.broadcast_to(batch, (points, *shape)).reshape(points, -1)
        b = flat[0]
        # (n, d): the columns of A, the change of the mean along each basis vector
        a = (flat[1:] - b).T if points > 1 else np.zeros((b.size, size))
        if node.free:
            offset, _ = self.layout[node.name]
            target = np.zeros_like(a)
            target[np.arange(b.size), offset + np.arange(b.size)] = 1.0
            rows, shift = target - a, -b
        else:
            y = np.asarray(self.values[node.name], dtype=float).ravel()
            rows, shift = -a, y - b
        what = f"{node.name}'s prior" if node.free else node.name
        if not node.multivariate:
            sd = np.broadcast_to(spread, shape).ravel()
            if not np.all((sd > 0) & np.isfinite(sd)):
                raise NotRecognised(f"{what}'s sd is not positive and finite")
            group = (
                np.full(b.size, -1) if labels is None else np.broadcast_to(labels, shape).ravel()
            )
            constant = -np.sum(np.log(sd)) - 0.5 * b.size * _LOG_2PI
            return rows / sd[:, None], shift / sd, group.astype(int), constant
        k = shape[-1]
        outer = shape[:-1]
        cov = np.broadcast_to(spread, (*outer, k, k)).reshape(-1, k, k)
        try:
            chol = np.linalg.cholesky(cov)
        except np.linalg.LinAlgError:
            raise NotRecognised(f"{what}'s covariance is not positive definite") from None
        blocks = rows.reshape(-1, k, size)
        whitened = np.linalg.solve(chol, blocks).reshape(-1, size)
        target = np.linalg.solve(chol, shift.reshape(-1, k, 1)).reshape(-1)
        constant = -np.sum(np.log(np.diagonal(chol, axis1=1, axis2=2))) - 0.5 * b.size * _LOG_2PI
        if labels is None:
            group = np.full(b.size, -1)
        else:
            labels = np.broadcast_to(labels, (*outer, k, k)).reshape(-1, k * k)
            if not np.all(labels == labels[:, :1]):
                raise NotRecognised(
                    f"{what}'s covariance scales its elements by different elements of "
                    f"{node.scale}"
                )
            group = np.repeat(labels[:, 0], k)
        return whitened, target, group.astype(int), constant

    def _column_groups(self, w, row_group, row_node) -> np.ndarray:
        """The scale group of each element of ``x``; refuses a mixed one, naming it."""
        groups = np.full(self.size, -1)
        touched = w != 0.0
        for j in range(self.size):
            found = np.unique(row_group[touched[:, j]])
            if found.size > 1:
                terms = []
                pairs = zip(row_node[touched[:, j]], row_group[touched[:, j]], strict=True)
                for i, g in sorted(set(pairs)):
                    node = self.nodes[i]
                    what = f"{node.name}'s prior sd" if node.free else f"{node.name}'s sd"
                    terms.append(f"{what} {self._group_words(g)}")
                raise NotRecognised(
                    f"{self._element(j)}: {'; '.join(terms)}. The normal-inverse-gamma "
                    "closed form needs every Gaussian term of a coefficient to scale with "
                    "the same variance (independent priors on coefficients and a variance "
                    "are not conjugate: integrate the variance numerically, or fix it)"
                )
            if found.size == 1:
                groups[j] = found[0]
        return groups

    def _group_words(self, group) -> str:
        """``is known``, or ``scales with sigma2`` (``sigma2[1]`` for an element)."""
        if group < 0:
            return "is known"
        for name in self.scales:
            shape = self.shapes[name]
            size = int(np.prod(shape, dtype=int))
            if group < size:
                if not shape:
                    return f"scales with {name}"
                index = ", ".join(map(str, np.unravel_index(group, shape)))
                return f"scales with {name}[{index}]"
            group -= size
        raise IndexError(group)

    def _element(self, j) -> str:
        for name, (offset, shape) in self.layout.items():
            size = int(np.prod(shape, dtype=int))
            if offset <= j < offset + size:
                if not shape:
                    return name
                index = np.unravel_index(j - offset, shape)
                return f"{name}[{', '.join(map(str, index))}]"
        raise IndexError(j)

    def _factor(self, w, z) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``L`` with ``L L^T = Q = W^T W``, ``L^-1 W^T z`` and ``Q_W``; or NotRecognised.

        From the QR factorisation ``W = Q_W R`` (``L = R^T``, ``L^-1 W^T z = Q_W^T
        z``), not the Cholesky factor of ``W^T W``: forming ``W^T W`` squares the
        condition number, and a hierarchical scale near 0 (a prior precision of
        ``1/tau^2`` beside the data's) loses every digit of the data's share that way.
        The rows are sorted by decreasing norm first, which makes Householder QR
        row-wise backward stable for such stiff systems (Powell and Reid 1969; Cox and
        Higham 1998; Golub and Van Loan, *Matrix Computations*, 4th ed., section 5.3).

        Every Normal or MvNormal prior gives its variables rows of full rank, so only
        flat coefficients can leave a direction undetermined: with some, a pivot below
        the rank tolerance of ``W`` (``max(shape) eps max|R_jj|``, as
        numpy.linalg.matrix_rank) is refused as an improper posterior.
        """
        singular = w.shape[0] < self.size
        if not singular and self.size:
            order = np.argsort(-np.linalg.norm(w, axis=1), kind="stable")
            orthogonal, upper = linalg.qr(w[order], mode="economic")
            signs = np.where(np.diag(upper) < 0, -1.0, 1.0)
            upper = upper * signs[:, None]
            pivots = np.abs(np.diag(upper))
            tolerance = max(w.shape) * np.finfo(float).eps * pivots.max() if self.flat else 0.0
            singular = bool(np.any(pivots <= tolerance)) or not np.all(np.isfinite(pivots))
            if not singular:
                # back to the rows' own order, for the residuals per row
                rows = np.empty_like(orthogonal)
                rows[order] = orthogonal * signs
                return upper.T, rows.T @ z, rows
        elif not singular:
            return np.zeros((0, 0)), np.zeros(0), np.zeros((len(z), 0))
        # the direction the data leave free: the last right singular vector of W
        direction = np.linalg.svd(w)[2][-1] if w.size else np.ones(self.size)
        loose = np.flatnonzero(np.abs(direction) > 1e-8 * np.abs(direction).max())
        names = sorted({self._element(j).split("[")[0] for j in loose})
        flat = [n for n in names if n in self.flat] or names
        raise NotRecognised(
            f"improper posterior: the observations do not determine {', '.join(flat)} "
            f"under {'its' if len(flat) == 1 else 'their'} flat prior (the posterior "
            "precision is singular: fewer informative observations than flat coefficients)"
        )

    def reference(self, fixed: Mapping | None = None) -> Reference:
        """The :class:`Reference` of every Gaussian and scale variable, given ``fixed``."""
        posterior = self.solve(fixed)
        marginals = posterior.marginals(self.dims)
        coords = {d: self.coords[d] for m in marginals.values() for d in m.dims}
        scaled = ", ".join(self.scales) or "known"
        note = (
            "linear-Gaussian posterior read from the graph (variables "
            f"{', '.join(self.layout) or 'none Gaussian'}; scale {scaled}"
            + (f"; flat priors on {', '.join(self.flat)}" if self.flat else "")
            + (f"; given {', '.join(self.fixed)}" if self.fixed else "")
            + ")"
        )
        joint = posterior.joint() if self.size else None
        return Reference(marginals, coords, note=note, joint=joint)


def linear_gaussian_reference(
    model, data: Mapping | None = None, variables: Collection[str] | None = None
) -> Reference | NoReference:
    """The exact posterior of a linear-Gaussian ``model``, or the reason it is not one.

    Parameters
    ----------
    model : pymc.Model
    data : mapping of str to array-like, optional
        Values replacing observed variables and ``pm.Data`` containers, by name.
    variables : collection of str, optional
        Only these free variables and the observations that read them.

    Returns
    -------
    Reference or NoReference
        Normal or Student t marginals of the Gaussian variables (with their joint
        moments in ``Reference.joint``), inverse gamma (or gamma, or root inverse gamma)
        marginals of the variances that scale them; or the reason, naming the variable.
    """
    try:
        return LinearGaussian(model, data, variables=variables).reference()
    except NotRecognised as refusal:
        return NoReference(str(refusal))
