"""bench.records: provenance inside each record, one folder per study, read back whole."""

import json
import subprocess

import pytest

from bench import records


def test_append_adds_host_commit_date_and_command_and_reads_back(tmp_path):
    line = records.append("study_a", {"seed": 3, "seconds": 0.1}, root=tmp_path)
    assert line["seed"] == 3 and line["seconds"] == 0.1
    assert set(line["host"]) == {"cpu", "cores"}
    assert line["commit"] is None or len(line["commit"]) == 40
    assert line["date"].endswith("+00:00")
    assert line["command"].startswith("python")
    stored = (tmp_path / "study_a" / "records.jsonl").read_text().splitlines()
    assert [json.loads(s) for s in stored] == [line]
    assert records.read("study_a", root=tmp_path) == [line]


def test_the_records_own_fields_win_over_the_provenance(tmp_path):
    mine = {"host": {"cpu": "AMD EPYC", "cores": 2}, "commit": None, "x": 1}
    line = records.append("study_b", mine, root=tmp_path)
    assert line["host"] == mine["host"] and line["commit"] is None


def test_read_takes_every_jsonl_line_and_json_file_in_name_order(tmp_path):
    records.append("s", {"i": 1}, file="b", root=tmp_path)
    records.append("s", {"i": 0}, file="a", root=tmp_path)
    (tmp_path / "s" / "c.json").write_text(json.dumps({"i": 2}))
    (tmp_path / "s" / "table.md").write_text("| not a record |\n")
    assert [r["i"] for r in records.read("s", root=tmp_path)] == [0, 1, 2]
    assert [r["i"] for r in records.read("s", "b", root=tmp_path)] == [1]


def test_read_of_a_whole_study_skips_its_superseded_records(tmp_path):
    records.append("s", {"i": 0}, root=tmp_path)
    records.append("s", {"i": 1, "superseded": "re-run"}, file="superseded", root=tmp_path)
    assert [r["i"] for r in records.read("s", root=tmp_path)] == [0]
    # The twin: asked for by name, the superseded file is read.
    assert [r["i"] for r in records.read("s", "superseded", root=tmp_path)] == [1]


@pytest.mark.parametrize("name", ["../x", "a/b", "", ".", "a b"])
def test_a_study_name_is_never_a_path(tmp_path, name):
    with pytest.raises(ValueError, match="study"):
        records.append(name, {}, root=tmp_path)


def test_a_broken_line_is_named_with_its_file_and_number(tmp_path):
    folder = records.folder("s", root=tmp_path)
    (folder / "records.jsonl").write_text('{"a": 1}\n{"a": \n')
    with pytest.raises(ValueError, match=r"records\.jsonl:2"):
        records.read("s", root=tmp_path)


def test_no_result_file_is_left_outside_a_study_folder():
    # Issue 31: records in their place; every study is a folder of bench/results.
    loose = [p.name for p in records.RESULTS.iterdir() if p.is_file()]
    assert loose == []


def test_the_migrated_lda_speed_runs_say_their_host_inside():
    study = records.read("lda_speed")
    runs = {r["run"]: r for r in study if r.get("kind") == "run_info"}
    assert len(runs) == 24
    assert all(r["host"]["cpu"] in r["environment"]["cpu"] for r in runs.values())
    # every measurement belongs to a run that says where it was taken
    assert all(r["run"] in runs for r in study)


def test_a_tree_dirty_only_in_bench_results_is_clean(tmp_path):
    # A study's first records, written and not yet committed, made every later record of
    # the same session say dirty: true, although the code that ran was the commit's.
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "bench" / "results" / "s").mkdir(parents=True)
    (tmp_path / "bench" / "results" / "s" / "records.jsonl").write_text("{}\n")
    (tmp_path / "bench" / "study.py").write_text("x = 1\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    assert records.dirty(tmp_path) is False
    (tmp_path / "bench" / "results" / "s" / "records.jsonl").write_text("{}\n{}\n")
    assert records.dirty(tmp_path) is False
    (tmp_path / "bench" / "study.py").write_text("x = 2\n")
    assert records.dirty(tmp_path) is True
