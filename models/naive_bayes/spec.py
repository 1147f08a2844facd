"""Dirichlet-prior Naive Bayes: hyperparameters, observed data and prior simulation.

The model (Murphy, *Machine Learning: a Probabilistic Perspective*, 2012, sections 3.4
and 3.5; CS229 notes, part IV, section 2):

    pi ~ Dir(alpha),                     y_d | pi ~ Categorical(pi)

    multinomial event model (bag of words, counts x_dv >= 0, length L_d = sum_v x_dv):
        phi_k ~ Dir(beta_k),             x_d | y_d, phi ~ Multinomial(L_d, phi_{y_d})

    Bernoulli event model (binary features x_dv in {0, 1}):
        phi_kv ~ Beta(beta1_kv, beta0_kv),  x_dv | y_d, phi ~ Bernoulli(phi_{y_d v})

The event model is a field of :class:`Data` (it fixes what a valid row of features is).
A label of ``-1`` (:data:`MISSING`) marks an unlabelled document whose class is latent
(semi-supervised learning); ``-1`` is also scikit-learn's marker for unlabelled samples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from zoo.core.arguments import as_count_array, as_int, check_generator
from zoo.models.arrays import as_hyperparameter, read_only
from zoo.models.labelings import MISSING, LabelledData, as_labels, check_label_range
from zoo.models.naive_bayes.conditional import class_probability
from zoo.models.simplex import dirichlet

__all__ = [
    "EVENT_MODELS",
    "Data",
    "Hyperparameters",
    "Prior",
    "augment",
    "simulate",
]

EVENT_MODELS = ("multinomial", "bernoulli")


@dataclass(frozen=True, eq=False)
class Prior:
    """Hyperparameters of Dirichlet-prior Naive Bayes.

    Each is a positive scalar (symmetric prior) or a full array; arrays are checked
    against the data's number of classes ``K`` and features ``V`` when the prior meets
    the data (:meth:`resolve`).

    Parameters
    ----------
    alpha : float or array-like, shape (K,)
        Dirichlet pseudo-counts of the class proportions ``pi``.
    beta : float or array-like, shape (V,) or (K, V)
        Multinomial event model: Dirichlet pseudo-counts of each class's word
        distribution ``phi_k``. Bernoulli event model: ``beta1``, the pseudo-count of
        "feature present" in ``phi_kv ~ Beta(beta1, beta0)``.
    beta0 : float or array-like, shape (V,) or (K, V), optional
        Bernoulli event model only: pseudo-count of "feature absent"; default ``beta``
        (a symmetric Beta, as in scikit-learn's ``BernoulliNB(alpha=beta)``).

    Notes
    -----
    ``beta = 1`` makes the posterior mean of ``phi`` Laplace smoothing, and the MAP
    under ``beta = eta + 1`` is eta-smoothing ``(t + eta) / (S + V eta)``
    (Murphy 2012, section 3.4).
    """

    alpha: float | np.ndarray = 1.0
    beta: float | np.ndarray = 1.0
    beta0: float | np.ndarray | None = None

    def __post_init__(self):
        # alpha: a scalar or (K,); beta and beta0: a scalar, (V,) or (K, V).
        object.__setattr__(self, "alpha", as_hyperparameter("alpha", self.alpha, max_ndim=1))
        object.__setattr__(self, "beta", as_hyperparameter("beta", self.beta, max_ndim=2))
        if self.beta0 is not None:
            object.__setattr__(self, "beta0", as_hyperparameter("beta0", self.beta0, max_ndim=2))

    def resolve(self, data: Data) -> Hyperparameters:
        """Broadcast the hyperparameters to the data's shapes.

        Returns
        -------
        Hyperparameters
            ``alpha`` of shape (K,), ``beta`` (and for the Bernoulli model ``beta0``)
            of shape (K, V), as new float arrays.

        Raises
        ------
        ValueError
            Naming the field whose shape does not fit, or ``beta0`` given for the
            multinomial event model.
        """
        k, v = data.n_classes, data.n_features
        alpha = _broadcast("alpha", self.alpha, (k,))
        beta = _broadcast("beta", self.beta, (k, v))
        if data.event_model == "multinomial":
            if self.beta0 is not None:
                raise ValueError(
                    "beta0: only the Bernoulli event model has a 'feature absent' "
                    "pseudo-count; the multinomial model uses beta alone"
                )
            return Hyperparameters(alpha, beta, None)
        beta0 = beta.copy() if self.beta0 is None else _broadcast("beta0", self.beta0, (k, v))
        return Hyperparameters(alpha, beta, beta0)


def _broadcast(field: str, value, shape: tuple[int, ...]) -> np.ndarray:
    array = np.asarray(value, dtype=float)
    # A (V,) array is one vocabulary prior shared by all classes; (K, V) is per class.
    if array.ndim not in (0, len(shape) - 1, len(shape)) or (
        array.ndim and array.shape != shape[-array.ndim :]
    ):
        raise ValueError(f"{field}: shape {array.shape} does not fit the data's shape {shape}")
    return np.array(np.broadcast_to(array, shape), dtype=float)


class Hyperparameters(NamedTuple):
    """Hyperparameters broadcast to the data: alpha (K,), beta (K, V), beta0 (K, V)."""

    alpha: np.ndarray
    beta: np.ndarray
    beta0: np.ndarray | None


def _names(field: str, value, size: int, default) -> np.ndarray:
    names = np.array(default if value is None else value, copy=True)
    if names.shape != (size,):
        raise ValueError(f"{field}: expected {size} names, got shape {names.shape}")
    if len(np.unique(names)) != size:
        raise ValueError(f"{field}: names must be unique")
    return read_only(names)


@dataclass(frozen=True, init=False, eq=False)
class Data(LabelledData):
    """Documents (rows of feature counts) with class labels, some possibly missing.

    Parameters
    ----------
    counts : array-like of int, shape (D, V)
        Multinomial event model: ``x_dv >= 0``, how often word ``v`` occurs in document
        ``d``; every document must have at least one word. Bernoulli event model: 0 or 1.
    labels : array-like of int, shape (D,)
        Class of each document in ``0 .. K-1``, or ``-1`` (:data:`MISSING`) when unknown.
    classes : int or array-like, optional
        Number of classes ``K >= 2`` or their names (coordinate ``class``); default
        ``0 .. max(labels)``.
    event_model : {"multinomial", "bernoulli"}
        How a document's features are generated given its class.
    features : array-like, shape (V,), optional
        Feature (vocabulary) names, coordinate ``feature``; default ``0 .. V-1``.
    documents : array-like, shape (D,), optional
        Document names; the coordinates ``labelled`` and ``unlabelled`` are taken from
        them. Default ``0 .. D-1``.

    Notes
    -----
    Arrays are copied and made read-only: nothing the caller passed is modified or
    aliased. Word ids and labels are checked here because PyTensor's Numba backend does
    not bounds-check advanced indexing.
    """

    counts: np.ndarray
    labels: np.ndarray
    classes: np.ndarray
    features: np.ndarray
    documents: np.ndarray
    event_model: str

    def __init__(
        self,
        counts,
        labels,
        *,
        classes=None,
        event_model: str = "multinomial",
        features=None,
        documents=None,
    ):
        if event_model not in EVENT_MODELS:
            raise ValueError(f"event_model: must be one of {EVENT_MODELS}, got {event_model!r}")
        counts = as_count_array("counts", counts, ndim=2)
        n_docs, n_features = counts.shape
        if n_features == 0:
            raise ValueError("counts: the vocabulary is empty (no feature columns)")
        if n_docs == 0:
            raise ValueError("counts: need at least one document, got none")
        labels = as_labels(labels, n_docs, item="document")
        if classes is None:
            n_classes = int(labels.max()) + 1
            class_names = np.arange(max(n_classes, 0))
        elif isinstance(classes, int | np.integer) and not isinstance(classes, bool):
            n_classes = int(classes)
            class_names = np.arange(max(n_classes, 0))
        else:
            class_names = np.asarray(classes)
            n_classes = class_names.shape[0] if class_names.ndim == 1 else -1
        if n_classes < 2:
            raise ValueError(f"classes: need K >= 2 classes, got {classes!r} (labels {labels})")
        check_label_range(labels, n_classes)
        if event_model == "multinomial":
            empty = counts.sum(axis=1) == 0
            if empty.any():
                raise ValueError(
                    f"counts: document {int(np.argmax(empty))} has length 0; the multinomial "
                    "event model needs at least one word per document"
                )
        elif (counts > 1).any():
            where = tuple(int(i) for i in np.argwhere(counts > 1)[0])
            raise ValueError(
                f"counts: the Bernoulli event model takes 0/1 features, found {counts[where]} "
                f"at index {where}"
            )
        class_names = _names("classes", class_names, n_classes, None)
        features = _names("features", features, n_features, np.arange(n_features))
        documents = _names("documents", documents, n_docs, np.arange(n_docs))
        object.__setattr__(self, "counts", read_only(counts))
        object.__setattr__(self, "labels", read_only(labels))
        object.__setattr__(self, "classes", class_names)
        object.__setattr__(self, "features", features)
        object.__setattr__(self, "documents", documents)
        object.__setattr__(self, "event_model", event_model)

    @property
    def n_features(self) -> int:
        """``V``, the vocabulary size or number of binary features."""
        return int(self.counts.shape[1])

    @property
    def lengths(self) -> np.ndarray:
        """``L_d``, the number of words (multinomial) or present features (Bernoulli)."""
        return self.counts.sum(axis=1)

    def class_counts(self) -> np.ndarray:
        """``n_k``: labelled documents per class, shape (K,)."""
        return np.bincount(self.labels[self.labelled], minlength=self.n_classes)

    def feature_counts(self) -> np.ndarray:
        """``N_kv``: summed features of the labelled documents of class k, shape (K, V)."""
        totals = np.zeros((self.n_classes, self.n_features), dtype=np.int64)
        np.add.at(totals, self.labels[self.labelled], self.counts[self.labelled])
        return totals

    @property
    def coords(self) -> dict[str, np.ndarray]:
        """Coordinates of the model's dims."""
        return {
            "class": self.classes,
            "feature": self.features,
            "labelled": self.documents[self.labelled],
            "unlabelled": self.documents[self.unlabelled],
        }

    @property
    def observed_data(self) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
        """Observed variables with their dims, as the PyMC program names them.

        ``labels`` and ``x_labelled`` are the labelled documents, ``x_unlabelled`` the
        others; a part with no document is left out (PyMC cannot observe an empty array).
        """
        observed = {}
        if self.labelled.size:
            observed["labels"] = (self.labels[self.labelled], ("labelled",))
            observed["x_labelled"] = (self.counts[self.labelled], ("labelled", "feature"))
        if self.unlabelled.size:
            observed["x_unlabelled"] = (self.counts[self.unlabelled], ("unlabelled", "feature"))
        return observed

    @property
    def constant_data(self) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
        """Fixed inputs with their dims (none: the lengths are functions of the counts)."""
        return {}


def simulate(
    prior: Prior,
    rng: np.random.Generator,
    *,
    event_model: str = "multinomial",
    classes: int = 2,
    features: int = 5,
    documents: int = 20,
    unlabelled: int = 4,
    length: int = 20,
):
    """Draw ``(truth, data)`` from the prior predictive distribution.

    Parameters
    ----------
    prior : Prior
    rng : numpy.random.Generator
    event_model : {"multinomial", "bernoulli"}
    classes, features, documents : int
        ``K``, ``V`` and ``D``.
    unlabelled : int
        How many of the documents (the last ones) have their label hidden.
    length : int
        Multinomial model: words per document.

    Returns
    -------
    truth : dict of str to ndarray
        ``pi``, ``phi`` and ``class_probability`` (``p(y_u = k | pi, phi, x_u)`` for the
        unlabelled documents, the quantity both engines report per draw), plus nothing
        else, so that its keys are the model's variables.
    data : Data
    """
    check_generator("rng", rng)
    classes = as_int("classes", classes, minimum=2)
    features = as_int("features", features, minimum=1)
    documents = as_int("documents", documents, minimum=1)
    unlabelled = as_int("unlabelled", unlabelled, minimum=0)
    length = as_int("length", length, minimum=1)
    if unlabelled > documents:
        raise ValueError(f"unlabelled: at most documents={documents}, got {unlabelled}")
    shape = Data(np.ones((1, features), dtype=int), [0], classes=classes, event_model=event_model)
    hyper = prior.resolve(shape)
    pi = dirichlet(rng, hyper.alpha)
    labels = rng.choice(classes, size=documents, p=pi)
    if event_model == "multinomial":
        phi = dirichlet(rng, hyper.beta)
        counts = np.stack([rng.multinomial(length, phi[k]) for k in labels])
    else:
        phi = rng.beta(hyper.beta, hyper.beta0)
        counts = (rng.random((documents, features)) < phi[labels]).astype(np.int64)
    observed = labels.copy()
    observed[documents - unlabelled :] = MISSING
    data = Data(counts, observed, classes=classes, event_model=event_model)
    truth = {
        "pi": pi,
        "phi": phi,
        "class_probability": class_probability(
            counts[data.unlabelled], pi, phi, event_model=event_model
        ),
    }
    return truth, data


def augment(data: Data, params, prior: Prior, rng: np.random.Generator) -> Data:
    """``data`` with as many new labelled documents again, drawn given ``params``.

    The observation axis is the documents: each new document's class is drawn from
    ``pi`` and its features from that class's ``phi`` (the lengths of the observed
    documents, for the multinomial event model), independent of the observed documents
    given ``(pi, phi)``. The new documents are labelled, so the variables (and the
    unlabelled documents' class probabilities) stay those of ``data``. What posterior
    SBC fits.
    """
    check_generator("rng", rng)
    pi = np.asarray(params["pi"], dtype=float)
    phi = np.asarray(params["phi"], dtype=float)
    if pi.shape != (data.n_classes,) or phi.shape != (data.n_classes, data.n_features):
        raise ValueError(
            f"params: pi and phi must have shapes {(data.n_classes,)} and "
            f"{(data.n_classes, data.n_features)}, got {pi.shape} and {phi.shape}"
        )
    classes = rng.choice(data.n_classes, size=len(data.documents), p=pi / pi.sum())
    if data.event_model == "multinomial":
        counts = np.stack(
            [rng.multinomial(n, phi[k]) for n, k in zip(data.lengths, classes, strict=True)]
        )
    else:
        counts = (rng.random(data.counts.shape) < phi[classes]).astype(np.int64)
    names = [str(name) for name in data.documents]
    return Data(
        np.concatenate([data.counts, counts]),
        np.concatenate([data.labels, classes]),
        classes=data.classes,
        event_model=data.event_model,
        features=data.features,
        documents=names + [f"augmented-{name}" for name in names],
    )
