"""Every generated table equals what ``python -m bench.tables`` makes of the records now."""

import pytest

from bench import tables


@pytest.mark.parametrize("table", tables.TABLES, ids=lambda t: t.name)
def test_the_table_is_what_its_records_give(table):
    assert tables.current(table) == tables.generated(table), (
        f"{table.target} ({table.name}) differs from its records: run python -m bench.tables"
    )


def test_the_docs_regions_are_marked_and_a_changed_region_is_seen(tmp_path, monkeypatch):
    regions = [t for t in tables.TABLES if t.region]
    assert {t.target for t in regions} >= {"docs/power.md"}
    # The twin: a hand edit inside a region makes it stale.
    page = tmp_path / "docs" / "power.md"
    page.parent.mkdir()
    text = (tables.ROOT / "docs" / "power.md").read_text()
    catalogue = next(t for t in regions if t.name == "power-catalogue")
    region = tables.current(catalogue)
    page.write_text(text.replace(region, region.replace("/20", "/21", 1)))
    monkeypatch.setattr(tables, "ROOT", tmp_path)
    assert tables.stale(regions) == ["power-catalogue"]
