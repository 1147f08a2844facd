"""Exact references of models that are conjugate once a few variables are held fixed.

When the plain conjugate rules refuse, this layer holds some free variables fixed (the
*outer* ones) so that an inner engine (:class:`~zoo.specification.conjugate_engine.InnerEngine`;
here the conjugate rules) integrates the rest in closed form, and integrates the outer
ones numerically:

- **which**: every bounded discrete free variable, every free variable whose prior no
  conjugate rule has (HalfNormal, HalfCauchy, Uniform...), and every variable a
  conjugate variable's prior reads (a hyperparameter: the pumps' ``alpha`` and
  ``beta``); if the rest is still not conjugate, each other continuous scalar in turn.
  At most two continuous scalars, each a scalar.
- **continuous** outer scalars: adaptive trapezoidal quadrature on an unbounded axis
  (:mod:`zoo.specification.quadrature`), the error estimate stated in the note;
- **discrete** ones: every joint configuration (:mod:`zoo.specification.enumeration`),
  up to 2^16;
- the posterior weight of each node (configuration) is ``log p(outer) + log p(y |
  outer)``: the outer prior from PyMC's own log density, the evidence from the engine.

Reported: each outer scalar's marginal (continuous: a tabulated CDF on its axis, exact
moments where they exist, NaN where the tail is too heavy; discrete: its exact
probability mass function), and each inner variable's marginal as the mixture of its
conditionals over the nodes (:func:`zoo.models.mixtures.mixture_marginal`), moments by
the law of total variance over every node, the CDF over the nodes holding all but
1e-13 of the mass (:func:`zoo.models.labelings.heaviest`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pytensor.tensor as pt
from pymc.logprob.basic import logp
from pymc.logprob.transforms import IntervalTransform, LogOddsTransform, LogTransform
from scipy import integrate, special

from zoo.core.reference import Marginal, NoReference, Reference, TabulatedCDF
from zoo.diagnostics.label_invariants import (
    Exchangeable,
    at_labels,
    coassignment_pairs,
    invariant_dims,
)
from zoo.models.labelings import heaviest
from zoo.models.mixtures import mixture_marginal
from zoo.specification.conjugate_engine import ConjugateRules
from zoo.specification.conjugate_graph import (
    PRIOR_OPS,
    NotRecognised,
    compile_values,
    evaluate,
    free_parents,
    read_data,
)
from zoo.specification.enumeration import configurations, support
from zoo.specification.gaussian_engine import JoinedEngines, LinearGaussianEngine
from zoo.specification.graph import model_parts
from zoo.specification.linear_gaussian import GAUSSIAN_OPS, SCALE_OPS
from zoo.specification.quadrature import Axis, adaptive_grid

__all__ = ["MAX_CONTINUOUS", "conditional_reference"]

#: Largest number of continuous outer scalars (a tensor grid in more is too costly).
MAX_CONTINUOUS = 2
#: Largest stated quadrature error (in sds) at which the inner mixtures' CDFs are taken
#: over the half grid's nodes (a quarter of them in 2-D).
_CDF_SUBGRID_ERROR = 1e-4
#: Tail slope margin: moment k of a positive outer variable is reported only when its
#: log density in log x falls faster than -(k + this) far out.
_TAIL_MARGIN = 0.25


def conditional_reference(
    model,
    data: Mapping | None,
    refusal: str,
    *,
    gaussian: bool = False,
    variables: Collection[str] | None = None,
    tolerance: float = 1e-3,
    symmetry: Sequence[Exchangeable] = (),
) -> Reference | NoReference:
    """The exact posterior by quadrature and enumeration over a few outer variables.

    Parameters
    ----------
    model : pymc.Model
    data : mapping of str to array-like, optional
        As :func:`zoo.specification.exact.exact_reference` takes it.
    refusal : str
        Why the plain rules refused (returned when nothing here works).
    gaussian : bool
        The inner engine: the linear-Gaussian posterior
        (:class:`~zoo.specification.gaussian_engine.LinearGaussianEngine`) when true,
        else the pairwise conjugate rules (:class:`ConjugateRules`).
    variables : collection of str, optional
        Only these free variables and the observations that read them (a part of the
        model independent of the rest); default all.
    tolerance : float
        Largest estimated quadrature error of a reported mean or sd, in sds.
    symmetry : sequence of Exchangeable
        Mixtures whose components are exchangeable: their label-invariant quantities
        (:mod:`zoo.diagnostics.label_invariants`) get marginals too, mixtures over the
        enumerated labels.

    Returns
    -------
    Reference or NoReference
    """
    parts = model_parts(model)
    values, replacements = read_data(model, parts, data)
    names = [n for n in parts.free if variables is None or n in variables]
    kind = _GAUSSIAN if gaussian else _CONJUGATE
    ops = {rv.name: type(rv.owner.op) for rv in model.free_RVs}

    def build(outer):
        inner = [n for n in names if n not in outer]
        if not gaussian:
            return ConjugateRules(model, parts, values, replacements, outer=outer, variables=inner)
        # the Gaussian variables (with the variances that scale them, else without) to
        # the linear-Gaussian engine; the others, given the outer values, to the pairwise
        # rules beside it
        last = None
        for linear_ops in ({*GAUSSIAN_OPS, *SCALE_OPS}, set(GAUSSIAN_OPS)):
            linear = [n for n in inner if ops[n] in linear_ops]
            rest = [n for n in inner if n not in linear]
            try:
                engine = LinearGaussianEngine(model, data, outer=outer, variables=linear)
                if not rest:
                    return engine
                pairwise = ConjugateRules(
                    model, parts, values, replacements, outer=outer, variables=rest, direct=False
                )
                return JoinedEngines((engine, pairwise))
            except NotRecognised as reason:
                last = last or reason
        raise last

    try:
        engine, continuous, discrete = _engine(model, parts, names, kind, build)
    except NotRecognised as reason:
        if str(reason) == refusal:
            return NoReference(refusal)
        return NoReference(f"{refusal}; holding variables fixed does not help: {reason}")
    if engine is None:
        return NoReference(refusal)
    try:
        return _reference(
            model, parts, names, replacements, engine, continuous, discrete, tolerance, symmetry
        )
    except NotRecognised as reason:
        return NoReference(str(reason))


# ---------------------------------------------------------------------------------------
# Which variables are held fixed.


@dataclass(frozen=True)
class _Kind:
    """What an inner engine integrates: the prior ops, and whether priors may chain."""

    ops: frozenset  # the priors it integrates
    chains: frozenset  # those whose parameters may read other inner variables


_CONJUGATE = _Kind(frozenset(PRIOR_OPS), chains=frozenset())
_GAUSSIAN = _Kind(
    frozenset((*GAUSSIAN_OPS, *SCALE_OPS, *PRIOR_OPS)), chains=frozenset(GAUSSIAN_OPS)
)


def _engine(model, parts, names, kind, build):
    """The engine, and the continuous and discrete outer variables, or (None, (), ())."""
    free = {rv: rv.name for rv in model.free_RVs if rv.name in names}
    every = {rv: rv.name for rv in model.free_RVs}
    discrete = [name for name in names if name in parts.discrete]
    required = set(discrete)
    for rv, name in free.items():
        if name not in required and type(rv.owner.op) not in kind.ops:
            required.add(name)
    # hyperparameters: read by the prior of a variable that is not held fixed (the
    # pairwise rules need constant hyperparameters; the linear-Gaussian engine reads
    # a Gaussian mean of Gaussians itself)
    hyper = set()
    for rv, name in free.items():
        if name in required or type(rv.owner.op) in kind.chains:
            continue
        for expression in rv.owner.op.dist_params(rv.owner):
            hyper |= free_parents(expression, every, what=name) - required
    if not (required | hyper):
        candidates = []
    else:
        candidates = [required | hyper]
    others = [
        n
        for n in names
        if n not in required | hyper and n not in parts.discrete and parts.shapes[n] == ()
    ]
    base = required | hyper
    for extra in (1, 2):
        candidates += [base | set(c) for c in combinations(others, extra)]
    last = None
    for outer in candidates:
        continuous = [n for n in names if n in outer and n not in parts.discrete]
        if len(continuous) > MAX_CONTINUOUS:
            if last is None:
                last = NotRecognised(
                    f"{' and '.join(continuous)} would have to be integrated numerically; "
                    f"at most {MAX_CONTINUOUS} continuous scalars are"
                )
            continue
        wide = [n for n in continuous if parts.shapes[n] != ()]
        if wide:
            last = NotRecognised(
                f"{wide[0]}: has shape {parts.shapes[wide[0]]}; only scalars are "
                "integrated numerically"
            )
            continue
        try:
            engine = build(sorted(outer))
        except NotRecognised as reason:
            last = reason
            continue
        return engine, continuous, [n for n in names if n in outer and n in discrete]
    if last is not None:
        raise last
    return None, (), ()


# ---------------------------------------------------------------------------------------
# The reference.


@dataclass
class _Evaluations:
    """The engine's answers at every point, kept for the marginals."""

    log_weight: np.ndarray
    points: dict
    marginals: dict
    rules: dict


