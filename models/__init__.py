"""The models of the zoo, one sub-package each.

Each has ``spec`` (Prior, Data, simulate), ``posterior`` (exact reference), ``program``
(PyMC) and ``gibbs`` (collapsed Gibbs kernel).
"""
