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


def test_a_line_cut_short_is_run_again(tmp_path):
    path = tmp_path / "run.jsonl"
    ResultStore(path, SETTINGS).add({"key": "sbc-0", "index": 0, "status": "ok"})
    with path.open("a") as handle:
        handle.write('{"key": "sbc-1", "ind')
    assert set(ResultStore(path, SETTINGS).records) == {"sbc-0"}


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