def _reference(
    model, parts, names, replacements, engine, continuous, discrete, tolerance, symmetry=()
):
    by_name = {rv.name: rv for rv in model.free_RVs}
    outer_rvs = [by_name[n] for n in engine.outer]
    prior_terms = [
        logp(by_name[n], by_name[n]).sum() for n in engine.outer if n not in engine.absorbed
    ]
    log_prior = compile_values(
        [sum(prior_terms) if prior_terms else np.float64(0.0)], replacements, outer_rvs
    )
    free = {rv: rv.name for rv in model.free_RVs}
    configs = {}
    if discrete:
        supports = {n: support(by_name[n], free, replacements, parts.shapes[n]) for n in discrete}
        configs = configurations(supports, parts.shapes)
    n_configs = len(next(iter(configs.values()))) if configs else 1
    axes = tuple(_axis(model, by_name[n], replacements) for n in continuous)
    dtypes = {n: by_name[n].type.dtype for n in engine.outer}

    def at(points: dict) -> _Evaluations:
        """Engine evidence plus outer prior at joint points ``(B, *shape)`` per name."""
        count = len(next(iter(points.values())))
        try:
            conditional = engine.condition(points)
        except ValueError as error:
            # the data were read before: a value of the outer variables the model's own
            # checks refuse (an sd of exactly 0 where it reads them)
            raise NotRecognised(
                f"{' and '.join(engine.outer)}: at values the quadrature holds them at, the "
                f"model cannot be evaluated ({error})"
            ) from None
        if not prior_terms:
            # every outer variable absorbed (latent labels): the engine counts their density
            prior = np.zeros(count)
        else:
            prior = np.array(
                [
                    float(
                        log_prior(*[np.asarray(points[n][b], dtypes[n]) for n in engine.outer])[0]
                    )
                    for b in range(count)
                ]
            )
        return _Evaluations(
            conditional.log_evidence + prior, points, conditional.marginals, conditional.rules
        )

    def joint_points(z):
        """Every (node, configuration) pair: nodes outer, configurations inner."""
        n_nodes = len(z)
        points = {}
        for k, axis in enumerate(axes):
            points[axis.name] = np.repeat(axis.value(z[:, k]), n_configs)
        for name, values in configs.items():
            points[name] = np.tile(values, (n_nodes,) + (1,) * (values.ndim - 1))
        return points

    cdf_weights = None
    if not axes:
        evaluations = at(joint_points(np.zeros((1, 0))))
        weights = _normalised(evaluations.log_weight)
        note = f"{n_configs} configurations of {', '.join(discrete)} enumerated"
        grid = None
    else:

        def evaluate(z):
            evaluations = at(joint_points(z))
            per_node = evaluations.log_weight.reshape(len(z), n_configs)
            log_node = special.logsumexp(per_node, axis=1)
            jacobian = sum(axis.log_jacobian(z[:, k]) for k, axis in enumerate(axes))
            within = np.exp(per_node - log_node[:, None])
            within = np.where(np.isfinite(within), within, 0.0)
            means, variances = _tracked(evaluations, z, axes, within)
            return log_node + jacobian, means, variances, evaluations

        try:
            grid = adaptive_grid(evaluate, axes, tolerance=tolerance)
        except ValueError as error:
            raise NotRecognised(str(error)) from None
        evaluations = grid.payload
        per_node = evaluations.log_weight.reshape(-1, n_configs)
        within = _normalised_rows(per_node)
        weights = (grid.weights.ravel()[grid.kept, None] * within).ravel()
        note = (
            f"trapezoidal quadrature over {' and '.join(continuous)} on "
            f"{'/'.join(a.kind for a in axes)} axes ({grid.kept.size} nodes, estimated "
            f"error {grid.error:.1e} sd)"
        )
        if discrete:
            note += f", {n_configs} configurations of {', '.join(discrete)} enumerated"
        if grid.error <= _CDF_SUBGRID_ERROR:
            # The CDFs from the nodes of the half grid: its moments differ from the full
            # rule's by the stated error only, and a mixture's CDF costs an incomplete
            # gamma or beta function per component, element and point.
            index = np.unravel_index(grid.kept, grid.weights.shape)
            even = np.all([i % 2 == 0 for i in index], axis=0)
            cdf_weights = np.where(even, grid.weights.ravel()[grid.kept], 0.0)[:, None] * within
            cdf_weights = cdf_weights.ravel() / cdf_weights.sum()
    marginals = {}
    for k, axis in enumerate(axes):
        marginals[axis.name] = _continuous_marginal(grid, k, at, joint_points, n_configs)
    for name in discrete:
        marginals[name] = _discrete_marginal(
            evaluations.points[name], weights, parts.dims[name], parts.shapes[name]
        )
    for name, frozen in evaluations.marginals.items():
        marginals[name] = _mixture(frozen, weights, parts.dims[name], cdf_weights)
    rules = "; ".join(
        f"{name}: {', '.join(sorted(r)) or 'prior only'}" for name, r in evaluations.rules.items()
    )
    invariants = {}
    for spec in symmetry:
        if spec.label in discrete:
            invariants |= _invariant_marginals(spec, evaluations, weights, parts, cdf_weights)
    coords = {d: parts.coords[d] for m in marginals.values() for d in m.dims}
    for marginal in invariants.values():
        for dim, size in zip(marginal.dims, marginal.shape, strict=True):
            coords.setdefault(dim, parts.coords.get(dim, np.arange(size)))
    return Reference(
        {name: marginals[name] for name in names} | invariants,
        coords,
        note=f"{note}; given them, {engine.description} ({rules})",
    )


