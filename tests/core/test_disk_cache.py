"""Arrays kept on disk: computed once per code and inputs, read back bit for bit."""

import numpy as np
import pytest
from scipy import stats

from zoo.core import disk_cache
from zoo.core.disk_cache import cache_folder, cached_arrays
from zoo.models.mixtures import mixture_marginal


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv(disk_cache.ENVIRONMENT, str(tmp_path / "cache"))
    return tmp_path / "cache"


class Counted:
    def __init__(self, value):
        self.calls = 0
        self.value = value

    def __call__(self):
        self.calls += 1
        return {"x": np.asarray(self.value, dtype=float), "y": np.arange(3.0)}


def test_a_result_is_computed_once_and_read_back_the_same(folder):
    compute = Counted([0.1, 1.0 / 3.0])
    first = cached_arrays("thing", [__file__], (np.ones(2), "a", 3), compute)
    again = cached_arrays("thing", [__file__], (np.ones(2), "a", 3), compute)
    assert compute.calls == 1
    for key in ("x", "y"):
        assert again[key].tobytes() == first[key].tobytes()
    assert len(list(folder.glob("thing-*.npz"))) == 1


@pytest.mark.parametrize(
    "other",
    [
        (np.ones(3), "a", 3),  # another shape
        (np.ones(2, dtype=np.float32), "a", 3),  # another dtype
        (np.full(2, 1.0 + 1e-16 * 2), "a", 3),  # another value, by one ulp
        (np.ones(2), "b", 3),
        (np.ones(2), "a", 3.0),  # another type
        (np.ones(2), ("a",), 3),
    ],
)
def test_other_inputs_are_computed_again(folder, other):
    compute = Counted([1.0])
    cached_arrays("thing", [__file__], (np.ones(2), "a", 3), compute)
    cached_arrays("thing", [__file__], other, compute)
    assert compute.calls == 2


def test_other_code_is_computed_again(folder, tmp_path):
    source = tmp_path / "code.py"
    source.write_text("x = 1\n")
    compute = Counted([1.0])
    cached_arrays("thing", [source], (), compute)
    # The digest is read once per process: an edit between runs is a new process.
    disk_cache._code_digest.cache_clear()
    source.write_text("x = 2\n")
    cached_arrays("thing", [source], (), compute)
    assert compute.calls == 2


def test_an_empty_setting_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv(disk_cache.ENVIRONMENT, "")
    monkeypatch.chdir(tmp_path)
    assert cache_folder() is None
    compute = Counted([1.0])
    cached_arrays("thing", [__file__], (), compute)
    cached_arrays("thing", [__file__], (), compute)
    assert compute.calls == 2
    assert not list(tmp_path.iterdir())


