"""A sampler's output is checked by name, dims, shape and value, with messages that say
what was expected."""

import numpy as np
import pytest
import xarray as xr

import zoo
from zoo.core.loading import load_object
from zoo.validation import SamplerOutputError, SamplerUnderTest, checked_draws

SPEC = zoo.get("beta-binomial")
DATA = SPEC.Data([1, 2, 3], [10, 10, 10])
PRIOR = SPEC.Prior(a=1.0, b=1.0)


def _theta(chains=2, draws=5):
    return np.random.default_rng(0).random((chains, draws, 3))


def test_a_dict_of_arrays_gets_the_models_dims_and_coords():
    ds = checked_draws({"theta": _theta()}, SPEC, DATA, PRIOR, chains=2, draws=5)
    assert ds["theta"].dims == ("chain", "draw", "group")
    assert list(ds["group"].values) == list(DATA.coords["group"])


def test_a_datatree_from_the_driver_passes():
    tree = zoo.sample(SPEC, DATA, PRIOR, draws=5, tune=0, chains=2, seed=1, progress=False)
    ds = checked_draws(tree, SPEC, DATA, PRIOR, chains=2, draws=5)
    np.testing.assert_array_equal(ds["theta"].values, tree.posterior["theta"].values)


def test_named_dims_in_another_order_are_transposed():
    da = xr.DataArray(_theta().transpose(2, 0, 1), dims=("group", "chain", "draw"))
    with pytest.raises(SamplerOutputError, match="expected \\('chain', 'draw', 'group'\\)"):
        checked_draws(xr.Dataset({"theta": da}), SPEC, DATA, PRIOR)
    ok = xr.Dataset({"theta": da.transpose("chain", "draw", "group")})
    assert checked_draws(ok, SPEC, DATA, PRIOR)["theta"].shape == (2, 5, 3)


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ({"p": _theta()}, r"missing variable\(s\) \['theta'\].*theta\(chain, draw, group\)"),
        (
            {"theta": _theta()[..., :2]},
            r"theta has shape \(2, 5, 2\); expected \(chain, draw, 3\)",
        ),
        ({"theta": np.zeros(3)}, "theta has shape"),
        ({"theta": np.where(_theta() > 0.9, np.nan, 0.5)}, "NaN or infinite"),
        ([1, 2, 3], "expected an xarray.DataTree"),
        ({"theta": "abc"}, "not numeric"),
        ({"theta": _theta() + 0j}, "theta is complex"),  # once cut to its real part
        (xr.DataTree(), "needs a 'posterior' group"),
    ],
)
def test_bad_output_says_what_was_expected(output, message):
    with pytest.raises(SamplerOutputError, match=message):
        checked_draws(output, SPEC, DATA, PRIOR)


def test_chain_and_draw_counts_are_checked():
    with pytest.raises(SamplerOutputError, match="1 chain\\(s\\); 2 were asked for"):
        checked_draws({"theta": _theta(chains=1)}, SPEC, DATA, PRIOR, chains=2)
    with pytest.raises(SamplerOutputError, match="5 draws; 7 were asked for"):
        checked_draws({"theta": _theta()}, SPEC, DATA, PRIOR, draws=7)


def test_load_object():
    assert load_object("tests.support.user_samplers:raises").__name__ == "raises"
    for spec, message in [
        ("no_colon", "expected 'package.module:name'"),
        ("no_such_module_xyz:f", "cannot import module"),
        ("tests.support.user_samplers:nothing", "has no attribute"),
    ]:
        with pytest.raises(ValueError, match=message):
            load_object(spec)


def test_engine_sampler_is_picklable_and_names_itself():
    import pickle

    sampler = SamplerUnderTest(SPEC, fault="swapped-a-b")
    assert pickle.loads(pickle.dumps(sampler)) == sampler
    assert "swapped-a-b" in sampler.label
    # A fault is checked when the sampler under test is built, before anything runs.
    with pytest.raises(ValueError, match="fault: beta-binomial has no fault 'nope'"):
        SamplerUnderTest(SPEC, fault="nope")