def _axis(model, rv, replacements) -> Axis:
    """The quadrature axis of a continuous outer scalar, from PyMC's default transform.

    No transform: the real line; a log transform: ``(0, inf)``; log-odds: ``(0, 1)``;
    an interval: its ends, which must be constants.
    """
    transform = model.rvs_to_transforms.get(rv)
    if transform is None:
        return Axis(rv.name, "real")
    if isinstance(transform, LogTransform):
        return Axis(rv.name, "log", 0.0)
    if isinstance(transform, LogOddsTransform):
        return Axis(rv.name, "logit", 0.0, 1.0)
    if isinstance(transform, IntervalTransform):
        low, high, _, _ = transform.get_a_and_b(rv.owner.inputs)
        free = {v: v.name for v in model.free_RVs}
        for end in (low, high):
            if free_parents(pt.as_tensor_variable(end), free, what=rv.name):
                raise NotRecognised(
                    f"{rv.name}: its support's ends depend on free variables; only "
                    "constant ends are integrated"
                )
        low, high = (float(v) for v in evaluate([low, high], replacements))
        return Axis.for_support(rv.name, low, high)
    raise NotRecognised(
        f"{rv.name}: its transform {type(transform).__name__} has no quadrature axis here"
    )


def _normalised(log_weight):
    weights = np.exp(log_weight - np.max(log_weight))
    return weights / weights.sum()


