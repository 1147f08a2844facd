"""The zoo's scikit-learn estimators, under one public name.

``from zoo.sklearn import DirichletNaiveBayes, BayesianGDAClassifier,
BayesianQDAClassifier, BayesianGaussianNB``. All predict with the posterior predictive
of their conjugate model, accept ``sample_weight`` (a weighted likelihood), and read a
label of ``-1`` as an unlabelled row used for semi-supervised fitting (the mixture over
the labelings of those rows: exact by enumeration, or averaged over draws of the
model's collapsed Gibbs kernel). :class:`DirichletNaiveBayes` takes ``scipy.sparse``
input (bag-of-words counts).

The estimators live with their models (``zoo.models.naive_bayes.estimator``, and
``zoo.models.gaussian_classifiers.linear.estimator``, ``.quadratic.estimator`` and
``.diagonal.estimator``), where those paths keep working; this module is on the layer
above the models (``docs/design.md``, "Layers").
"""

from zoo.models.gaussian_classifiers.diagonal.estimator import BayesianGaussianNB
from zoo.models.gaussian_classifiers.linear.estimator import BayesianGDAClassifier
from zoo.models.gaussian_classifiers.quadratic.estimator import BayesianQDAClassifier
from zoo.models.naive_bayes.estimator import DirichletNaiveBayes

__all__ = [
    "BayesianGDAClassifier",
    "BayesianGaussianNB",
    "BayesianQDAClassifier",
    "DirichletNaiveBayes",
]
