"""The registry of models: ``zoo.names()``, ``zoo.get(name)``, ``zoo.register(model)``.

The bottom of the application layer: it knows where the built-in models live (by
location, so importing the registry imports none of them) and holds the models a user
registers. Below it, nothing refers to a model by name: the diagnostics and the models
take :class:`~zoo.core.contract.Model` objects.
"""

from __future__ import annotations

from zoo.core.contract import Model
from zoo.core.loading import load_object

__all__ = ["BUILT_IN", "get", "names", "register"]

#: Name -> location of each built-in model. They are imported on first use, so
#: ``import zoo`` stays cheap and a broken optional model cannot stop the others loading.
BUILT_IN = {
    "beta-binomial": "zoo.models.beta_binomial:MODEL",
    "naive-bayes": "zoo.models.naive_bayes:MODEL",
    "gda": "zoo.models.gaussian_classifiers.linear:MODEL",
    "qda": "zoo.models.gaussian_classifiers.quadratic:MODEL",
    "gaussian-nb": "zoo.models.gaussian_classifiers.diagonal:MODEL",
    "lda": "zoo.models.lda:MODEL",
}
_registered: dict[str, Model] = {}


def register(model: Model) -> Model:
    """Add a model to the registry (a user's own model gets the CLI and tests for free).

    Raises
    ------
    ValueError
        If ``model`` is not a :class:`zoo.Model` or its name is taken.
    """
    if not isinstance(model, Model):
        raise ValueError(f"model: expected a zoo.Model, got {type(model).__name__}")
    if model.name in _registered or model.name in BUILT_IN:
        raise ValueError(f"model.name: {model.name!r} is already registered")
    _registered[model.name] = model
    return model


def names() -> list[str]:
    """Return the names of all registered models, built-in ones first."""
    return [*BUILT_IN, *_registered]


def get(name: str | Model) -> Model:
    """Return the model registered under ``name`` (a :class:`Model` is passed through)."""
    if isinstance(name, Model):
        return name
    if name in _registered:
        return _registered[name]
    if name in BUILT_IN:
        return load_object(BUILT_IN[name], field="model")
    raise ValueError(f"model: unknown model {name!r}; known models are {', '.join(names())}")