def _normalised_rows(log_weight):
    top = np.max(log_weight, axis=1, keepdims=True)
    weights = np.exp(log_weight - top)
    return weights / weights.sum(axis=1, keepdims=True)


def _tracked(evaluations, z, axes, within):
    """Conditional means and variances per node of every quantity the error covers."""
    columns_mean = [z[:, k] for k in range(len(axes))]
    columns_var = [np.zeros(len(z)) for _ in axes]
    n_nodes, n_configs = within.shape
    for k, axis in enumerate(axes):
        if axis.kind != "real":
            columns_mean.append(axis.value(z[:, k]))
            columns_var.append(np.zeros(len(z)))
    for frozen in evaluations.marginals.values():
        with np.errstate(all="ignore"):
            mean = np.asarray(frozen.mean(), float).reshape(n_nodes, n_configs, -1)
            var = np.asarray(frozen.var(), float).reshape(n_nodes, n_configs, -1)
        w = within[:, :, None]
        node_mean = np.sum(w * mean, axis=1)
        node_var = np.sum(w * (var + (mean - node_mean[:, None]) ** 2), axis=1)
        columns_mean.extend(node_mean.T)
        columns_var.extend(node_var.T)
    means = np.stack(columns_mean, axis=1)
    variances = np.stack(columns_var, axis=1)
    # A heavy-tailed outer variable's moments do not exist: not part of the error.
    finite = np.all(np.isfinite(means), axis=0) & np.all(np.isfinite(variances), axis=0)
    return means[:, finite], variances[:, finite]


