"""The registry of models: ``zoo.names()``, ``zoo.get(name)``, ``zoo.register(model)``."""

from __future__ import annotations

import importlib

from zoo.core.contract import Model

__all__ = ["get", "names", "register"]

# Built-in models are imported on first use, so `import zoo` stays cheap and a broken
# optional model cannot stop the others from loading.
_BUILTIN = {
    "beta-binomial": "zoo.models.beta_binomial",
    "naive-bayes": "zoo.models.naive_bayes",
    "gda": "zoo.models.gda",
    "lda": "zoo.models.lda",
}
_registered: dict[str, Model] = {}


def register(model: Model) -> Model:
    """Add a model to the registry (a user's own model gets the CLI and tests for free)."""
    if not isinstance(model, Model):
        raise ValueError(f"model: expected a zoo.Model, got {type(model).__name__}")
    if model.name in _registered or model.name in _BUILTIN:
        raise ValueError(f"model.name: {model.name!r} is already registered")
    _registered[model.name] = model
    return model


def names() -> list[str]:
    """Return the names of all registered models, built-in ones first."""
    return [*_BUILTIN, *_registered]


def get(name: str | Model) -> Model:
    """Return the model registered under ``name`` (a :class:`Model` is passed through)."""
    if isinstance(name, Model):
        return name
    if name in _registered:
        return _registered[name]
    if name in _BUILTIN:
        return importlib.import_module(_BUILTIN[name]).MODEL
    raise ValueError(f"model: unknown model {name!r}; known models are {', '.join(names())}")
