"""The example models outside the zoo, each with its reference (quadrature or closed form)."""

import pytest

from examples import (
    coal_mining,
    dirichlet_multinomial,
    eight_schools,
    gaussian_mixture,
    linear_regression,
    probit_regression,
    pump_failures,
    semi_conjugate_normal,
)
from tests.examples import references

MODULES = [
    pump_failures,
    semi_conjugate_normal,
    probit_regression,
    linear_regression,
    eight_schools,
    coal_mining,
    gaussian_mixture,
    dirichlet_multinomial,
]
#: "file:model function" -> the harness.Example (model, kernel, sampler, bugs).
EXAMPLES = {
    f"{module.__name__.rpartition('.')[2]}:{example.model.__name__}": example
    for module in MODULES
    for example in module.EXAMPLES
}


def model_data(pm_model):
    """The sampler's ``data``: observed values and ``pm.Data`` values by name."""
    data = {rv.name: pm_model.rvs_to_values[rv].data for rv in pm_model.observed_RVs}
    data.update({variable.name: variable.get_value() for variable in pm_model.data_vars})
    return data


def _pumps(hyperprior):
    m = pump_failures
    shape, rate = hyperprior
    return references.pumps(m.FAILURES, m.EXPOSURE, alpha=m.ALPHA, shape=shape, rate=rate)


def _eight_schools(centred):
    m = eight_schools
    return references.eight_schools(
        m.EFFECTS, m.STANDARD_ERRORS, mu_sd=m.MU_SD, tau_scale=m.TAU_SCALE, centred=centred
    )


#: name -> a function building its reference from the module's own constants.
REFERENCES = {
    "pump_failures:model": lambda: _pumps((pump_failures.BETA_SHAPE, pump_failures.BETA_RATE)),
    "pump_failures:bugs_model": lambda: _pumps(pump_failures.BUGS_HYPERPRIOR),
    "semi_conjugate_normal:model": lambda: references.semi_conjugate_normal(
        semi_conjugate_normal.WING_LENGTHS,
        m0=semi_conjugate_normal.M0,
        s0=semi_conjugate_normal.S0,
        a=semi_conjugate_normal.A,
        b=semi_conjugate_normal.B,
    ),
    "probit_regression:model": lambda: references.probit(
        probit_regression.DAMAGE, probit_regression.design(), prior_sd=probit_regression.PRIOR_SD
    ),
    "linear_regression:known_noise_model": lambda: references.regression_known_noise(
        linear_regression.Y_VALUES,
        linear_regression.design(),
        sigma=linear_regression.SIGMA,
        s0=linear_regression.S0,
    ),
    "linear_regression:nig_model": lambda: references.regression_nig(
        linear_regression.Y_VALUES,
        linear_regression.design(),
        a=linear_regression.A,
        b=linear_regression.B,
        g=linear_regression.G,
    ),
    "linear_regression:independent_model": lambda: references.regression_independent(
        linear_regression.Y_VALUES,
        linear_regression.design(),
        s0=linear_regression.S0,
        a=linear_regression.A,
        b=linear_regression.B,
    ),
    "eight_schools:centred_model": lambda: _eight_schools(centred=True),
    "eight_schools:noncentred_model": lambda: _eight_schools(centred=False),
    "coal_mining:model": lambda: references.change_point(
        coal_mining.DISASTERS, coal_mining.YEARS, a=coal_mining.A, b=coal_mining.B
    ),
    "gaussian_mixture:model": lambda: references.two_component_mixture(
        gaussian_mixture.OBSERVATIONS,
        a=gaussian_mixture.A,
        b=gaussian_mixture.B,
        prior_means=gaussian_mixture.M,
        prior_sd=gaussian_mixture.S,
        sigma=gaussian_mixture.SIGMA,
    ),
    "dirichlet_multinomial:model": lambda: references.dirichlet_multinomial(
        dirichlet_multinomial.COUNTS, alpha=dirichlet_multinomial.ALPHA
    ),
}


def reference_of(name):
    """The reference of an example, from the module's own constants."""
    return REFERENCES[name]()


@pytest.fixture(scope="module", params=list(EXAMPLES))
def example(request):
    """(name, harness.Example, PyMC model, data dict) of each example model."""
    example = EXAMPLES[request.param]
    pm_model = example.model()
    return request.param, example, pm_model, model_data(pm_model)