def _continuous_marginal(grid, k, at, joint_points, n_configs) -> Marginal:
    """An outer scalar: tabulated CDF on its axis, moments where its tail allows."""
    axis, ticks, step = grid.axes[k], grid.ticks[k], grid.steps[k]
    other = tuple(i for i in range(grid.weights.ndim) if i != k)
    mass = grid.weights.sum(axis=other) if other else grid.weights
    density = mass / step  # per unit of u, the axis's stretched coordinate
    cdf_values = integrate.cumulative_trapezoid(density, dx=step, initial=0.0)
    cdf_values /= cdf_values[-1]
    table = TabulatedCDF(
        None, None, ticks[0], ticks[-1], points=len(ticks), table=(cdf_values, density)
    )
    x = axis.value(grid.z(k, ticks))
    mean = float(mass @ x)
    sd = float(np.sqrt(max(mass @ (x - mean) ** 2, 0.0)))
    fourth = float(mass @ (x - mean) ** 4)
    if axis.kind == "log":
        slope = _tail_slope(grid, k, at, joint_points, n_configs)
        if slope > -(1.0 + _TAIL_MARGIN):
            mean = np.nan
        if slope > -(2.0 + _TAIL_MARGIN):
            sd = np.nan
        if slope > -(4.0 + _TAIL_MARGIN):
            fourth = np.nan

    def cdf(values):
        return table(grid.u(k, axis.to_z(values)))

    def ppf(prob):
        index = np.searchsorted(cdf_values, prob)
        index = int(np.clip(index, 1, len(ticks) - 1))
        low, high = ticks[index - 1], ticks[index]
        for _ in range(60):
            middle = 0.5 * (low + high)
            if table(np.asarray(middle)) < prob:
                low = middle
            else:
                high = middle
        return np.float64(axis.value(grid.z(k, 0.5 * (low + high))))

    kurtosis = fourth / sd**4 if np.isfinite(fourth) and np.isfinite(sd) else None
    return Marginal(
        (),
        np.float64(mean),
        np.float64(sd),
        cdf,
        ppf,
        kurtosis=None if kurtosis is None else np.float64(kurtosis),
    )


def _tail_slope(grid, k, at, joint_points, n_configs) -> float:
    """The slope of the log density far beyond the grid along axis k (others at the mode)."""
    mode = np.unravel_index(np.argmax(grid.weights), grid.weights.shape)
    last = grid.z(k, grid.ticks[k][-1])
    probes = []
    for offset in (20.0, 40.0):
        z = np.array([[grid.z(i, grid.ticks[i][mode[i]]) for i in range(len(grid.axes))]])
        z[0, k] = last + offset
        evaluations = at(joint_points(z))
        value = special.logsumexp(evaluations.log_weight) + grid.axes[k].log_jacobian(z[0, k])
        probes.append(value)
    return float((probes[1] - probes[0]) / 20.0)


def _discrete_marginal(values, weights, dims, shape) -> Marginal:
    """Exact probability mass function of each element of a discrete outer variable."""
    flat = values.reshape(len(values), -1)
    support = np.unique(flat)
    pmf = np.stack([weights @ (flat == v) for v in support])  # (values, elements)
    mean = support @ pmf
    sd = np.sqrt(np.maximum((support**2) @ pmf - mean**2, 0.0))
    cumulative = np.cumsum(pmf, axis=0)

    def cdf(x):
        x = np.asarray(x, dtype=float)
        points = x.reshape(x.shape[0], -1)
        below = support[None, :, None] <= points[:, None, :]
        return np.clip(np.sum(below * pmf[None], axis=1), 0.0, 1.0).reshape(x.shape)

    def ppf(prob):
        index = np.argmax(cumulative >= prob - 1e-12, axis=0)
        return support[index].astype(float).reshape(shape)

    return Marginal(tuple(dims), mean.reshape(shape), sd.reshape(shape), cdf, ppf, discrete=True)


def _mixture(frozen, weights, dims, cdf_weights=None) -> Marginal:
    """An inner variable: the mixture of its conditionals, moments from every node.

    The CDF is the mixture over ``cdf_weights`` (default ``weights``) without the
    components that together hold less than 1e-13 of them.
    """
    with np.errstate(all="ignore"):
        means = np.asarray(frozen.mean(), float)
        variances = np.asarray(frozen.var(), float)
    w = weights.reshape(weights.shape + (1,) * (means.ndim - 1))
    mean = np.sum(w * means, axis=0)
    sd = np.sqrt(np.maximum(np.sum(w * (variances + (means - mean) ** 2), axis=0), 0.0))
    mean = np.where(np.all(np.isfinite(means), axis=0), mean, np.nan)
    sd = np.where(np.all(np.isfinite(variances), axis=0), sd, np.nan)
    cdf_weights = weights if cdf_weights is None else cdf_weights
    kept, _ = heaviest(cdf_weights, negligible=1e-13)
    components = frozen.dist(
        *[np.asarray(a)[kept] for a in frozen.args],
        **{key: np.asarray(v)[kept] for key, v in frozen.kwds.items()},
    )
    scale = "logit" if frozen.dist.name == "beta" else "linear"
    return mixture_marginal(
        dims,
        cdf_weights[kept] / cdf_weights[kept].sum(),
        components,
        mean=mean,
        sd=sd,
        scale=scale,
    )


