"""Every generated table equals what ``python -m bench.tables`` makes of the records now."""

import re

import pytest

from bench import tables


@pytest.mark.parametrize("table", tables.TABLES, ids=lambda t: t.name)
def test_the_table_is_what_its_records_give(table):
    assert tables.current(table) == tables.generated(table), (
        f"{table.target} ({table.name}) differs from its records: run python -m bench.tables"
    )


def test_the_docs_regions_are_marked_and_a_changed_region_is_seen(tmp_path, monkeypatch):
    regions = [t for t in tables.TABLES if t.region]
    assert {t.target for t in regions} == {
        "docs/power.md",
        "docs/performance.md",
        "docs/testing.md",
    }
    regions = [t for t in regions if t.target == "docs/power.md"]
    # The twin: a hand edit inside a region makes it stale.
    page = tmp_path / "docs" / "power.md"
    page.parent.mkdir()
    text = (tables.ROOT / "docs" / "power.md").read_text()
    catalogue = next(t for t in regions if t.name == "power-catalogue")
    region = tables.current(catalogue)
    page.write_text(text.replace(region, region.replace("/20", "/21", 1)))
    monkeypatch.setattr(tables, "ROOT", tmp_path)
    assert tables.stale(regions) == ["power-catalogue"]


def _cited_paths():
    """Every ``bench/results/...`` path the docs, the READMEs and the code cite."""
    root = tables.ROOT
    sources = [root / "README.md", root / "bench" / "README.md"]
    sources += sorted((root / "docs").glob("*.md")) + sorted((root / "bench").glob("*.py"))
    for folder in ("tests", "zoo", "models", "diagnostics", "examples"):
        sources += sorted((root / folder).rglob("*.py"))
    for source in sources:
        for match in re.finditer(r"bench/results/[\w./*{},$<>-]*", source.read_text()):
            yield source.relative_to(root), match.group(0).rstrip(".,")


def test_every_cited_record_path_exists():
    missing = []
    for source, cited in _cited_paths():
        if cited.rstrip("/") == "bench/results" or any(c in cited for c in "{$<"):
            continue  # the folder itself, or a template (a study's, a shell variable's)
        if source.parts[0] == "bench" and cited.endswith(".jsonl"):
            continue  # a script's own records, made by its first run
        if not list(tables.ROOT.glob(cited.rstrip("/"))):
            missing.append(f"{source}: {cited}")
    assert missing == []
