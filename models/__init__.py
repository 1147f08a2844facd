"""The models of the zoo, one sub-package each, and what they share.

Each model package has ``spec`` (Prior, Data, simulate), ``posterior`` (exact
reference), ``program`` (PyMC), ``gibbs`` (collapsed Gibbs kernel), ``faults`` (the
deliberately wrong kernels, by name), ``kernel_checks`` (what Geweke's test and the
invariance check need) and ``problems`` (the data sets ``zoo check`` and ``zoo
validate`` run on); its ``__init__`` assembles the :class:`~zoo.core.contract.Model`
and nothing inside the package imports it. Quantities ``simulate`` needs sit below
``spec`` (``conditional`` for the class probabilities). Naive Bayes and GDA also have
``estimator``, a scikit-learn classifier (public as :mod:`zoo.sklearn`).

Shared by the models: :mod:`zoo.models.labelings` (exact posteriors by enumerating
labelings of latent labels), :mod:`zoo.models.mixtures` (marginals of finite mixtures),
:mod:`zoo.models.arrays` (read-only arrays and hyperparameters of a spec) and
:mod:`zoo.models.semi_supervised` (what the estimators share: rows labelled -1, sample
weights, the Gibbs draws of labelings).
"""
