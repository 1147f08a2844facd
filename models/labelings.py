"""Exact posteriors of models with discrete latent labels, by enumerating the labelings.

Naive Bayes and GDA with missing labels, and LDA's topic assignments, share one shape:
``U`` latent items (unlabelled documents or points, tokens) each take one of ``K``
classes, and given a full labeling ``z`` the posterior is conjugate. The exact posterior
is then the finite mixture over all ``K^U`` labelings, each weighted by its marginal
likelihood (Nigam et al., Machine Learning 39, 2000; Griffiths & Steyvers, PNAS 101,
2004). This module is the machinery every such model uses:

- :data:`MAX_LABELINGS` and :class:`Labelings`: the enumeration cap, its guard, and the
  base-K decoding of a labeling's index into the class of each item, in chunks of
  bounded memory;
- :func:`heaviest`: pruning of light labelings, with the bound on what it changes;
- :class:`BetaMoments`: exact moments of Beta marginals mixed over every labeling;
- the mixture's marginals are built by :func:`zoo.models.mixtures.mixture_marginal`;
- :data:`NEAR_CERTAIN` and :func:`probability_marginal`: which label probabilities a
  Monte Carlo mean can be tested on;
- :data:`MISSING`, :func:`as_labels`, :func:`check_label_range`, :class:`LabelledData`
  and :func:`categorical`: the marker of a missing label, the checks of such labels,
  what a ``Data`` type with them offers, and a draw of one label per row of
  probabilities;
- :func:`latent_labels`, :func:`completed_labels`, :func:`read_latent_labels` and
  :func:`redrawn_labels`: the parts of a :class:`~zoo.core.contract.KernelChecks` that
  move the labels.
"""

from __future__ import annotations

import numpy as np

from zoo.core.arguments import as_finite_array, as_int
from zoo.core.reference import Marginal

__all__ = [
    "CHUNK_ELEMENTS",
    "MAX_LABELINGS",
    "MISSING",
    "NEAR_CERTAIN",
    "NEGLIGIBLE_MASS",
    "BetaMoments",
    "Labelings",
    "LabelledData",
    "categorical",
    "completed_labels",
    "heaviest",
    "latent_labels",
    "probability_marginal",
    "read_latent_labels",
    "redrawn_labels",
]

#: Label of an item whose class is not observed (scikit-learn's marker for unlabelled
#: samples in semi-supervised learning).
MISSING = -1

#: Largest number of labelings enumerated exactly. 2^16 components times the ``K V``
#: (Naive Bayes), ``K d^2`` (GDA) or ``(D + V) K`` (LDA) log-gamma terms of each weight
#: take about a second; beyond it a posterior answers ``NoReference``.
MAX_LABELINGS = 2**16

#: Elements (labelings x numbers per labeling) processed at once, so that the chunk's
#: one-hot and count arrays stay near 16 MB of float64.
CHUNK_ELEMENTS = 2_000_000

#: Labelings pruned by :func:`heaviest` carry together less than this posterior mass.
NEGLIGIBLE_MASS = 1e-12

#: A label probability (class probability, co-assignment) whose exact mean lies within
#: this distance of 0 or 1 gets no mean test. The test is a z-score of a Monte Carlo
#: mean of a quantity in [0, 1], which needs the normal approximation to the count of
#: "large" draws: by the binomial rule of thumb, ESS x p >= 10, and with the ESS >= 400
#: gate of :func:`zoo.diagnostics.agreement` that is p >= 10 / 400. Nearer the edge a
#: handful of rare draws dominate the estimate and its MCSE (seen: a probability of
#: 0.001 estimated as 0.0005 with z = 16 on a correct sampler). Naive Bayes and LDA used
#: an empirical 0.02 and GDA this derived 0.025; the derived one is kept for all.
NEAR_CERTAIN = 10.0 / 400.0


