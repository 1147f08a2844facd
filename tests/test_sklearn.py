"""``zoo.sklearn``: the estimators under one public name, the same classes as their models'."""

import numpy as np
from sklearn.base import clone, is_classifier

import zoo.sklearn
from zoo.models.gaussian_classifiers.diagonal.estimator import BayesianGaussianNB
from zoo.models.gaussian_classifiers.linear.estimator import BayesianGDAClassifier
from zoo.models.gaussian_classifiers.quadratic.estimator import BayesianQDAClassifier
from zoo.models.naive_bayes.estimator import DirichletNaiveBayes


def test_public_names_are_the_models_estimators():
    assert sorted(zoo.sklearn.__all__) == [
        "BayesianGDAClassifier",
        "BayesianGaussianNB",
        "BayesianQDAClassifier",
        "DirichletNaiveBayes",
    ]
    assert zoo.sklearn.DirichletNaiveBayes is DirichletNaiveBayes
    assert zoo.sklearn.BayesianGDAClassifier is BayesianGDAClassifier
    assert zoo.sklearn.BayesianQDAClassifier is BayesianQDAClassifier
    assert zoo.sklearn.BayesianGaussianNB is BayesianGaussianNB


def test_estimators_work_from_the_public_module():
    from zoo.sklearn import BayesianGDAClassifier, DirichletNaiveBayes

    x = np.array([[3, 1], [4, 0], [0, 5], [1, 3], [2, 2], [5, 1]])
    y = np.array([0, 0, 1, 1, -1, -1])
    for estimator in (DirichletNaiveBayes(), BayesianGDAClassifier(psi0=np.eye(2))):
        assert is_classifier(estimator)
        fitted = clone(estimator).fit(x, y)
        assert list(fitted.classes_) == [0, 1]
        np.testing.assert_allclose(fitted.predict_proba(x).sum(axis=1), 1.0)
