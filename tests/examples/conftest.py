"""The three example models outside the zoo, each with its quadrature reference."""

import pytest

from examples import probit_regression, pump_failures, semi_conjugate_normal
from tests.examples import references

MODULES = {
    "pump_failures": pump_failures,
    "semi_conjugate_normal": semi_conjugate_normal,
    "probit_regression": probit_regression,
}


def model_data(pm_model):
    """The sampler's ``data``: observed values and ``pm.Data`` values by name."""
    data = {rv.name: pm_model.rvs_to_values[rv].data for rv in pm_model.observed_RVs}
    data.update({variable.name: variable.get_value() for variable in pm_model.data_vars})
    return data


def reference_of(name):
    """The quadrature reference of an example, from the module's own constants."""
    if name == "pump_failures":
        m = pump_failures
        return references.pumps(
            m.FAILURES, m.EXPOSURE, alpha=m.ALPHA, shape=m.BETA_SHAPE, rate=m.BETA_RATE
        )
    if name == "semi_conjugate_normal":
        m = semi_conjugate_normal
        return references.semi_conjugate_normal(m.WING_LENGTHS, m0=m.M0, s0=m.S0, a=m.A, b=m.B)
    m = probit_regression
    return references.probit(m.DAMAGE, m.design(), prior_sd=m.PRIOR_SD)


@pytest.fixture(scope="module", params=list(MODULES))
def example(request):
    """(name, module, PyMC model, data dict) of each example."""
    module = MODULES[request.param]
    pm_model = module.model()
    return request.param, module, pm_model, model_data(pm_model)