class Labelings:
    """The ``K^U`` labelings of ``U`` latent items into ``K`` classes, in base-K order.

    Labeling number ``i`` gives item ``u`` the class ``(i // K^u) % K``: item 0 is the
    least significant digit.

    Parameters
    ----------
    n_classes : int
        ``K >= 1``.
    n_items : int
        ``U >= 0``, the latent items (``K^0 = 1`` labeling when every label is known).
    limit : int
        Enumerate only up to this many labelings (default :data:`MAX_LABELINGS`).
    field : str
        Name of the ``limit`` argument in the caller's signature, for error messages.

    Attributes
    ----------
    enumerable : bool
        ``K^U <= limit``; compared in logarithms, since ``K^U`` can be astronomically
        large.
    count : int
        ``K^U`` (only when enumerable; 0 otherwise).

    Raises
    ------
    ValueError
        Naming ``field`` if ``limit`` is not an integer >= 1.
    """

    def __init__(
        self,
        n_classes: int,
        n_items: int,
        *,
        limit: int = MAX_LABELINGS,
        field: str = "max_labelings",
    ):
        self.n_classes = as_int("n_classes", n_classes, minimum=1)
        self.n_items = as_int("n_items", n_items, minimum=0)
        self.limit = as_int(field, limit, minimum=1)
        self.field = field
        self.enumerable = self.n_items * np.log(self.n_classes) <= np.log(self.limit) + 1e-9
        self.count = self.n_classes**self.n_items if self.enumerable else 0

    def too_many(self, items: str) -> str:
        """Why there is no exact reference: ``K^U`` labelings of ``items`` exceed the limit."""
        return (
            f"{self.n_classes}^{self.n_items} labelings of the {self.n_items} {items} exceed "
            f"the enumeration limit {self.limit}; compare the Gibbs and PyMC draws instead"
        )

    def _require_enumerable(self) -> None:
        if not self.enumerable:
            raise ValueError(
                f"{self.field}: {self.n_classes}^{self.n_items} labelings exceed the "
                f"enumeration limit {self.limit}; check Labelings.enumerable first"
            )

    def chunks(self, per_labeling: int):
        """Index arrays covering ``0 .. K^U - 1`` in order, in chunks of bounded memory.

        Each chunk holds about :data:`CHUNK_ELEMENTS` numbers when one labeling takes
        ``per_labeling`` of them.
        """
        self._require_enumerable()
        size = max(1, CHUNK_ELEMENTS // max(1, int(per_labeling)))
        for start in range(0, self.count, size):
            yield np.arange(start, min(self.count, start + size))

    def classes(self, index) -> np.ndarray:
        """The class of every item under each labeling in ``index``, shape (C, U)."""
        self._require_enumerable()
        index = np.asarray(index, dtype=np.int64)
        if index.size and (index.min() < 0 or index.max() >= self.count):
            raise ValueError(f"index: labelings are numbered 0 .. {self.count - 1}")
        return (index[:, None] // self.n_classes ** np.arange(self.n_items)) % self.n_classes

    def onehot(self, index) -> np.ndarray:
        """Indicators ``z_u == k`` of each labeling in ``index``, shape (C, U, K), float."""
        return (self.classes(index)[:, :, None] == np.arange(self.n_classes)).astype(float)


def heaviest(
    weights: np.ndarray, *, negligible: float = NEGLIGIBLE_MASS, at_most: int | None = None
) -> tuple[np.ndarray, float]:
    """The heaviest labelings that hold all but ``negligible`` of the mass, in index order.

    Rule: sort the weights in decreasing order and keep the shortest prefix whose sum
    reaches ``1 - negligible``, then at most ``at_most`` of those (memory). Bound: if
    the kept components are renormalised, every CDF value (and every probability) of
    the mixture moves by at most the dropped mass ``delta``: the kept part grows by at
    most ``delta`` and the dropped part, at most ``delta``, is lost. Without ``at_most``,
    ``delta < negligible``; with it, ``delta`` is returned for the caller to report.

    Returns
    -------
    kept : ndarray of int
        Indices of the kept labelings, sorted.
    dropped : float
        The mass left out, ``1 - sum(weights[kept])`` (clipped at 0).
    """
    order = np.argsort(weights)[::-1]
    kept = order[: int(np.searchsorted(np.cumsum(weights[order]), 1.0 - negligible)) + 1]
    kept = np.sort(kept[:at_most])
    return kept, max(0.0, 1.0 - float(weights[kept].sum()))


class BetaMoments:
    """Exact mean and sd of Beta marginals mixed over every labeling, chunk by chunk.

    Given a labeling, each element is ``Beta(a, b)``; over the labelings it is a mixture.
    By the law of total variance, ``Var = E[Var | z] + Var[E | z]``, where the second
    term is ``E[m^2] - E[m]^2`` of the component means ``m`` (clipped at 0 against
    rounding). Every labeling counts, pruned or not.

    Parameters
    ----------
    shape : tuple of int
        Shape of the variable (one Beta per element).
    """

    def __init__(self, shape: tuple[int, ...]):
        self._mean = np.zeros(shape)
        self._square = np.zeros(shape)
        self._within = np.zeros(shape)

    def add(self, weights: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        """Add components ``Beta(a[c], b[c])`` of posterior weight ``weights[c]``."""
        mean = a / (a + b)
        variance = a * b / ((a + b) ** 2 * (a + b + 1.0))
        self._mean += np.tensordot(weights, mean, axes=1)
        self._square += np.tensordot(weights, mean**2, axes=1)
        self._within += np.tensordot(weights, variance, axes=1)

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """``(mean, sd)`` of the mixture, once every labeling has been added."""
        between = np.maximum(self._square - self._mean**2, 0.0)
        return self._mean, np.sqrt(self._within + between)


def probability_marginal(dims, probability: np.ndarray) -> Marginal:
    """Marginal of a per-draw label probability with exact mean ``probability``.

    The mean is tested only where it lies at least :data:`NEAR_CERTAIN` from 0 and 1
    (NaN elsewhere: not tested); the sd of such a quantity has no closed form and is
    NaN everywhere.
    """
    probability = np.asarray(probability, dtype=float)
    testable = np.minimum(probability, 1.0 - probability) >= NEAR_CERTAIN
    return Marginal(
        tuple(dims),
        np.where(testable, probability, np.nan),
        np.full(probability.shape, np.nan),
    )


def categorical(probabilities: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One category per row of ``probabilities`` (rows sum to 1), by inverse CDF."""
    probabilities = np.asarray(probabilities, dtype=float)
    if probabilities.shape[0] == 0:
        return np.empty(0, dtype=np.int64)
    cumulative = np.cumsum(probabilities, axis=1)
    uniform = rng.random(probabilities.shape[0]) * cumulative[:, -1]
    chosen = (cumulative <= uniform[:, None]).sum(axis=1)
    return np.minimum(chosen, probabilities.shape[1] - 1).astype(np.int64)


class LabelledData:
    """What a ``Data`` type whose ``labels`` may be :data:`MISSING` offers (a mixin).

    The class needs the attributes ``labels`` (int array, one label per item: document,
    point) and ``classes`` (the class names, coordinate ``class``).
    """

    labels: np.ndarray
    classes: np.ndarray

    @property
    def n_classes(self) -> int:
        """``K``, the number of classes."""
        return int(self.classes.shape[0])

    @property
    def labelled(self) -> np.ndarray:
        """Indices of the items whose label is known (coordinate ``labelled``)."""
        return np.flatnonzero(self.labels != MISSING)

    @property
    def unlabelled(self) -> np.ndarray:
        """Indices of the items whose label is missing, in order (coordinate ``unlabelled``)."""
        return np.flatnonzero(self.labels == MISSING)


def as_labels(value, n_items: int, *, item: str) -> np.ndarray:
    """An ``int64`` copy of ``value``: one integer label per item, :data:`MISSING` allowed.

    Raises ValueError naming ``labels`` for a non-finite or fractional entry, or a
    length other than ``n_items`` (``item`` names one: "document", "row of x").
    The range is checked by :func:`check_label_range` once ``K`` is known.
    """
    labels = as_finite_array("labels", value, ndim=1)
    if labels.shape != (n_items,):
        raise ValueError(
            f"labels: expected one label per {item} ({n_items}), got shape {labels.shape}"
        )
    fractional = labels != np.floor(labels)
    if fractional.any():
        where = int(np.argmax(fractional))
        raise ValueError(
            f"labels: must be integers (a class index, or {MISSING} for missing), "
            f"found {labels[where]:g} at index {where}"
        )
    return labels.astype(np.int64)


def check_label_range(labels: np.ndarray, n_classes: int) -> None:
    """Raise ValueError naming ``labels`` unless each is in ``0 .. K-1`` or :data:`MISSING`."""
    bad = (labels != MISSING) & ((labels < 0) | (labels >= n_classes))
    if bad.any():
        where = int(np.argmax(bad))
        raise ValueError(
            f"labels: must lie in [0, {n_classes}) or be {MISSING} (missing), "
            f"found {labels[where]} at index {where}"
        )


def latent_labels(params, data: LabelledData, prior, rng: np.random.Generator) -> dict:
    """``KernelChecks.latents``: the missing labels from their exact conditional.

    Given the parameters the missing labels are independent, each drawn from
    ``params["class_probability"]`` (``p(y_u = k | parameters, x_u)``, which the engines
    report per draw).
    """
    return {"labels": categorical(params["class_probability"], rng)}


def completed_labels(labels: np.ndarray, latents) -> np.ndarray:
    """Every item's class: the observed ``labels``, and ``latents["labels"]`` for the missing."""
    labels = np.array(labels, dtype=np.int64)
    labels[labels == MISSING] = latents["labels"]
    return labels


def redrawn_labels(pi: np.ndarray, data: LabelledData, latents, rng: np.random.Generator):
    """The label half of ``KernelChecks.redraw``: new observed labels, ``y ~ Categorical(pi)``.

    The same items stay unlabelled. Returns ``(labels, classes)``: the new data's labels
    and every item's class (``latents["labels"]`` for the unlabelled), from which the
    caller draws the features.
    """
    pi = np.asarray(pi, dtype=float)
    labels = data.labels.copy()
    labelled = data.labelled
    labels[labelled] = categorical(np.broadcast_to(pi, (labelled.size, pi.size)), rng)
    return labels, completed_labels(labels, latents)


def read_latent_labels(state, data: LabelledData) -> dict:
    """``KernelChecks.read``: the missing items' labels held by a state with ``labels``."""
    return {"labels": np.asarray(state.labels)[data.unlabelled]}
