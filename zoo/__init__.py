"""bayes-zoo: conjugate models three times over, and diagnostics that say which agree."""

from zoo.core.contract import Kernel, Model
from zoo.registry import get, names, register

__version__ = "0.1.0"
__all__ = ["Kernel", "Model", "get", "names", "register", "sample", "validate"]


def __getattr__(name):
    # The driver imports PyMC lazily; keep `import zoo` fast for the CLI and `zoo list`.
    if name == "sample":
        from zoo.sampling.driver import sample

        return sample
    if name == "validate":
        from zoo.validation import validate

        return validate
    raise AttributeError(f"module 'zoo' has no attribute {name!r}")
