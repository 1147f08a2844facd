"""The JSON-lines result store: written as results arrive, resumed, never mixed."""

import json

import pytest

from zoo.validation.result_store import ResultStore

SETTINGS = {"model": "beta-binomial", "seed": 0, "draws": 200}


def test_results_survive_a_restart(tmp_path):
    path = tmp_path / "run.jsonl"
    store = ResultStore(path, SETTINGS)
    store.add({"key": "sbc-0", "index": 0, "status": "ok", "ranks": {"a": 0.25}})
    store.add({"key": "sbc-1", "index": 1, "status": "error", "message": "boom"})
    again = ResultStore(path, SETTINGS)
    assert set(again.records) == {"sbc-0", "sbc-1"}
    assert again.records["sbc-0"]["ranks"] == {"a": 0.25}
    assert "sbc-1" in again and "sbc-2" not in again


@pytest.mark.parametrize(
    "cut",
    ['{"key": "sbc-1", "ind', '{"key": "sbc-1", "index": 1, "status": "ok"}'],
    ids=["not-json", "whole-but-no-newline"],
)
def test_a_last_line_cut_short_is_dropped_with_one_warning_and_run_again(cut, tmp_path):
    # A writer interrupted mid-line (a crash, Ctrl-C) leaves the last line without its
    # newline. It is dropped from the file too: appended to, it would have become a
    # damaged line in the middle, and the next run would refuse the file.
    path = tmp_path / "run.jsonl"
    ResultStore(path, SETTINGS).add({"key": "sbc-0", "index": 0, "status": "ok"})
    whole = path.read_text()
    with path.open("a") as handle:
        handle.write(cut)
    with pytest.warns(RuntimeWarning, match="last line was cut short") as caught:
        store = ResultStore(path, SETTINGS)
    assert len(caught) == 1 and set(store.records) == {"sbc-0"}
    assert path.read_text() == whole
    store.add({"key": "sbc-1", "index": 1, "status": "ok"})
    assert set(ResultStore(path, SETTINGS).records) == {"sbc-0", "sbc-1"}


def test_a_header_cut_short_starts_afresh(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"header": {"mod')
    with pytest.warns(RuntimeWarning, match="cut short"):
        assert ResultStore(path, SETTINGS).records == {}
    assert json.loads(path.read_text()) == {"header": SETTINGS}


def test_other_settings_are_refused(tmp_path):
    path = tmp_path / "run.jsonl"
    ResultStore(path, SETTINGS)
    with pytest.raises(ValueError, match=r"store: .* different settings \(seed\)"):
        ResultStore(path, {**SETTINGS, "seed": 1})


def test_not_a_results_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    with pytest.raises(ValueError, match="not a zoo results file"):
        ResultStore(path, SETTINGS)


def test_in_memory_store_writes_nothing(tmp_path):
    store = ResultStore(None, SETTINGS)
    store.add({"key": "k", "value": 1})
    assert store.records == {"k": {"key": "k", "value": 1}}
    assert list(tmp_path.iterdir()) == []


def test_header_is_first_line(tmp_path):
    path = tmp_path / "run.jsonl"
    ResultStore(path, SETTINGS)
    assert json.loads(path.read_text().splitlines()[0]) == {"header": SETTINGS}


def test_a_store_planted_as_a_symbolic_link_is_refused_and_the_victim_kept(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("")  # empty: once taken for a new store and given a header
    (tmp_path / "run.jsonl").symlink_to(victim)
    with pytest.raises(ValueError, match=r"run.jsonl is a symbolic link; give the file itself"):
        ResultStore(tmp_path / "run.jsonl", SETTINGS)
    assert victim.read_text() == ""


def test_a_new_store_appears_whole_and_leaves_nothing_beside_it(tmp_path):
    # Written under a temporary name and linked into place: a reader never sees a file
    # without its header, and two runs creating it at once share one.
    path = tmp_path / "run.jsonl"
    first, second = ResultStore(path, SETTINGS), ResultStore(path, SETTINGS)
    first.add({"key": "sbc-0", "index": 0})
    second.refresh()
    assert "sbc-0" in second
    assert [p.name for p in tmp_path.iterdir()] == ["run.jsonl"]
    assert path.read_text().splitlines()[0] == json.dumps({"header": SETTINGS})
    first.close()
    second.close()


def test_two_stores_on_one_file_claim_each_key_once(tmp_path):
    # The claims are locks on open file descriptions: two stores of one process exclude
    # each other as two processes' do (tests/cli/test_shared_store.py starts two runs).
    path = tmp_path / "run.jsonl"
    with ResultStore(path, SETTINGS) as one, ResultStore(path, SETTINGS) as two:
        assert one.claim("sbc-0") and one.claim("sbc-0")  # a claim held is held
        assert not two.claim("sbc-0")
        one.add({"key": "sbc-0", "index": 0, "by": "one"})
        one.release("sbc-0")
        assert not two.claim("sbc-0"), "stored: nothing to claim"
        two.add({"key": "sbc-0", "index": 0, "by": "two"})  # too late: not written again
        assert two.records["sbc-0"]["by"] == "one"
        assert one.claim("sbc-1")
        one.close()  # ended without a record (interrupted, killed): the claim ends too
        two.wait("sbc-1")
        assert two.claim("sbc-1")
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[1])["by"] == "one"