def test_the_default_folder_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.delenv(disk_cache.ENVIRONMENT, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_folder() == tmp_path / "bayes-zoo"


def test_a_folder_that_cannot_be_written_only_costs_the_time(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(disk_cache.ENVIRONMENT, str(blocked / "cache"))
    compute = Counted([2.0])
    assert cached_arrays("thing", [__file__], (), compute)["x"][0] == 2.0
    assert cached_arrays("thing", [__file__], (), compute)["x"][0] == 2.0
    assert compute.calls == 2


def test_a_damaged_file_is_computed_again_and_replaced(folder):
    compute = Counted([1.0])
    cached_arrays("thing", [__file__], (), compute)
    (kept,) = folder.glob("thing-*.npz")
    kept.write_bytes(kept.read_bytes()[:20])
    with pytest.warns(RuntimeWarning, match=r"damaged \(BadZipFile\); computed again") as said:
        assert cached_arrays("thing", [__file__], (), compute)["x"][0] == 1.0
    assert compute.calls == 2 and len(said) == 1
    cached_arrays("thing", [__file__], (), compute)
    assert compute.calls == 2
    assert not list(folder.glob("*.part"))


def test_inputs_that_cannot_be_keyed_are_refused(folder):
    with pytest.raises(TypeError, match=r"^inputs: cannot key a dict"):
        cached_arrays("thing", [__file__], ({"a": 1},), Counted([1.0]))


def test_a_tabulated_mixture_reads_back_the_same_cdf(folder):
    # Above 8192 (component x element) terms the mixture's CDF is a table: cold and warm
    # give the same values and quantiles, bit for bit, and the warm one evaluates no
    # incomplete beta function for the table.
    rng = np.random.default_rng(0)
    a, b = rng.uniform(1, 30, (300, 40)), rng.uniform(1, 30, (300, 40))
    weights = rng.dirichlet(np.ones(300))
    points = np.linspace(0.001, 0.999, 11)[:, None] * np.ones(40)
    cold = mixture_marginal(("e",), weights, stats.beta(a, b), scale="logit")
    assert len(list(folder.glob("mixture-cdf-*.npz"))) == 1
    warm = mixture_marginal(("e",), weights, stats.beta(a, b), scale="logit")
    assert warm.cdf(points).tobytes() == cold.cdf(points).tobytes()
    assert warm.ppf(0.05).tobytes() == cold.ppf(0.05).tobytes()
    np.testing.assert_allclose(cold.cdf(points), cold.cdf.exact(points), atol=1e-4)
    other = mixture_marginal(("e",), weights[::-1], stats.beta(a, b), scale="logit")
    assert len(list(folder.glob("mixture-cdf-*.npz"))) == 2
    assert other.cdf(points).tobytes() != cold.cdf(points).tobytes()


def test_a_whole_file_holding_another_entrys_arrays_is_computed_again(folder):
    # A valid file of other arrays at an entry's path once raised KeyError: 'low' deep in
    # a mixture's reference instead of being recomputed.
    cached_arrays("other", [__file__], (), lambda: {"z": np.zeros(2)})
    compute = Counted([1.0])
    cached_arrays("thing", [__file__], (), compute)
    (other,) = folder.glob("other-*.npz")
    (kept,) = folder.glob("thing-*.npz")
    kept.write_bytes(other.read_bytes())
    with pytest.warns(RuntimeWarning, match="holds another entry's arrays") as said:
        arrays = cached_arrays("thing", [__file__], (), compute)
    assert set(arrays) == {"x", "y"} and compute.calls == 2 and len(said) == 1
    assert set(cached_arrays("thing", [__file__], (), compute)) == {"x", "y"}
    assert compute.calls == 2  # replaced by a good file


def test_a_symbolic_link_planted_as_an_entry_is_neither_read_nor_written_through(folder, tmp_path):
    compute = Counted([1.0])
    cached_arrays("thing", [__file__], (), compute)
    (kept,) = folder.glob("thing-*.npz")
    victim = tmp_path / "victim.npz"
    victim.write_bytes(kept.read_bytes())  # even a valid entry is not read through a link
    before = victim.read_bytes()
    kept.unlink()
    kept.symlink_to(victim)
    with pytest.warns(RuntimeWarning, match="computed again and replaced"):
        cached_arrays("thing", [__file__], (), compute)
    assert compute.calls == 2
    assert victim.read_bytes() == before and not kept.is_symlink()


def _rewrite(kept, **arrays) -> None:
    """Write ``arrays`` over the entry ``kept`` under its own key (its digest left out)."""
    with np.load(kept) as stored:
        key = stored["__zoo_cache_key__"]
    with open(kept, "wb") as stream:
        np.savez(stream, **arrays, __zoo_cache_key__=key)


@pytest.mark.parametrize(
    "arrays",
    [{"x": np.ones(1)}, {"x": np.ones(2), "y": np.arange(3.0)}],
    ids=["an array left out", "an array changed"],
)
def test_a_file_of_the_right_key_whose_arrays_were_changed_is_computed_again(folder, arrays):
    # Its key right but an array missing, the file was returned as it was and its reader
    # (a mixture's reference) raised KeyError.
    compute = Counted([1.0])
    cached_arrays("thing", [__file__], (), compute)
    (kept,) = folder.glob("thing-*.npz")
    _rewrite(kept, **arrays)
    with pytest.warns(RuntimeWarning, match="not the ones written") as said:
        again = cached_arrays("thing", [__file__], (), compute)
    assert set(again) == {"x", "y"} and again["x"].tolist() == [1.0]
    assert compute.calls == 2 and len(said) == 1
    cached_arrays("thing", [__file__], (), compute)
    assert compute.calls == 2  # replaced by a good file


def test_a_folder_at_an_entrys_path_is_computed_around_with_one_warning(folder):
    # os.open of a folder succeeds; reading it raised IsADirectoryError out of the cache.
    compute = Counted([1.0])
    cached_arrays("thing", [__file__], (), compute)
    (kept,) = folder.glob("thing-*.npz")
    kept.unlink()
    kept.mkdir()
    with pytest.warns(RuntimeWarning, match="not a regular file") as said:
        assert cached_arrays("thing", [__file__], (), compute)["x"].tolist() == [1.0]
    assert compute.calls == 2 and len(said) == 1 and kept.is_dir()