def _invariant_marginals(spec: Exchangeable, evaluations, weights, parts, cdf_weights) -> dict:
    """The label-invariant quantities' marginals: mixtures over the enumerated labels.

    Given the labels (one configuration ``c``), a component parameter's conditional is
    the engine's (``theta | c, y``), so ``theta[z_i]`` given ``c`` is its component
    ``c_i``'s conditional, and its marginal the mixture of those over the
    configurations with their posterior weights: exact, as every inner marginal here.
    ``w[z_i]`` likewise (a Beta conditional, with its two parameters swapped where
    Bernoulli labels pick component 0, whose weight is ``1 - w``). The co-assignment
    indicator ``1[c_i = c_j]`` is a function of the configuration alone: its exact
    probability mass function (``P(z_i = z_j | y)`` its mean).
    """
    labels = np.asarray(evaluations.points[spec.label])
    count = len(labels)
    flat = labels.reshape(count, -1).astype(np.int64)
    dims = invariant_dims(spec, parts.dims)
    out = {}
    for name in spec.parameters:
        frozen = evaluations.marginals.get(name)
        if frozen is None:
            continue
        full = np.shape(frozen.mean())

        def at(arg, full=full):
            return at_labels(np.broadcast_to(np.asarray(arg, float), full), flat, lead=1)

        components = frozen.dist(
            *[at(a) for a in frozen.args], **{k: at(v) for k, v in frozen.kwds.items()}
        )
        key = f"{name}_of_{spec.label}"
        marginal = _mixture(components, weights, dims[key], cdf_weights)
        out[key] = _reshaped(marginal, labels.shape[1:] + tuple(full[2:]))
    frozen = evaluations.marginals.get(spec.weights) if spec.weights else None
    if frozen is not None and frozen.dist.name == "beta":
        a, b = (np.asarray(v, float) for v in frozen.args[:2])
        if spec.binary:
            a = np.broadcast_to(a.reshape(count, 1), flat.shape)
            b = np.broadcast_to(b.reshape(count, 1), flat.shape)
            a, b = np.where(flat == 1, a, b), np.where(flat == 1, b, a)
        else:
            a = at_labels(np.broadcast_to(a, (count, a.shape[-1])), flat, lead=1)
            b = at_labels(np.broadcast_to(b, (count, b.shape[-1])), flat, lead=1)
        key = f"{spec.weights}_of_{spec.label}"
        marginal = _mixture(frozen.dist(a, b), weights, dims[key], cdf_weights)
        out[key] = _reshaped(marginal, labels.shape[1:])
    pairs = coassignment_pairs(flat.shape[1])
    same = (flat[:, pairs[:, 0]] == flat[:, pairs[:, 1]]).astype(float)
    key = f"coassignment_{spec.label}"
    out[key] = _discrete_marginal(same, weights, dims[key], (len(pairs),))
    return out


def _reshaped(marginal: Marginal, shape: tuple) -> Marginal:
    """A marginal computed over flattened elements, with the quantity's own shape."""
    if np.shape(marginal.mean) == shape:
        return marginal
    cdf, ppf = marginal.cdf, marginal.ppf
    flat_size = int(np.prod(shape, dtype=int))

    def cdf_shaped(x):
        x = np.asarray(x, float)
        return cdf(x.reshape(x.shape[0], flat_size)).reshape(x.shape)

    def ppf_shaped(prob):
        return np.asarray(ppf(prob)).reshape(shape)

    return Marginal(
        marginal.dims,
        np.reshape(marginal.mean, shape),
        np.reshape(marginal.sd, shape),
        None if cdf is None else cdf_shaped,
        None if ppf is None else ppf_shaped,
        discrete=marginal.discrete,
        kurtosis=None if marginal.kurtosis is None else np.reshape(marginal.kurtosis, shape),
    )
