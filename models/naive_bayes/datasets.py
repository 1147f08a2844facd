"""Real data for Naive Bayes, available offline.

The UCI optical recognition of handwritten digits test set (Alpaydin & Kaynak 1998;
1797 images of 8 x 8 pixels with intensities 0..16), as shipped inside scikit-learn
(``sklearn.datasets.load_digits``; no download). Each image is a "document" whose
64 pixels are the vocabulary: the intensity of a pixel is how many times that word
occurs (multinomial event model), or, binarised at a threshold, whether it occurs
(Bernoulli event model).
"""

from __future__ import annotations

import numpy as np

from zoo.core.arguments import as_int
from zoo.models.labelings import MISSING
from zoo.models.naive_bayes.posterior import posterior
from zoo.models.naive_bayes.spec import Data, Prior

__all__ = ["digits", "digits_problem"]

# Half of the maximum intensity 16: a pixel is "on" when more than half inked.
BINARY_THRESHOLD = 8


def digits(
    *, event_model: str = "multinomial", threshold: int = BINARY_THRESHOLD, coarsen: int = 1
):
    """All 1797 digit images as ``(counts, targets, feature names)``.

    Parameters
    ----------
    event_model : {"multinomial", "bernoulli"}
        Pixel intensities 0..16 as counts, or 0/1 features ``intensity >= threshold``.
    threshold : int
        Bernoulli only: the binarisation threshold.
    coarsen : int
        Multinomial only: count ink in units of ``coarsen`` on-pixels (integer division
        of the intensities). Each image has about 300 units of ink at ``coarsen=1``,
        which makes Naive Bayes certain of almost every class to double precision;
        ``coarsen=8`` leaves about 25 and class probabilities one can test.
    """
    coarsen = as_int("coarsen", coarsen, minimum=1)
    # deferred: scikit-learn is slow to import and only the digits data need it.
    from sklearn.datasets import load_digits

    bunch = load_digits()
    counts = bunch.data.astype(np.int64)
    if event_model == "bernoulli":
        counts = (counts >= threshold).astype(np.int64)
    elif event_model == "multinomial":
        counts = counts // coarsen
    else:
        raise ValueError(f"event_model: must be 'multinomial' or 'bernoulli', got {event_model!r}")
    features = np.array([f"r{r}c{c}" for r in range(8) for c in range(8)])
    return counts, bunch.target.astype(np.int64), features


def digits_problem(
    *,
    classes=(5, 9),
    labelled_per_class: int = 10,
    unlabelled: int = 8,
    event_model: str = "multinomial",
    threshold: int = BINARY_THRESHOLD,
    ambiguous: bool = True,
    coarsen: int = 1,
) -> Data:
    """A semi-supervised digits problem: a few labelled images per class, some unlabelled.

    Deterministic (no random selection): the first ``labelled_per_class`` images of
    each digit in the data set's order are labelled, so every class has labelled
    documents, which identifies the classes (no label switching). The unlabelled
    images come from the rest of those digits: the ``unlabelled`` ones whose class the
    labelled images leave most in doubt (``ambiguous=True``), or the first ones.

    Parameters
    ----------
    classes : sequence of int
        Digits to keep (class names are ``"digit <d>"``).
    labelled_per_class, unlabelled : int
        Sizes; ``K ** unlabelled <= 2**16`` keeps the exact reference available.
    event_model, threshold, coarsen
        As in :func:`digits`.
    ambiguous : bool
        Pick the unlabelled images the labelled ones leave most in doubt.
    """
    counts, target, features = digits(
        event_model=event_model, threshold=threshold, coarsen=coarsen
    )
    classes = [int(c) for c in classes]
    if event_model == "multinomial":
        # Blank images would be empty documents (there are none in these data).
        target = np.where(counts.sum(axis=1) > 0, target, -1)
    per_class = {c: np.flatnonzero(target == c) for c in classes}
    labelled = np.concatenate([per_class[c][:labelled_per_class] for c in classes])
    labels = np.repeat(np.arange(len(classes)), labelled_per_class)
    pool = np.concatenate([per_class[c][labelled_per_class:] for c in classes])
    if ambiguous:
        # The images the labelled ones leave most in doubt (Bayesian predictive class
        # probability furthest from certainty), so that the unlabelled documents' class
        # probabilities are not 0 or 1 to double precision in every draw: an agreement
        # test on a constant can say nothing.
        known = Data(counts[labelled], labels, classes=len(classes), event_model=event_model)
        certainty = posterior(known, Prior()).predict_proba(counts[pool]).max(axis=1)
        chosen = np.sort(pool[np.argsort(certainty, kind="stable")[:unlabelled]])
    else:
        chosen = np.sort(pool[:unlabelled])
    rows = np.concatenate([labelled, chosen])
    return Data(
        counts[rows],
        np.concatenate([labels, np.full(chosen.size, MISSING)]),
        classes=[f"digit {c}" for c in classes],
        event_model=event_model,
        features=features,
        documents=[f"image {i}" for i in rows],
    )
