"""Dirichlet-prior Naive Bayes: the PyMC program.

pi and phi are sampled by NUTS; the missing labels are marginalised by hand (PyMC 6.4
has no core ``marginalize`` and pymc-extras does not install with it):

    log p(x_u | pi, phi) = logsumexp_k [log pi_k + log p(x_u | phi_k)]

for each unlabelled document, as a ``CustomDist`` so that the documents stay observed
data. ``pm.Mixture`` is not used for the Bernoulli model on purpose: with element-wise
Bernoulli components it would mix every feature separately, which is a different
model. ``class_probability`` recovers ``p(y_u = k | pi, phi, x_u)`` per draw.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from zoo.models.naive_bayes.spec import Data, Prior

__all__ = ["program"]


def _log_class_joint(x, pi, phi, bernoulli: bool):
    """``log pi_k + log p(x | phi_k)`` for documents ``x`` (..., V): shape (..., K).

    Written with trailing-axis broadcasting because a CustomDist hands its logp the
    parameters with the value's batch dims prepended. The multinomial coefficient does
    not depend on the parameters and is left out.
    """
    log_phi = pt.log(phi)
    joint = pt.log(pi) + pt.sum(x[..., None, :] * log_phi, axis=-1)
    if bernoulli:
        joint = joint + pt.sum((1.0 - x[..., None, :]) * pt.log1p(-phi), axis=-1)
    return joint


def program(data: Data, prior: Prior) -> pm.Model:
    """Return the PyMC model; variable names and dims match the Gibbs output."""
    hyper = prior.resolve(data)
    bernoulli = data.event_model == "bernoulli"
    labelled, unlabelled = data.labelled, data.unlabelled
    with pm.Model(coords=data.coords) as model:
        pi = pm.Dirichlet("pi", a=hyper.alpha, dims="class")
        if bernoulli:
            phi = pm.Beta("phi", alpha=hyper.beta, beta=hyper.beta0, dims=("class", "feature"))
        else:
            phi = pm.Dirichlet("phi", a=hyper.beta, dims=("class", "feature"))
        if labelled.size:
            labels = data.labels[labelled]
            pm.Categorical("labels", p=pi, observed=labels, dims="labelled")
            x = data.counts[labelled]
            if bernoulli:
                pm.Bernoulli("x_labelled", p=phi[labels], observed=x, dims=("labelled", "feature"))
            else:
                pm.Multinomial(
                    "x_labelled",
                    n=x.sum(axis=1),
                    p=phi[labels],
                    observed=x,
                    dims=("labelled", "feature"),
                )
        x_u = data.counts[unlabelled].astype(float)
        if unlabelled.size:

            def logp(value, pi, phi):
                joint = _log_class_joint(value, pi, phi, bernoulli)
                marginal = pt.logsumexp(joint, axis=-1)
                if bernoulli:
                    return marginal
                # The multinomial coefficient, constant for NUTS, makes the value the
                # document's log pmf, as pm.Multinomial's is for the labelled ones (the
                # pointwise log-likelihood of LOO-CV needs the proper density).
                lengths = pt.sum(value, axis=-1)
                return (
                    marginal + pt.gammaln(lengths + 1.0) - pt.sum(pt.gammaln(value + 1.0), axis=-1)
                )

            pm.CustomDist(
                "x_unlabelled",
                pi,
                phi,
                logp=logp,
                signature="(k),(k,v)->(v)",
                observed=x_u,
                dims=("unlabelled", "feature"),
            )
        joint = _log_class_joint(pt.as_tensor(np.asarray(x_u)), pi, phi, bernoulli)
        pm.Deterministic(
            "class_probability",
            pt.special.softmax(joint, axis=-1),
            dims=("unlabelled", "class"),
        )
    return model
